//! What the Connector core and the Editor model say to each other: a validated call, the facts
//! about the Editor a handler needs, and how the call ended as the router sees it.
//!
//! The core needs only "run this call and tell me how it ended", "advance your jobs" and
//! "what state should the heartbeat show". These types, and the conversions in `editor_glue`,
//! keep protocol rules out of the Editor model and Editor details out of the protocol code.

use crate::envelope::Reply;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// Facts about the Editor a handler may need (file-bus names carry the port, pending records
/// carry the project id and pid).
#[derive(Debug, Clone)]
pub struct EditorContext {
    /// The listener port.
    pub port: u16,
    pub project_id: String,
    /// `<home>/.hera-agent-unity/status`.
    pub status_dir: PathBuf,
    /// The Editor's pid as the heartbeat reports it.
    pub pid: i64,
    /// Simulated Unix milliseconds.
    pub now_ms: i64,
}

/// One validated call.
#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    /// The canonical action, when one was resolved.
    pub action: Option<String>,
    /// Normalized params (positionals mapped, values coerced, `action` canonical).
    pub params: Map<String, Value>,
}

/// A domain reload the Editor asks for (package change, script compile, entering play mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReloadAsk {
    /// The forced heartbeat state written before `reloading` (§1.3): `compiling` for a script
    /// compile, `entering_playmode` when play mode reloads the domain.
    pub first_state: Option<&'static str>,
}

/// How a call ended, as the router sees it (§2.5 step 11).
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// The reply before `total_ms`.
    pub reply: Reply,
    /// Reload the domain after answering.
    pub reload: Option<ReloadAsk>,
    /// The handler's task completes this long after it started; the router awaits it under the
    /// command lock (a synchronous EditMode test run).
    pub hold: Option<std::time::Duration>,
}

/// `<tool>` or `<tool>:<action>`, as the router names a call in messages.
pub fn label(tool: &str, action: Option<&str>) -> String {
    match action {
        Some(a) => format!("{tool}:{a}"),
        None => tool.to_string(),
    }
}
