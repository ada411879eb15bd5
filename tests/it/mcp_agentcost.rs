//! What an agent pays per step and how the compact tools guide it, through the real binary over
//! stdio against the reference Editor (the in-process simulator over real HTTP on 127.0.0.1):
//! - `tool_describe(name, action)` is that action's contract only, within the size budget, for
//!   every action of the built-in catalog;
//! - search hits carry the call's own compact safety, not the tool's worst case;
//! - requests nothing serves are answered "no action does that", and undo and arbitrary code
//!   (without the permission) are named as not offered;
//! - TOOL_NOT_FOUND and ACTION_NOT_FOUND carry useful suggestions; describing a hidden
//!   arbitrary-code tool is TOOL_NOT_FOUND while calling it keeps the permission error;
//! - a 200 KB query is refused at once and the server keeps answering (`ping`) meanwhile.

use crate::support::mcp::*;
use hera_connector_sim::{SimConfig, Simulator};
use serde_json::{Value, json};
use std::path::PathBuf;

/// One action's describe, compact JSON: at most this many bytes.
const DESCRIBE_MAX_BYTES: usize = 6_000;
/// The median action describe: at most this many bytes.
const DESCRIBE_TYPICAL_BYTES: usize = 2_500;

struct Bench {
    _dir: tempfile::TempDir,
    home: PathBuf,
    sim: Simulator,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        let project = home.join("Projects").join("AgentCost");
        std::fs::create_dir_all(&project).unwrap();
        let sim = Simulator::start_background(SimConfig::new(
            home.clone(),
            project.to_string_lossy().into_owned(),
        ))
        .expect("start simulator");
        Bench {
            _dir: dir,
            home,
            sim,
        }
    }

    fn mcp(&self, mcp_args: &[&str]) -> McpProc {
        let mut p = McpProc::start(&self.home, &["--timeout", "20000"], mcp_args, &[]);
        p.initialize("2025-11-25");
        p
    }
}

/// The envelope of a compact-tool result, whether it carries `structuredContent` or only the
/// text copy.
fn envelope(result: &Value) -> Value {
    match result.get("structuredContent") {
        Some(s) if s.is_object() => structured(result),
        _ => serde_json::from_str(result["content"][0]["text"].as_str().expect("text content"))
            .expect("text content is JSON"),
    }
}

fn search(p: &mut McpProc, query: &str) -> Value {
    envelope(&p.call("tool_search", json!({"query": query})))
}

fn describe(p: &mut McpProc, args: Value) -> Value {
    envelope(&p.call("tool_describe", args))
}

#[test]
fn an_action_describe_is_that_actions_contract_within_budget() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let d = describe(
        &mut p,
        json!({"name": "manage_gameobject", "action": "create"}),
    );
    assert_eq!(d["success"], true, "{d}");
    let data = &d["data"];
    assert_eq!(data["tool"], "manage_gameobject");
    assert_eq!(data["action"]["name"], "create");
    assert!(data["action"]["input_schema"]["properties"]["primitive"].is_object());
    assert!(data["action"]["output_schema"].is_object());
    assert_eq!(data["action"]["safety"], json!({"risk_class": "write"}));
    // Nothing of the other actions, no provenance.
    let text = data.to_string();
    for absent in [
        "\"destroy\"",
        "set_parent",
        "catalog_hash",
        "domain_epoch",
        "HeraAgent",
        "contract_mode",
        "\"profiles\"",
    ] {
        assert!(!text.contains(absent), "{absent} in {text}");
    }
    assert!(data.get("actions").is_none());

    // Every action of the built-in catalog: within the budget; the median within the typical.
    let catalog = b.sim.catalog();
    let mut sizes = Vec::new();
    for t in catalog["tools"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        if name == "exec" || name == "menu" {
            continue; // arbitrary code: hidden without the permission
        }
        for a in t["actions"].as_array().into_iter().flatten() {
            let action = a["name"].as_str().unwrap();
            let d = describe(&mut p, json!({"name": name, "action": action}));
            assert_eq!(d["success"], true, "{name}/{action}: {d}");
            let bytes = serde_json::to_string(&d).unwrap().len();
            assert!(
                bytes <= DESCRIBE_MAX_BYTES,
                "{name}/{action} describe is {bytes} B"
            );
            sizes.push(bytes);
        }
    }
    sizes.sort_unstable();
    assert!(sizes.len() > 100, "{} actions described", sizes.len());
    let median = sizes[sizes.len() / 2];
    assert!(
        median <= DESCRIBE_TYPICAL_BYTES,
        "median action describe {median} B"
    );
}

