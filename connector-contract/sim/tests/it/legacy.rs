//! Legacy Connector mode (§3.11, §12.9): no features or epoch in the heartbeat, only the old
//! `list` forms, `meta` ignored, no preflight endpoint, no ledger.

use crate::common::*;
use serde_json::{Value, json};

fn legacy() -> Fixture {
    start_with(|c| c.legacy = true)
}

#[test]
fn heartbeat_has_no_features_or_epoch() {
    let f = legacy();
    let hb = heartbeat(&f.sim);
    assert!(hb.get("features").is_none(), "{hb}");
    assert!(hb.get("domainEpoch").is_none(), "{hb}");
    assert_eq!(hb["port"], f.port());
    assert_eq!(hb["state"], "ready");
}

#[test]
fn only_the_old_list_forms() {
    let f = legacy();
    let p = f.port();
    let v = call(p, "list", json!({"names": true}), &op());
    assert_eq!(v["message"], "Available tools");
    assert_eq!(v["data"].as_array().unwrap().len(), 34);
    let v = call(p, "list", json!({"tool": "scene"}), &op());
    assert_eq!(v["message"], "Tool: scene");
    assert_eq!(v["data"]["name"], "scene");
    // The strict catalog does not exist here: the request falls back to the default list.
    let v = call(
        p,
        "list",
        json!({"catalog": true, "schema_version": "hera.tool-catalog/1"}),
        &op(),
    );
    assert!(v["data"].is_array(), "{v}");
    assert!(v["data"][0]["name"].is_string());
}

#[test]
fn meta_is_ignored_and_nothing_is_ledgered() {
    let f = legacy();
    let p = f.port();
    let body = json!({"command":"scene","params":{"action":"save"},"meta":{
        "operation_id":"bad id","arguments_hash":"sha256:00","protocol_version":"hera.execution/9",
        "catalog_hash":"sha256:stale"}});
    let r = post(p, "/command", &body.to_string());
    let v = r.json();
    assert!(v.get("code").is_none() || v["success"] == true, "{v}");
    assert_eq!(f.sim.side_effects(), 1);
    // Same body again: no replay, it runs again.
    post(p, "/command", &body.to_string());
    assert_eq!(f.sim.side_effects(), 2);
    assert!(!f.sim.ledger_dir().exists());
    // Without approval support, a destructive call simply runs.
    let v = call(
        p,
        "scene",
        json!({"action":"close","path":"Assets/Scenes/SampleScene.unity"}),
        &op(),
    );
    assert_ne!(code(&v), "APPROVAL_REQUIRED", "{v}");
    assert_eq!(f.sim.side_effects(), 3);
}

#[test]
fn no_preflight_endpoint_and_no_batch_prescan() {
    let f = legacy();
    let r = request(
        f.port(),
        "POST",
        "/approval/preflight",
        &[],
        br#"{"operation_id":"op_aaaaaaaa","tool":"scene","arguments":{}}"#,
    )
    .unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["code"], "HTTP_NOT_FOUND");
    assert_eq!(r.json()["timings"], Value::Null);
    let r = post(
        f.port(),
        "/commands",
        &json!({"commands":[{"command":"console","params":{"clear":true}}]}).to_string(),
    );
    assert_eq!(r.json()["Completed"], 1, "{}", r.text());
}

#[test]
fn switching_modes_at_runtime() {
    let f = start();
    assert!(heartbeat(&f.sim).get("features").is_some());
    f.sim.set_legacy(true).unwrap();
    assert!(heartbeat(&f.sim).get("features").is_none());
    let r = request(f.port(), "POST", "/approval/preflight", &[], b"{}").unwrap();
    assert_eq!(r.status, 404);
    f.sim.set_legacy(false).unwrap();
    let hb = heartbeat(&f.sim);
    assert_eq!(hb["features"].as_array().unwrap().len(), 6);
    assert_eq!(hb["domainEpoch"], f.sim.domain_epoch());
}
