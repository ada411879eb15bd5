//! `POST /command` (§2.5): the Connector's pipeline, step by step and in its order.
//!
//! 1. body checks (done by `http`), `HTTP_MISSING_COMMAND`;
//! 2. request context: `INVALID_OPERATION_ID`, `ARGUMENTS_HASH_MISMATCH` (before queueing,
//!    `"timings":null`);
//! 3. a queue place (`HTTP_QUEUE_FULL`), then the command lock (`COMMAND_LOCK_TIMEOUT`,
//!    `"timings":null`);
//! 4. protocol version; 5. catalog hash (also on `list`); 6. `list`;
//! 7. action resolution (`UNKNOWN_COMMAND`, `UNKNOWN_ACTION`); 8. validation;
//! 9. safety on the normalized params; 10. ledger begin and approval; 11. the handler;
//! 12. commit, `total_ms`, write, `responded`; 13. ledger cleanup (done by `http`).
//!
//! Legacy mode ignores `meta` entirely: no ids, no hash check, no ledger, no approval.

// An `Err` here is the complete answer to one request, built once per request: its size is
// irrelevant, and boxing it would only add noise.
#![allow(clippy::result_large_err)]

use crate::approval::Binding;
use crate::catalog::{self, ActionResolution, ValidationFailure};
use crate::connector::Connector;
use crate::envelope::{Envelope, Reply};
use crate::faults::{Fault, FaultKind};
use crate::handlers::{Call, Ran};
use crate::http::{AfterWrite, Answer, ParsedRequest};
use crate::ledger::{Begin, OperationKey};
use hera_connector_contract::canonical::{
    self, EditorZone, Json, arguments_hash_json, arguments_hash_json_in,
};
use hera_connector_contract::catalog::Safety;
use hera_connector_contract::operation::OperationId;
use hera_connector_contract::wire::EXECUTION_PROTOCOL;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The `meta` block as the Connector reads it (§2.5).
#[derive(Debug, Clone)]
pub struct RequestMeta {
    pub operation_id: String,
    /// The server's own canonical hash of the raw params (always used for ledger and approval).
    pub arguments_hash: String,
    pub protocol_version: Option<String>,
    pub approval_token: Option<String>,
    pub catalog_hash: Option<String>,
}

/// A meta value as text: strings as they are, numbers and booleans as their JSON text
/// (Newtonsoft converts them); `null` and blank strings are "absent", except for
/// `arguments_hash`, where only the empty string is (a whitespace hash is compared, and fails).
fn meta_text(meta: Option<&Map<String, Value>>, key: &str) -> Result<Option<String>, ()> {
    match meta.and_then(|m| m.get(key)) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() && key != "arguments_hash" => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => Ok(Some(v.to_string())),
        Some(_) => Err(()),
    }
}

/// `arguments_hash` of the raw `params` member of a body, as an Editor in `zone` computes it from
/// the parsed request: absent or non-object params hash as `{}`.
pub fn raw_member_hash(body: &str, member: &str, zone: EditorZone) -> String {
    let empty = Json::Object(Vec::new());
    match canonical::parse(body) {
        Ok(Json::Object(members)) => {
            match members.iter().find(|(k, _)| k == member).map(|(_, v)| v) {
                Some(v @ Json::Object(_)) => arguments_hash_json_in(v, zone),
                _ => arguments_hash_json(&empty),
            }
        }
        _ => arguments_hash_json(&empty),
    }
}

impl RequestMeta {
    /// Step 2. Errors are complete `/command` answers (HTTP 200, `"timings":null`).
    pub fn read(req: &ParsedRequest, zone: EditorZone) -> Result<RequestMeta, Envelope> {
        let meta = req.object.get("meta").and_then(Value::as_object);
        let invalid_id = || {
            Envelope::error(
                "INVALID_OPERATION_ID",
                "operation_id must contain only letters, digits, '_' or '-' and be 8-128 characters.",
            )
        };
        let operation_id = match meta_text(meta, "operation_id").map_err(|_| invalid_id())? {
            None => {
                let guid: [u8; 16] = rand::random();
                format!(
                    "op_{}",
                    guid.iter().map(|b| format!("{b:02x}")).collect::<String>()
                )
            }
            Some(id) => OperationId::parse(&id)
                .map_err(|_| invalid_id())?
                .to_string(),
        };
        let arguments_hash = raw_member_hash(&req.text, "params", zone);
        if let Ok(Some(sent)) = meta_text(meta, "arguments_hash")
            && sent != arguments_hash
        {
            return Err(Envelope::error(
                "ARGUMENTS_HASH_MISMATCH",
                format!(
                    "arguments_hash {sent} does not match the Connector's canonical hash of params ({arguments_hash}); send the params exactly as hashed, or omit arguments_hash."
                ),
            ));
        }
        Ok(RequestMeta {
            operation_id,
            arguments_hash,
            protocol_version: meta_text(meta, "protocol_version").ok().flatten(),
            approval_token: meta_text(meta, "approval_token").ok().flatten(),
            catalog_hash: meta_text(meta, "catalog_hash").ok().flatten(),
        })
    }
}

