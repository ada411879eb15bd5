//! The anchor's minimum bar, §9 "Process level" and "Compact" of
//! the Go adapter v0.2.17's published behaviour: one test per bullet, named after it.
//!
//! Every test drives the real binary over real stdio (see `support::mcp`) against the reference
//! Editor (the in-process simulator over real HTTP on 127.0.0.1) with a temporary HOME. "Zero
//! Unity calls" is read from the simulator's own counters, never from the adapter's account; the
//! facts that only exist on the wire (`meta.client_kind`, a read-only call's operation id) are
//! read from the bytes the adapter wrote, through a recording forwarder (`support::mcp::wiretap`).
//!
//! The anchor's custom tools are rebuilt here as runtime-added tools of the simulator:
//! `dynamic_probe` (strict, one action `inspect` with the alias `show`, and a tool-level rule that
//! turns a `force: true` call destructive and confirmation-required) and `legacy_probe` (a legacy
//! tool with the Connector's conservative default safety). They are added before the adapter
//! first reads the catalog, so no test depends on catalog-change handling.
//!
//! Where our design deliberately differs from the Go adapter, the test asserts ours and a
//! comment names the anchor detail it replaces and why.

use crate::support::mcp::wiretap::WireTap;
use crate::support::mcp::*;
use hera_connector_contract::catalog::{
    ActionEntry, RiskClass, SafetyDecl, SafetyRule, Source, ToolEntry,
};
use hera_connector_sim::{SimConfig, Simulator, ToolSet};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// Per-Editor-request timeout for the adapter: generous for a noisy machine, and no test here
/// expects a timeout.
const TIMEOUT_ARGS: [&str; 2] = ["--timeout", "20000"];
/// How long the server may take to exit after the client closes stdin.
const EXIT_BOUND: Duration = Duration::from_secs(5);

// ---- the anchor's fixture tools ----------------------------------------------------------------

fn custom_source(type_name: &str) -> Source {
    Source {
        kind: "custom".into(),
        assembly: "Assembly-CSharp-Editor".into(),
        type_name: type_name.into(),
    }
}

/// The strict custom tool of the anchor's compact tests: one read-only action `inspect` (alias
/// `show`) and a tool-level rule — `force: true` makes the call destructive and
/// confirmation-required — so its safety depends on the arguments ("conditional").
fn dynamic_probe() -> ToolEntry {
    let read_only = SafetyDecl {
        risk: Some(RiskClass::ReadOnly),
        read_only: true,
        idempotent: true,
        ..Default::default()
    }
    .normalize(None);
    let mut safety = read_only.clone();
    safety.rules = vec![SafetyRule {
        operation: "force_inspect".into(),
        when: BTreeMap::from([("force".to_string(), json!({"const": true}))]),
        safety: SafetyDecl {
            risk: Some(RiskClass::Destructive),
            destructive: true,
            requires_confirmation: true,
            ..Default::default()
        }
        .normalize(Some(RiskClass::ReadOnly)),
    }];
    ToolEntry {
        name: "dynamic_probe".into(),
        title: "Dynamic Probe".into(),
        description: "A project's own probe tool, added while the Editor runs.".into(),
        source: custom_source("Game.DynamicProbe"),
        contract_mode: "strict".into(),
        profiles: vec!["custom".into(), "full".into()],
        aliases: vec![],
        examples: vec![],
        input_schema: json!({"type":"object","additionalProperties":false,
            "properties":{"action":{"type":"string","description":"Which probe operation to run."},
                          "force":{"type":"boolean"}},
            "required":["action"]}),
        output_schema: json!({"type":"object"}),
        actions: vec![ActionEntry {
            name: "inspect".into(),
            description: "Report what the probe currently sees.".into(),
            aliases: vec!["show".into()],
            input_schema: json!({"type":"object","additionalProperties":false,
                "properties":{"action":{"type":"string","const":"inspect"},
                              "force":{"type":"boolean","description":"Reset the probe while inspecting (destructive)."}},
                "required":["action"]}),
            output_schema: json!({"type":"object"}),
            safety: read_only,
        }],
        safety,
    }
}

