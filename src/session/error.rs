//! The one error type of the session layer: what went wrong with a call, in words that belong to
//! no front-end.
//!
//! Why a struct and not an enum per cause: every refusal reaches a person or a model as the same
//! four facts (a stable code, a sentence, structured data, whether trying again can help), and
//! both front-ends only add their own instructions on top (`--operation-id` for a terminal,
//! `operation_id` for an agent). [`ErrorKind`] is the one classification they branch on (exit
//! codes, hints).

use crate::connector::ConnectorError;
use serde_json::{Value, json};

/// What kind of failure, for the front-end's choices (exit code, hint). Not a second code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller's input is wrong: unknown tool or action, invalid arguments, a malformed id.
    Input,
    /// The command line or a selection flag is malformed (a port out of range, bad JSON).
    Usage,
    /// No Editor can take the call now: not running, busy, loading, unreachable.
    EditorUnavailable,
    /// Approval is required, was refused, is unsupported, or the token does not fit the call.
    Approval,
    /// The call may have run. A resend with this operation id is safe: the ledger replays it.
    OutcomeUnknown { operation_id: String },
    /// The Editor, its catalog or the exchange failed in a way a retry will not fix by itself.
    Failed,
}

/// A call that did not produce an Editor answer (or whose answer could not be trusted).
#[derive(Debug, Clone)]
pub struct CallError {
    pub code: String,
    pub message: String,
    /// An object (possibly empty). `retryable` and `reason` live here too, for the wire.
    pub data: Value,
    pub retryable: bool,
    pub kind: ErrorKind,
    /// Names the caller may have meant (tools, actions), nearest first.
    pub suggestions: Vec<String>,
    /// The Connector's own envelope when it sent one (suggestions, hints, diagnostics kept).
    pub editor_envelope: Option<Value>,
}

impl CallError {
    pub fn new(kind: ErrorKind, code: &str, message: impl Into<String>) -> CallError {
        CallError {
            code: code.to_string(),
            message: message.into(),
            data: json!({}),
            retryable: false,
            kind,
            suggestions: Vec::new(),
            editor_envelope: None,
        }
    }

    pub fn input(code: &str, message: impl Into<String>) -> CallError {
        CallError::new(ErrorKind::Input, code, message)
    }

    pub fn approval(code: &str, message: impl Into<String>) -> CallError {
        CallError::new(ErrorKind::Approval, code, message)
    }

    /// Merges `data` (an object) into this error's data.
    pub fn with_data(mut self, data: Value) -> CallError {
        if let (Some(into), Value::Object(from)) = (self.data.as_object_mut(), data) {
            into.extend(from);
        }
        self
    }

    /// A retryable "the Editor cannot take calls now", with the reason in `data` (as the agent
    /// protocol has always carried it: `retryable`, `reason`, `retry_after_ms`).
    pub fn unavailable(code: &str, reason: &str, message: impl Into<String>, data: Value) -> Self {
        let mut e = CallError::new(ErrorKind::EditorUnavailable, code, message).with_data(data);
        e.retryable = true;
        e.data["retryable"] = json!(true);
        e.data["reason"] = json!(reason);
        e.data["retry_after_ms"] = json!(2000);
        e
    }

    /// Marks a refusal as retryable without changing its kind.
    pub fn retryable(mut self) -> CallError {
        self.retryable = true;
        self.data["retryable"] = json!(true);
        self
    }
}

impl From<ConnectorError> for CallError {
    fn from(e: ConnectorError) -> CallError {
        CallError::from(&e)
    }
}

impl From<&ConnectorError> for CallError {
    fn from(e: &ConnectorError) -> CallError {
        if let ConnectorError::Rejected { envelope } = e {
            let mut out = CallError::new(
                approval_or_failed(envelope.code_str()),
                envelope.code.as_deref().unwrap_or("UNITY_ERROR"),
                envelope
                    .message
                    .clone()
                    .unwrap_or_else(|| "request rejected".into()),
            );
            if let Some(d) = envelope.data() {
                out = out.with_data(d.clone());
            }
            out.editor_envelope = Some(envelope.raw.clone());
            return out;
        }
        let data = match e.data() {
            Value::Null => json!({}),
            d => d,
        };
        if e.is_outcome_unknown() {
            let op = data
                .get("operation_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            return CallError::new(
                ErrorKind::OutcomeUnknown { operation_id: op },
                e.code(),
                e.to_string(),
            )
            .with_data(data);
        }
        if e.is_editor_unavailable() {
            let reason = match e.code() {
                "EDITOR_NOT_READY" => "loading",
                "EDITOR_UNRESPONSIVE" => "unresponsive",
                "EDITOR_RESTARTED" => "restarted",
                _ => "not_running",
            };
            return CallError::unavailable(e.code(), reason, e.to_string(), data);
        }
        let kind = match e {
            ConnectorError::Discovery(d) if d.code() == "INVALID_ARGUMENT" => ErrorKind::Usage,
            // Ambiguous or mismatched: no Editor can be chosen until the user says which.
            ConnectorError::Discovery(_) => ErrorKind::EditorUnavailable,
            ConnectorError::InvalidRequest { .. } => ErrorKind::Usage,
            ConnectorError::HttpStatus { .. } => ErrorKind::EditorUnavailable,
            _ => ErrorKind::Failed,
        };
        CallError::new(kind, e.code(), e.to_string()).with_data(data)
    }
}

/// Approval codes the Connector sends, which the front-ends treat as "a person must act".
pub fn is_approval_code(code: &str) -> bool {
    matches!(
        code,
        "APPROVAL_REQUIRED"
            | "APPROVAL_DENIED"
            | "APPROVAL_UNSUPPORTED"
            | "APPROVAL_MISMATCH"
            | "APPROVAL_EXPIRED"
            | "APPROVAL_ALREADY_USED"
            | "INVALID_APPROVAL_TOKEN"
    )
}

fn approval_or_failed(code: &str) -> ErrorKind {
    if is_approval_code(code) {
        ErrorKind::Approval
    } else {
        ErrorKind::Failed
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for CallError {}
