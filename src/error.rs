//! What went wrong, as data: every failure a host can see is a [`ClientError`] of one [`ErrorKind`].
//! The JS `Error.name` of each kind is chosen here ([`ErrorKind::js_name`]), and the door hands it to
//! the driver with the error; below it, kinds are plain values.
use std::fmt;

/// The kinds of failure a host tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The host called the API wrongly: bad arguments, an unknown task, a method this mode lacks.
    Usage,
    /// The server answered with a JSON-RPC error.
    Rpc,
    /// An HTTP failure without a JSON-RPC error body.
    Http,
    /// The server could not be reached.
    Network,
    /// No answer in time (the server, or the tab that polls).
    Timeout,
    /// The host's `AbortSignal` fired.
    Aborted,
    /// The server sent something this client cannot read.
    Protocol,
    /// The host's `headers` callback failed; nothing was sent.
    Headers,
    /// The store refused or failed an operation.
    Storage,
    /// The task's state does not allow this (answering a key twice, cancelling a finished task…).
    TaskState,
    /// The tool asks for input before it starts and the host gave no way to answer.
    InputRequired,
    /// The task was forgotten (here, in another tab, by `clear` or by retention) before it settled.
    Forgotten,
    /// The client was closed before the operation could finish.
    Closed,
    /// The server redirected a request to another origin (or hid where); it was not followed.
    Redirect,
    /// The client stopped: its WebAssembly module trapped (or the door it needed could not load). The
    /// driver makes this one; stored tasks are kept for the next `open()`.
    Failed,
    /// The server refused the credentials (HTTP 401 or 403): the host's sign-in is needed.
    Auth,
}

impl ErrorKind {
    /// Every kind, for the bindings' name table and its tests.
    pub(crate) const ALL: [ErrorKind; 16] = [
        Self::Usage,
        Self::Rpc,
        Self::Http,
        Self::Network,
        Self::Timeout,
        Self::Aborted,
        Self::Protocol,
        Self::Headers,
        Self::Storage,
        Self::TaskState,
        Self::InputRequired,
        Self::Forgotten,
        Self::Closed,
        Self::Redirect,
        Self::Failed,
        Self::Auth,
    ];

    /// `Error.name` for each kind (the TypeScript union `TaskClientError["name"]` lists the same).
    pub(crate) fn js_name(self) -> &'static str {
        match self {
            Self::Usage => "TypeError",
            Self::Rpc => "RpcError",
            Self::Http => "HttpError",
            Self::Network => "NetworkError",
            Self::Timeout => "TimeoutError",
            Self::Aborted => "AbortError",
            Self::Protocol => "ProtocolError",
            Self::Headers => "HeadersError",
            Self::Storage => "StorageError",
            Self::TaskState => "TaskStateError",
            Self::InputRequired => "InputRequiredError",
            Self::Forgotten => "TaskForgottenError",
            Self::Closed => "ClientClosedError",
            Self::Redirect => "RedirectError",
            Self::Failed => "ClientFailedError",
            Self::Auth => "AuthError",
        }
    }

    /// A stable code for messages between tabs (not shown to people).
    pub(crate) fn code(self) -> &'static str {
        match self {
            Self::Usage => "usage",
            Self::Rpc => "rpc",
            Self::Http => "http",
            Self::Network => "network",
            Self::Timeout => "timeout",
            Self::Aborted => "aborted",
            Self::Protocol => "protocol",
            Self::Headers => "headers",
            Self::Storage => "storage",
            Self::TaskState => "task_state",
            Self::InputRequired => "input_required",
            Self::Forgotten => "forgotten",
            Self::Closed => "closed",
            Self::Redirect => "redirect",
            Self::Failed => "failed",
            Self::Auth => "auth",
        }
    }

    /// The kind of [`Self::code`]; `None` for a code this release does not know.
    pub(crate) fn from_code(code: &str) -> Option<ErrorKind> {
        Self::ALL.into_iter().find(|k| k.code() == code)
    }
}

/// A failure for the host: its kind, a message a person can act on, and the facts a JS `Error` carries.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientError {
    /// What kind of failure (the JS `Error.name`).
    pub kind: ErrorKind,
    /// A message a person can act on.
    pub message: String,
    /// The JSON-RPC code, where there is one.
    pub code: Option<i64>,
    /// Whether trying again may succeed.
    pub retryable: bool,
}

impl ClientError {
    /// An error of `kind` that retrying does not fix.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), code: None, retryable: false }
    }

    /// A usage error (bad arguments, unknown task…).
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    /// A store failure.
    pub(crate) fn storage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Storage, message)
    }

    /// A tool started task `id` but the store did not take its record.
    pub(crate) fn handle_not_stored(tool: &str, id: &str) -> Self {
        Self::storage(format!(
            "the tool {tool} started as task {id}, but the store did not take its record; the task is polled in memory and is lost if this page closes first"
        ))
    }

    /// A host's answer or cancel for task `id` is queued, but the store did not take it.
    pub(crate) fn change_not_stored(id: &str) -> Self {
        Self::storage(format!(
            "task {id}: the store did not take the change; it is queued in memory and this client sends it, but a reload before then loses it"
        ))
    }

    /// A `respond` or `cancel` forwarded to the polling tab got no reply in time.
    pub(crate) fn polling_tab_silent() -> Self {
        ClientError {
            kind: ErrorKind::Timeout,
            message: "the tab that polls this namespace did not answer".into(),
            code: None,
            retryable: true,
        }
    }

    /// No task `id` here.
    pub(crate) fn unknown_task(id: &str) -> Self {
        Self::usage(format!("no task {id} in this client"))
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ClientError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_back_as_its_kind() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(ErrorKind::from_code("nonsense"), None);
    }

    /// The names are decided here: the published union `TaskClientErrorName` (which the type checker
    /// holds the JS driver's own names to) lists exactly these, in this order.
    #[test]
    fn the_published_error_names_are_these() {
        let dts = include_str!("../pkg-template/client.d.ts");
        let union =
            dts.split("export type TaskClientErrorName =").nth(1).expect("client.d.ts declares TaskClientErrorName");
        let published: Vec<&str> = union
            .lines()
            .skip(1)
            .map_while(|line| line.trim().strip_prefix("| \""))
            .filter_map(|line| line.split('"').next())
            .collect();
        let ours: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.js_name()).collect();
        assert_eq!(published, ours);
    }
}
