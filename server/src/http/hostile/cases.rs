//! The bodies hostile mode sends. They are written as JSON *text*, not built as values, because the
//! point of several cases is text no value type holds: numbers such as `1e400` or `-0` exactly as
//! written, and nesting a recursive writer would need a deep stack for.
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Response, StatusCode};
use futures_util::stream::{self, StreamExt};
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::jsonrpc::RequestId;
use mcp_tasks_web::protocol::subscriptions::{acknowledged_notification, ListenFilter};
use mcp_tasks_web::protocol::timestamp::format_millis;

/// `ttlMs` of hostile tasks.
const TTL_MS: u64 = 3_600_000;

/// How many MiB of text the gzip bomb inflates to: 8 times the 8 MiB a client reads by default.
const BOMB_FILLER_MIB: usize = 64;

/// How much an endless event sends before the server gives up on it (a client without a limit would
/// hold this much of one line).
const ENDLESS_CAP_BYTES: usize = 1 << 30;

/// The numbers of `hostile_numbers`, as JSON text: at and past the edges of `f64` (overflow to
/// infinity, negative zero, the smallest subnormal, underflow to zero, the smallest normal, the largest
/// finite, integers past 2^53 and past `u64`, decimals with no exact binary form, an upper-case
/// exponent).
pub(super) const NUMBER_TEXTS: [&str; 20] = [
    "1e400",
    "-1e400",
    "-0",
    "-0.0",
    "0e400",
    "5e-324",
    "4.9e-324",
    "1e-400",
    "2.2250738585072014e-308",
    "2.2250738585072011e-308",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551616",
    "123456789012345678901234567890",
    "0.1",
    "0.30000000000000004",
    "1E+2",
    "1e-7",
];

fn json_body(status: StatusCode, text: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(text))
        .unwrap_or_default()
}

