//! Numbers against JavaScript's own reading of them, in Node.js: 100,000 random doubles
//! (random bit patterns) and an edge set (zeros, subnormals, the ends of `f64` and past them, integers
//! past 2^53, long digit strings) go through every path a number takes in the library, compiled to
//! wasm32 as the package is, and each result is checked against JavaScript's `Number()`, `String()`
//! and `Object.is` in the same process: no test-only export, and nothing extra in the shipped pkg/.
//!
//! The paths: JSON read and written back; `Number::as_f64`; a form's default (with bounds that equal it
//! spelled otherwise) offered and sent; an answer sent; an integer field's answer; an answer against a
//! bound one double away; and `Value::from(f64)`, which native tools use for numbers they compute.
//! Where the library keeps the text, the check is exact text equality; where it writes new text (an
//! integer field's plain integer, `Value::from(f64)`), `Number()` of the text must be `Object.is` the
//! number JavaScript reads from the original.
//!
//! Run by `cargo xtask test` (check "wasm tests: Node"); by hand, see xtask/src/wasm_tests.rs:
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner cargo test --target
//! wasm32-unknown-unknown --test wasm_numbers_node`.
#![cfg(target_arch = "wasm32")]

use mcp_tasks_web::json::{self, Value};
use mcp_tasks_web::protocol::form::FormModel;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

// No `wasm_bindgen_test_configure!`: without a runtime section wasm-bindgen-test-runner uses Node.js.

#[wasm_bindgen]
extern "C" {
    /// JavaScript's `Number(text)`: how a JS host or server reads a number's text.
    #[wasm_bindgen(js_name = Number)]
    fn js_number(text: &str) -> f64;
    /// JavaScript's `String(x)`: the shortest text that reads back as `x` (what `JSON.stringify` writes,
    /// except that it writes `-0` as `0`).
    #[wasm_bindgen(js_name = String)]
    fn js_string(x: f64) -> String;
}

/// JavaScript's `Object.is`: equal doubles, telling `-0` from `0`.
fn same(a: f64, b: f64) -> bool {
    js_sys::Object::is(&JsValue::from_f64(a), &JsValue::from_f64(b))
}

/// `x.toExponential(16)`: the same double in 17 significant digits (`2.0302700000000002e+2`,
/// `1.0000000000000000e+0`), a spelling of it that JavaScript never writes by itself.
fn seventeen_digits(x: f64) -> String {
    js_sys::Number::from(x).to_exponential(16).map(String::from).unwrap_or_default()
}

/// SplitMix64: a fixed sequence of random bit patterns, the same every run.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Numbers at the edges of `f64` and beyond it, as a server might write them.
const EDGE_TEXTS: &[&str] = &[
    "0",
    "-0",
    "0.0",
    "-0.0",
    "0e-7",
    "5e-324",
    "-5e-324",
    "4.9406564584124654e-324",
    "2.4703282292062328e-324",
    "2.4703282292062327e-324",
    "2e-324",
    "2.225073858507201e-308",
    "2.2250738585072014e-308",
    "2.2250738585072011e-308",
    "2.2250738585072012e-308",
    "1.7976931348623157e308",
    "-1.7976931348623157E+308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "1e308",
    "1e309",
    "1e400",
    "-1e400",
    "1e-400",
    "1e999999999999999999999",
    "-1e-999999999999999999999",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "9007199254740993.0",
    "18446744073709551615",
    "18446744073709551616",
    "203.02700000000002",
    "203.027",
    "0.30000000000000004",
    "0.1",
    "1.50",
    "1E+2",
    "1e21",
    "1e-7",
    "123456789012345678901234567890123456789012345678901234567890",
    "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706",
    "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
    "9007199254740992.99999999999999999999999999999999999999999999999999999999999999999999999999999",
];

/// The forms without bounds, built once: a number field and an integer field.
struct Plain {
    number: FormModel,
    integer: FormModel,
}

impl Plain {
    fn new() -> Plain {
        Plain {
            number: form("number", "").expect("a number form"),
            integer: form("integer", "").expect("an integer form"),
        }
    }
}

