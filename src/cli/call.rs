//! `call TOOL [ACTION] --args JSON`: one strict tool call with the approval round trip (§5.6).
//!
//! 1. Resolve the call against the catalog (tool, canonical action, effective safety).
//! 2. If it needs confirmation: check a given token locally, or preflight, show the summary on
//!    stderr, and ask (terminal) or take `--yes`; without either, exit 4 with the token.
//! 3. Send with the catalog hash, the token and the preflight's operation id; a `CATALOG_STALE`
//!    answer (nothing ran) refreshes the catalog and starts over once.

use super::CallArgs;
use super::context::Globals;
use super::exit;
use super::output::{Failure, print_success};
use crate::catalog::{self, CatalogCache, CatalogSnapshot};
use crate::connector::{CallOptions, ClientKind, CommandReply, ConnectorClient, Preflight};
use crate::policy::{self, ApprovalBinding, ApprovalNeed, CallPolicy};
use hera_connector_contract::canonical::arguments_hash_of_value;
use hera_connector_contract::operation::OperationId;
use serde_json::{Map, Value, json};
use std::io::{BufRead, IsTerminal, Read, Write};

/// How the user consented, if at all, before the call.
#[derive(Debug, Clone)]
enum Consent {
    /// `--approve=<token>`.
    Token(String),
    /// `--yes` or a bare `--approve`.
    Yes,
    /// Ask on the terminal, if there is one.
    Ask,
}

pub async fn run(g: &Globals, a: CallArgs) -> Result<u8, Failure> {
    let params = read_params(&a)?;
    let operation_id = match &a.operation_id {
        Some(id) => Some(OperationId::parse(id).map_err(|e| {
            Failure::usage(
                "INVALID_OPERATION_ID",
                format!("--operation-id {id:?}: {e}; use 8-128 letters, digits, '_' or '-'"),
            )
        })?),
        None => None,
    };
    let consent = match a.approve.as_deref() {
        Some("") => Consent::Yes,
        Some(t) => Consent::Token(t.to_string()),
        None if a.yes => Consent::Yes,
        None => Consent::Ask,
    };
    let client = g.connect().await?;
    let cache = CatalogCache::new(&g.home);
    let mut snapshot = catalog::load(&client, Some(&cache)).await?;
    for round in 0..2 {
        let reply = call_once(
            &client,
            &snapshot,
            &a.tool,
            &params,
            &operation_id,
            &consent,
        )
        .await?;
        let env = &reply.envelope;
        if env.code.as_deref() == Some("CATALOG_STALE") && round == 0 {
            tracing::info!("the catalog changed in the Editor; refreshing and calling again");
            snapshot = catalog::refresh(&client, Some(&cache)).await?;
            continue;
        }
        if env.success {
            print_success(env);
            return Ok(exit::OK);
        }
        return Err(Failure::from_envelope(env));
    }
    unreachable!("the loop returns on its second round")
}

/// `--args` as a JSON object (`-` = stdin, `@path` = file), with the positional action merged.
fn read_params(a: &CallArgs) -> Result<Map<String, Value>, Failure> {
    let text = match a.args.as_deref() {
        None => "{}".to_string(),
        Some("-") => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| {
                Failure::usage(
                    "INVALID_ARGUMENT",
                    format!("cannot read --args from stdin: {e}"),
                )
            })?;
            s
        }
        Some(p) if p.starts_with('@') => std::fs::read_to_string(&p[1..]).map_err(|e| {
            Failure::usage(
                "INVALID_ARGUMENT",
                format!("cannot read --args file {}: {e}", &p[1..]),
            )
        })?,
        Some(t) => t.to_string(),
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Failure::usage(
            "INVALID_ARGUMENT",
            format!(
                "--args is not valid JSON ({e}); pass an object such as '{{\"name\":\"Cube\"}}'"
            ),
        )
    })?;
    let Value::Object(mut params) = value else {
        return Err(Failure::usage(
            "INVALID_ARGUMENT",
            "--args must be a JSON object such as '{\"name\":\"Cube\"}'",
        ));
    };
    if let Some(action) = &a.action {
        match params.get("action") {
            Some(Value::String(existing)) if !existing.eq_ignore_ascii_case(action) => {
                return Err(Failure::usage(
                    "ARGUMENT_CONFLICT",
                    format!("action {action:?} conflicts with \"action\":{existing:?} in --args"),
                ));
            }
            _ => {
                params.insert("action".into(), Value::String(action.to_lowercase()));
            }
        }
    }
    Ok(params)
}

