//! Ranking behaviour on a small hand-written catalog. Recall on the real catalog is measured by
//! `tests/search_quality.rs`.

use super::*;
use hera_connector_contract::catalog::{
    ActionEntry, RiskClass, Safety, SafetyDecl, SafetyRule, Source, ToolEntry,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn safety(risk: RiskClass) -> Safety {
    SafetyDecl {
        risk: Some(risk),
        ..Default::default()
    }
    .normalize(None)
}

fn schema(params: &[(&str, Value)], with_action: Option<&str>) -> Value {
    let mut props = serde_json::Map::new();
    let mut required = Vec::new();
    if let Some(a) = with_action {
        props.insert("action".into(), json!({"type": "string", "const": a}));
        required.push("action");
    }
    for (name, s) in params {
        props.insert((*name).into(), s.clone());
    }
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn action(name: &str, desc: &str, params: &[(&str, Value)], risk: RiskClass) -> ActionEntry {
    ActionEntry {
        name: name.into(),
        description: desc.into(),
        aliases: vec![],
        input_schema: schema(params, Some(name)),
        output_schema: json!({"type": "object"}),
        safety: safety(risk),
    }
}

fn tool(
    name: &str,
    desc: &str,
    actions: Vec<ActionEntry>,
    tool_params: &[(&str, Value)],
) -> ToolEntry {
    let mut input = schema(tool_params, None);
    if !actions.is_empty() {
        let names: Vec<&str> = actions.iter().map(|a| a.name.as_str()).collect();
        input["properties"]["action"] = json!({"type": "string", "enum": names});
        input["required"] = json!(["action"]);
    }
    ToolEntry {
        name: name.into(),
        title: name.replace('_', " "),
        description: desc.into(),
        source: Source {
            kind: "builtin".into(),
            assembly: "Fixture".into(),
            type_name: name.into(),
        },
        contract_mode: "strict".into(),
        profiles: vec!["full".into(), "scene".into()],
        aliases: vec![],
        examples: vec![],
        input_schema: input,
        output_schema: json!({"type": "object"}),
        actions,
        safety: safety(RiskClass::Write),
    }
}

fn s(desc: &str) -> Value {
    json!({"type": "string", "description": desc})
}

fn fixture() -> Vec<ToolEntry> {
    use RiskClass::*;
    let mut go = tool(
        "manage_gameobject",
        "Creates and edits scene objects.",
        vec![
            action(
                "create",
                "Create an object.",
                &[
                    (
                        "primitive",
                        json!({"type": "string", "enum": ["cube", "sphere"], "description": "shape"}),
                    ),
                    ("position", s("where")),
                ],
                Write,
            ),
            action(
                "destroy",
                "Remove an object.",
                &[("path", s("hierarchy path"))],
                Destructive,
            ),
            action(
                "set_active",
                "Toggle the object.",
                &[("active", json!({"type": "boolean"}))],
                Write,
            ),
        ],
        &[],
    );
    go.safety = safety(Destructive);
    let mut run_tests = tool(
        "run_tests",
        "Runs the Unity Test Framework.",
        vec![
            action("cancel", "Cancel a run.", &[], Write),
            action(
                "list",
                "List tests.",
                &[("filter", s("name filter"))],
                ReadOnly,
            ),
        ],
        &[(
            "mode",
            json!({"type": "string", "enum": ["EditMode", "PlayMode"], "description": "platform"}),
        )],
    );
    // Like the real run_tests: the tool-level schema has no `action`, so the tool itself runs.
    run_tests.input_schema["required"] = json!(["mode"]);
    run_tests.input_schema["properties"]
        .as_object_mut()
        .unwrap()
        .remove("action");
    let mut console = tool(
        "console",
        "Reads Editor console entries.",
        vec![],
        &[(
            "clear",
            json!({"type": "boolean", "description": "wipe it"}),
        )],
    );
    console.safety = safety(ReadOnly);
    let mut clear_rule = safety(Destructive);
    clear_rule.requires_confirmation = true;
    console.safety.rules.push(SafetyRule {
        operation: "clear".into(),
        when: BTreeMap::from([("clear".to_string(), json!({"const": true}))]),
        safety: clear_rule,
    });
    let mut exec = tool(
        "exec",
        "Compiles and runs C# code.",
        vec![],
        &[("code", s("source"))],
    );
    exec.safety = safety(ArbitraryCode);
    exec.profiles = vec!["advanced".into()];
    // A legacy custom tool: no schema properties, no actions, only a name and a description.
    let mut legacy = tool(
        "spawn_wave",
        "Spawns an enemy wave for playtesting.",
        vec![],
        &[],
    );
    legacy.contract_mode = "legacy".into();
    legacy.input_schema = json!({"type": "object", "additionalProperties": true});
    legacy.safety = Safety::legacy_conservative();
    legacy.profiles = vec!["compact".into()];
    vec![console, exec, go, run_tests, legacy]
}

fn top(index: &SearchIndex, q: &str) -> (String, Option<String>) {
    let hits = index.search(q, 5, &SearchFilter::everything());
    let h = hits.first().unwrap_or_else(|| panic!("no hit for {q:?}"));
    (h.tool.clone(), h.action.clone())
}

#[test]
fn names_the_action_not_only_the_tool() {
    let idx = SearchIndex::build(&fixture());
    assert_eq!(
        top(&idx, "destroy the enemy object"),
        ("manage_gameobject".into(), Some("destroy".into()))
    );
    assert_eq!(
        top(&idx, "make a cube"),
        ("manage_gameobject".into(), Some("create".into()))
    );
    assert_eq!(
        top(&idx, "deactivate the door"),
        ("manage_gameobject".into(), Some("set_active".into()))
    );
}

#[test]
fn synonyms_typos_and_camel_case() {
    let idx = SearchIndex::build(&fixture());
    assert_eq!(top(&idx, "delete the object").1.as_deref(), Some("destroy"));
    assert_eq!(
        top(&idx, "destory the object").1.as_deref(),
        Some("destroy")
    );
    assert_eq!(
        top(&idx, "gameObject.SetActive(false)").1.as_deref(),
        Some("set_active")
    );
    let hits = idx.search("destory it", 1, &SearchFilter::everything());
    assert_eq!(hits[0].matched_terms, ["destory"]);
}

#[test]
fn tools_callable_without_an_action_answer_with_none() {
    let idx = SearchIndex::build(&fixture());
    assert_eq!(
        top(&idx, "run the edit mode tests"),
        ("run_tests".into(), None)
    );
    assert_eq!(
        top(&idx, "list the tests"),
        ("run_tests".into(), Some("list".into()))
    );
    assert_eq!(top(&idx, "why is my console red"), ("console".into(), None));
}

#[test]
fn an_optional_action_makes_the_tool_callable_on_its_own() {
    let mut tools = fixture();
    // profiler-like: `action` is a tool-level property but optional, so the Connector runs the
    // default handler for a call without one. Search, describe and compact safety agree on that.
    let go = tools
        .iter_mut()
        .find(|t| t.name == "manage_gameobject")
        .unwrap();
    go.input_schema["required"] = json!([]);
    go.input_schema["properties"]["label"] = json!({"type": "string", "description": "a label"});
    assert!(go.callable_without_action());
    let expected_safety = ActionSafety::of(go, None);
    let idx = SearchIndex::build(&tools);
    assert_eq!(
        idx.entry_count(),
        SearchIndex::build(&fixture()).entry_count() + 1
    );
    // The actions still answer the requests that name them…
    assert_eq!(
        top(&idx, "destroy the object"),
        ("manage_gameobject".into(), Some("destroy".into()))
    );
    // …and the action-less call is an entry of its own, found by its own parameters (its name
    // is the tool's, already scored for every entry), with the tool-level safety.
    let hits = idx.search("label the object", 10, &SearchFilter::everything());
    let own = hits
        .iter()
        .find(|h| h.tool == "manage_gameobject" && h.action.is_none())
        .unwrap_or_else(|| panic!("no action-less manage_gameobject entry in {hits:?}"));
    assert_eq!(own.safety, expected_safety);
    // A required `action` keeps the tool to its actions.
    let idx = SearchIndex::build(&fixture());
    let hits = idx.search("destroy the object", 10, &SearchFilter::everything());
    assert!(
        hits.iter()
            .filter(|h| h.tool == "manage_gameobject")
            .all(|h| h.action.is_some())
    );
}

#[test]
fn questions_prefer_reading_and_vectors_mean_position() {
    let idx = SearchIndex::build(&fixture());
    // Both entries of run_tests match "tests"; a question tips to the read-only one.
    assert_eq!(
        top(&idx, "which tests are there?").1.as_deref(),
        Some("list")
    );
    // Only `create` takes a position.
    let hits = idx.search("an object at 0,5,0", 1, &SearchFilter::everything());
    assert_eq!(hits[0].action.as_deref(), Some("create"));
    assert!(hits[0].matched_terms.contains(&"0,5,0".to_string()));
}

#[test]
fn legacy_and_custom_tools_match_on_name_and_description() {
    let idx = SearchIndex::build(&fixture());
    let hits = idx.search("spawn a wave of enemies", 5, &SearchFilter::everything());
    assert_eq!(hits[0].tool, "spawn_wave");
    assert_eq!(hits[0].action, None);
    // A legacy tool's safety is unspecified, which requires confirmation by default (so no
    // flag is spelled out).
    assert_eq!(
        hits[0].safety.risk_class,
        hera_connector_contract::catalog::RiskClass::Unspecified
    );
    assert_eq!(
        hits[0].safety.to_json(),
        json!({"risk_class": "unspecified"})
    );
}

#[test]
fn filter_hides_arbitrary_code_and_other_profiles() {
    let idx = SearchIndex::build(&fixture());
    let q = "execute some C# code";
    let all = idx.search(q, 10, &SearchFilter::everything());
    assert_eq!(all[0].tool, "exec");
    let safe = idx.search(q, 10, &SearchFilter::default());
    assert!(safe.iter().all(|h| h.tool != "exec"));
    let scene = SearchFilter {
        profile: Some("scene"),
        allow_arbitrary_code: true,
    };
    let hits = idx.search("console spawn wave code", 10, &scene);
    assert!(
        hits.iter()
            .all(|h| h.tool == "manage_gameobject" || h.tool == "run_tests" || h.tool == "console")
    );
    assert!(
        hits.iter()
            .all(|h| h.tool != "exec" && h.tool != "spawn_wave")
    );
}

#[test]
fn ties_break_by_tool_then_action_and_results_are_stable() {
    let idx = SearchIndex::build(&fixture());
    // "manage" only hits the tool name, so every entry of manage_gameobject ties: one tool hit.
    let hits = idx.search("manage", 10, &SearchFilter::everything());
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].tool, "manage_gameobject");
    assert_eq!(hits[0].action, None);
    assert_eq!(hits[0].actions, ["create", "destroy", "set_active"]);
    for q in ["object", "run", "the", "destroy cube console tests"] {
        let a = idx.search(q, 10, &SearchFilter::everything());
        let b = idx.search(q, 10, &SearchFilter::everything());
        assert_eq!(a, b);
        for w in a.windows(2) {
            let ka = (-w[0].score, &w[0].tool, &w[0].action);
            let kb = (-w[1].score, &w[1].tool, &w[1].action);
            assert!(
                ka.partial_cmp(&kb) != Some(std::cmp::Ordering::Greater),
                "{q}: {a:?}"
            );
        }
    }
}

