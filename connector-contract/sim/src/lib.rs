//! A reference Unity Editor for tests: the AgentConnector's wire behaviour (heartbeat files,
//! the loopback HTTP API, catalog, approval, operation ledger, file bus) over an in-memory
//! Editor model, with a knob or fault for every way a real Editor can surprise a client
//! (README: What a real Editor does that a client must survive).
//!
//! # Layout
//! - [`Simulator`] / [`SimConfig`] (this file): start, control, observe, stop.
//! - `connector`: the simulated Connector's state and lifecycle (listen, domain reload, quit).
//! - [`heartbeat`]: the instances file and its knobs.
//! - `http`: the listener and the ingress rules (§2.2, §2.3).
//! - `pipeline`: `/command` in the Connector's order (§2.5); `list`: the catalog fetch and the
//!   older list forms; `batch`: `/commands`; `preflight`: `/approval/preflight`.
//! - `approval`: per-domain HMAC tokens; `ledger`: the operation ledger on disk (§6).
//! - [`envelope`]: response bodies in the Connector's key order.
//! - [`faults`]: fault injection; [`control`]: the loopback control endpoint.
//! - [`catalog`]: the 34 built-in tools and the validator; [`editor`]: the Editor model and the
//!   tool handlers; `editor_glue`/`handlers`: the seam between the core and the model.
//! - `clock`: simulated time for token expiry and ledger ages.
//!
//! # Runtimes
//! [`Simulator::start`] runs on the caller's tokio runtime: use it from async code that never
//! blocks its thread (on a current-thread runtime, a blocking call such as
//! `std::process::Command::output` or a `std::net` request would starve the simulator).
//! [`Simulator::start_background`] brings its own two-thread runtime: use it from plain
//! `#[test]` functions and anything that blocks. All control methods are synchronous and safe
//! to call from either.

mod approval;
mod batch;
pub mod catalog;
mod clock;
mod connector;
pub mod control;
pub mod editor;
mod editor_glue;
pub mod envelope;
pub mod faults;
mod handlers;
pub mod heartbeat;
mod http;
mod ledger;
mod list;
mod pipeline;
mod preflight;

pub use catalog::ToolSet;
pub use connector::{PortChoice, Quirks};
pub use faults::{Fault, FaultMatch};
pub use hera_connector_contract::catalog::ToolEntry;
pub use ledger::Entry as LedgerEntry;

use connector::{Connector, Settings};
use heartbeat::HeartbeatFile;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How to start a simulator. [`SimConfig::new`] gives test defaults: an OS-assigned port,
/// all six features, this process's pid, 120 s lock wait, 64 MiB ledger cap.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// The fake HOME: heartbeats go to `home/.hera-agent-unity/instances`, the file bus and the
    /// ledger to `home/.hera-agent-unity/status`.
    pub home: PathBuf,
    /// The project root exactly as the heartbeat publishes it (never canonicalized).
    pub project_path: String,
    pub port: PortChoice,
    /// Heartbeat features (default: all six, in order).
    pub features: Vec<String>,
    /// An older Connector: no features or epoch, `list` names/tool forms only, `meta` ignored,
    /// no preflight endpoint, no ledger.
    pub legacy: bool,
    /// The pid the heartbeat reports (default: this process).
    pub pid: Option<i64>,
    /// Serve the control endpoint on this loopback port (0 = OS-assigned).
    pub control_port: Option<u16>,
    /// Command-lock wait before `COMMAND_LOCK_TIMEOUT` (Unity: 120 s).
    pub lock_wait: Duration,
    /// Ledger size cap per project (Unity: 64 MiB).
    pub ledger_cap_bytes: u64,
    /// How long reloads the Editor itself asks for (package change, compile) keep it down.
    pub reload_downtime: Duration,
    /// The tools served (default: the 34 built-ins).
    pub tools: Option<ToolSet>,
    /// Orders and environment facts the Connector leaves to the Editor (time zone, reload and
    /// quit order, 413 draining, heartbeat timing after a reload); see [`Quirks`].
    pub quirks: Quirks,
}

