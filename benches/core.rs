//! Core speed (issue 7), native, with criterion: decoding a `tasks/get` response, one state-machine step,
//! building and validating an elicitation form.
//!
//! Run with `cargo bench --bench core` (about 30 s of measuring after the build). Every figure lands in
//! `target/criterion/<group>/<bench>/new/estimates.json`; `mean.point_estimate` there is the mean time
//! per operation in nanoseconds (`cargo xtask bench` reads it from there). With
//! `CORE_BENCH_WRITE_DECODE_INPUTS=FILE` it writes the three `tasks/get` bodies to FILE and measures nothing
//! (`cargo xtask bench decode` decodes the same bytes in the browser).
//!
//! The payloads copy the shapes of the reference server's wire transcript
//! (`tests/fixtures/spec/wire-transcript.txt`) and of the 2026-07-28 schema examples, built inline so the
//! bench reads no file at all.
//! Benchmarks print; they do not assert timings. The few `assert!`s below only check, before anything is
//! timed, that each input decodes to what its name says.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, BatchSize, Criterion, Throughput};
use mcp_tasks_web::json::{json, Map, Value};
use mcp_tasks_web::machine::backoff::PollPolicy;
use mcp_tasks_web::machine::record::{Action, Change, TaskRecord};
use mcp_tasks_web::protocol::form::FormModel;
use mcp_tasks_web::protocol::jsonrpc::{decode_message_value, parse_answer, Incoming};
use mcp_tasks_web::protocol::request::{ClientRequest, RequestResult};
use mcp_tasks_web::protocol::task::{decode_get_task_result, DetailedTask, StatusDetail, TaskStatus};

const TASK_ID: &str = "c34ee976-2d4c-4aa9-96a0-2b6b1b7c8115";
/// Client clock when the handle arrived (Unix ms): 2026-12-02T08:24:49.436Z, the transcript's createdAt.
const T0: u64 = 1_796_199_889_436;
const CREATED_AT: &str = "2026-12-02T08:24:49.436Z";

// ---------------------------------------------------------------------------------------------------
// Payloads

/// The ten-field `requestedSchema` of a deployment approval: every field kind the spec allows (text with
/// length bounds and each kind of format, number, integer, boolean, titled and untitled single select,
/// titled multi select), with titles, descriptions and defaults as servers write them.
fn deploy_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "service": {
                "type": "string", "title": "Service", "description": "Which service to deploy",
                "oneOf": [
                    { "const": "api", "title": "Public API" },
                    { "const": "web", "title": "Web front end" },
                    { "const": "worker", "title": "Background worker" }
                ],
                "default": "api"
            },
            "environment": {
                "type": "string", "title": "Environment", "description": "Where to deploy",
                "enum": ["staging", "production", "canary"], "default": "staging"
            },
            "confirm": {
                "type": "boolean", "title": "Approve", "description": "Approve this deployment", "default": false
            },
            "reason": {
                "type": "string", "title": "Reason", "description": "Why approve or reject?",
                "minLength": 1, "maxLength": 200
            },
            "notify": {
                "type": "string", "title": "Notify", "description": "Who gets the deployment report",
                "format": "email", "minLength": 3, "maxLength": 100, "default": "oncall@example.com"
            },
            "runbook": {
                "type": "string", "title": "Runbook", "description": "Rollback instructions", "format": "uri"
            },
            "window": {
                "type": "string", "title": "Maintenance window", "description": "Start of the window (UTC)",
                "format": "date-time"
            },
            "replicas": {
                "type": "integer", "title": "Replicas", "description": "Instances to run",
                "minimum": 1, "maximum": 20, "default": 3
            },
            "maxErrorRate": {
                "type": "number", "title": "Max error rate (%)", "description": "Roll back above this",
                "minimum": 0, "maximum": 100, "default": 0.5
            },
            "regions": {
                "type": "array", "title": "Regions", "description": "Regions to roll out to",
                "minItems": 1, "maxItems": 3,
                "items": {
                    "anyOf": [
                        { "const": "eu-west-1", "title": "Europe (Ireland)" },
                        { "const": "us-east-1", "title": "US East (Virginia)" },
                        { "const": "ap-south-1", "title": "Asia Pacific (Mumbai)" },
                        { "const": "sa-east-1", "title": "South America (São Paulo)" }
                    ]
                },
                "default": ["eu-west-1"]
            }
        },
        "required": ["service", "environment", "confirm", "reason", "replicas", "regions"]
    })
}

