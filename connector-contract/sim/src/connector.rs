//! The simulated AgentConnector: everything one Editor holds, and its lifecycle (listen, domain
//! reload, quit).
//!
//! State is split by who may touch it when:
//! - the command lock (a tokio mutex) serializes every command, as the Connector's one lock per
//!   Editor does; it may be held across awaits (a slow command holds it while it waits);
//! - `domain` is what a domain reload replaces (epoch, approval secret, used tokens);
//! - small std mutexes guard the rest (the Editor model, tools, faults, counters) and are never
//!   held across an await, so tests can reach them from synchronous code.

use crate::approval::ApprovalAuthority;
use crate::catalog::ToolSet;
use crate::clock::SimClock;
use crate::editor::Editor;
use crate::faults::{Fault, FaultBook, FaultKind, FaultMatch};
use crate::handlers::EditorContext;
use crate::heartbeat::HeartbeatFile;
use crate::http::{self, ListenerHandle};
use crate::ledger::Ledger;
use hera_connector_contract::wire::{
    BASE_DIR_NAME, MAX_PENDING_REQUESTS, OPERATIONS_DIR, PORT_RANGE, STATUS_DIR,
};
use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where the listener binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PortChoice {
    /// An OS-assigned port (tests: never collides with a real Editor).
    #[default]
    Ephemeral,
    /// Exactly this port.
    Fixed(u16),
    /// The first free port of 8090..=8099, as Unity does.
    UnityRange,
}

/// One domain load: what a reload replaces.
pub struct Domain {
    /// 32 lowercase hex (a GUID in `N` format).
    pub epoch: String,
    pub approval: ApprovalAuthority,
    /// The first request after a domain load always runs the ledger cleanup (§2.5 step 13).
    pub cleanup_pending: bool,
    /// The domain's catalog is built once, on first demand; when a custom tool's contract
    /// cannot be built the failure is kept and answered until the next reload (README,
    /// "Catalog and catalog_hash").
    pub catalog_failure: Option<Option<String>>,
}

impl Domain {
    pub fn new() -> Domain {
        let bytes: [u8; 16] = rand::random();
        Domain {
            epoch: bytes.iter().map(|b| format!("{b:02x}")).collect(),
            approval: ApprovalAuthority::new(),
            cleanup_pending: true,
            catalog_failure: None,
        }
    }
}

impl Default for Domain {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Default)]
struct Counters {
    requests: HashMap<String, u64>,
    side_effects: HashMap<(String, Option<String>), u64>,
}

/// How this Editor resolves the orders and environment facts the Connector's source leaves open
/// (each is one real Editor's behaviour; the defaults are the ones tests rely on).
#[derive(Debug, Clone, Copy)]
pub struct Quirks {
    /// The Editor's UTC offset: dates with a numeric offset in a request are moved into it
    /// before `arguments_hash` is computed.
    pub zone: hera_connector_contract::canonical::EditorZone,
    /// A reload stops the listener before the `reloading` heartbeat is written, so that
    /// heartbeat carries `port: 0`.
    pub reload_listener_first: bool,
    /// Quitting writes a `stopped` heartbeat (false: the listener stopped first, or the Editor
    /// crashed, and the file keeps saying `ready`).
    pub quit_writes_stopped: bool,
    /// Oversized bodies are drained before the 413 (false: answered on the declared length
    /// without reading, as the Connector does).
    pub drain_oversized_bodies: bool,
    /// After a reload the listener accepts this long before the new domain's first heartbeat
    /// (the first Editor update); zero writes the heartbeat first.
    pub heartbeat_after_listen: Duration,
}

impl Default for Quirks {
    fn default() -> Self {
        Quirks {
            zone: hera_connector_contract::canonical::EditorZone::UTC,
            reload_listener_first: false,
            quit_writes_stopped: true,
            drain_oversized_bodies: false,
            heartbeat_after_listen: Duration::ZERO,
        }
    }
}