#[test]
fn search_hits_show_the_calls_own_safety() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    // Reading the console is read-only; its `clear` argument is the caveat, not the label.
    let r = search(&mut p, "read the console errors");
    let hit = &r["data"]["results"][0];
    assert_eq!(hit["name"], "console", "{r}");
    assert_eq!(
        hit["safety"],
        json!({"risk_class": "read_only", "worst_case": "destructive"})
    );
    // Every hit: a risk class and only non-default flags; never the five-field object.
    for q in [
        "delete the game object",
        "add a component",
        "install a package",
        "save the scene",
    ] {
        let r = search(&mut p, q);
        let hits = r["data"]["results"].as_array().unwrap();
        assert!(!hits.is_empty(), "{q}: {r}");
        for h in hits {
            let s = h["safety"].as_object().unwrap();
            assert!(s.contains_key("risk_class"), "{q}: {h}");
            assert!(!s.contains_key("read_only"), "{q}: {h}");
            assert!(s.len() <= 4, "{q}: {h}");
        }
    }
    let r = search(&mut p, "delete the game object");
    let destroy = r["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "manage_gameobject" && h["action"] == "destroy")
        .cloned()
        .unwrap_or_else(|| panic!("no manage_gameobject/destroy in {r}"));
    assert_eq!(destroy["safety"]["risk_class"], "destructive");
}

#[test]
fn requests_nothing_serves_say_so_and_absent_capabilities_are_named() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let r = search(&mut p, "order a pizza for the team");
    assert_eq!(r["success"], true);
    assert!(r["data"]["results"].as_array().unwrap().is_empty(), "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("no action does that"),
        "{r}"
    );
    let r = search(&mut p, "undo last change");
    assert_eq!(r["data"]["not_offered"], "undo", "{r}");
    assert!(r["data"]["results"].as_array().unwrap().is_empty());
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("Undo is not offered")
    );
    let r = search(&mut p, "run this C# snippet in the editor");
    assert_eq!(r["data"]["not_offered"], "arbitrary_code", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("--allow-arbitrary-code")
    );
    // With the permission the tool is offered and found.
    let mut allowed = b.mcp(&["--allow-arbitrary-code"]);
    let r = search(&mut allowed, "run this C# snippet in the editor");
    assert_eq!(r["data"]["results"][0]["name"], "exec", "{r}");
}