/// A JSON-RPC response's text: `result` is JSON text, put in as it is.
pub(super) fn rpc_text(id: &Value, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// A JSON-RPC result answer.
pub(super) fn rpc_result(id: &Value, result: &str) -> Response<Body> {
    json_body(StatusCode::OK, rpc_text(id, result))
}

/// A JSON-RPC error answer (for bad arguments of a hostile tool).
pub(super) fn rpc_error(id: &Value, code: i64, message: &str) -> Response<Body> {
    let body = json!({ "jsonrpc": "2.0", "id": id.clone(), "error": { "code": code, "message": message } });
    json_body(StatusCode::OK, body.to_string())
}

/// A complete tool result with one text block.
pub(super) fn text_result(text: &str) -> String {
    format!(r#"{{"resultType":"complete","content":[{{"type":"text","text":{}}}]}}"#, Value::from(text))
}

/// The Task fields, written as the spec names them.
fn task_fields(task_id: &str, status: &str, created_ms: i64, poll_ms: u64) -> String {
    let created = format_millis(created_ms);
    format!(
        r#""taskId":{},"status":"{status}","createdAt":"{created}","lastUpdatedAt":"{created}","ttlMs":{TTL_MS},"pollIntervalMs":{poll_ms}"#,
        Value::from(task_id)
    )
}

/// The `CreateTaskResult` of a new hostile task.
pub(super) fn handle(task_id: &str, created_ms: i64, poll_ms: u64) -> String {
    format!(r#"{{"resultType":"task",{}}}"#, task_fields(task_id, "working", created_ms, poll_ms))
}

/// A `tasks/get` result; `detail` is the status detail's member text, starting with a comma (or empty).
pub(super) fn task(task_id: &str, status: &str, created_ms: i64, poll_ms: u64, detail: &str) -> String {
    format!(r#"{{"resultType":"complete",{}{detail}}}"#, task_fields(task_id, status, created_ms, poll_ms))
}

/// The result member of a number form's task once answered: the `inputResponses` received, as text
/// in the content and as JSON (their numbers as the client wrote them) in `structuredContent`.
pub(super) fn echo(answers: &str) -> String {
    format!(
        r#","result":{{"content":[{{"type":"text","text":{}}}],"structuredContent":{{"inputResponses":{answers}}}}}"#,
        Value::from(answers)
    )
}

/// `hostile_numbers`' result: each of [`NUMBER_TEXTS`] as a number and as a string, side by side.
pub(super) fn numbers_result() -> String {
    let numbers = NUMBER_TEXTS.join(",");
    let texts: Vec<String> = NUMBER_TEXTS.iter().map(|t| Value::from(*t).to_string()).collect();
    format!(
        r#"{{"resultType":"complete","content":[{{"type":"text","text":"numbers at the edges of f64: {}"}}],"structuredContent":{{"numbers":[{numbers}],"texts":[{}]}}}}"#,
        NUMBER_TEXTS.join(" "),
        texts.join(",")
    )
}

/// One number field of the number form: `keywords` (`default`, bounds) as JSON text, each also kept
/// as a string under `x-hostile-texts` so a test can compare what it reads with what was sent.
fn number_field(kind: &str, title: &str, keywords: &[(&str, &str)]) -> String {
    let mut field = format!(r#"{{"type":"{kind}","title":{}"#, Value::from(title));
    let mut texts = Vec::new();
    for (keyword, text) in keywords {
        field.push_str(&format!(r#","{keyword}":{text}"#));
        texts.push(format!(r#""{keyword}":{}"#, Value::from(*text)));
    }
    field.push_str(&format!(r#","x-hostile-texts":{{{}}}}}"#, texts.join(",")));
    field
}

/// The number form's `inputRequests`: one form (key `edges`) whose fields' defaults and bounds are
/// numbers at and past the edges of `f64`.
pub(super) fn number_form() -> String {
    let fields = [
        (
            "huge",
            number_field(
                "number",
                "Past the largest double",
                &[("default", "1e400"), ("minimum", "-1e400"), ("maximum", "1e400")],
            ),
        ),
        (
            "largest",
            number_field(
                "number",
                "The largest double",
                &[("default", "1.7976931348623157e308"), ("maximum", "1.7976931348623157e308")],
            ),
        ),
        (
            "negativeZero",
            number_field("number", "Negative zero", &[("default", "-0"), ("minimum", "-0"), ("maximum", "0")]),
        ),
        (
            "smallest",
            number_field(
                "number",
                "The smallest subnormal",
                &[("default", "5e-324"), ("minimum", "5e-324"), ("maximum", "1")],
            ),
        ),
        (
            "minNormal",
            number_field(
                "number",
                "The smallest normal",
                &[("default", "2.2250738585072014e-308"), ("exclusiveMinimum", "0")],
            ),
        ),
        (
            "beyondSafe",
            number_field(
                "integer",
                "Past 2^53",
                &[("default", "9007199254740993"), ("minimum", "9007199254740993"), ("maximum", "9007199254740995")],
            ),
        ),
        (
            "tenth",
            number_field(
                "number",
                "A tenth",
                &[("default", "0.1"), ("minimum", "0.1"), ("maximum", "0.30000000000000004")],
            ),
        ),
    ];
    let properties: Vec<String> = fields.iter().map(|(name, field)| format!(r#""{name}":{field}"#)).collect();
    format!(
        r#"{{"edges":{{"method":"elicitation/create","params":{{"mode":"form","message":"Numbers at the edges of f64","requestedSchema":{{"type":"object","properties":{{{}}}}}}}}}}}"#,
        properties.join(",")
    )
}

/// A result whose `structuredContent.deep` is `depth` nested arrays.
pub(super) fn deep_result(depth: usize) -> String {
    let mut text = String::with_capacity(2 * depth + 128);
    text.push_str(r#"{"resultType":"complete","content":[{"type":"text","text":"deep"}],"structuredContent":{"deep":"#);
    text.extend(std::iter::repeat_n('[', depth));
    text.extend(std::iter::repeat_n(']', depth));
    text.push_str("}}");
    text
}

/// The order a case writes its keys in: the one that costs a careless reader most differs by reader
/// (a sorted insert pays most for reversed keys, a merge for scattered ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyOrder {
    /// Index order, which is also key order (keys carry six digits).
    Ascending,
    /// Last index first.
    Reversed,
    /// By a prime stride that does not divide the count: neighbours in the text are far apart in key
    /// order.
    Scattered,
}

impl KeyOrder {
    /// Reads the `order` argument (absent: ascending).
    pub(super) fn parse(value: Option<&str>) -> Result<KeyOrder, String> {
        match value {
            None | Some("ascending") => Ok(KeyOrder::Ascending),
            Some("reversed") => Ok(KeyOrder::Reversed),
            Some("scattered") => Ok(KeyOrder::Scattered),
            Some(other) => Err(format!("`order` is \"ascending\", \"reversed\" or \"scattered\", not {other:?}")),
        }
    }

    /// `0..n` in this order.
    fn indices(self, n: usize) -> Vec<usize> {
        match self {
            KeyOrder::Ascending => (0..n).collect(),
            KeyOrder::Reversed => (0..n).rev().collect(),
            KeyOrder::Scattered => {
                let stride = [7919, 7927, 7933].into_iter().find(|p| n % p != 0).unwrap_or(1);
                (0..n).map(|i| (i * stride + 13) % n).collect()
            }
        }
    }
}

/// `count` questions at once, keys `ask-000000`, `ask-000001`, … written in `order`: form
/// elicitations, or (`roots`) `roots/list` requests, the smallest question there is (37 B each, so
/// 225,000 fill the client's 8 MiB body limit).
pub(super) fn input_flood(count: usize, order: KeyOrder, roots: bool) -> String {
    let mut text = String::with_capacity(count * if roots { 36 } else { 140 } + 2);
    text.push('{');
    for (n, i) in order.indices(count).into_iter().enumerate() {
        if n > 0 {
            text.push(',');
        }
        if roots {
            text.push_str(&format!(r#""ask-{i:06}":{{"method":"roots/list"}}"#));
        } else {
            text.push_str(&format!(
                r#""ask-{i:06}":{{"method":"elicitation/create","params":{{"mode":"form","message":"Question {i}?","requestedSchema":{{"type":"object","properties":{{}}}}}}}}"#
            ));
        }
    }
    text.push('}');
    text
}

/// The wide form's `inputRequests`: one form (key `wide`) of `count` required text fields
/// (`f000000`, …; 38 B each with its `required` entry, so 200,000 come near the 8 MiB body limit),
/// written in `order` and listed in `required` in the opposite order; or (`options`) of one multi
/// select with `count` options in that order.
pub(super) fn wide_form(count: usize, order: KeyOrder, options: bool) -> String {
    let indices = order.indices(count);
    let mut schema = String::with_capacity(count * 40 + 64);
    if options {
        schema.push_str(r#"{"type":"object","required":["choice"],"properties":{"choice":{"type":"array","title":"Choose","items":{"type":"string","enum":["#);
        for (n, i) in indices.iter().enumerate() {
            schema.push_str(if n > 0 { r#","o"# } else { r#""o"# });
            schema.push_str(&format!(r#"{i:06}""#));
        }
        schema.push_str("]}}}}");
    } else {
        schema.push_str(r#"{"type":"object","properties":{"#);
        for (n, i) in indices.iter().enumerate() {
            schema.push_str(if n > 0 { r#","f"# } else { r#""f"# });
            schema.push_str(&format!(r#"{i:06}":{{"type":"string"}}"#));
        }
        schema.push_str(r#"},"required":["#);
        for (n, i) in indices.iter().rev().enumerate() {
            schema.push_str(if n > 0 { r#","f"# } else { r#""f"# });
            schema.push_str(&format!(r#"{i:06}""#));
        }
        schema.push_str("]}");
    }
    let what = if options { "options" } else { "fields" };
    format!(
        r#"{{"wide":{{"method":"elicitation/create","params":{{"mode":"form","message":"A form of {count} {what}","requestedSchema":{schema}}}}}}}"#
    )
}

/// Raw deflate of `data` by a fresh compressor, ended with `flush`: `Sync` ends it on a byte boundary
/// with its blocks not final, so pieces made this way can be laid end to end (no piece refers back
/// into another: each compressor starts with no history); `Finish` makes the final piece.
fn deflate(data: &[u8], flush: flate2::FlushCompress) -> Option<Vec<u8>> {
    let mut compress = flate2::Compress::new(flate2::Compression::best(), false);
    let mut out = Vec::new();
    loop {
        out.reserve(64 << 10);
        let consumed = usize::try_from(compress.total_in()).ok()?;
        let status = compress.compress_vec(data.get(consumed..)?, &mut out, flush).ok()?;
        let all_in = usize::try_from(compress.total_in()).ok()? == data.len();
        // Room left in the output after all input went in means the flush is complete.
        if status == flate2::Status::StreamEnd || (all_in && out.len() < out.capacity()) {
            return Some(out);
        }
    }
}

/// The gzip bomb's compressed bytes: a complete JSON-RPC response (id 0: a client must give up on its
/// size before it could compare ids) whose one text block is [`BOMB_FILLER_MIB`] MiB of `x`. One MiB
/// of `x` is compressed once and its piece repeated, so making the bomb costs about one MiB of
/// compression and a CRC pass, even in a debug build.
fn make_bomb() -> Bytes {
    use flate2::FlushCompress;
    let prefix = br#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","content":[{"type":"text","text":""#;
    let suffix = br#""}]}}"#;
    let filler = vec![b'x'; 1 << 20];
    let pieces = (
        deflate(prefix, FlushCompress::Sync),
        deflate(&filler, FlushCompress::Sync),
        deflate(suffix, FlushCompress::Finish),
    );
    let (Some(head), Some(middle), Some(tail)) = pieces else { return Bytes::new() };
    let mut crc = flate2::Crc::new();
    crc.update(prefix);
    for _ in 0..BOMB_FILLER_MIB {
        crc.update(&filler);
    }
    crc.update(suffix);
    // RFC 1952: magic, deflate, no flags, no time, no extra flags, unknown OS.
    let mut gzip = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    gzip.extend_from_slice(&head);
    for _ in 0..BOMB_FILLER_MIB {
        gzip.extend_from_slice(&middle);
    }
    gzip.extend_from_slice(&tail);
    gzip.extend_from_slice(&crc.sum().to_le_bytes());
    gzip.extend_from_slice(&crc.amount().to_le_bytes());
    Bytes::from(gzip)
}

/// The gzip bomb, compressed once per process (off the async threads), sent with
/// `content-encoding: gzip` so the client's runtime inflates it.
pub(super) async fn gzip_bomb() -> Response<Body> {
    static BOMB: tokio::sync::OnceCell<Bytes> = tokio::sync::OnceCell::const_new();
    let bomb = BOMB.get_or_init(|| async { tokio::task::spawn_blocking(make_bomb).await.unwrap_or_default() }).await;
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/json")
        .header("content-encoding", "gzip")
        .body(Body::from(bomb.clone()))
        .unwrap_or_default()
}

fn event_stream(body: Body) -> Response<Body> {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static("text/event-stream"));
    headers.insert("cache-control", HeaderValue::from_static("no-cache, no-transform"));
    response
}

/// An SSE answer whose one event starts a result and never ends its `data:` line: 64 KiB chunks of
/// `y` until the client hangs up (or [`ENDLESS_CAP_BYTES`], then the stream just ends).
pub(super) fn endless_event(id: &Value) -> Response<Body> {
    let start = format!(
        r#"event: message
data: {{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[{{"type":"text","text":""#
    );
    let filler = Bytes::from(vec![b'y'; 64 << 10]);
    let rest = stream::unfold(0usize, move |sent| {
        let filler = filler.clone();
        async move { (sent < ENDLESS_CAP_BYTES).then(|| (Ok::<_, std::io::Error>(filler.clone()), sent + filler.len())) }
    });
    event_stream(Body::from_stream(stream::once(async move { Ok(Bytes::from(start)) }).chain(rest)))
}

/// An SSE answer of `total` newline bytes (blank lines: no event) in `chunk`-byte HTTP chunks, each
/// flushed on its own (the stream yields between chunks), then `answer` as an event, or nothing (the
/// stream ends without one).
pub(super) fn newline_flood(chunk: usize, total: usize, answer: Option<String>) -> Response<Body> {
    let newlines = Bytes::from(vec![b'\n'; chunk.max(1)]);
    let flood = stream::unfold(0usize, move |sent| {
        let newlines = newlines.clone();
        async move {
            if sent >= total {
                return None;
            }
            // Give the connection a chance to write this chunk alone before the next one is made.
            tokio::task::yield_now().await;
            let piece = newlines.slice(..newlines.len().min(total - sent));
            let len = piece.len();
            Some((Ok::<_, std::io::Error>(piece), sent + len))
        }
    });
    let tail = stream::iter(answer.map(|text| Ok(Bytes::from(format!("event: message\ndata: {text}\n\n")))));
    event_stream(Body::from_stream(flood.chain(tail)))
}

/// A listen stream that acknowledges `stalled` and then sends nothing, not even a keep-alive, until
/// the client hangs up.
pub(super) fn stalled_listen(id: &Value, stalled: Vec<String>) -> Response<Body> {
    let subscription = match id {
        Value::String(text) => Some(RequestId::Text(text.clone())),
        Value::Number(n) => n.as_i64().map(RequestId::Number),
        _ => None,
    };
    let Some(subscription) = subscription else {
        return rpc_error(id, -32600, "Invalid Request: the listen needs a string or integer id");
    };
    let ack = acknowledged_notification(&subscription, &ListenFilter::tasks(stalled));
    let first = Bytes::from(format!("event: message\ndata: {ack}\n\n"));
    let silence = stream::pending::<Result<Bytes, std::io::Error>>();
    event_stream(Body::from_stream(stream::once(async move { Ok(first) }).chain(silence)))
}

/// A 307 to `location`.
pub(super) fn redirect(location: &str) -> Response<Body> {
    Response::builder()
        .status(StatusCode::TEMPORARY_REDIRECT)
        .header("location", location)
        .body(Body::empty())
        .unwrap_or_default()
}

/// The `tools/list` entries of the hostile tools.
pub(super) fn tool_list() -> Vec<Value> {
    let at = json!({ "type": "string", "enum": ["call", "poll"], "default": "call",
        "description": "call: misbehave in the tools/call answer; poll: answer with a task whose every tasks/get misbehaves" });
    let positive = |description: &str, default: u64, max: u64| json!({ "type": "integer", "minimum": 1, "maximum": max, "default": default, "description": description });
    let order = json!({ "type": "string", "enum": ["ascending", "reversed", "scattered"], "default": "ascending",
        "description": "the order keys are written in" });
    let tool = |name: &str, description: &str, properties: Value| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": { "type": "object", "properties": properties },
            "_meta": { "io.github.mcp-tasks-web/taskSupport": "optional" }
        })
    };
    vec![
        tool("hostile_gzip_bomb", "Answers with content-encoding: gzip: about 64 KB that inflate to 64 MiB of JSON.", json!({ "at": at.clone() })),
        tool("hostile_endless_event", "Answers with an SSE event whose data line never ends (64 KiB chunks until the client hangs up).", json!({ "at": at.clone() })),
        tool(
            "hostile_newline_flood",
            "Answers with an SSE stream of blank lines only, in chunks of chunkBytes, totalBytes in all; then the answer (then: \"answer\") or nothing (\"close\").",
            json!({
                "at": at.clone(),
                "chunkBytes": positive("bytes per HTTP chunk", 1, 1 << 20),
                "totalBytes": positive("newline bytes in all", 1 << 20, 1 << 28),
                "then": { "type": "string", "enum": ["close", "answer"], "default": "close" }
            }),
        ),
        tool(
            "hostile_listen_stall",
            "A task; a subscriptions/listen naming it is acknowledged and then sent nothing, not even a keep-alive. tasks/get says working until workMs after creation, then completed.",
            json!({ "workMs": positive("how long the task works", 30_000, 3_600_000) }),
        ),
        tool(
            "hostile_input_flood",
            "Asks count questions at once (MRTR, or a task's inputRequests with at: poll), keys in order: form elicitations, or roots/list requests (kind: roots; 225,000 fill the 8 MiB body limit).",
            json!({
                "at": at.clone(),
                "count": positive("how many input requests", 10_000, 225_000),
                "order": order.clone(),
                "kind": { "type": "string", "enum": ["form", "roots"], "default": "form" }
            }),
        ),
        tool("hostile_numbers", "A result whose structuredContent.numbers are at and past the edges of f64 (1e400, -0, 5e-324, 9007199254740993, …), with their texts in structuredContent.texts.", json!({ "at": at.clone() })),
        tool(
            "hostile_wide_form",
            "A task asking one form of count required text fields, or (shape: options) of one multi select with count options, keys in order (200,000 fields come near the 8 MiB body limit); completes echoing the answer.",
            json!({
                "count": positive("fields or options", 20_000, 200_000),
                "order": order,
                "shape": { "type": "string", "enum": ["fields", "options"], "default": "fields" }
            }),
        ),
        tool("hostile_number_form", "A task asking a form whose number fields have defaults and bounds at and past the edges of f64; completes echoing the answer verbatim.", json!({})),
        tool("hostile_deep_nesting", "A result nested depth arrays deep.", json!({ "at": at.clone(), "depth": positive("array nesting depth", 10_000, 1_000_000) })),
        tool("hostile_redirect", "Answers 307 to this server under its other loopback name (localhost / 127.0.0.1): another origin; arrivals there are counted.", json!({ "at": at })),
        tool(
            "hostile_stats",
            "What hostile mode counted: requests that arrived through its redirect, hostile tasks held, when the latest stalled listens were acknowledged (Unix ms).",
            json!({}),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_body_text_is_json_the_protocol_reads() {
        let id = Value::from(7);
        let parse = |text: &str| mcp_tasks_web::json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let numbers = parse(&rpc_text(&id, &numbers_result()));
        let texts = numbers.pointer("/result/structuredContent/texts").and_then(Value::as_array).map(Vec::len);
        assert_eq!(texts, Some(NUMBER_TEXTS.len()));
        // The numbers are kept as written: `-0` stays `-0`, `1e400` stays `1e400`.
        assert!(numbers.to_string().contains("[1e400,-1e400,-0,-0.0,0e400,5e-324"), "{numbers}");
        let form = parse(&number_form());
        let huge = form.pointer("/edges/params/requestedSchema/properties/huge").map(Value::to_string);
        assert_eq!(
            huge.as_deref(),
            Some(
                r#"{"type":"number","title":"Past the largest double","default":1e400,"minimum":-1e400,"maximum":1e400,"x-hostile-texts":{"default":"1e400","minimum":"-1e400","maximum":"1e400"}}"#
            )
        );
        for order in [KeyOrder::Ascending, KeyOrder::Reversed, KeyOrder::Scattered] {
            for roots in [false, true] {
                let flood = parse(&input_flood(300, order, roots));
                assert_eq!(flood.as_object().map(|o| o.len()), Some(300));
            }
            let wide = parse(&wide_form(300, order, false));
            let schema = wide.pointer("/wide/params/requestedSchema").cloned().unwrap_or_default();
            assert_eq!(schema.get("properties").and_then(Value::as_object).map(|o| o.len()), Some(300));
            assert_eq!(schema.get("required").and_then(Value::as_array).map(Vec::len), Some(300));
            let options = parse(&wide_form(300, order, true));
            let choices = options.pointer("/wide/params/requestedSchema/properties/choice/items/enum");
            assert_eq!(choices.and_then(Value::as_array).map(Vec::len), Some(300));
        }
        let keys = |text: &str| parse(text).as_object().map(|o| o.keys().map(str::to_owned).collect::<Vec<_>>());
        assert_eq!(
            keys(&input_flood(3, KeyOrder::Reversed, true)).unwrap_or_default(),
            ["ask-000002", "ask-000001", "ask-000000"]
        );
        let task_text = task("hostile-1", "working", 0, 100, "");
        assert_eq!(parse(&task_text).get("createdAt").and_then(Value::as_str), Some("1970-01-01T00:00:00.000Z"));
        parse(&handle("hostile-1", 0, 100));
        let answered = parse(&task("hostile-1", "completed", 0, 100, &echo(r#"{"edges":{"content":{"tenth":0.1}}}"#)));
        let echoed = answered.pointer("/result/structuredContent/inputResponses/edges/content/tenth");
        assert_eq!(echoed.map(Value::to_string).as_deref(), Some("0.1"));
        assert_eq!(tool_list().len(), 11);
    }

    #[test]
    fn the_largest_floods_and_forms_fit_the_clients_body_limit() {
        let body = |detail: &str| rpc_text(&Value::from(1), &task("hostile-1", "input_required", 0, 100, detail)).len();
        for order in [KeyOrder::Ascending, KeyOrder::Reversed, KeyOrder::Scattered] {
            let flood = body(&format!(r#","inputRequests":{}"#, input_flood(225_000, order, true)));
            let form = body(&format!(r#","inputRequests":{}"#, wide_form(200_000, order, false)));
            for (what, size) in [("225,000 roots questions", flood), ("a form of 200,000 fields", form)] {
                assert!(size <= 8 << 20 && size > 7 << 20, "{what} ({order:?}): {size} B, near and under 8 MiB");
            }
        }
    }

    #[test]
    fn deep_nesting_is_past_the_parsers_limit_and_balanced() {
        let text = deep_result(10_000);
        assert!(mcp_tasks_web::json::from_str(&text).is_err(), "10,000 levels are refused by the parser");
        assert_eq!(text.matches('[').count() - 1, 10_000, "one more [ opens `content`");
        assert_eq!(text.matches('[').count(), text.matches(']').count());
        assert!(mcp_tasks_web::json::from_str(&deep_result(20)).is_ok(), "a shallow one reads");
    }

    #[test]
    fn the_bomb_is_small_and_inflates_to_a_whole_response() {
        use std::io::Read;
        let bomb = make_bomb();
        assert!(!bomb.is_empty() && bomb.len() < 128 << 10, "{} bytes compressed", bomb.len());
        let mut text = String::new();
        let read = flate2::read::GzDecoder::new(&bomb[..]).read_to_string(&mut text);
        assert!(
            read.as_ref().is_ok_and(|n| *n > BOMB_FILLER_MIB << 20),
            "inflates past {BOMB_FILLER_MIB} MiB: {read:?}"
        );
        assert!(text.ends_with(r#"xxx"}]}}"#));
        let value = mcp_tasks_web::json::from_str(&text).map_err(|e| e.to_string());
        assert_eq!(value.ok().and_then(|v| v.get("id").cloned()), Some(Value::from(0)));
    }
}
