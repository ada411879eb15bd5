//! `doctor --json` reads the MCP clients' own configuration files (under a temporary home) and
//! names each misconfiguration with its fix: an entry that runs a missing binary, one without
//! HERA_MCP_ENABLED, another copy of the program, a file the client cannot parse.

use crate::support::cli::*;
use serde_json::Value;

fn doctor(home: &Home) -> Value {
    let h = home.path();
    let r = home.run_env(
        &["doctor", "--json"],
        &[
            ("XDG_CONFIG_HOME", h.join(".config").to_str().unwrap()),
            ("CLAUDE_CONFIG_DIR", h.to_str().unwrap()),
            ("CODEX_HOME", h.join(".codex").to_str().unwrap()),
        ],
    );
    r.json()
}

fn find<'a>(report: &'a Value, id: &str) -> Option<&'a Value> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
}

fn write(home: &Home, rel: &str, text: &str) {
    let p = home.path().join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn this_binary() -> String {
    std::fs::canonicalize(BIN)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn no_client_configured_is_a_warning_naming_setup() {
    let home = Home::new();
    let report = doctor(&home);
    let c = find(&report, "clients").unwrap_or_else(|| panic!("{report}"));
    assert_eq!(c["status"], "warn");
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .contains("hera-agent-unity setup"),
        "{c}"
    );
}

#[test]
fn misconfigured_clients_are_named_with_their_fix() {
    let home = Home::new();
    // Cursor runs a binary that is not there.
    write(
        &home,
        ".cursor/mcp.json",
        r#"{"mcpServers":{"other":{"command":"npx"},"unity":{"command":"/nowhere/bin/hera-agent-unity","args":["mcp"],"env":{"HERA_MCP_ENABLED":"1"}}}}"#,
    );
    // VS Code runs this binary but without HERA_MCP_ENABLED.
    write(
        &home,
        ".config/Code/User/mcp.json",
        &format!(
            r#"{{"servers":{{"hera":{{"type":"stdio","command":"{}","args":["mcp"]}}}}}}"#,
            this_binary()
        ),
    );
    // Windsurf runs another copy that exists.
    let other = home.path().join("old-build/hera-agent-unity");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, "#!/bin/sh\n").unwrap();
    write(
        &home,
        ".codeium/windsurf/mcp_config.json",
        &format!(
            r#"{{"mcpServers":{{"unity":{{"command":"{}","env":{{"HERA_MCP_ENABLED":"1"}}}}}}}}"#,
            other.display()
        ),
    );
    // Codex's file does not parse.
    write(
        &home,
        ".codex/config.toml",
        "[mcp_servers.unity\ncommand = \"x\"\n",
    );
    // Claude Desktop has only other servers: nothing to report.
    write(
        &home,
        ".config/Claude/claude_desktop_config.json",
        r#"{"mcpServers":{"fs":{"command":"npx"}}}"#,
    );

    let report = doctor(&home);
    let cursor = find(&report, "client_cursor").unwrap_or_else(|| panic!("{report}"));
    assert_eq!(cursor["status"], "fail", "{cursor}");
    assert!(
        cursor["detail"]
            .as_str()
            .unwrap()
            .contains("does not exist"),
        "{cursor}"
    );
    assert!(
        cursor["fix"]
            .as_str()
            .unwrap()
            .contains("hera-agent-unity setup cursor"),
        "{cursor}"
    );

    let vscode = find(&report, "client_vscode").unwrap();
    assert_eq!(vscode["status"], "fail", "{vscode}");
    assert!(
        vscode["detail"]
            .as_str()
            .unwrap()
            .contains("HERA_MCP_ENABLED"),
        "{vscode}"
    );
    assert!(
        vscode["fix"]
            .as_str()
            .unwrap()
            .contains("hera-agent-unity setup vscode --name hera"),
        "the fix names the entry: {vscode}"
    );

    let windsurf = find(&report, "client_windsurf").unwrap();
    assert_eq!(windsurf["status"], "warn", "{windsurf}");
    assert!(
        windsurf["detail"]
            .as_str()
            .unwrap()
            .contains("another copy"),
        "{windsurf}"
    );
    assert!(
        windsurf["fix"].as_str().unwrap().contains("setup windsurf"),
        "{windsurf}"
    );

    let codex = find(&report, "client_codex").unwrap();
    assert_eq!(codex["status"], "warn", "{codex}");
    assert!(
        codex["detail"].as_str().unwrap().contains("not valid TOML"),
        "{codex}"
    );
    assert!(codex["fix"].is_string());

    assert!(find(&report, "client_claude_desktop").is_none(), "{report}");
    assert!(find(&report, "clients").is_none(), "clients are configured");
    assert_eq!(report["ok"], false);

    // The named fix works: after `setup`, the same checks pass.
    let h = home.path();
    for client in ["cursor", "windsurf"] {
        home.run_env(
            &["setup", client],
            &[("XDG_CONFIG_HOME", h.join(".config").to_str().unwrap())],
        )
        .expect(0);
    }
    home.run_env(
        &["setup", "vscode", "--name", "hera"],
        &[("XDG_CONFIG_HOME", h.join(".config").to_str().unwrap())],
    )
    .expect(0);
    let report = doctor(&home);
    for id in ["client_cursor", "client_vscode", "client_windsurf"] {
        let c = find(&report, id).unwrap();
        assert_eq!(c["status"], "ok", "{c}");
        assert!(
            c["detail"].as_str().unwrap().contains("runs this binary"),
            "{c}"
        );
        assert!(c.get("fix").is_none(), "{c}");
    }
}
