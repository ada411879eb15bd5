//! `call TOOL [ACTION] --args JSON`: one call through the session's pipeline, worded for a
//! person at a terminal.
//!
//! The pipeline resolves, validates, applies the policy and sends; this module reads the
//! arguments, asks the person when approval is needed (a prompt on a terminal, `--yes`, or the
//! token round trip with exit 4), and prints the answer.

use super::CallArgs;
use super::context::Globals;
use super::exit;
use super::input::{ArgsInputError, ArgsSource, read_args_text};
use super::output::{Failure, print_success};
use crate::connector::{ClientKind, Preflight};
use crate::policy::CallPolicy;
use crate::session::{
    AnyTool, ApprovalAsk, Approver, CallError, CallEvent, CallOutcome, CallRequest, Caller,
    DateLikeString, Decision, IssuedApprovals, label,
};
use serde_json::{Map, Value, json};
use std::io::{BufRead, IsTerminal, Write};

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
    let consent = match a.approve.as_deref() {
        Some("") => Consent::Yes,
        Some(t) => Consent::Token(t.to_string()),
        None if a.yes => Consent::Yes,
        None => Consent::Ask,
    };
    let approval_token = match &consent {
        Consent::Token(t) => Some(t.clone()),
        _ => None,
    };
    let person = Terminal { consent };
    let request = CallRequest {
        tool: a.tool.clone(),
        arguments: params,
        operation_id: a.operation_id.clone(),
        approval_token,
        client_kind: ClientKind::Cli,
    };
    // A person typing a tool's name means it: tools that run arbitrary code are callable here,
    // and their safety still asks for approval.
    let scope = AnyTool {
        allow_arbitrary_code: true,
        pointer_prefix: "",
    };
    let session = g.session();
    let outcome = session
        .call(request, &scope, &person, &g.alive_report())
        .await?;
    let done = match outcome {
        CallOutcome::ApprovalPending(pre) => {
            return Err(Failure::new(
                exit::APPROVAL,
                "APPROVAL_REQUIRED",
                format!(
                    "{} requires approval; nothing was run. Rerun the same command with \
                     --approve=<data.token> (valid 5 minutes, single use), or with --yes",
                    a.tool
                ),
                pre.data,
            ));
        }
        CallOutcome::Answered(done) => done,
    };
    if done.events.contains(&CallEvent::ApprovalRenewed) {
        eprintln!(
            "The Editor reloaded since the approval; renewing it for the same operation {}",
            done.operation_id
        );
    }
    if let Some(first) = done.events.iter().find_map(|e| match e {
        CallEvent::Replayed { first_ran_at_ms } => Some(*first_ran_at_ms),
        _ => None,
    }) {
        let ago = (crate::discovery::now_ms() - first).max(0) / 1000;
        eprintln!(
            "note: nothing ran now; operation {} already ran {ago} s ago and this is the Editor's \
             stored result of that run",
            done.operation_id
        );
    }
    if let Some(a) = &done.ambiguity {
        eprintln!("note: {} (instance ids: {:?})", a.message, a.instance_ids);
    }
    let env = &done.envelope;
    if env.success {
        print_success(env);
        Ok(exit::OK)
    } else {
        let mut f = Failure::from_envelope(env);
        if !done.date_like.is_empty() {
            explain_date_like(&mut f, &done.date_like);
        }
        if env.code_str() == "OPERATION_IN_PROGRESS" {
            f.envelope["suggestions"] = json!([format!(
                "The Editor's ledger has operation {} as still running: either it is running \
                 now, or it ran and the Editor failed to record its result, and then the record \
                 stays until Unity reloads its scripts or an hour passes. Check in the Editor \
                 whether the change happened; do not rerun it without --operation-id unless you \
                 know it did not run",
                done.operation_id
            )]);
        }
        if env.code_str() == "COMMAND_LOCK_TIMEOUT" {
            // Refused before anything ran; the operation id makes a rerun safe regardless.
            let again = if done.policy.uses_ledger() {
                format!(" (with --operation-id {})", done.operation_id)
            } else {
                String::new()
            };
            f.envelope["suggestions"] = json!([format!(
                "Nothing ran: another command held the Editor's command lock for the Connector's \
                 whole wait (120 s), such as a long synchronous tool or a hung one. Rerun the \
                 same command later{again}; if it keeps happening, the blocking command ends only \
                 when Unity reloads its scripts or restarts"
            )]);
        }
        Err(f)
    }
}

