//! Which of the two task designs a task lives under: the Tasks extension of 2026-07-28 or the
//! experimental tasks in core of 2025-11-25. The two are not wire-compatible, so a task id is always
//! driven with the flow it was created under — after a reload too, which is why records name it.

/// A task design, named by the protocol version that defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskProtocol {
    /// `io.modelcontextprotocol/tasks` under protocol 2026-07-28: `tasks/get` carries the result,
    /// input is answered with `tasks/update`.
    #[default]
    Extension,
    /// Experimental tasks of protocol 2025-11-25: a session from `initialize`, `tasks/result` for the
    /// payload, input as server requests answered with JSON-RPC responses.
    Legacy,
}

impl TaskProtocol {
    /// The protocol version, as snapshots and stored records spell it.
    pub fn version(self) -> &'static str {
        match self {
            Self::Extension => "2026-07-28",
            Self::Legacy => "2025-11-25",
        }
    }

    /// The design a protocol version names; `None` for a version this client has no tasks for.
    pub fn from_version(version: &str) -> Option<Self> {
        match version {
            "2026-07-28" => Some(Self::Extension),
            "2025-11-25" => Some(Self::Legacy),
            _ => None,
        }
    }
}
