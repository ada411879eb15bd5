//! Asking the human: the client's own approval form when it has one, a token round trip
//! otherwise (design "Where we go beyond the anchor" §5).
//!
//! - Sessions up to 2025-11-25 whose client declared form elicitation: `elicitation/create` in
//!   the middle of the call, with a one-field `requestedSchema` (approve: boolean). Bounded by
//!   [`ELICIT_TIMEOUT`]; no answer falls back to the token round trip.
//! - 2026-07-28 requests whose client declared elicitation: an `input_required` result (MRTR)
//!   whose `requestState` is the preflight token. The retry carries the answer; the token is
//!   honoured only if this session issued it (`session::IssuedApprovals`), so a client cannot
//!   approve with a state it made up.
//! - Everyone else: `APPROVAL_REQUIRED` with the token; the agent asks the user and repeats the
//!   identical call with `approval_token`.
//!
//! The Connector re-checks every token (signature, expiry, binding, single use); these paths
//! only decide who says yes.

use super::envelope::{Answer, Envelope};
use crate::connector::Preflight;
use crate::policy::CallPolicy;
use crate::session::{self, ApprovalAsk, CallError, Caller, Decision, IssuedApprovals};
use rmcp::Peer;
use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest, InputRequests,
    InputRequiredResult, InputResponses,
};
use rmcp::service::RoleServer;
use serde_json::{Value, json};
use std::time::Duration;

/// How long the user has to answer the client's approval form.
pub const ELICIT_TIMEOUT: Duration = Duration::from_secs(120);

/// The `inputRequests` key of the approval question.
pub const INPUT_KEY: &str = "approval";

/// How this request can reach the human.
pub enum AgentApprover {
    /// Ask through `elicitation/create` now (legacy session with form elicitation).
    Elicit {
        peer: Peer<RoleServer>,
        /// The protocol version negotiated at initialize.
        protocol: String,
    },
    /// Answer `input_required` (2026-07-28 with elicitation), or read the retry's answer.
    Mrtr {
        responses: Option<InputResponses>,
        state: Option<String>,
        protocol: String,
    },
    /// No form: hand the token to the agent.
    Token {
        /// The protocol version negotiated at initialize, when known.
        protocol: Option<String>,
        why: TokenWhy,
    },
}

/// Why an approval is a token round trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenWhy {
    /// The client declared no form elicitation.
    NoForm,
    /// The server was started with `--mrtr 0` / `HERA_MCP_MRTR=0`.
    FormsOff,
    /// The client's approval form returned no answer.
    FormFailed,
    /// A call the server makes on the agent's behalf (no form applies).
    Internal,
}

/// `_meta` key of the how-to-approve note on an `input_required` approval question.
pub const HINT_META_KEY: &str = "hera/approval_hint";

/// Exactly how an agent approves in the token round trip, for this session's protocol era.
pub fn token_hint(protocol: Option<&str>, why: TokenWhy) -> String {
    let era = match protocol {
        Some(v) => format!("MCP {v}"),
        None => "this session".to_string(),
    };
    let reason = match why {
        TokenWhy::NoForm => {
            "your client declared no form elicitation, so the server cannot ask the user itself"
        }
        TokenWhy::FormsOff => {
            "the server runs with --mrtr 0 (HERA_MCP_MRTR=0), so approvals are token round trips only"
        }
        TokenWhy::FormFailed => {
            "the client's approval form (elicitation/create) returned no answer"
        }
        TokenWhy::Internal => "this call cannot show a form",
    };
    format!(
        "To approve ({era}: {reason}): show the user this message; only if they say yes, repeat \
         the identical call with \"approval_token\": data.token (a top-level argument, or \
         _meta[\"{meta}\"]) within 5 minutes. Never approve for the user: the token is \
         single-use and bound to these arguments.",
        meta = super::tools::APPROVAL_META_KEY,
    )
}

/// How the approval reaches the user on a 2026-07-28 session with form elicitation.
pub fn mrtr_hint(protocol: &str) -> String {
    format!(
        "MCP {protocol}: this input_required result asks the user. The client shows \
         inputRequests.{INPUT_KEY} (an approval form) to the user and repeats this identical \
         tools/call with inputResponses.{INPUT_KEY} set to their answer and requestState echoed \
         unchanged; the operation runs only on an explicit approve: true. Do not answer the \
         form on the user's behalf."
    )
}

