//! The Connector client: requests, `meta`, response decoding, and surviving domain reloads.
//!
//! Files: `transport` (the one HTTP client), `envelope` (tolerant decoding), `error` (the layer's
//! error type), `catalog_fetch` (the catalog requests, bytes kept for the hash; `catalog` checks them).
//!
//! Only this module speaks HTTP (see [`transport`]). A [`ConnectorClient`] is bound to one
//! *project*, not one port: when a request fails transiently it rescans the heartbeats and
//! follows the project to wherever its Editor listens now (§1.6 step 6, §2.10).
//!
//! Retry rules (§2.10), in one place:
//! - a request that was never delivered (connection refused, port 0) is always retried;
//! - a delivered `/command` whose exchange broke is resent, with the **same** operation id,
//!   only when the call is idempotent or the Editor keeps an operation ledger
//!   (`operation_ledger_v1`); otherwise the outcome is unknown and it is never resent;
//! - `/approval/preflight` is always retried; `/commands` never is;
//! - resends happen every 500 ms until the request deadline or 60 s, whichever comes first.

// ConnectorError keeps the whole Connector envelope on purpose; errors are not a hot path.
#![allow(clippy::result_large_err)]

mod catalog_fetch;
mod envelope;
mod error;
pub mod transport;

pub use envelope::{Envelope, rewrite_version_skew};
pub use error::ConnectorError;

use crate::discovery::{self, AgentHome, Instance};
use hera_connector_contract::operation::OperationId;
use hera_connector_contract::wire::{EXECUTION_PROTOCOL, FEATURE_OPERATION_LEDGER};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use transport::{AttemptError, RawResponse};

/// `HERA_AGENT_TIMEOUT_MS` default. Longer than the 120 s a Connector lets a request wait for
/// its command lock, so a call queued behind a long one hears the Connector's own
/// `COMMAND_LOCK_TIMEOUT` (nothing ran) instead of timing out first with an unknown outcome
/// while the queued request may still run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(125_000);
/// Resend interval while the Editor is reloading.
pub const RETRY_INTERVAL: Duration = Duration::from_millis(500);
/// The longest we keep resending, whatever the request timeout.
pub const RETRY_CEILING: Duration = Duration::from_secs(60);
/// The catalog fetch never waits longer than this.
pub const CATALOG_TIMEOUT: Duration = Duration::from_secs(30);

/// Who is calling, sent as `meta.client_kind`. The Connector reads but does not use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientKind {
    #[default]
    Cli,
    Mcp,
}

impl ClientKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientKind::Cli => "cli",
            ClientKind::Mcp => "mcp",
        }
    }
}

/// Per-call choices for [`ConnectorClient::command`].
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Reuse this id (an approved call, or a resend after an unknown outcome); else a fresh one.
    pub operation_id: Option<OperationId>,
    /// Sent as `meta.approval_token` (`null` when `None`).
    pub approval_token: Option<String>,
    /// Sent as `meta.catalog_hash` so a stale catalog is refused (`CATALOG_STALE`). Never sent on `list`.
    pub catalog_hash: Option<String>,
    /// The resolved safety says the call may safely run twice; permits resending without a ledger.
    pub idempotent: bool,
    pub client_kind: ClientKind,
    /// Overrides the client's timeout for this call (it still covers every resend).
    pub timeout: Option<Duration>,
    /// The call's `arguments_hash` when the caller already computed it (one hash per call);
    /// otherwise computed here.
    pub arguments_hash: Option<String>,
    /// The resolved safety says the call only reads. Reads may go to a listener whose owner
    /// cannot be checked on this platform; changes and tokens never do.
    pub read_only: bool,
}

/// Whether changes and tokens may be sent to a listener whose owner this platform cannot check
/// (`--allow-unverified-listener`). Set once at startup; off by default.
static ALLOW_UNVERIFIED_LISTENER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Records the `--allow-unverified-listener` choice for this process (first call wins).
pub fn allow_unverified_listener(allow: bool) {
    let _ = ALLOW_UNVERIFIED_LISTENER.set(allow);
}

