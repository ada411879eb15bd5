//! Behaviour of resolution, validation and safety on the real built-in catalog.

use super::*;
use hera_connector_contract::catalog::{RiskClass, Source};
use serde_json::json;

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().expect("object").clone()
}

fn set() -> ToolSet {
    ToolSet::builtin()
}

/// Resolve, then validate, as the pipeline does; returns the normalized params.
fn run(
    tools: &ToolSet,
    tool: &str,
    params: Value,
) -> Result<(Option<String>, Map<String, Value>), ValidationFailure> {
    let t = tools.get(tool).expect("tool exists");
    match resolve_action(t, &obj(params.clone())) {
        ActionResolution::Action { name, params, .. } => {
            let a = t.action(&name).expect("resolved action exists");
            validate(t, Some(a), &params).map(|n| (Some(name), n))
        }
        ActionResolution::Default => validate(t, None, &obj(params)).map(|n| (None, n)),
        ActionResolution::Unknown(f) => Err(f),
    }
}

fn fail(tools: &ToolSet, tool: &str, params: Value) -> ValidationFailure {
    run(tools, tool, params.clone()).expect_err(&format!("{tool} {params} should fail"))
}

#[test]
fn unknown_action_only_from_an_action_key() {
    let tools = set();
    let e = fail(&tools, "scene", json!({"action": "Bogus"}));
    assert_eq!(e.code, "UNKNOWN_ACTION");
    assert_eq!(e.message, "Unknown action: bogus");
    assert_eq!(e.data["path"], "/action");
    assert_eq!(e.data["actual"], "bogus");
    assert_eq!(e.data["expected"][0], "close");
    assert_eq!(e.data["expected"].as_array().unwrap().len(), 9);

    // From args[0], a non-action goes to the default handler as a positional.
    let scene = tools.get("scene").unwrap();
    assert_eq!(
        resolve_action(scene, &obj(json!({"args": ["bogus"]}))),
        ActionResolution::Default
    );
    let (action, n) = run(&tools, "scene", json!({"args": ["bogus"]})).unwrap();
    assert_eq!(action, None);
    assert_eq!(n["action"], "bogus");
    // …unless the tool had no default handler.
    assert!(matches!(
        resolve::resolve_action_with(scene, &obj(json!({"args": ["bogus"]})), false),
        ActionResolution::Unknown(_)
    ));

    // A tool without actions: `action` is an ordinary (undeclared) argument.
    let e = fail(&tools, "console", json!({"action": "x"}));
    assert_eq!(e.code, "UNKNOWN_ARGUMENT");
    assert_eq!(e.data["path"], "/action");
    assert_eq!(e.data["actual"], "String");
}

#[test]
fn legacy_positionals_map_after_the_action() {
    let tools = set();
    let (action, n) = run(
        &tools,
        "manage_packages",
        json!({"args": ["ADD", "com.unity.ai.navigation"]}),
    )
    .unwrap();
    assert_eq!(action.as_deref(), Some("add"));
    assert_eq!(
        Value::Object(n),
        json!({"action": "add", "identifier": "com.unity.ai.navigation"})
    );

    let (_, n) = run(
        &tools,
        "exec",
        json!({"args": ["return 1;"], "compile_only": true}),
    )
    .unwrap();
    assert_eq!(n["code"], "return 1;");
    assert!(n.get("args").is_none());

    let e = fail(&tools, "scene", json!({"args": ["info", "extra"]}));
    assert_eq!(e.code, "UNKNOWN_ARGUMENT");
    assert_eq!(
        e.data,
        json!({"path": "/args/1", "expected": "at most 0 positional arguments", "actual": "String"})
    );

    let e = fail(
        &tools,
        "scene",
        json!({"args": ["load", "A.unity"], "path": "B.unity"}),
    );
    assert_eq!(e.code, "ARGUMENT_CONFLICT");
    assert_eq!(
        e.data,
        json!({"path": "/args/1", "expected": "path once", "actual": "A.unity"})
    );

    // A trailing array parameter takes the rest; a scalar alias is wrapped.
    let (_, n) = run(&tools, "reserialize", json!({"args": ["a", "b"]})).unwrap();
    assert_eq!(n["paths"], json!(["a", "b"]));
    let (_, n) = run(&tools, "reserialize", json!({"path": "a"})).unwrap();
    assert_eq!(Value::Object(n), json!({"paths": ["a"]}));
}

