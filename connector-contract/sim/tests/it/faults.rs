//! Fault injection (§12.7): each fault's bytes on the wire, whether the handler ran, what the
//! ledger holds afterwards, and how long each fault lasts.

use crate::common::*;
use hera_connector_contract::canonical::catalog_hash_text;
use hera_connector_contract::identity::heartbeat_file_name;
use hera_connector_sim::{Fault, FaultMatch};
use serde_json::{Value, json};
use std::io::Read;
use std::time::{Duration, Instant};

fn save_body(id: &str) -> String {
    command_body("scene", &json!({"action":"save"}), id, None)
}

#[test]
fn delay_holds_the_answer_after_committing() {
    // Long enough that "held" and "not held" cannot be confused on a slow, busy machine.
    const HOLD_MS: u64 = 3000;
    let f = start();
    let id = op();
    f.sim.inject(Fault::Delay {
        ms: HOLD_MS,
        times: 1,
    });
    let t = Instant::now();
    let v = post(f.port(), "/command", &save_body(&id)).json();
    assert!(t.elapsed() >= Duration::from_millis(HOLD_MS));
    assert!(
        v["timings"]["total_ms"].as_i64().unwrap() >= HOLD_MS as i64,
        "{v}"
    );
    assert!(ledger_record(&f.sim, &id).is_some());
    // Used up: the next call is not held.
    let t = Instant::now();
    let v = post(f.port(), "/command", &save_body(&op())).json();
    assert!(
        t.elapsed() < Duration::from_millis(HOLD_MS),
        "held again after its one use: {:?} {v}",
        t.elapsed()
    );
}

#[test]
fn reset_before_execute_runs_nothing() {
    let f = start();
    let id = op();
    f.sim.inject(Fault::ResetBeforeExecute { times: 2 });
    for _ in 0..2 {
        assert!(post_unchecked(f.port(), "/command", &save_body(&id)).is_err());
    }
    assert_eq!(f.sim.side_effects(), 0);
    assert!(ledger_record(&f.sim, &id).is_none());
    // The retry with the same operation id runs it once.
    let v = post(f.port(), "/command", &save_body(&id)).json();
    assert!(v["timings"]["total_ms"].is_i64(), "{v}");
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn reset_after_execute_then_retry_replays() {
    let f = start();
    let id = op();
    f.sim.inject(Fault::ResetAfterExecute { times: 1 });
    let err = post_unchecked(f.port(), "/command", &save_body(&id)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::UnexpectedEof
        ),
        "{err:?}"
    );
    assert_eq!(f.sim.side_effects(), 1);
    let rec = ledger_record(&f.sim, &id).unwrap();
    assert_eq!(rec["state"], "committed", "committed, never responded");
    let v = post(f.port(), "/command", &save_body(&id)).json();
    assert_eq!(v["timings"], Value::Null, "a replay: {v}");
    assert_eq!(f.sim.side_effects(), 1, "exactly one side effect");
}

#[test]
fn reload_after_commit_moves_the_port_and_replays() {
    let f = start();
    let old_port = f.port();
    let old_epoch = f.sim.domain_epoch();
    let id = op();
    // The downtime only has to outlast the three checks below, on a busy machine too.
    f.sim.inject(Fault::ReloadAfterCommit {
        downtime_ms: 3000,
        new_port: true,
    });
    assert!(post_unchecked(old_port, "/command", &save_body(&id)).is_err());
    assert_eq!(heartbeat(&f.sim)["state"], "reloading");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", old_port)).is_err(),
        "the listener is down"
    );
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    let hb = heartbeat(&f.sim);
    assert_eq!(hb["state"], "ready");
    assert_ne!(hb["port"], old_port);
    assert_eq!(hb["port"], f.port());
    assert_ne!(hb["domainEpoch"], old_epoch.as_str());
    let v = post(f.port(), "/command", &save_body(&id)).json();
    assert_eq!(v["timings"], Value::Null, "replayed: {v}");
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn transport_oddities() {
    let f = start();
    let p = f.port();
    f.sim.inject(Fault::Empty200 { times: 1 });
    let r = post_unchecked(p, "/command", &save_body(&op())).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-length"), Some("0"));
    assert!(r.body.is_empty());

    f.sim.inject(Fault::NonJson200 { times: 1 });
    let r = post_unchecked(p, "/command", &save_body(&op())).unwrap();
    assert_eq!(r.status, 200);
    assert!(serde_json::from_slice::<Value>(&r.body).is_err());

    f.sim.inject(Fault::Status {
        status: 503,
        code: Some("EDITOR_BUSY".into()),
        times: 1,
    });
    let r = post_unchecked(p, "/command", &save_body(&op())).unwrap();
    assert_eq!(r.status, 503);
    assert_eq!(r.json()["code"], "EDITOR_BUSY");
    f.sim.inject(Fault::Status {
        status: 500,
        code: None,
        times: 1,
    });
    let r = post_unchecked(p, "/command", &save_body(&op())).unwrap();
    assert_eq!(r.status, 500);
    assert!(r.json().get("code").is_none());
    assert_eq!(r.json()["success"], false);
    assert_eq!(f.sim.side_effects(), 0, "none of these ran anything");
}