fn unverified_listener_allowed() -> bool {
    ALLOW_UNVERIFIED_LISTENER.get().copied().unwrap_or(false)
}

/// A `/command` answer, with the ids it was sent under.
#[derive(Debug, Clone)]
pub struct CommandReply {
    pub envelope: Envelope,
    pub operation_id: OperationId,
    pub arguments_hash: String,
    /// The port that answered (it can differ from the first one after a reload).
    pub port: u16,
}

/// The result of `/approval/preflight` (§5.3).
#[derive(Debug, Clone)]
pub struct Preflight {
    pub token: String,
    pub operation_id: OperationId,
    pub expires_at_ms: i64,
    /// `{tool, action, target, side_effect, reversible, may_reload_domain, external_impact, operation_id}`.
    pub summary: Value,
    /// The whole `data` object, token included, as the Connector sent it.
    pub data: Value,
}

/// A `/command` exchange before decoding.
struct SentCommand {
    raw: RawResponse,
    /// The body, already parsed when the exchange checked it was JSON.
    parsed: Option<Value>,
    operation_id: OperationId,
    arguments_hash: String,
    port: u16,
}

/// What kind of exchange, for the retry and unknown-outcome rules.
#[derive(Debug, Clone)]
enum Exchange {
    Command {
        tool: String,
        /// Reads only and carries no token: may go to an unverifiable listener.
        harmless: bool,
        operation_id: OperationId,
        /// The call may run twice harmlessly (resolved safety).
        idempotent: bool,
        /// Resending after a broken exchange is safe (idempotent, or the Editor has a ledger).
        resend_ok: bool,
    },
    Preflight,
}

impl Exchange {
    /// A reply to this exchange must be a JSON envelope. The catalog fetch is exempt: it reads
    /// the exact bytes itself (the hash is computed over them).
    fn expects_envelope(&self) -> bool {
        match self {
            Exchange::Command { tool, .. } => tool != "list",
            Exchange::Preflight => true,
        }
    }
}

/// A client bound to one project's Editor. Cheap to clone; clones share the followed target.
#[derive(Debug, Clone)]
pub struct ConnectorClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    home: AgentHome,
    target: Mutex<Instance>,
    timeout: Duration,
}

impl ConnectorClient {
    /// Binds to the project of `instance` (from [`discovery::discover`]).
    pub fn new(home: AgentHome, instance: Instance, timeout: Duration) -> ConnectorClient {
        ConnectorClient {
            inner: Arc::new(Inner {
                home,
                target: Mutex::new(instance),
                timeout,
            }),
        }
    }