#[test]
fn empty_and_stopword_queries_return_nothing() {
    let idx = SearchIndex::build(&fixture());
    for q in ["", "   ", "the of a", "42"] {
        assert!(
            idx.search(q, 5, &SearchFilter::everything()).is_empty(),
            "{q:?}"
        );
    }
    assert!(
        idx.search("cube", 0, &SearchFilter::everything())
            .is_empty()
    );
}

#[test]
fn compact_json_has_identity_summary_and_the_calls_own_safety() {
    let idx = SearchIndex::build(&fixture());
    let h = &idx.search("read the console", 1, &SearchFilter::everything())[0];
    let j = h.to_compact_json();
    assert_eq!(j["name"], "console");
    assert!(j.get("action").is_none());
    assert_eq!(j["summary"], "Reads Editor console entries.");
    // Read-only tool with a destructive `clear` rule: reading is read-only, and the rule is
    // the caveat, not the label.
    assert_eq!(
        j["safety"],
        json!({"risk_class": "read_only", "worst_case": "destructive"})
    );
    let d = &idx.search("destroy object", 1, &SearchFilter::everything())[0];
    let j = d.to_compact_json();
    assert_eq!(j["action"], "destroy");
    assert_eq!(j["safety"], json!({"risk_class": "destructive"}));
}

