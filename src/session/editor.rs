//! The followed Editor and the catalog view: which Editor we talk to, the catalog we answer
//! from, the one readiness rule, and the heartbeat watch that keeps the view current.
//!
//! Nothing here runs at startup except the watch (when a front-end starts one), which only reads
//! heartbeat files. The first call that needs the Editor finds it; until then (and whenever it is
//! down or reloading) reads of the catalog use the last verified one from the on-disk cache, and
//! a call answers a structured, retryable error that says why (not running, reloading,
//! compiling, busy).
//!
//! # Readiness
//! One rule for every caller: an Editor takes a call when its heartbeat has a port and either
//! an alive state (`ready`, `playing`, `paused`) or a timestamp under a second old, whatever the
//! state says (a compiling Editor whose main loop runs still answers). Otherwise the call waits
//! for a *newer* heartbeat of the same project, bounded by [`SessionOptions::ready_wait`]; the
//! front-ends choose only that bound (see ARCHITECTURE.md, "Person and agent").
//!
//! # Which project
//! The first Editor found by the selection rules (port, project, working directory, newest) is
//! followed across ports and domain reloads. When that Editor goes away (heartbeat removed,
//! `stopped`, or its process dead) and another one is running:
//! - **pinned** (`--port`/`HERA_AGENT_PORT`, `--project`/`HERA_AGENT_PROJECT`, or the server's
//!   working directory inside the followed project): the server stays with it, and calls say
//!   which pinned project is not running and how to change the pin;
//! - **not pinned**: the server selects again by the same rules, answers from the new project's
//!   catalog (cached at once, live when its Editor is ready; native lists announce the change),
//!   and the next tool result says so in `agent_hint`. A call that would change the new project
//!   before the agent has heard of the switch is not sent (`PROJECT_SWITCHED`, retryable).
//!
//! A switch happens only between calls: never while a call is in flight (each call keeps the
//! client and catalog it started with), and a call that waits for a busy Editor never moves to
//! another project halfway.

use super::approval::IssuedApprovals;
use super::error::CallError;
use super::view::{CatalogView, Origin};
use crate::catalog::{self, CatalogCache, CatalogSnapshot};
use crate::connector::{ConnectorClient, ConnectorError};
use crate::discovery::{
    self, AgentHome, AliveEvent, DiscoveryError, Instance, Scan, Selector, now_ms,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// How often the watch re-reads the heartbeat.
pub const WATCH_INTERVAL: Duration = Duration::from_secs(1);
/// The longest a read of the catalog waits for a fresh one before answering from the cache.
pub const READ_REFRESH_WAIT: Duration = Duration::from_secs(5);
/// Pause between scans while waiting for an Editor to appear at all.
const APPEAR_POLL: Duration = Duration::from_millis(500);

/// How a session finds and waits for its Editor.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub project: Option<String>,
    pub port: Option<u16>,
    /// Per request to the Editor, resends after a reload included.
    pub timeout: Duration,
    /// The longest a call waits for a busy Editor (the readiness rule), counted from the call.
    pub ready_wait: Duration,
    /// The longest a call waits for an Editor to appear when none is running yet (0: answer
    /// at once).
    pub appear_wait: Duration,
}

/// The longest a heartbeat scan is reused even when no file changed: the watch scans this often
/// anyway, and a crashed Editor's file (unchanged, but its pid dead) is noticed no later.
const SCAN_REUSE_MAX: Duration = Duration::from_secs(1);
/// A file written this close before a scan may carry the same timestamp as a write just after
/// it (the kernel stamps files from a clock that lags by a few milliseconds).
const MTIME_RACE: Duration = Duration::from_millis(20);
/// The same margin on a file system that stores whole seconds only (no sub-second part).
const COARSE_MTIME_RACE: Duration = Duration::from_secs(2);

/// What a file looked like: any write or replacement changes one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: SystemTime,
    /// The inode on Unix (an atomic replace gives a new one); 0 elsewhere.
    inode: u64,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        Some(FileStamp {
            len: m.len(),
            modified: m.modified().ok()?,
            inode,
        })
    }

    /// Whether a write after `scan_started` could share this stamp (then the stamp proves
    /// nothing about what the scan read).
    fn may_hide_a_later_write(&self, scan_started: SystemTime) -> bool {
        let coarse = self
            .modified
            .duration_since(SystemTime::UNIX_EPOCH)
            .is_ok_and(|d| d.subsec_nanos() == 0);
        let margin = if coarse {
            COARSE_MTIME_RACE
        } else {
            MTIME_RACE
        };
        self.modified + margin >= scan_started
    }
}

/// The last heartbeat scan, reused while the instances directory and every heartbeat file in it
/// are exactly as they were when it was read. Any change (a new heartbeat written every second,
/// a port or epoch change, a file added or removed) makes the next look scan afresh, so a call
/// is never sent to a port the heartbeat no longer announces; reuse only skips re-reading and
/// re-parsing files that did not change.
#[derive(Default)]
struct ScanReuse(Mutex<Option<StampedScan>>);