impl SimConfig {
    pub fn new(home: impl Into<PathBuf>, project_path: impl Into<String>) -> SimConfig {
        SimConfig {
            home: home.into(),
            project_path: project_path.into(),
            port: PortChoice::Ephemeral,
            features: hera_connector_contract::wire::ALL_FEATURES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            legacy: false,
            pid: None,
            control_port: None,
            lock_wait: Duration::from_secs(120),
            ledger_cap_bytes: ledger::DEFAULT_CAP_BYTES,
            reload_downtime: Duration::from_millis(500),
            tools: None,
            quirks: Quirks::default(),
        }
    }
}

/// A domain reload (§2.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reload {
    /// How long the listener stays down.
    pub downtime: Duration,
    /// Come back on a different port (as when Unity finds its old port taken).
    pub new_port: bool,
}

impl Default for Reload {
    fn default() -> Self {
        Reload {
            downtime: Duration::from_millis(500),
            new_port: false,
        }
    }
}

/// Stops everything when the last [`Simulator`] handle is dropped.
pub(crate) struct Life {
    connector: Arc<Connector>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    control: std::sync::Mutex<Option<control::ControlServer>>,
    runtime_stop: Option<std::sync::mpsc::Sender<()>>,
}

impl Life {
    fn close_control(&self) {
        if let Some(c) = self.control.lock().expect("control slot").as_ref() {
            c.close();
        }
    }
}

