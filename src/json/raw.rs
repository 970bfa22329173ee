//! [`RawJson`]: an object or array kept as the text it arrived in. What the client hands on unread (a
//! tool result's blocks and structured content) then costs one copy to read and to write instead of a
//! tree of small allocations, and nothing to clone: the text is shared (a record, its snapshot and the
//! JSON written from it each hold the same 10 KB).
use super::Value;

/// JSON of one object or array, checked when it was read, so it is always valid JSON; written back as
/// is. `Arc`, not `Rc`: a `Value` is `Send` and `Sync` (statics of it exist; the native server moves
/// values between threads). `Arc<String>`, not `Arc<str>`: a text written here
/// ([`RawJson::array_of`]) moves in whole, where an `Arc<str>` would copy it, both held at once.
#[derive(Clone, Debug)]
pub struct RawJson(std::sync::Arc<String>);

impl RawJson {
    /// Wraps text the parser has just checked.
    pub(super) fn checked(text: &str) -> RawJson {
        RawJson(std::sync::Arc::new(text.to_owned()))
    }

    /// An array of `items`, each written as it comes, so that only one item's tree is alive at a time
    /// (a page of `tasks()`: a tree of snapshots held 3.3 KB a task at its peak, where the text holds
    /// half a kilobyte).
    pub fn array_of(items: impl Iterator<Item = Value>) -> RawJson {
        let mut text = String::from("[");
        let mut items = items.enumerate();
        while let Some((i, item)) = items.next() {
            if i > 0 {
                text.push(',');
            }
            super::write::write_compact(&mut text, &item);
            if i == 0 {
                // Room for the rest at about the first one's size (and a sixteenth more), rather
                // than doubling copies of the whole text as it grows.
                let rest = items.size_hint().0;
                text.reserve((text.len() + 1) * rest / 16 * 17);
            }
        }
        text.push(']');
        RawJson(std::sync::Arc::new(text))
    }

    /// The text, as it arrived.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it is an object (else an array).
    pub fn is_object(&self) -> bool {
        self.0.starts_with('{')
    }

    /// The value as a tree.
    pub fn parse(&self) -> Value {
        // Checked when read, so this cannot fail; `null` keeps a broken invariant from aborting.
        super::from_str(self.as_str()).unwrap_or(Value::Null)
    }
}

