//! `call`, `list`, `version` and `--help` through the real binary: the approval round trip,
//! local token checks, input errors and their exit codes.

use crate::support::cli::*;

const CLEAR: &str = r#"{"clear":true}"#;

#[test]
fn approval_round_trip_non_interactive() {
    let home = Home::new();
    let sim = home.editor("Approve");
    // Without consent: exit 4, the preflight data (token) in the envelope, nothing ran.
    let r = home.run(&["call", "console", "--args", CLEAR]);
    r.expect(4);
    let e = r.error();
    assert_eq!(e["code"], "APPROVAL_REQUIRED");
    let token = e["data"]["token"].as_str().unwrap().to_string();
    let op = e["data"]["operation_id"].as_str().unwrap().to_string();
    assert!(
        r.stderr.contains("Approval required: console"),
        "summary on stderr"
    );
    assert!(r.stdout.is_empty(), "nothing on stdout");
    assert_eq!(sim.side_effects(), 0);

    // A token for other arguments is refused locally, naming what differs; nothing is sent.
    let r = home.run(&[
        "call",
        "console",
        "--args",
        r#"{"clear":true,"lines":5}"#,
        &format!("--approve={token}"),
    ]);
    r.expect(4);
    let e = r.error();
    assert_eq!(e["code"], "APPROVAL_MISMATCH");
    assert_eq!(e["data"]["mismatched"], serde_json::json!(["arguments"]));
    // ... and so is one for another operation id.
    let r = home.run(&[
        "call",
        "console",
        "--args",
        CLEAR,
        "--operation-id",
        "op_something_else_1",
        &format!("--approve={token}"),
    ]);
    r.expect(4);
    assert_eq!(
        r.error()["data"]["mismatched"],
        serde_json::json!(["operation_id"])
    );
    assert_eq!(sim.side_effects(), 0);

    // The right token: runs once, under the preflight's operation id.
    let r = home.run(&["call", "console", "--args", CLEAR, "--approve", &token]);
    r.expect(0);
    assert_eq!(sim.side_effects_of("console", None), 1);
    // Single use: the same token again is the Editor's APPROVAL_ALREADY_USED or a ledger
    // replay of the same operation; either way nothing runs twice.
    let r = home.run(&[
        "call",
        "console",
        "--args",
        CLEAR,
        &format!("--approve={token}"),
    ]);
    assert!(r.code == 0 || r.code == 4, "{r:?}");
    assert_eq!(sim.side_effects_of("console", None), 1);
    let _ = op;

    // --yes approves in one go (summary still on stderr).
    let r = home.run(&["call", "console", "--args", CLEAR, "--yes"]);
    r.expect(0);
    assert!(r.stderr.contains("Approval required"));
    assert_eq!(sim.side_effects_of("console", None), 2);
    // A bare --approve is the same.
    home.run(&["call", "console", "--args", CLEAR, "--approve"])
        .expect(0);
    assert_eq!(sim.side_effects_of("console", None), 3);
}

