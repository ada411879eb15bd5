//! The client against the real Connector's behaviour (contract README, and the places where the
//! simulator reproduces how the real Connector 0.1.3 behaves), one test per behaviour, through
//! the real binary: the CLI, MCP, or both.

use crate::support::cli::Home;
use crate::support::mcp::McpProc;
use crate::support::mcp::wiretap::WireTap;
use serde_json::{Value, json};

fn agent(home: &Home) -> McpProc {
    let mut p = McpProc::start(home.path(), &[], &[], &[]);
    p.initialize("2025-11-25");
    p
}

/// D6: an EditMode run without `async_results` would run synchronously inside the Editor and
/// hold its command lock for the whole suite. Both front-ends ask for async results, so the run
/// becomes a job; a caller's explicit choice is kept.
#[test]
fn an_edit_mode_test_run_asks_for_async_results() {
    let home = Home::new();
    let sim = home.editor("EditMode");
    let upstream = sim.port();
    let tap = WireTap::start(move || upstream);
    sim.set_heartbeat_port(Some(tap.port())).unwrap();

    let r = home.run(&["call", "run_tests", "--args", r#"{"mode":"EditMode"}"#]);
    r.expect(0);
    let mut p = agent(&home);
    // The Editor still runs the CLI's run, so this one may be refused as already running: what
    // matters here is what was asked for on the wire.
    let started = p.call_structured(
        "tool_call",
        json!({"name":"run_tests","arguments":{"mode":"EditMode"}}),
    );
    assert!(started.is_object(), "{started}");
    let explicit = p.call_structured(
        "tool_call",
        json!({"name":"run_tests","arguments":{"mode":"EditMode","async_results":false}}),
    );
    assert!(explicit.is_object());

    let runs: Vec<Value> = tap
        .requests()
        .into_iter()
        .filter(|t| t.path == "/command" && t.body["command"] == "run_tests")
        .map(|t| t.body["params"].clone())
        .collect();
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert_eq!(runs[0]["async_results"], true, "CLI: {}", runs[0]);
    assert_eq!(runs[1]["async_results"], true, "MCP: {}", runs[1]);
    assert_eq!(runs[2]["async_results"], false, "kept: {}", runs[2]);
}

/// D13: the Connector refuses a body over its 1 MiB limit on the declared length without
/// reading it, which can look like a broken exchange to a client (resent, then "outcome
/// unknown" for a request that never ran). Both front-ends refuse it locally, nothing sent.
#[test]
fn a_request_over_the_connectors_body_limit_is_refused_before_sending() {
    let home = Home::new();
    let sim = home.editor("Large");
    home.run(&["list", "--compact"]).expect(0);
    let mut p = agent(&home);
    assert_eq!(
        p.call_structured(
            "tool_call",
            json!({"name":"scene","arguments":{"action":"info"}})
        )["success"],
        true
    );
    // Arguments just under the limit: the request around them (command, meta) passes it.
    let big = "x".repeat(1_048_400);
    let file = home.path().join("big.json");
    std::fs::write(&file, json!({"name": big}).to_string()).unwrap();
    let sent = sim.requests_seen("/command");

    let r = home.run(&[
        "call",
        "manage_gameobject",
        "create",
        "--args",
        &format!("@{}", file.display()),
    ]);
    assert_eq!(r.error_code(), "REQUEST_TOO_LARGE", "{}", r.stderr);
    let e = p.call_structured(
        "tool_call",
        json!({"name":"manage_gameobject","arguments":{"action":"create","name": big}}),
    );
    assert_eq!(e["code"], "REQUEST_TOO_LARGE", "{}", e["message"]);
    assert_eq!(sim.requests_seen("/command"), sent, "nothing sent");
    assert_eq!(sim.side_effects(), 0);
}

pub(crate) fn custom_tool(
    name: &str,
    mode: &str,
    profiles: &[&str],
) -> hera_connector_contract::catalog::ToolEntry {
    use hera_connector_contract::catalog::{RiskClass, SafetyDecl, Source, ToolEntry};
    ToolEntry {
        name: name.into(),
        title: name.into(),
        description: "A project's own tool.".into(),
        source: Source {
            kind: "custom".into(),
            assembly: "Assembly-CSharp-Editor".into(),
            type_name: format!("Game.{name}"),
        },
        contract_mode: mode.into(),
        profiles: profiles.iter().map(|p| p.to_string()).collect(),
        aliases: vec![],
        examples: vec![],
        input_schema: json!({"type":"object","properties":{"size":{"type":"integer"}}}),
        output_schema: json!({"type":"object"}),
        actions: vec![],
        safety: SafetyDecl {
            risk: Some(RiskClass::Write),
            ..Default::default()
        }
        .normalize(None),
    }
}

/// D1: one custom tool whose contract the Editor cannot build makes its strict catalog answer
/// `INTERNAL_ERROR` for the whole domain (and every request carrying `catalog_hash`). Both
/// front-ends fall back to the per-tool listing: reads still work, nothing carries a catalog
/// hash, and the broken tool stays listed with a description that says why.
#[test]
fn a_catalog_the_editor_cannot_build_falls_back_to_its_listing() {
    let home = Home::new();
    let sim = home.editor("Unbuildable");
    sim.add_unbuildable_custom_tool(
        custom_tool("broken_tool", "strict", &["custom"]),
        "a JObject parameter without SchemaJson",
    );
    let upstream = sim.port();
    let tap = WireTap::start(move || upstream);
    sim.set_heartbeat_port(Some(tap.port())).unwrap();

    let r = home.run(&["call", "scene", "info"]);
    r.expect(0);
    let mut p = agent(&home);
    let read = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(read["success"], true, "{read}");
    let listed = p.call_structured("tool_describe", json!({"name":"broken_tool"}));
    assert!(
        listed
            .to_string()
            .contains("cannot build this tool's contract"),
        "{listed}"
    );
    let sent: Vec<Value> = tap
        .requests()
        .into_iter()
        .filter(|t| t.path == "/command" && t.body["command"] == "scene")
        .map(|t| t.body)
        .collect();
    assert_eq!(sent.len(), 2, "{sent:?}");
    for s in &sent {
        assert!(s["meta"]["catalog_hash"].is_null(), "no catalog hash: {s}");
    }
}

/// D2: the Editor publishes a legacy custom tool in a normal profile (only its own tests check
/// that rule). The catalog is used anyway; that one tool is taken out of the normal profiles
/// and needs approval, and every other tool works.
#[test]
fn a_legacy_tool_in_a_normal_profile_is_quarantined_not_fatal() {
    let home = Home::new();
    let sim = home.editor("Quarantine");
    sim.add_custom_tool(custom_tool("odd_tool", "legacy", &["core"]));
    home.run(&["call", "scene", "info"]).expect(0);
    let mut p = McpProc::start(
        home.path(),
        &[],
        &["--exposure", "profile", "--profile", "core"],
        &[],
    );
    p.initialize("2025-11-25");
    let list = p.ok("tools/list", json!({}));
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"scene"), "{names:?}");
    assert!(
        !names.contains(&"odd_tool"),
        "quarantined out of core: {names:?}"
    );
}