#[test]
fn required_and_missing_action() {
    let tools = set();
    let e = fail(&tools, "manage_packages", json!({"action": "add"}));
    assert_eq!(e.code, "MISSING_ARGUMENT");
    assert_eq!(e.message, "Validation failed at '/identifier'.");
    assert_eq!(
        e.data,
        json!({"path": "/identifier", "expected": "string", "actual": null})
    );

    let t = tools.get("scene").unwrap();
    let e = validate(t, t.action("info"), &obj(json!({}))).unwrap_err();
    assert_eq!(
        e.data,
        json!({"path": "/action", "expected": "info", "actual": null})
    );
    let e = validate(t, t.action("info"), &obj(json!({"action": "list"}))).unwrap_err();
    assert_eq!(e.code, "UNKNOWN_ACTION");
    assert_eq!(
        e.data,
        json!({"path": "/action", "expected": "info", "actual": "list"})
    );

    let e = fail(&tools, "scene", json!({"action": "info", "x": 1}));
    assert_eq!(
        e.data,
        json!({"path": "/x", "expected": "action", "actual": "Integer"})
    );
}

#[test]
fn coercion_enums_patterns_and_aliases() {
    let tools = set();
    let (_, n) = run(
        &tools,
        "console",
        json!({"lines": "5", "clear": "yes", "stacktrace": "FULL", "type": "Error, log"}),
    )
    .unwrap();
    assert_eq!(
        Value::Object(n),
        json!({"lines": 5, "clear": true, "stacktrace": "full", "type": "Error, log"})
    );

    let e = fail(&tools, "console", json!({"lines": "five"}));
    assert_eq!(e.code, "ARGUMENT_TYPE_MISMATCH");
    assert_eq!(
        e.data,
        json!({"path": "/lines", "expected": "integer", "actual": "String"})
    );

    let e = fail(&tools, "console", json!({"stacktrace": "most"}));
    assert_eq!(e.code, "INVALID_ARGUMENT");
    assert_eq!(e.data["expected"], "[\"none\",\"user\",\"full\"]");

    let e = fail(&tools, "console", json!({"type": "fatal"}));
    assert_eq!(e.code, "INVALID_ARGUMENT");
    assert!(e.data["expected"].as_str().unwrap().starts_with("^([eE]"));

    let (_, n) = run(&tools, "console", json!({"count": 3})).unwrap();
    assert_eq!(Value::Object(n), json!({"lines": 3}));
    let e = fail(&tools, "console", json!({"count": 3, "lines": 4}));
    assert_eq!(e.code, "ARGUMENT_CONFLICT");
    assert_eq!(
        e.data,
        json!({"path": "/count", "expected": "lines or count", "actual": ["lines", "count"]})
    );

    let (_, n) = run(
        &tools,
        "manage_settings",
        json!({"action": "set_quality", "anti_aliasing": "4"}),
    )
    .unwrap();
    assert_eq!(n["anti_aliasing"], 4);
    let e = fail(
        &tools,
        "manage_settings",
        json!({"action": "set_quality", "anti_aliasing": 3}),
    );
    assert_eq!(
        e.data,
        json!({"path": "/anti_aliasing", "expected": "[0,2,4,8]", "actual": "3"})
    );

    let e = fail(&tools, "screenshot", json!({"max_annotations": 0}));
    assert_eq!(
        e.data,
        json!({"path": "/max_annotations", "expected": 1, "actual": 0})
    );
    // exclusiveMinimum is published but not enforced by the Connector.
    assert!(
        run(
            &tools,
            "manage_settings",
            json!({"action": "set_time", "fixed_delta_time": 0})
        )
        .is_ok()
    );
}

