//! Static files for the demo: `--www` at `/`, `--pkg` at `/pkg/`, with types browsers need (`.wasm` as
//! `application/wasm`) and a strict Content-Security-Policy, so the demo runs as hosts will run it.
use std::path::{Component, Path, PathBuf};

use axum::body::Body;
use axum::http::{Response, StatusCode};

/// The policy pages are served with: no inline script, wasm allowed, connections to this origin and to
/// loopback servers on any port (the demo can be pointed at another MCP server on this machine with
/// `?server=`, such as the interop peers), and frames from loopback origins only: an MCP App's sandbox
/// (`mcp-tasks-web/app`), which must be served from another origin than the page.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; media-src blob:; connect-src 'self' http://127.0.0.1:* http://localhost:*; frame-src http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'";

/// The policy of the package's MCP App sandbox (`sandbox.html`, `sandbox.js`), as docs/element.md asks
/// hosts to serve it: framed by loopback pages only (the demo frames it from the other loopback name),
/// inline script and style for the app's document, no connections. An app inherits it.
pub const SANDBOX_CSP: &str = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; font-src 'self'; frame-ancestors http://127.0.0.1:* http://localhost:*";

/// The policy `path` is served with: the sandbox's for the package's sandbox files, else [`CSP`].
fn policy(path: &Path) -> &'static str {
    match path.file_name().and_then(|n| n.to_str()) {
        Some("sandbox.html" | "sandbox.js") => SANDBOX_CSP,
        _ => CSP,
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "text/plain; charset=utf-8",
    }
}

/// Resolves a URL path under `root`, refusing anything that would leave it.
fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let relative = url_path.trim_start_matches('/');
    let mut path = root.to_path_buf();
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => path.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if path.is_dir() {
        path.push("index.html");
    }
    Some(path)
}

/// Serves `url_path` from `root`, or 404.
pub async fn serve(root: &Path, url_path: &str) -> Response<Body> {
    let not_found =
        || Response::builder().status(StatusCode::NOT_FOUND).body(Body::from("not found")).unwrap_or_default();
    let Some(path) = resolve(root, url_path) else { return not_found() };
    match tokio::fs::read(&path).await {
        Ok(bytes) => Response::builder()
            .status(StatusCode::OK)
            .header("content-type", content_type(&path))
            .header("content-security-policy", policy(&path))
            .header("x-content-type-options", "nosniff")
            .header("cache-control", "no-cache")
            .body(Body::from(bytes))
            .unwrap_or_default(),
        Err(_) => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::{policy, resolve, CSP, SANDBOX_CSP};
    use std::path::Path;

    #[test]
    fn the_app_sandbox_may_be_framed_by_loopback_pages_and_nothing_else_is() {
        assert_eq!(policy(Path::new("/pkg/sandbox.html")), SANDBOX_CSP);
        assert_eq!(policy(Path::new("/pkg/sandbox.js")), SANDBOX_CSP);
        assert_eq!(policy(Path::new("/www/index.html")), CSP);
        assert!(CSP.contains("frame-ancestors 'none'"));
        assert!(SANDBOX_CSP.contains("frame-ancestors http://127.0.0.1:* http://localhost:*"));
    }

    #[test]
    fn paths_stay_under_the_root() {
        let root = Path::new("/srv/www");
        assert_eq!(resolve(root, "/app.js"), Some(Path::new("/srv/www/app.js").to_path_buf()));
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/a/../../b"), None);
    }
}
