//! Tests for the elicitation form model: schema parsing, defaults, answer validation,
//! messages, widget hints, and property tests that nothing panics.

use mcp_tasks_web::json::{json, Map, Number, Value};
use mcp_tasks_web::protocol::form::{
    Choice, FieldError, FieldKind, FormField, FormModel, Problem, PropertyError, SchemaError, TextFormat, WidgetHint,
    RADIO_MAX_OPTIONS,
};
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

/// A number from its JSON text, kept as written.
fn num(text: &str) -> Number {
    text.parse().unwrap()
}

fn model(schema: Value) -> FormModel {
    match FormModel::from_schema(&schema) {
        Ok(m) => m,
        Err(e) => panic!("schema should be accepted, got: {e}"),
    }
}

/// A one-property schema around `def`, optionally required.
fn single(def: Value, required: bool) -> Value {
    if required {
        json!({"type": "object", "properties": {"f": def}, "required": ["f"]})
    } else {
        json!({"type": "object", "properties": {"f": def}})
    }
}

fn field(schema_def: Value) -> FormField {
    let m = model(single(schema_def, false));
    assert_eq!(m.fields().len(), 1);
    m.fields()[0].clone()
}

fn schema_err(schema: Value) -> SchemaError {
    match FormModel::from_schema(&schema) {
        Ok(m) => panic!("schema should be rejected, got model {m:?}"),
        Err(e) => e,
    }
}

/// The problem of property `f` (the one `single` defines).
fn prop_err(def: Value) -> PropertyError {
    match schema_err(single(def, false)) {
        SchemaError::Property { property, problem } if property == "f" => problem,
        other => panic!("not a problem of property `f`: {other:?}"),
    }
}

fn obj(v: Value) -> Map {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// Validates `answer` for the single property `f` of `def` and returns the problems (or []).
fn problems_for(def: Value, required: bool, answer: Value) -> Vec<Problem> {
    let m = model(single(def, required));
    match m.validate(&obj(json!({ "f": answer }))) {
        Ok(_) => vec![],
        Err(errs) => {
            assert!(errs.iter().all(|e| e.field == "f"), "{errs:?}");
            errs.into_iter().map(|e| e.problem).collect()
        }
    }
}

/// Validates `answer` for `f` and returns the content value sent (None when left out).
fn accepted(def: Value, required: bool, answer: Value) -> Option<Value> {
    let m = model(single(def, required));
    match m.validate(&obj(json!({ "f": answer.clone() }))) {
        Ok(content) => {
            assert!(content.keys().all(|k| k == "f"));
            content.get("f").cloned()
        }
        Err(errs) => panic!("answer {answer} should be accepted, got {errs:?}"),
    }
}

fn example_a() -> Value {
    json!({"type":"object","properties":{
        "region":{"type":"string","title":"Region","oneOf":[{"const":"eu-west-1","title":"Ireland"},{"const":"us-east-1","title":"Virginia"}],"default":"eu-west-1"},
        "replicas":{"type":"integer","title":"Replicas","minimum":1,"maximum":5,"default":2},
        "notify":{"type":"string","format":"email","title":"Notify address"},
        "tags":{"type":"array","title":"Tags","items":{"type":"string","enum":["blue","green","canary"]},"minItems":0,"maxItems":2},
        "confirm":{"type":"boolean","title":"Confirm","default":false}},
        "required":["region","confirm"]})
}

fn choice(value: &str, title: Option<&str>) -> Choice {
    Choice { value: value.to_owned(), title: title.map(str::to_owned) }
}

// ---------------------------------------------------------------- building models

#[test]
fn example_a_every_field() {
    let schema = example_a();
    let m = model(schema.clone());
    // Fields follow the iteration order of serde_json's map (sorted without `preserve_order`).
    let expected_order: Vec<&str> = schema["properties"].as_object().unwrap().keys().collect();
    let names: Vec<&str> = m.fields().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, expected_order);
    assert_eq!(m.fields().len(), 5);

    assert_eq!(
        m.field("region"),
        Some(&FormField {
            name: "region".into(),
            title: Some("Region".into()),
            description: None,
            required: true,
            kind: FieldKind::SingleSelect {
                options: vec![choice("eu-west-1", Some("Ireland")), choice("us-east-1", Some("Virginia"))],
                default: Some("eu-west-1".into()),
            },
        })
    );
    assert_eq!(
        m.field("replicas"),
        Some(&FormField {
            name: "replicas".into(),
            title: Some("Replicas".into()),
            description: None,
            required: false,
            kind: FieldKind::Number {
                integer: true,
                minimum: Some(num("1")),
                maximum: Some(num("5")),
                default: Some(num("2")),
            },
        })
    );
    assert_eq!(
        m.field("notify"),
        Some(&FormField {
            name: "notify".into(),
            title: Some("Notify address".into()),
            description: None,
            required: false,
            kind: FieldKind::Text {
                format: Some(TextFormat::Email),
                min_length: None,
                max_length: None,
                default: None,
            },
        })
    );
    assert_eq!(
        m.field("tags"),
        Some(&FormField {
            name: "tags".into(),
            title: Some("Tags".into()),
            description: None,
            required: false,
            kind: FieldKind::MultiSelect {
                options: vec![choice("blue", None), choice("green", None), choice("canary", None)],
                min_items: Some(0),
                max_items: Some(2),
                default: vec![],
            },
        })
    );
    assert_eq!(
        m.field("confirm"),
        Some(&FormField {
            name: "confirm".into(),
            title: Some("Confirm".into()),
            description: None,
            required: true,
            kind: FieldKind::Boolean { default: Some(false) },
        })
    );
    assert_eq!(m.field("nope"), None);
}

#[test]
fn example_a_defaults_are_typed() {
    let m = model(example_a());
    let d = m.defaults();
    assert_eq!(Value::Object(d.clone()), json!({"region": "eu-west-1", "replicas": 2, "confirm": false}));
    // Integer default is emitted as a JSON integer, not 2.0.
    assert!(d["replicas"].is_i64());
    assert_eq!(m.validate(&d), Ok(d));
}