#[test]
fn results_on_stdout_and_input_errors_exit_2() {
    let home = Home::new();
    let sim = home.editor("Calls");
    let r = home.run(&["call", "scene", "info"]);
    r.expect(0);
    let data: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("data as JSON");
    assert!(data.is_object());
    // Action in --args instead of positional.
    home.run(&["call", "scene", "--args", r#"{"action":"info"}"#])
        .expect(0);
    // Conflicting actions.
    let r = home.run(&["call", "scene", "info", "--args", r#"{"action":"list"}"#]);
    r.expect(2);
    assert_eq!(r.error_code(), "ARGUMENT_CONFLICT");
    let r = home.run(&["call", "scene", "info", "--args", "{not json"]);
    r.expect(2);
    let r = home.run(&["call", "scene", "info", "--args", "[1]"]);
    r.expect(2);
    let r = home.run(&["call", "scene", "info", "--operation-id", "bad id!"]);
    r.expect(2);
    assert_eq!(r.error_code(), "INVALID_OPERATION_ID");
    let r = home.run(&["call", "scene", "--bogus-flag"]);
    r.expect(2);
    // Unknown names: exit 1 with a suggestion, nothing sent.
    let r = home.run(&["call", "scen", "info"]);
    r.expect(1);
    assert_eq!(r.error_code(), "TOOL_NOT_FOUND");
    assert!(r.error()["message"].as_str().unwrap().contains("scene"));
    let r = home.run(&["call", "scene", "explode"]);
    r.expect(1);
    assert_eq!(r.error_code(), "ACTION_NOT_FOUND");
    // Arguments are checked against the action's schema before anything is sent (the same
    // strict check an agent's call gets), with a pointer to the fault: exit 1.
    let sent = sim.requests_seen("/command");
    let r = home.run(&["call", "scene", "load"]);
    r.expect(1);
    assert_eq!(r.error_code(), "INVALID_ARGUMENT");
    assert_eq!(r.error()["data"]["contract"], "scene/load");
    assert_eq!(sim.requests_seen("/command"), sent, "nothing sent");
    assert_eq!(sim.side_effects(), 0);
    // --args from stdin-like sources: a file.
    let f = home.path().join("args.json");
    std::fs::write(&f, r#"{"name":"FromFile"}"#).unwrap();
    let at = format!("@{}", f.display());
    home.run(&["call", "manage_gameobject", "create", "--args", &at])
        .expect(0);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
}

#[test]
fn list_version_help_and_no_editor() {
    let home = Home::new();
    let r = home.run(&["version"]);
    assert!(r.expect(0).stdout.starts_with("hera-agent-unity "));
    let r = home.run(&["--help"]);
    let help = &r.expect(0).stdout;
    assert!(help.contains("EXIT CODES") && help.contains("EXAMPLES"));
    let r = home.run(&["call", "--help"]);
    assert!(r.expect(0).stdout.contains("--approve"));
    // No Editor: exit 3 after the bounded initial wait.
    let r = home.run_env(
        &["call", "scene", "info"],
        &[("HERA_AGENT_TIMEOUT_MS", "800")],
    );
    r.expect(3);
    assert_eq!(r.error_code(), "EDITOR_NOT_RUNNING");
    let r = home.run(&["status"]);
    r.expect(3);

    let _sim = home.editor("Listing");
    let r = home.run(&["list", "--compact"]);
    let names: Vec<&str> = r.expect(0).stdout.lines().collect();
    assert_eq!(names.len(), 34, "{names:?}");
    assert!(names.contains(&"scene") && names.contains(&"manage_gameobject"));
    let j = home.run(&["list", "--json"]).json();
    assert_eq!(j["legacy"], false);
    let console = j["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "console")
        .unwrap()
        .clone();
    assert_eq!(
        console["may_require_confirmation"], true,
        "the clear rule needs approval"
    );
    let human = home.run(&["list"]);
    assert!(human.expect(0).stdout.contains("scene"));
    // The second `list` used the on-disk cache (same epoch): one file per catalog, private.
    let cache = home.path().join(".hera-agent-unity/cache/catalog");
    let projects: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert_eq!(projects.len(), 1);
}

#[test]
fn an_approval_survives_a_domain_reload() {
    let home = Home::new();
    let sim = home.editor("Reloaded");
    let r = home.run(&["call", "console", "--args", CLEAR]);
    r.expect(4);
    let token = r.error()["data"]["token"].as_str().unwrap().to_string();
    let op = r.error()["data"]["operation_id"]
        .as_str()
        .unwrap()
        .to_string();
    // The Editor reloads: its signing secret rotates and the token no longer verifies.
    let epoch = sim.domain_epoch();
    sim.reload(hera_connector_sim::Reload {
        downtime: std::time::Duration::from_millis(200),
        new_port: false,
    });
    assert!(sim.wait_ready_blocking(std::time::Duration::from_secs(10)));
    assert_ne!(sim.domain_epoch(), epoch);
    let r = home.run(&[
        "call",
        "console",
        "--args",
        CLEAR,
        &format!("--approve={token}"),
    ]);
    r.expect(0);
    assert!(
        r.stderr.contains("renewing it for the same operation"),
        "{}",
        r.stderr
    );
    assert_eq!(sim.side_effects_of("console", None), 1);
    let entry = sim.ledger_entry(&op).unwrap();
    assert!(entry.is_some(), "ran under the approved operation id {op}");
}

#[test]
fn approval_unsupported_without_approval_v1() {
    let home = Home::new();
    let sim = home.editor("NoApproval");
    let features: Vec<String> = hera_connector_contract::wire::ALL_FEATURES
        .iter()
        .filter(|f| **f != "approval_v1")
        .map(|f| f.to_string())
        .collect();
    sim.set_features(features).unwrap();
    let before = sim.requests_seen("/approval/preflight");
    let r = home.run(&["call", "console", "--args", CLEAR, "--yes"]);
    r.expect(4);
    assert_eq!(r.error_code(), "APPROVAL_UNSUPPORTED");
    assert_eq!(sim.side_effects(), 0);
    assert_eq!(sim.requests_seen("/approval/preflight"), before);
    // Calls that need no approval still work.
    home.run(&["call", "console"]).expect(0);
}

#[test]
fn the_person_is_shown_what_a_change_affects_and_told_of_ambiguous_names() {
    let home = Home::new();
    let sim = home.editor("Subject");
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "get_transform",
        "--args",
        r#"{"path":"Main Camera"}"#,
    ]);
    r.expect(0);
    assert!(!r.stderr.contains("note:"), "{}", r.stderr);
    let id = r.json()["instance_id"].as_i64().expect("instance id");

    // By instance id: the prompt names the object; nothing runs without consent.
    let args = format!(r#"{{"instance_id":{id}}}"#);
    let r = home.run(&["call", "manage_gameobject", "destroy", "--args", &args]);
    r.expect(4);
    assert!(
        r.stderr
            .contains("affects:          GameObject \"Main Camera\" at /Main Camera"),
        "{}",
        r.stderr
    );
    assert_eq!(r.error()["data"]["summary"]["subject"]["instance_id"], id);
    assert_eq!(sim.side_effects(), 0);

    // A twin at the same path: the create and a later read by that path say so on stderr.
    let twin = r#"{"name":"Main Camera"}"#;
    let r = home.run(&["call", "manage_gameobject", "create", "--args", twin]);
    r.expect(0);
    assert!(
        r.stderr
            .contains("note: 2 GameObjects now have the path /Main Camera"),
        "{}",
        r.stderr
    );
    let r = home.run(&[
        "call",
        "manage_gameobject",
        "get_transform",
        "--args",
        r#"{"path":"Main Camera"}"#,
    ]);
    r.expect(0);
    assert!(r.stderr.contains("names 2 GameObjects"), "{}", r.stderr);
    assert!(r.stderr.contains(&id.to_string()), "{}", r.stderr);
}
