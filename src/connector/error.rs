//! Everything that can go wrong between us and the Connector, each with a stable code, the
//! context a user needs, and whether trying again later can help.

use super::envelope::Envelope;
use crate::discovery::DiscoveryError;
use serde_json::{Value, json};

#[derive(Debug, Clone, thiserror::Error)]
pub enum ConnectorError {
    /// No Editor could be chosen or found again.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),

    /// The request may or may not have run, and it was not safe to send it again (§2.10 step 7).
    #[error(
        "the outcome of {tool} operation {operation_id} against {project} on port {port} is unknown; it was not resent ({reason}). Once the Editor is back, the identical call under the same operation id is safe: the Connector's ledger replays its result or reports that it did not run"
    )]
    OutcomeUnknown {
        operation_id: String,
        tool: String,
        project: String,
        port: u16,
        reason: String,
    },

    /// The deadline passed while the project's Editor was coming back, and its pid changed.
    #[error(
        "the Unity Editor for {project} restarted (pid {old_pid:?} → {new_pid:?}) and did not answer on port {port} before the timeout; retry once it has finished loading"
    )]
    TargetRestarted {
        project: String,
        port: u16,
        old_pid: Option<i64>,
        new_pid: Option<i64>,
    },
    /// The deadline passed; the same Editor process is still there but does not answer.
    #[error(
        "the Unity Editor for {project} (pid {pid:?}) is not responding on port {port}: {reason}. It may be compiling, reloading or blocked by a modal dialog; retry, or raise --timeout / HERA_AGENT_TIMEOUT_MS"
    )]
    TargetUnresponsive {
        project: String,
        port: u16,
        pid: Option<i64>,
        reason: String,
    },
    /// The deadline passed and the project has no live heartbeat any more.
    #[error(
        "the Unity Editor for {project} went away (no live heartbeat; last port {port}): {reason}. Reopen the project in Unity"
    )]
    TargetLost {
        project: String,
        port: u16,
        reason: String,
    },
    /// A non-transient failure talking to the port.
    #[error("cannot connect to Unity at port {port}: {reason}")]
    ConnectFailed { port: u16, reason: String },

    /// An HTTP status other than 200 with no usable envelope (§2.11 steps 2–4).
    #[error("HTTP {status} from Unity ({label}){}", if body.is_empty() { String::new() } else { format!(": {body}") })]
    HttpStatus {
        status: u16,
        label: String,
        body: String,
    },
    /// More than 50 MiB of response.
    #[error(
        "the Unity response exceeded the {limit}-byte limit; narrow the request (filters, paging)"
    )]
    ResponseTooLarge { limit: usize },
    /// The Connector answered, but not with what this exchange requires.
    #[error("unexpected response from Unity: {0}")]
    InvalidResponse(String),

    /// The Connector refused the request with an envelope (e.g. a rejected preflight, a failed
    /// catalog fetch). The envelope is kept whole.
    #[error("{}: {}", envelope.code.as_deref().unwrap_or("UNITY_ERROR"), envelope.message.as_deref().unwrap_or("request rejected"))]
    Rejected { envelope: Envelope },

    /// The received catalog failed a check (§3.8–§3.10): hash, project, epoch or structure.
    #[error("tool catalog rejected: {0}")]
    CatalogInvalid(String),

    /// The socket on the Editor's port is not provably the Editor's: nothing was sent to it.
    #[error("{reason}; nothing was sent to port {port}")]
    UntrustedListener { port: u16, reason: String },

    /// Bad input from our caller, caught before sending.
    #[error("{message}")]
    InvalidRequest { code: &'static str, message: String },
}

impl ConnectorError {
    /// A stable code, the Connector's where one exists.
    pub fn code(&self) -> &str {
        match self {
            ConnectorError::Discovery(e) => e.code(),
            ConnectorError::OutcomeUnknown { .. } => "OPERATION_OUTCOME_UNKNOWN",
            ConnectorError::TargetRestarted { .. } => "EDITOR_RESTARTED",
            ConnectorError::TargetUnresponsive { .. } => "EDITOR_UNRESPONSIVE",
            ConnectorError::TargetLost { .. } => "EDITOR_NOT_RUNNING",
            ConnectorError::ConnectFailed { .. } => "CONNECTION_FAILED",
            ConnectorError::HttpStatus { .. } => "HTTP_ERROR",
            ConnectorError::ResponseTooLarge { .. } => "RESPONSE_TOO_LARGE",
            ConnectorError::InvalidResponse(_) => "INVALID_RESPONSE",
            ConnectorError::Rejected { envelope } => {
                envelope.code.as_deref().unwrap_or("UNITY_ERROR")
            }
            ConnectorError::CatalogInvalid(_) => "CATALOG_INVALID",
            ConnectorError::UntrustedListener { .. } => "UNTRUSTED_LISTENER",
            ConnectorError::InvalidRequest { code, .. } => code,
        }
    }

    /// Structured details for an error envelope.
    pub fn data(&self) -> Value {
        match self {
            ConnectorError::Discovery(e) => e.data(),
            ConnectorError::OutcomeUnknown {
                operation_id,
                tool,
                project,
                port,
                ..
            } => {
                json!({"operation_id": operation_id, "tool": tool, "project": project, "port": port})
            }
            ConnectorError::TargetRestarted {
                project,
                port,
                old_pid,
                new_pid,
            } => json!({"project": project, "port": port, "old_pid": old_pid, "new_pid": new_pid}),
            ConnectorError::TargetUnresponsive {
                project, port, pid, ..
            } => {
                json!({"project": project, "port": port, "pid": pid})
            }
            ConnectorError::TargetLost { project, port, .. } => {
                json!({"project": project, "port": port})
            }
            ConnectorError::ConnectFailed { port, .. }
            | ConnectorError::UntrustedListener { port, .. } => json!({"port": port}),
            ConnectorError::HttpStatus { status, .. } => json!({"status": status}),
            ConnectorError::Rejected { envelope } => {
                envelope.data().cloned().unwrap_or(Value::Null)
            }
            _ => Value::Null,
        }
    }

    /// The Editor is absent, loading or unreachable: try again later, nothing was executed
    /// (or, for [`ConnectorError::OutcomeUnknown`], see [`ConnectorError::is_outcome_unknown`]).
    pub fn is_editor_unavailable(&self) -> bool {
        match self {
            ConnectorError::Discovery(e) => !e.is_terminal(),
            ConnectorError::TargetRestarted { .. }
            | ConnectorError::TargetUnresponsive { .. }
            | ConnectorError::TargetLost { .. }
            | ConnectorError::ConnectFailed { .. } => true,
            _ => false,
        }
    }

    pub fn is_outcome_unknown(&self) -> bool {
        matches!(self, ConnectorError::OutcomeUnknown { .. })
    }

    /// An error envelope in the Connector's shape, for printing or for an MCP tool result.
    pub fn to_envelope(&self) -> Value {
        if let ConnectorError::Rejected { envelope } = self {
            return envelope.raw.clone();
        }
        let mut v = json!({"success": false, "code": self.code(), "message": self.to_string()});
        let data = self.data();
        if !data.is_null() {
            v["data"] = data;
        }
        v
    }
}
