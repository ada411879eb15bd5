//! The lazily connected Editor: which Editor we talk to, the catalog we answer from, and the
//! heartbeat watch that refreshes it.
//!
//! Nothing here runs at startup except the watch, which only reads heartbeat files. The first
//! tool that needs the Editor finds it; until then (and whenever it is down or reloading) search
//! and describe use the last verified catalog from the on-disk cache, and `tool_call` answers a
//! structured, retryable error that says why (not running, reloading, compiling, busy).

use super::catalog_view::{CatalogView, Origin};
use super::envelope::Envelope;
use crate::catalog::{self, CatalogCache, CatalogSnapshot};
use crate::connector::{ConnectorClient, ConnectorError};
use crate::discovery::{self, AgentHome, DiscoveryError, Instance, Selector};
use crate::results::{InlineCap, ProjectKey, ResultStore, StoreConfig};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the watch re-reads the heartbeat.
pub const WATCH_INTERVAL: Duration = Duration::from_secs(1);
/// The longest a call waits for a reloading/compiling Editor before answering "retry later".
pub const SETTLE_WAIT: Duration = Duration::from_secs(5);
const SETTLE_POLL: Duration = Duration::from_millis(250);
/// The longest search/describe wait for a fresh catalog before answering from the cache.
pub const READ_REFRESH_WAIT: Duration = Duration::from_secs(5);

pub struct LinkOptions {
    pub project: Option<String>,
    pub port: Option<u16>,
    pub timeout: Duration,
    /// `HERA_MCP_MAX_INLINE_BYTES`: larger Editor results are spilled to the result cache.
    pub inline_cap: InlineCap,
    /// Retention and size of the result cache.
    pub store: StoreConfig,
}

/// Decrements the load counter when dropped.
struct Loading<'a>(&'a AtomicUsize);

impl Drop for Loading<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What the heartbeat files say about our Editor right now.
enum Presence {
    /// An active heartbeat (possibly not listening, reloading, compiling…).
    Present(Box<Instance>),
    Absent(DiscoveryError),
}

pub struct EditorLink {
    home: AgentHome,
    selector: Selector,
    pub(super) timeout: Duration,
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
    /// Approval tokens obtained for the agent in this session (see `call::IssuedTokens`).
    pub(super) issued: super::call::IssuedTokens,
    /// Spilled results of this user (`hera-result://` resources).
    pub(super) results: Arc<ResultStore>,
    pub(super) cap: InlineCap,
}

/// Editor states in which calls are accepted.
fn callable_state(state: &str) -> bool {
    matches!(state, "ready" | "playing" | "paused" | "")
}

/// A retryable "the Editor cannot take calls now" error, with the reason in `data`.
pub fn unavailable(code: &str, reason: &str, message: String, mut data: Value) -> Envelope {
    if !data.is_object() {
        data = json!({});
    }
    data["retryable"] = json!(true);
    data["reason"] = json!(reason);
    data["retry_after_ms"] = json!(2000);
    Envelope::error(code, message).with_data(data)
}

fn state_error(instance: &Instance) -> Envelope {
    let project = instance.project_path.clone();
    let state = instance.state().to_string();
    let data = json!({"project": project, "state": state, "port": instance.port()});
    match state.as_str() {
        "reloading" => unavailable(
            "EDITOR_RELOADING",
            "reloading",
            format!(
                "the Unity Editor for {project} is reloading its scripts (domain reload); retry in a few seconds"
            ),
            data,
        ),
        "compiling" => unavailable(
            "EDITOR_COMPILING",
            "compiling",
            format!("the Unity Editor for {project} is compiling scripts; retry when it finishes"),
            data,
        ),
        _ if !instance.is_listening() => unavailable(
            "EDITOR_NOT_READY",
            "loading",
            format!(
                "the Unity Editor for {project} is still loading (not listening yet); retry in a few seconds"
            ),
            data,
        ),
        other => unavailable(
            "EDITOR_BUSY",
            other,
            format!("the Unity Editor for {project} is busy ({other}); retry in a few seconds"),
            data,
        ),
    }
}

