//! Behaviours of the real Connector 0.1.3 that a client must survive, each reproduced by the
//! simulator as its default or behind a knob (`Quirks`, a fault, a control method), one test
//! per behaviour (README: "What a real Editor does that a client must survive").

use crate::common::*;
use hera_connector_contract::canonical::{
    EditorZone, arguments_hash_json, arguments_hash_json_in, arguments_hash_of_value, parse,
};
use hera_connector_contract::catalog::{SafetyDecl, ToolEntry};
use hera_connector_sim::{Fault, Reload};
use serde_json::{Value, json};
use std::time::Duration;

fn custom(name: &str, mode: &str, profiles: &[&str], safety: SafetyDecl) -> ToolEntry {
    custom_tool(
        name,
        mode,
        profiles,
        safety,
        json!({"type":"object","properties":{"size":{"type":"integer"}}}),
    )
}

fn body_with(tool: &str, params: &Value, meta: Value) -> String {
    json!({"command": tool, "params": params, "meta": meta}).to_string()
}

fn fetch_catalog(p: u16) -> Value {
    call(
        p,
        "list",
        json!({"catalog":true,"schema_version":"hera.tool-catalog/1"}),
        &op(),
    )
}

#[test]
fn a_tool_whose_contract_cannot_be_built_fails_the_catalog_until_the_next_reload() {
    let f = start();
    let p = f.port();
    let hash = fetch_catalog(p)["data"]["catalog_hash"]
        .as_str()
        .unwrap()
        .to_string();
    // A reload that brings the new tool (a custom tool needs a compile, hence a reload).
    f.sim.add_unbuildable_custom_tool(
        custom(
            "bad_tool",
            "legacy",
            &["custom", "full"],
            SafetyDecl::default(),
        ),
        "parameter 'payload' is a JObject without SchemaJson",
    );
    f.sim.reload(Reload {
        downtime: Duration::from_millis(50),
        new_port: false,
    });
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(10)));
    let p = f.port();

    let v = fetch_catalog(p);
    assert_eq!(code(&v), "INTERNAL_ERROR", "{v}");
    assert!(v["timings"].is_null());
    assert!(v["message"].as_str().unwrap().contains("bad_tool"), "{v}");
    // Every request that carries catalog_hash fails the same way, before anything runs.
    let meta =
        json!({"protocol_version":"hera.execution/1","operation_id":op(),"catalog_hash":hash});
    let r = post(
        p,
        "/command",
        &body_with("scene", &json!({"action":"save"}), meta),
    );
    assert_eq!(code(&r.json()), "INTERNAL_ERROR");
    assert_eq!(f.sim.side_effects(), 0);
    // Without catalog_hash other tools still run; discovery still lists every tool.
    assert_eq!(
        call(p, "scene", json!({"action":"save"}), &op())["success"],
        true
    );
    let names = call(p, "list", json!({"names":true}), &op());
    assert!(
        names["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "bad_tool"),
        "{names}"
    );
    assert_eq!(
        call(p, "list", json!({"tool":"scene"}), &op())["success"],
        true
    );
    assert_eq!(
        code(&call(p, "list", json!({"tool":"bad_tool"}), &op())),
        "INTERNAL_ERROR"
    );
    // The broken tool itself cannot be called.
    assert_eq!(
        code(&call(p, "bad_tool", json!({"size":1}), &op())),
        "INTERNAL_ERROR"
    );

    // Fixing the tool takes effect with the next domain, not before.
    assert!(f.sim.remove_tool("bad_tool"));
    assert_eq!(code(&fetch_catalog(p)), "INTERNAL_ERROR");
    f.sim.reload(Reload {
        downtime: Duration::from_millis(50),
        new_port: false,
    });
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(10)));
    let v = fetch_catalog(f.port());
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["data"]["catalog_hash"], hash.as_str());
}

