//! `setup <client>` against real configuration-file shapes of each client: missing, empty,
//! existing with other servers, already set up, unparseable, and Codex's TOML. Every test runs
//! the real binary with a temporary home (every location variable pointed into it, so the
//! developer's real configuration is never read or written) and reads the file back.

use crate::support::cli::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Runs the binary with every variable that decides a client's configuration location pointed
/// into the temporary home.
fn run_setup(home: &Home, args: &[&str]) -> Run {
    let h = home.path();
    let xdg = h.join(".config");
    let codex = h.join(".codex");
    home.run_env(
        args,
        &[
            ("XDG_CONFIG_HOME", xdg.to_str().unwrap()),
            ("APPDATA", h.join("AppData/Roaming").to_str().unwrap()),
            ("CLAUDE_CONFIG_DIR", h.to_str().unwrap()),
            ("CODEX_HOME", codex.to_str().unwrap()),
        ],
    )
}

fn this_binary() -> String {
    std::fs::canonicalize(BIN)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The JSON clients: id, file under the (Linux) temporary home, servers key, whether entries
/// carry `"type": "stdio"`, and a realistic existing file with other servers and keys.
struct JsonClient {
    id: &'static str,
    file: &'static str,
    key: &'static str,
    typed: bool,
    existing: &'static str,
}

const JSON_CLIENTS: [JsonClient; 5] = [
    JsonClient {
        id: "claude-code",
        file: ".claude.json",
        key: "mcpServers",
        typed: true,
        existing: r#"{
  "numStartups": 42,
  "theme": "dark",
  "projects": {
    "/home/me/game": {"allowedTools": [], "mcpServers": {}, "hasTrustDialogAccepted": true}
  },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example"}
    }
  },
  "tipsHistory": {"new-user-warmup": 1.0e0}
}
"#,
    },
    JsonClient {
        id: "claude-desktop",
        file: ".config/Claude/claude_desktop_config.json",
        key: "mcpServers",
        typed: false,
        existing: r#"{
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"]
        }
    },
    "globalShortcut": "Ctrl+Space"
}"#,
    },
    JsonClient {
        id: "cursor",
        file: ".cursor/mcp.json",
        key: "mcpServers",
        typed: false,
        existing: r#"{"mcpServers":{"server-name":{"command":"npx","args":["-y","mcp-server"],"env":{"API_KEY":"value"}},"remote":{"url":"http://localhost:3000/mcp"}}}"#,
    },
    JsonClient {
        id: "vscode",
        file: ".config/Code/User/mcp.json",
        key: "servers",
        typed: true,
        existing: r#"{
	"inputs": [
		{"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true}
	],
	"servers": {
		"Perplexity": {
			"type": "stdio",
			"command": "npx",
			"args": ["-y", "server-perplexity-ask"],
			"env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
		},
		"Fetch": {"type": "http", "url": "https://example.invalid/mcp"}
	}
}
"#,
    },
    JsonClient {
        id: "windsurf",
        file: ".codeium/windsurf/mcp_config.json",
        key: "mcpServers",
        typed: false,
        existing: r#"{
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "x"}},
    "figma": {"serverUrl": "https://example.invalid/figma"}
  }
}
"#,
    },
];

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON ({e}):\n{text}", path.display()))
}

fn backups(path: &Path) -> Vec<PathBuf> {
    let prefix = format!(
        "{}.hera-backup-",
        path.file_name().unwrap().to_string_lossy()
    );
    let mut v: Vec<PathBuf> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&prefix)
        })
        .collect();
    v.sort();
    v
}

/// Our entry as each client must hold it.
fn assert_our_entry(c: &JsonClient, entry: &Value, project: Option<&str>) {
    assert_eq!(entry["command"], this_binary(), "{}: {entry}", c.id);
    assert_eq!(
        entry["args"],
        json!(["mcp", "--transport", "stdio"]),
        "{}",
        c.id
    );
    assert_eq!(entry["env"]["HERA_MCP_ENABLED"], "1", "{}", c.id);
    match project {
        Some(p) => assert_eq!(entry["env"]["HERA_AGENT_PROJECT"], p, "{}", c.id),
        None => assert!(
            entry["env"].get("HERA_AGENT_PROJECT").is_none(),
            "{}: {entry}",
            c.id
        ),
    }
    if c.typed {
        assert_eq!(entry["type"], "stdio", "{}", c.id);
    } else {
        assert!(entry.get("type").is_none(), "{}: {entry}", c.id);
    }
}