#[test]
fn nulls_only_where_allow_null() {
    let tools = set();
    assert!(
        run(
            &tools,
            "manage_components",
            json!({"action": "set", "path": "P", "type": "T", "property": "m", "value": null})
        )
        .is_ok()
    );
    assert!(
        run(
            &tools,
            "manage_gameobject",
            json!({"action": "set_parent", "path": "P", "parent": null})
        )
        .is_ok()
    );
    let e = fail(
        &tools,
        "manage_gameobject",
        json!({"action": "set_parent", "path": "P", "instance_id": null}),
    );
    assert_eq!(e.code, "ARGUMENT_TYPE_MISMATCH");
    assert_eq!(
        e.data,
        json!({"path": "/instance_id", "expected": ["integer", "null"], "actual": "null"})
    );
    // A nested schema: XYZ accepts three forms, and reports a oneOf failure with the branches.
    assert!(
        run(
            &tools,
            "manage_gameobject",
            json!({"action": "move", "path": "P", "position": "1, 2, 3"})
        )
        .is_ok()
    );
    assert!(
        run(
            &tools,
            "manage_gameobject",
            json!({"action": "move", "path": "P", "position": {"x": 1}})
        )
        .is_ok()
    );
    let e = fail(
        &tools,
        "manage_gameobject",
        json!({"action": "move", "path": "P", "position": [1, 2]}),
    );
    assert_eq!(e.code, "ARGUMENT_TYPE_MISMATCH");
    assert_eq!(e.data["path"], "/position");
    assert_eq!(e.data["actual"], 2);
}

#[test]
fn argument_groups_use_their_metadata() {
    let tools = set();
    let e = fail(
        &tools,
        "find_gameobjects",
        json!({"ids": true, "fields": "name"}),
    );
    assert_eq!(e.code, "INVALID_PROJECTION");
    assert_eq!(
        e.data,
        json!({"path": "/", "expected": "at most one of ids, names, fields", "actual": ["ids", "fields"]})
    );
    assert!(
        run(
            &tools,
            "find_gameobjects",
            json!({"ids": false, "fields": "name"})
        )
        .is_ok()
    );

    let e = fail(&tools, "describe_shader", json!({}));
    assert_eq!(
        e.data,
        json!({"path": "/", "expected": "name or list=true", "actual": null})
    );
    assert!(run(&tools, "describe_shader", json!({"list": "true"})).is_ok());
    let e = fail(
        &tools,
        "describe_shader",
        json!({"list": true, "name": "X"}),
    );
    assert_eq!(e.code, "ARGUMENT_CONFLICT");

    let e = fail(&tools, "screenshot", json!({"isolated": true}));
    assert_eq!(e.code, "MISSING_ARGUMENT");
    assert_eq!(e.data["path"], "/isolated");
    assert!(
        run(
            &tools,
            "screenshot",
            json!({"isolated": true, "target": "Cube"})
        )
        .is_ok()
    );

    // A blank string counts as absent.
    let e = fail(
        &tools,
        "manage_components",
        json!({"action": "list", "path": "  "}),
    );
    assert_eq!(
        e.data,
        json!({"path": "/", "expected": "instance_id or path", "actual": null})
    );

    let e = fail(&tools, "manage_assets", json!({"action": "find"}));
    assert_eq!(
        e.data,
        json!({"path": "/filter", "expected": "filter or type", "actual": null})
    );

    let e = fail(
        &tools,
        "manage_ui",
        json!({"action": "set_anchor", "path": "C", "anchor_min": "0,0"}),
    );
    assert_eq!(
        e.data,
        json!({"path": "/", "expected": "anchor_min or anchor_max", "actual": null})
    );
}

#[test]
fn rules_match_the_coerced_arguments() {
    let tools = set();
    let safety = |tool: &str, params: Value| {
        let (action, n) = run(&tools, tool, params).unwrap();
        effective_safety(tools.get(tool).unwrap(), action.as_deref(), &n).unwrap()
    };
    let s = safety("console", json!({"clear": "true"}));
    assert_eq!(s.risk_class, RiskClass::Destructive);
    assert!(s.requires_confirmation && s.idempotent && s.rules.is_empty());
    assert_eq!(safety("console", json!({})).risk_class, RiskClass::ReadOnly);
    let s = safety("exec", json!({"code": "1", "compile_only": true}));
    assert_eq!(s.risk_class, RiskClass::Write);
    assert!(!s.requires_confirmation);
    assert!(safety("exec", json!({"code": "1"})).requires_confirmation);
    assert_eq!(
        safety(
            "manage_settings",
            json!({"action": "set_time", "dry_run": "1"})
        )
        .risk_class,
        RiskClass::ReadOnly
    );
    assert!(safety("manage_settings", json!({"action": "set_time"})).requires_confirmation);
    assert!(safety("screenshot", json!({"overwrite": true})).requires_confirmation);
    assert!(!safety("screenshot", json!({})).requires_confirmation);
}

