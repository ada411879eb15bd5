//! The MCP server's process and protocol behaviour, with no Editor at all: the gate, the
//! transport refusal, version negotiation, `server/discover`, early and unknown requests,
//! malformed params, prompt exit on stdin EOF, and the fixed compact tool list.
//!
//! Every test drives the real binary over real pipes (see `support::mcp`), and every stdout line
//! is checked to be a JSON-RPC 2.0 frame.

use crate::support::mcp::*;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;

fn home() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Runs the binary with stdin closed and returns (status, stdout, stderr).
fn run_once(home: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
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

#[test]
fn disabled_by_default_exits_nonzero_and_says_how_to_enable() {
    let h = home();
    for env in [
        vec![],
        vec![("HERA_MCP_ENABLED", "0")],
        vec![("HERA_MCP_ENABLED", "nope")],
    ] {
        let (code, stdout, stderr) = run_once(h.path(), &env, &["mcp"]);
        assert_ne!(code, 0, "{env:?}");
        assert!(stdout.is_empty(), "stdout must stay empty: {stdout:?}");
        assert!(stderr.contains("HERA_MCP_ENABLED=1"), "stderr: {stderr}");
    }
    // Every documented spelling of "true" enables it (the process then waits for stdin; EOF ends it).
    for v in ["1", "true", "YES", "On"] {
        let (code, stdout, stderr) = run_once(h.path(), &[("HERA_MCP_ENABLED", v)], &["mcp"]);
        assert_eq!(code, 0, "HERA_MCP_ENABLED={v}: {stderr}");
        assert!(stdout.is_empty());
    }
}

#[test]
fn non_stdio_transport_and_unknown_exposure_are_refused() {
    let h = home();
    let on = [("HERA_MCP_ENABLED", "1")];
    let (code, stdout, stderr) = run_once(h.path(), &on, &["mcp", "--transport", "http"]);
    assert_ne!(code, 0);
    assert!(stdout.is_empty());
    assert!(stderr.contains("unsupported MCP transport"), "{stderr}");

    let (code, stdout, stderr) = run_once(
        h.path(),
        &on,
        &["mcp", "--exposure", "profile", "--profile", "sceen"],
    );
    assert_ne!(code, 0);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("unsupported MCP profile") && stderr.contains("scene"),
        "{stderr}"
    );

    let (code, _, stderr) = run_once(
        h.path(),
        &[("HERA_MCP_ENABLED", "1"), ("HERA_MCP_EXPOSURE", "bogus")],
        &["mcp"],
    );
    assert_ne!(code, 0);
    assert!(stderr.contains("unsupported MCP exposure"), "{stderr}");

    // An empty HERA_MCP_EXPOSURE means compact.
    let (code, _, stderr) = run_once(
        h.path(),
        &[("HERA_MCP_ENABLED", "1"), ("HERA_MCP_EXPOSURE", "")],
        &["mcp"],
    );
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn initialize_negotiates_every_version() {
    let h = home();
    for v in LEGACY_VERSIONS {
        let mut p = McpProc::start(h.path(), &[], &[], &[]);
        let r = p.initialize(v);
        assert_eq!(r["protocolVersion"], v);
        assert_eq!(r["serverInfo"]["name"], "hera-agent-unity");
        assert!(r["capabilities"]["tools"].is_object());
        assert!(r["instructions"].as_str().unwrap().contains("tool_search"));
        let tools = p.ok("tools/list", json!({}));
        assert_eq!(tools["tools"].as_array().unwrap().len(), 3);
        let (status, _) = p.shutdown(Duration::from_secs(5));
        assert!(status.success());
    }
    // 2026-07-28 has no initialize handshake; an initialize asking for it gets the newest that has one.
    let mut p = McpProc::start(h.path(), &[], &[], &[]);
    assert_eq!(p.initialize(V2026)["protocolVersion"], "2025-11-25");
}

#[test]
fn server_discover_and_the_stateless_2026_lifecycle() {
    let h = home();
    let mut p = McpProc::start(h.path(), &[], &[], &[]);
    let d = p.ok("server/discover", json!({"_meta": meta_2026()}));
    let versions: Vec<&str> = d["supportedVersions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for v in LEGACY_VERSIONS.iter().chain([V2026].iter()) {
        assert!(versions.contains(v), "{v} missing from {versions:?}");
    }
    assert!(d["capabilities"]["tools"].is_object());
    // Inline 2026 requests: each carries its _meta; results carry resultType.
    let list = p.ok("tools/list", json!({"_meta": meta_2026()}));
    assert_eq!(list["tools"].as_array().unwrap().len(), 3);
    assert_eq!(list["resultType"], "complete");
    let r = p.ok(
        "tools/call",
        json!({"_meta": meta_2026(), "name":"tool_search","arguments":{"query":"scene","limit":0}}),
    );
    let s = structured(&r);
    assert_eq!(s["code"], "INVALID_ARGUMENT");
    // 2026 has no ping.
    let ping = p.request("ping", json!({"_meta": meta_2026()}));
    assert_eq!(ping["error"]["code"], -32601);
}

#[test]
fn lone_discover_then_eof_exits_zero() {
    let h = home();
    let mut p = McpProc::start(h.path(), &[], &[], &[]);
    p.ok("server/discover", json!({"_meta": meta_2026()}));
    let (status, took) = p.shutdown(Duration::from_secs(5));
    assert!(status.success(), "exit status {status:?}");
    assert!(took < Duration::from_secs(5));
}

#[test]
fn early_and_unknown_requests_are_answered_and_never_kill_the_server() {
    let h = home();
    let mut p = McpProc::start(h.path(), &[], &[], &[]);
    // A notification before initialize must not end the process (rmcp pitfall 4).
    p.notify("notifications/initialized", None);
    p.notify("notifications/cancelled", Some(json!({"requestId": 99})));
    // A stray response to nothing.
    p.send(&json!({"jsonrpc":"2.0","id":"nobody","result":{}}));
    // A request before initialize, without 2026 metadata: an error, at once.
    let early = p.request("tools/list", json!({}));
    assert_eq!(early["error"]["code"], -32602, "{early}");
    // ping before initialize is allowed.
    assert!(p.request("ping", Value::Null).get("result").is_some());
    // The server is still alive and initializes normally.
    p.initialize("2025-06-18");
    let unknown = p.request("bogus/method", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bogus/method")
    );
    let prompts = p.request("prompts/list", json!({}));
    assert_eq!(prompts["error"]["code"], -32601);
    // Not JSON at all: -32700 with a null id; not JSON-RPC: -32600; the session continues.
    p.send_raw("this is not json");
    let parse = p.wait_for(&Value::Null);
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    p.send_raw("{\"hello\":1}");
    let invalid = p.wait_for(&Value::Null);
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    p.send_raw("[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}]");
    let batch = p.wait_for(&Value::Null);
    assert_eq!(batch["error"]["code"], -32600, "{batch}");
    let list = p.ok("tools/list", json!({}));
    assert_eq!(list["tools"].as_array().unwrap().len(), 3);
}

#[test]
fn malformed_params_get_invalid_params() {
    let h = home();
    let mut p = McpProc::start(h.path(), &[], &[], &[]);
    p.initialize("2025-11-25");
    for params in [
        json!({"arguments": {}}),
        json!({"name": "tool_search", "arguments": [1, 2]}),
        json!({"name": 7}),
    ] {
        let r = p.request("tools/call", params.clone());
        assert_eq!(r["error"]["code"], -32602, "{params} → {r}");
    }
    let r = p.request("tools/call", json!({"name":"no_such_tool","arguments":{}}));
    assert_eq!(r["error"]["code"], -32602);
    // Namespaced names used by older clients resolve to our tools.
    let r = p.call("hera__tool_search", json!({"query": ""}));
    assert_eq!(structured(&r)["code"], "INVALID_ARGUMENT");
}

#[test]
fn compact_tools_are_truthful_and_need_no_editor() {
    let h = home();
    let mut p = McpProc::start(h.path(), &[], &[], &[]);
    p.initialize("2025-06-18");
    let list = p.ok("tools/list", json!({}));
    let tools = list["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["tool_call", "tool_describe", "tool_search"]);
    for t in tools {
        let a = &t["annotations"];
        let safe = t["name"] != "tool_call";
        assert_eq!(a["readOnlyHint"], safe);
        assert_eq!(a["destructiveHint"], !safe);
        assert_eq!(a["idempotentHint"], safe);
        assert_eq!(a["openWorldHint"], !safe);
        assert!(t["title"].is_string());
        assert!(t["description"].as_str().unwrap().len() <= 1000);
        assert!(t["inputSchema"].to_string().len() <= 8000);
        assert_eq!(t["outputSchema"]["additionalProperties"], false);
    }
    let bytes = list.to_string().len();
    eprintln!("compact tools/list result: {bytes} bytes");

    // Without an Editor and without a cached catalog: structured, retryable errors that fit the
    // advertised output schema.
    let s = p.call_structured("tool_search", json!({"query":"load a scene"}));
    assert_eq!(s["code"], "EDITOR_NOT_RUNNING");
    assert_eq!(s["data"]["retryable"], true);
    assert_fits_output_schema(&list, "tool_search", &s);
    let s = p.call_structured("tool_describe", json!({"name":"scene"}));
    assert_eq!(s["code"], "EDITOR_NOT_RUNNING");
    assert_fits_output_schema(&list, "tool_describe", &s);
    let s = p.call_structured(
        "tool_call",
        json!({"name":"scene","arguments":{"action":"info"}}),
    );
    assert_eq!(s["code"], "EDITOR_NOT_RUNNING");
    assert_eq!(s["data"]["retryable"], true);
    assert_fits_output_schema(&list, "tool_call", &s);

    // Argument errors are tool errors with a pointer, not protocol errors.
    for (tool, args, pointer) in [
        ("tool_search", json!({"query":"x","limit":101}), "/limit"),
        ("tool_search", json!({"query":"x","limit":0}), "/limit"),
        ("tool_search", json!({"query":"x","extra":true}), "/extra"),
        ("tool_describe", json!({}), "/name"),
        (
            "tool_call",
            json!({"name":"scene","arguments":"info"}),
            "/arguments",
        ),
    ] {
        let s = p.call_structured(tool, args.clone());
        assert_eq!(s["code"], "INVALID_ARGUMENT", "{tool} {args}");
        assert_eq!(s["data"]["pointer"], pointer, "{tool} {args}: {s}");
        assert_fits_output_schema(&list, tool, &s);
    }
    // A malformed operation id has its own code (the anchor's bar), still with a pointer.
    let s = p.call_structured("tool_call", json!({"name":"scene","operation_id":"short"}));
    assert_eq!(s["code"], "INVALID_OPERATION_ID", "{s}");
    assert_eq!(s["data"]["pointer"], "/operation_id", "{s}");
    assert_fits_output_schema(&list, "tool_call", &s);
}

#[test]
fn exits_promptly_on_stdin_eof() {
    let h = home();
    let mut p = McpProc::start(h.path(), &[], &[], &[]);
    p.initialize("2025-11-25");
    p.ok("tools/list", json!({}));
    let (status, took) = p.shutdown(Duration::from_secs(5));
    assert!(status.success());
    eprintln!("exit after EOF took {took:?}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
}
