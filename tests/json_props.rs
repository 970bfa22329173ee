//! `src/json/` against serde_json, the reference implementation (a dev-dependency only): both accept
//! and refuse the same texts, read the same values, and what we write reads back to what we read.
use mcp_tasks_web::json::{self, Value};
use proptest::prelude::*;

/// serde_json's value as ours, through its text (numbers compared by value below).
fn same(ours: &Value, theirs: &serde_json::Value) -> bool {
    match (ours, theirs) {
        (Value::Null, serde_json::Value::Null) => true,
        (Value::Bool(a), serde_json::Value::Bool(b)) => a == b,
        (Value::String(a), serde_json::Value::String(b)) => a == b,
        (Value::Number(a), serde_json::Value::Number(b)) => match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
            (Some(x), Some(y), _, _) => x == y,
            (_, _, Some(x), Some(y)) => x == y,
            _ => {
                let (x, y) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN));
                x == y || ((x - y) / y).abs() < 1e-15
            }
        },
        (Value::Array(a), serde_json::Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Object(a), serde_json::Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        (-1e6f64..1e6).prop_map(|x| format!("{x}")),
        (1u32..999, -30i32..30).prop_map(|(m, e)| format!("{m}.{m}e{e}")),
        "[ -~é😀\\\\\"\n\t\u{1}]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
        Just(r#""\ud83d\ude00 \u00e9 \/""#.to_owned()),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|items| format!("[{}]", items.join(", "))),
            prop::collection::vec(("[a-c]{1,2}", inner), 0..6).prop_map(|entries| {
                let members: Vec<String> = entries.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
                format!(" {{ {} }} ", members.join(","))
            }),
        ]
    })
}

/// A number's text as sign, significant digits and the exponent of its first digit (`-1.50e3` →
/// (true, "15", 3); `0.07` → (false, "7", -2)), so two spellings of one value compare equal.
fn significand(text: &str) -> (bool, String, i64) {
    let (negative, text) = text.strip_prefix('-').map_or((false, text), |rest| (true, rest));
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let exponent: i64 = exponent.parse().expect("an exponent");
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_owned();
    let first = int.len() as i64 - 1 - lead as i64 + exponent;
    (negative, digits.clone(), if digits.is_empty() { 0 } else { first })
}

/// Halfway cases: `n + 0.25` and `n + 0.75` just above 1e15 lie exactly between two shortest texts
/// (`…0.2` and `…0.3`); ECMAScript's Number::toString and Ryu take the even one.
#[test]
fn doubles_halfway_between_two_shortest_texts_take_the_even_one() {
    for n in (1_000_000_000_000_000u64..).step_by(7919).take(2000) {
        for x in [n as f64 + 0.25, n as f64 + 0.75, -(n as f64) - 0.25] {
            let ours = json::to_string(&Value::from(x));
            let ryu = serde_json::to_string(&x).expect("a finite double");
            assert_eq!(ours, ryu, "{x:e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    /// Any double becomes the text with the fewest digits that reads back as it (serde_json's writer,
    /// Ryu, is the reference for the digits), and NaN and the infinities `null`.
    #[test]
    fn doubles_are_written_in_their_shortest_round_trip_digits(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        let ours = json::to_string(&Value::from(x));
        if x.is_finite() {
            prop_assert_eq!(ours.parse::<f64>().map(f64::to_bits), Ok(x.to_bits()), "{}", ours);
            let ryu = serde_json::to_string(&x).expect("a finite double");
            prop_assert_eq!(significand(&ours), significand(&ryu), "ours {}, Ryu {}", ours, ryu);
        } else {
            prop_assert_eq!(ours, "null");
        }
    }
}

proptest! {
    #[test]
    fn valid_json_reads_as_serde_json_reads_it_and_round_trips(text in json_text()) {
        let theirs: serde_json::Value = serde_json::from_str(&text).expect("the generator writes JSON");
        let ours = json::from_str(&text).expect("ours accepts what serde_json accepts");
        prop_assert!(same(&ours, &theirs), "{text}\nours: {ours}\ntheirs: {theirs}");
        let written = json::to_string(&ours);
        prop_assert_eq!(json::from_str(&written).expect("what we write reads back"), ours.clone());
        let theirs_of_ours: serde_json::Value = serde_json::from_str(&written).expect("serde_json reads what we write");
        prop_assert!(same(&ours, &theirs_of_ours), "{written}");
        prop_assert_eq!(json::from_str(&json::to_string_pretty(&ours)).expect("pretty reads back"), ours);
    }

    #[test]
    fn damaged_json_is_refused_where_serde_json_refuses_it(text in json_text(), cut in 0usize..64, junk in "[\\]\\[{},:\"a0-]") {
        let mut damaged = text.clone();
        let at = cut.min(damaged.len());
        if damaged.is_char_boundary(at) {
            damaged.insert_str(at, &junk);
        }
        let theirs = serde_json::from_str::<serde_json::Value>(&damaged);
        // Lone surrogates are the one deliberate difference: we read them as U+FFFD, as a JavaScript
        // string would hold them, where serde_json refuses the text.
        let surrogate = theirs.as_ref().err().map(ToString::to_string).is_some_and(|e| e.contains("surrogate") || e.contains("end of hex escape"));
        prop_assume!(!surrogate);
        prop_assert_eq!(json::from_str(&damaged).is_ok(), theirs.is_ok(), "{}", damaged);
    }
}

/// A `tasks/get`-shaped envelope around `inner` at the kept path, with `inner`'s members kept raw.
fn kept(text: &str) -> Result<Value, json::ParseError> {
    json::from_str_keeping(text, &[&["result", "result"], &["result", "*", "y"]])
}

proptest! {
    #[test]
    fn keeping_parts_raw_reads_the_same_value_and_writes_it_back(inner in json_text(), other in json_text()) {
        let text = format!(r#"{{"id":1,"result":{{"x":{other},"result":{inner}}},"jsonrpc":"2.0"}}"#);
        let tree = json::from_str(&text).expect("the generator writes JSON");
        let raw = kept(&text).expect("accepted as the tree is");
        prop_assert_eq!(&raw, &tree);
        let mut expanded = raw.clone();
        expanded.expand();
        prop_assert_eq!(json::to_string(&expanded), json::to_string(&tree));
        prop_assert_eq!(json::from_str(&json::to_string(&raw)).expect("what we write reads back"), tree.clone());
        prop_assert_eq!(json::from_str(&json::to_string_pretty(&raw)).expect("pretty reads back"), tree);
    }

    #[test]
    fn keeping_parts_raw_refuses_the_same_texts_at_the_same_place(inner in json_text(), cut in 0usize..64, junk in "[\\]\\[{},:\"a0-]") {
        let mut damaged = format!(r#"{{"result":{{"result":{inner}}}}}"#);
        let at = (cut + 20).min(damaged.len());
        if damaged.is_char_boundary(at) {
            damaged.insert_str(at, &junk);
        }
        prop_assert_eq!(kept(&damaged).err(), json::from_str(&damaged).err(), "{}", damaged);
    }
}
