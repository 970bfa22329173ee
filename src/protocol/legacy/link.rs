//! What a client remembers of a server's generation and 2025-11-25 session, and when a server has
//! forgotten that session: pure decisions both drivers share.
use crate::json::{Map, Value};

use super::handshake::LegacyTaskCapabilities;
use super::headers::read_session_id;
use super::negotiate::Generation;

/// A session the server opened: its id (a stateless server issues none) and the task features it
/// declared. Stored with the generation, so a reloaded page (or the next step of an edge worker, or
/// another tab) goes on in the same session: the official TypeScript SDK v1 binds each task to the
/// session that created it, and answers `Task not found` to any other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// `Mcp-Session-Id`, as the server set it on the `initialize` answer.
    pub id: Option<String>,
    /// `capabilities.tasks` of its `initialize` answer.
    pub tasks: Option<LegacyTaskCapabilities>,
}

/// The store value that remembers a server's generation and, for a 2025-11-25 server, its session:
/// `{"protocol": "2025-11-25", "session": id, "tasks": {"list", "cancel", "toolsCall"}}`. `None` for a
/// server without tasks (asked again by the next page).
pub fn stored_link(generation: Generation, session: Option<&SessionInfo>) -> Option<Value> {
    let version = match generation {
        Generation::Extension2026 => crate::protocol::PROTOCOL_VERSION,
        Generation::Legacy2025 => super::LEGACY_PROTOCOL_VERSION,
        Generation::NoTasks => return None,
    };
    // Plain inserts, not `json!` and `value[…] =`: one short run of calls.
    let mut value = Map::new();
    value.put("protocol", Value::from(version));
    if let (Generation::Legacy2025, Some(session)) = (generation, session) {
        value.put("session", session.id.as_deref().map_or(Value::Null, Value::from));
        if let Some(t) = session.tasks {
            let mut tasks = Map::new();
            tasks.put("list", Value::from(t.list));
            tasks.put("cancel", Value::from(t.cancel));
            tasks.put("toolsCall", Value::from(t.tools_call));
            value.put("tasks", Value::Object(tasks));
        }
    }
    Some(Value::Object(value))
}

/// Reads [`stored_link`]'s value; anything else reads as nothing remembered.
pub fn read_link(text: &str) -> Option<(Generation, Option<SessionInfo>)> {
    let value = crate::json::from_str(text).ok()?;
    let generation = match value.get("protocol")?.as_str()? {
        crate::protocol::PROTOCOL_VERSION => return Some((Generation::Extension2026, None)),
        super::LEGACY_PROTOCOL_VERSION => Generation::Legacy2025,
        _ => return None,
    };
    let session = value.get("session").map(|id| {
        let id = id.as_str().and_then(|id| read_session_id(id).ok());
        let flag = |name: &str| value.get("tasks").and_then(|t| t.get(name)).and_then(Value::as_bool).unwrap_or(false);
        let tasks = value.get("tasks").map(|_| LegacyTaskCapabilities {
            list: flag("list"),
            cancel: flag("cancel"),
            tools_call: flag("toolsCall"),
        });
        SessionInfo { id, tasks }
    });
    Some((generation, session))
}

/// Whether the server no longer knows the session we sent: HTTP 404 (the spec's answer), or the 400
/// the official TypeScript SDK v1 sends for an unknown or ended session (`-32000` "Bad Request: No
/// valid session ID provided"; Python servers say `-32600`). Either way a new session is opened and
/// the request sent once more, so a wrong guess costs one request. `message`: the answer's JSON-RPC
/// message, if its body held one.
pub fn session_lost(status: u16, message: Option<&Value>) -> bool {
    match status {
        404 => true,
        400 => {
            let code = message.and_then(|m| m.get("error")).and_then(|e| e.get("code"));
            matches!(code.and_then(Value::as_i64), Some(-32000 | -32001 | -32600) | None)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_session_reads_back_and_other_text_reads_as_nothing() {
        let tasks = LegacyTaskCapabilities { list: true, cancel: false, tools_call: true };
        let session = SessionInfo { id: Some("abc".into()), tasks: Some(tasks) };
        let text = stored_link(Generation::Legacy2025, Some(&session)).unwrap().to_string();
        assert_eq!(read_link(&text), Some((Generation::Legacy2025, Some(session))));
        let modern = stored_link(Generation::Extension2026, None).unwrap().to_string();
        assert_eq!(read_link(&modern), Some((Generation::Extension2026, None)));
        assert_eq!(stored_link(Generation::NoTasks, None), None);
        assert_eq!(read_link("{\"protocol\":\"1999-01-01\"}"), None);
        assert_eq!(read_link("not json"), None);
    }

    #[test]
    fn a_lost_session_is_a_404_or_the_sdks_400() {
        let error =
            |code: i64| crate::json::json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": "x" } });
        assert!(session_lost(404, None));
        assert!(session_lost(400, None));
        assert!(session_lost(400, Some(&error(-32000))));
        assert!(!session_lost(400, Some(&error(-32602))));
        assert!(!session_lost(500, None));
        assert!(!session_lost(200, None));
    }
}