#[test]
fn a_legacy_or_arbitrary_code_custom_tool_is_published_in_a_normal_profile() {
    let f = start();
    f.sim.add_custom_tool(custom(
        "spawn_wave",
        "legacy",
        &["core", "custom", "full"],
        SafetyDecl::default(),
    ));
    f.sim.add_custom_tool(custom(
        "run_lua",
        "strict",
        &["custom", "full", "scene"],
        SafetyDecl {
            risk: Some(hera_connector_contract::catalog::RiskClass::ArbitraryCode),
            ..Default::default()
        },
    ));
    let v = fetch_catalog(f.port());
    let tools = v["data"]["tools"].as_array().unwrap();
    let find = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap().clone();
    let wave = find("spawn_wave");
    assert_eq!(wave["contract_mode"], "legacy");
    assert_eq!(wave["profiles"], json!(["core", "custom", "full"]));
    let lua = find("run_lua");
    assert_eq!(lua["safety"]["risk_class"], "arbitrary_code");
    assert_eq!(lua["profiles"], json!(["custom", "full", "scene"]));
}

#[test]
fn an_iso_date_string_is_a_date_token_before_validation() {
    let f = start();
    let p = f.port();
    // `name` is a string parameter: a value that looks like an ISO date is not a String.
    for date in [
        "2026-01-01T10:00:00Z",
        "2026-01-01T10:00:00+02:00",
        "2026-01-01T10:00:00",
    ] {
        let v = call(
            p,
            "manage_gameobject",
            json!({"action":"create","name": date}),
            &op(),
        );
        assert_eq!(code(&v), "ARGUMENT_TYPE_MISMATCH", "{date}: {v}");
        assert_eq!(v["data"]["path"], "/name");
        assert_eq!(v["data"]["actual"], "Date");
    }
    // Anything else that merely contains a date is a string.
    let v = call(
        p,
        "manage_gameobject",
        json!({"action":"create","name":"Build 2026-01-01T10:00:00Z"}),
        &op(),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn an_editor_outside_utc_moves_offset_dates_before_hashing() {
    let berlin = EditorZone { offset_minutes: 60 };
    let f = start_with(|c| c.quirks.zone = berlin);
    let p = f.port();
    // Only a date with a numeric offset depends on the zone; the call itself then fails
    // validation (a Date is not a String), which is beside the point here.
    let params = json!({"action":"create","name":"2026-01-01T10:00:00+02:00"});
    let utc_hash = arguments_hash_of_value(&params);
    let tree = parse(&params.to_string()).unwrap();
    assert_eq!(utc_hash, arguments_hash_json(&tree));
    let zone_hash = arguments_hash_json_in(&tree, berlin);
    assert_ne!(utc_hash, zone_hash);
    let meta = |h: Option<&str>| {
        let mut m = json!({"protocol_version":"hera.execution/1","operation_id":op()});
        if let Some(h) = h {
            m["arguments_hash"] = json!(h);
        }
        m
    };
    let send = |h: Option<&str>| {
        post(
            p,
            "/command",
            &body_with("manage_gameobject", &params, meta(h)),
        )
        .json()
    };
    assert_eq!(code(&send(Some(&utc_hash))), "ARGUMENTS_HASH_MISMATCH");
    assert_eq!(code(&send(Some(&zone_hash))), "ARGUMENT_TYPE_MISMATCH");
    assert_eq!(
        code(&send(None)),
        "ARGUMENT_TYPE_MISMATCH",
        "without arguments_hash nothing is compared"
    );
    // A UTC or unzoned date hashes the same in every zone.
    let utc_params = json!({"action":"create","name":"x","tag":"2026-01-01T10:00:00Z"});
    let r = post(
        p,
        "/command",
        &body_with(
            "manage_gameobject",
            &utc_params,
            json!({"protocol_version":"hera.execution/1","operation_id":op(),
                "arguments_hash": arguments_hash_of_value(&utc_params)}),
        ),
    )
    .json();
    assert_ne!(code(&r), "ARGUMENTS_HASH_MISMATCH", "{r}");
}

#[test]
fn a_quit_that_does_not_write_stopped_leaves_a_ready_heartbeat() {
    let f = start_with(|c| c.quirks.quit_writes_stopped = false);
    f.sim
        .set_pid(hera_connector_sim::dead_pid().unwrap())
        .unwrap();
    let before = heartbeat(&f.sim);
    assert_eq!(before["state"], "ready");
    f.sim.shutdown();
    let after = heartbeat(&f.sim);
    assert_eq!(after["state"], "ready", "no stopped write");
    assert_eq!(after["pid"], before["pid"]);
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", before["port"].as_u64().unwrap() as u16))
            .is_err(),
        "nobody listens"
    );
}

#[test]
fn a_synchronous_edit_mode_run_holds_the_command_lock_until_it_finishes() {
    let f = start_with(|c| c.lock_wait = Duration::from_millis(200));
    // Five EditMode tests of a second each: the reply comes when the run is over.
    f.sim
        .with_editor(|ed| ed.set_sync_test_duration(Duration::from_secs(1)));
    let p = f.port();
    let run_id = op();
    let run_op = run_id.clone();
    let run = std::thread::spawn(move || call(p, "run_tests", json!({"mode":"EditMode"}), &run_op));
    assert!(
        wait_for(Duration::from_secs(30), || {
            (f.sim.side_effects_of("run_tests", None) == 1).then_some(())
        })
        .is_some(),
        "the run started"
    );
    assert_eq!(
        ledger_record(&f.sim, &run_id).unwrap()["state"],
        "running",
        "the run is under the ledger while it lasts"
    );
    let other = call(p, "scene", json!({"action":"info"}), &op());
    assert_eq!(code(&other), "COMMAND_LOCK_TIMEOUT", "{other}");
    let v = run.join().unwrap();
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["data"]["passed"], v["data"]["total"]);
    assert!(
        v["data"].get("run_id").is_none(),
        "a sync run has no run id"
    );
    // With async_results the same run starts at once and reports on the file bus.
    let v = call(
        p,
        "run_tests",
        json!({"mode":"EditMode","async_results":true}),
        &op(),
    );
    assert_eq!(v["message"], "running");
    assert_eq!(v["data"]["run_id"].as_str().unwrap().len(), 32);
}

