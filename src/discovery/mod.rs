//! Finding the Unity Editor: heartbeat files, liveness, choosing one instance, following it.
//!
//! The Connector announces itself only through files in `~/.hera-agent-unity/instances/`
//! (connector-contract/README.md §1). This module reads them; it knows nothing of HTTP.
//!
//! - [`AgentHome`]: where the files are (`$HOME`/`%USERPROFILE%`, with an OS fallback).
//! - [`scan`]: one fresh, tolerant pass (partial-file retry, dead pids deleted, heartbeats whose
//!   process cannot be checked and that stopped moving kept apart as presumed gone).
//! - [`select`]: the selection rules (port, project, working directory via [`cwd_within`], newest).
//! - [`discover`]: `select` with the initial wait, for commands that need an Editor now.
//! - [`wait_for_alive`]: before a request, wait (bounded) for a busy Editor's heartbeat to move.
//! - [`find_project`]: follow a project across ports and domain reloads.
//! - [`verify_listener`]: is the socket on the heartbeat's port the Editor's, or a stranger's?
//! - [`Scan::ignored`]: heartbeat files not trusted (another owner, a writable directory, over
//!   64 KiB, dated in the future), each with an [`IgnoreReason`].
//!
//! Files: `home` (directories), `instance` (reading one heartbeat, the scan), `liveness` (dead
//! processes), `select` (the selection rules), `alive` (wait-for-alive), `listener` (who holds
//! the heartbeat's port).

mod alive;
mod home;
mod instance;
mod listener;
mod liveness;
mod select;

pub use alive::{
    ALIVE_POLL_CAP, AliveEvent, describe_state, is_alive_now, wait_for_alive_observed,
};
pub use home::{AgentHome, user_home};
#[cfg(unix)]
pub use instance::our_uid;
pub use instance::{
    Instance, MAX_HEARTBEAT_BYTES, STALE_AFTER_MS, Scan, now_ms, parse_heartbeat, scan, scan_async,
};
pub use listener::{ListenerCheck, verify_listener};
pub use liveness::{EditorLiveness, judge, pid_alive};
pub use select::{Selector, cwd_within, find_by_port_including_stopped, find_project, select};

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The longest initial wait for an Editor to appear, whatever the request timeout (§1.6 step 4).
pub const INITIAL_WAIT_CAP: Duration = Duration::from_millis(5000);

/// Why no Editor could be chosen. [`DiscoveryError::is_terminal`] tells waiting from giving up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    #[error(
        "no Unity instances found: the heartbeat directory {dir} is missing or unreadable ({reason}). \
         Open the project in Unity with the AgentConnector package installed. Expected: {dir}"
    )]
    NoInstancesDir { dir: PathBuf, reason: String },
    #[error(
        "no Unity instances running: {dir} holds no live heartbeat. Open the project in Unity \
         (AgentConnector package installed) and wait for it to finish loading"
    )]
    NoInstancesRunning { dir: PathBuf },
    #[error(
        "no instance on port {port}: no live Unity Editor heartbeat names that port. Run `hera-agent-unity status` to see the running Editors"
    )]
    NoInstanceOnPort { port: u16 },
    #[error(
        "Unity port {port} belongs to project {owner}, not requested project {requested}. Drop --port or --project, or pick the matching pair"
    )]
    TargetMismatch {
        port: u16,
        owner: String,
        requested: String,
    },
    #[error("project {query:?} is ambiguous; it matches: {}. Pass a longer or exact --project path", candidates.join(", "))]
    AmbiguousProject {
        query: String,
        candidates: Vec<String>,
    },
    #[error("unity project not found: no running Editor's project matches {query:?}{}", if available.is_empty() { String::new() } else { format!(" (running: {})", available.join(", ")) })]
    ProjectNotFound {
        query: String,
        available: Vec<String>,
    },
    #[error(
        "the Unity Editor for {project} is not listening yet (heartbeat port 0); wait for it to finish loading"
    )]
    NotListening { project: String },
    /// The Editor is there but its main loop has not moved within the wait (§1.5 step 4).
    #[error(
        "{description} (state {state}) and has not written a newer heartbeat for {:.1} s \
         (project {project}, port {port}; waited {:.1} s). Wait for Unity to finish, and look in \
         the Editor for a modal dialog, a long import or a paused debugger; then retry, or raise \
         --timeout / HERA_AGENT_TIMEOUT_MS to wait longer. `hera-agent-unity status` shows the heartbeat",
        *heartbeat_age_ms as f64 / 1000.0,
        *waited_ms as f64 / 1000.0
    )]
    NotAlive {
        project: String,
        port: u16,
        state: String,
        /// [`describe_state`] of the last heartbeat seen ("Unity is compiling scripts").
        description: String,
        heartbeat_age_ms: i64,
        waited_ms: u64,
    },
    /// The Editor quit or crashed while we waited for it.
    #[error(
        "the Unity Editor for {project} went away while waiting for it: {reason}. Reopen the project in Unity, then retry"
    )]
    EditorGone { project: String, reason: String },
    #[error("invalid port {0:?}: expected a number from 1 to 65535")]
    InvalidPort(String),
    /// Nothing trustworthy matched, but heartbeat files that claim the target were ignored.
    #[error(
        "no trusted Unity heartbeat for {wanted}: {} ignored ({}). Run `hera-agent-unity doctor` for details",
        ignored.len(),
        ignored.join("; ")
    )]
    UntrustedHeartbeats {
        wanted: String,
        /// `<file>: <reason>` for each ignored file that claimed the target.
        ignored: Vec<String>,
    },
}