async fn call_once(
    client: &ConnectorClient,
    snap: &CatalogSnapshot,
    tool: &str,
    params: &Map<String, Value>,
    operation_id: &Option<OperationId>,
    consent: &Consent,
) -> Result<CommandReply, Failure> {
    let policy = policy::resolve_call(&snap.catalog, tool, params).map_err(|e| {
        Failure::new(exit::FAILED, e.code(), e.to_string(), Value::Null)
            .with_suggestion("Run `hera-agent-unity list` to see the tools and actions")
    })?;
    let heartbeat = client.instance().heartbeat;
    // A legacy catalog's hash is our own computation; the Connector never saw it.
    let catalog_hash = (!snap.is_legacy()).then(|| snap.catalog_hash().to_string());
    let send = |token: Option<String>, op: Option<OperationId>| CallOptions {
        operation_id: op,
        approval_token: token,
        catalog_hash: catalog_hash.clone(),
        idempotent: policy.idempotent(),
        client_kind: ClientKind::Cli,
        timeout: None,
    };
    match policy::approval_need(&policy, &heartbeat) {
        ApprovalNeed::NotRequired => {
            let reply = client
                .command(&policy.tool, params, send(None, operation_id.clone()))
                .await?;
            // The Connector matches rules on coerced values and may still ask (§3.5).
            if reply.envelope.code.as_deref() == Some("APPROVAL_REQUIRED")
                && policy::EditorCapabilities::of(&heartbeat).approval
            {
                return approved_call(client, snap, &policy, params, &None, consent, &send).await;
            }
            Ok(reply)
        }
        ApprovalNeed::Unsupported if policy.legacy => {
            // An old Connector cannot issue tokens and publishes no safety; a person decides.
            legacy_consent(&policy, consent)?;
            Ok(client
                .command(&policy.tool, params, send(None, operation_id.clone()))
                .await?)
        }
        ApprovalNeed::Unsupported => Err(Failure::new(
            exit::APPROVAL,
            "APPROVAL_UNSUPPORTED",
            format!(
                "{} requires approval, but the Unity Connector in this project does not support \
                 approval (no approval_v1); nothing was sent. Update the \
                 com.notnull92.hera-agent-unity package",
                label(&policy)
            ),
            Value::Null,
        )),
        ApprovalNeed::Required => {
            approved_call(client, snap, &policy, params, operation_id, consent, &send).await
        }
    }
}

fn label(p: &CallPolicy) -> String {
    match &p.action {
        Some(a) => format!("{} {a}", p.tool),
        None => p.tool.clone(),
    }
}

async fn approved_call(
    client: &ConnectorClient,
    snap: &CatalogSnapshot,
    policy: &CallPolicy,
    params: &Map<String, Value>,
    operation_id: &Option<OperationId>,
    consent: &Consent,
    send: &impl Fn(Option<String>, Option<OperationId>) -> CallOptions,
) -> Result<CommandReply, Failure> {
    let binding = ApprovalBinding {
        tool: policy.tool.clone(),
        action: policy.action.clone(),
        arguments_hash: arguments_hash_of_value(&Value::Object(params.clone())),
        risk_class: policy.safety.risk_class.as_str().to_string(),
        project_id: snap.catalog.project_id.clone(),
        operation_id: operation_id.as_ref().map(|o| o.to_string()),
    };
    if let Consent::Token(token) = consent {
        let claims = policy::check_token(token, &binding).map_err(|e| {
            Failure::new(exit::APPROVAL, e.code(), e.to_string(), e.data())
                .with_suggestion(e.suggestion())
        })?;
        let op = OperationId::parse(&claims.operation_id).map_err(|e| {
            Failure::new(
                exit::APPROVAL,
                "INVALID_APPROVAL_TOKEN",
                format!("the token's operation id is invalid: {e}"),
                Value::Null,
            )
        })?;
        return send_approved(client, policy, params, &binding, token.clone(), op, send).await;
    }
    let pf = client
        .preflight(
            &policy.tool,
            policy.action.as_deref(),
            params,
            operation_id.clone(),
        )
        .await
        .map_err(|e| {
            let mut f = Failure::from(e);
            if let Some(m) = f.envelope.get("message").and_then(Value::as_str) {
                f.envelope["message"] = Value::String(format!("approval preflight rejected: {m}"));
            }
            f
        })?;
    show_summary(policy, &pf);
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let approved = match consent {
        Consent::Yes => true,
        Consent::Token(_) => unreachable!("handled above"),
        Consent::Ask if interactive => ask("Proceed?"),
        Consent::Ask => {
            return Err(Failure::new(
                exit::APPROVAL,
                "APPROVAL_REQUIRED",
                format!(
                    "{} requires approval; nothing was run. Rerun the same command with \
                     --approve=<data.token> (valid 5 minutes, single use), or with --yes",
                    label(policy)
                ),
                pf.data.clone(),
            ));
        }
    };
    if !approved {
        return Err(Failure::new(
            exit::APPROVAL,
            "APPROVAL_DENIED",
            format!("{} was not approved; nothing was run", label(policy)),
            pf.summary.clone(),
        ));
    }
    send_approved(
        client,
        policy,
        params,
        &binding,
        pf.token,
        pf.operation_id,
        send,
    )
    .await
}