/// A legacy custom tool: no strict contract, and the safety a Connector gives an unclassified
/// tool (unspecified risk, destructive, confirmation required).
fn legacy_probe() -> ToolEntry {
    ToolEntry {
        name: "legacy_probe".into(),
        title: "legacy_probe".into(),
        description: "A project's own tool from before strict contracts.".into(),
        source: custom_source("Game.LegacyProbe"),
        contract_mode: "legacy".into(),
        profiles: vec![],
        aliases: vec![],
        examples: vec![],
        input_schema: json!({"type":"object","additionalProperties":true}),
        output_schema: json!({"type":"object"}),
        actions: vec![],
        safety: SafetyDecl::default().normalize(None),
    }
}

// ---- the bench: a simulator with the fixture tools, and the server under test -------------------

fn project(home: &Path) -> PathBuf {
    let p = home.join("Projects").join("Anchor");
    std::fs::create_dir_all(&p).unwrap();
    p
}

struct Bench {
    _dir: tempfile::TempDir,
    home: PathBuf,
    sim: Simulator,
}

impl Bench {
    /// The 34 built-in tools plus `dynamic_probe` and `legacy_probe`.
    fn new() -> Bench {
        Bench::with(|_| {})
    }

    /// The anchor's native test catalog: `console`, `exec`, `manage_assets`,
    /// `manage_gameobject`, `scene` (built-ins) plus the two fixture tools. Used where a bullet's
    /// expectation depends on what else the catalog holds.
    fn anchor_fixture() -> Bench {
        const KEEP: [&str; 5] = [
            "console",
            "exec",
            "manage_assets",
            "manage_gameobject",
            "scene",
        ];
        Bench::with(|cfg| {
            let mut tools = ToolSet::builtin();
            for name in tools.names() {
                if !KEEP.contains(&name.as_str()) {
                    tools.remove(&name);
                }
            }
            cfg.tools = Some(tools);
        })
    }

    fn with(edit: impl FnOnce(&mut SimConfig)) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        let mut cfg = SimConfig::new(home.clone(), project(&home).to_string_lossy().into_owned());
        edit(&mut cfg);
        let sim = Simulator::start_background(cfg).expect("start simulator");
        sim.add_custom_tool(dynamic_probe());
        sim.add_custom_tool(legacy_probe());
        Bench {
            _dir: dir,
            home,
            sim,
        }
    }

    /// `hera-agent-unity --timeout … mcp <mcp_args>`, initialized on 2025-11-25.
    fn mcp(&self, mcp_args: &[&str], env: &[(&str, &str)]) -> McpProc {
        let mut p = McpProc::start(&self.home, &TIMEOUT_ARGS, mcp_args, env);
        p.initialize("2025-11-25");
        p
    }

    /// Requests that could run something in the Editor: `/command` (catalog fetches included)
    /// and `/commands`.
    fn editor_calls(&self) -> u64 {
        self.sim.requests_seen("/command") + self.sim.requests_seen("/commands")
    }

    /// What "zero Unity calls" compares: command requests, preflights, executed mutations.
    fn counters(&self) -> (u64, u64, u64) {
        (
            self.editor_calls(),
            self.sim.requests_seen("/approval/preflight"),
            self.sim.side_effects(),
        )
    }

    /// The simulator's published catalog entry of `tool`.
    fn catalog_entry(&self, tool: &str) -> Value {
        self.sim.catalog()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .cloned()
            .unwrap_or_else(|| panic!("{tool} not in the simulator's catalog"))
    }
}

/// Loads the catalog into the server (a describe reads it from the Editor) so that later counter
/// comparisons see only what the call under test sends.
fn warm_up(p: &mut McpProc) {
    let d = p.call_structured("tool_describe", json!({"name":"dynamic_probe"}));
    assert_eq!(d["success"], true, "warm-up describe failed: {d}");
}

fn tool_names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .expect("tools array")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn hits(search: &Value) -> Vec<Value> {
    search["data"]["results"]
        .as_array()
        .unwrap_or_else(|| panic!("search has no data.results: {search}"))
        .clone()
}