struct StampedScan {
    scan: Scan,
    at: Instant,
    dir: FileStamp,
    files: Vec<(PathBuf, FileStamp)>,
}

impl ScanReuse {
    fn reuse(&self, dir: &Path) -> Option<Scan> {
        let slot = self.0.lock().expect("scan lock");
        let s = slot.as_ref()?;
        let unchanged = s.at.elapsed() < SCAN_REUSE_MAX
            && FileStamp::of(dir).as_ref() == Some(&s.dir)
            && s.files
                .iter()
                .all(|(p, st)| FileStamp::of(p).as_ref() == Some(st));
        unchanged.then(|| s.scan.clone())
    }

    /// Keeps `scan` for reuse when its files' stamps can vouch for it.
    fn keep(&self, scan: &Scan, started: SystemTime, at: Instant) {
        let stamp = |p: &Path| FileStamp::of(p).filter(|s| !s.may_hide_a_later_write(started));
        let files: Option<Vec<(PathBuf, FileStamp)>> = scan
            .instances
            .iter()
            .map(|i| i.file.as_path())
            .chain(scan.unreadable.iter().map(|(p, _)| p.as_path()))
            .map(|p| stamp(p).map(|s| (p.to_path_buf(), s)))
            .collect();
        let kept = match (stamp(&scan.dir), files) {
            (Some(dir), Some(files)) => Some(StampedScan {
                scan: scan.clone(),
                at,
                dir,
                files,
            }),
            _ => None,
        };
        *self.0.lock().expect("scan lock") = kept;
    }
}

/// Decrements the load counter when dropped.
struct Loading<'a>(&'a AtomicUsize);

impl Drop for Loading<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Decrements the in-flight call counter when dropped.
pub(super) struct InCall<'a>(&'a AtomicUsize);

impl Drop for InCall<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What the heartbeat files say about our Editor right now.
enum Presence {
    /// An active heartbeat (possibly not listening, reloading, compiling…).
    Present(Box<Instance>),
    /// No usable Editor; the envelope says why and what to do.
    Absent(Box<CallError>),
}

impl Presence {
    fn absent(e: CallError) -> Presence {
        Presence::Absent(Box::new(e))
    }
    fn undiscovered(d: DiscoveryError) -> Presence {
        Presence::absent(CallError::from(ConnectorError::Discovery(d)))
    }
}

/// What keeps the server on the followed project when its Editor goes away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    Port(u16),
    Project(String),
    /// The server's working directory is inside the followed project.
    WorkingDirectory(String),
}

impl Pin {
    fn kind(&self) -> &'static str {
        match self {
            Pin::Port(_) => "port",
            Pin::Project(_) => "project",
            Pin::WorkingDirectory(_) => "working_directory",
        }
    }
    /// "pinned to that project by …"
    fn by(&self) -> String {
        match self {
            Pin::Port(p) => format!("--port / HERA_AGENT_PORT {p}"),
            Pin::Project(p) => format!("--project / HERA_AGENT_PROJECT {p:?}"),
            Pin::WorkingDirectory(d) => format!("its working directory ({d}), which is inside it"),
        }
    }
    /// How the user points the server somewhere else.
    fn fix(&self) -> &'static str {
        match self {
            Pin::Port(_) => {
                "change or remove --port / HERA_AGENT_PORT in the MCP server's configuration and restart it"
            }
            Pin::Project(_) => {
                "change or remove --project / HERA_AGENT_PROJECT in the MCP server's configuration and restart it"
            }
            Pin::WorkingDirectory(_) => {
                "start the MCP server from another directory (or give it --project) and restart it"
            }
        }
    }
}

/// A move to another project that the agent has not been told about yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectSwitch {
    pub from: String,
    pub to: String,
}

impl ProjectSwitch {
    /// The sentence the next tool result carries in `agent_hint`.
    pub fn hint(&self) -> String {
        format!(
            "Now connected to the Unity project {} (the Editor for {} is no longer running): \
             results, search and describe come from this project.",
            self.to, self.from
        )
    }
}

fn running_projects(scan: Option<&Scan>) -> Vec<String> {
    let mut out: Vec<String> = scan
        .map(|s| s.active().map(|i| i.project_path.clone()).collect())
        .unwrap_or_default();
    out.sort();
    out.dedup();
    out
}

