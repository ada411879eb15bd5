//! Fault injection (§12.7): the ways a real Editor misbehaves, on demand and one request at a
//! time.
//!
//! A fault is armed with a [`FaultMatch`] (which requests it hits) and a count; each matching
//! request consumes one use, and the fault disappears when its count is spent. Catalog faults
//! (`CatalogExtraField`, `CatalogBadHash`, `CatalogHashChange`) change what the Editor publishes
//! and last until [`crate::Simulator::clear_faults`].
//!
//! Why the default match skips `list`: a client fetches the catalog before its first tool call,
//! and a reset meant for `scene save` must not be eaten by that fetch.

use serde::{Deserialize, Serialize};

/// One misbehaviour. `times` is how many matching requests it hits (at least 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// Finish the command (handler ran, ledger committed) and hold the Editor's main thread
    /// (the command lock) for `ms` before writing the response: client timeouts, lock waits.
    /// Armed with `FaultMatch::tool("list")`, it delays the catalog fetch instead.
    Delay { ms: u64, times: u32 },
    /// Reach `running` and never finish: the handler is an awaited task that never completes,
    /// and the router keeps the command lock while it waits, so every later command waits the
    /// lock wait and gets `COMMAND_LOCK_TIMEOUT`. The end of the domain (a reload or quit)
    /// frees the lock and drops the connection; the record stays `running` in the old epoch.
    Hang { times: u32 },
    /// The handler runs (its side effect happens) but its result cannot be serialized. With the
    /// ledger the commit throws: `INTERNAL_ERROR` after execution, the record stays `running`
    /// (a retry with the same id gets `OPERATION_IN_PROGRESS`). Without it the write fails:
    /// HTTP 500 `RESPONSE_WRITE_FAILED`.
    UnserializableResult { times: u32 },
    /// Drop the connection (TCP reset) after reading the request, before anything runs.
    ResetBeforeExecute { times: u32 },
    /// Run and commit the command, then reset the connection instead of answering.
    ResetAfterExecute { times: u32 },
    /// Run and commit, drop the connection, then go through a domain reload.
    ReloadAfterCommit { downtime_ms: u64, new_port: bool },
    /// Start the handler (its side effect happens), then reload before the commit: the record
    /// stays `running` in the old epoch, so a retry gets `OPERATION_OUTCOME_UNKNOWN`.
    ReloadWhileRunning { downtime_ms: u64, new_port: bool },
    /// `200` with `Content-Length: 0` (Mono's reload artefact); nothing runs.
    Empty200 { times: u32 },
    /// `200` with a body that is not JSON; nothing runs.
    NonJson200 { times: u32 },
    /// A non-200 status with a JSON envelope (with `code` when given, without it otherwise);
    /// nothing runs.
    Status {
        status: u16,
        code: Option<String>,
        times: u32,
    },
    /// A `200` body one byte over the client's 50 MiB limit; nothing runs.
    Oversized { times: u32 },
    /// Answer `COMMAND_LOCK_TIMEOUT` at once, as if the lock wait had run out (a shortcut: the
    /// real answer takes the whole lock wait, 120 s; a `Hang` with a short
    /// [`crate::SimConfig::lock_wait`] shows the real timing).
    LockTimeout { times: u32 },
    /// Reload onto a new port, and make another project's heartbeat claim the old one.
    PortTakenByOtherProject,
    /// Change the live catalog (and so its hash) once; clients holding the old hash get
    /// `CATALOG_STALE`.
    CatalogHashChange,
    /// The next `times` catalog fetches carry a `domain_epoch` that is not the heartbeat's.
    EpochMismatch { times: u32 },
    /// Published catalogs carry an unknown field in a tool entry (a strict reader rejects it;
    /// the hash is still right).
    CatalogExtraField,
    /// Published catalogs carry a wrong `catalog_hash`.
    CatalogBadHash,
}

/// Which requests a fault hits.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FaultMatch {
    /// Request path; `None` = `/command`.
    #[serde(default)]
    pub path: Option<String>,
    /// `/command` tool name; `None` = any tool except `list`.
    #[serde(default)]
    pub command: Option<String>,
}

impl FaultMatch {
    /// Any `/command` except the catalog fetch (the default).
    pub fn command() -> FaultMatch {
        FaultMatch::default()
    }
    /// Only `/command` calls of `tool` (use `"list"` to hit catalog fetches).
    pub fn tool(tool: &str) -> FaultMatch {
        FaultMatch {
            path: None,
            command: Some(tool.to_string()),
        }
    }
    /// Any request on `path` (`/commands`, `/approval/preflight`, `/command`).
    pub fn path(path: &str) -> FaultMatch {
        FaultMatch {
            path: Some(path.to_string()),
            command: None,
        }
    }

    fn hits(&self, path: &str, command: Option<&str>) -> bool {
        let want_path = self.path.as_deref().unwrap_or("/command");
        if want_path != path {
            return false;
        }
        match (&self.command, command) {
            (Some(want), Some(got)) => want == got,
            (Some(_), None) => false,
            (None, Some(got)) => !(path == "/command" && self.path.is_none() && got == "list"),
            (None, None) => true,
        }
    }
}