/// Runs the binary once with stdin closed; returns (exit code, stdout, stderr).
fn run_once(home: &Path, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let out = command(home, env, args)
        .stdin(Stdio::null())
        .output()
        .expect("run binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const COMPACT: [&str; 3] = ["tool_call", "tool_describe", "tool_search"];

// =================================================================================================
// Process level
// =================================================================================================

/// Bullet: "stdout carries only JSON-RPC 2.0 lines; serverInfo name `hera-agent-unity`; tools
/// capability present; profile/core lists exactly `scene`; `scene info` succeeds with
/// `structuredContent.success == true`; clean exit on client close."
///
/// As the anchor's fixture, the Editor serves `scene` only (its `core` tool), selected by
/// `--port`. Needs `--exposure profile --profile <name>`.
#[test]
fn process_stdout_protocol_only_server_info_profile_core_lists_exactly_scene_scene_info_succeeds_clean_exit()
 {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut tools = ToolSet::builtin();
    for name in tools.names() {
        if name != "scene" {
            tools.remove(&name);
        }
    }
    let mut cfg = SimConfig::new(
        home.to_path_buf(),
        project(home).to_string_lossy().into_owned(),
    );
    cfg.tools = Some(tools);
    let sim = Simulator::start_background(cfg).expect("start simulator");
    let port = sim.port().to_string();

    let mut p = McpProc::start(
        home,
        &["--port", &port, "--timeout", "20000"],
        &[
            "--transport",
            "stdio",
            "--exposure",
            "profile",
            "--profile",
            "core",
        ],
        &[],
    );
    let init = p.initialize("2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "hera-agent-unity", "{init}");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    let list = p.ok("tools/list", json!({}));
    assert_eq!(tool_names(&list), ["scene"], "{list}");
    let r = p.call("scene", json!({"action":"info"}));
    let s = structured(&r);
    assert_eq!(s["success"], true, "{r}");
    // The catalog fetch and the scene call itself.
    assert!(
        sim.requests_seen("/command") >= 2,
        "scene info never reached the Editor"
    );
    let (status, _) = p.shutdown(EXIT_BOUND);
    assert!(status.success(), "exit status {status:?}");
    p.assert_clean_stdout();
}

/// Bullet: "`mcp --transport http` → non-zero exit, empty stdout, stderr contains
/// `unsupported MCP transport`." With an Editor running, the refusal also never touches it.
#[test]
fn process_transport_http_exits_nonzero_with_empty_stdout_and_unsupported_transport_on_stderr() {
    let b = Bench::new();
    let (code, stdout, stderr) = run_once(
        &b.home,
        &[("HERA_MCP_ENABLED", "1")],
        &["mcp", "--transport", "http"],
    );
    assert_ne!(code, 0);
    assert!(stdout.is_empty(), "stdout must stay empty: {stdout:?}");
    assert!(stderr.contains("unsupported MCP transport"), "{stderr}");
    assert_eq!(b.editor_calls(), 0, "a refused start contacted the Editor");
}

/// Bullet: "Flag parsing of `--exposure compact --profile advanced --allow-arbitrary-code`."
///
/// Parsed flags are shown by their effects: the compact surface is served (exposure), the
/// arbitrary-code tools become visible (permission), and `advanced` is accepted as the profile
/// only together with the permission (§1.2: "effective profile `advanced` without permission" is
/// refused, under compact too), so the profile flag is read, not ignored. An unknown profile is
/// refused (§1.2).
#[test]
fn process_flags_exposure_compact_profile_advanced_allow_arbitrary_code_are_parsed() {
    let b = Bench::new();
    let mut p = b.mcp(
        &[
            "--exposure",
            "compact",
            "--profile",
            "advanced",
            "--allow-arbitrary-code",
        ],
        &[],
    );
    let list = p.ok("tools/list", json!({}));
    assert_eq!(tool_names(&list), COMPACT, "{list}");
    let r = p.call_structured("tool_search", json!({"query":"exec","limit":100}));
    assert!(
        hits(&r).iter().any(|h| h["name"] == "exec"),
        "--allow-arbitrary-code did not unhide exec: {r}"
    );
    let d = p.call_structured("tool_describe", json!({"name":"exec"}));
    assert_eq!(d["success"], true, "{d}");
    let (status, _) = p.shutdown(EXIT_BOUND);
    assert!(status.success());

    let on = [("HERA_MCP_ENABLED", "1")];
    let (code, stdout, stderr) = run_once(
        &b.home,
        &on,
        &["mcp", "--exposure", "compact", "--profile", "advanced"],
    );
    assert_ne!(
        code, 0,
        "advanced without permission must not start: {stderr}"
    );
    assert!(stdout.is_empty(), "{stdout:?}");
    assert!(stderr.contains("--allow-arbitrary-code"), "{stderr}");

    let (code, stdout, stderr) = run_once(&b.home, &on, &["mcp", "--profile", "bogus"]);
    assert_ne!(code, 0, "an unknown profile must not start: {stderr}");
    assert!(stdout.is_empty(), "{stdout:?}");
    assert!(
        stderr.contains("bogus") && stderr.to_lowercase().contains("profile"),
        "{stderr}"
    );
}

/// Bullet: "Empty `HERA_MCP_EXPOSURE` → compact." (Also an empty `--exposure`, §1.1.)
#[test]
fn process_empty_hera_mcp_exposure_means_compact() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[("HERA_MCP_EXPOSURE", "")]);
    let list = p.ok("tools/list", json!({}));
    assert_eq!(tool_names(&list), COMPACT, "{list}");
    let r = p.call_structured("tool_search", json!({"query":"load scene"}));
    assert_eq!(r["success"], true, "{r}");
    drop(p);

    let mut p = b.mcp(&["--exposure", ""], &[]);
    let list = p.ok("tools/list", json!({}));
    assert_eq!(tool_names(&list), COMPACT, "{list}");
}

/// Bullet: "No exposure flag → tools exactly `[tool_call, tool_describe, tool_search]`; search
/// `dynamic probe` ranks `dynamic_probe` first; tool_call on a custom tool succeeds."
#[test]
fn process_no_exposure_flag_lists_three_tools_search_ranks_dynamic_probe_first_custom_call_succeeds()
 {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    let list = p.ok("tools/list", json!({}));
    assert_eq!(tool_names(&list), COMPACT, "{list}");
    let r = p.call_structured("tool_search", json!({"query":"dynamic probe"}));
    let h = hits(&r);
    assert_eq!(
        h.first().map(|h| &h["name"]),
        Some(&json!("dynamic_probe")),
        "{r}"
    );
    let c = p.call_structured(
        "tool_call",
        json!({"name":"dynamic_probe","arguments":{"action":"inspect"}}),
    );
    assert_eq!(c["success"], true, "{c}");
    // The simulator's custom-tool handler echoes what reached it.
    assert_eq!(c["data"]["tool"], "dynamic_probe", "{c}");
    assert_eq!(c["data"]["action"], "inspect", "{c}");
    assert_fits_output_schema(&list, "tool_call", &c);
}

/// Bullet: "A lone `server/discover` frame followed by EOF → exit 0, protocol-only stdout."
/// The frame and the EOF arrive together, as in the anchor's test; the answer still comes, and
/// the Editor is never contacted (discovery is lazy).
#[test]
fn process_lone_server_discover_then_eof_exits_zero_with_protocol_only_stdout() {
    let b = Bench::new();
    let port = b.sim.port().to_string();
    let mut p = McpProc::start(&b.home, &["--port", &port], &["--transport", "stdio"], &[]);
    p.send(
        &json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": meta_2026()}}),
    );
    p.close_stdin();
    let status = p.wait_exit(Duration::from_secs(10));
    assert!(status.success(), "exit status {status:?}: {}", p.stderr());
    let answer = p.wait_for(&json!(1));
    assert!(
        answer["result"]["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.contains(&json!(V2026))),
        "{answer}"
    );
    p.assert_clean_stdout();
    assert_eq!(b.editor_calls(), 0);
}

/// Bullet: "`HERA_MCP_MAX_INLINE_BYTES=32`: one resource template (`application/json`);
/// oversized payload absent inline; `code == RESULT_SPOOLED`; `resources/read` of the URI
/// returns the full payload."
#[test]
fn process_max_inline_bytes_32_one_json_template_payload_absent_inline_spilled_and_readable() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[("HERA_MCP_MAX_INLINE_BYTES", "32")]);
    let list = p.ok("tools/list", json!({}));
    let templates = p.ok("resources/templates/list", json!({}));
    let t = templates["resourceTemplates"].as_array().unwrap();
    assert_eq!(t.len(), 1, "{templates}");
    assert_eq!(t[0]["mimeType"], "application/json", "{templates}");

    let res = p.call(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    let s = structured(&res);
    assert_fits_output_schema(&list, "tool_call", &s);
    // Replaces `code == "RESULT_SPOOLED"`: a spilled result keeps the Editor's own success and
    // code, and says where the payload went in `result.status: "spilled"` (with uri, size and
    // hash). The anchor's extra top-level fields broke its own closed output schema (§10.1); a
    // code also hid the Editor's code (the anchor had to add `unity_code`).
    assert_eq!(s["success"], true, "{s}");
    assert_eq!(s["result"]["status"], "spilled", "{s}");
    assert!(s.get("data").is_none(), "payload still inline: {s}");
    let uri = s["result"]["uri"].as_str().expect("result.uri").to_string();
    let link = res["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "resource_link")
        .unwrap_or_else(|| panic!("no resource_link: {res}"));
    assert_eq!(link["uri"], uri.as_str());
    assert_eq!(link["mimeType"], "application/json");

    let read = p.ok("resources/read", json!({"uri": uri}));
    let contents = read["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 1, "{read}");
    assert_eq!(contents[0]["mimeType"], "application/json");
    let text = contents[0]["text"].as_str().unwrap();
    // The stored bytes are the ones the result announced.
    assert_eq!(s["result"]["byte_size"], text.len(), "{s}");
    assert_eq!(
        s["result"]["sha256"],
        hera_connector_contract::canonical::sha256_prefixed(text.as_bytes()),
        "{s}"
    );
    let full: Value = serde_json::from_str(text).unwrap();
    assert_eq!(full["success"], true, "{full}");
    let data = &full["data"];
    assert!(
        data.as_object().is_some_and(|o| !o.is_empty()),
        "the stored payload lacks the Editor's data: {full}"
    );
    // The full payload: the same call without a cap returns this very data inline.
    drop(p);
    let mut uncapped = b.mcp(&[], &[]);
    let inline = uncapped.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert!(inline.get("result").is_none(), "{inline}");
    assert_eq!(
        &inline["data"], data,
        "the resource is not the full payload"
    );

    // Absent inline. Replaces "the payload is nowhere inline": ours drops `data` and keeps a
    // bounded preview (`result.preview`: keys, array lengths, a first-item sample; documented in
    // src/results/mod.rs) so the agent can judge whether to read the resource at all. Outside
    // that preview no Editor data appears, in the structured content or the text block.
    let mut outside_preview = s.clone();
    outside_preview["result"]
        .as_object_mut()
        .unwrap()
        .remove("preview");
    let outside = outside_preview.to_string();
    assert!(!outside.contains(&data.to_string()), "payload inline: {s}");
    for leaf in ["path", "handle", "scenes"] {
        if let Some(v) = data.get(leaf) {
            assert!(
                !outside.contains(&v.to_string()),
                "data.{leaf} = {v} is inline outside the preview: {s}"
            );
        }
    }
}

/// Bullet: "`HERA_MCP_MAX_INLINE_BYTES=0` is rejected."
#[test]
fn process_max_inline_bytes_0_is_rejected() {
    let b = Bench::new();
    let (code, stdout, stderr) = run_once(
        &b.home,
        &[
            ("HERA_MCP_ENABLED", "1"),
            ("HERA_MCP_MAX_INLINE_BYTES", "0"),
        ],
        &["mcp"],
    );
    assert_ne!(code, 0, "a zero inline cap was accepted: {stderr}");
    assert!(stdout.is_empty(), "{stdout:?}");
    assert!(stderr.contains("HERA_MCP_MAX_INLINE_BYTES"), "{stderr}");
    assert_eq!(b.editor_calls(), 0);
}

// =================================================================================================
// Compact
// =================================================================================================

/// Bullet: "Compact registers exactly the three tools." Still three once the Editor's catalog
/// (36 tools here) is loaded.
#[test]
fn compact_registers_exactly_the_three_tools() {
    let b = Bench::new();
    let mut p = b.mcp(&["--exposure", "compact"], &[]);
    assert_eq!(tool_names(&p.ok("tools/list", json!({}))), COMPACT);
    warm_up(&mut p);
    let list = p.ok("tools/list", json!({}));
    assert_eq!(tool_names(&list), COMPACT, "{list}");
}

/// Bullet: "Search is deterministic across repeated calls and ranks the exact custom tool first."
#[test]
fn compact_search_is_deterministic_and_ranks_the_exact_custom_tool_first() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    let args = json!({"query":"dynamic probe","limit":3});
    let first = p.call_structured("tool_search", args.clone());
    let second = p.call_structured("tool_search", args.clone());
    assert_eq!(first, second, "search changed between identical calls");
    let h = hits(&first);
    assert!(!h.is_empty() && h.len() <= 3, "{first}");
    assert_eq!(h[0]["name"], "dynamic_probe", "{first}");
    // A fresh process over the same catalog answers the same.
    drop(p);
    let mut p = b.mcp(&[], &[]);
    assert_eq!(p.call_structured("tool_search", args), first);
}

/// Bullet: "Search returns action names and the compact safety summary; no `input_schema`, no
/// `rules`, no `side_effect_scope`; a destructive confirmation rule yields
/// `risk_class:"conditional"`, destructive, requires_confirmation, not read-only."
#[test]
fn compact_search_returns_actions_and_compact_safety_without_schemas_and_folds_a_destructive_rule()
{
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    let r = p.call_structured("tool_search", json!({"query":"dynamic probe"}));
    let h = hits(&r);
    let hit = &h[0];
    assert_eq!(hit["name"], "dynamic_probe", "{r}");
    // Action names: the matched action (`action`), or the tool's choices (`actions`).
    let named: Vec<&Value> = hit["action"]
        .as_str()
        .map(|_| vec![&hit["action"]])
        .unwrap_or_else(|| {
            hit["actions"]
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default()
        });
    assert_eq!(named, [&json!("inspect")], "{hit}");
    let text = r.to_string();
    for absent in [
        "input_schema",
        "output_schema",
        "\"rules\"",
        "side_effect_scope",
    ] {
        assert!(!text.contains(absent), "search exposed {absent}: {r}");
    }
    // Replaces the anchor's five-flag object with `risk_class:"conditional"`: a hit shows the
    // call's *own* safety (`inspect` is read-only), only the flags that differ from its class's
    // defaults (none here), and `worst_case` for what some arguments make it (the tool-level
    // `force: true` rule: destructive). The anchor labelled every hit with the tool's worst
    // case and threw the risk class away (§10.16); the folded worst case is still what
    // tool_describe's `tool_safety` shows.
    assert_eq!(
        hit["safety"],
        json!({"risk_class": "read_only", "worst_case": "destructive"}),
        "{hit}"
    );
    let d = p.call_structured("tool_describe", json!({"name":"dynamic_probe"}));
    assert_eq!(&d["data"]["actions"][0]["safety"], &hit["safety"], "{d}");
    let folded = &d["data"]["tool_safety"];
    assert_eq!(folded["risk_class"], "destructive", "{d}");
    assert_eq!(folded["conditional"], true, "{d}");
    assert_eq!(folded["requires_confirmation"], true, "{d}");
    assert_eq!(folded["read_only"], false, "{d}");
}

/// Bullet: "tool_search schema has no `include_schema`."
#[test]
fn compact_tool_search_schema_has_no_include_schema() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    let list = p.ok("tools/list", json!({}));
    let search = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "tool_search")
        .expect("tool_search listed");
    let props = search["inputSchema"]["properties"].as_object().unwrap();
    assert!(props.contains_key("query"), "{search}");
    assert!(!props.contains_key("include_schema"), "{search}");
    // And it is refused, not silently ignored.
    let r = p.call_structured(
        "tool_search",
        json!({"query":"scene","include_schema":true}),
    );
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r}");
    assert_eq!(r["data"]["pointer"], "/include_schema", "{r}");
}