/// Checks one wire text through every path, adding what went wrong to `problems`; `bound` is another
/// number's text to compare it with. `from_f64`: also write the double JavaScript reads from `text`
/// (skipped for a second spelling of a double already written).
fn check(plain: &Plain, text: &str, bound: &str, from_f64: bool, problems: &mut Vec<String>) {
    let mut fail = |path: &str, detail: String| problems.push(format!("{text} ({path}): {detail}"));
    let reference = js_number(text);

    // JSON read and written back: the text itself.
    match json::from_str(text) {
        Ok(value) => {
            let written = json::to_string(&value);
            if written != text {
                fail("json", format!("written back as {written}"));
            }
            match value.as_f64() {
                Some(x) if same(x, reference) => {}
                other => fail("as_f64", format!("{other:?}, JavaScript reads {reference:e}")),
            }
        }
        Err(e) => fail("json", format!("refused: {e}")),
    }

    // One form for the rest: `d` has the text as its default and bounds equal to it in another
    // spelling; `lo` and `hi` have `bound` as their minimum and maximum.
    let other = respelled(text);
    let schema = format!(
        r#"{{"type":"object","properties":{{"d":{{"type":"number","minimum":{other},"maximum":{other},"default":{text}}},"lo":{{"type":"number","minimum":{bound}}},"hi":{{"type":"number","maximum":{bound}}}}}}}"#
    );
    let model = match json::from_str(&schema)
        .map_err(|e| e.to_string())
        .and_then(|s| FormModel::from_schema(&s).map_err(|e| e.to_string()))
    {
        Ok(model) => model,
        Err(e) => return fail("form", e),
    };

    // The default: offered and sent as written.
    let defaults = model.defaults();
    let offered = defaults.get("d").map(json::to_string);
    if offered.as_deref() != Some(text) {
        fail("default", format!("offered as {offered:?}"));
    }
    match model.validate(&defaults) {
        Ok(content) if content.get("d").map(json::to_string).as_deref() == Some(text) => {}
        other => fail("default", format!("sent as {other:?}")),
    }

    // An answer: sent as typed.
    match sent_as(&plain.number, "f", text) {
        Ok(sent) if sent == text => {}
        other => fail("answer", format!("{other:?}")),
    }

    // An integer field takes exactly the whole numbers, and sends one JavaScript reads as the same
    // number. For the texts JavaScript writes itself, whole means what `Number.isInteger` says.
    let whole = is_whole(text);
    if js_string(reference) == text && whole != (reference.fract() == 0.0) {
        fail("integer", format!("whole {whole}, but JavaScript's Number.isInteger disagrees"));
    }
    match sent_as(&plain.integer, "f", text) {
        Ok(sent) if whole && same(js_number(&sent), reference) => {}
        Ok(sent) => fail("integer", format!("sent as {sent}, which JavaScript reads as {:e}", js_number(&sent))),
        Err(codes) if !whole && codes == "integer" => {}
        Err(codes) => fail("integer", format!("refused ({codes})")),
    }

    // Against a bound: for texts JavaScript writes itself (a double's shortest text), the exact order
    // is the doubles' order.
    if js_string(reference) == text && js_string(js_number(bound)) == bound {
        let y = js_number(bound);
        let expected = if reference <= y { Ok(text.to_owned()) } else { Err("max".to_owned()) };
        let got = sent_as(&model, "hi", text);
        if got != expected {
            fail("maximum", format!("{bound}: {got:?}"));
        }
        let expected = if reference >= y { Ok(text.to_owned()) } else { Err("min".to_owned()) };
        let got = sent_as(&model, "lo", text);
        if got != expected {
            fail("minimum", format!("{bound}: {got:?}"));
        }
    }

    // A double this library computes (native tools): its shortest text, laid out as JavaScript does.
    if from_f64 && reference.is_finite() {
        let written = json::to_string(&Value::from(reference));
        let js = if same(reference, -0.0) { "-0".to_owned() } else { js_string(reference) };
        if written != js || !same(js_number(&written), reference) {
            fail("from_f64", format!("{written}, JavaScript writes {js}"));
        }
    }
}