/// The answer when the lock could not be had in time (`"timings":null`).
pub fn lock_timeout(wait: Duration) -> Envelope {
    Envelope::error(
        "COMMAND_LOCK_TIMEOUT",
        format!(
            "Timed out after {} ms waiting for the Editor's command lock; another command is still running.",
            wait.as_millis()
        ),
    )
}

/// An exception that escaped the router: `INTERNAL_ERROR`, `"timings":null`.
pub fn internal_error(what: impl std::fmt::Display) -> Envelope {
    Envelope::error("INTERNAL_ERROR", format!("Request handling error: {what}"))
}

fn ms_since(t: Instant) -> i64 {
    t.elapsed().as_millis() as i64
}

/// A call that passed steps 7–9.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub tool: String,
    pub action: Option<String>,
    pub normalized: Map<String, Value>,
    pub safety: Safety,
}

fn failure(f: ValidationFailure) -> Envelope {
    Envelope::error(&f.code, f.message).with_data(f.data)
}

/// `UNKNOWN_COMMAND` with typo candidates.
pub fn unknown_command(c: &Connector, command: &str) -> Envelope {
    let near = c.tools.lock().expect("tools").did_you_mean(command);
    let mut e = Envelope::error("UNKNOWN_COMMAND", format!("Unknown command: {command}"))
        .with_suggestions(vec![
            "List the available tools with list {\"names\":true}, or fetch the catalog."
                .to_string(),
        ]);
    if !near.is_empty() {
        e = e.with_data(json!({ "did_you_mean": near }));
    }
    e
}

/// Steps 7–9: action, validation, safety. `Err` is the answer (safety errors are internal).
pub fn resolve(
    c: &Connector,
    command: &str,
    params: &Map<String, Value>,
) -> Result<Resolved, (Envelope, bool)> {
    if let Some((_, why)) = c
        .unbuildable
        .lock()
        .expect("unbuildable")
        .iter()
        .find(|(n, _)| n == command)
    {
        return Err((
            internal_error(format!(
                "Failed to build the tool contract of '{command}': {why}"
            )),
            true,
        ));
    }
    let tools = c.tools.lock().expect("tools");
    let Some(tool) = tools.get(command) else {
        drop(tools);
        return Err((unknown_command(c, command), false));
    };
    let (action, to_validate) = match catalog::resolve_action(tool, params) {
        ActionResolution::Action { name, params, .. } => (Some(name), params),
        ActionResolution::Default => (None, params.clone()),
        ActionResolution::Unknown(f) => return Err((failure(f), false)),
    };
    let entry = action.as_deref().and_then(|a| tool.action(a));
    let normalized =
        catalog::validate(tool, entry, &to_validate).map_err(|f| (failure(f), false))?;
    let safety = catalog::effective_safety(tool, action.as_deref(), &normalized)
        .map_err(|e| (internal_error(e), true))?;
    Ok(Resolved {
        tool: tool.name.clone(),
        action,
        normalized,
        safety,
    })
}

/// Step 11: runs the handler. Counts a side effect for every executed call whose resolved
/// safety is not read-only (tests prove "exactly one side effect" with this count).
pub fn execute(c: &Connector, r: &Resolved) -> Ran {
    let ran = c.invoke(&Call {
        tool: r.tool.clone(),
        action: r.action.clone(),
        params: r.normalized.clone(),
    });
    if !r.safety.read_only {
        c.count_side_effect(&r.tool, r.action.as_deref());
    }
    ran
}

/// How a step ends a request early.
enum Stop {
    /// An answer produced under the lock: it gets `total_ms`.
    Timed(Envelope),
    /// An answer that keeps `"timings":null` (`INTERNAL_ERROR`).
    Untimed(Envelope),
    /// A ledger replay, sent exactly as stored; like any written `/command` answer with an
    /// operation id, it marks the record `responded` once written.
    Verbatim(String, String),
}

impl Stop {
    fn answer(self, started: Instant) -> Answer {
        match self {
            Stop::Timed(e) => Answer::ok(e.with_total_ms(ms_since(started)).to_text()),
            Stop::Untimed(e) => Answer::ok(e.to_text()),
            Stop::Verbatim(t, op) => Answer::Json {
                status: 200,
                body: t,
                after: AfterWrite {
                    responded: Some(op),
                    reload: None,
                },
            },
        }
    }
}

