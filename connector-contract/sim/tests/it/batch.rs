//! `/commands` (§2.6): PascalCase reply, `fail_fast` (default true without options), the
//! approval pre-scan, no ledger for items, and side effects per executed item.

use crate::common::*;
use hera_connector_sim::{Fault, FaultMatch};
use serde_json::{Value, json};

fn batch(port: u16, body: Value) -> (String, Value) {
    let r = post(port, "/commands", &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    (r.text(), r.json())
}

#[test]
fn pascal_case_reply_and_counts() {
    let f = start();
    let (text, v) = batch(
        f.port(),
        json!({"commands":[
            {"command":"scene","params":{"action":"info"}},
            {"command":"list","params":{"names":true}},
            {"command":"scene","params":{"action":"save"}}
        ],"options":{"fail_fast":false,"atomic":false}}),
    );
    assert!(
        text.starts_with("{\"success\":true,\"Results\":["),
        "{text}"
    );
    assert!(v.get("message").is_none());
    assert_eq!(v["Completed"], 3);
    assert_eq!(v["Failed"], 0);
    let results = v["Results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[1]["data"].as_array().unwrap().len(), 34);
    for r in results {
        assert_eq!(r["success"], true, "{r}");
    }
    assert_eq!(f.sim.side_effects(), 1, "only the save is a side effect");
    assert_eq!(f.sim.side_effects_of("scene", Some("save")), 1);
    // Batch items never touch the ledger.
    assert_eq!(
        std::fs::read_dir(f.sim.ledger_dir())
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );
}

#[test]
fn fail_fast_defaults_to_true_without_options() {
    let f = start();
    // An item that fails validation is skipped by the approval pre-scan and fails when it runs.
    let items = json!([
        {"command":"scene","params":{"action":"load"}},
        {"command":"scene","params":{"action":"save"}}
    ]);
    let (_, v) = batch(f.port(), json!({"commands": items}));
    assert_eq!(
        v["success"], true,
        "a batch answer is a success even when items failed"
    );
    // `Completed` counts the items that ran, the failed one included.
    assert_eq!(v["Completed"], 1);
    assert_eq!(v["Failed"], 1);
    assert_eq!(v["Results"].as_array().unwrap().len(), 1);
    assert_eq!(code(&v["Results"][0]), "MISSING_ARGUMENT");
    assert_eq!(f.sim.side_effects(), 0);
    // Options present without fail_fast: still true. fail_fast false: every item runs.
    let (_, v) = batch(
        f.port(),
        json!({"commands": items, "options": {"atomic": true}}),
    );
    assert_eq!(v["Results"].as_array().unwrap().len(), 1);
    let (_, v) = batch(
        f.port(),
        json!({"commands": items, "options": {"fail_fast": "false"}}),
    );
    assert_eq!(v["Results"].as_array().unwrap().len(), 2);
    assert_eq!(v["Completed"], 2);
    assert_eq!(v["Failed"], 1);
    assert_eq!(f.sim.side_effects(), 1);
    // Unknown tools are per-item errors.
    let (_, v) = batch(
        f.port(),
        json!({"commands":[{"command":"nope"}],"options":{"fail_fast":false}}),
    );
    assert_eq!(code(&v["Results"][0]), "UNKNOWN_COMMAND");
    assert_eq!(v["Completed"], 1);
    assert_eq!(v["Failed"], 1);
}

#[test]
fn an_item_without_a_command_turns_the_batch_into_an_internal_error_after_earlier_items_ran() {
    let f = start();
    let r = post(
        f.port(),
        "/commands",
        &json!({"commands":[
            {"command":"scene","params":{"action":"save"}},
            {"params":{}}
        ],"options":{"fail_fast":false}})
        .to_string(),
    );
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(code(&v), "INTERNAL_ERROR", "{v}");
    assert!(v.get("Results").is_none());
    assert!(v["timings"].is_null());
    assert_eq!(f.sim.side_effects(), 1, "the first item had already run");
}

#[test]
fn an_unknown_action_is_prescanned_with_the_tools_own_safety() {
    let f = start();
    // `scene` as a tool is destructive, and its tool-level `action` is a plain string, so an
    // unknown action validates there and makes the whole batch need approval.
    let (_, v) = batch(
        f.port(),
        json!({"commands":[
            {"command":"scene","params":{"action":"save"}},
            {"command":"scene","params":{"action":"bogus"}}
        ]}),
    );
    assert_eq!(code(&v), "APPROVAL_REQUIRED", "{v}");
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn any_item_needing_approval_fails_the_whole_batch() {
    let f = start();
    for item in [
        json!({"command":"scene","params":{"action":"close","path":"Assets/Scenes/SampleScene.unity"}}),
        json!({"command":"console","params":{"clear":"true"}}),
        json!({"command":"manage_packages","params":{"args":["add","com.unity.ai.navigation"]}}),
    ] {
        let cmd = item["command"].as_str().unwrap().to_string();
        let (text, v) = batch(
            f.port(),
            json!({"commands":[{"command":"scene","params":{"action":"save"}}, item],"options":{"fail_fast":false}}),
        );
        assert_eq!(
            text,
            format!(
                "{{\"success\":false,\"message\":\"Batch item '{cmd}' requires individual approval.\",\"code\":\"APPROVAL_REQUIRED\",\"timings\":null}}"
            )
        );
        assert_eq!(code(&v), "APPROVAL_REQUIRED");
    }
    assert_eq!(f.sim.side_effects(), 0, "nothing ran");
}

#[test]
fn faults_can_target_the_batch_path() {
    let f = start();
    f.sim.inject_matching(
        FaultMatch::path("/commands"),
        Fault::LockTimeout { times: 1 },
    );
    let (_, v) = batch(
        f.port(),
        json!({"commands":[{"command":"scene","params":{"action":"save"}}]}),
    );
    assert_eq!(code(&v), "COMMAND_LOCK_TIMEOUT");
    assert_eq!(f.sim.side_effects(), 0);
    // A /command fault does not hit batches.
    f.sim.inject(Fault::LockTimeout { times: 1 });
    let (_, v) = batch(
        f.port(),
        json!({"commands":[{"command":"scene","params":{"action":"save"}}]}),
    );
    assert_eq!(v["Completed"], 1);
}