    /// The latest known heartbeat of the followed project.
    pub fn instance(&self) -> Instance {
        self.inner.target.lock().expect("target lock").clone()
    }
    pub fn home(&self) -> &AgentHome {
        &self.inner.home
    }
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }
    /// `sha256:` project id of the followed project.
    pub fn project_id(&self) -> String {
        self.instance().project_id()
    }

    /// Replaces the followed heartbeat (e.g. the MCP server saw a new epoch). The project must be
    /// the same; a different project is ignored and reported as `false`.
    pub fn update_instance(&self, instance: Instance) -> bool {
        let mut t = self.inner.target.lock().expect("target lock");
        if t.normalized_path != instance.normalized_path {
            return false;
        }
        *t = instance;
        true
    }

    /// Rescans the heartbeats and moves to the project's current port. Returns the instance when
    /// the project has a live heartbeat, `None` when it has none right now. A port that now
    /// belongs to another project while ours is gone is a terminal `TARGET_MISMATCH`.
    pub async fn refresh_instance(&self) -> Result<Option<Instance>, ConnectorError> {
        let current = self.instance();
        let scan = match discovery::scan_async(&self.inner.home).await {
            Ok(s) => s,
            Err(_) => return Ok(None),
        };
        if let Some(found) = discovery::find_project(&scan, &current.normalized_path) {
            self.update_instance(found.clone());
            return Ok(Some(found));
        }
        if let Some(other) = scan
            .active()
            .find(|i| i.port() == current.port() && i.normalized_path != current.normalized_path)
        {
            return Err(discovery::DiscoveryError::TargetMismatch {
                port: current.port(),
                owner: other.project_path.clone(),
                requested: current.project_path.clone(),
            }
            .into());
        }
        Ok(None)
    }

    /// Sends one tool call to `/command` (§2.5) and decodes the answer. `success:false`
    /// envelopes are returned as `Ok`; `Err` means no trustworthy answer was obtained.
    pub async fn command(
        &self,
        tool: &str,
        params: &Map<String, Value>,
        opts: CallOptions,
    ) -> Result<CommandReply, ConnectorError> {
        let sent = self.send_command(tool, params, opts).await?;
        let mut envelope = decode(sent.raw, sent.parsed)?;
        rewrite_version_skew(tool, params, &mut envelope);
        Ok(CommandReply {
            envelope,
            operation_id: sent.operation_id,
            arguments_hash: sent.arguments_hash,
            port: sent.port,
        })
    }

    /// [`ConnectorClient::command`] without decoding: the catalog check needs the exact bytes.
    async fn send_command(
        &self,
        tool: &str,
        params: &Map<String, Value>,
        opts: CallOptions,
    ) -> Result<SentCommand, ConnectorError> {
        let operation_id = opts
            .operation_id
            .clone()
            .unwrap_or_else(OperationId::generate);
        let arguments_hash = match opts.arguments_hash {
            Some(h) => Some(h),
            None => hera_connector_contract::canonical::arguments_hash_for_request(&Value::Object(
                params.clone(),
            )),
        };
        let mut meta = json!({
            "protocol_version": EXECUTION_PROTOCOL,
            "operation_id": operation_id.as_str(),
            "approval_token": opts.approval_token,
            "client_kind": opts.client_kind.as_str(),
        });
        // Arguments holding a date with an offset hash differently in the Editor's time zone
        // (contract: "Dates in arguments"): such a request goes without a hash rather than with
        // one the Editor would refuse.
        if let Some(h) = &arguments_hash {
            meta["arguments_hash"] = Value::String(h.clone());
        }
        let arguments_hash = arguments_hash.unwrap_or_default();
        if let Some(hash) = opts.catalog_hash.as_deref().filter(|h| !h.is_empty())
            && tool != "list"
        {
            meta["catalog_hash"] = Value::String(hash.to_string());
        }
        #[derive(serde::Serialize)]
        struct Body<'a> {
            command: &'a str,
            params: &'a Map<String, Value>,
            meta: Value,
        }
        let body = serde_json::to_vec(&Body {
            command: tool,
            params,
            meta,
        })
        .expect("a JSON value always serializes");
        let resend_ok = opts.idempotent
            || self
                .instance()
                .heartbeat
                .has_feature(FEATURE_OPERATION_LEDGER);
        let exchange = Exchange::Command {
            tool: tool.to_string(),
            harmless: opts.read_only && opts.approval_token.is_none(),
            operation_id: operation_id.clone(),
            idempotent: opts.idempotent,
            resend_ok,
        };
        let timeout = opts.timeout.unwrap_or(self.inner.timeout);
        let (raw, parsed, port) = self.exchange("/command", body, &exchange, timeout).await?;
        Ok(SentCommand {
            raw,
            parsed,
            operation_id,
            arguments_hash,
            port,
        })
    }

    /// Asks the Connector for an approval token (§2.7, §5.2). `arguments` must be exactly the
    /// `params` that will be sent to `/command`. Always retried across reloads (it changes nothing).
    pub async fn preflight(
        &self,
        tool: &str,
        action: Option<&str>,
        arguments: &Map<String, Value>,
        operation_id: Option<OperationId>,
    ) -> Result<Preflight, ConnectorError> {
        let operation_id = operation_id.unwrap_or_else(OperationId::generate);
        let mut req =
            json!({"operation_id": operation_id.as_str(), "tool": tool, "arguments": arguments});
        if let Some(a) = action.filter(|a| !a.is_empty()) {
            req["action"] = Value::String(a.to_string());
        }
        let body = serde_json::to_vec(&req).expect("a JSON value always serializes");
        let (raw, parsed, _) = self
            .exchange(
                "/approval/preflight",
                body,
                &Exchange::Preflight,
                self.inner.timeout,
            )
            .await?;
        let envelope = decode(raw, parsed)?;
        if !envelope.success {
            return Err(ConnectorError::Rejected { envelope });
        }
        let data = envelope.data().cloned().unwrap_or(Value::Null);
        let token = data.get("token").and_then(Value::as_str).unwrap_or("");
        let op = data
            .get("operation_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        if token.is_empty() || op.is_empty() {
            return Err(ConnectorError::InvalidResponse(
                "approval preflight returned incomplete data (no token or operation_id)".into(),
            ));
        }
        let operation_id = OperationId::parse(op).map_err(|e| {
            ConnectorError::InvalidResponse(format!("approval preflight operation id: {e}"))
        })?;
        Ok(Preflight {
            token: token.to_string(),
            operation_id,
            expires_at_ms: data
                .get("expires_at_ms")
                .and_then(Value::as_i64)
                .unwrap_or(0),
            summary: data.get("summary").cloned().unwrap_or(Value::Null),
            data,
        })
    }

    /// Sends `body` to `path`, resending per the module rules. Returns the response, its body
    /// parsed when this exchange expects an envelope, and the port that produced it.
    ///
    /// A `200` whose body is not JSON is never an answer: nothing says whether the Editor ran
    /// the request, so it counts as a broken exchange (resent under the same operation id only
    /// when that is safe, otherwise an unknown outcome).
    async fn exchange(
        &self,
        path: &'static str,
        body: Vec<u8>,
        kind: &Exchange,
        timeout: Duration,
    ) -> Result<(RawResponse, Option<Value>, u16), ConnectorError> {
        // The Connector refuses an oversized body on its declared length without reading it,
        // and the unread bytes may come back as a reset that looks like a broken exchange
        // (resent, then "outcome unknown" for a request that never ran). Refuse it here.
        let limit = hera_connector_contract::wire::MAX_COMMAND_BODY;
        if body.len() > limit {
            return Err(ConnectorError::InvalidRequest {
                code: "REQUEST_TOO_LARGE",
                message: format!(
                    "the request is {} bytes; the Unity Connector accepts at most {limit} bytes \
                     per {path} request, so it was not sent. Send less per call (split the \
                     work, or reference files by path instead of inlining them)",
                    body.len()
                ),
            });
        }
        // Nested deeper than the Connector's reader allows, the body is not JSON to it.
        let depth = hera_connector_contract::wire::nesting_depth(&body);
        if depth > hera_connector_contract::wire::MAX_BODY_DEPTH {
            return Err(ConnectorError::InvalidRequest {
                code: "REQUEST_TOO_DEEP",
                message: format!(
                    "the request nests objects and arrays {depth} levels deep; the Unity \
                     Connector reads at most {} levels (the arguments sit two levels down), so \
                     it was not sent. Flatten the arguments",
                    hera_connector_contract::wire::MAX_BODY_DEPTH
                ),
            });
        }
        let start = Instant::now();
        let deadline = start + timeout;
        let resend_until = deadline.min(start + RETRY_CEILING);
        let first = self.instance();
        let mut delivered = false;
        let mut last_reason;
        loop {
            let target = self.instance();
            let port = target.port();
            let now = Instant::now();
            if now >= deadline {
                return Err(self
                    .deadline_error(kind, &first, delivered, "the request timed out".into())
                    .await);
            }
            let attempt = if port == 0 {
                Err(AttemptError::NotDelivered(
                    "the Editor is not listening yet (heartbeat port 0)".into(),
                ))
            } else {
                match self.check_listener(kind, &target)? {
                    Some(not_yet) => Err(AttemptError::NotDelivered(not_yet)),
                    None => transport::post(port, path, body.clone(), deadline - now).await,
                }
            };
            let attempt = attempt.and_then(|raw| {
                if !kind.expects_envelope() || raw.status != 200 {
                    return Ok((raw, None));
                }
                match serde_json::from_slice::<Value>(strip_bom(&raw.body)) {
                    Ok(v) => Ok((raw, Some(v))),
                    Err(e) => Err(AttemptError::Broken(format!(
                        "the reply is not a Connector envelope (not JSON: {e})"
                    ))),
                }
            });
            match attempt {
                Ok((raw, parsed)) => return Ok((raw, parsed, port)),
                Err(AttemptError::Fatal(reason)) => {
                    return Err(ConnectorError::ConnectFailed { port, reason });
                }
                Err(AttemptError::TooLarge) => {
                    return Err(ConnectorError::ResponseTooLarge {
                        limit: hera_connector_contract::wire::MAX_RESPONSE_BODY,
                    });
                }
                Err(AttemptError::TimedOut(reason)) => {
                    tracing::debug!(port, path, %reason, "request timed out");
                    return Err(self.deadline_error(kind, &first, true, reason).await);
                }
                Err(AttemptError::NotDelivered(reason)) => {
                    tracing::debug!(port, path, %reason, "not delivered; will retry");
                    last_reason = reason;
                }
                Err(AttemptError::Broken(reason)) => {
                    tracing::debug!(port, path, %reason, "exchange broke");
                    delivered = true;
                    let resend_ok = match kind {
                        Exchange::Command { resend_ok, .. } => *resend_ok,
                        Exchange::Preflight => true,
                    };
                    if !resend_ok {
                        return Err(self.outcome_unknown(kind, &target, reason));
                    }
                    last_reason = reason;
                }
            }
            // Transient: find the project again (it may have moved port), then wait a beat.
            self.refresh_instance().await?;
            let now = Instant::now();
            if now + RETRY_INTERVAL >= resend_until {
                if resend_until < deadline {
                    tokio::time::sleep(resend_until.saturating_duration_since(now)).await;
                }
                return Err(self
                    .deadline_error(kind, &first, delivered, last_reason)
                    .await);
            }
            tokio::time::sleep(RETRY_INTERVAL).await;
        }
    }

    /// Before every send (resends included): is the socket on the heartbeat's port the Editor's?
    /// A stranger's is never sent anything; an unverifiable one only harmless reads, unless the
    /// user allowed it. `Ok(Some(_))`: nothing listens right now (not delivered; retried).
    fn check_listener(
        &self,
        kind: &Exchange,
        target: &Instance,
    ) -> Result<Option<String>, ConnectorError> {
        let port = target.port();
        let pid = target.pid();
        // Inline: the check takes tens of microseconds (one netlink exchange on Linux), less
        // than handing it to the blocking pool, whose extra threads each cost a malloc arena.
        let check = discovery::verify_listener(port, pid);
        let harmless = matches!(kind, Exchange::Command { harmless: true, .. });
        match &check {
            discovery::ListenerCheck::Verified { .. } => Ok(None),
            discovery::ListenerCheck::NotListening => Ok(Some(check.describe(port))),
            discovery::ListenerCheck::Unverifiable { .. }
                if harmless || unverified_listener_allowed() =>
            {
                Ok(None)
            }
            discovery::ListenerCheck::Unverifiable { .. } => {
                Err(ConnectorError::UntrustedListener {
                    port,
                    reason: format!(
                        "{}, so a change or an approval token is not sent there (start with \
                         --allow-unverified-listener / HERA_AGENT_ALLOW_UNVERIFIED_LISTENER=1 to \
                         accept that risk on this machine)",
                        check.describe(port)
                    ),
                })
            }
            discovery::ListenerCheck::Stranger { .. } => Err(ConnectorError::UntrustedListener {
                port,
                reason: check.describe(port),
            }),
        }
    }

    fn outcome_unknown(
        &self,
        kind: &Exchange,
        target: &Instance,
        reason: String,
    ) -> ConnectorError {
        let (tool, operation_id) = match kind {
            Exchange::Command {
                tool, operation_id, ..
            } => (tool.clone(), operation_id.to_string()),
            Exchange::Preflight => ("(preflight)".to_string(), String::new()),
        };
        ConnectorError::OutcomeUnknown {
            operation_id,
            tool,
            project: target.project_path.clone(),
            port: target.port(),
            reason,
        }
    }

    /// The error for a request that ran out of time. A delivered, non-idempotent command has an
    /// unknown outcome; otherwise say what happened to the Editor (§2.10 step 4).
    async fn deadline_error(
        &self,
        kind: &Exchange,
        first: &Instance,
        delivered: bool,
        reason: String,
    ) -> ConnectorError {
        // A ledger makes resending safe, but once the deadline passes with the request delivered
        // we cannot say whether it ran, unless running it twice would not matter.
        let unknown = delivered
            && match kind {
                Exchange::Command { idempotent, .. } => !idempotent,
                Exchange::Preflight => false,
            };
        if unknown {
            return self.outcome_unknown(kind, &self.instance(), reason);
        }
        let now = self.refresh_instance().await.ok().flatten();
        match now {
            None => ConnectorError::TargetLost {
                project: first.project_path.clone(),
                port: self.instance().port(),
                reason,
            },
            Some(i) if i.pid() != first.pid() => ConnectorError::TargetRestarted {
                project: first.project_path.clone(),
                port: i.port(),
                old_pid: first.pid(),
                new_pid: i.pid(),
            },
            Some(i) => ConnectorError::TargetUnresponsive {
                project: first.project_path.clone(),
                port: i.port(),
                pid: i.pid(),
                reason,
            },
        }
    }
}

