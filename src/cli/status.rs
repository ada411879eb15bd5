//! `status`: what the heartbeat files say about the selected Editor (§2.8). Reads files only,
//! plus a 500 ms TCP probe when the heartbeat is stale, so it is fast and safe to run anytime.

use super::context::Globals;
use super::exit;
use super::output::{Failure, print_json};
use crate::connector::transport::tcp_probe;
use crate::discovery::{self, Instance, now_ms, pid_alive};
use serde_json::{Value, json};
use std::time::Duration;

/// The TCP probe's limit for a stale heartbeat.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// One instance as `status --json` and `doctor` report it.
pub async fn describe(i: &Instance, now: i64) -> Value {
    let stale = i.is_stale(now);
    let reachable = if stale {
        Some(tcp_probe(i.port(), PROBE_TIMEOUT).await)
    } else {
        None
    };
    json!({
        "project_path": i.project_path,
        "project_id": i.project_id(),
        "state": i.state(),
        "port": i.port(),
        "pid": i.pid(),
        "pid_alive": i.pid().and_then(pid_alive),
        "age_ms": i.age_ms(now),
        "stale": stale,
        "reachable": reachable,
        "domain_epoch": i.domain_epoch(),
        "features": i.heartbeat.features,
        "unity_version": i.heartbeat.unity_version,
        "compile_errors": i.heartbeat.compile_errors,
        "heartbeat_file": i.file,
    })
}

pub async fn run(g: &Globals, json_out: bool) -> Result<u8, Failure> {
    let scan = discovery::scan(&g.home)?;
    let now = now_ms();
    // `status --port N` alone also shows a stopped Editor (§1.6 step 5).
    let chosen = match (g.selector.port, &g.selector.project) {
        (Some(port), None) => discovery::find_by_port_including_stopped(&scan, port)
            .ok_or(discovery::DiscoveryError::NoInstanceOnPort { port }),
        _ => discovery::select(&scan, &g.selector).or_else(|e| match e {
            // Not listening yet is still worth showing.
            discovery::DiscoveryError::NotListening { ref project } => scan
                .active()
                .find(|i| !i.is_listening() && i.project_path == *project)
                .cloned()
                .ok_or(e),
            e => Err(e),
        }),
    };
    let mut others = Vec::new();
    for i in &scan.instances {
        if chosen.as_ref().is_ok_and(|c| c.file == i.file) {
            continue;
        }
        others.push(describe(i, now).await);
    }
    // Never chosen (the process cannot be checked and the heartbeat stopped moving), but shown.
    for (i, _) in &scan.presumed_gone {
        let mut d = describe(i, now).await;
        d["presumed_gone"] = json!(true);
        others.push(d);
    }
    match chosen {
        Ok(inst) => {
            let d = describe(&inst, now).await;
            if json_out {
                print_json(&json!({"selected": d, "others": others, "instances_dir": scan.dir}));
            } else {
                print_human(&d);
                if !others.is_empty() {
                    println!("Other Editors:");
                    for o in &others {
                        let gone = if o["presumed_gone"] == true {
                            ", presumed gone: heartbeat not moving, process not checkable"
                        } else {
                            ""
                        };
                        println!(
                            "  {} (port {}, {}{gone})",
                            o["project_path"].as_str().unwrap_or(""),
                            o["port"],
                            o["state"].as_str().unwrap_or("")
                        );
                    }
                }
            }
            Ok(exit::OK)
        }
        Err(e) => {
            if json_out {
                print_json(
                    &json!({"selected": null, "others": others, "instances_dir": scan.dir,
                                   "error": {"code": e.code(), "message": e.to_string(), "data": e.data()}}),
                );
            }
            Err(e.into())
        }
    }
}

fn print_human(d: &Value) {
    let s = |k: &str| d[k].as_str().unwrap_or("-").to_string();
    println!("Unity Editor: {}", s("project_path"));
    let alive = match d["pid_alive"].as_bool() {
        Some(true) => "alive",
        Some(false) => "dead",
        None => "unknown",
    };
    let age = d["age_ms"].as_i64().unwrap_or(0);
    let freshness = if d["stale"].as_bool() == Some(true) {
        match d["reachable"].as_bool() {
            Some(true) => "stale, port reachable",
            _ => "stale, not responding",
        }
    } else {
        "fresh"
    };
    println!(
        "  state: {}   port: {}   pid: {} ({alive})",
        s("state"),
        d["port"],
        d["pid"]
    );
    println!(
        "  heartbeat: {:.1} s old ({freshness})   unity: {}",
        age as f64 / 1000.0,
        s("unity_version")
    );
    println!("  epoch: {}", s("domain_epoch"));
    let features: Vec<&str> = d["features"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    println!(
        "  features: {}",
        if features.is_empty() {
            "(none: legacy Connector)".to_string()
        } else {
            features.join(", ")
        }
    );
}