/// Answers a user would submit for [`deploy_schema`]: every field filled in and valid.
fn valid_answers() -> Map {
    object(json!({
        "service": "api",
        "environment": "production",
        "confirm": true,
        "reason": "Release 2026.12.1 passed staging soak for 48h",
        "notify": "release-managers@example.com",
        "runbook": "https://runbooks.example.com/api/rollback",
        "window": "2026-12-03T22:00:00Z",
        "replicas": 6,
        "maxErrorRate": 1.5,
        "regions": ["eu-west-1", "us-east-1"]
    }))
}

/// Answers with a problem on most fields (and an unknown key): the error path a UI takes on submit.
fn invalid_answers() -> Map {
    object(json!({
        "service": "database",
        "environment": "",
        "confirm": "yes",
        "reason": "",
        "notify": "release managers",
        "runbook": "runbooks/api",
        "window": "tomorrow 10pm",
        "replicas": 6.5,
        "maxErrorRate": 150,
        "regions": ["eu-west-1", "eu-west-1", "mars-1"],
        "priority": "high"
    }))
}

fn object(v: Value) -> Map {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("a json! object literal"),
    }
}

/// The `_meta` the reference server puts on every result.
fn server_meta() -> Value {
    json!({ "io.modelcontextprotocol/serverInfo": { "name": "mcp-tasks-peer", "version": "0.1.0" } })
}

/// The Task fields of a `tasks/get` result as the reference server writes them (`resultType` last).
fn task_fields(status: &str, message: &str, updated_at: &str) -> Map {
    object(json!({
        "taskId": TASK_ID,
        "status": status,
        "statusMessage": message,
        "createdAt": CREATED_AT,
        "lastUpdatedAt": updated_at,
        "ttlMs": 3_600_000,
        "pollIntervalMs": 500
    }))
}

fn finish_result(mut fields: Map) -> Value {
    fields.insert("resultType".into(), json!("complete"));
    fields.insert("_meta".into(), server_meta());
    Value::Object(fields)
}

/// A `tasks/get` result for a working task.
fn working_result(message: &str, updated_at: &str) -> Value {
    finish_result(task_fields("working", message, updated_at))
}

/// A `tasks/get` result for a task waiting on the ten-field approval form.
fn input_required_result() -> Value {
    let mut fields =
        task_fields("input_required", "Waiting for approval to deploy api to production", "2026-12-02T08:24:50.237Z");
    fields.insert(
        "inputRequests".into(),
        json!({
            "approval-1": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "Approve deployment of api to production?",
                    "requestedSchema": deploy_schema()
                }
            }
        }),
    );
    finish_result(fields)
}