#[test]
fn the_lock_timeout_comes_after_the_whole_lock_wait() {
    let f = start_with(|c| c.lock_wait = Duration::from_millis(300));
    let p = f.port();
    f.sim.inject(Fault::Hang { times: 1 });
    let body = command_body("scene", &json!({"action":"save"}), &op(), None);
    let _hung = std::thread::spawn(move || post_unchecked(p, "/command", &body));
    assert!(
        wait_for(Duration::from_secs(30), || (f.sim.pending_requests() == 1)
            .then_some(()))
        .is_some()
    );
    let v = call(p, "scene", json!({"action":"info"}), &op());
    assert_eq!(code(&v), "COMMAND_LOCK_TIMEOUT");
    assert!(
        v["message"].as_str().unwrap().contains("300 ms"),
        "the answer names the wait it served: {v}"
    );
    // The default is the Connector's 120 s.
    assert_eq!(
        hera_connector_sim::SimConfig::new("/tmp", "/p").lock_wait,
        Duration::from_secs(120)
    );
}

#[test]
fn a_reload_that_stops_the_listener_first_writes_reloading_with_port_0() {
    let f = start_with(|c| c.quirks.reload_listener_first = true);
    let epoch = f.sim.domain_epoch();
    f.sim.reload(Reload {
        downtime: Duration::from_secs(3),
        new_port: false,
    });
    let hb = heartbeat(&f.sim);
    assert_eq!(hb["state"], "reloading");
    assert_eq!(hb["port"], 0);
    assert_eq!(hb["domainEpoch"], epoch.as_str(), "still the old domain");
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(20)));
    let hb = wait_for(Duration::from_secs(10), || {
        let hb = heartbeat(&f.sim);
        (hb["state"] == "ready").then_some(hb)
    })
    .unwrap();
    assert_eq!(hb["port"], f.sim.port());
}

#[test]
fn after_a_reload_the_listener_accepts_before_the_new_heartbeat() {
    let f = start_with(|c| c.quirks.heartbeat_after_listen = Duration::from_secs(2));
    let old = f.sim.domain_epoch();
    f.sim.reload(Reload {
        downtime: Duration::from_millis(50),
        new_port: false,
    });
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(10)));
    // The new domain answers while the file still shows the old one reloading.
    let v = fetch_catalog(f.port());
    assert_ne!(v["data"]["domain_epoch"], old.as_str());
    let hb = heartbeat(&f.sim);
    assert_eq!(hb["state"], "reloading", "{hb}");
    assert_eq!(hb["domainEpoch"], old.as_str());
    let hb = wait_for(Duration::from_secs(10), || {
        let hb = heartbeat(&f.sim);
        (hb["state"] == "ready").then_some(hb)
    })
    .unwrap();
    assert_eq!(hb["domainEpoch"], v["data"]["domain_epoch"]);
}