impl DiscoveryError {
    /// Ambiguity, mismatch and bad input end the initial wait at once; the rest may resolve
    /// when an Editor starts or finishes loading.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            DiscoveryError::TargetMismatch { .. }
                | DiscoveryError::AmbiguousProject { .. }
                | DiscoveryError::InvalidPort(_)
        )
    }
    /// A stable machine-readable code for envelopes and `--json` output.
    pub fn code(&self) -> &'static str {
        match self {
            DiscoveryError::NoInstancesDir { .. } | DiscoveryError::NoInstancesRunning { .. } => {
                "EDITOR_NOT_RUNNING"
            }
            DiscoveryError::NoInstanceOnPort { .. } => "EDITOR_NOT_RUNNING",
            DiscoveryError::ProjectNotFound { .. } => "EDITOR_NOT_RUNNING",
            DiscoveryError::NotListening { .. } | DiscoveryError::NotAlive { .. } => {
                "EDITOR_NOT_READY"
            }
            DiscoveryError::EditorGone { .. } => "EDITOR_NOT_RUNNING",
            // As far as we can trust, no Editor runs; the message names what was ignored.
            DiscoveryError::UntrustedHeartbeats { .. } => "EDITOR_NOT_RUNNING",
            DiscoveryError::TargetMismatch { .. } => "TARGET_MISMATCH",
            DiscoveryError::AmbiguousProject { .. } => "AMBIGUOUS_PROJECT",
            DiscoveryError::InvalidPort(_) => "INVALID_ARGUMENT",
        }
    }
    /// Structured details (candidates, ports) for envelopes.
    pub fn data(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            DiscoveryError::NoInstancesDir { dir, .. }
            | DiscoveryError::NoInstancesRunning { dir } => {
                json!({"instances_dir": dir})
            }
            DiscoveryError::NoInstanceOnPort { port } => json!({"port": port}),
            DiscoveryError::TargetMismatch {
                port,
                owner,
                requested,
            } => {
                json!({"port": port, "owner": owner, "requested": requested})
            }
            DiscoveryError::AmbiguousProject { query, candidates } => {
                json!({"query": query, "candidates": candidates})
            }
            DiscoveryError::ProjectNotFound { query, available } => {
                json!({"query": query, "running": available})
            }
            DiscoveryError::NotListening { project } => json!({"project": project}),
            DiscoveryError::NotAlive {
                project,
                port,
                state,
                heartbeat_age_ms,
                waited_ms,
                ..
            } => json!({"project": project, "port": port, "state": state,
                        "heartbeat_age_ms": heartbeat_age_ms, "waited_ms": waited_ms}),
            DiscoveryError::EditorGone { project, reason } => {
                json!({"project": project, "reason": reason})
            }
            DiscoveryError::InvalidPort(p) => json!({"port": p}),
            DiscoveryError::UntrustedHeartbeats { wanted, ignored } => {
                json!({"wanted": wanted, "ignored_heartbeats": ignored})
            }
        }
    }
}

/// Scans and selects, waiting up to `min(timeout, 5 s)` for a matching Editor to appear, and up
/// to the whole `timeout` while the chosen one is there but not listening (`port: 0`, as during
/// a domain reload), re-scanning with back-off 500 ms → 1000 ms → 1500 ms (capped). Terminal
/// errors return at once.
pub async fn discover(
    home: &AgentHome,
    sel: &Selector,
    timeout: Duration,
) -> Result<Instance, DiscoveryError> {
    let started = Instant::now();
    let appear_deadline = started + timeout.min(INITIAL_WAIT_CAP);
    let listen_deadline = started + timeout;
    let mut pause = Duration::from_millis(500);
    loop {
        let attempt = match scan_async(home).await {
            Ok(s) => select(&s, sel),
            Err(e) => Err(e),
        };
        match attempt {
            Ok(i) => return Ok(i),
            Err(e) if e.is_terminal() => return Err(e),
            Err(e) => {
                let now = Instant::now();
                let deadline = match e {
                    DiscoveryError::NotListening { .. } => listen_deadline,
                    _ => appear_deadline,
                };
                if now >= deadline {
                    return Err(e);
                }
                tokio::time::sleep(pause.min(deadline - now)).await;
                pause = (pause * 2).min(Duration::from_millis(1500));
            }
        }
    }
}