/// The real Connector's payloads often disagree with the output schemas it publishes (scalars
/// where an open object is declared, bare integers where object items are, camelCase keys, an
/// array `data`). The adapter never judges a payload by the Editor's declared schema: each
/// reaches the agent whole, successful, and inside the adapter's own advertised outputSchema,
/// in compact and in native exposure.
#[test]
fn payloads_that_break_their_published_schemas_reach_the_agent_intact() {
    use crate::support::mcp::{assert_fits_output_schema, structured};
    let home = Home::new();
    let _sim = home.editor("PayloadShapes");
    let calls = [
        // A scalar property value; the schema says open object.
        (
            "manage_material",
            json!({"action":"get","path":"Assets/Materials/Ground.mat","property":"_Glossiness"}),
        ),
        // The `ids` projection: integers where object items are declared.
        ("find_gameobjects", json!({"ids": true})),
        // camelCase keys where the schema says snake_case.
        ("scene", json!({"action":"info"})),
        // An array `data`.
        ("scene", json!({"action":"list"})),
    ];
    let mut compact = agent(&home);
    let list = compact.ok("tools/list", json!({}));
    let mut native = McpProc::start(home.path(), &[], &["--exposure", "full"], &[]);
    native.initialize("2025-11-25");
    let native_list = native.ok("tools/list", json!({}));
    for (tool, args) in calls {
        let s = structured(&compact.call("tool_call", json!({"name": tool, "arguments": args})));
        assert_eq!(s["success"], true, "{tool} {s}");
        assert_fits_output_schema(&list, "tool_call", &s);
        let n = structured(&native.call(tool, args.clone()));
        assert_eq!(n["success"], true, "{tool} {n}");
        assert_fits_output_schema(&native_list, tool, &n);
        assert_eq!(
            n["data"], s["data"],
            "{tool}: both exposures carry the same payload"
        );
        match tool {
            "manage_material" => assert!(s["data"]["value"].is_number(), "{s}"),
            "find_gameobjects" => assert!(s["data"]["results"][0].is_i64(), "{s}"),
            _ if args["action"] == "info" => {
                assert!(s["data"]["active"]["isDirty"].is_boolean(), "{s}")
            }
            _ => assert!(s["data"].is_array(), "{s}"),
        }
    }
}
