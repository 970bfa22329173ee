//! Work per answer is bounded, not only bytes: a form or a list of questions that fits in the body
//! limit must not cost the main thread time quadratic in its size. Each case is built
//! with its keys in the orders that hurt a sorted insert or a linear lookup most (reversed, and
//! scattered by a stride), and timed with a bound far above what an n log n build takes in a debug
//! build and far below what the quadratic one took (seconds to minutes).
use std::time::{Duration, Instant};

use mcp_tasks_web::element::model::card_model::CardModel;
use mcp_tasks_web::element::model::labels::Labels;
use mcp_tasks_web::element::model::view::{self, Server};
use mcp_tasks_web::json::{self, Value};
use mcp_tasks_web::protocol::form::FormModel;
use mcp_tasks_web::protocol::input::DEFAULT_MAX_INPUT_REQUESTS;
use mcp_tasks_web::protocol::jsonrpc::{parse_answer, parse_answer_within};
use mcp_tasks_web::protocol::task::decode_get_task_result;

/// The orders keys are written in: reversed (every sorted insert at the front), and scattered (a
/// stride coprime with `n`, so neighbours in the text are far apart in key order).
#[derive(Clone, Copy, Debug)]
enum Order {
    Reversed,
    Scattered,
}

fn order(n: usize, how: Order) -> Vec<usize> {
    match how {
        Order::Reversed => (0..n).rev().collect(),
        Order::Scattered => (0..n).map(|i| (i * 7919 + 13) % n).collect(),
    }
}