/// The followed project's Editor is gone and a pin keeps us on it.
fn pinned_not_running(followed: &Instance, pin: &Pin, scan: Option<&Scan>) -> CallError {
    let project = &followed.project_path;
    let running = running_projects(scan);
    let port_owner = scan.and_then(|s| {
        s.active()
            .find(|i| i.port() == followed.port() && i.normalized_path != followed.normalized_path)
            .map(|i| i.project_path.clone())
    });
    let mut message = format!(
        "the Unity Editor for {project} is not running. This server is pinned to that project by \
         {}, so it does not switch to another Editor: open {project} in Unity, or {}",
        pin.by(),
        pin.fix()
    );
    if let Some(owner) = &port_owner {
        message.push_str(&format!(
            ". Port {} now belongs to {owner}",
            followed.port()
        ));
    }
    if !running.is_empty() {
        message.push_str(&format!(". Running now: {}", running.join(", ")));
    }
    let mut data = json!({"project": project, "pinned_by": pin.kind(), "running": running});
    if let Some(owner) = port_owner {
        data["port"] = json!(followed.port());
        data["port_owner"] = json!(owner);
    }
    CallError::unavailable("EDITOR_NOT_RUNNING", "not_running", message, data)
}

/// The followed project's Editor is gone, nothing pins it, and no other Editor can be taken now.
fn followed_not_running(followed: &Instance, scan: Option<&Scan>) -> CallError {
    let project = &followed.project_path;
    let running = running_projects(scan);
    let message = if running.is_empty() {
        format!(
            "the Unity Editor for {project} is not running. Open it (or another project) in \
             Unity: this server connects to the Editor that is running"
        )
    } else {
        format!(
            "the Unity Editor for {project} is not running. Another Editor is running ({}); \
             this server moves to it when no call is in flight, so retry",
            running.join(", ")
        )
    };
    CallError::unavailable(
        "EDITOR_NOT_RUNNING",
        "not_running",
        message,
        json!({"project": project, "running": running}),
    )
}

pub struct Session {
    home: AgentHome,
    selector: Selector,
    timeout: Duration,
    cache: CatalogCache,
    /// Bound once an Editor was found; it then follows that project across ports and reloads.
    client: Mutex<Option<ConnectorClient>>,
    /// The published view. A watch channel rather than a lock so the native tool surface can
    /// react to every publish (list_changed) without polling.
    view: tokio::sync::watch::Sender<Option<Arc<CatalogView>>>,
    /// One catalog fetch at a time; callers that arrive during a fetch reuse its result.
    refresh: tokio::sync::Mutex<()>,
    /// Catalog loads under way (0 or 1). Not the lock's state: a waiter that has been handed
    /// the lock but not yet run would look like a fetch.
    loading: AtomicUsize,
    /// Approvals this session obtained by preflight (renewed after a reload only while unchanged).
    pub(super) issued: IssuedApprovals,
    pub(super) ready_wait: Duration,
    appear_wait: Duration,
    /// Calls under way ([`Session::in_call`]); the followed project changes only at zero.
    calls: AtomicUsize,
    /// A project switch the agent has not been told about yet.
    switched: Mutex<Option<ProjectSwitch>>,
    scans: ScanReuse,
    /// Wakes the heartbeat watch before its next tick ([`Session::look_now`]).
    wake: tokio::sync::Notify,
}

fn state_error(instance: &Instance) -> CallError {
    let project = instance.project_path.clone();
    let state = instance.state().to_string();
    let data = json!({"project": project, "state": state, "port": instance.port()});
    match state.as_str() {
        "reloading" => CallError::unavailable(
            "EDITOR_RELOADING",
            "reloading",
            format!(
                "the Unity Editor for {project} is reloading its scripts (domain reload); retry in a few seconds"
            ),
            data,
        ),
        "compiling" => CallError::unavailable(
            "EDITOR_COMPILING",
            "compiling",
            format!("the Unity Editor for {project} is compiling scripts; retry when it finishes"),
            data,
        ),
        _ if !instance.is_listening() => CallError::unavailable(
            "EDITOR_NOT_READY",
            "loading",
            format!(
                "the Unity Editor for {project} is still loading (not listening yet); retry in a few seconds"
            ),
            data,
        ),
        other => CallError::unavailable(
            "EDITOR_BUSY",
            other,
            format!("the Unity Editor for {project} is busy ({other}); retry in a few seconds"),
            data,
        ),
    }
}

impl Session {
    pub fn new(opts: SessionOptions) -> Session {
        Session::with_home(AgentHome::from_env(), opts)
    }

    pub fn with_home(home: AgentHome, opts: SessionOptions) -> Session {
        Session {
            ready_wait: opts.ready_wait,
            appear_wait: opts.appear_wait,
            cache: CatalogCache::new(&home),
            selector: Selector {
                port: opts.port,
                project: opts.project.filter(|p| !p.trim().is_empty()),
                cwd: std::env::current_dir().ok(),
            },
            home,
            timeout: opts.timeout,
            client: Mutex::new(None),
            view: tokio::sync::watch::Sender::new(None),
            refresh: tokio::sync::Mutex::new(()),
            wake: tokio::sync::Notify::new(),
            loading: AtomicUsize::new(0),
            issued: Default::default(),
            calls: AtomicUsize::new(0),
            switched: Mutex::new(None),
            scans: ScanReuse::default(),
        }
    }

