//! Approval (§5): preflight checks and the issued token, then `/command` verification in the
//! Connector's order: envelope/signature/payload, contract, expiry, binding (each bound field
//! on its own), single use; rotation of the secret on reload.

use crate::common::*;
use hera_connector_contract::approval::{self, ApprovalClaims};
use hera_connector_contract::canonical::arguments_hash_of_value;
use hera_connector_sim::Reload;
use serde_json::{Value, json};
use std::time::Duration;

const SCENE: &str = "Assets/Scenes/SampleScene.unity";

fn close_params() -> Value {
    json!({"action":"close","path": SCENE})
}

/// Preflight for `scene close`, returning (operation id, token, claims).
fn approved(port: u16) -> (String, String, ApprovalClaims) {
    let id = op();
    let v = preflight(port, &id, "scene", Some("close"), &close_params());
    assert_eq!(v["success"], true, "{v}");
    let token = v["data"]["token"].as_str().unwrap().to_string();
    let claims = approval::inspect(&token).unwrap();
    (id, token, claims)
}

/// A raw preflight request's answer (always HTTP 200).
fn preflight_body(port: u16, body: Value) -> Value {
    let r = post(port, "/approval/preflight", &body.to_string());
    assert_eq!(r.status, 200);
    r.json()
}

#[test]
fn preflight_issues_a_bound_token_and_summary() {
    let f = start();
    let id = op();
    let before = f.sim.now_ms();
    let v = preflight(f.port(), &id, "scene", Some("close"), &close_params());
    assert_eq!(v["message"], "Approval preflight");
    assert_eq!(v["timings"], Value::Null);
    let d = &v["data"];
    assert_eq!(d["operation_id"], id.as_str());
    let exp = d["expires_at_ms"].as_i64().unwrap();
    assert!(exp >= before + 300_000 && exp <= f.sim.now_ms() + 300_000);
    assert_eq!(
        d["summary"],
        json!({"tool":"scene","action":"close","target":format!("\"{SCENE}\""),"side_effect":"unity_project",
               "reversible":false,"may_reload_domain":false,"external_impact":false,"operation_id":id})
    );
    let token = d["token"].as_str().unwrap();
    let claims = approval::inspect(token).unwrap();
    assert_schema(
        "approval-token-payload.schema.json",
        &serde_json::to_value(&claims).unwrap(),
    );
    assert_eq!(claims.operation_id, id);
    assert_eq!(claims.tool, "scene");
    assert_eq!(claims.action.as_deref(), Some("close"));
    assert_eq!(
        claims.arguments_hash,
        arguments_hash_of_value(&close_params())
    );
    assert_eq!(claims.risk_class, "destructive");
    assert_eq!(claims.project_id, f.sim.project_id());
    assert_eq!(claims.expires_at_ms, exp);
    // Package changes have external impact; a tool without actions gives "parameters: …".
    let v = preflight(
        f.port(),
        &op(),
        "manage_packages",
        None,
        &json!({"action":"add","identifier":"com.unity.ai.navigation"}),
    );
    assert_eq!(v["data"]["summary"]["external_impact"], true);
    assert_eq!(v["data"]["summary"]["side_effect"], "package_environment");
    assert_eq!(
        v["data"]["summary"]["target"],
        "parameters: action,identifier"
    );
    let v = preflight(f.port(), &op(), "console", None, &json!({"clear":true}));
    assert_eq!(v["data"]["summary"]["action"], Value::Null);
    assert_eq!(v["data"]["summary"]["target"], "parameters: clear");
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn preflight_refusals() {
    let f = start();
    let p = f.port();
    let pf = |body: Value| preflight_body(p, body);
    for body in [
        json!({"tool":"scene","arguments":{}}),
        json!({"operation_id":"bad id","tool":"scene","arguments":{}}),
        json!({"operation_id":op(),"tool":" ","arguments":{}}),
        json!({"operation_id":op(),"tool":"scene","arguments":[]}),
        json!({"operation_id":op(),"tool":"scene"}),
    ] {
        assert_eq!(
            code(&pf(body.clone())),
            "INVALID_APPROVAL_PREFLIGHT",
            "{body}"
        );
    }
    let v = pf(json!({"operation_id":op(),"tool":"nope","arguments":{}}));
    assert_eq!(code(&v), "UNKNOWN_TOOL");
    assert_eq!(v["message"], "Tool not found: nope");
    let v = pf(
        json!({"operation_id":op(),"tool":"scene","action":"save","arguments":{"action":"close"}}),
    );
    assert_eq!(code(&v), "APPROVAL_MISMATCH");
    assert_eq!(
        v["message"],
        "Approval action does not match the request arguments."
    );
    // An empty request action normalizes to none and disagrees with a named one.
    let v =
        pf(json!({"operation_id":op(),"tool":"scene","action":"","arguments":{"action":"close"}}));
    assert_eq!(code(&v), "APPROVAL_MISMATCH");
    let v = pf(
        json!({"operation_id":op(),"tool":"scene","action":"CLOSE","arguments":{"action":"close","path":SCENE}}),
    );
    assert_eq!(
        v["success"], true,
        "case and whitespace are normalized: {v}"
    );
    let v = pf(json!({"operation_id":op(),"tool":"scene","action":"bogus","arguments":{}}));
    assert_eq!(code(&v), "UNKNOWN_ACTION");
    assert!(v.get("data").is_none());
    let v = pf(json!({"operation_id":op(),"tool":"scene","action":"close","arguments":{}}));
    assert_eq!(code(&v), "MISSING_ARGUMENT");
    assert_eq!(v["data"]["path"], "/path");
    let v = pf(json!({"operation_id":op(),"tool":"scene","action":"info","arguments":{}}));
    assert_eq!(code(&v), "APPROVAL_NOT_REQUIRED");
    for v in [
        pf(json!({"operation_id":op(),"tool":"console","arguments":{}})),
        pf(json!({"operation_id":op(),"tool":"console","arguments":{"clear":false}})),
    ] {
        assert_eq!(code(&v), "APPROVAL_NOT_REQUIRED");
        assert_eq!(v["timings"], Value::Null);
    }
}

/// The summary's target is read from the raw `arguments`, as sent: positional `args` name no
/// target, and an action given only on the request is not among them. Members
/// are read as `Value<string>()` reads them: a number is its text, an object throws.
#[test]
fn preflight_summary_reads_the_raw_arguments_and_members_as_newtonsoft_does() {
    let f = start();
    let p = f.port();
    let pf = |body: Value| preflight_body(p, body);
    let target = |v: &Value| {
        assert_eq!(v["success"], true, "{v}");
        v["data"]["summary"]["target"].as_str().unwrap().to_string()
    };
    // Positional arguments: the Connector maps them for validation, the target lists the key.
    let v = pf(json!({"operation_id":op(),"tool":"scene","action":"close",
                      "arguments":{"args":["close", SCENE]}}));
    assert_eq!(target(&v), "parameters: args");
    // The action given only on the request is not among the raw arguments.
    let v = pf(json!({"operation_id":op(),"tool":"console","action":null,
                      "arguments":{"clear":"true"}}));
    assert_eq!(target(&v), "parameters: clear");
    let v = pf(
        json!({"operation_id":op(),"tool":"manage_packages","action":"add",
                      "arguments":{"identifier":"com.unity.ai.navigation"}}),
    );
    assert_eq!(target(&v), "parameters: identifier");
    // Members: a number is its text; an object throws inside the Connector.
    let v = pf(
        json!({"operation_id":12345678,"tool":"scene","action":"close",
                      "arguments":{"path":SCENE}}),
    );
    assert_eq!(v["data"]["operation_id"], "12345678", "{v}");
    for body in [
        json!({"operation_id":{"id":1},"tool":"scene","arguments":{}}),
        json!({"operation_id":op(),"tool":["scene"],"arguments":{}}),
        json!({"operation_id":op(),"tool":"scene","action":{"a":1},"arguments":{}}),
    ] {
        assert_eq!(code(&pf(body.clone())), "INTERNAL_ERROR", "{body}");
    }
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn round_trip_then_reuse_is_refused() {
    let f = start();
    let p = f.port();
    let (id, token, _) = approved(p);
    let v = call(p, "scene", close_params(), &id);
    assert_eq!(code(&v), "APPROVAL_REQUIRED");
    let v = call_with_token(p, "scene", close_params(), &id, Some(&token));
    assert_ne!(code(&v), "APPROVAL_REQUIRED");
    assert!(
        !code(&v).starts_with("APPROVAL_") && code(&v) != "INVALID_APPROVAL_TOKEN",
        "{v}"
    );
    assert_eq!(f.sim.side_effects_of("scene", Some("close")), 1);
    let rec = ledger_record(&f.sim, &id).unwrap();
    assert_eq!(rec["approval_verified"], true);
    // The same operation again replays without checking the (spent) token.
    let again = call_with_token(p, "scene", close_params(), &id, Some(&token));
    assert_eq!(again["timings"], Value::Null);
    // The token under a new operation id: the binding fails first.
    let v = call_with_token(p, "scene", close_params(), &op(), Some(&token));
    assert_eq!(code(&v), "APPROVAL_MISMATCH");
    assert_eq!(
        v["message"],
        "Approval token does not match this operation."
    );
    // Tokens are plain HMACs of their claims under the domain secret.
    let (id2, token2, claims2) = approved(p);
    assert_eq!(f.sim.sign_token(&claims2), token2);
    let v = call_with_token(p, "scene", close_params(), &id2, Some(&token2));
    assert!(!code(&v).starts_with("APPROVAL_"), "{v}");
    assert_eq!(f.sim.side_effects(), 2);
}

#[test]
fn a_used_token_is_refused_when_the_operation_runs_again() {
    let f = start();
    let p = f.port();
    // Spend a token on `console clear`, then delete the ledger record so the same operation is
    // not replayed but checked again: the used-token set refuses the token.
    let id = op();
    let args = json!({"clear":true});
    let v = preflight(p, &id, "console", None, &args);
    let token = v["data"]["token"].as_str().unwrap().to_string();
    let first = call_with_token(p, "console", args.clone(), &id, Some(&token));
    assert_eq!(first["success"], true, "{first}");
    // The record turns `responded` just after the answer went out; delete it after that.
    assert!(
        wait_for(Duration::from_secs(30), || {
            ledger_record(&f.sim, &id).filter(|r| r["state"] == "responded")
        })
        .is_some()
    );
    std::fs::remove_file(f.sim.ledger_dir().join(format!("{id}.json"))).unwrap();
    let v = call_with_token(p, "console", args, &id, Some(&token));
    assert_eq!(code(&v), "APPROVAL_ALREADY_USED");
    assert_eq!(v["message"], "Approval token has already been used.");
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn expiry_uses_the_simulated_clock() {
    let f = start();
    let p = f.port();
    let (id, token, _) = approved(p);
    f.sim.advance_clock(Duration::from_secs(301));
    let v = call_with_token(p, "scene", close_params(), &id, Some(&token));
    assert_eq!(code(&v), "APPROVAL_EXPIRED");
    assert!(
        ledger_record(&f.sim, &id).is_none(),
        "a refused approval writes no record"
    );
    // A fresh preflight with the same operation id works.
    let v = preflight(p, &id, "scene", Some("close"), &close_params());
    let token = v["data"]["token"].as_str().unwrap();
    let v = call_with_token(p, "scene", close_params(), &id, Some(token));
    assert!(!code(&v).starts_with("APPROVAL_"), "{v}");
}

#[test]
fn every_bound_field_is_checked() {
    let f = start();
    let p = f.port();
    let (id, _, claims) = approved(p);
    type Mutation = Box<dyn Fn(&mut ApprovalClaims)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "operation_id",
            Box::new(|c| c.operation_id = "op_ffffffffffffffffffffffffffffffff".into()),
        ),
        ("tool", Box::new(|c| c.tool = "manage_scene".into())),
        ("action", Box::new(|c| c.action = Some("save".into()))),
        ("action null", Box::new(|c| c.action = None)),
        (
            "arguments_hash",
            Box::new(|c| {
                c.arguments_hash =
                    arguments_hash_of_value(&json!({"action":"close","path":"Assets/Other.unity"}))
            }),
        ),
        ("risk_class", Box::new(|c| c.risk_class = "write".into())),
        (
            "project_id",
            Box::new(|c| {
                c.project_id =
                    hera_connector_contract::identity::project_id("/Users/me/Unity/Other")
            }),
        ),
    ];
    for (field, mutate) in mutations {
        let mut c = claims.clone();
        mutate(&mut c);
        let token = f.sim.sign_token(&c);
        let v = call_with_token(p, "scene", close_params(), &id, Some(&token));
        assert_eq!(code(&v), "APPROVAL_MISMATCH", "{field}: {v}");
    }
    // The unmodified claims still pass: nothing above consumed the token.
    let token = f.sim.sign_token(&claims);
    let v = call_with_token(p, "scene", close_params(), &id, Some(&token));
    assert!(!code(&v).starts_with("APPROVAL_"), "{v}");
    assert_eq!(f.sim.side_effects(), 1);
}

#[test]
fn token_shape_and_contract_errors() {
    let f = start();
    let p = f.port();
    let (id, token, claims) = approved(p);
    let (payload, sig) = token.split_once('.').unwrap();
    let cases = [
        ("nodot".to_string(), "Approval token envelope is invalid."),
        (format!("{token}.x"), "Approval token envelope is invalid."),
        (
            format!("{payload}.AAAA"),
            "Approval token signature is invalid.",
        ),
        (
            format!("{payload}.!!"),
            "Approval token payload is invalid.",
        ),
        (format!("%%%.{sig}"), "Approval token payload is invalid."),
    ];
    for (t, message) in cases {
        let v = call_with_token(p, "scene", close_params(), &id, Some(&t));
        assert_eq!(code(&v), "INVALID_APPROVAL_TOKEN", "{t}");
        assert_eq!(v["message"], message, "{t}");
    }
    let mut unsupported = claims.clone();
    unsupported.single_use = false;
    let v = call_with_token(
        p,
        "scene",
        close_params(),
        &id,
        Some(&f.sim.sign_token(&unsupported)),
    );
    assert_eq!(code(&v), "INVALID_APPROVAL_TOKEN");
    assert_eq!(v["message"], "Approval token has an unsupported contract.");
    // Expiry is checked before the binding.
    let mut expired_and_wrong = claims.clone();
    expired_and_wrong.expires_at_ms = f.sim.now_ms() - 1;
    expired_and_wrong.tool = "other".into();
    let v = call_with_token(
        p,
        "scene",
        close_params(),
        &id,
        Some(&f.sim.sign_token(&expired_and_wrong)),
    );
    assert_eq!(code(&v), "APPROVAL_EXPIRED");
    // A blank token counts as none.
    let v = call_with_token(p, "scene", close_params(), &id, Some("  "));
    assert_eq!(code(&v), "APPROVAL_REQUIRED");
    assert_eq!(f.sim.side_effects(), 0);
}

#[test]
fn a_reload_rotates_the_secret() {
    let f = start();
    let (id, token, claims) = approved(f.port());
    let before = f.sim.sign_token(&claims);
    f.sim.reload(Reload {
        downtime: Duration::from_millis(100),
        new_port: false,
    });
    assert!(f.sim.wait_ready_blocking(Duration::from_secs(30)));
    assert_ne!(f.sim.sign_token(&claims), before, "a new secret");
    let v = call_with_token(f.port(), "scene", close_params(), &id, Some(&token));
    assert_eq!(code(&v), "INVALID_APPROVAL_TOKEN");
    assert_eq!(v["message"], "Approval token signature is invalid.");
    // A new preflight with the same operation id is accepted.
    let v = preflight(f.port(), &id, "scene", Some("close"), &close_params());
    let token = v["data"]["token"].as_str().unwrap();
    let v = call_with_token(f.port(), "scene", close_params(), &id, Some(token));
    assert!(
        !code(&v).starts_with("APPROVAL_") && code(&v) != "INVALID_APPROVAL_TOKEN",
        "{v}"
    );
}