/// Bullet: "Describe returns `catalog_hash`, `domain_epoch`, identity with `contract_mode`, no
/// tool schemas, and an action overview."
#[test]
fn compact_describe_returns_catalog_hash_epoch_identity_no_tool_schemas_and_action_overview() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    let d = p.call_structured("tool_describe", json!({"name":"dynamic_probe"}));
    assert_eq!(d["success"], true, "{d}");
    let data = &d["data"];
    assert_eq!(data["catalog_hash"], b.sim.catalog_hash(), "{d}");
    assert_eq!(data["domain_epoch"], b.sim.domain_epoch(), "{d}");
    assert_eq!(data["tool"]["name"], "dynamic_probe");
    assert_eq!(data["tool"]["contract_mode"], "strict");
    // Replaces "identity with source": the source assembly and type and the profiles are paid
    // on every describe and help no call, so they come only when asked for (`provenance:
    // true`, unit-tested in src/mcp/compact.rs).
    for k in ["source", "profiles"] {
        assert!(data["tool"].get(k).is_none(), "{k} without provenance: {d}");
    }
    for k in ["input_schema", "output_schema"] {
        assert!(data.get(k).is_none(), "overview carries {k}: {d}");
        assert!(data["tool"].get(k).is_none(), "identity carries {k}: {d}");
    }
    let actions = data["actions"].as_array().expect("action overview");
    assert_eq!(actions.len(), 1, "{d}");
    assert_eq!(actions[0]["name"], "inspect");
    assert_eq!(actions[0]["aliases"], json!(["show"]));
    assert!(actions[0].get("input_schema").is_none(), "{d}");
}

