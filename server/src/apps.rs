//! The MCP Apps this server offers: `resources/read` of a tool's `ui://` document.
use mcp_tasks_web::json::{json, Value};
use mcp_tasks_web::protocol::jsonrpc::RpcError;

/// The `report` tool's app.
pub const REPORT_URI: &str = "ui://mcp-tasks-server/report.html";

/// The MIME type the Apps spec gives an app's HTML document.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// JSON-RPC code of an unknown resource (MCP's "Resource not found").
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The report app: one self-contained page that speaks the Apps protocol over `postMessage` itself
/// (`ui/initialize`, then it shows the `ui/notifications/tool-result` it gets as text; its button calls
/// `echo` back through the host).
const REPORT_HTML: &str = include_str!("report_app.html");

/// `resources/read` of `uri`.
pub fn read(uri: &str) -> Result<Value, RpcError> {
    if uri != REPORT_URI {
        return Err(
            RpcError::new(RESOURCE_NOT_FOUND, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
        );
    }
    let content = json!({
        "uri": uri,
        "mimeType": APP_MIME_TYPE,
        "text": REPORT_HTML,
        "_meta": { "ui": { "prefersBorder": true, "csp": { "connectDomains": [], "resourceDomains": [] } } }
    });
    Ok(json!({ "resultType": "complete", "contents": [content] }))
}