impl AgentApprover {
    fn token_hint(&self, fallback: bool) -> String {
        match self {
            AgentApprover::Token { protocol, why } => token_hint(protocol.as_deref(), *why),
            AgentApprover::Elicit { protocol, .. } | AgentApprover::Mrtr { protocol, .. } => {
                let why = if fallback {
                    TokenWhy::FormFailed
                } else {
                    TokenWhy::Internal
                };
                token_hint(Some(protocol), why)
            }
        }
    }
}

/// One line the user can judge: what, on what, with which consequences. The subject the
/// adapter resolved (`summary.subject.text`) names the target when there is one; otherwise
/// the Connector's own `target`.
pub fn summary_line(pre: &Preflight) -> String {
    let s = &pre.summary;
    let text = |k: &str| {
        s.get(k)
            .map(|v| match v {
                Value::String(x) => x.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    let flag = |k: &str| s.get(k).and_then(Value::as_bool);
    let what = match s.get("action").and_then(Value::as_str) {
        Some(a) => format!("{}/{}", text("tool"), a),
        None => text("tool"),
    };
    let on = s
        .get("subject")
        .and_then(|x| x.get("text"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| text("target"));
    let yes_no = |k: &str| match flag(k) {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    };
    // The Connector's `reversible`: whether a tool can reverse the change. Said in those words
    // so the summary never reads as "undoable" when the Connector says it is not.
    let reversible = match flag("reversible") {
        Some(true) => "can be reversed",
        Some(false) => "cannot be reversed by a tool call",
        None => "reversibility unknown",
    };
    format!(
        "{what} on {on} (side effect: {}, {reversible}, may reload the domain: {}, external \
         impact: {}; operation {})",
        text("side_effect"),
        yes_no("may_reload_domain"),
        yes_no("external_impact"),
        pre.operation_id,
    )
}

fn form(pre: &Preflight) -> Value {
    json!({
        "mode": "form",
        "message": format!("Allow the agent to run {}?", summary_line(pre)),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": "Run this operation in the Unity Editor now."
                }
            },
            "required": ["approve"]
        }
    })
}

/// `APPROVAL_REQUIRED` for the token round trip; `why` says why the user must be asked (again),
/// `hint` exactly how to approve in this session.
pub fn required(pre: &Preflight, why: Option<&str>, hint: String) -> Envelope {
    Envelope::error(
        "APPROVAL_REQUIRED",
        format!(
            "{} needs the user's approval; nothing was run. {}",
            summary_line(pre),
            why.map(|w| format!("{w} ")).unwrap_or_default(),
        )
        .trim_end()
        .to_string(),
    )
    .with_operation_id(pre.operation_id.as_str())
    .with_data(json!({
        "token": pre.token,
        "operation_id": pre.operation_id.as_str(),
        "expires_at_ms": pre.expires_at_ms,
        "summary": pre.summary,
    }))
    .with_hint(hint)
}

pub fn denied(detail: &str) -> CallError {
    CallError::approval(
        "APPROVAL_DENIED",
        format!("the user did not approve the operation ({detail}); nothing was run"),
    )
}

impl session::Approver for AgentApprover {
    type Pending = Answer;

    fn caller(&self) -> Caller {
        Caller::Agent
    }

    fn prior_answer(&self, issued: &IssuedApprovals) -> Option<Result<String, CallError>> {
        let AgentApprover::Mrtr {
            responses: Some(responses),
            state: Some(state),
            ..
        } = self
        else {
            return None;
        };
        issued.summary_of(state)?;
        Some(
            answered(responses)?
                .map(|()| state.clone())
                .map_err(|why| denied(&why)),
        )
    }

    async fn decide(&self, ask: &ApprovalAsk<'_>) -> Result<Decision<Answer>, CallError> {
        let pre = ask.preflight;
        let why = ask.renewal.then_some(
            "The Editor reloaded since the earlier approval and the summary of this operation \
             changed, so the user must approve it again.",
        );
        match self {
            AgentApprover::Token { .. } => Ok(Decision::Pending(Answer::Made(required(
                pre,
                why,
                self.token_hint(false),
            )))),
            AgentApprover::Mrtr { protocol, .. } => {
                Ok(Decision::Pending(input_required(pre, protocol)))
            }
            AgentApprover::Elicit { peer, .. } => match elicit(peer, pre).await? {
                Some(d) => Ok(d),
                None => Ok(Decision::Pending(Answer::Made(required(
                    pre,
                    Some("The client's approval form did not return an answer."),
                    self.token_hint(true),
                )))),
            },
        }
    }

    async fn consent_unsigned(&self, policy: &CallPolicy) -> Result<(), CallError> {
        Err(CallError::approval(
            "APPROVAL_UNSUPPORTED",
            format!(
                "{} needs the user's approval but this Unity Connector cannot sign approvals \
                 (approval_v1); nothing was sent. Update the AgentConnector package",
                session::label(policy)
            ),
        ))
    }
}

/// Whether an elicitation answer approves: `accept` with `approve: true`. A missing or false
/// `approve` is a refusal.
fn approves(result: &ElicitResult) -> Result<(), String> {
    match result.action {
        ElicitationAction::Accept => {
            if result
                .content
                .as_ref()
                .and_then(|c| c.get("approve"))
                .and_then(Value::as_bool)
                == Some(true)
            {
                Ok(())
            } else {
                Err("the approval form was submitted without approving".into())
            }
        }
        ElicitationAction::Decline => Err("declined".into()),
        ElicitationAction::Cancel => Err("cancelled".into()),
        _ => Err("the approval form returned an unknown action".into()),
    }
}

/// Asks through the client's form now; `None` when the form returned no answer (the caller
/// falls back to the token round trip).
async fn elicit(
    peer: &Peer<RoleServer>,
    pre: &Preflight,
) -> Result<Option<Decision<Answer>>, CallError> {
    let params: ElicitRequestParams =
        serde_json::from_value(form(pre)).expect("the approval form is a valid elicitation");
    match peer
        .create_elicitation_with_timeout(params, Some(ELICIT_TIMEOUT))
        .await
    {
        Ok(result) => match approves(&result) {
            Ok(()) => Ok(Some(Decision::Granted(pre.token.clone()))),
            Err(why) => Err(denied(&why)),
        },
        Err(e) => {
            tracing::info!("approval form failed, falling back to the token round trip: {e}");
            Ok(None)
        }
    }
}

/// The `input_required` result that asks the client to show the form and retry; its `_meta`
/// carries the how-to-approve note for an agent that sees it.
pub fn input_required(pre: &Preflight, protocol: &str) -> Answer {
    let request: InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": form(pre),
    }))
    .expect("the approval form is a valid input request");
    let mut requests = InputRequests::new();
    requests.insert(INPUT_KEY.to_string(), request);
    let mut result = InputRequiredResult::new(Some(requests), Some(pre.token.clone()));
    let mut meta = serde_json::Map::new();
    meta.insert(HINT_META_KEY.to_string(), json!(mrtr_hint(protocol)));
    result.meta = Some(rmcp::model::MetaObject(meta));
    Answer::InputRequired(result)
}

/// Reads the answer of an MRTR retry: `Some(Ok(()))` approved, `Some(Err)` refused, `None` no
/// answer to our question in this request.
pub fn answered(responses: &InputResponses) -> Option<Result<(), String>> {
    let v = responses.get(INPUT_KEY)?;
    Some(
        serde_json::from_value::<ElicitResult>(v.clone())
            .map_err(|e| format!("unreadable approval answer: {e}"))
            .and_then(|r| approves(&r)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_explicit_yes_approves() {
        let yes: InputResponses = serde_json::from_value(
            json!({"approval":{"action":"accept","content":{"approve":true}}}),
        )
        .unwrap();
        assert_eq!(answered(&yes), Some(Ok(())));
        for no in [
            json!({"approval":{"action":"accept","content":{"approve":false}}}),
            json!({"approval":{"action":"accept"}}),
            json!({"approval":{"action":"decline"}}),
            json!({"approval":{"action":"cancel"}}),
            json!({"approval":"garbage"}),
        ] {
            let r: InputResponses = serde_json::from_value(no.clone()).unwrap();
            assert!(matches!(answered(&r), Some(Err(_))), "{no}");
        }
        assert_eq!(answered(&InputResponses::new()), None);
    }
}
