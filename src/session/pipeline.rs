//! The one call pipeline: every `call` from the terminal and every `tool_call` or native tool
//! from an agent runs these steps, in this order, so a refused call never reaches the Editor:
//!
//! 1. the operation id, if the caller gave one, is well formed (before the Editor is looked for);
//! 2. an Editor ready for calls and a catalog of its current domain (the readiness rule);
//! 3. resolution, once: the tool (through the caller's [`ToolScope`]), the action, strict
//!    validation, the resolved safety;
//! 4. refusals that need no Editor round trip: a change chosen before an unannounced project
//!    switch, a change on a Connector without a ledger (agents only, see [`Caller`]);
//!    An EditMode test run is asked for async results, so it becomes a job instead of holding
//!    the Editor's command lock for the whole suite;
//! 5. approval: a supplied token checked locally against the call, or preflight and the
//!    [`Approver`]; an undecided approval ends the call here;
//! 6. `/command`, with one operation id and one arguments hash for every send of this call;
//! 7. the recoveries, each at most once: a token whose signing secret rotated in a reload
//!    (renewed only while the summary is unchanged), an `APPROVAL_REQUIRED` the catalog did not
//!    predict, `CATALOG_STALE` (reload the catalog; resend under the same id only if this call's
//!    contract is unchanged, so a ledger replays instead of running twice). A reply that is not
//!    an envelope is the connector's broken exchange: resent under the same id only when safe;
//! 8. the answer, decoded once, with the long job it started, if any, and the argument strings
//!    behind a refusal the Connector made because it read them as dates; a change that failed
//!    in a way that may have come after it ran is an unknown outcome with its operation id.

use super::approval::{ApprovalAsk, Approver, Caller, Decision, same_summary};
use super::editor::{ProjectSwitch, Session};
use super::error::{CallError, ErrorKind};
use super::resolve::{self, ToolScope, label};
use super::subject;
use super::view::CatalogView;
use crate::connector::{
    CallOptions, ClientKind, ConnectorClient, ConnectorError, Envelope, Preflight,
};
use crate::discovery::{AliveEvent, now_ms};
use crate::policy::{self, ApprovalBinding, ApprovalNeed, CallPolicy, EditorCapabilities};
use crate::tasks;
use hera_connector_contract::canonical::arguments_hash_of_value;
use hera_connector_contract::catalog::ToolEntry;
use hera_connector_contract::operation::OperationId;
use hera_connector_contract::task_id::DurableTaskId;
use hera_connector_contract::wire::FEATURE_OPERATION_LEDGER;
use serde_json::{Map, Value, json};

/// One call as a front-end hands it over.
pub struct CallRequest {
    pub tool: String,
    pub arguments: Map<String, Value>,
    /// The caller's operation id, unparsed (a malformed one is refused before anything else).
    pub operation_id: Option<String>,
    pub approval_token: Option<String>,
    pub client_kind: ClientKind,
}

/// Something the pipeline did on the way that the front-end may want to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallEvent {
    /// The Editor reloaded after the approval; the unchanged operation was approved again and
    /// sent under the same operation id.
    ApprovalRenewed,
    /// The Connector asked for approval although the catalog said none was needed.
    ApprovalRequestedByEditor,
    /// The catalog changed under the call (`CATALOG_STALE`); it was reloaded and the unchanged
    /// call resent under the same operation id.
    CatalogRefreshed,
    /// The operation had already run under this id: the answer is the Editor's ledger replaying
    /// its stored result, and nothing ran now. `first_ran_at_ms` is when it started.
    Replayed { first_ran_at_ms: i64 },
}

/// What the Editor answered (success or its own failure envelope).
pub struct EditorAnswer {
    /// The reply, decoded once.
    pub envelope: Envelope,
    pub policy: CallPolicy,
    /// The id every send of this call used.
    pub operation_id: OperationId,
    pub project_id: String,
    /// A long job the reply started (test run, package job), or why it cannot be followed.
    pub job: Option<Result<DurableTaskId, String>>,
    pub events: Vec<CallEvent>,
    /// The call named a GameObject by a path or name that denotes more than one, or created
    /// one whose path another already has (found by one read after the call; see `subject`).
    pub ambiguity: Option<subject::Ambiguity>,
    /// The Editor refused argument strings because its reader took them for dates (empty
    /// otherwise); the front-end explains it.
    pub date_like: Vec<super::DateLikeString>,
}