#[test]
fn a_missing_or_empty_file_gets_just_our_entry_in_the_clients_real_location() {
    for c in &JSON_CLIENTS {
        let home = Home::new();
        let path = home.path().join(c.file);
        let r = run_setup(&home, &["setup", c.id]);
        r.expect(0);
        assert!(
            r.stdout.contains(&path.display().to_string()),
            "{}: {}",
            c.id,
            r.stdout
        );
        let doc = read_json(&path);
        let servers = doc[c.key].as_object().unwrap();
        assert_eq!(servers.len(), 1, "{}: {doc}", c.id);
        assert_our_entry(c, &doc[c.key]["unity"], None);
        assert!(
            backups(&path).is_empty(),
            "nothing to back up for a new file"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}: a new config is private", c.id);
        }

        // An empty file (some clients create one) is treated as `{}`, and backed up.
        let home = Home::new();
        let path = home.path().join(c.file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "").unwrap();
        run_setup(&home, &["setup", c.id]).expect(0);
        assert_our_entry(c, &read_json(&path)[c.key]["unity"], None);
        let b = backups(&path);
        assert_eq!(b.len(), 1, "{}", c.id);
        assert_eq!(std::fs::read_to_string(&b[0]).unwrap(), "");
    }
}

#[test]
fn existing_files_keep_every_other_server_and_key_and_a_backup() {
    for c in &JSON_CLIENTS {
        let home = Home::new();
        let path = home.path().join(c.file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, c.existing).unwrap();
        let original: Value = serde_json::from_str(c.existing).unwrap();

        run_setup(
            &home,
            &["--project", "/home/me/Unity/My Game", "setup", c.id],
        )
        .expect(0);
        let doc = read_json(&path);
        assert_our_entry(c, &doc[c.key]["unity"], Some("/home/me/Unity/My Game"));
        // Every other top-level key and every other server is exactly as it was.
        let mut without_ours = doc.clone();
        without_ours[c.key].as_object_mut().unwrap().remove("unity");
        assert_eq!(without_ours, original, "{}", c.id);
        let b = backups(&path);
        assert_eq!(b.len(), 1, "{}", c.id);
        assert_eq!(
            std::fs::read_to_string(&b[0]).unwrap(),
            c.existing,
            "{}",
            c.id
        );
        // Member order is kept: the servers that were there come first.
        let text = std::fs::read_to_string(&path).unwrap();
        let first_other = original[c.key]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        assert!(
            text.find(&format!("\"{first_other}\"")).unwrap() < text.find("\"unity\"").unwrap(),
            "{}: {text}",
            c.id
        );

        // --remove takes out only our entry, with another backup.
        let r = run_setup(&home, &["setup", c.id, "--remove"]);
        r.expect(0);
        assert_eq!(read_json(&path), original, "{}", c.id);
        assert_eq!(backups(&path).len(), 2, "{}", c.id);
        // Removing again changes nothing.
        let r = run_setup(&home, &["setup", c.id, "--remove"]);
        r.expect(0);
        assert!(r.stdout.contains("nothing to remove"), "{}", r.stdout);
        assert_eq!(backups(&path).len(), 2, "{}", c.id);
    }
}

#[test]
fn running_setup_again_changes_nothing_and_a_new_pin_updates_in_place() {
    for c in &JSON_CLIENTS {
        let home = Home::new();
        let path = home.path().join(c.file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, c.existing).unwrap();
        run_setup(&home, &["setup", c.id]).expect(0);
        let after_first = std::fs::read(&path).unwrap();
        let r = run_setup(&home, &["setup", c.id]);
        r.expect(0);
        assert!(
            r.stdout.contains("nothing changed"),
            "{}: {}",
            c.id,
            r.stdout
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            after_first,
            "{}: byte for byte",
            c.id
        );
        assert_eq!(backups(&path).len(), 1, "{}: no backup for a no-op", c.id);

        // A user's own addition inside our entry survives a re-run with a pin.
        let mut doc = read_json(&path);
        doc[c.key]["unity"]["env"]["RUST_LOG"] = json!("debug");
        doc[c.key]["unity"]["disabled"] = json!(false);
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        run_setup(&home, &["--project", "MyGame", "setup", c.id]).expect(0);
        let entry = &read_json(&path)[c.key]["unity"];
        assert_our_entry(c, entry, Some("MyGame"));
        assert_eq!(entry["env"]["RUST_LOG"], "debug", "{}", c.id);
        assert_eq!(entry["disabled"], false, "{}", c.id);
        // And no pin this time unpins it.
        run_setup(&home, &["setup", c.id]).expect(0);
        assert_our_entry(c, &read_json(&path)[c.key]["unity"], None);
    }
}