/// Steps 4 and 5: the protocol version and the catalog hash, when the request sent them.
fn check_freshness(c: &Connector, meta: &RequestMeta) -> Result<(), Stop> {
    if let Some(v) = meta
        .protocol_version
        .as_deref()
        .filter(|v| *v != EXECUTION_PROTOCOL)
    {
        return Err(Stop::Timed(
            Envelope::error(
                "EXECUTION_PROTOCOL_UNSUPPORTED",
                format!("Unsupported execution protocol: {v}"),
            )
            .with_data(json!({
                "request_protocol_version": v,
                "current_protocol_version": EXECUTION_PROTOCOL,
            })),
        ));
    }
    if let Some(h) = &meta.catalog_hash {
        // The current hash comes from the domain's catalog, which may have failed to build.
        c.catalog_build()
            .map_err(|why| Stop::Untimed(internal_error(why)))?;
        let current = c.tools.lock().expect("tools").catalog_hash();
        if *h != current {
            return Err(Stop::Timed(
                Envelope::error(
                    "CATALOG_STALE",
                    "The tool catalog changed since it was fetched; fetch it again and retry.",
                )
                .with_data(json!({
                    "request_catalog_hash": h,
                    "current_catalog_hash": current,
                    "domain_epoch": c.epoch(),
                })),
            ));
        }
    }
    Ok(())
}

/// Step 10: when the ledger applies (not read-only-and-idempotent), the begin rules of §6.6,
/// then approval (§5.5), then `received` and `running`. Returns the operation's ledger key.
fn begin_operation(
    c: &Connector,
    meta: &RequestMeta,
    r: &Resolved,
) -> Result<Option<OperationKey>, Stop> {
    if !r.safety.uses_ledger() {
        return Ok(None);
    }
    let key = OperationKey {
        operation_id: meta.operation_id.clone(),
        tool: r.tool.clone(),
        action: r.action.clone(),
        arguments_hash: meta.arguments_hash.clone(),
        risk_class: r.safety.risk_class.as_str().to_string(),
        idempotent: r.safety.idempotent,
    };
    let epoch = c.epoch();
    let approval_done = match c.ledger.begin(&key, &epoch) {
        Err(e) => return Err(Stop::Untimed(internal_error(e))),
        Ok(Begin::Replay(text)) => return Err(Stop::Verbatim(text, key.operation_id.clone())),
        Ok(Begin::Refuse(e)) => return Err(Stop::Timed(e)),
        Ok(Begin::Run { approval_done }) => approval_done,
    };
    if r.safety.requires_confirmation && !approval_done {
        let Some(token) = &meta.approval_token else {
            return Err(Stop::Timed(Envelope::error(
                "APPROVAL_REQUIRED",
                "This operation requires an approval token.",
            )));
        };
        let binding = Binding {
            operation_id: key.operation_id.clone(),
            tool: key.tool.clone(),
            action: key.action.clone(),
            arguments_hash: key.arguments_hash.clone(),
            risk_class: key.risk_class.clone(),
            project_id: c.settings.project_id.clone(),
        };
        let now = c.clock.now_ms();
        c.with_domain(|d| d.approval.verify_and_consume(token, &binding, now))
            .map_err(Stop::Timed)?;
    }
    let verified = r.safety.requires_confirmation;
    c.ledger
        .start(&key, verified, &epoch, c.clock.now_ms())
        .map_err(|e| Stop::Untimed(internal_error(e)))?;
    Ok(Some(key))
}