/// Bullet: "Describe with an action **alias** returns the canonical action with its
/// `input_schema`."
#[test]
fn compact_describe_with_an_action_alias_returns_the_canonical_action_with_its_input_schema() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    let d = p.call_structured(
        "tool_describe",
        json!({"name":"dynamic_probe","action":"show"}),
    );
    assert_eq!(d["success"], true, "{d}");
    let action = &d["data"]["action"];
    assert_eq!(action["name"], "inspect", "{d}");
    let published = b.catalog_entry("dynamic_probe")["actions"][0].clone();
    assert_eq!(action["input_schema"], published["input_schema"], "{d}");
    // Only that action's contract: no overview of the others, no provenance.
    assert!(d["data"].get("actions").is_none(), "{d}");
    assert!(d["data"].get("catalog_hash").is_none(), "{d}");
}

/// Bullet: "Describe of an action-less tool returns `input_schema` and `output_schema`."
#[test]
fn compact_describe_of_an_actionless_tool_returns_input_schema_and_output_schema() {
    let b = Bench::new();
    let published = b.catalog_entry("find_gameobjects");
    assert!(published["actions"].as_array().unwrap().is_empty());
    let mut p = b.mcp(&[], &[]);
    let d = p.call_structured("tool_describe", json!({"name":"find_gameobjects"}));
    assert_eq!(d["success"], true, "{d}");
    assert_eq!(d["data"]["input_schema"], published["input_schema"], "{d}");
    assert_eq!(
        d["data"]["output_schema"], published["output_schema"],
        "{d}"
    );
}