    /// Marks a call in flight until the guard drops: no project switch happens meanwhile
    /// (except the call's own, before it is sent anywhere; see [`Session::ready_for_call`]).
    pub(super) fn in_call(&self) -> InCall<'_> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        InCall(&self.calls)
    }

    /// Whether the followed project may change now: no call in flight besides `own` (the
    /// caller's, when it is one).
    fn may_switch(&self, own: usize) -> bool {
        self.calls.load(Ordering::SeqCst) <= own
    }

    /// The project switch the agent has not heard of, consumed: the caller puts it in the
    /// result it returns.
    pub fn take_switch(&self) -> Option<ProjectSwitch> {
        self.switched.lock().expect("switch lock").take()
    }

    /// Puts a consumed switch back (the result that was to carry it could not).
    pub fn restore_switch(&self, switch: ProjectSwitch) {
        let mut slot = self.switched.lock().expect("switch lock");
        if slot.is_none() {
            *slot = Some(switch);
        }
    }

    /// What keeps the server on `followed` when its Editor is gone: a port or project given
    /// by the user, or the working directory inside it.
    fn pin(&self, followed: &Instance) -> Option<Pin> {
        if let Some(p) = self.selector.port {
            return Some(Pin::Port(p));
        }
        if let Some(p) = &self.selector.project {
            return Some(Pin::Project(p.clone()));
        }
        let cwd = self.selector.cwd.as_ref()?;
        discovery::cwd_within(&followed.normalized_path, cwd)
            .then(|| Pin::WorkingDirectory(cwd.display().to_string()))
    }

    pub fn home(&self) -> &AgentHome {
        &self.home
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The project id of the Editor we follow, else of the catalog we answer from.
    pub fn project_id(&self) -> Option<String> {
        match self.client() {
            Some(c) => Some(c.project_id()),
            None => Some(self.current_view()?.catalog().project_id.clone()),
        }
    }

    /// The view answers come from right now, without contacting anything.
    pub fn current_view(&self) -> Option<Arc<CatalogView>> {
        self.view.borrow().clone()
    }

    fn publish(&self, view: Arc<CatalogView>) {
        self.view.send_replace(Some(view));
    }

    /// Every later publish of a view (a refresh, a cache fallback), for the tool surface.
    pub fn subscribe_views(&self) -> tokio::sync::watch::Receiver<Option<Arc<CatalogView>>> {
        self.view.subscribe()
    }

    /// Whether a catalog load is running right now (native calls answer `CATALOG_STALE`
    /// instead of waiting on a contract that is being replaced).
    pub fn refreshing(&self) -> bool {
        self.loading.load(Ordering::SeqCst) > 0
    }

    /// Marks a catalog load until the returned guard drops (also when the load's future is
    /// dropped by a timeout).
    fn loading(&self) -> Loading<'_> {
        self.loading.fetch_add(1, Ordering::SeqCst);
        Loading(&self.loading)
    }

    fn client(&self) -> Option<ConnectorClient> {
        self.client.lock().expect("client lock").clone()
    }

    /// The heartbeats as they are now: the last scan when no heartbeat file changed since (see
    /// [`ScanReuse`]), else a fresh one.
    async fn scan(&self) -> Result<Scan, DiscoveryError> {
        if let Some(s) = self.scans.reuse(&self.home.instances_dir()) {
            return Ok(s);
        }
        let (started, at) = (SystemTime::now(), Instant::now());
        let scan = discovery::scan_async(&self.home).await?;
        self.scans.keep(&scan, started, at);
        Ok(scan)
    }

    /// Reads the heartbeats once: the followed project if we have one, else the selection rules.
    /// With `may_switch`, an unpinned server whose project's Editor is gone moves to the Editor
    /// the selection rules pick now (see the module doc).
    async fn observe(&self, may_switch: bool) -> Presence {
        // Two passes at most: a second only when another task switched projects under us.
        for _ in 0..2 {
            let Some(client) = self.client() else {
                return self.observe_unbound().await;
            };
            let followed = client.instance();
            let scan = match self.scan().await {
                Ok(s) => s,
                Err(e) => return Presence::undiscovered(e),
            };
            if let Some(i) = discovery::find_project(&scan, &followed.normalized_path) {
                client.update_instance(i.clone());
                return Presence::Present(Box::new(i));
            }
            if let Some(pin) = self.pin(&followed) {
                return Presence::absent(pinned_not_running(&followed, &pin, Some(&scan)));
            }
            if !may_switch {
                return Presence::absent(followed_not_running(&followed, Some(&scan)));
            }
            let next = match discovery::select(&scan, &self.selector) {
                Ok(i) => i,
                // Chosen but still loading: follow it anyway; calls wait or say so.
                Err(DiscoveryError::NotListening { project }) => {
                    match scan.active().find(|i| i.project_path == project) {
                        Some(i) => i.clone(),
                        None => {
                            return Presence::absent(followed_not_running(&followed, Some(&scan)));
                        }
                    }
                }
                Err(_) => return Presence::absent(followed_not_running(&followed, Some(&scan))),
            };
            if self.switch_project(&followed, &next) {
                return Presence::Present(Box::new(next));
            }
        }
        match self.client() {
            Some(c) => Presence::absent(followed_not_running(&c.instance(), None)),
            None => self.observe_unbound().await,
        }
    }

    /// No Editor followed yet: the selection rules, and the chosen one becomes the followed.
    async fn observe_unbound(&self) -> Presence {
        let scan = match self.scan().await {
            Ok(s) => s,
            Err(e) => return Presence::undiscovered(e),
        };
        match discovery::select(&scan, &self.selector) {
            Ok(i) => {
                let mut slot = self.client.lock().expect("client lock");
                if slot.is_none() {
                    *slot = Some(ConnectorClient::new(
                        self.home.clone(),
                        i.clone(),
                        self.timeout,
                    ));
                }
                Presence::Present(Box::new(i))
            }
            Err(DiscoveryError::NotListening { project }) => {
                match scan.active().find(|i| i.project_path == project) {
                    Some(i) => Presence::Present(Box::new(i.clone())),
                    None => Presence::undiscovered(DiscoveryError::NotListening { project }),
                }
            }
            Err(e) => {
                let mut env = CallError::from(ConnectorError::Discovery(e));
                if let Some(fix) = self.selector_fix() {
                    env.message = format!("{}; {fix}", env.message.trim_end_matches('.'));
                }
                Presence::absent(env)
            }
        }
    }

    /// How to point a server that selects by port or project at another Editor, for errors of
    /// the first selection.
    fn selector_fix(&self) -> Option<&'static str> {
        if self.selector.port.is_some() {
            Some(Pin::Port(0).fix())
        } else if self.selector.project.is_some() {
            Some(Pin::Project(String::new()).fix())
        } else {
            None
        }
    }

    /// Follows `next` instead of `gone`, unless another task already replaced `gone`. The new
    /// project's cached catalog (or none) is published at once, so nothing answers from the old
    /// project's catalog; the caller loads the live one when the Editor is ready.
    fn switch_project(&self, gone: &Instance, next: &Instance) -> bool {
        {
            let mut slot = self.client.lock().expect("client lock");
            let current = slot.as_ref().map(|c| c.instance().normalized_path);
            if current.as_deref() != Some(gone.normalized_path.as_str()) {
                return false;
            }
            *slot = Some(ConnectorClient::new(
                self.home.clone(),
                next.clone(),
                self.timeout,
            ));
        }
        tracing::info!(
            from = %gone.project_path,
            to = %next.project_path,
            "the followed Unity Editor is gone; now following another project"
        );
        let view = self
            .cache
            .latest_for_project(&next.project_id())
            .map(|s| Self::view_of(s, Some(next)));
        self.view.send_replace(view);
        let mut pending = self.switched.lock().expect("switch lock");
        // Two switches before the agent heard of either: it still only knows the first `from`.
        let from = pending
            .take()
            .map(|p| p.from)
            .unwrap_or_else(|| gone.project_path.clone());
        *pending = (from != next.project_path).then(|| ProjectSwitch {
            from,
            to: next.project_path.clone(),
        });
        true
    }

    /// The project whose cached catalog to serve when no live one is available.
    fn cached_snapshot(&self, instance: Option<&Instance>) -> Option<CatalogSnapshot> {
        if let Some(i) = instance {
            return self.cache.latest_for_project(&i.project_id());
        }
        if let Some(c) = self.client() {
            return self.cache.latest_for_project(&c.project_id());
        }
        if let Some(p) = &self.selector.project
            && let Some(s) = self
                .cache
                .latest_for_project(&hera_connector_contract::identity::project_id(p))
        {
            return Some(s);
        }
        // No Editor has been seen and none was named: the most recently cached project. The
        // cache keeps one folder per project (named by the project id's hex), newest file first.
        let mut newest: Option<(std::time::SystemTime, CatalogSnapshot)> = None;
        for entry in std::fs::read_dir(self.cache.dir())
            .ok()?
            .flatten()
            .take(256)
        {
            let name = entry.file_name().to_string_lossy().to_string();
            if let Some(s) = self.cache.latest_for_project(&format!("sha256:{name}")) {
                let t = match &s.origin {
                    catalog::CatalogOrigin::Cache { stored_at, .. } => {
                        stored_at.unwrap_or(std::time::UNIX_EPOCH)
                    }
                    catalog::CatalogOrigin::Live => std::time::UNIX_EPOCH,
                };
                if newest.as_ref().is_none_or(|(n, _)| t > *n) {
                    newest = Some((t, s));
                }
            }
        }
        newest.map(|(_, s)| s)
    }

    fn view_of(snapshot: CatalogSnapshot, instance: Option<&Instance>) -> Arc<CatalogView> {
        let current = instance.and_then(Instance::domain_epoch);
        let origin = match (&snapshot.origin, current) {
            (catalog::CatalogOrigin::Live, _) => Origin::Live,
            (_, Some(e)) if e == snapshot.domain_epoch() => Origin::Live,
            _ => Origin::Cached,
        };
        Arc::new(CatalogView::new(snapshot, origin))
    }

    /// Makes the published view match `instance`'s domain epoch, fetching (or reading the exact
    /// cache entry) when it does not. Concurrent callers share one fetch.
    async fn refresh(&self, instance: &Instance) -> Result<Arc<CatalogView>, ConnectorError> {
        let fresh = |v: &Arc<CatalogView>| {
            v.origin == Origin::Live
                && v.catalog().project_id == instance.project_id()
                && instance
                    .domain_epoch()
                    .is_none_or(|e| e == v.snapshot.domain_epoch())
        };
        if let Some(v) = self.current_view().filter(fresh) {
            return Ok(v);
        }
        let _guard = self.refresh.lock().await;
        if let Some(v) = self.current_view().filter(fresh) {
            return Ok(v);
        }
        let client = match self.client() {
            Some(c) => {
                if !c.update_instance(instance.clone()) {
                    // The followed project changed while this request waited for the lock.
                    return Err(ConnectorError::Discovery(DiscoveryError::ProjectNotFound {
                        query: instance.project_path.clone(),
                        available: Vec::new(),
                    }));
                }
                c
            }
            None => {
                let c = ConnectorClient::new(self.home.clone(), instance.clone(), self.timeout);
                *self.client.lock().expect("client lock") = Some(c.clone());
                c
            }
        };
        let loading = self.loading();
        tracing::debug!(epoch = ?instance.domain_epoch(), "loading the tool catalog");
        let snapshot = catalog::load(&client, Some(&self.cache)).await?;
        let view = Self::view_of(snapshot, Some(&client.instance()));
        tracing::info!(
            catalog_hash = view.snapshot.catalog_hash(),
            domain_epoch = view.snapshot.domain_epoch(),
            "tool catalog loaded"
        );
        // Done loading before anyone can see the new view, so a call that reacts to it (say,
        // after the list_changed it causes) never finds a load under way.
        drop(loading);
        self.publish(view.clone());
        Ok(view)
    }

    /// Fetches the catalog from the Editor whatever the cache holds for this epoch (used when the
    /// Connector reports `CATALOG_STALE`: the contract changed without a reload), then stores it.
    pub(super) async fn reload_catalog(
        &self,
        client: &ConnectorClient,
    ) -> Result<Arc<CatalogView>, ConnectorError> {
        let _guard = self.refresh.lock().await;
        let loading = self.loading();
        // Fetched whatever the cache holds, then stored (a failed store is logged there).
        let snapshot = catalog::refresh(client, Some(&self.cache)).await?;
        let view = Self::view_of(snapshot, Some(&client.instance()));
        drop(loading);
        // Only the followed project's catalog is published.
        let followed = self
            .client()
            .is_some_and(|c| c.instance().normalized_path == client.instance().normalized_path);
        if followed {
            self.publish(view.clone());
        }
        Ok(view)
    }

    /// The catalog for search and describe: live when the Editor answers within a short wait,
    /// else the last cached one. Never blocks longer than [`READ_REFRESH_WAIT`].
    pub async fn view_for_reading(&self) -> Result<Arc<CatalogView>, CallError> {
        let presence = self.observe(self.may_switch(0)).await;
        let instance = match &presence {
            Presence::Present(i) => Some(i.as_ref()),
            Presence::Absent(_) => None,
        };
        let mut failure = None;
        if let Some(i) = instance.filter(|i| discovery::is_alive_now(i, now_ms())) {
            match tokio::time::timeout(READ_REFRESH_WAIT, self.refresh(i)).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(e)) => {
                    tracing::warn!("catalog refresh failed: {e}");
                    failure = Some(CallError::from(&e));
                }
                Err(_) => {
                    tracing::warn!("catalog refresh is slow; answering from the cache");
                    failure = Some(CallError::unavailable(
                        "CATALOG_UNAVAILABLE",
                        "catalog_slow",
                        format!(
                            "the Unity Editor for {} did not deliver its tool catalog within {} s",
                            i.project_path,
                            READ_REFRESH_WAIT.as_secs()
                        ),
                        json!({"project": i.project_path, "port": i.port()}),
                    ));
                }
            }
        }
        if let Some(v) = self.current_view() {
            // Not confirmed by the Editor just now: say it comes from the cache.
            if v.origin == Origin::Cached {
                return Ok(v);
            }
            let cached = Arc::new(CatalogView::new(v.snapshot.clone(), Origin::Cached));
            self.publish(cached.clone());
            return Ok(cached);
        }
        if let Some(s) = self.cached_snapshot(instance) {
            let v = Self::view_of(s, instance);
            self.publish(v.clone());
            return Ok(v);
        }
        const NO_CACHE: &str = "No tool catalog is cached yet: search and describe work offline \
                                only after the Editor has been reached once";
        let mut e = match (failure, presence) {
            (Some(f), _) => f,
            (None, Presence::Present(i)) => state_error(&i),
            (None, Presence::Absent(e)) => *e,
        };
        e.message = format!("{}. {NO_CACHE}", e.message.trim_end_matches('.'));
        Err(e)
    }

    /// An Editor ready for a call (see "Readiness" in the module doc), with a catalog of its
    /// current domain. When no Editor runs yet, waits up to the session's `appear_wait` for one.
    ///
    /// `own_calls` is how many in-flight calls are the caller's own (1 inside a call): only the
    /// first look may move to another project, and only when no other call is in flight; a call
    /// that waits for a busy Editor stays with its project.
    pub async fn ready_for_call(
        &self,
        own_calls: usize,
        watch: &(dyn Fn(AliveEvent<'_>) + Send + Sync),
    ) -> Result<(ConnectorClient, Arc<CatalogView>), CallError> {
        let started = Instant::now();
        let appear_until = started + self.appear_wait.min(self.timeout);
        let ready_until = started + self.ready_wait;
        let mut may_switch = self.may_switch(own_calls);
        let mut pause = APPEAR_POLL;
        // Bounded: one scan per pause (>= 500 ms) until `appear_until`.
        let seen = loop {
            let presence = self.observe(may_switch).await;
            may_switch = false;
            match presence {
                Presence::Present(i) => break *i,
                Presence::Absent(e) => {
                    let now = Instant::now();
                    if now >= appear_until || !e.retryable || self.client().is_some() {
                        return Err(*e);
                    }
                    tokio::time::sleep(pause.min(appear_until - now)).await;
                    pause = (pause * 2).min(discovery::ALIVE_POLL_CAP);
                }
            }
        };
        let instance = if discovery::is_alive_now(&seen, now_ms()) {
            seen
        } else {
            match discovery::wait_for_alive_observed(&self.home, &seen, ready_until, watch).await {
                Ok(fresh) => {
                    if let Some(c) = self.client() {
                        c.update_instance(fresh.clone());
                    } else if let Some(port) = self.selector.port
                        && fresh.port() != port
                    {
                        // A `port: 0` heartbeat was waited for as the pinned port's Editor
                        // (see `discovery::select`); it came back listening elsewhere.
                        return Err(CallError::from(ConnectorError::Discovery(
                            DiscoveryError::NoInstanceOnPort { port },
                        )));
                    }
                    fresh
                }
                Err(e) => {
                    let mut err = CallError::from(ConnectorError::Discovery(e));
                    // The state is the reason an agent can act on (reloading, compiling...).
                    if let Some(state) = err.data.get("state").cloned() {
                        err.data["reason"] = state;
                    }
                    return Err(err);
                }
            }
        };
        let view = match self.refresh(&instance).await {
            Ok(v) => v,
            Err(e) => return Err(CallError::from(&e)),
        };
        let client = self
            .client()
            .expect("refresh binds a client before it succeeds");
        Ok((client, view))
    }

    /// Polls the heartbeat every second for the life of the server and refreshes the catalog
    /// when the Editor appears or its domain epoch changes, so reads stay current without
    /// waiting. Each pass is one directory scan; nothing is fetched while the epoch is unchanged.
    /// Has the heartbeat watch look now instead of at its next tick: a client that has just
    /// initialized will search or call soon, so its catalog is loaded meanwhile. Nothing is
    /// contacted before a client says it is there.
    pub fn look_now(&self) {
        self.wake.notify_one();
    }

    pub fn start_watch(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(WATCH_INTERVAL) => {}
                    _ = self.wake.notified() => {}
                }
                let Presence::Present(i) = self.observe(self.may_switch(0)).await else {
                    continue;
                };
                if !discovery::is_alive_now(&i, now_ms()) {
                    continue;
                }
                let stale = self.current_view().is_none_or(|v| {
                    v.origin != Origin::Live
                        || v.catalog().project_id != i.project_id()
                        || i.domain_epoch()
                            .is_some_and(|e| e != v.snapshot.domain_epoch())
                });
                if stale && let Err(e) = self.refresh(&i).await {
                    tracing::debug!("background catalog refresh failed: {e}");
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hera_connector_contract::wire::Heartbeat;
    use std::path::PathBuf;

    fn instance(project: &str, port: u16, state: &str) -> Instance {
        let hb = Heartbeat {
            state: Some(state.into()),
            project_path: Some(project.into()),
            port,
            pid: None,
            unity_version: None,
            docs_version: None,
            compiler: None,
            domain_epoch: None,
            features: None,
            timestamp: Some(100),
            compile_errors: None,
        };
        Instance::from_heartbeat(hb, PathBuf::from(format!("{port}.json")))
    }

    #[test]
    fn a_pinned_error_names_the_project_the_pin_its_fix_and_what_runs() {
        let gone = instance("/work/Alpha", 8090, "stopped");
        let scan = Scan {
            dir: PathBuf::from("/h/.hera-agent-unity/instances"),
            instances: vec![gone.clone(), instance("/work/Beta", 8090, "ready")],
            ..Default::default()
        };
        let e = pinned_not_running(
            &gone,
            &Pin::WorkingDirectory("/work/Alpha/Assets".into()),
            Some(&scan),
        );
        assert_eq!(e.code, "EDITOR_NOT_RUNNING");
        for part in [
            "/work/Alpha is not running",
            "working directory (/work/Alpha/Assets)",
            "start the MCP server from another directory",
            "Port 8090 now belongs to /work/Beta",
            "Running now: /work/Beta",
        ] {
            assert!(e.message.contains(part), "{part:?}: {}", e.message);
        }
        let data = e.data;
        assert_eq!(data["pinned_by"], "working_directory");
        assert_eq!(data["port_owner"], "/work/Beta");
        assert_eq!(data["retryable"], true);

        let e = followed_not_running(&gone, None);
        assert!(
            e.message.contains("Open it (or another project)"),
            "{}",
            e.message
        );
        let hint = ProjectSwitch {
            from: "/work/Alpha".into(),
            to: "/work/Beta".into(),
        }
        .hint();
        assert!(
            hint.starts_with("Now connected to the Unity project /work/Beta"),
            "{hint}"
        );
    }

    /// A heartbeat file and its directory, both stamped an hour ago (well before any scan).
    fn heartbeat_dir() -> (tempfile::TempDir, PathBuf, Scan) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("instances");
        std::fs::create_dir(&dir).unwrap();
        let file = dir.join("8090.json");
        std::fs::write(&file, r#"{"port":8090}"#).unwrap();
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        backdate(&file, hour_ago);
        backdate(&dir, hour_ago);
        let mut i = instance("/work/Alpha", 8090, "ready");
        i.file = file.clone();
        let scan = Scan {
            dir: dir.clone(),
            instances: vec![i],
            ..Default::default()
        };
        (tmp, file, scan)
    }

    fn backdate(path: &Path, to: SystemTime) {
        std::fs::File::open(path).unwrap().set_modified(to).unwrap();
    }

    #[test]
    fn an_unchanged_heartbeat_scan_is_reused_and_any_change_forces_a_fresh_one() {
        let (_tmp, file, scan) = heartbeat_dir();
        let reuse = ScanReuse::default();
        reuse.keep(&scan, SystemTime::now(), Instant::now());
        let again = reuse.reuse(&scan.dir).expect("nothing changed: reused");
        assert_eq!(again.instances, scan.instances);

        // Rewritten in place (same inode): the new time and length show it.
        std::fs::write(&file, r#"{"port":8091 }"#).unwrap();
        assert!(reuse.reuse(&scan.dir).is_none(), "a rewritten heartbeat");

        let (_tmp, _file, scan) = heartbeat_dir();
        reuse.keep(&scan, SystemTime::now(), Instant::now());
        std::fs::write(scan.dir.join("8091.json"), "{}").unwrap();
        assert!(reuse.reuse(&scan.dir).is_none(), "a new heartbeat file");

        let (_tmp, file, scan) = heartbeat_dir();
        reuse.keep(&scan, SystemTime::now(), Instant::now());
        std::fs::remove_file(&file).unwrap();
        assert!(reuse.reuse(&scan.dir).is_none(), "a removed heartbeat file");
    }

    #[test]
    fn a_scan_that_raced_a_write_or_grew_old_is_not_reused() {
        let (_tmp, file, scan) = heartbeat_dir();
        let reuse = ScanReuse::default();
        // The file was written just as the scan started: what was read cannot be vouched for.
        let started = SystemTime::now();
        backdate(&file, started - Duration::from_millis(5));
        reuse.keep(&scan, started, Instant::now());
        assert!(reuse.reuse(&scan.dir).is_none(), "written as the scan ran");

        let (_tmp, _file, scan) = heartbeat_dir();
        reuse.keep(&scan, SystemTime::now(), Instant::now() - SCAN_REUSE_MAX);
        assert!(
            reuse.reuse(&scan.dir).is_none(),
            "older than the reuse bound"
        );

        // A whole-second timestamp (a coarse file system) needs two seconds of margin.
        let coarse = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let stamp = FileStamp {
            len: 1,
            modified: coarse,
            inode: 1,
        };
        assert!(stamp.may_hide_a_later_write(coarse + Duration::from_millis(1500)));
        assert!(!stamp.may_hide_a_later_write(coarse + Duration::from_secs(3)));
    }
}