/// Steps 11 and 12 under the lock, with any execution fault: the handler, the commit (the
/// stored response has no `total_ms`), then `total_ms` on the answer.
async fn run(
    c: &Arc<Connector>,
    lock: tokio::sync::MutexGuard<'_, ()>,
    command: &str,
    r: &Resolved,
    key: Option<OperationKey>,
    started: Instant,
) -> Answer {
    let fault = c.take_fault(FaultKind::Execution, "/command", Some(command));
    if let Some(Fault::Hang { .. }) = fault {
        // The handler's task never completes and the router awaits it holding the lock:
        // every later command waits `lock_wait` and gets COMMAND_LOCK_TIMEOUT. Only the end
        // of the domain frees it (and drops the connection).
        c.until_domain_ends().await;
        drop(lock);
        return Answer::Reset;
    }
    let Ran {
        reply,
        reload,
        hold,
    } = execute(c, r);
    if let Some(d) = hold {
        tokio::select! {
            _ = tokio::time::sleep(d) => {}
            _ = c.until_domain_ends() => {
                // A reload kills the run mid-way: nothing is committed, the record stays
                // `running` in the old epoch.
                drop(lock);
                return Answer::Reset;
            }
        }
    }
    if let Some(Fault::UnserializableResult { .. }) = fault {
        // The handler ran but its result cannot be serialized: with the ledger the commit
        // throws (the record stays `running`) and the router answers INTERNAL_ERROR; without
        // it the write fails and the listener answers 500 RESPONSE_WRITE_FAILED.
        drop(lock);
        return if key.is_some() {
            Answer::ok(internal_error("Self referencing loop detected in the result.").to_text())
        } else {
            // A hand-written best-effort body: its own key order and no `timings`.
            Answer::Json {
                status: 500,
                body: format!(
                    "{{\"success\":false,\"code\":\"RESPONSE_WRITE_FAILED\",\"message\":{}}}",
                    Value::String(
                        "Failed to write response: Self referencing loop detected in the result."
                            .into()
                    )
                ),
                after: AfterWrite::default(),
            }
        };
    }
    if let Some(Fault::ReloadWhileRunning {
        downtime_ms,
        new_port,
    }) = fault
    {
        drop(lock);
        c.reload(Duration::from_millis(downtime_ms), new_port);
        return Answer::Reset;
    }
    if let Some(key) = &key
        && let Err(e) = c.ledger.commit(
            &key.operation_id,
            &reply.text(),
            reply.is_error_response(),
            c.clock.now_ms(),
        )
    {
        return Answer::ok(internal_error(e).to_text());
    }
    match fault {
        Some(Fault::ResetAfterExecute { .. }) => {
            drop(lock);
            if let Some(ask) = reload {
                c.reload_with(c.reload_downtime, false, ask.first_state);
            }
            return Answer::Reset;
        }
        Some(Fault::ReloadAfterCommit {
            downtime_ms,
            new_port,
        }) => {
            drop(lock);
            c.reload(Duration::from_millis(downtime_ms), new_port);
            return Answer::Reset;
        }
        Some(Fault::Delay { ms, .. }) => tokio::time::sleep(Duration::from_millis(ms)).await,
        _ => {}
    }
    drop(lock);
    let body = match reply {
        Reply::Envelope(e) => e.with_total_ms(ms_since(started)).to_text(),
        Reply::Verbatim(t) => t,
    };
    Answer::Json {
        status: 200,
        body,
        after: AfterWrite {
            responded: key.map(|k| k.operation_id),
            reload,
        },
    }
}

/// The `/command` endpoint: steps 1–3 here, the rest in the helpers above.
pub async fn command(c: &Arc<Connector>, req: ParsedRequest) -> Answer {
    // A non-string `command` is read through `ToString()`, so `5` names the tool "5".
    let Some(command) = req
        .object
        .get("command")
        .and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
            other => Some(other.to_string()),
        })
        .filter(|s| !s.is_empty())
    else {
        return Answer::http_error(
            400,
            "HTTP_MISSING_COMMAND",
            "The request has no \"command\"; send {\"command\":\"<tool>\",\"params\":{…}}.",
        );
    };
    let params = match req.object.get("params") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    // 2. The request context (legacy Connectors have none).
    let meta = if c.legacy() {
        None
    } else {
        match RequestMeta::read(&req, c.quirks().zone) {
            Ok(m) => Some(m),
            Err(e) => return Answer::ok(e.to_text()),
        }
    };
    // 3. A queue place, then the lock.
    let Some(_slot) = c.enqueue() else {
        return crate::http::queue_full();
    };
    let wait = c.settings.lock_wait;
    if c.take_fault(FaultKind::Lock, "/command", Some(&command))
        .is_some()
    {
        return Answer::ok(lock_timeout(wait).to_text());
    }
    let Ok(lock) = tokio::time::timeout(wait, c.command_lock.lock()).await else {
        return Answer::ok(lock_timeout(wait).to_text());
    };
    let started = req.started;
    if let Some(m) = &meta
        && let Err(stop) = check_freshness(c, m)
    {
        return stop.answer(started);
    }
    if command == "list" {
        // Only a fault armed with `FaultMatch::tool("list")` reaches here (default matchers
        // never select `list`): a catalog fetch that is slow or never answers.
        match c.take_fault(FaultKind::Execution, "/command", Some("list")) {
            Some(Fault::Delay { ms, .. }) => tokio::time::sleep(Duration::from_millis(ms)).await,
            Some(Fault::Hang { .. }) => {
                c.until_domain_ends().await;
                drop(lock);
                return Answer::Reset;
            }
            _ => {}
        }
        if !c.legacy()
            && let Err(why) = crate::list::needs_catalog(c, &params)
        {
            return Stop::Untimed(internal_error(why)).answer(started);
        }
        return Stop::Timed(crate::list::answer(c, &params)).answer(started);
    }
    let resolved = match resolve(c, &command, &params) {
        Ok(r) => r,
        Err((e, true)) => return Stop::Untimed(e).answer(started),
        Err((e, false)) => return Stop::Timed(e).answer(started),
    };
    let key = match &meta {
        Some(m) => match begin_operation(c, m, &resolved) {
            Ok(key) => key,
            Err(stop) => return stop.answer(started),
        },
        None => None,
    };
    run(c, lock, &command, &resolved, key, started).await
}
