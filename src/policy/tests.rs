use super::*;
use hera_connector_contract::approval::{ApprovalClaims, sign};
use hera_connector_contract::catalog::Catalog;
use hera_connector_contract::catalog::{ActionEntry, SafetyDecl, SafetyRule, Source};
use serde_json::json;

fn safety(risk: RiskClass, idempotent: bool) -> Safety {
    SafetyDecl {
        risk: Some(risk),
        idempotent,
        ..Default::default()
    }
    .normalize(None)
}

fn action(name: &str, s: Safety) -> ActionEntry {
    ActionEntry {
        name: name.into(),
        description: String::new(),
        aliases: if name == "info" {
            vec!["i".into()]
        } else {
            vec![]
        },
        input_schema: json!({"type":"object"}),
        output_schema: json!({"type":"object"}),
        safety: s,
    }
}

fn tool(name: &str, actions: Vec<ActionEntry>, s: Safety) -> ToolEntry {
    ToolEntry {
        name: name.into(),
        title: name.into(),
        description: String::new(),
        source: Source {
            kind: "builtin".into(),
            assembly: "a".into(),
            type_name: "t".into(),
        },
        contract_mode: "strict".into(),
        profiles: vec![],
        aliases: vec![],
        examples: vec![],
        input_schema: json!({"type":"object"}),
        output_schema: json!({"type":"object"}),
        actions,
        safety: s,
    }
}

fn catalog() -> Catalog {
    let mut console = tool("console", vec![], safety(RiskClass::ReadOnly, true));
    console.safety.rules.push(SafetyRule {
        operation: "clear".into(),
        when: [("clear".to_string(), json!({"const": true}))].into(),
        safety: safety(RiskClass::Destructive, false),
    });
    Catalog {
        schema_version: "hera.tool-catalog/1".into(),
        catalog_hash: String::new(),
        domain_epoch: "e".into(),
        project_id: "p".into(),
        tools: vec![
            console,
            tool("exec", vec![], safety(RiskClass::ArbitraryCode, false)),
            tool(
                "scene",
                vec![
                    action("close", safety(RiskClass::Destructive, false)),
                    action("info", safety(RiskClass::ReadOnly, true)),
                ],
                safety(RiskClass::Write, false),
            ),
        ],
    }
}

fn params(v: serde_json::Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn heartbeat(features: &[&str]) -> Heartbeat {
    serde_json::from_value(json!({"port": 8090, "features": features})).unwrap()
}

#[test]
fn actions_rules_and_obligations() {
    let c = catalog();
    let resolve = |tool: &str, action: Option<&str>, p: Value| {
        resolve_entry(c.tool(tool).unwrap(), action, &params(p)).unwrap()
    };
    let info = resolve("scene", Some("info"), json!({"action":"info"}));
    assert_eq!(info.action.as_deref(), Some("info"));
    assert!(info.read_only() && !info.uses_ledger() && !info.requires_approval());
    let close = resolve("scene", Some("close"), json!({"action":"close"}));
    assert!(close.requires_approval() && close.uses_ledger() && !close.idempotent());
    let clear = resolve("console", None, json!({"clear": true}));
    assert!(clear.requires_approval());
    let plain = resolve("console", None, json!({"clear": false}));
    assert!(!plain.requires_approval());
    let exec = resolve("exec", None, json!({}));
    assert!(exec.arbitrary_code && exec.tool_runs_arbitrary_code);
    assert!(c.tool("exec").unwrap().is_arbitrary_code());

    assert_eq!(
        approval_need(&close, &heartbeat(&["approval_v1"])),
        ApprovalNeed::Required
    );
    assert_eq!(
        approval_need(&close, &heartbeat(&[])),
        ApprovalNeed::Unsupported
    );
    assert_eq!(
        approval_need(&info, &heartbeat(&[])),
        ApprovalNeed::NotRequired
    );
    assert!(mutation_without_ledger(
        &close,
        &heartbeat(&["approval_v1"])
    ));
    assert!(!mutation_without_ledger(
        &close,
        &heartbeat(&["operation_ledger_v1"])
    ));
    assert!(!mutation_without_ledger(&info, &heartbeat(&[])));
}

#[test]
fn token_inspection_names_every_mismatch() {
    let claims = ApprovalClaims {
        version: 1,
        operation_id: "op_0123456789abcdef0123456789abcdef".into(),
        tool: "scene".into(),
        action: Some("close".into()),
        arguments_hash: "sha256:aa".into(),
        risk_class: "destructive".into(),
        project_id: "sha256:pp".into(),
        expires_at_ms: 1,
        single_use: true,
    };
    let token = sign(&[7u8; 32], &claims);
    let mut want = ApprovalBinding {
        tool: "scene".into(),
        action: Some("close".into()),
        arguments_hash: "sha256:aa".into(),
        risk_class: "destructive".into(),
        project_id: "sha256:pp".into(),
        operation_id: None,
    };
    assert_eq!(check_token(&token, &want).unwrap(), claims);
    want.arguments_hash = "sha256:bb".into();
    want.project_id = "sha256:qq".into();
    want.operation_id = Some("op_other_id_123".into());
    let err = check_token(&token, &want).unwrap_err();
    assert_eq!(err.code(), "APPROVAL_MISMATCH");
    assert_eq!(
        err.data(),
        json!({"mismatched": ["arguments", "project", "operation_id"]})
    );
    assert_eq!(
        check_token("garbage", &want).unwrap_err().code(),
        "INVALID_APPROVAL_TOKEN"
    );
}