impl Value {
    /// Replaces every raw part of the value, at any depth, with its tree: for code that reads inside
    /// parts the client otherwise hands on unread (the element's views of a result).
    pub fn expand(&mut self) {
        match self {
            Value::Raw(raw) => *self = raw.parse(),
            Value::Array(items) => items.iter_mut().for_each(Value::expand),
            Value::Object(map) => map.values_mut().for_each(Value::expand),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{from_str, from_str_keeping, to_string};
    use super::*;

    const BODY: &str = r#"{"result":{"taskId":"t","result":{"content":[{"type":"text","text":"a\nb"},[1, 2],3,"x"],
        "structuredContent":{"n":[1,{"m":null}]},"isError":false,"_meta":{ "k" : "v" }},"_meta":{"a":{}}},"id":1}"#;

    #[test]
    fn an_array_written_item_by_item_is_the_array_of_the_items() {
        let items = [from_str(r#"{"a":[1,"x\n"]}"#).unwrap(), Value::Null, from_str("[]").unwrap()];
        let raw = RawJson::array_of(items.iter().cloned());
        assert_eq!(raw.as_str(), r#"[{"a":[1,"x\n"]},null,[]]"#);
        assert_eq!(raw.parse(), Value::Array(items.to_vec()));
        assert!(!raw.is_object());
        assert_eq!(RawJson::array_of(std::iter::empty()).as_str(), "[]");
    }

    #[test]
    fn the_members_at_the_path_stay_text_and_the_rest_is_a_tree() {
        let value = from_str_keeping(BODY, &[&["result", "result"]]).unwrap();
        let result = &value["result"]["result"];
        let raw = |v: &Value| match v {
            Value::Raw(r) => Some(r.as_str().to_owned()),
            _ => None,
        };
        let content = result["content"].as_array().expect("content stays a list");
        assert_eq!(raw(&content[0]).as_deref(), Some(r#"{"type":"text","text":"a\nb"}"#));
        assert_eq!(raw(&content[1]).as_deref(), Some("[1, 2]"));
        assert_eq!((&content[2], &content[3]), (&Value::from(3), &Value::from("x")));
        assert_eq!(raw(&result["structuredContent"]).as_deref(), Some(r#"{"n":[1,{"m":null}]}"#));
        assert_eq!(raw(&result["_meta"]).as_deref(), Some(r#"{ "k" : "v" }"#));
        assert_eq!(result["isError"], Value::Bool(false));
        assert!(raw(&value["result"]["_meta"]).is_none() && value["result"]["_meta"]["a"].is_object());
        assert_eq!(value, from_str(BODY).unwrap(), "equal to the tree it stands for");
        let mut expanded = value.clone();
        expanded.expand();
        assert!(raw(&expanded["result"]["result"]["_meta"]).is_none());
        assert_eq!(expanded["result"]["result"]["_meta"]["k"], "v");
    }

    #[test]
    fn several_paths_and_any_key_reach_their_objects() {
        let text = r#"{"a":{"k1":{"p":{"s":{"x":1},"m":"t"}},"k2":{"p":{"s":[{"y":2}]}}},"b":{"c":{"d":{}}}}"#;
        let value = from_str_keeping(text, &[&["a", "*", "p"], &["b", "c"]]).unwrap();
        let is_raw = |v: &Value| matches!(v, Value::Raw(_));
        assert!(is_raw(&value["a"]["k1"]["p"]["s"]) && value["a"]["k1"]["p"]["m"] == "t");
        let shorter = from_str_keeping(text, &[&["a", "*", "p"], &["a", "k1"]]).unwrap();
        assert!(is_raw(&shorter["a"]["k1"]["p"]), "the path that ends first keeps its member whole");
        assert_eq!(shorter, value);
        assert!(!is_raw(&value["a"]["k2"]["p"]["s"]) && is_raw(&value["a"]["k2"]["p"]["s"][0]));
        assert!(is_raw(&value["b"]["c"]["d"]));
        assert!(!is_raw(&value["a"]["k2"]) && !is_raw(&value["b"]["c"]));
        let Value::Raw(schema) = &value["a"]["k1"]["p"]["s"] else { panic!("raw") };
        assert!(schema.is_object());
        assert_eq!(value, from_str(text).unwrap());
    }

    #[test]
    fn raw_parts_are_written_as_they_came() {
        let value = from_str_keeping(BODY, &[&["result", "result"]]).unwrap();
        let text = to_string(&value);
        assert!(text.contains(r#""_meta":{ "k" : "v" }"#), "{text}");
        assert_eq!(from_str(&text).unwrap(), from_str(BODY).unwrap());
    }

    #[test]
    fn a_path_that_is_not_there_changes_nothing() {
        for paths in [&[&["result", "nothing"][..]][..], &[&["id"]], &[&["result", "taskId"]], &[&["x"], &["y", "*"]]] {
            let value = from_str_keeping(BODY, paths).unwrap();
            let mut expanded = value.clone();
            expanded.expand();
            assert_eq!(to_string(&expanded), to_string(&value), "{paths:?}");
        }
    }

    #[test]
    fn raw_parts_are_checked_like_the_rest() {
        let keep = |text: &str| from_str_keeping(text, &[&["r"]]);
        for text in [
            r#"{"r":{"a":{"b":[1,]}}}"#,
            r#"{"r":{"a":{"b":"\q"}}}"#,
            r#"{"r":{"a":["x	"]}}"#,
            r#"{"r":{"a":{"b" 1}}}"#,
            r#"{"r":{"a":[01]}}"#,
            r#"{"r":{"a":{"b":tru}}}"#,
            r#"{"r":{"a":{"b":1}"#,
            r#"{"r":{"a":[[1] [2]]}}"#,
            r#"{"r":{"a":{"b":1,}}}"#,
            r#"{"r":{"a":[1}}}"#,
            r#"{"r":{"a":{"b":1]}}}"#,
            r#"{"r":{"a":{1:2}}}"#,
            r#"{"r":{"a":[-]}}"#,
            r#"{"r":{"a":[nul]}}"#,
            r#"{"r":{"a":[ "#,
            r#"{"r":{"a":{ "b" : [ 1 , {"c": "\u12"} ] }}}"#,
        ] {
            assert_eq!(keep(text).unwrap_err(), from_str(text).unwrap_err(), "{text}");
        }
        for text in [
            r#"{"r":{"a":[ ],"b":{ },"c":[ 1 , -2.5e+3 , true , null , "\u00e9" ]}}"#,
            r#"{"r":{"a":{"b":[{}]},"c":[[],{},0,"",false]}}"#,
        ] {
            let value = keep(text).unwrap();
            assert!(matches!(&value["r"]["c"], Value::Array(c) if c.len() == 5), "{text}");
            assert_eq!(value, from_str(text).unwrap(), "{text}");
        }
        let deep = format!(r#"{{"r":{{"a":{}{}}}}}"#, "[".repeat(200), "]".repeat(200));
        assert_eq!(keep(&deep).unwrap_err().what, "JSON nested too deeply");
        assert_eq!(keep(&deep).unwrap_err(), from_str(&deep).unwrap_err());
    }
}