/// Fixed facts about this Editor.
pub struct Settings {
    pub home: PathBuf,
    pub project_path: String,
    pub project_id: String,
    pub port_choice: PortChoice,
    /// How long a command waits for the lock before `COMMAND_LOCK_TIMEOUT` (120 s on Unity).
    pub lock_wait: Duration,
}

impl Settings {
    pub fn status_dir(&self) -> PathBuf {
        self.home.join(BASE_DIR_NAME).join(STATUS_DIR)
    }
}

pub struct Connector {
    pub settings: Settings,
    pub clock: SimClock,
    pub heartbeat: HeartbeatFile,
    pub ledger: Ledger,
    pub tools: Mutex<ToolSet>,
    /// The one command lock per Editor (§2.5 step 3).
    pub command_lock: tokio::sync::Mutex<()>,
    /// The Editor model (scenes, assets, jobs).
    pub editor: Mutex<Editor>,
    /// How long a reload the Editor asks for (package change, compile) keeps it down.
    pub reload_downtime: Duration,
    pub quirks: Mutex<Quirks>,
    /// Custom tools whose contract the Connector cannot build, with the builder's complaint.
    pub unbuildable: Mutex<Vec<(String, String)>>,
    /// Bumped when a domain ends (reload or quit): what a hung handler waits for.
    domain_end: tokio::sync::watch::Sender<u64>,
    domain: Mutex<Domain>,
    legacy: AtomicBool,
    faults: Mutex<FaultBook>,
    counters: Mutex<Counters>,
    pending: AtomicUsize,
    listener: Mutex<Option<ListenerHandle>>,
    port: AtomicU16,
    reload_generation: AtomicU64,
    catalog_revision: AtomicU64,
    shut: AtomicBool,
    pub runtime: tokio::runtime::Handle,
}

/// Holds one place in the pending-request queue (§2.3, 64 places).
pub struct QueueSlot<'a>(&'a AtomicUsize);
impl Drop for QueueSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `<home>/.hera-agent-unity/status/operations/<project_id with ':'→'_'>`.
pub fn ledger_dir(home: &std::path::Path, project_id: &str) -> PathBuf {
    home.join(BASE_DIR_NAME)
        .join(STATUS_DIR)
        .join(OPERATIONS_DIR)
        .join(hera_connector_contract::identity::ledger_dir_name(
            project_id,
        ))
}

