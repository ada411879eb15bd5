//! The loopback control endpoint: every [`Simulator`] knob as JSON over HTTP, so the standalone
//! binary can be driven by tests in other processes (or by hand with curl).
//!
//! `POST /control` with `{"op":"<name>", …}`; the answer is `{"ok":true, …}` or
//! `{"ok":false,"error":"…"}` (HTTP 400). Operations:
//!
//! | op | fields | effect |
//! |---|---|---|
//! | `status` | | port, epoch, project, catalog hash, counters |
//! | `reload` | `downtime_ms` (500), `new_port` (false) | a domain reload |
//! | `inject` | `fault` (a [`Fault`] as JSON, e.g. `{"kind":"reset_after_execute","times":1}`), `match` (optional [`FaultMatch`]) | arms a fault |
//! | `clear_faults` | | disarms all faults |
//! | `set_state` | `state` (string or null) | pins or unpins the heartbeat state |
//! | `set_pid` | `pid` | heartbeat pid |
//! | `set_compile_errors` | `on` | compile errors |
//! | `freeze_heartbeat` | `frozen` | stale timestamps |
//! | `write_stopped`, `remove_heartbeat`, `write_partial_heartbeat`, `resume_heartbeat` | | heartbeat file knobs |
//! | `set_heartbeat_port` | `port` (number or null) | advertised port |
//! | `set_heartbeat_epoch` | `epoch` (string or null) | advertised epoch |
//! | `set_features` | `features` (strings) | advertised features |
//! | `set_legacy` | `on` | legacy Connector mode |
//! | `advance_clock` | `ms` | simulated time |
//! | `side_effects` | `tool`, `action` (optional) | `{"count":n}` |
//! | `requests_seen` | `path` | `{"count":n}` |
//! | `set_job_delay` | `ms` | how long test runs, package jobs, builds and bakes take |
//! | `set_play_mode_reloads_domain` | `on` | entering play mode reloads the domain |
//! | `set_package_stall` | `on` | new package jobs never finish (→ `PACKAGE_TIMEOUT`) |
//! | `set_package_completion` | `mode`: `direct`, `verified_after_reload`, `resume_verify_fails`, `resume_list_fails` | how package jobs report |
//! | `add_custom_tool` | `tool` (a catalog tool entry) | adds or replaces a tool |
//! | `remove_tool` | `name` | removes a tool |
//! | `shutdown` | | the Editor quits (the binary exits) |
//!
//! It binds 127.0.0.1 only and exists only when asked for (`--control-port`).

use crate::connector::Connector;
use crate::{Fault, FaultMatch, Reload, Simulator};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::io;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::watch;

/// The running control listener.
pub struct ControlServer {
    pub port: u16,
    stop: watch::Sender<bool>,
}

impl ControlServer {
    /// Binds `127.0.0.1:port` (0 = OS-assigned) and serves control requests for the simulator
    /// that `life` keeps alive (held weakly, so the server never keeps the Editor running).
    pub(crate) fn start(
        connector: Arc<Connector>,
        life: Weak<crate::Life>,
        port: u16,
    ) -> io::Result<ControlServer> {
        let std_listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        std_listener.set_nonblocking(true)?;
        let port = std_listener.local_addr()?.port();
        let listener = tokio::net::TcpListener::from_std(std_listener)?;
        let (stop, mut stop_rx) = watch::channel(false);
        let runtime = connector.runtime.clone();
        runtime.spawn(async move {
            loop {
                tokio::select! {
                    _ = stop_rx.changed() => break,
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        let (c, life) = (connector.clone(), life.clone());
                        tokio::spawn(async move {
                            let svc = hyper::service::service_fn(move |req| {
                                let (c, life) = (c.clone(), life.clone());
                                async move { Ok::<_, std::convert::Infallible>(handle(c, life, req).await) }
                            });
                            let _ = hyper::server::conn::http1::Builder::new()
                                .keep_alive(false)
                                .serve_connection(TokioIo::new(stream), svc)
                                .await;
                        });
                    }
                }
            }
        });
        Ok(ControlServer { port, stop })
    }

    pub fn close(&self) {
        let _ = self.stop.send(true);
    }
}