#[test]
fn not_found_answers_suggest_and_hidden_code_tools_are_not_found_to_describe() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    // A guessed tool name built from the right word.
    let d = describe(&mut p, json!({"name": "gameobject"}));
    assert_eq!(d["code"], "TOOL_NOT_FOUND", "{d}");
    let s: Vec<&str> = d["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(s.contains(&"manage_gameobject"), "{d}");
    assert_eq!(d["data"]["did_you_mean"], d["suggestions"]);
    // A name close to nothing still gets the tools a search for its words ranks first.
    let d = describe(&mut p, json!({"name": "unity_take_picture"}));
    assert_eq!(d["code"], "TOOL_NOT_FOUND");
    assert!(
        d["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "screenshot"),
        "{d}"
    );
    // tool_call with a guessed name: TOOL_NOT_FOUND with suggestions too.
    let c = envelope(&p.call(
        "tool_call",
        json!({"name": "components", "arguments": {"action": "list"}}),
    ));
    assert_eq!(c["code"], "TOOL_NOT_FOUND", "{c}");
    assert!(
        c["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "manage_components"),
        "{c}"
    );
    // A wrong action: the action the guess means comes first.
    let d = describe(
        &mut p,
        json!({"name": "manage_gameobject", "action": "remove"}),
    );
    assert_eq!(d["code"], "ACTION_NOT_FOUND", "{d}");
    assert_eq!(d["suggestions"][0], "destroy", "{d}");
    // The arbitrary-code tool is not offered without the permission: describe does not find it,
    // and calling it says how to enable it.
    let d = describe(&mut p, json!({"name": "exec"}));
    assert_eq!(d["code"], "TOOL_NOT_FOUND", "{d}");
    assert!(!d.to_string().contains("--allow-arbitrary-code"));
    let c = envelope(&p.call(
        "tool_call",
        json!({"name": "exec", "arguments": {"code": "1+1"}}),
    ));
    assert_eq!(c["code"], "ARBITRARY_CODE_PERMISSION_REQUIRED", "{c}");
}

#[test]
fn a_200_kb_query_is_refused_at_once_and_the_server_keeps_answering() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let word = "x".repeat(200_000);
    // Two huge searches in flight, then a ping: all three are answered.
    let first = p.send_request(
        "tools/call",
        json!({"name": "tool_search", "arguments": {"query": word}}),
    );
    let second = p.send_request(
        "tools/call",
        json!({"name": "tool_search", "arguments": {"query": format!("add a {word}")}}),
    );
    let ping = p.send_request("ping", json!({}));
    let pong = p.wait_for(&ping);
    assert!(pong.get("error").is_none(), "{pong}");
    for id in [first, second] {
        let r = p.wait_for(&id);
        let e = envelope(&r["result"]);
        assert_eq!(e["code"], "INVALID_ARGUMENT", "{e}");
        assert_eq!(e["data"]["pointer"], "/query");
    }
    // The longest accepted query, one unknown word: answered (typo matching skips a word longer
    // than any catalog term instead of building its deletions).
    let long = "q".repeat(hera_agent_unity::MAX_QUERY_CHARS);
    let r = search(&mut p, &long);
    assert_eq!(r["success"], true, "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("no action does that")
    );
    let pong = p.request("ping", json!({}));
    assert!(pong.get("error").is_none(), "{pong}");
}

fn tool_call(p: &mut McpProc, tool: &str, arguments: Value) -> Value {
    envelope(&p.call("tool_call", json!({"name": tool, "arguments": arguments})))
}

#[test]
fn a_duplicate_name_and_an_ambiguous_path_are_reported_with_their_instance_ids() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let create = json!({"action": "create", "name": "Sentry"});
    let first = tool_call(&mut p, "manage_gameobject", create.clone());
    assert_eq!(first["success"], true, "{first}");
    assert!(first.get("ambiguous").is_none(), "{first}");
    let a = first["data"]["instance_id"].as_i64().unwrap();

    // Unity lets a second "Sentry" sit at the same path; the create says so.
    let second = tool_call(&mut p, "manage_gameobject", create);
    assert_eq!(second["success"], true, "{second}");
    let b_id = second["data"]["instance_id"].as_i64().unwrap();
    let amb = &second["ambiguous"];
    assert_eq!(amb["named"], "/Sentry", "{second}");
    assert_eq!(amb["instance_ids"], json!([a, b_id]), "{second}");
    assert_eq!(amb["chosen"], b_id, "{second}");
    assert!(
        second["agent_hint"]
            .as_str()
            .unwrap()
            .contains("instance_id"),
        "{second}"
    );

    // A read by that path reaches one of them; the result names both and the one read.
    let by_path = json!({"action": "get_transform", "path": "Sentry"});
    let read = tool_call(&mut p, "manage_gameobject", by_path);
    assert_eq!(read["success"], true, "{read}");
    let amb = &read["ambiguous"];
    assert_eq!(amb["named"], "Sentry", "{read}");
    assert_eq!(amb["instance_ids"], json!([a, b_id]), "{read}");
    assert_eq!(amb["chosen"], read["data"]["instance_id"], "{read}");
    assert!(
        amb["message"].as_str().unwrap().contains("names 2"),
        "{read}"
    );

    // By instance id there is nothing to choose; a unique path is not ambiguous either.
    let by_id = tool_call(
        &mut p,
        "manage_gameobject",
        json!({"action": "get_transform", "instance_id": b_id}),
    );
    assert_eq!(by_id["success"], true, "{by_id}");
    assert!(by_id.get("ambiguous").is_none(), "{by_id}");
    let unique = tool_call(
        &mut p,
        "manage_gameobject",
        json!({"action": "get_transform", "path": "Main Camera"}),
    );
    assert_eq!(unique["success"], true, "{unique}");
    assert!(unique.get("ambiguous").is_none(), "{unique}");

    // A child with the same name elsewhere is not at the same path, but a bare name denotes it.
    let child = tool_call(
        &mut p,
        "manage_gameobject",
        json!({"action": "create", "name": "Sentry", "parent": "Main Camera"}),
    );
    assert_eq!(child["success"], true, "{child}");
    assert!(child.get("ambiguous").is_none(), "{child}");
    let c = child["data"]["instance_id"].as_i64().unwrap();
    let write = tool_call(
        &mut p,
        "manage_gameobject",
        json!({"action": "set_tag", "target": "Sentry", "tag": "Player"}),
    );
    assert_eq!(write["success"], true, "{write}");
    let ids = write["ambiguous"]["instance_ids"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(ids.len(), 3, "{write}");
    for id in [a, b_id, c] {
        assert!(ids.contains(&json!(id)), "{write}");
    }

    // A destroy by that name: the approval names every object it fits, before anything runs,
    // and the result lists them as they were when the call was made (after it, one is gone).
    let destroy = json!({"action": "destroy", "path": "Sentry"});
    let ask = tool_call(&mut p, "manage_gameobject", destroy.clone());
    assert_eq!(ask["code"], "APPROVAL_REQUIRED", "{ask}");
    let subject = &ask["data"]["summary"]["subject"];
    assert_eq!(
        subject["also_named"].as_array().map(Vec::len),
        Some(3),
        "{ask}"
    );
    assert!(
        ask["message"]
            .as_str()
            .unwrap()
            .contains("fits 3 GameObjects"),
        "{ask}"
    );
    let approved = envelope(&p.call(
        "tool_call",
        json!({"name": "manage_gameobject", "arguments": destroy,
               "approval_token": ask["data"]["token"]}),
    ));
    assert_eq!(approved["success"], true, "{approved}");
    let gone = approved["data"]["instance_id"].clone();
    assert_eq!(approved["ambiguous"]["chosen"], gone, "{approved}");
    assert_eq!(
        approved["ambiguous"]["instance_ids"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "{approved}"
    );
}

/// An `APPROVAL_REQUIRED` answer on a session whose client has no approval form.
fn approval_required(p: &mut McpProc, tool: &str, arguments: Value) -> Value {
    let r = tool_call(p, tool, arguments);
    assert_eq!(r["code"], "APPROVAL_REQUIRED", "{r}");
    r
}

#[test]
fn approval_summaries_name_what_the_user_approves() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let made = tool_call(
        &mut p,
        "manage_gameobject",
        json!({"action": "create", "name": "Crate", "parent": "Main Camera"}),
    );
    let id = made["data"]["instance_id"].as_i64().unwrap();

    // An instance id: the object's name and path, read before asking.
    let r = approval_required(
        &mut p,
        "manage_gameobject",
        json!({"action": "destroy", "instance_id": id}),
    );
    let subject = &r["data"]["summary"]["subject"];
    assert_eq!(subject["kind"], "game_object", "{r}");
    assert_eq!(subject["name"], "Crate", "{r}");
    assert_eq!(subject["path"], "/Main Camera/Crate", "{r}");
    assert_eq!(subject["instance_id"], id, "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(
        message.contains("GameObject \"Crate\" at /Main Camera/Crate"),
        "{message}"
    );
    assert_eq!(
        b.sim.side_effects_of("manage_gameobject", Some("destroy")),
        0
    );

    // An id that names nothing still says which id, and that it was not found.
    let r = approval_required(
        &mut p,
        "manage_gameobject",
        json!({"action": "destroy", "instance_id": 987654}),
    );
    let subject = &r["data"]["summary"]["subject"];
    assert_eq!(subject["resolved"], false, "{r}");
    assert!(subject["text"].as_str().unwrap().contains("987654"), "{r}");

    // A package: its id.
    let r = approval_required(
        &mut p,
        "manage_packages",
        json!({"action": "remove", "identifier": "com.unity.timeline"}),
    );
    assert_eq!(
        r["data"]["summary"]["subject"],
        json!({"kind": "package", "id": "com.unity.timeline", "text": "package com.unity.timeline"}),
        "{r}"
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("package com.unity.timeline")
    );

    // An asset: its path.
    let r = approval_required(
        &mut p,
        "manage_assets",
        json!({"action": "delete", "path": "Assets/Materials/Old.mat"}),
    );
    let subject = &r["data"]["summary"]["subject"];
    assert_eq!(subject["kind"], "asset", "{r}");
    assert_eq!(subject["path"], "Assets/Materials/Old.mat", "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("asset Assets/Materials/Old.mat")
    );
    assert_eq!(b.sim.side_effects(), 1, "only the create ran");
}

#[test]
fn reversibility_reads_the_same_in_search_describe_and_the_approval() {
    let b = Bench::new();
    let mut p = b.mcp(&[]);
    let r = approval_required(
        &mut p,
        "manage_gameobject",
        json!({"action": "destroy", "target": "Main Camera"}),
    );
    let reversible = r["data"]["summary"]["reversible"].as_bool().unwrap();
    let d = envelope(&p.call(
        "tool_describe",
        json!({"name": "manage_gameobject", "action": "destroy"}),
    ));
    let described = d.to_string();
    let hits = envelope(&p.call(
        "tool_search",
        json!({"query": "destroy a GameObject", "limit": 5}),
    ));
    let shown = hits.to_string();
    let message = r["message"].as_str().unwrap();
    if reversible {
        assert!(message.contains("can be reversed"), "{message}");
    } else {
        assert!(
            message.contains("cannot be reversed by a tool call"),
            "{message}"
        );
        // Nothing the agent reads before the approval claims otherwise.
        for text in [&described, &shown, &message.to_string()] {
            assert!(
                !text.to_ascii_lowercase().contains("undoable"),
                "claims undo against reversible:false: {text}"
            );
        }
    }
    // The search hit's compact safety shows `reversible` only when it differs from the class
    // default, and then it agrees with the Connector's summary.
    let hit = hits["data"]["results"]
        .as_array()
        .or_else(|| hits["data"]["hits"].as_array())
        .and_then(|a| {
            a.iter()
                .find(|h| h["name"] == "manage_gameobject" && h["action"] == "destroy")
        })
        .cloned()
        .unwrap_or_else(|| panic!("destroy is a hit: {hits}"));
    if let Some(v) = hit["safety"].get("reversible") {
        assert_eq!(v.as_bool(), Some(reversible), "{hit}");
    }
}

#[test]
fn the_approval_hint_says_how_to_approve_in_each_protocol_era() {
    let b = Bench::new();
    let destroy = json!({"name": "manage_gameobject",
        "arguments": {"action": "destroy", "target": "Main Camera"}});

    // No form declared (2025-11-25): the token round trip, with the exact argument.
    let mut p = b.mcp(&[]);
    let r = envelope(&p.call("tool_call", destroy.clone()));
    let hint = r["agent_hint"].as_str().unwrap();
    assert!(hint.contains("MCP 2025-11-25"), "{hint}");
    assert!(hint.contains("declared no form elicitation"), "{hint}");
    assert!(hint.contains("\"approval_token\": data.token"), "{hint}");
    drop(p);

    // Forms switched off (--mrtr 0), even for a client that has one.
    let mut p = McpProc::start(&b.home, &["--timeout", "20000"], &["--mrtr", "0"], &[]);
    p.ok(
        "initialize",
        json!({"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},
            "clientInfo":{"name":"hera-test","version":"1"}}),
    );
    p.notify("notifications/initialized", None);
    let r = envelope(&p.call("tool_call", destroy.clone()));
    let hint = r["agent_hint"].as_str().unwrap();
    assert!(hint.contains("MCP 2025-06-18"), "{hint}");
    assert!(hint.contains("--mrtr 0"), "{hint}");
    drop(p);

    // A form-capable client before 2026-07-28: the form names the object; a form that gets
    // no answer falls back to the token round trip and says why.
    let mut p = McpProc::start(&b.home, &["--timeout", "20000"], &[], &[]);
    p.ok(
        "initialize",
        json!({"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},
            "clientInfo":{"name":"hera-test","version":"1"}}),
    );
    p.notify("notifications/initialized", None);
    let id = p.send_request(
        "tools/call",
        json!({"name": "tool_call", "arguments": destroy.clone()}),
    );
    let ask = p.wait_server_request("elicitation/create");
    let form = ask["params"]["message"].as_str().unwrap().to_string();
    assert!(
        form.contains("GameObject \"Main Camera\" at /Main Camera"),
        "{form}"
    );
    p.send(&json!({"jsonrpc":"2.0","id":ask["id"],
        "error":{"code":-32603,"message":"the form could not be shown"}}));
    let r = structured(&p.wait_for(&id)["result"]);
    assert_eq!(r["code"], "APPROVAL_REQUIRED", "{r}");
    let hint = r["agent_hint"].as_str().unwrap();
    assert!(hint.contains("MCP 2025-06-18"), "{hint}");
    assert!(hint.contains("returned no answer"), "{hint}");
    assert!(hint.contains("approval_token"), "{hint}");
    drop(p);

    // 2026-07-28 with a form: input_required, whose _meta says how the client answers.
    let mut p = McpProc::start(&b.home, &["--timeout", "20000"], &[], &[]);
    let mut meta = meta_2026();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation":{"form":{}}});
    let mut params = destroy.clone();
    params = json!({"name": "tool_call", "arguments": params, "_meta": meta});
    let first = p.ok("tools/call", params);
    assert_eq!(first["resultType"], "input_required", "{first}");
    let hint = first["_meta"]["hera/approval_hint"].as_str().unwrap();
    assert!(hint.contains("MCP 2026-07-28"), "{hint}");
    assert!(hint.contains("inputResponses.approval"), "{hint}");
    assert!(hint.contains("requestState"), "{hint}");
    let form = first["inputRequests"]["approval"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(form.contains("\"Main Camera\""), "{form}");
    assert_eq!(b.sim.side_effects(), 0);
}