impl EditorAnswer {
    pub fn label(&self) -> String {
        label(&self.policy)
    }
}

pub enum CallOutcome<P> {
    Answered(Box<EditorAnswer>),
    /// Approval is needed and this call could not get it; nothing was sent.
    ApprovalPending(P),
}

/// An approval obtained for one send.
enum Approval<P> {
    Granted { token: String, op: OperationId },
    Pending(P),
}

impl<P> Approval<P> {
    /// The token and operation id to send with, or the answer to give the caller now (the
    /// approval is still pending).
    fn granted(self) -> Result<(String, OperationId), CallOutcome<P>> {
        match self {
            Approval::Granted { token, op } => Ok((token, op)),
            Approval::Pending(p) => Err(CallOutcome::ApprovalPending(p)),
        }
    }
}

/// A caller-supplied operation id, or `INVALID_OPERATION_ID`.
pub fn parse_operation_id(raw: &str) -> Result<OperationId, CallError> {
    OperationId::parse(raw).map_err(|e| {
        CallError::input("INVALID_OPERATION_ID", e.to_string()).with_data(json!({
            "message": e.to_string(),
            "expected": "8-128 letters, digits, '_' or '-'"
        }))
    })
}

/// A change refused because the session moved to another project since the caller last heard.
fn project_switched(switch: &ProjectSwitch, tool: &str) -> CallError {
    CallError::input(
        "PROJECT_SWITCHED",
        format!(
            "the Unity Editor for {} is no longer running and this server is now connected to {}; \
             {tool} would change that project, so it was not sent. If the change is meant for {}, \
             check the call against its catalog and repeat it",
            switch.from, switch.to, switch.to
        ),
    )
    .with_data(json!({
        "retry_after_ms": 0,
        "reason": "project_switched",
        "project": switch.to,
        "previous_project": switch.from,
    }))
    .retryable()
}

fn ledger_required(policy: &CallPolicy) -> CallError {
    CallError::input(
        "OPERATION_LEDGER_REQUIRED",
        format!(
            "{} changes the project but this Unity Connector keeps no operation ledger \
             (operation_ledger_v1), so a reload mid-call could leave its outcome unknown; update \
             the AgentConnector package",
            policy.tool
        ),
    )
    .with_data(json!({"tool": policy.tool, "feature": FEATURE_OPERATION_LEDGER}))
}

fn approval_unsupported(policy: &CallPolicy) -> CallError {
    CallError::approval(
        "APPROVAL_UNSUPPORTED",
        format!(
            "{} needs the user's approval but this Unity Connector does not support approvals \
             (approval_v1); nothing was sent. Update the AgentConnector package",
            label(policy)
        ),
    )
}

fn token_error(e: policy::TokenCheckError) -> CallError {
    let mut err = CallError::approval(e.code(), e.to_string()).with_data(e.data());
    err.suggestions = vec![e.suggestion().to_string()];
    err
}

fn token_operation(claims_op: &str) -> Result<OperationId, CallError> {
    OperationId::parse(claims_op).map_err(|e| {
        CallError::approval(
            "INVALID_APPROVAL_TOKEN",
            format!("the approval token's operation id is invalid: {e}"),
        )
    })
}

fn preflight_error(e: ConnectorError) -> CallError {
    let mut err = CallError::from(&e);
    if matches!(e, ConnectorError::Rejected { .. }) {
        err.message = format!("approval preflight rejected: {}", err.message);
    }
    err
}

/// The Editor a call talks to, its catalog view and who the call is for: what an approval's
/// extra reads need.
type Editor<'a> = (&'a ConnectorClient, &'a CatalogView, ClientKind);

/// Preflight, with the summary's `subject` added: what the person approves, in words they can
/// judge (see `subject`).
async fn preflight_for_person(
    (client, view, kind): Editor<'_>,
    policy: &CallPolicy,
    arguments: &Map<String, Value>,
    op: OperationId,
) -> Result<Preflight, CallError> {
    let mut pre = client
        .preflight(&policy.tool, policy.action.as_deref(), arguments, Some(op))
        .await
        .map_err(preflight_error)?;
    if let Some(subject) =
        subject::approval_subject(client, view, kind, &policy.tool, arguments).await
        && let Some(s) = pre.summary.as_object_mut()
    {
        s.insert("subject".into(), subject.clone());
        if let Some(d) = pre.data.get_mut("summary").and_then(Value::as_object_mut) {
            d.insert("subject".into(), subject);
        }
    }
    Ok(pre)
}