/// Turns a Connector failure into the envelope an agent sees: the Connector's own envelope when
/// it sent one, a retryable error when the Editor is merely unavailable, the rest as errors.
pub fn connector_error(e: &ConnectorError) -> Envelope {
    if let ConnectorError::Rejected { envelope } = e {
        return Envelope::from_connector(&envelope.raw, "request rejected");
    }
    let data = e.data();
    if e.is_outcome_unknown() {
        let op = data
            .get("operation_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        return Envelope::error(e.code(), e.to_string())
            .with_data(data)
            .with_operation_id(op.clone())
            .with_hint(format!(
                "Do not change the call. Once the Editor is back, repeat the identical call with \
                 operation_id {op:?}: the Editor's ledger replays the result if it ran, or \
                 reports that it did not."
            ));
    }
    if e.is_editor_unavailable() {
        let reason = match e.code() {
            "EDITOR_NOT_READY" => "loading",
            "EDITOR_UNRESPONSIVE" => "unresponsive",
            "EDITOR_RESTARTED" => "restarted",
            _ => "not_running",
        };
        return unavailable(e.code(), reason, e.to_string(), data);
    }
    let env = Envelope::error(e.code(), e.to_string());
    if data.is_null() {
        env
    } else {
        env.with_data(data)
    }
}

impl EditorLink {
    pub fn new(opts: LinkOptions) -> EditorLink {
        let home = AgentHome::from_env();
        EditorLink {
            results: Arc::new(ResultStore::new(home.base(), opts.store)),
            cap: opts.inline_cap,
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
            loading: AtomicUsize::new(0),
            issued: Default::default(),
        }
    }

    pub fn home(&self) -> &AgentHome {
        &self.home
    }

    pub fn result_store(&self) -> &ResultStore {
        &self.results
    }

    /// The cache key of the project whose results `resources/list` shows: the Editor we follow,
    /// else the project of the catalog we answer from.
    pub fn result_project(&self) -> Option<ProjectKey> {
        let id = match self.client() {
            Some(c) => c.project_id(),
            None => self.current_view()?.catalog().project_id.clone(),
        };
        ProjectKey::from_project_id(&id).ok()
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

    /// Reads the heartbeats once: the followed project if we have one, else the selection rules.
    async fn observe(&self) -> Presence {
        if let Some(client) = self.client() {
            return match client.refresh_instance().await {
                Ok(Some(i)) => Presence::Present(Box::new(i)),
                Ok(None) => {
                    let i = client.instance();
                    Presence::Absent(DiscoveryError::ProjectNotFound {
                        query: i.project_path.clone(),
                        available: Vec::new(),
                    })
                }
                Err(ConnectorError::Discovery(e)) => Presence::Absent(e),
                Err(e) => Presence::Absent(DiscoveryError::ProjectNotFound {
                    query: e.to_string(),
                    available: Vec::new(),
                }),
            };
        }
        let scan = match discovery::scan_async(&self.home).await {
            Ok(s) => s,
            Err(e) => return Presence::Absent(e),
        };
        match discovery::select(&scan, &self.selector) {
            Ok(i) => {
                let client = ConnectorClient::new(self.home.clone(), i.clone(), self.timeout);
                *self.client.lock().expect("client lock") = Some(client);
                Presence::Present(Box::new(i))
            }
            Err(DiscoveryError::NotListening { project }) => {
                match scan.active().find(|i| i.project_path == project) {
                    Some(i) => Presence::Present(Box::new(i.clone())),
                    None => Presence::Absent(DiscoveryError::NotListening { project }),
                }
            }
            Err(e) => Presence::Absent(e),
        }
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
                c.update_instance(instance.clone());
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
        let snapshot = catalog::load(client, None).await?;
        if let Err(e) = self.cache.store(&snapshot) {
            tracing::warn!("could not cache the tool catalog: {e}");
        }
        let view = Self::view_of(snapshot, Some(&client.instance()));
        drop(loading);
        self.publish(view.clone());
        Ok(view)
    }

    /// The catalog for search and describe: live when the Editor answers within a short wait,
    /// else the last cached one. Never blocks longer than [`READ_REFRESH_WAIT`].
    pub async fn view_for_reading(&self) -> Result<Arc<CatalogView>, Envelope> {
        let presence = self.observe().await;
        let instance = match &presence {
            Presence::Present(i) => Some(i.as_ref()),
            Presence::Absent(_) => None,
        };
        let mut failure = None;
        if let Some(i) = instance.filter(|i| callable_state(i.state()) && i.is_listening()) {
            match tokio::time::timeout(READ_REFRESH_WAIT, self.refresh(i)).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(e)) => {
                    tracing::warn!("catalog refresh failed: {e}");
                    failure = Some(connector_error(&e));
                }
                Err(_) => {
                    tracing::warn!("catalog refresh is slow; answering from the cache");
                    failure = Some(unavailable(
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
            (None, Presence::Absent(d)) => connector_error(&ConnectorError::Discovery(d)),
        };
        e.message = format!("{}. {NO_CACHE}", e.message.trim_end_matches('.'));
        Err(e)
    }

    /// An Editor ready for a call, with a catalog of its current domain. Waits up to
    /// [`SETTLE_WAIT`] for a reloading or compiling Editor; a missing one is reported at once.
    pub async fn ready_for_call(&self) -> Result<(ConnectorClient, Arc<CatalogView>), Envelope> {
        let deadline = Instant::now() + SETTLE_WAIT.min(self.timeout);
        let instance = loop {
            match self.observe().await {
                Presence::Absent(d) => {
                    return Err(connector_error(&ConnectorError::Discovery(d)));
                }
                Presence::Present(i) if callable_state(i.state()) && i.is_listening() => break i,
                Presence::Present(i) => {
                    if Instant::now() >= deadline {
                        return Err(state_error(&i));
                    }
                    tokio::time::sleep(SETTLE_POLL).await;
                }
            }
        };
        let view = match self.refresh(&instance).await {
            Ok(v) => v,
            Err(e) => return Err(connector_error(&e)),
        };
        let client = self
            .client()
            .expect("refresh binds a client before it succeeds");
        Ok((client, view))
    }

    /// Polls the heartbeat every second for the life of the server and refreshes the catalog
    /// when the Editor appears or its domain epoch changes, so reads stay current without
    /// waiting. Each pass is one directory scan; nothing is fetched while the epoch is unchanged.
    pub fn start_watch(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(WATCH_INTERVAL).await;
                let Presence::Present(i) = self.observe().await else {
                    continue;
                };
                if !(callable_state(i.state()) && i.is_listening()) {
                    continue;
                }
                let stale = self.current_view().is_none_or(|v| {
                    v.origin != Origin::Live
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