/// A `requestedSchema` of `n` required text fields, written in `how` order (about 50 B a field).
fn wide_schema(n: usize, how: Order) -> String {
    let keys = order(n, how);
    let properties: Vec<String> =
        keys.iter().map(|i| format!(r#""field-{i:06}":{{"type":"string","title":"Field {i}"}}"#)).collect();
    let required: Vec<String> = keys.iter().rev().map(|i| format!(r#""field-{i:06}""#)).collect();
    format!(r#"{{"type":"object","properties":{{{}}},"required":[{}]}}"#, properties.join(","), required.join(","))
}

/// A task snapshot (as the client hands it to a card) asking one form of `schema`.
fn snapshot_asking(schema: &str) -> Value {
    let text = format!(
        r#"{{"taskId":"t1","toolName":"survey","status":"input_required","statusMessage":"","createdAt":"2026-12-02T10:00:00Z",
        "lastUpdatedAt":"2026-12-02T10:00:00Z","result":null,"error":null,"connectivity":"online","cancelRequested":false,
        "expired":null,"restored":false,"inputRequests":{{"wide":{{"method":"elicitation/create","params":{{"message":"Fill in",
        "requestedSchema":{schema}}}}}}}}}"#
    );
    json::from_str(&text).expect("the test's snapshot is JSON")
}

fn timed<T>(what: &str, budget: Duration, work: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = work();
    let took = started.elapsed();
    assert!(took <= budget, "{what} took {took:?}, over {budget:?}");
    out
}

fn no_url(_: &str) -> Option<mcp_tasks_web::element::model::url_check::UrlParts> {
    None
}

/// A form of 20,000 required fields (about 1 MB, the issue's case) costs properties × required today.
#[test]
fn a_form_of_20000_required_fields_is_built_drawn_and_answered_in_bounded_time() {
    let labels = Labels::resolve("en", &[]);
    let server = Server { name: "tasks.example", loopback: false, local: false };
    for how in [Order::Reversed, Order::Scattered] {
        let schema = wide_schema(20_000, how);
        let tree = json::from_str(&schema).expect("JSON");
        let model =
            timed(&format!("the form model ({how:?})"), Duration::from_millis(500), || FormModel::from_schema(&tree));
        assert!(model.is_err(), "20,000 fields are more than a card shows ({how:?})");
        let snapshot = snapshot_asking(&schema);
        let card = timed(&format!("a card of it ({how:?})"), Duration::from_millis(1500), || {
            view::card(&CardModel::from_json(&snapshot), &labels, &server, &no_url)
        });
        let question = &card["questions"][0];
        assert_eq!(question["accept"], false, "nothing to accept ({how:?})");
        assert_eq!(question["fields"], Value::Array(Vec::new()), "no field is drawn ({how:?})");
        let answer = timed(&format!("checking an answer to it ({how:?})"), Duration::from_millis(500), || {
            view::answer(&tree, &json::from_str(r#"{"field-000001":"x"}"#).unwrap_or_default(), &labels)
        });
        assert_eq!(answer, None, "a form too large to show has no answer to check ({how:?})");
    }
}

/// `inputRequests` of 100,000 small questions (about 6 MB, under the body limit) in the orders that
/// hurt: the answer is refused as it is read, at the first question past the limit, in time that does
/// not grow with their number; and decoding alone, without the host's limit, sorts them once (n log n,
/// where inserting each in place moved n² entries).
#[test]
fn questions_past_the_limit_are_refused_before_they_are_built() {
    for how in [Order::Reversed, Order::Scattered] {
        let n = 100_000;
        let questions: Vec<String> = order(n, how)
            .iter()
            .map(|i| format!(r#""q{i:06}":{{"method":"sampling/createMessage","params":{{}}}}"#))
            .collect();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","taskId":"t1","status":"input_required",
            "createdAt":"2026-12-02T10:00:00Z","lastUpdatedAt":"2026-12-02T10:00:00Z","ttlMs":60000,
            "inputRequests":{{{}}}}}}}"#,
            questions.join(",")
        );
        assert!(body.len() < 8 << 20, "within the default body limit: {} B", body.len());
        let refused = timed(&format!("refusing {n} questions ({how:?})"), Duration::from_millis(20), || {
            parse_answer_within(&body, DEFAULT_MAX_INPUT_REQUESTS)
        });
        let error = refused.expect_err("more questions than the client takes").to_string();
        assert!(error.contains("more requests at once than the 256 this client takes"), "{error}");
        // Decoding alone (a store's record, say) reads them all, sorted once.
        let message = parse_answer(&body).expect("JSON");
        let result = &message["result"];
        let decoded = timed(&format!("decoding {n} questions ({how:?})"), Duration::from_millis(1500), || {
            decode_get_task_result(result).map(|t| t.input_requests().map(|r| r.len()))
        });
        assert_eq!(decoded, Ok(Some(n)), "{how:?}");
        // 4,096 (the most a host may allow) in the same order decode, sorted once.
        let most: Vec<String> = order(4096, how)
            .iter()
            .map(|i| format!(r#""q{i:06}":{{"method":"sampling/createMessage","params":{{}}}}"#))
            .collect();
        let most = parse_answer(&format!("{{{}}}", most.join(","))).expect("JSON");
        let taken = timed(&format!("decoding 4,096 questions ({how:?})"), Duration::from_millis(150), || {
            mcp_tasks_web::protocol::input::decode_input_requests(&most)
        });
        let keys: Vec<String> = taken.expect("at the most").keys().cloned().collect();
        assert_eq!(keys.len(), 4096);
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "in key order");
    }
}

/// Each limit of a form, at and one past it: at it the form is drawn, past it it is too large.
#[test]
fn a_form_past_any_limit_is_too_large_and_at_it_is_a_form() {
    use mcp_tasks_web::protocol::form::{FormLimit, SchemaError};
    let fields = |n: usize| {
        let properties: Vec<String> = (0..n).rev().map(|i| format!(r#""f{i}":{{"type":"boolean"}}"#)).collect();
        format!(r#"{{"type":"object","properties":{{{}}}}}"#, properties.join(","))
    };
    // `per` options in each of `selects` fields (alternately single and multi selects).
    let options = |selects: usize, per: usize| {
        let choices: Vec<String> = (0..per).rev().map(|i| format!(r#""o{i}""#)).collect();
        let properties: Vec<String> = (0..selects)
            .map(|f| match f % 2 {
                0 => format!(r#""s{f}":{{"type":"string","enum":[{}]}}"#, choices.join(",")),
                _ => format!(r#""m{f}":{{"type":"array","items":{{"type":"string","enum":[{}]}}}}"#, choices.join(",")),
            })
            .collect();
        format!(r#"{{"type":"object","properties":{{{}}}}}"#, properties.join(","))
    };
    // A text field whose unknown keyword nests `levels` objects, the schema itself included.
    let deep = |levels: usize| {
        let inner = "{\"x\":".repeat(levels - 3) + "1" + &"}".repeat(levels - 3);
        format!(r#"{{"type":"object","properties":{{"t":{{"type":"string","x-deep":{inner}}}}}}}"#)
    };
    // Held as text, as the client holds a question's schema (the nesting is counted as it is read).
    let raw = |text: &str| {
        let body = format!(r#"{{"result":{{"inputRequests":{{"q":{{"params":{{"requestedSchema":{text}}}}}}}}}}}"#);
        let value = parse_answer(&body).expect("JSON");
        let schema = value.pointer("/result/inputRequests/q/params/requestedSchema").cloned().expect("the schema");
        assert!(matches!(schema, Value::Raw(_)), "kept as text");
        FormModel::from_schema(&schema)
    };
    let read = |text: &str| FormModel::from_schema(&json::from_str(text).expect("JSON"));
    let max = |limit: FormLimit| limit.max();
    assert_eq!(read(&fields(max(FormLimit::Fields))).map(|m| m.fields().len()), Ok(256));
    assert_eq!(read(&fields(257)), Err(SchemaError::TooLarge(FormLimit::Fields)));
    assert!(read(&options(4, 256)).is_ok(), "1,024 options in four selects");
    assert_eq!(read(&options(4, 257)), Err(SchemaError::TooLarge(FormLimit::Options)), "1,028 in all");
    assert_eq!(read(&options(1, 1025)), Err(SchemaError::TooLarge(FormLimit::Options)), "in one select");
    assert!(raw(&deep(max(FormLimit::Depth))).is_ok(), "8 levels");
    assert_eq!(raw(&deep(9)), Err(SchemaError::TooLarge(FormLimit::Depth)));
    assert!(read(&deep(9)).is_ok(), "a tree already read is not counted again");
    // Held as text (as the client holds a question's schema), a schema past 256 KiB is not read.
    let padded = |bytes: usize| {
        let text =
            format!(r#"{{"type":"object","properties":{{"t":{{"type":"string"}}}},"x-pad":"{}"}}"#, "p".repeat(bytes));
        let extra = text.len() - bytes;
        format!(
            r#"{{"type":"object","properties":{{"t":{{"type":"string"}}}},"x-pad":"{}"}}"#,
            "p".repeat(bytes - extra)
        )
    };
    assert_eq!(raw(&padded(max(FormLimit::Bytes))).map(|m| m.fields().len()), Ok(1));
    assert_eq!(raw(&padded(max(FormLimit::Bytes) + 1)), Err(SchemaError::TooLarge(FormLimit::Bytes)));
    let message = SchemaError::TooLarge(FormLimit::Fields).to_string();
    assert_eq!(message, "requestedSchema is too large for this client");
    // More required names than fields allowed.
    let required: Vec<String> = (0..257).map(|i| format!(r#""f{i}""#)).collect();
    let many_required = format!(r#"{{"type":"object","properties":{{}},"required":[{}]}}"#, required.join(","));
    assert_eq!(read(&many_required), Err(SchemaError::TooLarge(FormLimit::Fields)));
}

/// A form too large to show is a question the card still asks: it says the form cannot be shown and
/// why (in every shipped language's words around the reason), only decline and cancel are offered (no
/// accept, no fields), and no schema is handed to the page to check answers against.
#[test]
fn a_too_large_form_says_so_and_offers_only_decline_and_cancel() {
    use mcp_tasks_web::element::model::card_model::Question;
    use mcp_tasks_web::element::model::labels::SHIPPED;
    use mcp_tasks_web::protocol::form::{FormLimit, SchemaError};
    let snapshot = snapshot_asking(&wide_schema(257, Order::Scattered));
    let model = CardModel::from_json(&snapshot);
    assert!(matches!(
        &model.questions[0].1,
        Question::Form { form: Err(SchemaError::TooLarge(FormLimit::Fields)), .. }
    ));
    for language in SHIPPED {
        let labels = Labels::resolve(language, &[]);
        let card =
            view::card(&model, &labels, &Server { name: "tasks.example", loopback: false, local: false }, &no_url);
        let q = &card["questions"][0];
        let said = labels.fill("form.invalidSchema", &[("error", "requestedSchema is too large for this client")]);
        assert_eq!(q["invalid"].as_str(), Some(said.as_str()), "{language}: the form cannot be shown, and why");
        assert_eq!((q["accept"].clone(), q["schema"].clone()), (Value::Bool(false), Value::Null), "{language}");
        assert_eq!(q["fields"], Value::Array(Vec::new()));
        assert_eq!(q["message"], "Fill in", "the server's message is still shown");
    }
}

/// A schema over what a form may hold is not kept: a poll's answer asking a form of 100,000 fields
/// (about 7 MB, near the body limit) becomes a question of a few bytes whose form is too large, so no
/// snapshot, stored record or draw of the task carries the megabytes again.
#[test]
fn a_schema_past_the_byte_limit_is_not_kept_and_its_question_is_too_large() {
    use mcp_tasks_web::element::model::card_model::Question;
    use mcp_tasks_web::protocol::form::TOO_LARGE_SCHEMA;
    use mcp_tasks_web::protocol::form::{FormLimit, SchemaError};
    let schema = wide_schema(100_000, Order::Scattered);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","taskId":"t1","status":"input_required",
        "createdAt":"2026-12-02T10:00:00Z","lastUpdatedAt":"2026-12-02T10:00:00Z","ttlMs":60000,
        "inputRequests":{{"wide":{{"method":"elicitation/create","params":{{"message":"Fill in","requestedSchema":{schema}}}}}}}}}}}"#
    );
    assert!(body.len() < 8 << 20, "within the default body limit: {} B", body.len());
    let message = parse_answer_within(&body, DEFAULT_MAX_INPUT_REQUESTS).expect("one question");
    let task = decode_get_task_result(&message["result"]).expect("a task");
    let questions = task.input_requests().expect("asking");
    let kept = mcp_tasks_web::protocol::input::encode_input_requests(questions).to_string();
    assert!(kept.len() < 200, "the question without its schema: {kept}");
    let limit = FormLimit::Bytes.max();
    let expected = format!(r#""requestedSchema":{{"{TOO_LARGE_SCHEMA}":{}}}"#, schema.len());
    assert!(kept.contains(&expected), "{kept}");
    assert!(kept.contains(r#""message":"Fill in""#), "{kept}");
    let snapshot =
        snapshot_asking(&json::from_str(&kept).expect("JSON")["wide"]["params"]["requestedSchema"].to_string());
    let model = CardModel::from_json(&snapshot);
    assert!(matches!(&model.questions[0].1, Question::Form { form: Err(SchemaError::TooLarge(FormLimit::Bytes)), .. }));
    // At the limit the schema is kept as it came.
    let padded = format!(r#"{{"type":"object","properties":{{}},"description":"{}"}}"#, "x".repeat(limit - 60));
    let body = format!(
        r#"{{"wide":{{"method":"elicitation/create","params":{{"message":"m","requestedSchema":{padded}}}}}}}"#
    );
    let at = mcp_tasks_web::protocol::input::decode_input_requests(
        &parse_answer(&format!(r#"{{"params":{{"inputRequests":{body}}}}}"#)).expect("JSON")["params"]["inputRequests"],
    )
    .expect("one question");
    assert!(mcp_tasks_web::protocol::input::encode_input_requests(&at).to_string().contains(&"x".repeat(limit - 60)));
}

/// Under the limits every check stays small: a multi select answered with every option reversed and
/// with repeats, more picks than a form may hold options refused before they are compared, and answers
/// with many unknown keys.
#[test]
fn answers_at_the_limits_are_checked_in_bounded_time() {
    use mcp_tasks_web::protocol::form::Problem;
    let choices: Vec<String> = (0..1024).map(|i| format!(r#""o{i:04}""#)).collect();
    let schema = json::from_str(&format!(
        r#"{{"type":"object","properties":{{"m":{{"type":"array","items":{{"type":"string","enum":[{}]}}}}}}}}"#,
        choices.join(",")
    ))
    .expect("JSON");
    let model = FormModel::from_schema(&schema).expect("a form at the limits");
    let check = |picked: &[String]| {
        let answers = json::from_str(&format!(r#"{{"m":[{}]}}"#, picked.join(","))).expect("JSON");
        timed(&format!("checking {} picks", picked.len()), Duration::from_millis(200), || {
            model.validate(answers.as_object().expect("object"))
        })
    };
    let all: Vec<String> = choices.iter().rev().cloned().collect();
    assert!(check(&all).is_ok(), "every option, reversed");
    let mut picked: Vec<String> = choices.iter().rev().take(512).cloned().collect();
    picked.extend(choices.iter().rev().step_by(2).take(256).cloned());
    picked.push(r#""nope""#.into());
    let errors = check(&picked).expect_err("repeats and an unknown option");
    let codes: Vec<&str> = errors.iter().map(|e| e.problem.code()).collect();
    assert_eq!(codes.iter().filter(|c| **c == "duplicate").count(), 256, "each repeated value once");
    assert_eq!(codes.last(), Some(&"option"), "in the order the picks came");
    let mut too_many = all.clone();
    too_many.push(r#""o0000""#.into());
    let errors = check(&too_many).expect_err("more picks than options");
    assert_eq!(errors.iter().map(|e| e.problem.clone()).collect::<Vec<_>>(), [Problem::TooManyItems { max: 1024 }]);
    let unknown: Vec<String> = (0..50_000).rev().map(|i| format!(r#""k{i}":"x""#)).collect();
    let answers = json::from_str(&format!("{{{}}}", unknown.join(","))).expect("JSON");
    let errors = timed("50,000 unknown answer keys", Duration::from_millis(500), || {
        model.validate(answers.as_object().expect("object"))
    });
    assert_eq!(errors.map_err(|e| e.len()), Err(50_000));
}

#[test]
fn a_body_of_small_values_stops_at_the_tree_limit_but_a_tool_result_is_kept_as_text() {
    // 8 MiB of zeros outside any part kept as text: refused once the tree holds 262,144 values, with
    // the rest of the body never read.
    let zeros = vec!["0"; 4 << 20].join(",");
    let flood = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","n":[{zeros}]}}}}"#);
    let refused = timed("an 8 MiB flood of zeros", Duration::from_secs(2), || {
        parse_answer_within(&flood, DEFAULT_MAX_INPUT_REQUESTS)
    });
    let error = refused.expect_err("4,194,304 values are more than the tree holds").to_string();
    let limit = format!("more than {} JSON values", 1 << 18);
    assert!(error.contains(&limit), "{error} names the limit, MAX_TREE_VALUES");
    // The same numbers in a task's tool result are kept as its text: read, not built.
    let task = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"taskId":"t","status":"completed","result":{{"content":[],"structuredContent":{{"n":[{zeros}]}}}}}}}}"#
    );
    let kept = parse_answer_within(&task, DEFAULT_MAX_INPUT_REQUESTS).expect("a task result of any size is text");
    assert_eq!(kept["result"]["result"]["structuredContent"].to_string().len(), zeros.len() + r#"{"n":[]}"#.len());
    // At the limit exactly (the root, `jsonrpc`, `id`, `result` and `n` are five), a message still reads.
    let at = vec!["0"; (1 << 18) - 5].join(",");
    let at = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"n":[{at}]}}}}"#);
    assert!(parse_answer_within(&at, DEFAULT_MAX_INPUT_REQUESTS).is_ok(), "262,144 values in all read");
}