/// A UTF-8 byte-order mark some .NET writers put first.
fn strip_bom(body: &[u8]) -> &[u8] {
    body.strip_prefix("\u{feff}".as_bytes()).unwrap_or(body)
}

/// Turns a whole response into an envelope (contract: Responses). `parsed` is the body when the
/// exchange already parsed it, so a reply is decoded once.
fn decode(raw: RawResponse, parsed: Option<Value>) -> Result<Envelope, ConnectorError> {
    if let Some(v) = parsed {
        return Ok(Envelope::from_value(v));
    }
    let text = String::from_utf8_lossy(strip_bom(&raw.body));
    if raw.status != 200 && text.trim().is_empty() {
        return Err(ConnectorError::HttpStatus {
            status: raw.status,
            label: transport::status_label(raw.status),
            body: String::new(),
        });
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(v) => {
            let env = Envelope::from_value(v);
            if raw.status != 200 && env.code.is_none() {
                return Err(ConnectorError::HttpStatus {
                    status: raw.status,
                    label: transport::status_label(raw.status),
                    body: text.chars().take(500).collect(),
                });
            }
            Ok(env)
        }
        Err(e) if raw.status == 200 => Err(ConnectorError::InvalidResponse(format!(
            "the reply is not a Connector envelope (not JSON: {e})"
        ))),
        Err(_) => Err(ConnectorError::HttpStatus {
            status: raw.status,
            label: transport::status_label(raw.status),
            body: text.chars().take(500).collect(),
        }),
    }
}

#[cfg(test)]
mod tests;
