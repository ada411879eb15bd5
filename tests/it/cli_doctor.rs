//! `doctor --json` for a healthy Editor and for broken setups; every failure names a fix.

use crate::support::cli::*;
use hera_connector_sim::Fault;
use serde_json::Value;

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report}"))
}

fn assert_failed_with_fix(report: &Value, id: &str) {
    let c = check(report, id);
    assert_eq!(c["status"], "fail", "{c}");
    assert!(
        c["fix"].as_str().is_some_and(|f| !f.is_empty()),
        "a failing check names its fix: {c}"
    );
    assert_eq!(report["ok"], false);
}

#[test]
fn healthy_editor_passes_every_check() {
    let home = Home::new();
    let _sim = home.editor("Healthy");
    let r = home.run_env(&["doctor", "--json"], &[("HERA_MCP_ENABLED", "1")]);
    let report = r.expect(0).json();
    assert_eq!(report["ok"], true);
    for id in [
        "heartbeat_dir",
        "instances",
        "selection",
        "liveness",
        "http",
        "features",
        "catalog",
        "results_dir",
        "mcp",
    ] {
        assert_eq!(check(&report, id)["status"], "ok", "{}", check(&report, id));
    }
    assert!(
        check(&report, "catalog")["detail"]
            .as_str()
            .unwrap()
            .contains("verified")
    );
    // Without HERA_MCP_ENABLED it is only a warning, with the fix.
    let r = home.run(&["doctor", "--json"]);
    let report = r.expect(0).json();
    assert_eq!(check(&report, "mcp")["status"], "warn");
    assert!(
        check(&report, "mcp")["fix"]
            .as_str()
            .unwrap()
            .contains("HERA_MCP_ENABLED")
    );
    // The human form says the same.
    let r = home.run(&["doctor"]);
    assert!(r.expect(0).stdout.contains("[ok]   catalog fetch and hash"));
}

#[test]
fn no_editor_at_all() {
    let home = Home::new();
    let r = home.run(&["doctor", "--json"]);
    let report = r.expect(3).json();
    assert_failed_with_fix(&report, "heartbeat_dir");
    assert_eq!(check(&report, "catalog")["status"], "skip");
}

#[test]
fn result_cache_directory_is_not_private() {
    let home = Home::new();
    let _sim = home.editor("Perms");
    let results = home.path().join(".hera-agent-unity").join("results");
    std::fs::create_dir_all(&results).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&results, std::fs::Permissions::from_mode(0o755)).unwrap();
        let r = home.run(&["doctor", "--json"]);
        let report = r.expect(3).json();
        assert_failed_with_fix(&report, "results_dir");
        assert!(
            check(&report, "results_dir")["fix"]
                .as_str()
                .unwrap()
                .starts_with("chmod 700")
        );
        // Everything about the Editor is still fine.
        assert_eq!(check(&report, "catalog")["status"], "ok");
    }
}

#[test]
fn catalog_with_a_wrong_hash() {
    let home = Home::new();
    let sim = home.editor("BadHash");
    sim.inject(Fault::CatalogBadHash);
    let r = home.run(&["doctor", "--json"]);
    let report = r.expect(3).json();
    assert_failed_with_fix(&report, "catalog");
    assert!(
        check(&report, "catalog")["detail"]
            .as_str()
            .unwrap()
            .contains("hash mismatch")
    );
    assert_eq!(check(&report, "http")["status"], "ok");
}

#[test]
fn heartbeat_points_at_a_port_nobody_listens_on() {
    let home = Home::new();
    let sim = home.editor("Deaf");
    let deaf = closed_port();
    sim.set_heartbeat_port(Some(deaf.port)).unwrap();
    let r = home.run_env(&["doctor", "--json"], &[("HERA_AGENT_TIMEOUT_MS", "1500")]);
    let report = r.expect(3).json();
    assert_failed_with_fix(&report, "http");
    assert_eq!(check(&report, "catalog")["status"], "skip");
}

#[cfg(unix)]
#[test]
fn without_home_the_account_home_directory_is_used() {
    let home = Home::new();
    let r = home.run_without_home(&["doctor", "--json"]);
    let report = r.json();
    let detail = check(&report, "heartbeat_dir")["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        !detail.contains("no home directory found"),
        "the password database supplies the home directory: {detail}"
    );
    assert!(detail.contains("(home /"), "{detail}");
    assert!(!detail.contains(&home.path().display().to_string()));
}
