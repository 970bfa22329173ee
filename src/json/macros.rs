//! `json!`: JSON literals in Rust, with expressions for values (and keys).

/// Builds a [`Value`](crate::json::Value) from JSON-like syntax: `json!({ "id": id, "tags": ["a", b] })`.
/// Values are expressions, borrowed and converted with [`ToJson`](crate::json::ToJson); `null`, nested `{…}` and `[…]` are literals;
/// keys are string literals or expressions that convert into `String`.
#[macro_export]
macro_rules! json {
    (null) => { $crate::json::Value::Null };
    ([]) => { $crate::json::Value::Array(::std::vec::Vec::new()) };
    ([ $($tt:tt)+ ]) => {{
        // Not `Vec::new()` + pushes, which clippy would flag in every crate that writes `json!([…])`.
        let mut items: ::std::vec::Vec<$crate::json::Value> = ::std::iter::empty().collect();
        $crate::__json_array!(items; [] $($tt)+);
        $crate::json::Value::Array(items)
    }};
    ({}) => { $crate::json::Value::Object($crate::json::Map::new()) };
    ({ $($tt:tt)+ }) => {{
        let mut map = $crate::json::Map::new();
        $crate::__json_object!(map; $($tt)+);
        $crate::json::Value::Object(map)
    }};
    ($other:expr) => { $crate::json::ToJson::to_json_value(&$other) };
}

/// Array elements of [`json!`]: token trees gathered until a comma.
#[doc(hidden)]
#[macro_export]
macro_rules! __json_array {
    ($items:ident; []) => {};
    ($items:ident; [$($v:tt)+]) => { $items.push($crate::json!($($v)+)); };
    ($items:ident; [] $v:tt , $($rest:tt)*) => {
        $items.push($crate::json!($v));
        $crate::__json_array!($items; [] $($rest)*);
    };
    ($items:ident; [$($v:tt)+] , $($rest:tt)*) => {
        $items.push($crate::json!($($v)+));
        $crate::__json_array!($items; [] $($rest)*);
    };
    ($items:ident; [$($v:tt)*] $t:tt $($rest:tt)*) => { $crate::__json_array!($items; [$($v)* $t] $($rest)*); };
}

/// Object members of [`json!`]: a key up to `:`, then a value up to `,`. Single-token keys and values
/// take one step, so large literals stay within the recursion limit.
#[doc(hidden)]
#[macro_export]
macro_rules! __json_object {
    ($map:ident;) => {};
    ($map:ident; $k:tt : $v:tt , $($rest:tt)*) => {
        $map.put($k, $crate::json!($v));
        $crate::__json_object!($map; $($rest)*);
    };
    ($map:ident; $k:tt : $v:tt) => {
        $map.put($k, $crate::json!($v));
    };
    ($map:ident; @key [$($k:tt)+] : $($rest:tt)*) => { $crate::__json_object!($map; @value [$($k)+] [] $($rest)*); };
    ($map:ident; @key [$($k:tt)*] $t:tt $($rest:tt)*) => { $crate::__json_object!($map; @key [$($k)* $t] $($rest)*); };
    ($map:ident; @value [$($k:tt)+] [$($v:tt)+] , $($rest:tt)*) => {
        $map.put($($k)+, $crate::json!($($v)+));
        $crate::__json_object!($map; $($rest)*);
    };
    ($map:ident; @value [$($k:tt)+] [$($v:tt)+]) => {
        $map.put($($k)+, $crate::json!($($v)+));
    };
    ($map:ident; @value [$($k:tt)+] [$($v:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__json_object!($map; @value [$($k)+] [$($v)* $t] $($rest)*);
    };
    ($map:ident; $($rest:tt)+) => { $crate::__json_object!($map; @key [] $($rest)+); };
}

#[cfg(test)]
mod tests {
    use crate::json::{from_str, Value};

    #[test]
    fn literals_and_expressions() {
        let id = "t-1";
        let count: u64 = 3;
        let missing: Option<&str> = None;
        let nested = json!({ "x": 1 });
        let key = "dynamic";
        let v = json!({
            "id": id,
            "count": count,
            "sum": count + 1,
            "neg": -2,
            "missing": missing,
            "flags": [true, false, null, id.len()],
            "nested": nested,
            "obj": { "inner": [] , "empty": {} },
            key: "k",
            "last": id.to_uppercase()
        });
        let expected = from_str(
            r#"{"id":"t-1","count":3,"sum":4,"neg":-2,"missing":null,"flags":[true,false,null,3],"nested":{"x":1},"obj":{"inner":[],"empty":{}},"dynamic":"k","last":"T-1"}"#,
        )
        .unwrap();
        assert_eq!(v, expected);
        assert_eq!(v.to_string(), expected.to_string());
        assert_eq!(json!(null), Value::Null);
        assert_eq!(json!([1, "a"]).to_string(), r#"[1,"a"]"#);
    }
}
