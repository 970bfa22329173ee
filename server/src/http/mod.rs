//! The HTTP surface: `/mcp` (POST; OPTIONS preflight; 405 otherwise), the login page a URL-mode
//! elicitation points at, static files for the demo, and the admin fault endpoints behind `--faults`
//! (loopback and the admin token only: see `admin`).
use std::sync::{Arc, RwLock};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, Response, StatusCode, Uri};
use axum::routing::{any, get, post};
use axum::Router;
use mcp_tasks_web::json::{json, Value};

use crate::config::ServerConfig;
use crate::engine::Engine;
use crate::faults::{FaultDice, FaultSettings};
use crate::tools::login::LOGIN_PATH;

pub mod admin;
mod cors;
mod hostile;
mod mcp;
mod origin;
pub mod secret;
mod statics;

pub use origin::{origin_allowed, HostPolicy};

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    /// The task engine.
    pub engine: Arc<Engine>,
    /// Settings from the command line.
    pub config: Arc<ServerConfig>,
    /// Faults in force (changed by `/admin/faults`).
    pub faults: Arc<RwLock<FaultSettings>>,
    /// Fault dice.
    pub dice: Arc<FaultDice>,
    /// Which `Host`s are answered (DNS-rebinding protection).
    pub hosts: HostPolicy,
}

impl AppState {
    /// One log line per request: method, task id or tool name, HTTP status, JSON-RPC error, time.
    pub fn log(&self, method: &str, name: &str, status: StatusCode, code: Option<i64>, started: Instant) {
        if !self.config.log {
            return;
        }
        let name = if name.is_empty() { "-" } else { name };
        let code = code.map_or_else(|| "ok".to_owned(), |c| c.to_string());
        eprintln!("{method} {name} {} {code} {}ms", status.as_u16(), started.elapsed().as_millis());
    }
}

/// A JSON body with a status.
pub fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap_or_default()
}

async fn options(State(state): State<AppState>, headers: HeaderMap) -> Response<Body> {
    match origin::check(&headers, &state.hosts) {
        Ok(()) => cors::preflight(&headers),
        Err(refusal) => {
            Response::builder().status(StatusCode::FORBIDDEN).body(Body::from(refusal.message())).unwrap_or_default()
        }
    }
}

async fn not_allowed() -> Response<Body> {
    let error = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32000, "message": "Method not allowed: every MCP message is a POST" } });
    let mut response = json_response(StatusCode::METHOD_NOT_ALLOWED, &error);
    response.headers_mut().insert("allow", axum::http::HeaderValue::from_static("POST, OPTIONS"));
    response
}

async fn mcp_other(State(state): State<AppState>, method: Method, headers: HeaderMap) -> Response<Body> {
    if method == Method::OPTIONS {
        options(State(state), headers).await
    } else {
        not_allowed().await
    }
}

#[derive(serde::Deserialize)]
struct TaskQuery {
    task: Option<String>,
}

/// The page a `login` task's URL points at: visiting it signs the user in.
async fn login_page(State(state): State<AppState>, Query(q): Query<TaskQuery>) -> Response<Body> {
    let signed_in = q.task.as_deref().is_some_and(|id| state.engine.visit_login(id).unwrap_or(false));
    let (status, text) = if signed_in {
        (StatusCode::OK, "Signed in. You can close this tab and return to the app.")
    } else {
        (StatusCode::NOT_FOUND, "There is no sign-in waiting for this link.")
    };
    let html = format!("<!doctype html><meta charset=utf-8><title>Sign-in</title><p>{text}</p>");
    Response::builder()
        .status(status)
        .header("content-type", "text/html; charset=utf-8")
        .header("content-security-policy", "default-src 'none'")
        .body(Body::from(html))
        .unwrap_or_default()
}

async fn admin_get_faults(State(state): State<AppState>) -> Response<Body> {
    let faults = state.faults.read().map(|f| f.clone()).unwrap_or_default();
    json_response(StatusCode::OK, &serde_value(&faults))
}

async fn admin_set_faults(State(state): State<AppState>, body: axum::body::Bytes) -> Response<Body> {
    match serde_json::from_slice::<FaultSettings>(&body) {
        Ok(settings) => {
            if let Ok(mut f) = state.faults.write() {
                *f = settings.clone();
            }
            json_response(StatusCode::OK, &serde_value(&settings))
        }
        Err(e) => json_response(StatusCode::BAD_REQUEST, &json!({ "error": e.to_string() })),
    }
}

async fn admin_expire(State(state): State<AppState>, Query(q): Query<TaskQuery>) -> Response<Body> {
    match q.task.as_deref().map(|id| state.engine.expire(id)) {
        Some(Ok(true)) => json_response(StatusCode::OK, &json!({ "expired": true })),
        Some(Ok(false)) => json_response(StatusCode::NOT_FOUND, &json!({ "expired": false })),
        Some(Err(e)) => json_response(StatusCode::INTERNAL_SERVER_ERROR, &json!({ "error": e.message })),
        None => json_response(StatusCode::BAD_REQUEST, &json!({ "error": "?task=ID is required" })),
    }
}

async fn admin_restart_store(State(state): State<AppState>) -> Response<Body> {
    match state.engine.store().reopen() {
        Ok(()) => json_response(StatusCode::OK, &json!({ "restarted": true })),
        Err(e) => json_response(StatusCode::INTERNAL_SERVER_ERROR, &json!({ "error": e.to_string() })),
    }
}

async fn static_file(State(state): State<AppState>, uri: Uri) -> Response<Body> {
    let path = uri.path();
    let (root, rest) = match (path.strip_prefix("/pkg/"), &state.config.pkg, &state.config.www) {
        (Some(rest), Some(pkg), _) => (pkg.clone(), rest.to_owned()),
        (_, _, Some(www)) => (www.clone(), path.to_owned()),
        _ => {
            return Response::builder().status(StatusCode::NOT_FOUND).body(Body::from("not found")).unwrap_or_default()
        }
    };
    statics::serve(&root, &rest).await
}

/// The router.
pub fn router(state: AppState) -> Router {
    // In hostile mode `/mcp` POSTs pass through `hostile/` first, which answers its own tools' calls.
    let mcp_post = if state.config.hostile { hostile::route() } else { post(mcp::post) };
    let mut router =
        Router::new().route("/mcp", mcp_post.options(options).fallback(mcp_other)).route(LOGIN_PATH, get(login_page));
    if state.config.faults_enabled {
        let gate = admin::AdminGate { token: state.config.admin_token.clone(), hosts: state.hosts.clone() };
        let admin = Router::new()
            .route("/admin/faults", get(admin_get_faults).post(admin_set_faults))
            .route("/admin/expire", post(admin_expire))
            .route("/admin/restart-store", post(admin_restart_store))
            .layer(axum::middleware::from_fn_with_state(gate, admin::gate));
        router = router.merge(admin);
    }
    router.fallback(any(static_file)).with_state(state)
}

/// A serde value (the fault settings) as a protocol JSON value, through its JSON text.
fn serde_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_string(value).ok().and_then(|text| mcp_tasks_web::json::from_str(&text).ok()).unwrap_or(Value::Null)
}