/// Bullet: "Unknown action → `ACTION_NOT_FOUND`."
#[test]
fn compact_unknown_action_is_action_not_found() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    let list = p.ok("tools/list", json!({}));
    let res = p.call(
        "tool_describe",
        json!({"name":"dynamic_probe","action":"missing"}),
    );
    assert_eq!(res["isError"], true, "{res}");
    let e = structured(&res);
    assert_eq!(e["code"], "ACTION_NOT_FOUND", "{e}");
    assert_eq!(e["data"]["available_actions"], json!(["inspect"]), "{e}");
    assert_fits_output_schema(&list, "tool_describe", &e);
}

/// Bullet: "Client `operation_id` is forwarded unchanged with `client_kind=mcp`."
///
/// Read on the wire: the heartbeat points at a recording forwarder in front of the simulator.
#[test]
fn compact_client_operation_id_is_forwarded_unchanged_with_client_kind_mcp() {
    let b = Bench::new();
    let sim = b.sim.clone();
    let tap = WireTap::start(move || sim.port());
    b.sim.set_heartbeat_port(Some(tap.port())).unwrap();
    let mut p = b.mcp(&[], &[]);
    let op = "op_client_fixture";
    let c = p.call_structured(
        "tool_call",
        json!({"name":"dynamic_probe","arguments":{"action":"show"},"operation_id":op}),
    );
    assert_eq!(c["success"], true, "{c}");
    let sent = tap.commands("dynamic_probe");
    assert_eq!(sent.len(), 1, "{sent:?}");
    let body = &sent[0].body;
    assert_eq!(body["meta"]["operation_id"], op, "{body}");
    assert_eq!(body["meta"]["client_kind"], "mcp", "{body}");
    assert_eq!(body["meta"]["catalog_hash"], b.sim.catalog_hash(), "{body}");
    // The canonical action is sent, not the alias the agent used.
    assert_eq!(body["params"]["action"], "inspect", "{body}");
    // Every command request went through the tap.
    let tapped = tap
        .requests()
        .iter()
        .filter(|t| t.path == "/command")
        .count() as u64;
    assert_eq!(tapped, b.sim.requests_seen("/command"));
}

