//! Durable task ids (README: Task ids): `hera_task_` + base64url(compact JSON), decodable by any process.
//!
//! A task id carries everything needed to find the job's files again, so `task status` works
//! from a fresh process after the one that started the job is gone.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

pub const TASK_ID_PREFIX: &str = "hera_task_";
pub const MAX_TASK_ID_LEN: usize = 1024;

/// What kind of file-bus job a task tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    Test,
    Package,
}

/// The encoded fields, in Go's key order: v, project_id, k, p, u, o, a, c.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DurableTaskId {
    pub v: u32,
    pub project_id: String,
    pub k: TaskKind,
    pub p: u16,
    /// The run id (tests) or job id (packages).
    pub u: String,
    /// The operation id that started the job.
    pub o: String,
    /// Left out of the encoding when absent or empty, as Go does (`omitempty`).
    #[serde(default, skip_serializing_if = "action_is_empty")]
    pub a: Option<String>,
    /// Creation time, Unix ms.
    pub c: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskIdError {
    #[error("task id must start with `hera_task_`")]
    Prefix,
    #[error("task id is longer than 1024 characters")]
    TooLong,
    #[error("task id is not valid base64url JSON")]
    Encoding,
    #[error("task id field `{0}` is invalid")]
    Field(&'static str),
}

fn action_is_empty(a: &Option<String>) -> bool {
    a.as_deref().is_none_or(str::is_empty)
}

fn id_ok(s: &str) -> bool {
    (8..=160).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl DurableTaskId {
    pub fn encode(&self) -> String {
        let json = serde_json::to_string(self).expect("task id always serializes");
        format!("{TASK_ID_PREFIX}{}", URL_SAFE_NO_PAD.encode(json))
    }

    pub fn decode(id: &str) -> Result<Self, TaskIdError> {
        if id.len() > MAX_TASK_ID_LEN {
            return Err(TaskIdError::TooLong);
        }
        let body = id.strip_prefix(TASK_ID_PREFIX).ok_or(TaskIdError::Prefix)?;
        let bytes = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| TaskIdError::Encoding)?;
        let raw: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|_| TaskIdError::Encoding)?;
        // Kind and port are checked on the raw JSON so that an out-of-range value is reported
        // as that field, not as an undecodable id (vectors/task-id-decode.json).
        if !matches!(
            raw.get("k").and_then(|k| k.as_str()),
            Some("test" | "package")
        ) {
            return Err(TaskIdError::Field("k"));
        }
        if !raw
            .get("p")
            .and_then(|p| p.as_u64())
            .is_some_and(|p| (1..=65535).contains(&p))
        {
            return Err(TaskIdError::Field("p"));
        }
        let t: DurableTaskId = serde_json::from_value(raw).map_err(|_| TaskIdError::Encoding)?;
        if t.v != 2 {
            return Err(TaskIdError::Field("v"));
        }
        if t.p == 0 {
            return Err(TaskIdError::Field("p"));
        }
        if !id_ok(&t.u) {
            return Err(TaskIdError::Field("u"));
        }
        if !id_ok(&t.o) {
            return Err(TaskIdError::Field("o"));
        }
        if t.project_id.is_empty() {
            return Err(TaskIdError::Field("project_id"));
        }
        Ok(t)
    }
}
