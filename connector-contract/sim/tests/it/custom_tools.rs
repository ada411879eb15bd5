//! Tools a project adds at runtime, through the whole pipeline: a legacy tool with default
//! safety needs approval on every call (it publishes no safety at all), a strict one is
//! validated from its published schema, and ambiguous safety rules end as `INTERNAL_ERROR`.

use crate::common::*;
use hera_connector_contract::catalog::{RiskClass, SafetyDecl, SafetyRule, ToolEntry};
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn tool(name: &str, mode: &str, safety: SafetyDecl) -> ToolEntry {
    custom_tool(
        name,
        mode,
        &[],
        safety,
        json!({"type":"object","additionalProperties":false,
            "properties":{"a":{"type":"boolean"},"b":{"type":"boolean"},"size":{"type":"integer"}}}),
    )
}

#[test]
fn legacy_custom_tool_needs_approval_every_time() {
    let f = start();
    f.sim
        .add_custom_tool(tool("spawn_cube", "legacy", SafetyDecl::default()));
    let p = f.port();
    let doc = call(
        p,
        "list",
        json!({"catalog":true,"schema_version":"hera.tool-catalog/1"}),
        &op(),
    );
    let entry = doc["data"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "spawn_cube")
        .cloned()
        .unwrap();
    assert_eq!(entry["safety"]["risk_class"], "unspecified");
    assert_eq!(entry["safety"]["requires_confirmation"], true);

    let params = json!({"size": 2, "anything": "goes"});
    let id = op();
    assert_eq!(
        code(&call(p, "spawn_cube", params.clone(), &id)),
        "APPROVAL_REQUIRED"
    );
    let pf = preflight(p, &id, "spawn_cube", None, &params);
    assert_eq!(pf["data"]["summary"]["side_effect"], "unity_project");
    let token = pf["data"]["token"].as_str().unwrap();
    let v = call_with_token(p, "spawn_cube", params.clone(), &id, Some(token));
    assert_eq!(v["success"], true, "{v}");
    // The generic handler echoes what arrived: legacy tools are not validated or coerced.
    assert_eq!(v["data"]["params"], params);
    assert_eq!(f.sim.side_effects_of("spawn_cube", None), 1);
    // In a batch it is refused up front.
    let r = post(
        p,
        "/commands",
        &json!({"commands":[{"command":"spawn_cube","params":{}}]}).to_string(),
    );
    assert_eq!(r.json()["code"], "APPROVAL_REQUIRED");
}

#[test]
fn strict_custom_tool_is_validated_and_coerced() {
    let f = start();
    let decl = SafetyDecl {
        risk: Some(RiskClass::Write),
        ..Default::default()
    };
    f.sim.add_custom_tool(tool("paint_wall", "strict", decl));
    let p = f.port();
    let v = call(p, "paint_wall", json!({"size": "3"}), &op());
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["data"]["params"], json!({"size": 3}));
    let v = call(p, "paint_wall", json!({"colour": "red"}), &op());
    assert_eq!(code(&v), "UNKNOWN_ARGUMENT");
    assert_eq!(f.sim.side_effects_of("paint_wall", None), 1);
}

#[test]
fn ambiguous_safety_rules_are_an_internal_error() {
    let f = start();
    let decl = SafetyDecl {
        risk: Some(RiskClass::Write),
        ..Default::default()
    };
    let mut t = tool("two_rules", "strict", decl);
    let rule = |param: &str| SafetyRule {
        operation: param.into(),
        when: BTreeMap::from([(param.to_string(), json!({"const": true}))]),
        safety: SafetyDecl {
            risk: Some(RiskClass::Destructive),
            ..Default::default()
        }
        .normalize(None),
    };
    t.safety.rules = vec![rule("a"), rule("b")];
    f.sim.add_custom_tool(t);
    let v = call(f.port(), "two_rules", json!({"a": true, "b": true}), &op());
    assert_eq!(code(&v), "INTERNAL_ERROR");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Request handling error: ")
    );
    assert_eq!(v["timings"], Value::Null);
    // One rule alone is fine (and needs approval).
    let v = call(f.port(), "two_rules", json!({"a": true}), &op());
    assert_eq!(code(&v), "APPROVAL_REQUIRED");
    assert_eq!(f.sim.side_effects(), 0);
}