/// Bullet: "Invalid `operation_id` → `INVALID_OPERATION_ID` with zero Unity calls."
/// Both ways an id is invalid (§2.6 step 6): an unsupported character, and the anchor's own
/// test input `"bad id"` (also too short).
#[test]
fn compact_invalid_operation_id_is_invalid_operation_id_with_zero_unity_calls() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    warm_up(&mut p);
    let before = b.counters();
    for bad in ["bad id with spaces", "bad id"] {
        let r = p.call_structured(
            "tool_call",
            json!({"name":"dynamic_probe","arguments":{"action":"inspect"},"operation_id":bad}),
        );
        assert_eq!(r["success"], false, "{bad:?}: {r}");
        assert_eq!(r["code"], "INVALID_OPERATION_ID", "{bad:?}: {r}");
    }
    assert_eq!(b.counters(), before, "a refused call reached the Editor");
}

/// Bullet: "Legacy tool call → `APPROVAL_REQUIRED` with zero Unity calls."
///
/// Zero commands and zero side effects; the approval request itself is the Connector's
/// preflight, as in the anchor, whose `APPROVAL_REQUIRED` data is the preflight's token.
#[test]
fn compact_legacy_tool_call_is_approval_required_with_zero_unity_calls() {
    let b = Bench::new();
    let mut p = b.mcp(&[], &[]);
    warm_up(&mut p);
    let (commands, preflights, effects) = b.counters();
    let r = p.call_structured("tool_call", json!({"name":"legacy_probe","arguments":{}}));
    assert_eq!(r["code"], "APPROVAL_REQUIRED", "{r}");
    assert!(r["data"]["token"].is_string(), "{r}");
    assert_eq!(b.editor_calls(), commands, "the legacy call was sent");
    assert_eq!(b.sim.side_effects(), effects);
    assert_eq!(b.sim.side_effects_of("legacy_probe", None), 0);
    assert_eq!(
        b.sim.requests_seen("/approval/preflight"),
        preflights + 1,
        "approval is asked of the Connector exactly once"
    );
}