#[derive(Debug, Clone)]
struct Armed {
    fault: Fault,
    matcher: FaultMatch,
    left: u32,
}

/// Request-level faults that change how a request is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// Faults decided before the pipeline runs (nothing executes).
    Ingress,
    /// Faults that act at the command lock.
    Lock,
    /// Faults that act around the handler.
    Execution,
}

impl Fault {
    fn kind(&self) -> Option<FaultKind> {
        Some(match self {
            Fault::ResetBeforeExecute { .. }
            | Fault::Empty200 { .. }
            | Fault::NonJson200 { .. }
            | Fault::Status { .. }
            | Fault::Oversized { .. } => FaultKind::Ingress,
            Fault::LockTimeout { .. } => FaultKind::Lock,
            Fault::Delay { .. }
            | Fault::Hang { .. }
            | Fault::UnserializableResult { .. }
            | Fault::ResetAfterExecute { .. }
            | Fault::ReloadAfterCommit { .. }
            | Fault::ReloadWhileRunning { .. } => FaultKind::Execution,
            _ => return None,
        })
    }

    fn times(&self) -> u32 {
        let t = match self {
            Fault::Delay { times, .. }
            | Fault::Hang { times }
            | Fault::UnserializableResult { times }
            | Fault::ResetBeforeExecute { times }
            | Fault::ResetAfterExecute { times }
            | Fault::Empty200 { times }
            | Fault::NonJson200 { times }
            | Fault::Status { times, .. }
            | Fault::Oversized { times }
            | Fault::LockTimeout { times }
            | Fault::EpochMismatch { times } => *times,
            _ => 1,
        };
        t.max(1)
    }
}

/// Lasting changes to the published catalog.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CatalogFaults {
    pub extra_field: bool,
    pub bad_hash: bool,
}

/// The armed faults of one simulator.
#[derive(Debug, Default)]
pub struct FaultBook {
    armed: Vec<Armed>,
    epoch_mismatch_left: u32,
    catalog: CatalogFaults,
}

impl FaultBook {
    /// Arms a request fault, or records a lasting catalog fault. Returns the faults that must
    /// act immediately (`PortTakenByOtherProject`, `CatalogHashChange`) for the caller to run.
    pub fn arm(&mut self, fault: Fault, matcher: FaultMatch) -> Option<Fault> {
        match &fault {
            Fault::EpochMismatch { .. } => self.epoch_mismatch_left += fault.times(),
            Fault::CatalogExtraField => self.catalog.extra_field = true,
            Fault::CatalogBadHash => self.catalog.bad_hash = true,
            Fault::PortTakenByOtherProject | Fault::CatalogHashChange => return Some(fault),
            _ => self.armed.push(Armed {
                left: fault.times(),
                fault,
                matcher,
            }),
        }
        None
    }

    pub fn clear(&mut self) {
        *self = FaultBook::default();
    }

    /// Takes one use of the first armed fault of `kind` that matches the request.
    pub fn take(&mut self, kind: FaultKind, path: &str, command: Option<&str>) -> Option<Fault> {
        let i = self
            .armed
            .iter()
            .position(|a| a.fault.kind() == Some(kind) && a.matcher.hits(path, command))?;
        let fault = self.armed[i].fault.clone();
        self.armed[i].left -= 1;
        if self.armed[i].left == 0 {
            self.armed.remove(i);
        }
        Some(fault)
    }

    /// Whether this catalog fetch should carry a wrong epoch (consumes one use).
    pub fn take_epoch_mismatch(&mut self) -> bool {
        if self.epoch_mismatch_left > 0 {
            self.epoch_mismatch_left -= 1;
            true
        } else {
            false
        }
    }

    pub fn catalog(&self) -> CatalogFaults {
        self.catalog
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_matching() {
        let mut b = FaultBook::default();
        b.arm(
            Fault::ResetBeforeExecute { times: 2 },
            FaultMatch::command(),
        );
        assert_eq!(b.take(FaultKind::Ingress, "/command", Some("list")), None);
        assert!(
            b.take(FaultKind::Ingress, "/command", Some("scene"))
                .is_some()
        );
        assert_eq!(
            b.take(FaultKind::Execution, "/command", Some("scene")),
            None
        );
        assert!(
            b.take(FaultKind::Ingress, "/command", Some("scene"))
                .is_some()
        );
        assert_eq!(b.take(FaultKind::Ingress, "/command", Some("scene")), None);
        b.arm(Fault::Empty200 { times: 1 }, FaultMatch::tool("list"));
        assert!(
            b.take(FaultKind::Ingress, "/command", Some("scene"))
                .is_none()
        );
        assert!(
            b.take(FaultKind::Ingress, "/command", Some("list"))
                .is_some()
        );
        b.arm(Fault::Empty200 { times: 1 }, FaultMatch::path("/commands"));
        assert!(
            b.take(FaultKind::Ingress, "/command", Some("scene"))
                .is_none()
        );
        assert!(b.take(FaultKind::Ingress, "/commands", None).is_some());
    }
}