#[test]
fn an_unparseable_file_is_left_untouched_with_a_clear_error() {
    let broken = [
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  }\n}\n",
        "{\n  // my servers\n  \"servers\": {}\n}\n",
        "[\"not\", \"an object\"]",
    ];
    for c in &JSON_CLIENTS {
        for text in broken {
            let home = Home::new();
            let path = home.path().join(c.file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            let r = run_setup(&home, &["setup", c.id]);
            r.expect(1);
            let err = r.error();
            assert!(
                matches!(
                    err["code"].as_str(),
                    Some("CONFIG_UNPARSEABLE" | "CONFIG_UNEXPECTED_SHAPE")
                ),
                "{}: {err}",
                c.id
            );
            assert!(
                err["message"]
                    .as_str()
                    .unwrap()
                    .contains("Nothing was written"),
                "{err}"
            );
            // The suggestion carries the entry to add by hand.
            assert!(
                err["suggestions"][0]
                    .as_str()
                    .unwrap()
                    .contains(&this_binary()),
                "{err}"
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{}", c.id);
            assert!(backups(&path).is_empty(), "{}", c.id);
        }
    }
    // The position of the fault is named.
    let home = Home::new();
    let path = home.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, broken[1]).unwrap();
    let r = run_setup(&home, &["setup", "cursor"]);
    assert!(
        r.error()["message"].as_str().unwrap().contains("line 2"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_foreign_entry_of_the_same_name_is_kept_unless_forced() {
    let home = Home::new();
    let path = home.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = r#"{"mcpServers":{"unity":{"command":"npx","args":["some-other-unity-mcp"]}}}"#;
    std::fs::write(&path, text).unwrap();
    let r = run_setup(&home, &["setup", "cursor"]);
    r.expect(1);
    assert_eq!(r.error_code(), "CONFIG_ENTRY_NOT_OURS");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    run_setup(&home, &["setup", "cursor", "--remove"]).expect(1);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // Under another name both live side by side.
    run_setup(&home, &["setup", "cursor", "--name", "hera"]).expect(0);
    let doc = read_json(&path);
    assert_eq!(doc["mcpServers"]["unity"]["command"], "npx");
    assert_eq!(doc["mcpServers"]["hera"]["command"], this_binary());
    run_setup(&home, &["setup", "cursor", "--force"]).expect(0);
    assert_eq!(
        read_json(&path)["mcpServers"]["unity"]["command"],
        this_binary()
    );
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let home = Home::new();
    let path = home.path().join(".codeium/windsurf/mcp_config.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, JSON_CLIENTS[4].existing).unwrap();
    let r = run_setup(
        &home,
        &["setup", "windsurf", "--dry-run", "--exposure", "full"],
    );
    r.expect(0);
    assert!(r.stdout.contains("+++ "), "{}", r.stdout);
    assert!(
        r.stdout
            .contains(&format!("+      \"command\": \"{}\"", this_binary())),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("\"--exposure\", \"full\""),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("nothing was written"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        JSON_CLIENTS[4].existing
    );
    assert!(backups(&path).is_empty());
    // A missing file stays missing.
    let home = Home::new();
    run_setup(&home, &["setup", "cursor", "--dry-run"]).expect(0);
    assert!(!home.path().join(".cursor/mcp.json").exists());
}

#[test]
fn claude_code_prints_the_equivalent_claude_mcp_add_line() {
    let home = Home::new();
    let r = run_setup(&home, &["--project", "/p/My Game", "setup", "claude-code"]);
    r.expect(0);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("equivalent: "))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert_eq!(
        line,
        format!(
            "equivalent: claude mcp add --transport stdio --scope user unity --env HERA_MCP_ENABLED=1 \
             --env 'HERA_AGENT_PROJECT=/p/My Game' -- {} mcp --transport stdio",
            this_binary()
        )
    );
    let r = run_setup(&home, &["setup", "claude-code", "--remove"]);
    assert!(
        r.stdout
            .contains("equivalent: claude mcp remove --scope user unity"),
        "{}",
        r.stdout
    );
    // A project's .mcp.json is Claude Code's project scope.
    let project_file = home.path().join("Projects/Game/.mcp.json");
    let r = run_setup(
        &home,
        &[
            "setup",
            "claude-code",
            "--config",
            project_file.to_str().unwrap(),
        ],
    );
    r.expect(0);
    assert!(
        r.stdout
            .contains("claude mcp add --transport stdio --scope project unity"),
        "{}",
        r.stdout
    );
    assert_eq!(
        read_json(&project_file)["mcpServers"]["unity"]["type"],
        "stdio"
    );
}

#[test]
fn codex_toml_keeps_comments_and_other_tables() {
    let existing = "# Codex settings\nmodel = \"o3\"  # the default model\n\n[mcp_servers.docs]\ncommand = \"docs-server\"\nargs = [\"--port\", \"4000\"]\n\n[mcp_servers.docs.env]\nAPI_KEY = \"secret\"\n\n[profiles.fast]\nmodel = \"o4-mini\"\n";
    let home = Home::new();
    let path = home.path().join(".codex/config.toml");
    // Missing file first.
    run_setup(&home, &["setup", "codex"]).expect(0);
    let doc: toml_edit::DocumentMut = std::fs::read_to_string(&path).unwrap().parse().unwrap();
    assert_eq!(
        doc["mcp_servers"]["unity"]["command"].as_str(),
        Some(this_binary().as_str())
    );
    assert_eq!(
        doc["mcp_servers"]["unity"]["env"]["HERA_MCP_ENABLED"].as_str(),
        Some("1")
    );
    std::fs::remove_file(&path).unwrap();

    std::fs::write(&path, existing).unwrap();
    run_setup(
        &home,
        &[
            "--project",
            "/p/Game",
            "setup",
            "codex",
            "--exposure",
            "profile",
            "--profile",
            "scene",
        ],
    )
    .expect(0);
    let text = std::fs::read_to_string(&path).unwrap();
    // Every line that was there is still there, in order (comments included).
    let mut rest = text.lines();
    for line in existing.lines() {
        assert!(rest.any(|l| l == line), "lost or moved {line:?}:\n{text}");
    }
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let u = &doc["mcp_servers"]["unity"];
    assert_eq!(u["command"].as_str(), Some(this_binary().as_str()));
    let args: Vec<&str> = u["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        args,
        [
            "mcp",
            "--transport",
            "stdio",
            "--exposure",
            "profile",
            "--profile",
            "scene"
        ]
    );
    assert_eq!(u["env"]["HERA_MCP_ENABLED"].as_str(), Some("1"));
    assert_eq!(u["env"]["HERA_AGENT_PROJECT"].as_str(), Some("/p/Game"));
    assert_eq!(
        doc["mcp_servers"]["docs"]["env"]["API_KEY"].as_str(),
        Some("secret")
    );
    assert_eq!(backups(&path).len(), 1);

    // Already set up: byte for byte the same, no new backup.
    let r = run_setup(
        &home,
        &[
            "--project",
            "/p/Game",
            "setup",
            "codex",
            "--exposure",
            "profile",
            "--profile",
            "scene",
        ],
    );
    r.expect(0);
    assert!(r.stdout.contains("nothing changed"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_eq!(backups(&path).len(), 1);

    // Remove: back to the original tables and comments.
    run_setup(&home, &["setup", "codex", "--remove"]).expect(0);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.trim_end(), existing.trim_end());

    // Unparseable TOML is left untouched.
    let bad = "model = \"o3\"\n[mcp_servers.unity\ncommand = 1\n";
    std::fs::write(&path, bad).unwrap();
    let r = run_setup(&home, &["setup", "codex"]);
    r.expect(1);
    assert_eq!(r.error_code(), "CONFIG_UNPARSEABLE");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), bad);
}

#[test]
fn config_override_and_bad_arguments() {
    let home = Home::new();
    let custom = home.path().join("elsewhere/project-mcp.json");
    run_setup(
        &home,
        &["setup", "vscode", "--config", custom.to_str().unwrap()],
    )
    .expect(0);
    assert_eq!(read_json(&custom)["servers"]["unity"]["type"], "stdio");
    assert!(!home.path().join(".config/Code/User/mcp.json").exists());

    let r = run_setup(&home, &["setup", "cursor", "--profile", "nope"]);
    r.expect(2);
    assert!(
        r.error()["message"]
            .as_str()
            .unwrap()
            .contains("unknown profile"),
        "{}",
        r.stderr
    );
    run_setup(&home, &["setup", "cursor", "--profile", "advanced"]).expect(2);
    run_setup(&home, &["setup", "cursor", "--name", "bad name"]).expect(2);
    run_setup(&home, &["setup", "notepad"]).expect(2);
    assert!(
        !home.path().join(".cursor/mcp.json").exists(),
        "no write on a usage error"
    );
}