fn reply(status: u16, v: Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = hyper::StatusCode::from_u16(status).expect("valid status");
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

async fn handle(
    c: Arc<Connector>,
    life: Weak<crate::Life>,
    req: Request<Incoming>,
) -> Response<Full<Bytes>> {
    if req.method() != hyper::Method::POST || req.uri().path() != "/control" {
        return reply(
            404,
            json!({"ok": false, "error": "POST a JSON object with an \"op\" to /control"}),
        );
    }
    let Some(life) = life.upgrade() else {
        return reply(
            503,
            json!({"ok": false, "error": "the simulator has shut down"}),
        );
    };
    let sim = Simulator { c, life };
    let body = match Limited::new(req.into_body(), 1024 * 1024).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return reply(400, json!({"ok": false, "error": "body too large"})),
    };
    let v: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return reply(
                400,
                json!({"ok": false, "error": "the body must be a JSON object"}),
            );
        }
    };
    match apply(&sim, &v) {
        Ok(extra) => {
            let mut out = json!({"ok": true});
            if let (Some(o), Value::Object(e)) = (out.as_object_mut(), extra) {
                o.extend(e);
            }
            reply(200, out)
        }
        Err(e) => reply(400, json!({"ok": false, "error": e})),
    }
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("missing field \"{key}\""))
}

fn flag(v: &Value, key: &str) -> Result<bool, String> {
    field(v, key)?
        .as_bool()
        .ok_or_else(|| format!("\"{key}\" must be a boolean"))
}