/// Bullet: "Without permission: search for `exec` returns `[]`; calling it →
/// `ARBITRARY_CODE_PERMISSION_REQUIRED`, zero calls."
///
/// `[]` is a fact about the anchor's catalog, where nothing but `exec` mentions the word; on
/// that catalog ours answers `[]` too. On the full built-in catalog, `find_method` rightly
/// matches ("… before writing an exec snippet"), so there the check is that no tool running
/// arbitrary code (`exec`, `menu`) is returned.
#[test]
fn compact_without_permission_exec_search_is_empty_and_call_is_arbitrary_code_permission_required()
{
    let b = Bench::anchor_fixture();
    let mut p = b.mcp(&[], &[]);
    let r = p.call_structured("tool_search", json!({"query":"exec"}));
    assert_eq!(r["success"], true, "{r}");
    assert_eq!(hits(&r), Vec::<Value>::new(), "{r}");
    let before = b.counters();
    let c = p.call_structured(
        "tool_call",
        json!({"name":"exec","arguments":{"code":"return 1;"}}),
    );
    assert_eq!(c["code"], "ARBITRARY_CODE_PERMISSION_REQUIRED", "{c}");
    assert_eq!(b.counters(), before, "the refused call reached the Editor");
    assert_eq!(b.sim.side_effects_of("exec", None), 0);
    drop(p);

    let full = Bench::new();
    let mut p = full.mcp(&[], &[]);
    let r = p.call_structured("tool_search", json!({"query":"exec","limit":100}));
    assert_eq!(r["success"], true, "{r}");
    for h in hits(&r) {
        assert!(
            h["name"] != "exec" && h["name"] != "menu",
            "arbitrary code listed: {r}"
        );
    }
}
