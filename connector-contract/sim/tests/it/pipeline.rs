//! The `/command` pipeline (§2.5) step by step: request context, lock, protocol and catalog
//! checks, every `list` form, action resolution, validation, safety, the handler, `total_ms`
//! and the envelope's exact key order.

use crate::common::*;
use hera_connector_contract::canonical::catalog_hash_text;
use hera_connector_contract::identity::project_id;
use hera_connector_sim::Fault;
use serde_json::{Value, json};
use std::time::Duration;

fn send(port: u16, body: Value) -> Value {
    let r = post(port, "/command", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

fn total_ms(v: &Value) -> bool {
    v["timings"]["total_ms"].as_i64().is_some_and(|n| n >= 0)
}

#[test]
fn request_context_errors_come_before_the_queue_with_null_timings() {
    let f = start();
    let p = f.port();
    for bad in [
        "short",
        "op with space",
        "op_\u{1D400}abcdef",
        &"a".repeat(129),
    ] {
        let v = send(
            p,
            json!({"command":"scene","params":{"action":"save"},"meta":{"operation_id": bad}}),
        );
        assert_eq!(code(&v), "INVALID_OPERATION_ID", "{bad}");
        assert_eq!(
            v["message"],
            "operation_id must contain only letters, digits, '_' or '-' and be 8-128 characters."
        );
        assert_eq!(v["timings"], Value::Null);
    }
    let v = send(
        p,
        json!({"command":"scene","params":{"action":"save"},"meta":{"operation_id": op(),
            "arguments_hash":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}}),
    );
    assert_eq!(code(&v), "ARGUMENTS_HASH_MISMATCH");
    assert_eq!(v["timings"], Value::Null);
    // The hash is over the raw params, keys in any order, numbers as the Connector re-writes them.
    let text = r#"{"command":"console","params":{"lines":1e1,"type":"error"},"meta":{"arguments_hash":"HASH"}}"#;
    let hash =
        hera_connector_contract::canonical::arguments_hash_text(r#"{"type":"error","lines":10.0}"#)
            .unwrap();
    let r = post(p, "/command", &text.replace("HASH", &hash));
    assert_ne!(code(&r.json()), "ARGUMENTS_HASH_MISMATCH", "{}", r.text());
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn protocol_and_catalog_hash_checks_apply_to_list_too() {
    let f = start();
    let p = f.port();
    let v = send(
        p,
        json!({"command":"list","params":{"names":true},"meta":{"protocol_version":"hera.execution/2"}}),
    );
    assert_eq!(code(&v), "EXECUTION_PROTOCOL_UNSUPPORTED");
    assert_eq!(
        v["data"],
        json!({"request_protocol_version":"hera.execution/2","current_protocol_version":"hera.execution/1"})
    );
    assert!(total_ms(&v));
    let stale = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
    for command in ["list", "scene"] {
        let v = send(
            p,
            json!({"command":command,"params":{"action":"info","names":true},"meta":{"catalog_hash":stale}}),
        );
        assert_eq!(code(&v), "CATALOG_STALE", "{command}");
        assert_eq!(v["data"]["request_catalog_hash"], stale);
        assert_eq!(v["data"]["current_catalog_hash"], f.sim.catalog_hash());
        assert_eq!(v["data"]["domain_epoch"], f.sim.domain_epoch());
    }
    // The live hash passes.
    let v = send(
        p,
        json!({"command":"scene","params":{"action":"info"},"meta":{"catalog_hash": f.sim.catalog_hash()}}),
    );
    assert_eq!(v["success"], true, "{v}");
}

#[test]
fn list_forms() {
    let f = start();
    let p = f.port();
    let r = post(
        p,
        "/command",
        r#"{"command":"list","params":{"catalog":true,"schema_version":"hera.tool-catalog/1"},"meta":{"operation_id":null}}"#,
    );
    let v = r.json();
    assert_eq!(v["message"], "Tool catalog");
    assert!(total_ms(&v));
    let doc = &v["data"];
    assert_schema("tool-catalog.schema.json", doc);
    assert_eq!(doc["schema_version"], "hera.tool-catalog/1");
    assert_eq!(doc["domain_epoch"], heartbeat(&f.sim)["domainEpoch"]);
    assert_eq!(doc["project_id"], project_id(PROJECT));
    // The hash verifies over the received text, as a client checks it.
    let data_text = serde_json::to_string(doc).unwrap();
    assert_eq!(doc["catalog_hash"], catalog_hash_text(&data_text).unwrap());
    assert_eq!(doc["tools"].as_array().unwrap().len(), 34);

    let v = send(p, json!({"command":"list","params":{"catalog":true}}));
    assert_eq!(code(&v), "SCHEMA_INVALID");
    assert_eq!(v["message"], "Unsupported tool catalog schema: (missing)");
    assert_eq!(
        v["data"],
        json!({"path":"/schema_version","expected":"hera.tool-catalog/1","actual":null})
    );
    let v = send(
        p,
        json!({"command":"list","params":{"catalog":true,"schema_version":"hera.tool-catalog/2"}}),
    );
    assert_eq!(
        v["message"],
        "Unsupported tool catalog schema: hera.tool-catalog/2"
    );

    for key in ["names", "compact"] {
        let v = send(p, json!({"command":"list","params":{key: true}}));
        assert_eq!(v["message"], "Available tools");
        let names: Vec<&str> = v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(names.contains(&"scene"));
    }
    let v = send(p, json!({"command":"list","params":{"tool":"scene"}}));
    assert_eq!(v["message"], "Tool: scene");
    assert_eq!(v["data"]["name"], "scene");
    assert!(v["data"]["schema"].is_object() && v["data"]["output_schema"].is_object());
    let v = send(p, json!({"command":"list","params":{"tool":"nope"}}));
    assert_eq!(code(&v), "UNKNOWN_TOOL");
    assert_eq!(v["message"], "Tool not found: nope");
    // {} and the string "true" both give the default list.
    for params in [json!({}), json!({"catalog":"true"})] {
        let v = send(p, json!({"command":"list","params":params}));
        let items = v["data"].as_array().unwrap();
        assert_eq!(items.len(), 34);
        assert!(
            items
                .iter()
                .all(|i| i["name"].is_string() && i["description"].is_string())
        );
    }
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn unknown_command_and_action() {
    let f = start();
    let p = f.port();
    let v = send(p, json!({"command":"scnee","params":{}}));
    assert_eq!(code(&v), "UNKNOWN_COMMAND");
    assert_eq!(v["message"], "Unknown command: scnee");
    assert_eq!(v["data"]["did_you_mean"], json!(["scene"]));
    assert!(!v["suggestions"].as_array().unwrap().is_empty());
    assert!(total_ms(&v));
    // Case-sensitive lookup, case-insensitive suggestions.
    let v = send(p, json!({"command":"Scene","params":{}}));
    assert_eq!(code(&v), "UNKNOWN_COMMAND");
    assert_eq!(v["data"]["did_you_mean"][0], "scene");
    let v = send(p, json!({"command":"zzzzzzzzzzzz","params":{}}));
    assert_eq!(code(&v), "UNKNOWN_COMMAND");
    assert!(v.get("data").is_none());

    let v = send(p, json!({"command":"scene","params":{"action":"bogus"}}));
    assert_eq!(code(&v), "UNKNOWN_ACTION");
    assert_eq!(v["message"], "Unknown action: bogus");
    assert_eq!(
        v["data"],
        json!({"path":"/action","expected":["close","create","hierarchy","info","list","load","save","save_all","set_active"],"actual":"bogus"})
    );
    // Actions are matched case-insensitively and may come from args[0].
    assert_eq!(
        send(p, json!({"command":"scene","params":{"action":"INFO"}}))["success"],
        true
    );
    assert_eq!(
        send(p, json!({"command":"scene","params":{"args":["info"]}}))["success"],
        true
    );
}

#[test]
fn validation_errors() {
    let f = start();
    let p = f.port();
    let v = send(
        p,
        json!({"command":"manage_packages","params":{"action":"add"}}),
    );
    assert_eq!(code(&v), "MISSING_ARGUMENT");
    assert_eq!(v["message"], "Validation failed at '/identifier'.");
    assert_eq!(v["data"]["path"], "/identifier");
    assert!(total_ms(&v));
    let v = send(p, json!({"command":"console","params":{"bogus":1}}));
    assert_eq!(code(&v), "UNKNOWN_ARGUMENT");
    // An action on a tool without actions: the case a client turns into CONNECTOR_UPDATE_REQUIRED.
    let v = send(p, json!({"command":"console","params":{"action":"tail"}}));
    assert_eq!(code(&v), "UNKNOWN_ARGUMENT");
    assert_eq!(v["data"]["path"], "/action");
    let v = send(p, json!({"command":"console","params":{"lines":"many"}}));
    assert_eq!(code(&v), "ARGUMENT_TYPE_MISMATCH");
    assert_eq!(v["data"]["path"], "/lines");
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn safety_rules_use_normalized_params() {
    let f = start();
    let p = f.port();
    // console is read-only; with clear:true a rule makes it destructive (approval).
    assert_eq!(
        send(p, json!({"command":"console","params":{}}))["success"],
        true
    );
    for clear in [json!(true), json!("true")] {
        let v = call(p, "console", json!({"clear": clear}), &op());
        assert_eq!(code(&v), "APPROVAL_REQUIRED", "clear={clear}");
        assert_eq!(v["message"], "This operation requires an approval token.");
        assert!(total_ms(&v));
    }
    // A positional action needing approval is recognised as such.
    let v = call(
        p,
        "manage_packages",
        json!({"args":["add","com.unity.ai.navigation"]}),
        &op(),
    );
    assert_eq!(code(&v), "APPROVAL_REQUIRED");
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn success_envelope_order_and_total_ms() {
    let f = start();
    let text = call_text(f.port(), "scene", json!({"action":"info"}), &op(), None);
    assert!(text.starts_with("{\"success\":true,\"message\":"), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let tail = format!(
        ",\"timings\":{{\"total_ms\":{}}}}}",
        v["timings"]["total_ms"]
    );
    assert!(text.ends_with(&tail), "{text}");
    if v.get("data").is_some() {
        let data_at = text.find(",\"data\":").unwrap();
        assert!(data_at > text.find(",\"message\":").unwrap());
    }
    // Read-only calls do not count as side effects and leave no ledger record.
    assert_eq!(f.sim.side_effects(), 0);
    assert!(
        std::fs::read_dir(f.sim.ledger_dir())
            .map(|d| d.count())
            .unwrap_or(0)
            == 0
    );
}

#[test]
fn missing_meta_gets_a_generated_operation_id() {
    let f = start();
    let v = send(
        f.port(),
        json!({"command":"scene","params":{"action":"save"}}),
    );
    assert!(v.get("success").is_some(), "{v}");
    assert_eq!(f.sim.side_effects_of("scene", Some("save")), 1);
    let names: Vec<String> = std::fs::read_dir(f.sim.ledger_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let id = names[0].strip_suffix(".json").unwrap();
    assert!(
        id.starts_with("op_") && id.len() == 35 && id[3..].bytes().all(|b| b.is_ascii_hexdigit())
    );
    ledger_record(&f.sim, id).expect("a valid record");
}

#[test]
fn command_lock_serializes_and_times_out() {
    let f = start_with(|c| c.lock_wait = Duration::from_millis(800));
    let p = f.port();
    // The slow command holds the lock from its commit until the delay ends: long enough for
    // the next request to arrive and wait out its 800 ms, on a busy machine too.
    f.sim.inject(Fault::Delay {
        ms: 10_000,
        times: 1,
    });
    let slow_id = op();
    let slow_op = slow_id.clone();
    let slow = std::thread::spawn(move || call(p, "scene", json!({"action":"save"}), &slow_op));
    // A queue place is taken before the lock; the commit shows the lock is held.
    assert!(
        wait_for(Duration::from_secs(30), || ledger_record(&f.sim, &slow_id)
            .filter(|r| r["state"] == "committed"))
        .is_some(),
        "the slow command holds the lock"
    );
    let v = send(p, json!({"command":"list","params":{"names":true}}));
    assert_eq!(code(&v), "COMMAND_LOCK_TIMEOUT");
    assert_eq!(v["timings"], Value::Null);
    assert!(slow.join().unwrap().get("success").is_some());
    // The injected variant answers at once.
    f.sim.inject(Fault::LockTimeout { times: 1 });
    let v = call(p, "scene", json!({"action":"info"}), &op());
    assert_eq!(code(&v), "COMMAND_LOCK_TIMEOUT");
    assert_eq!(v["timings"], Value::Null);
    assert_eq!(
        call(p, "scene", json!({"action":"info"}), &op())["success"],
        true
    );
}