/// Sends an approved call. If the Editor reloaded since the approval, its new domain cannot
/// verify the token (the signing secret rotated, "signature is invalid") although nothing ran:
/// the person approved exactly this operation, so ask the Editor again for the *same*
/// operation id, check the new token binds the same call, and send once more.
async fn send_approved(
    client: &ConnectorClient,
    policy: &CallPolicy,
    params: &Map<String, Value>,
    binding: &ApprovalBinding,
    token: String,
    op: OperationId,
    send: &impl Fn(Option<String>, Option<OperationId>) -> CallOptions,
) -> Result<CommandReply, Failure> {
    let reply = client
        .command(&policy.tool, params, send(Some(token), Some(op.clone())))
        .await?;
    let rotated = reply.envelope.code.as_deref() == Some("INVALID_APPROVAL_TOKEN")
        && reply
            .envelope
            .message
            .as_deref()
            .is_some_and(|m| m.to_ascii_lowercase().contains("signature"));
    if !rotated {
        return Ok(reply);
    }
    eprintln!("The Editor reloaded since the approval; renewing it for the same operation {op}");
    let pf = client
        .preflight(
            &policy.tool,
            policy.action.as_deref(),
            params,
            Some(op.clone()),
        )
        .await?;
    let mut same_op = binding.clone();
    same_op.operation_id = Some(op.to_string());
    policy::check_token(&pf.token, &same_op).map_err(|e| {
        Failure::new(
            exit::APPROVAL,
            e.code(),
            format!("the renewed approval no longer fits: {e}"),
            e.data(),
        )
        .with_suggestion(e.suggestion())
    })?;
    Ok(client
        .command(&policy.tool, params, send(Some(pf.token), Some(op)))
        .await?)
}

fn legacy_consent(policy: &CallPolicy, consent: &Consent) -> Result<(), Failure> {
    eprintln!(
        "{} comes from a Connector without safety contracts or approval support; it may change \
         or delete things in the project.",
        label(policy)
    );
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let ok = match consent {
        Consent::Yes | Consent::Token(_) => true,
        Consent::Ask if interactive => ask("Run it?"),
        Consent::Ask => {
            return Err(Failure::new(
                exit::APPROVAL,
                "APPROVAL_REQUIRED",
                format!(
                    "{} has no safety contract (legacy Connector); nothing was run. Rerun with --yes \
                     to run it",
                    label(policy)
                ),
                json!({"tool": policy.tool, "action": policy.action, "reason": "legacy_tool"}),
            ));
        }
    };
    if ok {
        Ok(())
    } else {
        Err(Failure::new(
            exit::APPROVAL,
            "APPROVAL_DENIED",
            format!("{} was not approved; nothing was run", label(policy)),
            Value::Null,
        ))
    }
}

fn show_summary(policy: &CallPolicy, pf: &Preflight) {
    let s = &pf.summary;
    let yes_no = |k: &str| {
        if s.get(k).and_then(Value::as_bool).unwrap_or(false) {
            "yes"
        } else {
            "no"
        }
    };
    let text = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or("-").to_string();
    eprintln!(
        "Approval required: {} (operation {})",
        label(policy),
        pf.operation_id
    );
    eprintln!("  target:           {}", text("target"));
    eprintln!(
        "  side effect:      {} (risk {})",
        text("side_effect"),
        policy.safety.risk_class.as_str()
    );
    eprintln!("  reversible:       {}", yes_no("reversible"));
    eprintln!("  may reload:       {}", yes_no("may_reload_domain"));
    eprintln!("  external impact:  {}", yes_no("external_impact"));
}

/// `y`/`yes` (any case) on stdin after a prompt on stderr.
fn ask(question: &str) -> bool {
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}