#[test]
fn oversized_answer_is_one_byte_over_50_mib() {
    let f = start();
    f.sim.inject(Fault::Oversized { times: 1 });
    let body = save_body(&op());
    let mut s = std::net::TcpStream::connect(("127.0.0.1", f.port())).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    use std::io::Write;
    write!(
        s,
        "POST /command HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut total = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    let mut head = Vec::new();
    loop {
        let n = s.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        if head.len() < 4096 {
            head.extend_from_slice(&buf[..n.min(4096)]);
        }
        total += n;
    }
    let head = String::from_utf8_lossy(&head);
    let header_end = head.find("\r\n\r\n").unwrap() + 4;
    assert!(
        head.to_ascii_lowercase()
            .contains(&format!("content-length: {}", 50 * 1024 * 1024 + 1))
    );
    assert_eq!(total - header_end, 50 * 1024 * 1024 + 1);
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn matchers_pick_the_requests() {
    let f = start();
    let p = f.port();
    // The default matcher skips the catalog fetch.
    f.sim.inject(Fault::Empty200 { times: 1 });
    assert_eq!(
        post(
            p,
            "/command",
            r#"{"command":"list","params":{"names":true}}"#
        )
        .status,
        200
    );
    assert!(
        post_unchecked(p, "/command", &save_body(&op()))
            .unwrap()
            .body
            .is_empty()
    );
    // A tool matcher hits only that tool; a path matcher only that path.
    f.sim
        .inject_matching(FaultMatch::tool("list"), Fault::Empty200 { times: 1 });
    assert!(
        !post_unchecked(p, "/command", &save_body(&op()))
            .unwrap()
            .body
            .is_empty()
    );
    assert!(
        post_unchecked(p, "/command", r#"{"command":"list","params":{}}"#)
            .unwrap()
            .body
            .is_empty()
    );
    f.sim.inject_matching(
        FaultMatch::path("/approval/preflight"),
        Fault::ResetBeforeExecute { times: 1 },
    );
    let pf = json!({"operation_id":op(),"tool":"scene","action":"close","arguments":{"action":"close","path":"Assets/Scenes/SampleScene.unity"}});
    assert!(post_unchecked(p, "/approval/preflight", &pf.to_string()).is_err());
    assert_eq!(
        post(p, "/approval/preflight", &pf.to_string()).json()["success"],
        true
    );
    // clear_faults disarms what is left.
    f.sim.inject(Fault::ResetBeforeExecute { times: 5 });
    f.sim.clear_faults();
    assert!(post_unchecked(p, "/command", &save_body(&op())).is_ok());
}

#[test]
fn port_taken_by_another_project() {
    let f = start();
    let old = f.port();
    f.sim.inject(Fault::PortTakenByOtherProject);
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    assert_ne!(f.port(), old);
    let other = f
        .home
        .path()
        .join(".hera-agent-unity/instances")
        .join(heartbeat_file_name(&format!("{PROJECT}-other")));
    let hb: Value = serde_json::from_slice(&std::fs::read(&other).unwrap()).unwrap();
    assert_schema("heartbeat.schema.json", &hb);
    assert_eq!(hb["port"], old);
    assert_eq!(hb["projectPath"], format!("{PROJECT}-other"));
    assert_eq!(heartbeat(&f.sim)["port"], f.port());
    f.sim.shutdown();
    assert!(!other.exists(), "removed when the simulator quits");
}

fn fetch_catalog(port: u16) -> (String, Value) {
    let r = post(
        port,
        "/command",
        r#"{"command":"list","params":{"catalog":true,"schema_version":"hera.tool-catalog/1"}}"#,
    );
    let v = r.json();
    (
        serde_json::to_string(&v["data"]).unwrap(),
        v["data"].clone(),
    )
}

#[test]
fn catalog_faults() {
    let f = start();
    let p = f.port();
    let before = f.sim.catalog_hash();
    f.sim.inject(Fault::CatalogHashChange);
    assert_ne!(f.sim.catalog_hash(), before);
    let v = call(p, "list", json!({"names":true}), &op());
    assert_eq!(v["success"], true);
    let stale =
        json!({"command":"scene","params":{"action":"info"},"meta":{"catalog_hash": before}});
    assert_eq!(
        code(&post(p, "/command", &stale.to_string()).json()),
        "CATALOG_STALE"
    );

    f.sim.inject(Fault::EpochMismatch { times: 2 });
    let epoch = f.sim.domain_epoch();
    for _ in 0..2 {
        let (_, doc) = fetch_catalog(p);
        assert_ne!(doc["domain_epoch"], epoch.as_str());
    }
    assert_eq!(
        fetch_catalog(p).1["domain_epoch"],
        epoch.as_str(),
        "transient"
    );

    f.sim.inject(Fault::CatalogExtraField);
    let (text, doc) = fetch_catalog(p);
    assert_eq!(doc["tools"][0]["x_simulator_unknown_field"], true);
    assert_eq!(
        doc["catalog_hash"],
        catalog_hash_text(&text).unwrap(),
        "the hash is still right"
    );
    f.sim.clear_faults();
    f.sim.inject(Fault::CatalogBadHash);
    let (text, doc) = fetch_catalog(p);
    assert_ne!(doc["catalog_hash"], catalog_hash_text(&text).unwrap());
    assert_eq!(
        fetch_catalog(p).1["catalog_hash"],
        doc["catalog_hash"],
        "lasting"
    );
    f.sim.clear_faults();
    let (text, doc) = fetch_catalog(p);
    assert_eq!(doc["catalog_hash"], catalog_hash_text(&text).unwrap());
}

#[test]
fn custom_tools_change_the_catalog() {
    let f = start();
    let before = f.sim.catalog_hash();
    let mut tool: hera_connector_sim::ToolEntry =
        serde_json::from_value(f.sim.catalog()["tools"][0].clone()).unwrap();
    tool.name = "spawn_cube".into();
    tool.title = "Spawn Cube".into();
    tool.source.kind = "custom".into();
    f.sim.add_custom_tool(tool);
    assert_ne!(f.sim.catalog_hash(), before);
    let (_, doc) = fetch_catalog(f.port());
    assert!(
        doc["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "spawn_cube")
    );
    assert!(f.sim.remove_tool("spawn_cube"));
    assert_eq!(f.sim.catalog_hash(), before);
}

#[test]
fn a_client_that_hangs_up_does_not_cancel_its_command() {
    let f = start();
    let p = f.port();
    // Hold the lock so the next command waits in the queue. The holder has the lock once its
    // record is committed (the delay comes after the commit, under the lock); the hold only
    // has to outlast the hang-up below, on a busy machine too.
    f.sim.inject(Fault::Delay {
        ms: 15_000,
        times: 1,
    });
    let holder_id = op();
    let holder_body = save_body(&holder_id);
    let holder = std::thread::spawn(move || post(p, "/command", &holder_body).status);
    assert!(
        wait_for(Duration::from_secs(30), || ledger_record(
            &f.sim, &holder_id
        )
        .filter(|r| r["state"] == "committed"))
        .is_some(),
        "the holder runs and keeps the lock"
    );
    let id = op();
    let body = command_body("scene", &json!({"action":"save_all"}), &id, None);
    {
        use std::io::Write;
        let mut s = std::net::TcpStream::connect(("127.0.0.1", p)).unwrap();
        write!(
            s,
            "POST /command HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        assert!(
            wait_for(Duration::from_secs(14), || (f.sim.pending_requests() == 2)
                .then_some(()))
            .is_some(),
            "the second command waits in the queue behind the holder"
        );
    } // the client hangs up while its command waits
    assert_eq!(holder.join().unwrap(), 200);
    // The record goes received → running → committed (→ responded); wait for the commit,
    // not merely for "not running", which `received` also is.
    let rec = wait_for(Duration::from_secs(30), || {
        ledger_record(&f.sim, &id)
            .filter(|r| ["committed", "responded"].contains(&r["state"].as_str().unwrap_or("")))
    });
    assert!(
        rec.is_some(),
        "the command still ran: {:?}",
        ledger_record(&f.sim, &id)
    );
    assert_eq!(f.sim.side_effects_of("scene", Some("save_all")), 1);
}