impl Connector {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        settings: Settings,
        heartbeat: HeartbeatFile,
        ledger_cap_bytes: u64,
        tools: ToolSet,
        editor: Editor,
        reload_downtime: Duration,
        legacy: bool,
        runtime: tokio::runtime::Handle,
    ) -> Connector {
        let ledger = Ledger::new(
            ledger_dir(&settings.home, &settings.project_id),
            ledger_cap_bytes,
        );
        Connector {
            settings,
            clock: SimClock::default(),
            heartbeat,
            ledger,
            tools: Mutex::new(tools),
            command_lock: tokio::sync::Mutex::new(()),
            editor: Mutex::new(editor),
            reload_downtime,
            quirks: Mutex::new(Quirks::default()),
            unbuildable: Mutex::new(Vec::new()),
            domain_end: tokio::sync::watch::channel(0).0,
            domain: Mutex::new(Domain::new()),
            legacy: AtomicBool::new(legacy),
            faults: Mutex::new(FaultBook::default()),
            counters: Mutex::new(Counters::default()),
            pending: AtomicUsize::new(0),
            listener: Mutex::new(None),
            port: AtomicU16::new(0),
            reload_generation: AtomicU64::new(0),
            catalog_revision: AtomicU64::new(0),
            shut: AtomicBool::new(false),
            runtime,
        }
    }

    pub fn quirks(&self) -> Quirks {
        *self.quirks.lock().expect("quirks")
    }

    /// Waits until the current domain ends (a reload or quit). A handler that never completes
    /// keeps the command lock this long, as an awaited task does in the real router.
    pub async fn until_domain_ends(&self) {
        let mut rx = self.domain_end.subscribe();
        let _ = rx.changed().await;
    }

    fn end_domain(&self) {
        self.domain_end.send_modify(|g| *g += 1);
    }

    /// The domain's catalog build: `Err(reason)` when a custom tool's contract cannot be built.
    /// Decided on first demand and kept for the rest of the domain.
    pub fn catalog_build(&self) -> Result<(), String> {
        let broken = self
            .unbuildable
            .lock()
            .expect("unbuildable")
            .first()
            .map(|(name, why)| format!("Failed to build the tool contract of '{name}': {why}"));
        let mut d = self.domain.lock().expect("domain lock");
        match d.catalog_failure.get_or_insert(broken) {
            Some(why) => Err(why.clone()),
            None => Ok(()),
        }
    }

    pub fn legacy(&self) -> bool {
        self.legacy.load(Ordering::SeqCst)
    }

    pub fn set_legacy(&self, on: bool) -> io::Result<()> {
        self.legacy.store(on, Ordering::SeqCst);
        self.heartbeat.update(|k| k.legacy = on)
    }

    /// The listener port, 0 while it is down.
    pub fn port(&self) -> u16 {
        self.port.load(Ordering::SeqCst)
    }

    pub fn epoch(&self) -> String {
        self.domain.lock().expect("domain lock").epoch.clone()
    }

    /// Runs `f` with the current domain (approval authority, epoch).
    pub fn with_domain<R>(&self, f: impl FnOnce(&mut Domain) -> R) -> R {
        f(&mut self.domain.lock().expect("domain lock"))
    }

    pub fn editor_context(&self) -> EditorContext {
        EditorContext {
            port: self.port(),
            project_id: self.settings.project_id.clone(),
            status_dir: self.settings.status_dir(),
            pid: self.heartbeat.knobs().pid,
            now_ms: self.clock.now_ms(),
        }
    }

    // ---- queue, counters, faults -------------------------------------------------------

    /// Takes a queue place, or `None` when 64 requests are already pending.
    pub fn enqueue(&self) -> Option<QueueSlot<'_>> {
        let before = self.pending.fetch_add(1, Ordering::SeqCst);
        if before >= MAX_PENDING_REQUESTS {
            self.pending.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(QueueSlot(&self.pending))
    }

    /// Requests holding a queue place (waiting for or holding the Editor).
    pub fn pending(&self) -> usize {
        self.pending.load(Ordering::SeqCst)
    }

    pub fn count_request(&self, path: &str) {
        *self
            .counters
            .lock()
            .expect("counters")
            .requests
            .entry(path.to_string())
            .or_default() += 1;
    }

    pub fn requests_seen(&self, path: &str) -> u64 {
        self.counters
            .lock()
            .expect("counters")
            .requests
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    pub fn count_side_effect(&self, tool: &str, action: Option<&str>) {
        *self
            .counters
            .lock()
            .expect("counters")
            .side_effects
            .entry((tool.to_string(), action.map(str::to_string)))
            .or_default() += 1;
    }

    pub fn side_effects(&self) -> u64 {
        self.counters
            .lock()
            .expect("counters")
            .side_effects
            .values()
            .sum()
    }

    /// Side effects of `tool` (with `action`, or of every action when `None`).
    pub fn side_effects_of(&self, tool: &str, action: Option<&str>) -> u64 {
        self.counters
            .lock()
            .expect("counters")
            .side_effects
            .iter()
            .filter(|((t, a), _)| t == tool && (action.is_none() || a.as_deref() == action))
            .map(|(_, n)| n)
            .sum()
    }

    pub fn inject(self: &Arc<Self>, fault: Fault, matcher: FaultMatch) {
        let immediate = self.faults.lock().expect("faults").arm(fault, matcher);
        match immediate {
            Some(Fault::CatalogHashChange) => self.change_catalog(),
            Some(Fault::PortTakenByOtherProject) => self.port_taken_by_other_project(),
            _ => {}
        }
    }

    pub fn clear_faults(&self) {
        self.faults.lock().expect("faults").clear();
    }

    pub fn take_fault(&self, kind: FaultKind, path: &str, command: Option<&str>) -> Option<Fault> {
        self.faults
            .lock()
            .expect("faults")
            .take(kind, path, command)
    }

    pub fn with_faults<R>(&self, f: impl FnOnce(&mut FaultBook) -> R) -> R {
        f(&mut self.faults.lock().expect("faults"))
    }

    /// Republishes one built-in with a revised description: a new `catalog_hash`, as after a
    /// custom tool's contract changed.
    fn change_catalog(&self) {
        let n = self.catalog_revision.fetch_add(1, Ordering::SeqCst) + 1;
        let mut tools = self.tools.lock().expect("tools");
        if let Some(first) = tools.tools().first().cloned() {
            let mut t = first;
            t.description = format!("{} (revision {n})", t.description);
            tools.add_custom(t);
        }
    }

    /// Another project takes our port: we reload onto a new port and a foreign heartbeat
    /// claims the old one.
    fn port_taken_by_other_project(self: &Arc<Self>) {
        let old = self.port();
        self.reload(Duration::from_millis(200), true);
        let other = format!("{}-other", self.settings.project_path.trim_end_matches('/'));
        if let Err(e) = self.heartbeat.add_foreign(&other, old) {
            tracing::warn!("could not write the foreign heartbeat: {e}");
        }
    }

    // ---- requests ------------------------------------------------------------------------

    /// After any request that passed the OPTIONS/Origin checks: the ledger cleanup, at most
    /// every 5 minutes, always on the first request of a domain (§2.5 step 13).
    pub fn after_request(&self) {
        if self.legacy() {
            return;
        }
        let (epoch, force) = self.with_domain(|d| {
            let force = d.cleanup_pending;
            d.cleanup_pending = false;
            (d.epoch.clone(), force)
        });
        if let Err(e) = self
            .ledger
            .maybe_cleanup(&epoch, self.clock.now_ms(), force)
        {
            tracing::warn!("ledger cleanup failed: {e}");
        }
    }

    pub fn mark_responded(&self, op: &str) {
        if let Err(e) = self.ledger.mark_responded(op) {
            tracing::warn!("could not mark {op} responded: {e}");
        }
    }

    // ---- listener lifecycle --------------------------------------------------------------

    /// Binds per the port choice. `avoid`: a port not to come back on (a reload onto a new
    /// port); `prefer`: an OS-assigned port to come back on (a reload keeps its port when it
    /// is still free, as Unity's rescan from 8090 usually does).
    fn bind(&self, avoid: Option<u16>, prefer: Option<u16>) -> io::Result<std::net::TcpListener> {
        if self.settings.port_choice == PortChoice::Ephemeral
            && let Some(p) = prefer.filter(|p| *p != 0 && Some(*p) != avoid)
            && let Ok(l) = http::bind_port(p)
        {
            return Ok(l);
        }
        match self.settings.port_choice {
            PortChoice::Fixed(p) if avoid != Some(p) => http::bind_port(p),
            PortChoice::UnityRange => {
                let mut last = None;
                for p in PORT_RANGE {
                    if Some(p) == avoid {
                        continue;
                    }
                    match http::bind_port(p) {
                        Ok(l) => return Ok(l),
                        Err(e) => last = Some(e),
                    }
                }
                Err(last.unwrap_or_else(|| io::Error::other("no port in 8090-8099 is free")))
            }
            _ => {
                // Ephemeral, or a fixed port we were asked to leave: an OS-assigned port other
                // than `avoid` (bounded retries; the OS rarely hands the same port back).
                for _ in 0..20 {
                    let l = http::bind_port(0)?;
                    if Some(l.local_addr()?.port()) != avoid {
                        return Ok(l);
                    }
                }
                Err(io::Error::other("the OS kept assigning the avoided port"))
            }
        }
    }

    /// Binds, writes a live heartbeat, then serves. Must run inside the runtime.
    ///
    /// Order matters: the heartbeat says `ready` and the port is recorded before the accept
    /// loop starts (connections wait in the backlog meanwhile), so no request ever sees port 0
    /// and [`Connector::is_listening`] implies an up-to-date heartbeat.
    pub fn listen(self: &Arc<Self>, avoid: Option<u16>, prefer: Option<u16>) -> io::Result<u16> {
        let std_listener = self.bind(avoid, prefer)?;
        let port = std_listener.local_addr()?.port();
        // Only a reloaded domain starts before its heartbeat: the first start writes at once.
        let reloaded = self.reload_generation.load(Ordering::SeqCst) > 0;
        let late = self.quirks().heartbeat_after_listen;
        if late.is_zero() || !reloaded {
            self.heartbeat.set_live(port, &self.epoch())?;
        } else {
            // The new domain accepts at once; its first heartbeat waits for the first update.
            let me = self.clone();
            let epoch = self.epoch();
            self.runtime.spawn(async move {
                tokio::time::sleep(late).await;
                if me.port() == port && me.epoch() == epoch {
                    let _ = me.heartbeat.set_live(port, &epoch);
                }
            });
        }
        self.port.store(port, Ordering::SeqCst);
        match http::serve(self.clone(), std_listener) {
            Ok(handle) => {
                *self.listener.lock().expect("listener") = Some(handle);
                Ok(port)
            }
            Err(e) => {
                self.port.store(0, Ordering::SeqCst);
                Err(e)
            }
        }
    }

    /// Stops the listener at once; returns the accept task to await.
    fn close_listener(&self) -> Option<tokio::task::JoinHandle<()>> {
        let handle = self.listener.lock().expect("listener").take()?;
        handle.close();
        self.port.store(0, Ordering::SeqCst);
        Some(handle.task)
    }

    /// A domain reload (§2.10): the listener stops and a `reloading` heartbeat is written
    /// before this returns; after `downtime` a new domain (epoch, approval secret, empty
    /// used-token set) comes up and listens again, on a new port if `new_port`.
    pub fn reload(self: &Arc<Self>, downtime: Duration, new_port: bool) {
        self.reload_with(downtime, new_port, None)
    }

    /// [`Connector::reload`], optionally writing a forced state first (`compiling` before a
    /// script-compile reload, `entering_playmode` before a play-mode reload).
    pub fn reload_with(
        self: &Arc<Self>,
        downtime: Duration,
        new_port: bool,
        first_state: Option<&str>,
    ) {
        if self.shut.load(Ordering::SeqCst) {
            return;
        }
        let generation = self.reload_generation.fetch_add(1, Ordering::SeqCst) + 1;
        let old_port = self.port();
        let listener_first = self.quirks().reload_listener_first;
        self.end_domain();
        let mut old_task = None;
        if listener_first {
            old_task = self.close_listener();
            self.heartbeat.clear_port();
        }
        if let Some(s) = first_state {
            let _ = self.heartbeat.force_state(Some(s));
        }
        let _ = self.heartbeat.force_state(Some("reloading"));
        if !listener_first {
            old_task = self.close_listener();
        }
        let me = self.clone();
        self.runtime.spawn(async move {
            if let Some(t) = old_task {
                let _ = t.await;
            }
            tokio::time::sleep(downtime).await;
            if me.shut.load(Ordering::SeqCst)
                || me.reload_generation.load(Ordering::SeqCst) != generation
            {
                return;
            }
            *me.domain.lock().expect("domain lock") = Domain::new();
            let avoid = (new_port && old_port != 0).then_some(old_port);
            let prefer = (!new_port).then_some(old_port);
            let mut attempts = 0;
            loop {
                match me.listen(avoid, prefer) {
                    Ok(port) => {
                        tracing::info!("domain reloaded; listening on 127.0.0.1:{port}");
                        break;
                    }
                    Err(e) if attempts < 50 => {
                        attempts += 1;
                        tracing::warn!("rebinding after reload failed ({e}); retrying");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    Err(e) => {
                        tracing::error!("could not listen again after reload: {e}");
                        return;
                    }
                }
            }
            let ctx = me.editor_context();
            let (state, errors) = {
                let mut ed = me.editor.lock().expect("editor");
                crate::editor_glue::domain_reloaded(&mut ed, &ctx);
                (ed.editor_state().to_string(), ed.compile_errors())
            };
            me.sync_tools_with_editor();
            let _ = me.heartbeat.set_editor_state(&state, errors);
        });
    }

    /// One beat of the Editor's update loop: due jobs complete (maybe asking for a reload) and
    /// the heartbeat learns the Editor's state. Skipped while the domain is down.
    pub fn update(self: &Arc<Self>) {
        if !self.is_listening() {
            return;
        }
        let ctx = self.editor_context();
        let (ask, state, errors) = {
            let mut ed = self.editor.lock().expect("editor");
            let ask = crate::editor_glue::tick(&mut ed, &ctx);
            (ask, ed.editor_state().to_string(), ed.compile_errors())
        };
        let _ = self.heartbeat.set_editor_state(&state, errors);
        if let Some(ask) = ask {
            self.reload_with(self.reload_downtime, false, ask.first_state);
        }
    }

    /// Runs a call on the Editor (the caller holds the command lock) and reports the Editor's
    /// state to the heartbeat right away, as the Connector's forced writes do.
    pub fn invoke(&self, call: &crate::handlers::Call) -> crate::handlers::Ran {
        let ctx = self.editor_context();
        let (ran, state, errors) = {
            let mut ed = self.editor.lock().expect("editor");
            let ran = crate::editor_glue::invoke(&mut ed, call, &ctx);
            (ran, ed.editor_state().to_string(), ed.compile_errors())
        };
        let _ = self.heartbeat.set_editor_state(&state, errors);
        ran
    }

    /// `run_tests` exists only while the Test Framework package is installed (§7.1): the
    /// catalog follows the Editor's package list (at start, after reloads, after knob changes).
    pub fn sync_tools_with_editor(&self) {
        let has = self.editor.lock().expect("editor").has_test_framework();
        let mut tools = self.tools.lock().expect("tools");
        let present = tools.get("run_tests").is_some();
        if !has && present {
            tools.remove("run_tests");
        } else if has
            && !present
            && let Some(t) = ToolSet::builtin().get("run_tests").cloned()
        {
            tools.add_custom(t);
        }
    }

    /// Sets the Editor's compile-error flag and shows it in the heartbeat.
    pub fn set_compile_errors(&self, on: bool) -> io::Result<()> {
        let (state, errors) = {
            let mut ed = self.editor.lock().expect("editor");
            ed.set_compile_errors(on);
            (ed.editor_state().to_string(), ed.compile_errors())
        };
        self.heartbeat.set_editor_state(&state, errors)
    }

    /// Whether the listener is up (false during a reload's downtime and after shutdown).
    pub fn is_listening(&self) -> bool {
        self.port() != 0
    }

    /// Editor quit: the listener stops, a `stopped` heartbeat is written, nothing restarts.
    pub fn shutdown(&self) {
        if self.shut.swap(true, Ordering::SeqCst) {
            return;
        }
        self.end_domain();
        let _ = self.close_listener();
        self.heartbeat.remove_foreign();
        if !self.quirks().quit_writes_stopped {
            // The listener went first (or the Editor died): the file keeps its last `ready`.
            self.heartbeat.stop_writing();
            return;
        }
        if let Err(e) = self.heartbeat.write_stopped() {
            tracing::warn!("could not write the stopped heartbeat: {e}");
        }
    }

    pub fn is_shut(&self) -> bool {
        self.shut.load(Ordering::SeqCst)
    }
}