/// A catalog shaped like a real Editor's: no action descriptions, so only names, parameters
/// and the request's own phrasing can tell the actions apart.
fn scene_fixture() -> Vec<ToolEntry> {
    use RiskClass::*;
    let obj = || ("target", s(""));
    let act = |name: &str, params: &[(&str, Value)], risk| action(name, "", params, risk);
    vec![
        tool(
            "manage_gameobject",
            "",
            vec![
                act("destroy", &[obj()], Destructive),
                act("set_parent", &[obj(), ("parent", s(""))], Write),
                act("move", &[obj(), ("position", s(""))], Write),
                act("set_tag", &[obj(), ("tag", s(""))], Write),
            ],
            &[],
        ),
        tool(
            "manage_assets",
            "",
            vec![
                act("delete", &[("path", s(""))], Destructive),
                act("move", &[("path", s("")), ("new_path", s(""))], Destructive),
                act("find", &[("filter", s("")), ("type", s(""))], ReadOnly),
            ],
            &[],
        ),
        tool(
            "manage_components",
            "",
            vec![
                act("add", &[("type", s("")), ("instance_id", s(""))], Write),
                act(
                    "remove",
                    &[("type", s("")), ("instance_id", s(""))],
                    Destructive,
                ),
            ],
            &[],
        ),
        tool(
            "manage_editor",
            "",
            vec![act("add_tag", &[("tag_name", s(""))], Write)],
            &[],
        ),
        tool(
            "manage_asset_import",
            "",
            vec![
                act("get", &[("path", s("")), ("property", s(""))], ReadOnly),
                act(
                    "set",
                    &[("path", s("")), ("property", s("")), ("value", s(""))],
                    Write,
                ),
            ],
            &[],
        ),
    ]
}