/// Whether a JSON number's text is a whole number, read off its digits: no more digits after the
/// point (trailing zeros aside) than the exponent moves it right.
fn is_whole(text: &str) -> bool {
    let unsigned = text.trim_start_matches('-');
    let (mantissa, exponent) = unsigned.split_once(['e', 'E']).unwrap_or((unsigned, "0"));
    let exponent = exponent.trim_start_matches('+');
    // Exponents too long for i128 only come from the edge set's `1e±999…`: saturate.
    let exponent: i128 = exponent.parse().unwrap_or(if exponent.starts_with('-') { i128::MIN } else { i128::MAX });
    let (int, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let fraction = fraction.trim_end_matches('0');
    let all_zero = int.bytes().chain(fraction.bytes()).all(|b| b == b'0');
    all_zero || fraction.len() as i128 <= exponent
}

/// The same value spelled otherwise: one more zero in the fraction (`1.5` → `1.50`, `5e-324` → `5.0e-324`).
fn respelled(text: &str) -> String {
    let (mantissa, exponent) = text.split_at(text.find(['e', 'E']).unwrap_or(text.len()));
    let zero = if mantissa.contains('.') { "0" } else { ".0" };
    format!("{mantissa}{zero}{exponent}")
}

/// A form with one field `f` of type `ty`, its other keywords as raw JSON text (from a comma on).
fn form(ty: &str, keywords: &str) -> Result<FormModel, String> {
    let text = format!(r#"{{"type":"object","properties":{{"f":{{"type":"{ty}"{keywords}}}}}}}"#);
    let schema = json::from_str(&text).map_err(|e| format!("{text}: {e}"))?;
    FormModel::from_schema(&schema).map_err(|e| format!("{text}: {e}"))
}

/// What validating `answer` (a JSON number's text) as the only answer, for `field`, sends, as text;
/// or the problems' codes.
fn sent_as(model: &FormModel, field: &str, answer: &str) -> Result<String, String> {
    let answers = json::from_str(&format!(r#"{{"{field}":{answer}}}"#)).map_err(|e| e.to_string())?;
    let answers = answers.as_object().cloned().unwrap_or_default();
    match model.validate(&answers) {
        Ok(content) => Ok(content.get(field).map(json::to_string).unwrap_or_default()),
        Err(errors) => Err(errors.iter().map(|e| e.problem.code()).collect::<Vec<_>>().join(",")),
    }
}

/// Fails listing the first problems found (all of them would flood the log).
fn assert_none(problems: &[String], checked: usize) {
    assert!(
        problems.is_empty(),
        "{} of {checked} numbers went wrong; the first:\n{}",
        problems.len(),
        problems.iter().take(20).map(String::as_str).collect::<Vec<_>>().join("\n")
    );
}

#[wasm_bindgen_test]
fn random_doubles_keep_their_value_on_every_path() {
    let plain = Plain::new();
    let mut bits = Bits(15);
    let mut problems = Vec::new();
    let mut previous = "0".to_owned();
    let mut checked = 0;
    while checked < 100_000 {
        let x = f64::from_bits(bits.next());
        if !x.is_finite() {
            continue;
        }
        let text = js_string(x);
        // The bound: the neighbouring double (one unit in the last place away) or the previous number.
        let neighbour = js_string(f64::from_bits(x.to_bits() ^ 1));
        let bound = if checked % 2 == 0 { neighbour } else { previous.clone() };
        check(&plain, &text, &bound, true, &mut problems);
        // The same double in 17 digits, as a server that always writes 17 would send it.
        check(&plain, &seventeen_digits(x), &text, false, &mut problems);
        previous = text;
        checked += 1;
    }
    assert_none(&problems, checked);
}

#[wasm_bindgen_test]
fn the_edge_set_keeps_its_text_and_value_on_every_path() {
    let plain = Plain::new();
    let mut problems = Vec::new();
    let mut texts: Vec<String> = EDGE_TEXTS.iter().map(|t| (*t).to_owned()).collect();
    // Subnormals of random mantissas, both signs, and the doubles around 2^53 and the powers of ten.
    let mut bits = Bits(324);
    for _ in 0..2_000 {
        let x = f64::from_bits(bits.next() & 0x800f_ffff_ffff_ffff);
        texts.push(js_string(x));
        texts.push(seventeen_digits(x));
    }
    for base in [9007199254740992.0f64, 1e15, 1e16, 1e21, 1e22, 1e23, 1e-7, 1e-5, 0.1, 1e308, 2.2250738585072014e-308] {
        for delta in -3i64..=3 {
            let x = f64::from_bits((base.to_bits() as i64 + delta) as u64);
            texts.push(js_string(x));
            texts.push(seventeen_digits(x));
        }
    }
    let mut previous = "0".to_owned();
    for text in &texts {
        check(&plain, text, &previous, true, &mut problems);
        previous = text.clone();
    }
    assert_none(&problems, texts.len());
}
