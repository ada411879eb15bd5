//! A legacy Connector (no features, no domain epoch): the catalog is built from the per-tool
//! listing with conservative safety, and every call needs a person's consent.

use crate::support::cli::*;

#[test]
fn legacy_connector_lists_conservatively_and_calls_only_with_consent() {
    let home = Home::new();
    let sim = home.editor_with("Old", |c| c.legacy = true);
    let r = home.run(&["list", "--json"]);
    let j = r.expect(0).json();
    assert_eq!(j["legacy"], true);
    let tools = j["tools"].as_array().unwrap();
    assert!(!tools.is_empty());
    for t in tools {
        assert_eq!(t["contract_mode"], "legacy");
        assert_eq!(t["may_require_confirmation"], true, "{t}");
        assert_eq!(t["safety"]["risk_class"], "unspecified");
    }
    // Non-interactive without --yes: refused before anything is sent.
    let create = [
        "call",
        "manage_gameobject",
        "create",
        "--args",
        r#"{"name":"Legacy"}"#,
    ];
    let r = home.run(&create);
    r.expect(4);
    let e = r.error();
    assert_eq!(e["code"], "APPROVAL_REQUIRED");
    assert_eq!(e["data"]["reason"], "legacy_tool");
    assert_eq!(sim.side_effects(), 0, "nothing ran");
    // With --yes it runs once (no catalog hash is sent: a legacy hash is ours, not the Editor's).
    let mut yes = create.to_vec();
    yes.push("--yes");
    home.run(&yes).expect(0);
    assert_eq!(sim.side_effects_of("manage_gameobject", Some("create")), 1);
    home.run(&["call", "scene", "info", "--yes"]).expect(0);
    // Doctor warns about the missing features and the legacy catalog.
    let d = home.run(&["doctor", "--json"]).json();
    let status = |id: &str| {
        d["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| c["status"].clone())
            .unwrap()
    };
    assert_eq!(status("features"), "warn");
    assert_eq!(status("catalog"), "warn");
}