/// Each request's best hit on the real-shaped scene fixture is `tool/action`.
fn expect_tops(cases: &[(&str, &str, &str)]) {
    let idx = SearchIndex::build(&scene_fixture());
    for (q, tool, action) in cases {
        assert_eq!(
            top(&idx, q),
            (tool.to_string(), Some(action.to_string())),
            "{q}"
        );
    }
}

#[test]
fn what_a_request_names_picks_between_object_and_file_actions() {
    expect_tops(&[
        // An object's name: the action that takes a target.
        ("delete the Crate", "manage_gameobject", "destroy"),
        // A file, by its extension or by the asset noun after its name: the action that takes a path.
        ("delete Crate.prefab", "manage_assets", "delete"),
        ("delete the Glass material", "manage_assets", "delete"),
        (
            "drop Rock.png into the Textures folder",
            "manage_assets",
            "move",
        ),
    ]);
}

#[test]
fn phrases_carry_what_no_single_word_does() {
    expect_tops(&[
        // "detach" leaves the parent, unless a component is what comes off.
        (
            "detach the Wheel from the Car",
            "manage_gameobject",
            "set_parent",
        ),
        (
            "detach the BoxCollider from the Car",
            "manage_components",
            "remove",
        ),
        (
            "get rid of the Rigidbody on the Player",
            "manage_components",
            "remove",
        ),
        // A tag given to an object, or a new tag for the project.
        ("tag the Wall as Obstacle", "manage_gameobject", "set_tag"),
        ("make a new tag called Loot", "manage_editor", "add_tag"),
        // A question about a tool none of whose actions it names: the tool's general read.
        (
            "how is this texture imported?",
            "manage_asset_import",
            "get",
        ),
    ]);
}