/// The Editor could not verify a token because its signing secret rotated in a reload (not
/// because the token is wrong for the call).
fn signature_rotated(env: &Envelope) -> bool {
    env.code.as_deref() == Some("INVALID_APPROVAL_TOKEN")
        && env
            .message
            .as_deref()
            .is_some_and(|m| m.to_ascii_lowercase().contains("signature"))
}

impl Session {
    /// Runs one call through the pipeline (see the module doc).
    pub async fn call<A: Approver>(
        &self,
        req: CallRequest,
        scope: &dyn ToolScope,
        approver: &A,
        watch: &(dyn Fn(AliveEvent<'_>) + Send + Sync),
    ) -> Result<CallOutcome<A::Pending>, CallError> {
        let _in_call = self.in_call();
        let mut requested_op = req
            .operation_id
            .as_deref()
            .map(parse_operation_id)
            .transpose()?;
        let (client, mut view) = self.ready_for_call(1, watch).await?;
        let mut arguments = req.arguments;
        let resolved = resolve::resolve(&view, scope, &req.tool, &mut arguments)?;
        if let Some(raw) = &resolved.controls.operation_id {
            requested_op = Some(parse_operation_id(raw)?);
        }
        let supplied_token = resolved
            .controls
            .approval_token
            .clone()
            .or(req.approval_token);
        ask_for_async_results(resolved.tool, resolved.action.is_some(), &mut arguments);
        let policy = resolved.policy.clone();
        let contract = resolved.contract();
        drop(resolved);

        if !policy.read_only()
            && let Some(switch) = self.take_switch()
        {
            return Err(project_switched(&switch, &policy.tool));
        }
        let heartbeat = client.instance().heartbeat;
        if approver.caller() == Caller::Agent
            && policy::mutation_without_ledger(&policy, &heartbeat)
        {
            return Err(ledger_required(&policy));
        }

        let params_value = Value::Object(arguments.clone());
        let arguments_hash = arguments_hash_of_value(&params_value);
        let zone_dependent =
            hera_connector_contract::canonical::zone_dependent_value(&params_value);
        drop(params_value);
        let mut binding = ApprovalBinding {
            tool: policy.tool.clone(),
            action: policy.action.clone(),
            arguments_hash: arguments_hash.clone(),
            risk_class: policy.risk_class().as_str().to_string(),
            project_id: view.catalog().project_id.clone(),
            operation_id: requested_op.as_ref().map(|o| o.to_string()),
        };
        // Only an id that came from the caller (or from a token) can have run before.
        let mut op_is_reused = requested_op.is_some();
        let mut op = requested_op.unwrap_or_else(OperationId::generate);
        let mut token = None;
        // A catalog adapted from a per-tool listing (the Editor could not build its strict one)
        // carries our guess of every tool's safety; a Connector that signs approvals still knows
        // the real contracts and asks when it must (the `APPROVAL_REQUIRED` recovery below), so
        // nothing is preflighted on a guess. A legacy tool in a strict catalog has a published
        // safety, and is preflighted like any other.
        let guessed = view.snapshot.is_legacy();
        if guessed
            && let Some(claims) = supplied_token
                .as_deref()
                .and_then(|t| hera_connector_contract::approval::inspect(t).ok())
        {
            // Our risk class is a guess here; the token's is the Connector's own, and the
            // Connector checks every claim again.
            binding.risk_class = claims.risk_class;
        }
        let need = match policy::approval_need(&policy, &heartbeat) {
            ApprovalNeed::Required if guessed && supplied_token.is_none() => {
                ApprovalNeed::NotRequired
            }
            other => other,
        };
        match need {
            ApprovalNeed::NotRequired => {}
            ApprovalNeed::Unsupported if policy.legacy => {
                approver.consent_unsigned(&policy).await?;
            }
            ApprovalNeed::Unsupported => return Err(approval_unsupported(&policy)),
            ApprovalNeed::Required => {
                let step = self
                    .approve(
                        (&client, &view, req.client_kind),
                        &policy,
                        &arguments,
                        &binding,
                        supplied_token,
                        op,
                        approver,
                    )
                    .await?;
                let (t, o) = match step.granted() {
                    Ok(granted) => granted,
                    Err(pending) => return Ok(pending),
                };
                token = Some(t);
                op = o;
            }
        }

        // What a change's path or name denotes, read before the change alters it.
        let by_path = subject::names_by_path(&policy.tool, &arguments);
        let mut twins_before = if by_path && !policy.read_only() {
            subject::denoted_by_call(
                &client,
                &view,
                req.client_kind,
                (&policy.tool, policy.action.as_deref()),
                &arguments,
                None,
            )
            .await
        } else {
            None
        };

        let mut events = Vec::new();
        // A retry under an id the ledger has already finished is answered from the ledger;
        // read its record first so the answer can say so (and when it first ran).
        op_is_reused |= token.is_some();
        let earlier = op_is_reused
            .then(|| self.finished_run(&view.catalog().project_id, &op, &arguments_hash))
            .flatten();
        // Each recovery runs at most once, so this loop sends at most four times.
        let (mut renewed, mut reentered, mut refreshed) = (false, false, false);
        loop {
            let options = CallOptions {
                operation_id: Some(op.clone()),
                approval_token: token.clone(),
                // A legacy catalog's hash is our own computation; the Connector never saw it.
                catalog_hash: (!view.snapshot.is_legacy())
                    .then(|| view.snapshot.catalog_hash().to_string()),
                idempotent: policy.idempotent(),
                client_kind: req.client_kind,
                timeout: None,
                arguments_hash: (!zone_dependent).then(|| arguments_hash.clone()),
                read_only: policy.read_only(),
            };
            let reply = match client.command(&policy.tool, &arguments, options).await {
                Ok(r) => r,
                Err(e) => return Err(e.into()),
            };
            let env = &reply.envelope;
            if !renewed
                && signature_rotated(env)
                && let Some(t) = token.as_deref()
                && approver.vouches_for(t, &self.issued)
            {
                renewed = true;
                let step = self
                    .renew(
                        (&client, &view, req.client_kind),
                        &policy,
                        &arguments,
                        &binding,
                        t,
                        &op,
                        approver,
                    )
                    .await?;
                match step.granted() {
                    Ok((t, _)) => token = Some(t),
                    Err(pending) => return Ok(pending),
                }
                events.push(CallEvent::ApprovalRenewed);
                continue;
            }
            if !reentered
                && token.is_none()
                && env.code.as_deref() == Some("APPROVAL_REQUIRED")
                && EditorCapabilities::of(&heartbeat).approval
            {
                // The Connector matches its rules on coerced values and may ask where the
                // catalog did not: the same approval path, then the same send.
                reentered = true;
                events.push(CallEvent::ApprovalRequestedByEditor);
                let step = self
                    .approve(
                        (&client, &view, req.client_kind),
                        &policy,
                        &arguments,
                        &binding,
                        None,
                        op,
                        approver,
                    )
                    .await?;
                (token, op) = match step.granted() {
                    Ok((t, o)) => (Some(t), o),
                    Err(pending) => return Ok(pending),
                };
                continue;
            }
            if env.code.as_deref() == Some("CATALOG_STALE") {
                // Nothing ran (the Connector checks the hash before its ledger). Reload, and
                // resend under the same operation id only if this call still means the same.
                if refreshed {
                    return Err(catalog_changed(&policy, "it changed again"));
                }
                refreshed = true;
                let fresh = self.reload_catalog(&client).await?;
                let mut again = arguments.clone();
                let now = resolve::resolve(&fresh, scope, &req.tool, &mut again)?;
                if now.contract() != contract {
                    return Err(catalog_changed(&policy, "this call's contract changed"));
                }
                drop(now);
                view = fresh;
                events.push(CallEvent::CatalogRefreshed);
                continue;
            }
            if let Some(unknown) = failed_after_running(env, &policy, &reply.operation_id) {
                return Err(unknown);
            }
            if let Some(first_ran_at_ms) = earlier {
                events.push(CallEvent::Replayed { first_ran_at_ms });
            }
            // Replays ran nothing now, and a failed call acted on nothing. A change by path was
            // looked at before it was sent (after it, a destroy or rename leaves fewer twins).
            let ambiguity = if env.success && earlier.is_none() {
                let denoted = match twins_before.take() {
                    Some(d) => Some(d),
                    None if policy.read_only() || !by_path => {
                        subject::denoted_by_call(
                            &client,
                            &view,
                            req.client_kind,
                            (&policy.tool, policy.action.as_deref()),
                            &arguments,
                            env.data(),
                        )
                        .await
                    }
                    None => None,
                };
                denoted.and_then(|d| subject::ambiguity(d, env.data()))
            } else {
                None
            };
            let project_id = view.catalog().project_id.clone();
            let job = tasks::job_of_reply(
                &policy.tool,
                policy.action.as_deref(),
                &env.raw,
                &project_id,
                reply.operation_id.as_str(),
                now_ms(),
            );
            if matches!(job, Some(Ok(_))) {
                // Each job leaves a result the Connector never removes: the old ones go now.
                let swept = tasks::retention::sweep(
                    &self.home().status_dir(),
                    std::time::SystemTime::now(),
                );
                if swept.removed + swept.failed > 0 {
                    tracing::debug!(
                        removed = swept.removed,
                        failed = swept.failed,
                        "old job results on the file bus"
                    );
                }
            }
            let date_like = super::dates::refused_date_strings(&reply.envelope, &arguments);
            return Ok(CallOutcome::Answered(Box::new(EditorAnswer {
                envelope: reply.envelope,
                policy,
                operation_id: reply.operation_id,
                project_id,
                job,
                events,
                ambiguity,
                date_like,
            })));
        }
    }

    /// When the Editor's ledger already finished `op` for these arguments, when it started. Read
    /// from the ledger file the Connector writes (bounded: one small file); any doubt is `None`.
    fn finished_run(
        &self,
        project_id: &str,
        op: &OperationId,
        arguments_hash: &str,
    ) -> Option<i64> {
        let path = self
            .home()
            .operations_dir()
            .join(hera_connector_contract::identity::ledger_dir_name(
                project_id,
            ))
            .join(format!("{op}.json"));
        let file = std::fs::File::open(path).ok()?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::Read::take(file, 64 * 1024 * 1024), &mut text)
            .ok()?;
        let record: hera_connector_contract::wire::LedgerRecord =
            serde_json::from_str(&text).ok()?;
        (record.arguments_hash == arguments_hash && record.state.is_terminal())
            .then_some(record.started_at_ms)
    }

    /// Gets approval for one send: a supplied token checked against the call, an answer the
    /// request already carries, or preflight and the approver's decision.
    #[allow(clippy::too_many_arguments)]
    async fn approve<A: Approver>(
        &self,
        editor: Editor<'_>,
        policy: &CallPolicy,
        arguments: &Map<String, Value>,
        binding: &ApprovalBinding,
        supplied: Option<String>,
        op: OperationId,
        approver: &A,
    ) -> Result<Approval<A::Pending>, CallError> {
        let given = match supplied {
            Some(t) => Some(t),
            None => approver.prior_answer(&self.issued).transpose()?,
        };
        if let Some(t) = given {
            let claims = policy::check_token(&t, binding).map_err(token_error)?;
            let op = token_operation(&claims.operation_id)?;
            return Ok(Approval::Granted { token: t, op });
        }
        let pre = preflight_for_person(editor, policy, arguments, op).await?;
        self.issued.remember(&pre);
        self.decide(&pre, policy, approver, false).await
    }

    async fn decide<A: Approver>(
        &self,
        pre: &Preflight,
        policy: &CallPolicy,
        approver: &A,
        renewal: bool,
    ) -> Result<Approval<A::Pending>, CallError> {
        let ask = ApprovalAsk {
            preflight: pre,
            policy,
            renewal,
        };
        Ok(match approver.decide(&ask).await? {
            Decision::Granted(token) => Approval::Granted {
                token,
                op: pre.operation_id.clone(),
            },
            Decision::Pending(p) => Approval::Pending(p),
        })
    }

    /// A reload rotated the Editor's signing secret after the person approved: preflight the
    /// identical operation again, check the new token binds the same call, and send it without
    /// asking only while the person would see the same summary.
    #[allow(clippy::too_many_arguments)]
    async fn renew<A: Approver>(
        &self,
        editor: Editor<'_>,
        policy: &CallPolicy,
        arguments: &Map<String, Value>,
        binding: &ApprovalBinding,
        old_token: &str,
        op: &OperationId,
        approver: &A,
    ) -> Result<Approval<A::Pending>, CallError> {
        let shown = self.issued.summary_of(old_token);
        let old_claims = policy::check_token(old_token, binding).ok();
        let pre = preflight_for_person(editor, policy, arguments, op.clone()).await?;
        let mut same_op = binding.clone();
        same_op.operation_id = Some(op.to_string());
        let claims = policy::check_token(&pre.token, &same_op).map_err(|e| {
            let mut err = token_error(e);
            err.message = format!("the renewed approval no longer fits: {}", err.message);
            err
        })?;
        self.issued.remember(&pre);
        // What the person saw: the summary, when this session showed it; otherwise (a token
        // from an earlier run) the signed facts of the call, which the binding check compared.
        let unchanged = match &shown {
            Some(s) => same_summary(s, &pre.summary),
            None => old_claims.is_some_and(|c| c.risk_class == claims.risk_class),
        };
        if unchanged {
            tracing::info!("approval renewed after a domain reload for operation {op}");
            return Ok(Approval::Granted {
                token: pre.token,
                op: op.clone(),
            });
        }
        self.decide(&pre, policy, approver, true).await
    }
}

/// A change the Connector may have made before it failed: `INTERNAL_ERROR` can escape after the
/// handler ran (its result could not be recorded), and `RESPONSE_WRITE_FAILED` means the answer
/// could not be written. Nothing says whether the change happened, so it is an unknown outcome
/// with the operation id: a same-id retry is answered by the ledger (replayed, in progress, or
/// run once). A read is not a change and keeps the Editor's error.
fn failed_after_running(
    env: &Envelope,
    policy: &CallPolicy,
    op: &OperationId,
) -> Option<CallError> {
    let code = env.code.as_deref()?;
    if env.success
        || policy.read_only()
        || !matches!(code, "INTERNAL_ERROR" | "RESPONSE_WRITE_FAILED")
    {
        return None;
    }
    let message = env.message.clone().unwrap_or_default();
    Some(
        CallError::new(
            ErrorKind::OutcomeUnknown {
                operation_id: op.to_string(),
            },
            "OPERATION_OUTCOME_UNKNOWN",
            format!(
                "the Unity Editor failed with {code} ({message}) after it may have run {} \
                 operation {op}; whether the change happened is unknown. The identical call \
                 under the same operation id is safe: the Connector's ledger replays it, reports \
                 it in progress, or runs it once",
                label(policy)
            ),
        )
        .with_data(json!({"operation_id": op.as_str(), "tool": policy.tool,
            "editor_code": code, "editor_message": message})),
    )
}

/// An EditMode test run without `async_results` runs synchronously inside the Editor and holds
/// its command lock for the whole suite: a long suite outlives the request (an unknown outcome)
/// while every other call queues behind it. Asking for async results makes it a job like a
/// PlayMode run, followed through the file bus. A caller's explicit `async_results` is kept.
fn ask_for_async_results(tool: &ToolEntry, names_action: bool, arguments: &mut Map<String, Value>) {
    let edit_mode = arguments
        .get("mode")
        .and_then(Value::as_str)
        .is_some_and(|m| m.eq_ignore_ascii_case("editmode"));
    let declared = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.get("async_results"))
        .is_some();
    if tool.name == "run_tests"
        && !names_action
        && edit_mode
        && declared
        && !arguments.contains_key("async_results")
    {
        arguments.insert("async_results".into(), Value::Bool(true));
    }
}

/// `CATALOG_STALE` after the catalog was reloaded and the call no longer means the same.
fn catalog_changed(policy: &CallPolicy, why: &str) -> CallError {
    CallError::input(
        "CATALOG_STALE",
        format!(
            "the Unity Editor's tool catalog changed and {why}; {} was not run. Check the \
             contract again, then repeat the call",
            label(policy)
        ),
    )
    .with_data(
        json!({"tool": policy.tool, "action": policy.action, "reason": "catalog_changed",
        "retry_after_ms": 0}),
    )
    .retryable()
}
