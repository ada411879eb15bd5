//! The loopback control endpoint: each operation over HTTP has the same effect as the
//! corresponding `Simulator` method.

use crate::common::*;
use serde_json::{Value, json};
use std::time::Duration;

fn control(port: u16, body: Value) -> (u16, Value) {
    let r = request(port, "POST", "/control", &[], body.to_string().as_bytes()).unwrap();
    (r.status, r.json())
}

fn ok(port: u16, body: Value) -> Value {
    let (status, v) = control(port, body.clone());
    assert_eq!(status, 200, "{body} -> {v}");
    assert_eq!(v["ok"], true);
    v
}

#[test]
fn operations() {
    let f = start_with(|c| c.control_port = Some(0));
    let cp = f.sim.control_port().expect("control port");
    let status = ok(cp, json!({"op":"status"}));
    assert_eq!(status["port"], f.port());
    assert_eq!(status["domain_epoch"], f.sim.domain_epoch());
    assert_eq!(status["catalog_hash"], f.sim.catalog_hash());

    ok(cp, json!({"op":"set_state","state":"playing"}));
    assert_eq!(heartbeat(&f.sim)["state"], "playing");
    ok(cp, json!({"op":"set_state","state":null}));
    assert_eq!(heartbeat(&f.sim)["state"], "ready");
    ok(cp, json!({"op":"set_pid","pid":0}));
    assert_eq!(heartbeat(&f.sim)["pid"], 0);
    ok(cp, json!({"op":"set_heartbeat_port","port":0}));
    assert_eq!(heartbeat(&f.sim)["port"], 0);
    ok(cp, json!({"op":"set_heartbeat_port","port":null}));
    ok(
        cp,
        json!({"op":"set_features","features":["tool_catalog_v1"]}),
    );
    assert_eq!(heartbeat(&f.sim)["features"], json!(["tool_catalog_v1"]));
    ok(cp, json!({"op":"set_compile_errors","on":true}));
    assert_eq!(heartbeat(&f.sim)["compileErrors"], true);

    ok(
        cp,
        json!({"op":"inject","fault":{"kind":"lock_timeout","times":1}}),
    );
    assert_eq!(
        code(&call(f.port(), "scene", json!({"action":"info"}), &op())),
        "COMMAND_LOCK_TIMEOUT"
    );
    ok(
        cp,
        json!({"op":"inject","fault":{"kind":"empty200","times":1},"match":{"command":"list"}}),
    );
    assert!(
        post_unchecked(f.port(), "/command", r#"{"command":"list","params":{}}"#)
            .unwrap()
            .body
            .is_empty()
    );
    ok(
        cp,
        json!({"op":"inject","fault":{"kind":"reset_before_execute","times":3}}),
    );
    ok(cp, json!({"op":"clear_faults"}));
    let saved = call(f.port(), "scene", json!({"action":"save"}), &op());
    assert!(saved.get("timings").is_some(), "no fault left: {saved}");
    assert_eq!(ok(cp, json!({"op":"side_effects"}))["count"], 1);
    assert_eq!(
        ok(
            cp,
            json!({"op":"side_effects","tool":"scene","action":"save"})
        )["count"],
        1
    );
    assert!(
        ok(cp, json!({"op":"requests_seen","path":"/command"}))["count"]
            .as_u64()
            .unwrap()
            >= 3
    );

    let before = f.sim.now_ms();
    ok(cp, json!({"op":"advance_clock","ms":3_600_000}));
    assert!(f.sim.now_ms() >= before + 3_600_000);

    let old = f.sim.domain_epoch();
    ok(cp, json!({"op":"reload","downtime_ms":100,"new_port":true}));
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    assert_ne!(f.sim.domain_epoch(), old);

    ok(cp, json!({"op":"write_partial_heartbeat"}));
    ok(cp, json!({"op":"resume_heartbeat"}));
    ok(cp, json!({"op":"remove_heartbeat"}));
    assert!(!f.sim.heartbeat_path().exists());
    ok(cp, json!({"op":"resume_heartbeat"}));
    ok(cp, json!({"op":"set_legacy","on":true}));
    assert!(heartbeat(&f.sim).get("features").is_none());
    ok(cp, json!({"op":"set_legacy","on":false}));

    let (status, v) = control(cp, json!({"op":"warp_drive"}));
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap().contains("warp_drive"));
    let (status, _) = control(cp, json!({"op":"set_pid"}));
    assert_eq!(status, 400);
    let (status, _) = control(cp, json!({"op":"inject","fault":{"kind":"nope"}}));
    assert_eq!(status, 400);

    // Editor knobs.
    ok(cp, json!({"op":"set_job_delay","ms":50}));
    ok(cp, json!({"op":"set_play_mode_reloads_domain","on":false}));
    ok(cp, json!({"op":"set_package_stall","on":false}));
    ok(
        cp,
        json!({"op":"set_package_completion","mode":"verified_after_reload"}),
    );
    let (status, _) = control(
        cp,
        json!({"op":"set_package_completion","mode":"sometimes"}),
    );
    assert_eq!(status, 400);
    let mut entry = f.sim.catalog()["tools"][0].clone();
    entry["name"] = json!("spawn_cube");
    let added = ok(cp, json!({"op":"add_custom_tool","tool":entry}));
    assert_eq!(added["catalog_hash"], f.sim.catalog_hash());
    assert!(
        f.sim.catalog()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "spawn_cube")
    );
    assert_eq!(
        ok(cp, json!({"op":"remove_tool","name":"spawn_cube"}))["removed"],
        true
    );

    ok(cp, json!({"op":"shutdown"}));
    assert!(f.sim.is_shut());
    assert_eq!(heartbeat(&f.sim)["state"], "stopped");
}