/// A completed build whose `result` (content text plus structuredContent) serializes to at least 10 KiB.
fn completed_result() -> Value {
    const TARGET_BYTES: usize = 10 * 1024;
    let mut log = String::new();
    let mut artifacts = Vec::new();
    let mut step = 0u32;
    let result = loop {
        let result = json!({
            "resultType": "complete",
            "content": [
                { "type": "text", "text": format!("Built wasm-client in 41s ({step} steps)") },
                { "type": "text", "text": log }
            ],
            "structuredContent": {
                "target": "wasm-client",
                "seconds": 41,
                "steps": step,
                "ok": true,
                "artifacts": artifacts
            }
        });
        if result.to_string().len() >= TARGET_BYTES {
            break result;
        }
        step += 1;
        log.push_str(&format!(
            "[{step:04}/0120] Compiling dep-{step} v0.{}.{} (registry+https://index.crates.io/) in {}.{:02}s\n",
            step % 7,
            step % 13,
            step % 5,
            step % 100
        ));
        if step % 3 == 0 {
            artifacts.push(json!({
                "path": format!("dist/chunks/wasm-client-{step:04}.wasm"),
                "bytes": 1_000 + u64::from(step) * 37,
                "sha256": format!("{:064x}", u64::from(step).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            }));
        }
    };
    let mut fields = task_fields("completed", "Build of wasm-client finished", "2026-12-02T08:25:30.555Z");
    fields.insert("result".into(), result);
    finish_result(fields)
}

/// The JSON-RPC response envelope around a result, as the bytes arrive on the wire (`id` last, as the
/// reference server sends it).
fn envelope(result: Value, id: u64) -> Vec<u8> {
    json!({ "result": result, "jsonrpc": "2.0", "id": id }).to_string().into_bytes()
}

// ---------------------------------------------------------------------------------------------------
// (1) Decoding a tasks/get response

/// Envelope bytes → typed result, the way the transport does it: parse (a tool result's parts kept as
/// text, `parse_answer`), check the envelope, decode the result for the request it answers (which also
/// checks the taskId).
fn decode_get(request: &ClientRequest, bytes: &[u8]) -> DetailedTask {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let message = parse_answer(text).expect("JSON");
    let Ok(Incoming::Response(response)) = decode_message_value(message) else { panic!("a JSON-RPC response") };
    let result = response.outcome.expect("a result, not an error");
    match request.decode_result(&result).expect("a tasks/get result") {
        RequestResult::Task(task) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

/// The three `tasks/get` response bodies, by bench name.
fn decode_cases() -> [(&'static str, Vec<u8>); 3] {
    [
        ("working", envelope(working_result("[2/3] compiling wasm-client", "2026-12-02T08:24:51.314Z"), 12)),
        ("input_required_form10", envelope(input_required_result(), 13)),
        ("completed_10kb", envelope(completed_result(), 14)),
    ]
}

fn bench_decode(c: &mut Criterion) {
    let request = ClientRequest::GetTask { task_id: TASK_ID.into() };
    let cases = decode_cases();
    for (name, bytes) in &cases {
        let task = decode_get(&request, bytes);
        let ok = match (*name, &task.detail) {
            ("working", StatusDetail::None) => task.task.status == TaskStatus::Working,
            ("input_required_form10", StatusDetail::InputRequests(r)) => r.len() == 1,
            ("completed_10kb", StatusDetail::Result(_)) => bytes.len() > 10 * 1024,
            _ => false,
        };
        assert!(ok, "{name}: unexpected decode {task:?}");
        println!("decode_tasks_get/{name}: {} bytes", bytes.len());
    }

    let mut group = c.benchmark_group("decode_tasks_get");
    for (name, bytes) in &cases {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(*name, |b| b.iter(|| decode_get(black_box(&request), black_box(bytes))));
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------------
// (2) One state-machine step

/// What the scheduler does with a `tasks/get` answer: hand it to the record, start whatever is due now,
/// and compute when to wake up next.
fn step(
    record: &mut TaskRecord,
    now: u64,
    observed: DetailedTask,
    policy: &PollPolicy,
) -> (Change, usize, Option<u64>) {
    let change = record.on_poll_result(now, observed, policy).expect("the same task");
    let mut started = 0;
    while let Some(action) = record.next_action(now) {
        black_box(&action);
        started += 1;
    }
    (change, started, record.next_wakeup(policy))
}

fn bench_machine(c: &mut Criterion) {
    let policy = PollPolicy::default();
    let decode = |v: Value| decode_get_task_result(&v).expect("a tasks/get result");
    let first = decode(working_result("[1/3] resolving dependencies", "2026-12-02T08:24:50.100Z"));

    // A record that has seen the first poll and has its second poll in flight.
    let mut template = TaskRecord::from_handle(T0, "approve_deploy", first.task.clone(), 7, &PollPolicy::default());
    assert_eq!(template.next_action(T0 + 500), Some(Action::Poll));
    assert_eq!(template.on_poll_result(T0 + 510, first.clone(), &policy), Ok(Change::State));
    let polled_at = T0 + 1_010;
    assert_eq!(template.next_action(polled_at), Some(Action::Poll));
    let now = polled_at + 35;

    let cases = [
        // A new statusMessage: a state change the store must write.
        (
            "poll_changed",
            decode(working_result("[2/3] compiling wasm-client", "2026-12-02T08:24:51.314Z")),
            Change::State,
        ),
        // The same observation again: only the timing moves, no store write.
        ("poll_unchanged", first, Change::Timing),
        // The task starts asking for the ten-field form: the input ledger takes the request.
        ("poll_to_input_required", decode(input_required_result()), Change::State),
    ];
    for (name, observed, expected) in &cases {
        let mut r = template.clone();
        let (change, started, wake) = step(&mut r, now, observed.clone(), &policy);
        assert_eq!(change, *expected, "{name}");
        assert_eq!(started, 0, "{name}: nothing is due right after a poll");
        assert_eq!(wake, Some(now + 500), "{name}: the next poll follows the server's interval");
    }

    let mut group = c.benchmark_group("machine_step");
    for (name, observed, _) in &cases {
        group.bench_function(*name, |b| {
            b.iter_batched(
                || (template.clone(), observed.clone()),
                |(mut record, observed)| {
                    let out = step(&mut record, black_box(now), observed, &policy);
                    // Returned, so the record is dropped outside the timed section.
                    (record, out)
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

// ---------------------------------------------------------------------------------------------------
// (3) Form model

fn bench_form(c: &mut Criterion) {
    let schema = deploy_schema();
    let model = FormModel::from_schema(&schema).expect("a valid schema");
    assert_eq!(model.fields().len(), 10);
    let valid = valid_answers();
    let invalid = invalid_answers();
    assert_eq!(model.validate(&valid).map(|content| content.len()), Ok(10));
    let errors = model.validate(&invalid).expect_err("every field is wrong");
    assert!(errors.len() >= 10, "{errors:?}");

    let mut group = c.benchmark_group("form");
    group.bench_function("from_schema", |b| b.iter(|| FormModel::from_schema(black_box(&schema))));
    group.bench_function("validate_ok", |b| b.iter(|| black_box(&model).validate(black_box(&valid))));
    group.bench_function("validate_errors", |b| b.iter(|| black_box(&model).validate(black_box(&invalid))));
    // What a UI does when the form appears: build it and offer the declared defaults.
    group.bench_function("from_schema_and_defaults", |b| {
        b.iter(|| FormModel::from_schema(black_box(&schema)).map(|m| m.defaults()))
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------------

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_decode, bench_machine, bench_form
}

/// With `CORE_BENCH_WRITE_DECODE_INPUTS=FILE`, writes the decode inputs to FILE instead of measuring:
/// `{ "taskId", "cases": [{ "name", "body" }] }`, `body` being the response text byte for byte.
/// `cargo xtask bench decode` times the same bodies in the browser.
fn write_decode_inputs(path: &std::ffi::OsStr) {
    let cases: Vec<Value> = decode_cases()
        .into_iter()
        .map(|(name, bytes)| json!({ "name": name, "body": String::from_utf8(bytes).expect("UTF-8") }))
        .collect();
    let text = json!({ "taskId": TASK_ID, "cases": cases }).to_string();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.to_string_lossy()));
    println!("wrote the decode inputs to {}", path.to_string_lossy());
}

// criterion_main!(benches), with the input writer in front.
fn main() {
    if let Some(path) = std::env::var_os("CORE_BENCH_WRITE_DECODE_INPUTS") {
        write_decode_inputs(&path);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