impl Drop for Life {
    fn drop(&mut self) {
        self.connector.shutdown();
        self.close_control();
        for t in &self.tasks {
            t.abort();
        }
        if let Some(stop) = self.runtime_stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A running simulated Editor. Cheap to clone; the Editor quits (writes a `stopped`
/// heartbeat) when the last clone is dropped or [`Simulator::shutdown`] is called.
#[derive(Clone)]
pub struct Simulator {
    pub(crate) c: Arc<Connector>,
    pub(crate) life: Arc<Life>,
}

impl Simulator {
    /// Starts on the caller's tokio runtime: binds, writes the heartbeat, starts the update loop.
    pub async fn start(cfg: SimConfig) -> io::Result<Simulator> {
        Self::start_on(cfg, tokio::runtime::Handle::current(), None)
    }

    /// Starts on a runtime of its own (2 worker threads), for synchronous callers.
    pub fn start_background(cfg: SimConfig) -> io::Result<Simulator> {
        let (handle_tx, handle_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("hera-connector-sim".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = handle_tx.send(Err(e));
                        return;
                    }
                };
                let _ = handle_tx.send(Ok(rt.handle().clone()));
                // Parks until the simulator is dropped (or every sender is gone).
                let _ = stop_rx.recv();
                rt.shutdown_timeout(Duration::from_secs(1));
            })?;
        let handle = handle_rx
            .recv()
            .map_err(|_| io::Error::other("the simulator runtime thread died"))??;
        let (tx, rx) = std::sync::mpsc::channel();
        let cfg_handle = handle.clone();
        let stop = stop_tx.clone();
        handle.spawn(async move {
            let _ = tx.send(Self::start_on(cfg, cfg_handle, Some(stop)));
        });
        let sim = rx
            .recv()
            .map_err(|_| io::Error::other("the simulator failed to start"))?;
        drop(stop_tx);
        sim
    }

    fn start_on(
        cfg: SimConfig,
        runtime: tokio::runtime::Handle,
        runtime_stop: Option<std::sync::mpsc::Sender<()>>,
    ) -> io::Result<Simulator> {
        let _enter = runtime.enter();
        let project_id = hera_connector_contract::identity::project_id(&cfg.project_path);
        let knobs = HeartbeatFile::default_knobs(Some(cfg.features.clone()), cfg.legacy, cfg.pid);
        let heartbeat = HeartbeatFile::new(&cfg.home, &cfg.project_path, knobs);
        let editor = editor::Editor::new(&cfg.project_path);
        let settings = Settings {
            home: cfg.home.clone(),
            project_path: cfg.project_path.clone(),
            project_id,
            port_choice: cfg.port,
            lock_wait: cfg.lock_wait,
        };
        let c = Arc::new(Connector::new(
            settings,
            heartbeat,
            cfg.ledger_cap_bytes,
            cfg.tools.unwrap_or_else(ToolSet::builtin),
            editor,
            cfg.reload_downtime,
            cfg.legacy,
            runtime.clone(),
        ));
        *c.quirks.lock().expect("quirks") = cfg.quirks;
        c.sync_tools_with_editor();
        c.listen(None, None)?;
        let loop_c = c.clone();
        let beat = runtime.spawn(async move {
            let mut interval = tokio::time::interval(Duration::from_millis(100));
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut n: u64 = 0;
            loop {
                interval.tick().await;
                loop_c.update();
                if n.is_multiple_of(10)
                    && let Err(e) = loop_c.heartbeat.tick()
                {
                    tracing::warn!("heartbeat write failed: {e}");
                }
                n = n.wrapping_add(1);
            }
        });
        let life = Arc::new(Life {
            connector: c.clone(),
            tasks: vec![beat],
            control: std::sync::Mutex::new(None),
            runtime_stop,
        });
        if let Some(p) = cfg.control_port {
            let server = control::ControlServer::start(c.clone(), Arc::downgrade(&life), p)?;
            *life.control.lock().expect("control slot") = Some(server);
        }
        Ok(Simulator { c, life })
    }

    // ---- facts -----------------------------------------------------------------------------

    /// The listener port (0 while a reload keeps the Editor down).
    pub fn port(&self) -> u16 {
        self.c.port()
    }
    /// The current domain epoch (changes when a reload comes back up).
    pub fn domain_epoch(&self) -> String {
        self.c.epoch()
    }
    pub fn project_id(&self) -> &str {
        &self.c.settings.project_id
    }
    pub fn project_path(&self) -> &str {
        &self.c.settings.project_path
    }
    pub fn heartbeat_path(&self) -> &Path {
        self.c.heartbeat.path()
    }
    pub fn home(&self) -> &Path {
        &self.c.settings.home
    }
    /// `<home>/.hera-agent-unity/status` (the file bus).
    pub fn status_dir(&self) -> PathBuf {
        self.c.settings.status_dir()
    }
    /// `<home>/.hera-agent-unity/status/operations/<project_id with ':'→'_'>`.
    pub fn ledger_dir(&self) -> PathBuf {
        self.c.ledger.dir().to_path_buf()
    }
    /// A stored ledger record, if any.
    pub fn ledger_entry(&self, operation_id: &str) -> io::Result<Option<LedgerEntry>> {
        self.c.ledger.load(operation_id)
    }
    /// The control endpoint's port, when one was configured.
    pub fn control_port(&self) -> Option<u16> {
        self.life
            .control
            .lock()
            .expect("control slot")
            .as_ref()
            .map(|c| c.port)
    }
    /// The live `catalog_hash`.
    pub fn catalog_hash(&self) -> String {
        self.c.tools.lock().expect("tools").catalog_hash()
    }
    /// The catalog document a client would fetch now (no faults applied).
    pub fn catalog(&self) -> serde_json::Value {
        self.c
            .tools
            .lock()
            .expect("tools")
            .catalog(&self.c.epoch(), &self.c.settings.project_id)
    }
    /// Simulated now, in Unix milliseconds (wall clock plus [`Simulator::advance_clock`]).
    pub fn now_ms(&self) -> i64 {
        self.c.clock.now_ms()
    }

    // ---- counters ----------------------------------------------------------------------------

    /// Executed handler calls whose resolved safety is not read-only.
    pub fn side_effects(&self) -> u64 {
        self.c.side_effects()
    }
    /// [`Simulator::side_effects`] of one tool (and one action, or all of its calls).
    pub fn side_effects_of(&self, tool: &str, action: Option<&str>) -> u64 {
        self.c.side_effects_of(tool, action)
    }
    /// Requests currently holding one of the 64 queue places.
    pub fn pending_requests(&self) -> usize {
        self.c.pending()
    }
    /// Requests received on `path` (`/command`, `/commands`, `/approval/preflight`, …).
    pub fn requests_seen(&self, path: &str) -> u64 {
        self.c.requests_seen(path)
    }

    // ---- faults and lifecycle ----------------------------------------------------------------

    /// Arms a fault for `/command` calls other than `list` (see [`Fault`] for which act at once).
    pub fn inject(&self, fault: Fault) {
        self.c.inject(fault, FaultMatch::command());
    }
    /// Arms a fault for the requests `matcher` selects.
    pub fn inject_matching(&self, matcher: FaultMatch, fault: Fault) {
        self.c.inject(fault, matcher);
    }
    /// Disarms every fault, including the lasting catalog faults.
    pub fn clear_faults(&self) {
        self.c.clear_faults();
    }
    /// A domain reload: the listener stops and `reloading` is written before this returns; the
    /// new domain (epoch, approval secret) comes up after `downtime` (see
    /// [`Simulator::wait_ready`]).
    pub fn reload(&self, r: Reload) {
        self.c.reload(r.downtime, r.new_port);
    }
    /// Waits until the listener is up (bounded by `timeout`); `true` when it is.
    pub async fn wait_ready(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        while !self.c.is_listening() {
            if tokio::time::Instant::now() >= deadline || self.c.is_shut() {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        true
    }
    /// [`Simulator::wait_ready`] for synchronous callers.
    pub fn wait_ready_blocking(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        while !self.c.is_listening() {
            if std::time::Instant::now() >= deadline || self.c.is_shut() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }
    /// Editor quit: the listener stops, `stopped` is written (unless
    /// [`Quirks::quit_writes_stopped`] is off), nothing restarts.
    pub fn shutdown(&self) {
        self.c.shutdown();
        self.life.close_control();
    }
    /// Whether the Editor has quit (shutdown, or a control `shutdown`).
    pub fn is_shut(&self) -> bool {
        self.c.is_shut()
    }
    /// Moves simulated time forward (approval expiry, ledger ages and cleanup interval).
    pub fn advance_clock(&self, by: Duration) {
        self.c.clock.advance(by);
    }

    // ---- tools -------------------------------------------------------------------------------

    /// Adds (or replaces) a tool; the catalog hash changes. Calls reach the Editor's generic
    /// custom-tool handler, which echoes what arrived.
    pub fn add_custom_tool(&self, tool: ToolEntry) {
        self.c.tools.lock().expect("tools").add_custom(tool);
    }
    /// Adds a custom tool whose contract the Connector cannot build (`why`: the builder's
    /// complaint, e.g. a `JObject` parameter without a schema). From the next catalog demand on,
    /// `list {"catalog":true}` and every `/command` that carries `catalog_hash` answer
    /// `INTERNAL_ERROR` until a reload finds the tool gone; `list {"names":true}` still lists
    /// it, other tools still run without `catalog_hash`, and calling it fails.
    pub fn add_unbuildable_custom_tool(&self, tool: ToolEntry, why: &str) {
        let name = tool.name.clone();
        self.c
            .unbuildable
            .lock()
            .expect("unbuildable")
            .push((name, why.to_string()));
        self.c.tools.lock().expect("tools").add_custom(tool);
    }
    /// Changes the Editor's [`Quirks`] from now on.
    pub fn set_quirks(&self, f: impl FnOnce(&mut Quirks)) {
        f(&mut self.c.quirks.lock().expect("quirks"));
    }
    /// Removes a tool by name; `true` if it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.c
            .unbuildable
            .lock()
            .expect("unbuildable")
            .retain(|(n, _)| n != name);
        self.c.tools.lock().expect("tools").remove(name)
    }
    /// Runs `f` on the Editor model (test suites, job delays, package behaviour, …).
    pub fn with_editor<R>(&self, f: impl FnOnce(&mut editor::Editor) -> R) -> R {
        let r = f(&mut self.c.editor.lock().expect("editor"));
        self.c.sync_tools_with_editor();
        r
    }

    // ---- heartbeat knobs ---------------------------------------------------------------------

    /// Heartbeat `features` (the Connector keeps serving every feature regardless).
    pub fn set_features(&self, features: Vec<String>) -> io::Result<()> {
        self.c.heartbeat.update(|k| k.features = features)
    }
    /// Switches legacy mode on or off (heartbeat and behaviour).
    pub fn set_legacy(&self, on: bool) -> io::Result<()> {
        self.c.set_legacy(on)
    }
    /// Freezes the heartbeat timestamp at its current value (a stale heartbeat), or thaws it.
    pub fn freeze_heartbeat(&self, frozen: bool) -> io::Result<()> {
        let now = clock::wall_ms();
        self.c
            .heartbeat
            .update(|k| k.frozen_timestamp = frozen.then_some(now))
    }
    /// Pins the heartbeat state (e.g. `compiling`, `playing`, `stopped`).
    pub fn set_state(&self, state: &str) -> io::Result<()> {
        let s = state.to_string();
        self.c.heartbeat.update(|k| k.state = Some(s))
    }
    /// Back to the Editor's own state.
    pub fn clear_state(&self) -> io::Result<()> {
        self.c.heartbeat.update(|k| k.state = None)
    }
    /// The pid the heartbeat reports (a dead pid, 0, or another live process's).
    pub fn set_pid(&self, pid: i64) -> io::Result<()> {
        self.c.heartbeat.update(|k| k.pid = pid)
    }
    /// Script compile errors: heartbeat `compileErrors` and the Editor's behaviour.
    pub fn set_compile_errors(&self, on: bool) -> io::Result<()> {
        self.c.set_compile_errors(on)
    }
    /// Writes a `stopped` heartbeat and stops rewriting it (the listener keeps running).
    pub fn write_stopped(&self) -> io::Result<()> {
        self.c.heartbeat.write_stopped()
    }
    /// Deletes the heartbeat and stops rewriting it (target lost).
    pub fn remove_heartbeat(&self) -> io::Result<()> {
        self.c.heartbeat.remove()
    }
    /// Leaves a half-written heartbeat and pauses writes until [`Simulator::resume_heartbeat`].
    pub fn write_partial_heartbeat(&self) -> io::Result<()> {
        self.c.heartbeat.write_garbage()
    }
    /// Back to live heartbeat writes after stopped/removed/partial.
    pub fn resume_heartbeat(&self) -> io::Result<()> {
        self.c.heartbeat.resume()
    }
    /// Advertise `Some(port)` (e.g. 0) instead of the listener's port; `None` for the real one.
    pub fn set_heartbeat_port(&self, port: Option<u16>) -> io::Result<()> {
        self.c.heartbeat.update(|k| k.port_override = port)
    }
    /// Advertise `Some(epoch)` (`""` for an empty one) instead of the real domain epoch.
    pub fn set_heartbeat_epoch(&self, epoch: Option<&str>) -> io::Result<()> {
        let e = epoch.map(str::to_string);
        self.c.heartbeat.update(|k| k.epoch_override = e)
    }
    /// Signs `claims` with the current domain's approval secret. A test can take a real
    /// preflight's claims, change one bound field, and check that `/command` refuses it.
    pub fn sign_token(&self, claims: &hera_connector_contract::approval::ApprovalClaims) -> String {
        self.c.with_domain(|d| d.approval.sign(claims))
    }
    /// The heartbeat as it would be written now.
    pub fn heartbeat(&self) -> hera_connector_contract::wire::Heartbeat {
        self.c.heartbeat.render()
    }
}

/// The pid of a process that has exited (for "dead pid" heartbeats): spawns `true` (or
/// `cmd /c exit` on Windows) and waits for it.
pub fn dead_pid() -> io::Result<i64> {
    let mut child = if cfg!(windows) {
        std::process::Command::new("cmd")
            .args(["/C", "exit"])
            .spawn()?
    } else {
        std::process::Command::new("true").spawn()?
    };
    let pid = child.id() as i64;
    child.wait()?;
    Ok(pid)
}