/// Words a refusal caused by strings the Connector read as dates, for a person: what happened
/// and how to get past it (the data keeps the strings for scripts).
fn explain_date_like(f: &mut Failure, strings: &[DateLikeString]) {
    let named: Vec<String> = strings
        .iter()
        .map(|d| format!("{:?} (--args {})", d.value, d.pointer))
        .collect();
    let why = format!(
        "Unity's Connector reads any argument string shaped like an ISO date-time as a date \
         before checking it, so {} was refused as a date, not taken as text. Rerunning the same \
         command fails the same way: change the text so it is not a bare date-time (for example \
         a space instead of the 'T', or a word before it)",
        named.join(", ")
    );
    let mut suggestions = f.envelope["suggestions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    suggestions.insert(0, json!(why));
    f.envelope["suggestions"] = Value::Array(suggestions);
    let list: Vec<Value> = strings.iter().map(DateLikeString::to_json).collect();
    if f.envelope["data"].is_object() {
        f.envelope["data"]["date_like_strings"] = Value::Array(list);
    } else if f.envelope["data"].is_null() {
        f.envelope["data"] = json!({"date_like_strings": list});
    }
}

/// `--args` as a JSON object (`-` = stdin, `@path` = file), with the positional action merged.
fn read_params(a: &CallArgs) -> Result<Map<String, Value>, Failure> {
    // Bounded by the Connector's body limit: `@/dev/zero` or a huge pipe ends in a clear error.
    let text = match a.args.as_deref() {
        None => "{}".to_string(),
        Some(spec) => read_args_text(&ArgsSource::parse(spec)).map_err(|e| {
            let code = match e {
                ArgsInputError::TooLarge { .. } => "REQUEST_TOO_LARGE",
                _ => "INVALID_ARGUMENT",
            };
            Failure::usage(code, e.to_string())
        })?,
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

/// The person at the terminal, as the pipeline's approver.
struct Terminal {
    consent: Consent,
}

fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

impl Approver for Terminal {
    /// Undecided: the preflight, whose token goes back to the person (exit 4).
    type Pending = Preflight;

    fn caller(&self) -> Caller {
        Caller::Person
    }

    async fn decide(&self, ask: &ApprovalAsk<'_>) -> Result<Decision<Preflight>, CallError> {
        let pre = ask.preflight;
        if ask.renewal {
            eprintln!(
                "The Editor reloaded since the approval and the summary of the operation changed:"
            );
        }
        show_summary(ask.policy, pre);
        let yes = match self.consent {
            // A token approves what its summary said; a changed one needs a new yes.
            Consent::Yes => true,
            Consent::Token(_) | Consent::Ask if interactive() => confirm("Proceed?"),
            Consent::Token(_) | Consent::Ask => return Ok(Decision::Pending(pre.clone())),
        };
        if yes {
            Ok(Decision::Granted(pre.token.clone()))
        } else {
            Err(CallError::approval(
                "APPROVAL_DENIED",
                format!("{} was not approved; nothing was run", label(ask.policy)),
            )
            .with_data(pre.summary.clone()))
        }
    }

    async fn consent_unsigned(&self, policy: &CallPolicy) -> Result<(), CallError> {
        eprintln!(
            "{} comes from a Connector without safety contracts or approval support; it may \
             change or delete things in the project.",
            label(policy)
        );
        let ok = match self.consent {
            Consent::Yes | Consent::Token(_) => true,
            Consent::Ask if interactive() => confirm("Run it?"),
            Consent::Ask => {
                return Err(CallError::approval(
                    "APPROVAL_REQUIRED",
                    format!(
                        "{} has no safety contract (legacy Connector); nothing was run. Rerun \
                         with --yes to run it",
                        label(policy)
                    ),
                )
                .with_data(
                    json!({"tool": policy.tool, "action": policy.action, "reason": "legacy_tool"}),
                ));
            }
        };
        if ok {
            Ok(())
        } else {
            Err(CallError::approval(
                "APPROVAL_DENIED",
                format!("{} was not approved; nothing was run", label(policy)),
            ))
        }
    }

    /// `--approve=<token>` came from a person who read its summary in an earlier run.
    fn vouches_for(&self, token: &str, issued: &IssuedApprovals) -> bool {
        matches!(&self.consent, Consent::Token(t) if t == token)
            || issued.summary_of(token).is_some()
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
    if let Some(subject) = s
        .get("subject")
        .and_then(|x| x.get("text"))
        .and_then(Value::as_str)
    {
        eprintln!("  affects:          {subject}");
    }
    eprintln!("  target:           {}", text("target"));
    eprintln!(
        "  side effect:      {} (risk {})",
        text("side_effect"),
        policy.safety.risk_class.as_str()
    );
    eprintln!(
        "  reversible:       {} (whether a tool call can reverse it)",
        yes_no("reversible")
    );
    eprintln!("  may reload:       {}", yes_no("may_reload_domain"));
    eprintln!("  external impact:  {}", yes_no("external_impact"));
}

/// `y`/`yes` (any case) on stdin after a prompt on stderr.
fn confirm(question: &str) -> bool {
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}