/// Runs one control operation; returns extra fields for the answer.
pub fn apply(sim: &Simulator, v: &Value) -> Result<Value, String> {
    let op = v
        .get("op")
        .and_then(Value::as_str)
        .ok_or("missing \"op\"")?;
    let io = |r: io::Result<()>| r.map(|_| json!({})).map_err(|e| e.to_string());
    match op {
        "status" => Ok(json!({
            "port": sim.port(),
            "domain_epoch": sim.domain_epoch(),
            "project_path": sim.project_path(),
            "project_id": sim.project_id(),
            "heartbeat_path": sim.heartbeat_path(),
            "status_dir": sim.status_dir(),
            "ledger_dir": sim.ledger_dir(),
            "catalog_hash": sim.catalog_hash(),
            "side_effects": sim.side_effects(),
            "now_ms": sim.now_ms(),
        })),
        "reload" => {
            let downtime = v.get("downtime_ms").and_then(Value::as_u64).unwrap_or(500);
            let new_port = v.get("new_port").and_then(Value::as_bool).unwrap_or(false);
            sim.reload(Reload {
                downtime: Duration::from_millis(downtime),
                new_port,
            });
            Ok(json!({}))
        }
        "inject" => {
            let fault: Fault = serde_json::from_value(field(v, "fault")?.clone())
                .map_err(|e| format!("bad fault: {e}"))?;
            let matcher: FaultMatch = match v.get("match") {
                Some(m) => {
                    serde_json::from_value(m.clone()).map_err(|e| format!("bad match: {e}"))?
                }
                None => FaultMatch::command(),
            };
            sim.inject_matching(matcher, fault);
            Ok(json!({}))
        }
        "clear_faults" => {
            sim.clear_faults();
            Ok(json!({}))
        }
        "set_state" => match v.get("state") {
            Some(Value::String(s)) => io(sim.set_state(s)),
            _ => io(sim.clear_state()),
        },
        "set_pid" => {
            let pid = field(v, "pid")?
                .as_i64()
                .ok_or("\"pid\" must be an integer")?;
            io(sim.set_pid(pid))
        }
        "set_compile_errors" => io(sim.set_compile_errors(flag(v, "on")?)),
        "freeze_heartbeat" => io(sim.freeze_heartbeat(flag(v, "frozen")?)),
        "write_stopped" => io(sim.write_stopped()),
        "remove_heartbeat" => io(sim.remove_heartbeat()),
        "write_partial_heartbeat" => io(sim.write_partial_heartbeat()),
        "resume_heartbeat" => io(sim.resume_heartbeat()),
        "set_heartbeat_port" => {
            let port = match v.get("port") {
                None | Some(Value::Null) => None,
                Some(p) => Some(
                    p.as_u64()
                        .and_then(|p| u16::try_from(p).ok())
                        .ok_or("\"port\" must be 0-65535 or null")?,
                ),
            };
            io(sim.set_heartbeat_port(port))
        }
        "set_heartbeat_epoch" => {
            io(sim.set_heartbeat_epoch(v.get("epoch").and_then(Value::as_str)))
        }
        "set_features" => {
            let features: Vec<String> = serde_json::from_value(field(v, "features")?.clone())
                .map_err(|_| "\"features\" must be an array of strings".to_string())?;
            io(sim.set_features(features))
        }
        "set_legacy" => io(sim.set_legacy(flag(v, "on")?)),
        "advance_clock" => {
            let ms = field(v, "ms")?
                .as_u64()
                .ok_or("\"ms\" must be a non-negative integer")?;
            sim.advance_clock(Duration::from_millis(ms));
            Ok(json!({}))
        }
        "side_effects" => Ok(
            json!({"count": match v.get("tool").and_then(Value::as_str) {
                Some(t) => sim.side_effects_of(t, v.get("action").and_then(Value::as_str)),
                None => sim.side_effects(),
            }}),
        ),
        "requests_seen" => {
            let path = field(v, "path")?
                .as_str()
                .ok_or("\"path\" must be a string")?;
            Ok(json!({"count": sim.requests_seen(path)}))
        }
        "set_job_delay" => {
            let ms = field(v, "ms")?
                .as_u64()
                .ok_or("\"ms\" must be a non-negative integer")?;
            sim.with_editor(|ed| ed.set_job_delay(Duration::from_millis(ms)));
            Ok(json!({}))
        }
        "set_play_mode_reloads_domain" => {
            let on = flag(v, "on")?;
            sim.with_editor(|ed| ed.set_play_mode_reloads_domain(on));
            Ok(json!({}))
        }
        "set_package_stall" => {
            let on = flag(v, "on")?;
            sim.with_editor(|ed| ed.set_package_stall(on));
            Ok(json!({}))
        }
        "set_package_completion" => {
            use crate::editor::PackageCompletion as P;
            let mode = match field(v, "mode")?.as_str() {
                Some("direct") => P::Direct,
                Some("verified_after_reload") => P::VerifiedAfterReload,
                Some("resume_verify_fails") => P::ResumeVerifyFails,
                Some("resume_list_fails") => P::ResumeListFails,
                _ => return Err("\"mode\" must be direct, verified_after_reload, resume_verify_fails or resume_list_fails".into()),
            };
            sim.with_editor(|ed| ed.set_package_completion(mode));
            Ok(json!({}))
        }
        "add_custom_tool" => {
            let tool: crate::ToolEntry = serde_json::from_value(field(v, "tool")?.clone())
                .map_err(|e| format!("bad tool entry: {e}"))?;
            sim.add_custom_tool(tool);
            Ok(json!({"catalog_hash": sim.catalog_hash()}))
        }
        "remove_tool" => {
            let name = field(v, "name")?
                .as_str()
                .ok_or("\"name\" must be a string")?;
            Ok(json!({"removed": sim.remove_tool(name), "catalog_hash": sim.catalog_hash()}))
        }
        "shutdown" => {
            sim.shutdown();
            Ok(json!({}))
        }
        other => Err(format!(
            "unknown op \"{other}\"; see the control module docs for the list"
        )),
    }
}