fn custom_tool(mode: &str) -> ToolEntry {
    let pa = json!({"properties": {"a": {"pattern": "\\S"}}, "required": ["a"]});
    let pb = json!({"properties": {"b": {"not": {"type": "null"}}}, "required": ["b"]});
    ToolEntry {
        name: "my_tool".into(),
        title: "My Tool".into(),
        description: "A project's own tool.".into(),
        source: Source {
            kind: "custom".into(),
            assembly: "Assembly-CSharp-Editor".into(),
            type_name: "Game.MyTool".into(),
        },
        contract_mode: mode.into(),
        profiles: vec!["custom".into(), "full".into()],
        aliases: vec![],
        examples: vec![],
        input_schema: json!({"additionalProperties": false, "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "n": {"type": "number", "maximum": 2}},
            "oneOf": [pa, pb]}),
        output_schema: json!({"type": "object"}),
        actions: vec![],
        safety: hera_connector_contract::catalog::SafetyDecl {
            risk: Some(RiskClass::Write),
            ..Default::default()
        }
        .normalize(None),
    }
}

#[test]
fn custom_tools_validate_from_their_published_schema() {
    let mut tools = set();
    let before = tools.catalog_hash();
    tools.add_custom(custom_tool("strict"));
    assert_ne!(tools.catalog_hash(), before);
    assert_eq!(tools.names().len(), 35);
    let (_, n) = run(&tools, "my_tool", json!({"b": "7", "n": "1.5"})).unwrap();
    assert_eq!(Value::Object(n), json!({"b": 7, "n": 1.5}));
    assert_eq!(
        fail(&tools, "my_tool", json!({})).data["expected"],
        "a or b"
    );
    assert_eq!(
        fail(&tools, "my_tool", json!({"a": "x", "b": 1})).code,
        "ARGUMENT_CONFLICT"
    );
    assert_eq!(
        fail(&tools, "my_tool", json!({"a": "x", "z": 1})).code,
        "UNKNOWN_ARGUMENT"
    );
    assert_eq!(
        fail(&tools, "my_tool", json!({"a": "x", "n": 3})).code,
        "INVALID_ARGUMENT"
    );

    tools.add_custom(custom_tool("legacy"));
    let (_, n) = run(&tools, "my_tool", json!({"anything": [1]})).unwrap();
    assert_eq!(Value::Object(n), json!({"anything": [1]}));

    assert!(tools.remove("my_tool"));
    assert!(!tools.remove("my_tool"));
    assert_eq!(tools.catalog_hash(), before);
}

#[test]
fn envelope_hash_and_legacy_forms() {
    let tools = set();
    let epoch = "0123456789abcdef0123456789abcdef";
    let pid = hera_connector_contract::identity::project_id("/home/u/Game");
    let env = tools.catalog(epoch, &pid);
    assert_eq!(env["catalog_hash"], tools.catalog_hash());
    assert_eq!(catalog_hash_of_value(&env), tools.catalog_hash());
    assert_eq!(env["domain_epoch"], epoch);
    assert_eq!(env["project_id"], pid);

    assert_eq!(tools.did_you_mean("scen"), vec!["scene"]);
    assert_eq!(tools.did_you_mean("mange_ui"), vec!["manage_ui"]);
    assert!(tools.did_you_mean("zzzzzzzz").is_empty());

    assert_eq!(tools.legacy_names().len(), 34);
    let list = tools.legacy_default_list();
    assert_eq!(
        list[0],
        json!({"name": "bake", "description": tools.get("bake").unwrap().description})
    );
    let info = tools.legacy_tool_info("scene").unwrap();
    assert_eq!(info["name"], "scene");
    assert_eq!(info["group"], "core");
    assert_eq!(info["metadata"]["safety"]["destructive"], true);
    assert_eq!(info["metadata"]["action_safety"]["info"]["read_only"], true);
    assert_eq!(info["schema"], tools.get("scene").unwrap().input_schema);
    assert!(tools.legacy_tool_info("nope").is_none());
}
