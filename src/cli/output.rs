//! How results and failures leave the process: results on stdout, everything else on stderr,
//! failures as one compact JSON envelope line so scripts and agents can parse them.

use super::exit;
use crate::connector::{ConnectorError, Envelope};
use crate::session::{CallError, ErrorKind, is_approval_code};
use serde_json::{Value, json};

/// A command that did not succeed: the exit code and the envelope printed on stderr.
#[derive(Debug, Clone)]
pub struct Failure {
    pub exit: u8,
    pub envelope: Value,
}

impl Failure {
    pub fn new(exit: u8, code: &str, message: impl Into<String>, data: Value) -> Failure {
        let mut envelope = json!({"success": false, "code": code, "message": message.into()});
        if !data.is_null() {
            envelope["data"] = data;
        }
        Failure { exit, envelope }
    }
    pub fn usage(code: &str, message: impl Into<String>) -> Failure {
        Failure::new(exit::USAGE, code, message, Value::Null)
    }
    pub fn with_suggestion(mut self, s: &str) -> Failure {
        self.envelope["suggestions"] = json!([s]);
        self
    }
    /// A failed envelope from the Connector, passed through.
    pub fn from_envelope(env: &Envelope) -> Failure {
        let mut envelope = env.raw.clone();
        if !envelope.is_object() {
            envelope = json!({"success": false, "message": env.message});
        }
        Failure {
            exit: exit_for_code(env.code_str()),
            envelope,
        }
    }
    pub fn print(&self) {
        eprintln!(
            "{}",
            serde_json::to_string(&self.envelope).unwrap_or_default()
        );
    }
}

/// Approval codes exit 4, everything else a Connector reports exits 1.
pub fn exit_for_code(code: &str) -> u8 {
    if is_approval_code(code) {
        exit::APPROVAL
    } else {
        exit::FAILED
    }
}

impl From<ConnectorError> for Failure {
    fn from(e: ConnectorError) -> Failure {
        let code = match &e {
            ConnectorError::Discovery(d) if d.code() == "INVALID_ARGUMENT" => exit::USAGE,
            ConnectorError::Discovery(_) => exit::NO_EDITOR,
            ConnectorError::ConnectFailed { .. }
            | ConnectorError::TargetLost { .. }
            | ConnectorError::TargetRestarted { .. }
            | ConnectorError::TargetUnresponsive { .. }
            | ConnectorError::HttpStatus { .. } => exit::NO_EDITOR,
            ConnectorError::Rejected { envelope } => exit_for_code(envelope.code_str()),
            ConnectorError::InvalidRequest { .. } => exit::USAGE,
            _ => exit::FAILED,
        };
        Failure {
            exit: code,
            envelope: e.to_envelope(),
        }
    }
}

impl From<CallError> for Failure {
    /// Words a pipeline refusal for a person at a terminal: the exit code of its kind, and what
    /// to run next where that differs from the agent's wording.
    fn from(e: CallError) -> Failure {
        if let Some(raw) = &e.editor_envelope {
            return Failure {
                exit: exit_for_code(&e.code),
                envelope: raw.clone(),
            };
        }
        let code = match e.kind {
            _ if e.code == "INVALID_OPERATION_ID" => exit::USAGE,
            ErrorKind::Usage => exit::USAGE,
            ErrorKind::EditorUnavailable => exit::NO_EDITOR,
            ErrorKind::Approval => exit::APPROVAL,
            ErrorKind::Input | ErrorKind::OutcomeUnknown { .. } | ErrorKind::Failed => exit::FAILED,
        };
        let mut message = e.message.clone();
        match &e.kind {
            ErrorKind::OutcomeUnknown { operation_id } => message.push_str(&format!(
                ". Rerun the same command with --operation-id {operation_id} once the Editor is back"
            )),
            _ if e.code == "INVALID_OPERATION_ID" => {
                message = format!("--operation-id: {message}; use 8-128 letters, digits, '_' or '-'")
            }
            _ => {}
        }
        let data = if e.data.as_object().is_some_and(|o| o.is_empty()) {
            Value::Null
        } else {
            e.data.clone()
        };
        let mut f = Failure::new(code, &e.code, message, data);
        let mut suggestions = e.suggestions.clone();
        if matches!(e.code.as_str(), "TOOL_NOT_FOUND" | "ACTION_NOT_FOUND") {
            suggestions.push("Run `hera-agent-unity list` to see the tools and actions".into());
        }
        if !suggestions.is_empty() {
            f.envelope["suggestions"] = json!(suggestions);
        }
        f
    }
}

impl From<crate::discovery::DiscoveryError> for Failure {
    fn from(e: crate::discovery::DiscoveryError) -> Failure {
        ConnectorError::from(e).into()
    }
}

/// Prints a successful envelope: a string `data` raw, other `data` as compact JSON, else the
/// message. A hint goes to stderr.
pub fn print_success(env: &Envelope) {
    match env.data() {
        Some(Value::String(s)) => println!("{s}"),
        Some(v) => println!("{}", serde_json::to_string(v).unwrap_or_default()),
        None => println!("{}", env.message.as_deref().unwrap_or("ok")),
    }
    if let Some(h) = &env.agent_hint {
        eprintln!("hint: {h}");
    }
}

/// Pretty JSON to stdout (reports: status, doctor, list, task).
pub fn print_json(v: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into())
    );
}
