//! Watching one project's heartbeat for the changes that matter to a long-lived client:
//! a new domain epoch (the catalog and approval secret were reset), a new port, new features,
//! a restarted or vanished Editor. The MCP server polls this; the CLI does not need it.

use super::home::AgentHome;
use super::instance::{Instance, scan};
use super::select::find_project;

/// Follows one project (by normalized path) across scans.
#[derive(Debug, Clone)]
pub struct ProjectWatch {
    home: AgentHome,
    normalized_path: String,
    last: Option<Instance>,
}

/// What changed between two polls. `before`/`after` are `None` while no active heartbeat exists.
#[derive(Debug, Clone)]
pub struct ProjectChange {
    pub before: Option<Instance>,
    pub after: Option<Instance>,
}

impl ProjectChange {
    pub fn epoch_changed(&self) -> bool {
        self.before.as_ref().and_then(|i| i.domain_epoch())
            != self.after.as_ref().and_then(|i| i.domain_epoch())
    }
    pub fn port_changed(&self) -> bool {
        self.before.as_ref().map(Instance::port) != self.after.as_ref().map(Instance::port)
    }
    pub fn features_changed(&self) -> bool {
        self.before.as_ref().map(|i| &i.heartbeat.features)
            != self.after.as_ref().map(|i| &i.heartbeat.features)
    }
    /// Same project, different Editor process.
    pub fn restarted(&self) -> bool {
        matches!((&self.before, &self.after), (Some(b), Some(a)) if b.pid() != a.pid())
    }
    pub fn gone(&self) -> bool {
        self.before.is_some() && self.after.is_none()
    }
    pub fn came_back(&self) -> bool {
        self.before.is_none() && self.after.is_some()
    }
}

impl ProjectWatch {
    /// Starts from `instance` as the known state.
    pub fn new(home: AgentHome, instance: &Instance) -> ProjectWatch {
        ProjectWatch {
            home,
            normalized_path: instance.normalized_path.clone(),
            last: Some(instance.clone()),
        }
    }
    pub fn current(&self) -> Option<&Instance> {
        self.last.as_ref()
    }
    pub fn normalized_path(&self) -> &str {
        &self.normalized_path
    }

    /// One fresh scan (blocking). Returns the change when epoch, port, pid, features or presence
    /// differ from the previous poll; a timestamp-only refresh is not a change.
    pub fn poll(&mut self) -> Option<ProjectChange> {
        let now = scan(&self.home)
            .ok()
            .and_then(|s| find_project(&s, &self.normalized_path));
        let change = ProjectChange {
            before: self.last.clone(),
            after: now.clone(),
        };
        self.last = now;
        let differs = change.epoch_changed()
            || change.port_changed()
            || change.features_changed()
            || change.restarted()
            || change.gone()
            || change.came_back();
        differs.then_some(change)
    }

    /// [`ProjectWatch::poll`] on the blocking pool.
    pub async fn poll_async(&mut self) -> Option<ProjectChange> {
        let mut me = self.clone();
        let (me, change) = tokio::task::spawn_blocking(move || {
            let c = me.poll();
            (me, c)
        })
        .await
        .ok()?;
        *self = me;
        change
    }
}