#[test]
fn a_non_string_command_names_a_tool_and_a_blank_arguments_hash_is_compared() {
    let f = start();
    let p = f.port();
    let r = post(
        p,
        "/command",
        &json!({"command": 5, "params": {}}).to_string(),
    );
    let v = r.json();
    assert_eq!(code(&v), "UNKNOWN_COMMAND", "{v}");
    assert_eq!(v["message"], "Unknown command: 5");
    let meta =
        json!({"protocol_version":"hera.execution/1","operation_id":op(),"arguments_hash":"  "});
    let v = post(
        p,
        "/command",
        &body_with("scene", &json!({"action":"info"}), meta),
    )
    .json();
    assert_eq!(code(&v), "ARGUMENTS_HASH_MISMATCH");
    let meta =
        json!({"protocol_version":"hera.execution/1","operation_id":op(),"arguments_hash":""});
    let v = post(
        p,
        "/command",
        &body_with("scene", &json!({"action":"info"}), meta),
    )
    .json();
    assert_eq!(v["success"], true, "an empty hash is absent: {v}");
}

#[test]
fn result_files_are_never_deleted_by_the_editor() {
    let f = start();
    f.sim
        .with_editor(|ed| ed.set_job_delay(Duration::from_millis(50)));
    let p = f.port();
    let mut ids = Vec::new();
    for _ in 0..2 {
        let v = call(
            p,
            "run_tests",
            json!({"mode":"EditMode","async_results":true}),
            &op(),
        );
        let id = v["data"]["run_id"].as_str().unwrap().to_string();
        let file = f
            .sim
            .status_dir()
            .join(format!("test-results-{p}-{id}.json"));
        assert!(
            wait_for(Duration::from_secs(30), || file.exists().then_some(())).is_some(),
            "{file:?}"
        );
        ids.push(file);
    }
    // Reading is the client's business; the first run's file outlives the second run.
    assert!(ids[0].exists() && ids[1].exists());
}

/// Whether `data` fits the `data` member of the published output schema of `tool`/`action`.
fn fits_published_schema(f: &Fixture, tool: &str, action: &str, data: &Value) -> bool {
    let catalog = f.sim.catalog();
    let t = catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap();
    let a = t["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == action)
        .unwrap();
    let schema = &a["output_schema"]["properties"]["data"];
    jsonschema::validator_for(schema).unwrap().is_valid(data)
}

#[test]
fn payloads_disagree_with_their_own_schemas_where_the_connectors_do() {
    let f = start();
    let p = f.port();
    // `applied` values are numbers, while the schema declares every value an open object.
    let v = call(
        p,
        "manage_settings",
        json!({"action":"set_time","time_scale":0.5,"dry_run":true}),
        &op(),
    );
    assert_eq!(v["success"], true, "{v}");
    assert!(v["data"]["applied"]["time_scale"].is_number(), "{v}");
    assert!(!fits_published_schema(
        &f,
        "manage_settings",
        "set_time",
        &v["data"]
    ));
    // scene/info: camelCase keys (valid, since nothing is required, but not the declared ones).
    let v = call(p, "scene", json!({"action":"info"}), &op());
    assert!(v["data"]["active"].get("isDirty").is_some(), "{v}");
    assert!(v["data"]["active"].get("is_dirty").is_none());
    assert!(fits_published_schema(&f, "scene", "info", &v["data"]));
    // get_transform agrees: nested {x,y,z}, no flat arrays.
    let v = call(
        p,
        "manage_gameobject",
        json!({"action":"get_transform","path":"Main Camera"}),
        &op(),
    );
    assert!(v["data"]["transform"]["position"]["x"].is_number(), "{v}");
    assert!(fits_published_schema(
        &f,
        "manage_gameobject",
        "get_transform",
        &v["data"]
    ));
    // scene/list: a bare array, as its array schema says.
    let v = call(p, "scene", json!({"action":"list"}), &op());
    assert!(v["data"].is_array(), "{v}");
    assert!(fits_published_schema(&f, "scene", "list", &v["data"]));
}