#[test]
fn example_b_titled_multi_select() {
    let f = field(json!({"type":"array","title":"Color Selection","minItems":1,"maxItems":2,
        "items":{"anyOf":[{"const":"#FF0000","title":"Red"},{"const":"#00FF00","title":"Green"},{"const":"#0000FF","title":"Blue"}]},
        "default":["#FF0000","#00FF00"]}));
    assert_eq!(f.title.as_deref(), Some("Color Selection"));
    assert!(!f.required);
    assert_eq!(
        f.kind,
        FieldKind::MultiSelect {
            options: vec![
                choice("#FF0000", Some("Red")),
                choice("#00FF00", Some("Green")),
                choice("#0000FF", Some("Blue")),
            ],
            min_items: Some(1),
            max_items: Some(2),
            default: vec!["#FF0000".into(), "#00FF00".into()],
        }
    );
    let m = model(single(json!({"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]},"default":["a"]}), false));
    assert_eq!(Value::Object(m.defaults()), json!({"f": ["a"]}));
}

#[test]
fn example_c_text_with_bounds_and_format() {
    let f = field(
        json!({"type":"string","title":"Display Name","minLength":3,"maxLength":50,"format":"email","default":"user@example.com"}),
    );
    assert_eq!(f.title.as_deref(), Some("Display Name"));
    assert_eq!(
        f.kind,
        FieldKind::Text {
            format: Some(TextFormat::Email),
            min_length: Some(3),
            max_length: Some(50),
            default: Some("user@example.com".into()),
        }
    );
}

#[test]
fn example_d_number() {
    let f = field(json!({"type":"number","minimum":0,"maximum":100,"default":50}));
    assert_eq!(f.title, None);
    assert_eq!(
        f.kind,
        FieldKind::Number {
            integer: false,
            minimum: Some(num("0")),
            maximum: Some(num("100")),
            default: Some(num("50")),
        }
    );
}

#[test]
fn example_e_legacy_enum_names() {
    let f = field(
        json!({"type":"string","title":"Size","description":"Pick one","enum":["s","m","l"],"enumNames":["Small","Medium","Large"],"default":"m"}),
    );
    assert_eq!(f.description.as_deref(), Some("Pick one"));
    assert_eq!(
        f.kind,
        FieldKind::SingleSelect {
            options: vec![choice("s", Some("Small")), choice("m", Some("Medium")), choice("l", Some("Large"))],
            default: Some("m".into()),
        }
    );
}

#[test]
fn example_f_untitled_enum() {
    let f = field(json!({"type":"string","enum":["red","green"]}));
    assert_eq!(
        f.kind,
        FieldKind::SingleSelect { options: vec![choice("red", None), choice("green", None)], default: None }
    );
    if let FieldKind::SingleSelect { options, .. } = &f.kind {
        assert_eq!(options[0].label(), "red");
    }
}

#[test]
fn tolerates_schema_uri_unknown_keywords_and_nulls() {
    let m = model(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "Deploy",
        "x-extra": {"anything": [1, 2]},
        "properties": {
            "n": {"type": "integer", "exclusiveMinimum": 0, "x-ui": true, "minimum": null, "title": 7},
            "s": {"type": "string", "pattern": "^a", "enumNames": ["ignored"]}
        },
        "required": null
    }));
    let n = m.field("n").unwrap();
    assert_eq!(n.title, None, "non-string title is ignored");
    assert_eq!(n.kind, FieldKind::Number { integer: true, minimum: None, maximum: None, default: None });
    assert!(matches!(m.field("s").unwrap().kind, FieldKind::Text { .. }));
    assert!(m.fields().iter().all(|f| !f.required));
}

#[test]
fn lenient_aliases_and_untitled_consts() {
    // `anyOf` on a string is read like `oneOf`; `oneOf` in items like `anyOf`.
    let f = field(json!({"type":"string","anyOf":[{"const":"a","title":"A"},{"const":"b"}]}));
    assert_eq!(
        f.kind,
        FieldKind::SingleSelect { options: vec![choice("a", Some("A")), choice("b", None)], default: None }
    );
    if let FieldKind::SingleSelect { options, .. } = &f.kind {
        assert_eq!(options[0].label(), "A");
        assert_eq!(options[1].label(), "b");
    }
    let f = field(json!({"type":"array","items":{"type":"string","oneOf":[{"const":"x","title":"X"}]}}));
    assert_eq!(
        f.kind,
        FieldKind::MultiSelect {
            options: vec![choice("x", Some("X"))],
            min_items: None,
            max_items: None,
            default: vec![]
        }
    );
    assert_eq!(
        prop_err(json!({"type":"string","oneOf":[{"const":"a"}],"anyOf":[{"const":"a"}]})),
        PropertyError::ConflictingKeywords { first: "oneOf", second: "anyOf" }
    );
}

#[test]
fn empty_properties_is_a_valid_empty_form() {
    let m = model(json!({"type": "object", "properties": {}}));
    assert!(m.fields().is_empty());
    assert_eq!(m.validate(&Map::new()), Ok(Map::new()));
}

#[test]
fn blank_defaults_count_as_no_default() {
    let f = field(json!({"type":"string","minLength":3,"default":""}));
    assert_eq!(f.kind, FieldKind::Text { format: None, min_length: Some(3), max_length: None, default: None });
    let f = field(json!({"type":"array","minItems":1,"items":{"enum":["a"]},"default":[]}));
    assert!(matches!(f.kind, FieldKind::MultiSelect { ref default, .. } if default.is_empty()));
}

#[test]
fn integer_default_written_as_float_is_accepted_and_emitted_as_integer() {
    let m = model(single(json!({"type":"integer","default":3.0}), false));
    assert_eq!(Value::Object(m.defaults()), json!({"f": 3}));
}

// ---------------------------------------------------------------- widget hints

#[test]
fn widget_hints() {
    let opts = |n: usize| -> Vec<Value> { (0..n).map(|i| json!(format!("o{i}"))).collect() };
    let hint = |def: Value| field(def).kind.widget_hint();
    assert_eq!(RADIO_MAX_OPTIONS, 5);
    assert_eq!(hint(json!({"type":"string","enum": opts(1)})), WidgetHint::Radio);
    assert_eq!(hint(json!({"type":"string","enum": opts(5)})), WidgetHint::Radio);
    assert_eq!(hint(json!({"type":"string","enum": opts(6)})), WidgetHint::Select);
    assert_eq!(hint(json!({"type":"boolean"})), WidgetHint::Checkbox);
    assert_eq!(hint(json!({"type":"array","items":{"type":"string","enum": opts(9)}})), WidgetHint::Checkboxes);
    assert_eq!(hint(json!({"type":"string"})), WidgetHint::TextInput);
    assert_eq!(hint(json!({"type":"integer"})), WidgetHint::NumberInput);
    assert_eq!(hint(json!({"type":"number"})), WidgetHint::NumberInput);
}

// ---------------------------------------------------------------- validate: happy paths

#[test]
fn happy_path_exact_content() {
    let m = model(example_a());
    let answers = obj(json!({
        "region": "us-east-1",
        "replicas": 4.0,
        "notify": "ops@example.com",
        "tags": ["canary", "blue"],
        "confirm": true
    }));
    let content = m.validate(&answers).expect("valid answers");
    assert_eq!(
        Value::Object(content.clone()),
        json!({
            "region": "us-east-1",
            "replicas": 4,
            "notify": "ops@example.com",
            "tags": ["canary", "blue"],
            "confirm": true
        })
    );
    assert!(content["replicas"].is_i64());
}

#[test]
fn optional_blank_answers_are_left_out() {
    let m = model(example_a());
    let answers = obj(json!({
        "region": "eu-west-1",
        "replicas": null,
        "notify": "",
        "tags": [],
        "confirm": false
    }));
    assert_eq!(Value::Object(m.validate(&answers).unwrap()), json!({"region": "eu-west-1", "confirm": false}));
    // Absent optional keys too.
    let answers = obj(json!({"region": "eu-west-1", "confirm": false}));
    assert_eq!(Value::Object(m.validate(&answers).unwrap()), json!({"region": "eu-west-1", "confirm": false}));
}

#[test]
fn required_blank_answers_are_required_errors() {
    for blank in [json!(null), json!("")] {
        assert_eq!(problems_for(json!({"type":"string","minLength":2}), true, blank), vec![Problem::Required]);
    }
    assert_eq!(problems_for(json!({"type":"array","items":{"enum":["a"]}}), true, json!([])), vec![Problem::Required]);
    assert_eq!(problems_for(json!({"type":"string","enum":["a"]}), true, json!("")), vec![Problem::Required]);
    // An empty string that *is* an option is a real answer.
    assert_eq!(accepted(json!({"type":"string","enum":["", "a"]}), true, json!("")), Some(json!("")));
}

#[test]
fn integer_accepts_whole_floats_and_rejects_fractions() {
    let int = json!({"type":"integer"});
    assert_eq!(accepted(int.clone(), true, json!(3.0)), Some(json!(3)));
    assert!(accepted(int.clone(), true, json!(3.0)).unwrap().is_i64());
    assert_eq!(accepted(int.clone(), true, json!(-0.0)), Some(json!(0)));
    assert_eq!(accepted(int.clone(), true, json!(-7)), Some(json!(-7)));
    assert_eq!(accepted(int.clone(), true, json!(u64::MAX)), Some(json!(u64::MAX)));
    assert_eq!(problems_for(int.clone(), true, json!(2.5)), vec![Problem::NotAnInteger]);
}

#[test]
fn number_accepts_floats_as_given() {
    let num = json!({"type":"number","minimum":0,"maximum":1});
    assert_eq!(accepted(num.clone(), true, json!(0.75)), Some(json!(0.75)));
    assert_eq!(accepted(num.clone(), true, json!(1)), Some(json!(1)));
    assert_eq!(accepted(num, true, json!(0)), Some(json!(0)));
}

#[test]
fn unicode_lengths_count_scalar_values() {
    let def = json!({"type":"string","minLength":3,"maxLength":3});
    assert_eq!("ไทย".len(), 9);
    assert_eq!(accepted(def.clone(), true, json!("ไทย")), Some(json!("ไทย")));
    assert_eq!(problems_for(def.clone(), true, json!("ไท")), vec![Problem::TooShort { min: 3 }]);
    assert_eq!(problems_for(def, true, json!("ไทยๆ")), vec![Problem::TooLong { max: 3 }]);
}

#[test]
fn dates_respect_the_calendar() {
    let date = json!({"type":"string","format":"date"});
    for ok in ["2024-02-29", "2000-02-29", "1999-12-31", "2023-01-01"] {
        assert_eq!(accepted(date.clone(), true, json!(ok)), Some(json!(ok)));
    }
    for bad in [
        "2023-02-29",
        "1900-02-29",
        "2024-04-31",
        "2024-13-01",
        "2024-00-10",
        "2024-01-00",
        "2024-1-01",
        "24-01-01",
        "2024/01/01",
        "2024-01-01T00:00:00Z",
        "２０２４-01-01",
        "hello",
    ] {
        assert_eq!(problems_for(date.clone(), true, json!(bad)), vec![Problem::InvalidDate], "{bad}");
    }
}

#[test]
fn date_times_follow_rfc3339() {
    let dt = json!({"type":"string","format":"date-time"});
    for ok in
        ["2024-02-29T13:45:00Z", "2024-02-29T13:45:00.123+07:00", "2024-02-29t13:45:00z", "1999-12-31T23:59:60-05:30"]
    {
        assert_eq!(accepted(dt.clone(), true, json!(ok)), Some(json!(ok)), "{ok}");
    }
    for bad in [
        "2023-02-29T13:45:00Z",
        "2024-02-29 13:45:00Z",
        "2024-02-29T13:45:00",
        "2024-02-29T24:00:00Z",
        "2024-02-29T13:60:00Z",
        "2024-02-29T13:45:61Z",
        "2024-02-29T13:45:00.Z",
        "2024-02-29T13:45:00+0700",
        "2024-02-29T13:45:00+24:00",
        "2024-02-29T13:45:00Zjunk",
        "2024-02-29T13:45Z",
        "2024-02-29",
    ] {
        assert_eq!(problems_for(dt.clone(), true, json!(bad)), vec![Problem::InvalidDateTime], "{bad}");
    }
}

#[test]
fn emails_and_uris() {
    let email = json!({"type":"string","format":"email"});
    for ok in ["a@b.co", "first.last+tag@sub.example.com", "ผู้ใช้@ตัวอย่าง.ไทย"] {
        assert_eq!(accepted(email.clone(), true, json!(ok)), Some(json!(ok)));
    }
    for bad in [
        "plain",
        "@example.com",
        "a@@example.com",
        "a@b@example.com",
        "a@localhost",
        "a@.com",
        "a@example.",
        "a@exa..mple.com",
        "a b@example.com",
        "a@example.com ",
    ] {
        assert_eq!(problems_for(email.clone(), true, json!(bad)), vec![Problem::InvalidEmail], "{bad}");
    }
    let uri = json!({"type":"string","format":"uri"});
    for ok in ["https://example.com/x?y=1", "mailto:a@b.co", "urn:isbn:123", "a+b.c-d:x"] {
        assert_eq!(accepted(uri.clone(), true, json!(ok)), Some(json!(ok)));
    }
    for bad in ["example.com", "https:", "1http://x", ":nothing", "ht tp://x", "https://exa mple.com", "ht_tp://x"] {
        assert_eq!(problems_for(uri.clone(), true, json!(bad)), vec![Problem::InvalidUri], "{bad}");
    }
}

// ---------------------------------------------------------------- numbers keep their text

/// Numbers at the edges of `f64` and beyond it: zeros of both signs, subnormals, the ends of the normal
/// range, past the range both ways (`1e400`, `1e-400`), integers past 2^53, doubles whose shortest text
/// has 17 digits, spellings JavaScript would not write, and digit strings longer than a double holds.
const EDGE_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "0.0",
    "-0.0",
    "0e-7",
    "5e-324",
    "-5e-324",
    "4.9406564584124654e-324",
    "2.225073858507201e-308",
    "2.2250738585072014e-308",
    "2.2250738585072011e-308",
    "1.7976931348623157e308",
    "-1.7976931348623157E+308",
    "1.7976931348623159e308",
    "1e400",
    "-1e400",
    "1e-400",
    "1e999999999999999999999",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551616",
    "203.02700000000002",
    "0.30000000000000004",
    "0.1",
    "1.50",
    "1E+2",
    "123456789012345678901234567890123456789012345678901234567890",
    "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706",
    "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
];

/// A model with one field `f` of type `ty`, its other keywords given as raw JSON text (starting with
/// a comma), so every number is exactly the text written here.
fn number_field(ty: &str, keywords: &str) -> FormModel {
    let text = format!(r#"{{"type":"object","properties":{{"f":{{"type":"{ty}"{keywords}}}}}}}"#);
    model(json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

/// What validating the answer `answer` (raw JSON text) for `f` sends, as text; or the problems' codes.
fn sent(m: &FormModel, answer: &str) -> Result<String, Vec<&'static str>> {
    let answers = obj(json::from_str(&format!(r#"{{"f":{answer}}}"#)).unwrap());
    match m.validate(&answers) {
        Ok(content) => Ok(json::to_string(&content["f"])),
        Err(errors) => Err(errors.iter().map(|e| e.problem.code()).collect()),
    }
}

/// The same value spelled otherwise: one more zero in the fraction (`1.5` → `1.50`, `5e-324` → `5.0e-324`).
fn respelled(text: &str) -> String {
    let (mantissa, exponent) = text.split_at(text.find(['e', 'E']).unwrap_or(text.len()));
    let zero = if mantissa.contains('.') { "0" } else { ".0" };
    format!("{mantissa}{zero}{exponent}")
}

#[test]
fn number_defaults_bounds_and_answers_keep_the_servers_text() {
    for &text in EDGE_NUMBERS {
        let other = respelled(text);
        // Bounds equal to the default in value but not in text: compared by value, sent as written.
        let m = number_field("number", &format!(r#","minimum":{other},"maximum":{other},"default":{text}"#));
        assert_eq!(json::to_string(&m.defaults()["f"]), text, "the default {text}");
        assert_eq!(m.validate(&m.defaults()).map(|c| json::to_string(&c["f"])), Ok(text.to_owned()), "{text}");
        assert_eq!(sent(&m, text), Ok(text.to_owned()), "the answer {text}");
        assert_eq!(sent(&m, &other), Ok(other.clone()), "the answer {other}");
    }
}

#[test]
fn bounds_are_compared_exactly_and_named_as_written() {
    let m = number_field("number", r#","maximum":0.1"#);
    assert_eq!(sent(&m, "0.1"), Ok("0.1".into()));
    // The same double as 0.1, but a larger number: a server comparing exactly refuses it.
    assert_eq!(sent(&m, "0.10000000000000000001"), Err(vec!["max"]));
    assert_eq!(sent(&m, "0.09999999999999999999"), Ok("0.09999999999999999999".into()));

    let m = number_field("number", r#","minimum":9007199254740993"#);
    assert_eq!(sent(&m, "9007199254740992"), Err(vec!["min"]), "one double with the minimum, but below it");
    assert_eq!(sent(&m, "9007199254740993.0"), Ok("9007199254740993.0".into()));

    let m = number_field("number", r#","minimum":5e-324,"maximum":1e400"#);
    for below in ["1e-400", "0", "-0", "-1e400"] {
        assert_eq!(sent(&m, below), Err(vec!["min"]), "{below}");
    }
    for within in ["5e-324", "1.7976931348623157e308", "1e399", "1e400", "1.0e400"] {
        assert_eq!(sent(&m, within), Ok(within.to_owned()), "{within}");
    }
    assert_eq!(sent(&m, "1.0000000000000000000001e400"), Err(vec!["max"]));

    let m = number_field("number", r#","minimum":-0,"maximum":0"#);
    for zero in ["0", "-0", "-0.0", "0e5"] {
        assert_eq!(sent(&m, zero), Ok(zero.to_owned()), "{zero}");
    }
    assert_eq!(sent(&m, "5e-324"), Err(vec!["max"]));
    assert_eq!(sent(&m, "-5e-324"), Err(vec!["min"]));

    // The message names the bound as the schema wrote it.
    let m = number_field("number", r#","maximum":203.02700000000002"#);
    let errors = m.validate(&obj(json!({ "f": 204 }))).unwrap_err();
    assert_eq!(errors[0].problem.params(), vec![("max", "203.02700000000002".to_owned())]);
    let m = number_field("number", r#","minimum":1e400"#);
    let errors = m.validate(&obj(json!({ "f": 1 }))).unwrap_err();
    assert_eq!(errors[0].problem.params(), vec![("min", "1e400".to_owned())]);
}

#[test]
fn integer_answers_are_whole_exactly_and_sent_as_plain_integers() {
    let m = number_field("integer", "");
    for (answer, expected) in [
        ("3", "3"),
        ("3.0", "3"),
        ("1e2", "100"),
        ("1.5E+2", "150"),
        ("12300e-2", "123"),
        ("-0", "-0"),
        ("-0.0", "-0"),
        ("9007199254740993", "9007199254740993"),
        ("9007199254740993.0", "9007199254740993"),
        ("-9007199254740993.000", "-9007199254740993"),
        ("18446744073709551616.0", "18446744073709551616"),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        // Whole, but 401 digits as a plain integer: sent as written.
        ("1e400", "1e400"),
        ("-1E+400", "-1E+400"),
    ] {
        assert_eq!(sent(&m, answer), Ok(expected.to_owned()), "{answer}");
    }
    for fraction in ["2.5", "3.0000000000000001", "9007199254740993.5", "5e-324", "1e-400", "-2.2250738585072014e-308"]
    {
        assert_eq!(sent(&m, fraction), Err(vec!["integer"]), "{fraction}");
    }
    let m = number_field("integer", r#","minimum":9007199254740993,"default":9007199254740993.0"#);
    assert_eq!(json::to_string(&m.defaults()["f"]), "9007199254740993");
}

// ---------------------------------------------------------------- validate: every Problem

#[test]
fn every_problem_variant_is_reported() {
    let text = json!({"type":"string","minLength":3,"maxLength":5});
    assert_eq!(problems_for(text.clone(), true, json!("ab")), vec![Problem::TooShort { min: 3 }]);
    assert_eq!(problems_for(text.clone(), true, json!("abcdef")), vec![Problem::TooLong { max: 5 }]);
    assert_eq!(problems_for(text, true, json!(12)), vec![Problem::WrongType { expected: "string" }]);
    assert_eq!(problems_for(json!({"type":"string","format":"email"}), false, json!("x")), vec![Problem::InvalidEmail]);
    assert_eq!(problems_for(json!({"type":"string","format":"uri"}), false, json!("x")), vec![Problem::InvalidUri]);
    assert_eq!(problems_for(json!({"type":"string","format":"date"}), false, json!("x")), vec![Problem::InvalidDate]);
    assert_eq!(
        problems_for(json!({"type":"string","format":"date-time"}), false, json!("x")),
        vec![Problem::InvalidDateTime]
    );
    let int = json!({"type":"integer","minimum":1,"maximum":5});
    assert_eq!(problems_for(int.clone(), true, json!("3")), vec![Problem::NotANumber]);
    assert_eq!(problems_for(int.clone(), true, json!(true)), vec![Problem::NotANumber]);
    assert_eq!(problems_for(int.clone(), true, json!(2.5)), vec![Problem::NotAnInteger]);
    assert_eq!(problems_for(int.clone(), true, json!(0)), vec![Problem::BelowMinimum { min: num("1") }]);
    assert_eq!(problems_for(int, true, json!(6)), vec![Problem::AboveMaximum { max: num("5") }]);
    assert_eq!(problems_for(json!({"type":"boolean"}), true, json!("true")), vec![Problem::NotABoolean]);
    assert_eq!(problems_for(json!({"type":"boolean"}), false, json!(1)), vec![Problem::NotABoolean]);
    let single = json!({"type":"string","oneOf":[{"const":"a","title":"A"}]});
    assert_eq!(problems_for(single.clone(), true, json!("b")), vec![Problem::NotAnOption { value: "b".into() }]);
    assert_eq!(problems_for(single, true, json!(["a"])), vec![Problem::WrongType { expected: "string" }]);
    let multi = json!({"type":"array","minItems":2,"maxItems":3,"items":{"type":"string","enum":["a","b","c","d"]}});
    assert_eq!(problems_for(multi.clone(), true, json!(["a"])), vec![Problem::TooFewItems { min: 2 }]);
    assert_eq!(problems_for(multi.clone(), true, json!(["a", "b", "c", "d"])), vec![Problem::TooManyItems { max: 3 }]);
    assert_eq!(
        problems_for(multi.clone(), true, json!(["a", "b", "a", "a"])),
        vec![Problem::DuplicateItem { value: "a".into() }, Problem::TooManyItems { max: 3 }]
    );
    assert_eq!(problems_for(multi.clone(), true, json!(["a", "z"])), vec![Problem::NotAnOption { value: "z".into() }]);
    assert_eq!(
        problems_for(multi.clone(), true, json!("a")),
        vec![Problem::WrongType { expected: "array of strings" }]
    );
    assert_eq!(problems_for(multi, true, json!(["a", 1])), vec![Problem::WrongType { expected: "array of strings" }]);
    assert_eq!(problems_for(json!({"type":"boolean"}), true, json!(null)), vec![Problem::Required]);
    let m = model(single_schema_with_extra());
    assert_eq!(
        m.validate(&obj(json!({"f": "x", "zzz": 1}))),
        Err(vec![FieldError { field: "zzz".into(), problem: Problem::UnknownField }])
    );
}

fn single_schema_with_extra() -> Value {
    single(json!({"type":"string"}), false)
}

#[test]
fn all_problems_are_reported_together_in_field_order() {
    let m = model(example_a());
    let answers = obj(json!({
        "region": "mars-1",
        "replicas": 9.5,
        "notify": "not an email",
        "tags": ["blue", "blue", "pink"],
        "extra": "?"
    }));
    let errs = m.validate(&answers).unwrap_err();
    let fe = |f: &str, p: Problem| FieldError { field: f.into(), problem: p };
    let mut expected = Vec::new();
    for name in m.fields().iter().map(|f| f.name.as_str()) {
        match name {
            "confirm" => expected.push(fe("confirm", Problem::Required)),
            "notify" => expected.push(fe("notify", Problem::InvalidEmail)),
            "region" => expected.push(fe("region", Problem::NotAnOption { value: "mars-1".into() })),
            "replicas" => {
                expected.push(fe("replicas", Problem::NotAnInteger));
                expected.push(fe("replicas", Problem::AboveMaximum { max: num("5") }));
            }
            "tags" => {
                expected.push(fe("tags", Problem::DuplicateItem { value: "blue".into() }));
                expected.push(fe("tags", Problem::NotAnOption { value: "pink".into() }));
                expected.push(fe("tags", Problem::TooManyItems { max: 2 }));
            }
            other => panic!("unexpected field {other}"),
        }
    }
    expected.push(fe("extra", Problem::UnknownField));
    assert_eq!(errs, expected);
}

#[test]
fn text_reports_length_and_format_together() {
    assert_eq!(
        problems_for(json!({"type":"string","format":"email","minLength":10}), true, json!("a@b")),
        vec![Problem::TooShort { min: 10 }, Problem::InvalidEmail]
    );
}

// ---------------------------------------------------------------- codes (the words are the UI's)

#[test]
fn problems_carry_a_stable_code_and_their_values_not_words() {
    let all = [
        (Problem::Required, "required", vec![]),
        (Problem::TooShort { min: 2 }, "tooShort", vec![("min", "2")]),
        (Problem::TooLong { max: 2 }, "tooLong", vec![("max", "2")]),
        (Problem::InvalidEmail, "email", vec![]),
        (Problem::InvalidUri, "uri", vec![]),
        (Problem::InvalidDate, "date", vec![]),
        (Problem::InvalidDateTime, "dateTime", vec![]),
        (Problem::NotANumber, "number", vec![]),
        (Problem::NotAnInteger, "integer", vec![]),
        (Problem::BelowMinimum { min: num("0.5") }, "min", vec![("min", "0.5")]),
        (Problem::AboveMaximum { max: num("2") }, "max", vec![("max", "2")]),
        (Problem::NotABoolean, "boolean", vec![]),
        (Problem::NotAnOption { value: "v".into() }, "option", vec![("value", "v")]),
        (Problem::TooFewItems { min: 1 }, "tooFew", vec![("min", "1")]),
        (Problem::TooManyItems { max: 2 }, "tooMany", vec![("max", "2")]),
        (Problem::DuplicateItem { value: "v".into() }, "duplicate", vec![("value", "v")]),
        (Problem::UnknownField, "unknown", vec![]),
        (Problem::WrongType { expected: "string" }, "type", vec![("expected", "string")]),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (problem, code, params) in &all {
        assert_eq!(problem.code(), *code, "{problem:?}");
        let got: Vec<(&str, String)> = problem.params();
        let want: Vec<(&str, String)> = params.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
        assert_eq!(got, want, "{problem:?}");
        assert!(seen.insert(*code), "duplicate code {code}");
    }
    assert_eq!(Problem::TooShort { min: 3 }.to_string(), "tooShort (min 3)");
    assert_eq!(Problem::Required.to_string(), "required");
    let fe = FieldError { field: "name".into(), problem: Problem::Required };
    assert_eq!(fe.to_string(), "name: required");
}

// ---------------------------------------------------------------- schema errors

#[test]
fn every_schema_error_variant() {
    use PropertyError::*;
    assert_eq!(schema_err(json!([1])), SchemaError::NotAnObject);
    assert_eq!(schema_err(json!({"properties": {}})), SchemaError::RootTypeNotObject);
    assert_eq!(schema_err(json!({"type": "array", "properties": {}})), SchemaError::RootTypeNotObject);
    assert_eq!(schema_err(json!({"type": "object"})), SchemaError::MissingProperties);
    assert_eq!(schema_err(json!({"type": "object", "properties": []})), SchemaError::PropertiesNotAnObject);
    assert_eq!(schema_err(json!({"type": "object", "properties": {}, "required": "f"})), SchemaError::RequiredNotAList);
    assert_eq!(schema_err(json!({"type": "object", "properties": {}, "required": [1]})), SchemaError::RequiredNotAList);
    assert_eq!(
        schema_err(json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]})),
        SchemaError::UnknownRequired { property: "b".into() }
    );
    assert_eq!(prop_err(json!("string")), NotAnObject);
    assert_eq!(prop_err(json!({"title": "x"})), MissingType);
    assert_eq!(prop_err(json!({"type": "date"})), UnknownType { found: "date".into() });
    assert_eq!(prop_err(json!({"type": ["string", "null"]})), UnknownType { found: "an array".into() });
    assert_eq!(prop_err(json!({"type": "object", "properties": {}})), NestedObject);
    assert_eq!(prop_err(json!({"type": "array"})), ArrayWithoutEnumItems);
    assert_eq!(prop_err(json!({"type": "array", "items": {"type": "string"}})), ArrayWithoutEnumItems);
    assert_eq!(
        prop_err(json!({"type": "array", "items": {"type": "object", "properties": {}}})),
        ArrayWithoutEnumItems
    );
    assert_eq!(prop_err(json!({"type": "number", "enum": [1, 2]})), UnsupportedKeyword { keyword: "enum" });
    assert_eq!(prop_err(json!({"type": "boolean", "oneOf": []})), UnsupportedKeyword { keyword: "oneOf" });
    assert_eq!(
        prop_err(json!({"type": "string", "enum": ["a"], "oneOf": [{"const": "a", "title": "A"}]})),
        ConflictingKeywords { first: "enum", second: "oneOf" }
    );
    assert_eq!(prop_err(json!({"type": "string", "enum": ["a", 1]})), InvalidOptions { keyword: "enum" });
    assert_eq!(
        prop_err(json!({"type": "string", "oneOf": [{"title": "no const"}]})),
        InvalidOptions { keyword: "oneOf" }
    );
    assert_eq!(
        prop_err(json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": 5}]}})),
        InvalidOptions { keyword: "anyOf" }
    );
    assert_eq!(
        prop_err(json!({"type": "string", "enum": ["a"], "enumNames": "A"})),
        InvalidOptions { keyword: "enumNames" }
    );
    assert_eq!(prop_err(json!({"type": "string", "enum": []})), EmptyOptions);
    assert_eq!(prop_err(json!({"type": "array", "items": {"type": "string", "enum": []}})), EmptyOptions);
    assert_eq!(prop_err(json!({"type": "string", "enum": ["a", "b", "a"]})), DuplicateOption { value: "a".into() });
    assert_eq!(
        prop_err(json!({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]})),
        EnumNamesMismatch { options: 2, names: 1 }
    );
    assert_eq!(prop_err(json!({"type": "string", "format": "hostname"})), UnknownFormat { found: "hostname".into() });
    assert_eq!(prop_err(json!({"type": "number", "minimum": "0"})), BoundNotANumber { keyword: "minimum" });
    assert_eq!(prop_err(json!({"type": "string", "minLength": -1})), BoundNotACount { keyword: "minLength" });
    assert_eq!(prop_err(json!({"type": "string", "maxLength": 2.5})), BoundNotACount { keyword: "maxLength" });
    assert_eq!(
        prop_err(json!({"type": "array", "items": {"enum": ["a"]}, "maxItems": "2"})),
        BoundNotACount { keyword: "maxItems" }
    );
    assert_eq!(
        prop_err(json!({"type": "integer", "minimum": 5, "maximum": 1})),
        MinAboveMax { min_keyword: "minimum", max_keyword: "maximum" }
    );
    assert_eq!(
        prop_err(json!({"type": "string", "minLength": 5, "maxLength": 1})),
        MinAboveMax { min_keyword: "minLength", max_keyword: "maxLength" }
    );
    assert_eq!(
        prop_err(json!({"type": "array", "items": {"enum": ["a"]}, "minItems": 2, "maxItems": 1})),
        MinAboveMax { min_keyword: "minItems", max_keyword: "maxItems" }
    );
    // Defaults: wrong type, not an option, out of bounds, bad format.
    assert_eq!(
        prop_err(json!({"type": "string", "default": 5})),
        InvalidDefault { problem: Problem::WrongType { expected: "string" } }
    );
    assert_eq!(
        prop_err(json!({"type": "boolean", "default": "yes"})),
        InvalidDefault { problem: Problem::NotABoolean }
    );
    assert_eq!(prop_err(json!({"type": "integer", "default": 2.5})), InvalidDefault { problem: Problem::NotAnInteger });
    assert_eq!(
        prop_err(json!({"type": "number", "maximum": 10, "default": 11})),
        InvalidDefault { problem: Problem::AboveMaximum { max: num("10") } }
    );
    assert_eq!(
        prop_err(json!({"type": "string", "enum": ["a"], "default": "b"})),
        InvalidDefault { problem: Problem::NotAnOption { value: "b".into() } }
    );
    assert_eq!(
        prop_err(json!({"type": "string", "format": "date", "default": "2023-02-29"})),
        InvalidDefault { problem: Problem::InvalidDate }
    );
    assert_eq!(
        prop_err(json!({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2, "default": ["a"]})),
        InvalidDefault { problem: Problem::TooFewItems { min: 2 } }
    );
    assert_eq!(
        prop_err(json!({"type": "array", "items": {"enum": ["a", "b"]}, "default": ["a", "a"]})),
        InvalidDefault { problem: Problem::DuplicateItem { value: "a".into() } }
    );
}

#[test]
fn schema_error_messages_name_the_property() {
    let e = schema_err(single(json!({"type": "string", "format": "hostname"}), false));
    assert_eq!(e.to_string(), "property `f`: unsupported format \"hostname\" (expected email, uri, date or date-time)");
    let e = schema_err(single(json!({"type": "integer", "default": 2.5}), false));
    assert_eq!(e.to_string(), "property `f`: the default is invalid (problem: integer)");
    let e: Box<dyn std::error::Error> = Box::new(SchemaError::NotAnObject);
    assert_eq!(e.to_string(), "requestedSchema is not a JSON object");
}

// ---------------------------------------------------------------- property tests

const NAMES: [&str; 4] = ["a", "b", "c", "d"];

/// Keys and strings likely to mean something to the parser, plus noise.
fn arb_word() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "type", "object", "properties", "required", "string", "number", "integer", "boolean",
            "array", "items", "enum", "oneOf", "anyOf", "const", "title", "enumNames", "format",
            "email", "uri", "date", "date-time", "minimum", "maximum", "minLength", "maxLength",
            "minItems", "maxItems", "default", "a", "b", "c", "d", "", "ไทย", "a@b.co",
            "2024-02-29", "2024-02-29T00:00:00Z", "https://x.y",
        ])
        .prop_map(str::to_owned),
        1 => any::<String>(),
    ]
}

fn arb_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-5i64..10).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-5.0f64..10.0).prop_map(Value::from),
        any::<f64>().prop_filter("finite", |x| x.is_finite()).prop_map(Value::from),
        Just(json!(2.0)),
    ]
}

/// Arbitrary JSON, nesting depth ≤ 4.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        arb_number(),
        arb_word().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(arb_word(), inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_option_value() -> impl Strategy<Value = Value> {
    prop::sample::select(vec!["a", "b", "c", "", "a@b.co", "2024-02-29"]).prop_map(Value::from)
}

fn arb_default() -> impl Strategy<Value = Value> {
    prop_oneof![
        arb_option_value(),
        arb_number(),
        any::<bool>().prop_map(Value::Bool),
        prop::collection::vec(arb_option_value(), 0..4).prop_map(Value::Array),
        Just(Value::Null),
    ]
}

/// A plausible property definition: the right keywords for its type, values mostly
/// sensible and sometimes wrong (bad bounds, defaults of another type, unknown formats).
fn arb_property() -> impl Strategy<Value = Value> {
    let ty = prop::sample::select(vec!["string", "number", "integer", "boolean", "array"]);
    let count = || {
        proptest::option::of(prop_oneof![
            6 => (0u64..4).prop_map(Value::from),
            1 => arb_number(),
        ])
    };
    let bound = || {
        proptest::option::of(prop_oneof![
            6 => (-3i64..8).prop_map(Value::from),
            1 => arb_number(),
        ])
    };
    let options = prop::collection::vec(arb_option_value(), 0..5);
    let titled = prop::collection::vec(
        (arb_option_value(), arb_word()).prop_map(|(c, t)| json!({"const": c, "title": t})),
        0..5,
    );
    let format = proptest::option::of(prop_oneof![
        6 => prop::sample::select(vec!["email", "uri", "date", "date-time"]),
        1 => Just("hostname"),
    ]);
    let shape = prop::sample::select(vec!["plain", "plain", "enum", "oneOf", "legacy"]);
    // Default candidates: one per type, plus a wild one; `pick` chooses among them.
    let defaults = (
        arb_option_value(),
        (-3i64..8).prop_map(Value::from),
        any::<bool>(),
        prop::collection::vec(arb_option_value(), 0..3),
        arb_default(),
        0u8..10,
    );
    (
        (ty, shape, options, titled, format),
        (count(), count(), count(), count()),
        (bound(), bound(), defaults, any::<bool>()),
    )
        .prop_map(|((ty, shape, options, titled, format), (c1, c2, c3, c4), (min, max, dflt, titles))| {
            let mut d = Map::new();
            d.insert("type".into(), json!(ty));
            d.insert("title".into(), json!("T"));
            let n = options.len();
            let mut select_values: Vec<Value> = Vec::new();
            match (ty, shape) {
                ("array", "oneOf") | ("array", "legacy") => {
                    select_values = titled.iter().map(|t| t["const"].clone()).collect();
                    d.insert("items".into(), json!({ "anyOf": titled }));
                }
                ("array", _) => {
                    select_values = options.clone();
                    d.insert("items".into(), json!({"type": "string", "enum": options}));
                }
                ("string", "enum") => {
                    select_values = options.clone();
                    d.insert("enum".into(), json!(options));
                }
                ("string", "oneOf") => {
                    select_values = titled.iter().map(|t| t["const"].clone()).collect();
                    d.insert("oneOf".into(), json!(titled));
                }
                ("string", "legacy") => {
                    select_values = options.clone();
                    d.insert("enum".into(), json!(options));
                    let names: Vec<String> = (0..if titles { n } else { n + 1 }).map(|i| format!("N{i}")).collect();
                    d.insert("enumNames".into(), json!(names));
                }
                _ => {}
            }
            if ty == "string" && shape == "plain" {
                if let Some(f) = format {
                    d.insert("format".into(), json!(f));
                }
            }
            let counts = if ty == "array" {
                [("minItems", c1), ("maxItems", c2)]
            } else {
                [("minLength", c3), ("maxLength", c4)]
            };
            for (k, v) in counts {
                if let Some(v) = v {
                    d.insert(k.into(), v);
                }
            }
            if let Some(v) = min {
                d.insert("minimum".into(), v);
            }
            if let Some(v) = max {
                d.insert("maximum".into(), v);
            }
            let (text, number, boolean, list, wild, pick) = dflt;
            let typed = match ty {
                "string" if !select_values.is_empty() => select_values[usize::from(pick) % select_values.len()].clone(),
                "string" => text,
                "number" | "integer" => number,
                "boolean" => Value::Bool(boolean),
                _ => {
                    let take = usize::from(pick % 3) + 1;
                    let picked: Vec<Value> = select_values.iter().take(take).cloned().collect();
                    if picked.is_empty() {
                        json!(list)
                    } else {
                        Value::Array(picked)
                    }
                }
            };
            match pick {
                0..=5 => {
                    d.insert("default".into(), typed);
                }
                6..=8 => {}
                _ => {
                    d.insert("default".into(), wild);
                }
            }
            Value::Object(d)
        })
}

/// A plausible whole schema over property names from `NAMES`.
fn arb_schema() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map(prop::sample::select(NAMES.to_vec()), arb_property(), 0..4),
        prop::collection::vec(prop::sample::select(NAMES.to_vec()), 0..3),
    )
        .prop_map(|(props, required)| {
            let props: Map = props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            let required: Vec<&str> = required.into_iter().filter(|r| props.contains_key(r)).collect();
            json!({"type": "object", "properties": props, "required": required})
        })
}

/// Answers keyed by schema names (plus an unknown one), with plausible and arbitrary values.
fn arb_answers() -> impl Strategy<Value = Map> {
    let value =
        prop_oneof![arb_default(), arb_json(), prop::collection::vec(arb_option_value(), 0..5).prop_map(Value::Array),];
    prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "d", "zz"]), value, 0..5)
        .prop_map(|m| m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// Per-field randomness for [`plausible_answers`].
type Seed = (u8, i64, u64, Value);

fn arb_seeds() -> impl Strategy<Value = Vec<Seed>> {
    prop::collection::vec((0u8..10, -3i64..8, any::<u64>(), arb_json()), 4)
}

/// Answers shaped by the model: mostly values of the right kind (often valid), sometimes
/// absent, null, or wild JSON, plus an occasional unknown key.
fn plausible_answers(m: &FormModel, seeds: &[Seed]) -> Map {
    let mut out = Map::new();
    for (field, (pick, n, bits, wild)) in m.fields().iter().zip(seeds) {
        let k = usize::try_from(*bits % 64).unwrap();
        let value = match pick {
            0 => continue,
            1 => Value::Null,
            2 => wild.clone(),
            _ => match &field.kind {
                FieldKind::Text { format, .. } => {
                    let sample = match format {
                        Some(TextFormat::Email) => ["user@example.com", "no-at-sign"][k % 2].to_owned(),
                        Some(TextFormat::Uri) => ["https://example.com/p", "nope"][k % 2].to_owned(),
                        Some(TextFormat::Date) => ["2024-02-29", "2023-02-29"][k % 2].to_owned(),
                        Some(TextFormat::DateTime) => ["2024-02-29T12:00:00.5+07:00", "2024-02-29"][k % 2].to_owned(),
                        None => "ไ".repeat(k % 7),
                    };
                    Value::String(sample)
                }
                FieldKind::Number { .. } if pick % 2 == 0 => json!(*n as f64 + 0.5),
                FieldKind::Number { .. } => json!(n),
                FieldKind::Boolean { .. } => Value::Bool(bits % 2 == 0),
                FieldKind::SingleSelect { options, .. } => Value::String(options[k % options.len()].value.clone()),
                FieldKind::MultiSelect { options, .. } => Value::Array(
                    options
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| bits >> (i % 64) & 1 == 1)
                        .map(|(_, c)| Value::String(c.value.clone()))
                        .collect(),
                ),
            },
        };
        out.insert(field.name.clone(), value);
    }
    if seeds.first().is_some_and(|s| s.0 == 9) {
        out.insert("zz".into(), json!(1));
    }
    out
}

/// The invariants every accepted model must satisfy, for any answers.
fn check_model_invariants(m: &FormModel, answers: &Map) -> Result<(), TestCaseError> {
    // Defaults are valid by construction: only missing required answers may be reported.
    if let Err(errs) = m.validate(&m.defaults()) {
        for e in &errs {
            prop_assert!(
                matches!(e.problem, Problem::Required | Problem::TooFewItems { .. }),
                "defaults {:?} of {:?} gave {:?}",
                m.defaults(),
                m,
                e
            );
        }
    }
    match m.validate(answers) {
        Ok(content) => {
            // Only schema properties, of their declared type; validating the output is a no-op.
            for (k, v) in &content {
                let f = m.field(k);
                prop_assert!(f.is_some(), "unknown key {k} in content");
                let ok_type = match f.map(|f| &f.kind) {
                    Some(FieldKind::Text { .. }) | Some(FieldKind::SingleSelect { .. }) => v.is_string(),
                    Some(FieldKind::Number { integer: true, .. }) => v.is_i64() || v.is_u64() || v.is_f64(),
                    Some(FieldKind::Number { .. }) => v.is_number(),
                    Some(FieldKind::Boolean { .. }) => v.is_boolean(),
                    Some(FieldKind::MultiSelect { .. }) => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
                    None => false,
                };
                prop_assert!(ok_type, "{k} = {v} has the wrong type");
            }
            prop_assert_eq!(m.validate(&content), Ok(content.clone()));
        }
        Err(errs) => {
            prop_assert!(!errs.is_empty());
            for e in &errs {
                prop_assert!(!e.problem.to_string().is_empty());
            }
        }
    }
    Ok(())
}

proptest! {
    // 512 cases each by default; PROPTEST_CASES=N raises it for a longer hunt.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_json_never_panics(schema in arb_json(), answers in arb_answers()) {
        match FormModel::from_schema(&schema) {
            Ok(m) => check_model_invariants(&m, &answers)?,
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn arbitrary_json_as_a_property_never_panics(def in arb_json(), answers in arb_answers()) {
        let schema = json!({"type": "object", "properties": {"a": def}, "required": ["a"]});
        if let Ok(m) = FormModel::from_schema(&schema) {
            check_model_invariants(&m, &answers)?;
        }
    }

    #[test]
    fn plausible_schemas_hold_invariants(
        schema in arb_schema(),
        answers in arb_answers(),
        seeds in arb_seeds(),
    ) {
        if let Ok(m) = FormModel::from_schema(&schema) {
            check_model_invariants(&m, &answers)?;
            check_model_invariants(&m, &plausible_answers(&m, &seeds))?;
        }
    }
}

/// Guards the property tests' value: the plausible-schema generator must often yield valid models.
#[test]
fn plausible_schema_generator_produces_valid_models() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = arb_schema();
    let seeds_strategy = arb_seeds();
    let (mut valid, mut with_fields, mut answered, total) = (0, 0, 0, 200);
    for _ in 0..total {
        let schema = strategy.new_tree(&mut runner).unwrap().current();
        if let Ok(m) = FormModel::from_schema(&schema) {
            valid += 1;
            if !m.fields().is_empty() && !m.defaults().is_empty() {
                with_fields += 1;
            }
            for _ in 0..10 {
                let seeds = seeds_strategy.new_tree(&mut runner).unwrap().current();
                let answers = plausible_answers(&m, &seeds);
                if m.validate(&answers).is_ok_and(|c| !c.is_empty()) {
                    answered += 1;
                }
            }
        }
    }
    eprintln!("valid {valid}/{total}, with defaults {with_fields}, accepted non-empty answers {answered}");
    assert!(answered >= 100, "only {answered} plausible answer maps were accepted with content");
    assert!(valid * 5 >= total, "only {valid}/{total} generated schemas were valid");
    assert!(with_fields >= 10, "only {with_fields} valid models had fields with defaults");
}

/// A finite double from any bit pattern (NaN and the infinities have no JSON text).
fn finite_double() -> impl Strategy<Value = f64> {
    any::<u64>().prop_map(f64::from_bits).prop_filter("finite", |x| x.is_finite())
}

/// `m × 10^e` spelled one of several ways: the decimal point anywhere in the digits (or none), extra
/// zeros in front and at the end of the fraction, `e` or `E`, with or without `+`.
fn spell(negative: bool, m: u64, e: i32, point: usize, zeros: usize, upper: bool) -> String {
    let digits = m.to_string();
    let point = point % (digits.len() + 1);
    let (int, frac) = digits.split_at(point);
    let shift = e + (digits.len() - point) as i32;
    let mut out = String::from(if negative { "-" } else { "" });
    out.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() || zeros > 0 {
        out.push('.');
        out.push_str(frac);
        out.extend(std::iter::repeat_n('0', zeros));
    }
    out.push(if upper { 'E' } else { 'e' });
    if shift >= 0 && upper {
        out.push('+');
    }
    out.push_str(&shift.to_string());
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Any double, as its shortest text (`{:e}`) or written out in full (`{}`), is a default and an
    /// answer that goes back byte for byte, and against a bound it compares as the doubles do.
    #[test]
    fn any_double_keeps_its_text_and_compares_like_the_double(x in finite_double(), y in finite_double(), plain in any::<bool>()) {
        let text = |v: f64| if plain { format!("{v}") } else { format!("{v:e}") };
        let (tx, ty) = (text(x), text(y));
        let m = number_field("number", &format!(r#","default":{tx}"#));
        prop_assert_eq!(json::to_string(&m.defaults()["f"]), tx.clone());
        let m = number_field("number", &format!(r#","maximum":{ty}"#));
        let expected = if x <= y { Ok(tx.clone()) } else { Err(vec!["max"]) };
        prop_assert_eq!(sent(&m, &tx), expected, "{} ≤ {}", tx, ty);
        let m = number_field("number", &format!(r#","minimum":{ty}"#));
        let expected = if x >= y { Ok(tx.clone()) } else { Err(vec!["min"]) };
        prop_assert_eq!(sent(&m, &tx), expected, "{} ≥ {}", tx, ty);
        // An integer field takes exactly the whole doubles, and sends the same double back.
        match sent(&number_field("integer", ""), &tx) {
            Ok(out) => {
                prop_assert!(x.fract() == 0.0, "{} accepted as an integer", tx);
                prop_assert_eq!(out.parse::<f64>().map(f64::to_bits), Ok(x.to_bits()), "{} sent as {}", tx, out);
            }
            Err(codes) => {
                prop_assert!(x.fract() != 0.0, "{} refused as an integer", tx);
                prop_assert_eq!(codes, vec!["integer"]);
            }
        }
    }

    /// Decimals no double holds, spelled many ways, against a bound: compared exactly (the reference
    /// scales both to one exponent in `u128`).
    #[test]
    fn decimal_bounds_compare_exactly(
        (n1, m1, e1) in (any::<bool>(), 0u64..1_000_000_000_000_000_000, -40i32..40),
        (n2, m2, d) in (any::<bool>(), 0u64..1_000_000_000_000_000_000, -20i32..=20),
        near in 0u8..5,
        spelling in (0usize..20, 0usize..3, any::<bool>(), 0usize..20, 0usize..3, any::<bool>()),
    ) {
        // Mostly numbers close to each other, where doubles would round both to one value: the same
        // value rescaled, one unit in the 18th digit above or below; sometimes an unrelated one.
        let (n2, m2, e2) = match near {
            0 => (n1, m1 * 10, e1 - 1),
            1 => (n1, m1 + 1, e1),
            2 => (n1, m1.saturating_sub(1), e1),
            3 => (!n1, m1, e1),
            _ => (n2, m2, e1 + d),
        };
        let low = e1.min(e2);
        let value = |negative: bool, m: u64, e: i32| {
            let magnitude = u128::from(m) * 10u128.pow((e - low) as u32);
            (if m == 0 { 0 } else if negative { -1 } else { 1 }, magnitude)
        };
        let ((s1, a), (s2, b)) = (value(n1, m1, e1), value(n2, m2, e2));
        let order = s1.cmp(&s2).then_with(|| if s1 < 0 { b.cmp(&a) } else { a.cmp(&b) });
        let (p1, z1, u1, p2, z2, u2) = spelling;
        let (t1, t2) = (spell(n1, m1, e1, p1, z1, u1), spell(n2, m2, e2, p2, z2, u2));
        let m = number_field("number", &format!(r#","maximum":{t2}"#));
        let expected = if order.is_le() { Ok(t1.clone()) } else { Err(vec!["max"]) };
        prop_assert_eq!(sent(&m, &t1), expected, "{} ≤ {}", t1, t2);
    }
}
