//! `tool_call`: resolve, validate, authorize, send, and shape the answer.
//!
//! Order matters and is the same for every call, so a refused call never reaches the Editor:
//! 1. an Editor ready for calls and a catalog of its current domain (else a retryable error);
//! 2. the tool (aliases, arbitrary-code permission) and the action (aliases → canonical name);
//! 3. strict validation against the resolved action's input schema (pointer-located faults);
//! 4. resolved safety (a change right after an unannounced project switch stops here), operation
//!    id, ledger obligation, approval (preflight or token check);
//! 5. the `/command` request with the live catalog hash and `client_kind: mcp`;
//! 6. the reply: the Connector's envelope preserved, long work turned into a task handle.

use super::approval::{self, Approver, Decision};
use super::args::{self, CallArgs};
use super::catalog_view::CatalogView;
use super::compact::{find_action, find_tool};
use super::envelope::{Answer, Envelope};
use super::link::{EditorLink, connector_error, unavailable};
use super::native::{self, NativeCall};
use super::schema_check::{self, Fault};
use super::task_ext;
use super::tools::TASK_POLL_NAME;
use crate::connector::{CallOptions, ClientKind, ConnectorClient};
use crate::discovery::now_ms;
use crate::policy::{self, ApprovalBinding, ApprovalNeed};
use crate::results::{ProjectKey, ResultSafety, ShapeContext, shape_result};
use crate::tasks::{self, TaskState};
use hera_connector_contract::canonical::{arguments_hash_of_value, sha256_prefixed};
use hera_connector_contract::catalog::{ActionEntry, ToolEntry};
use hera_connector_contract::operation::OperationId;
use hera_connector_contract::task_id::{DurableTaskId, TaskKind};
use rmcp::ErrorData;
use rmcp::Peer;
use rmcp::model::{CreateTaskResult, DetailedTask, TaskPayload, TaskStatus};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RoleServer;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// How long `tool_call` waits for a started job before handing back a task id to poll. Well
/// under the 30 s request timeout some clients apply.
pub const TASK_INLINE_WAIT: Duration = Duration::from_secs(10);
/// How long one poll of `hera.task` waits for completion before answering "still working".
pub const TASK_POLL_WAIT: Duration = Duration::from_secs(5);
/// Suggested pause between polls of a working task.
pub const TASK_POLL_AFTER_MS: u64 = 2000;

/// Approval tokens this process obtained by preflight and handed to the agent, by token hash.
/// Only these may be renewed after a domain reload invalidated them: the human approved this
/// exact operation, so the adapter re-preflights it itself. A token the agent made up is never
/// renewed.
#[derive(Default)]
pub struct IssuedTokens {
    by_hash: Mutex<HashMap<String, i64>>,
}

impl IssuedTokens {
    fn remember(&self, token: &str, expires_at_ms: i64) {
        let mut m = self.by_hash.lock().expect("tokens lock");
        let now = now_ms();
        m.retain(|_, exp| *exp > now);
        m.insert(sha256_prefixed(token.as_bytes()), expires_at_ms);
    }
    fn issued_and_unexpired(&self, token: &str) -> bool {
        let m = self.by_hash.lock().expect("tokens lock");
        m.get(&sha256_prefixed(token.as_bytes()))
            .is_some_and(|exp| *exp > now_ms())
    }
}

/// What a `tool_call` request offers besides its arguments.
pub struct CallContext {
    pub progress: Option<Progress>,
    pub approver: Approver,
    /// The client declared the Tasks extension: a long job returns a task at once.
    pub tasks: bool,
    /// A native tool call (profile or full exposure): the tool is named exactly, must be in the
    /// profile, and the call controls come from the arguments.
    pub native: Option<NativeCall>,
}

/// Where to report progress while a call waits (the client's `_meta.progressToken`).
pub struct Progress {
    pub peer: Peer<RoleServer>,
    pub token: ProgressToken,
}

impl Progress {
    async fn report(&self, step: u32, message: String) {
        let note = ProgressNotificationParam::new(self.token.clone(), f64::from(step))
            .with_message(message);
        if let Err(e) = self.peer.notify_progress(note).await {
            tracing::debug!("could not send progress: {e}");
        }
    }
}

/// Waits (bounded by `max`) for a job, reporting progress about once a second when asked to.
async fn wait_with_progress(
    status: &std::path::Path,
    id: &DurableTaskId,
    max: Duration,
    progress: Option<&Progress>,
) -> Result<TaskState, String> {
    let Some(p) = progress else {
        return tasks::wait(status, id, max).await;
    };
    let deadline = std::time::Instant::now() + max;
    let mut step = 0u32;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let state = tasks::wait(status, id, left.min(Duration::from_secs(1))).await;
        if left <= Duration::from_secs(1) || matches!(state, Ok(TaskState::Completed { .. })) {
            return state;
        }
        step += 1;
        p.report(step, format!("{:?} job still running ({step} s)", id.k))
            .await;
    }
}

/// Where the arguments came in, for pointers in errors: under `arguments` of `tool_call`, at
/// the top of a native call.
fn args_pointer(native: bool) -> &'static str {
    if native { "" } else { "/arguments" }
}

/// The contract a call is checked against: the resolved action's input schema, or the tool's
/// when the call names no action (or the tool has none).
fn validation_schema<'a>(
    tool: &'a ToolEntry,
    action: Option<&'a ActionEntry>,
) -> (String, &'a Value) {
    match action {
        Some(a) => (format!("{}/{}", tool.name, a.name), &a.input_schema),
        None => (tool.name.clone(), &tool.input_schema),
    }
}

/// Validates `arguments` against the resolved contract. Older Connectors publish action schemas
/// without the `action` property; then `action` is left out of the validated copy only (§3.6).
fn validate(
    view: &CatalogView,
    tool: &ToolEntry,
    action: Option<&ActionEntry>,
    arguments: &Map<String, Value>,
    native: bool,
) -> Option<Envelope> {
    let (key, schema) = validation_schema(tool, action);
    let compiled = view.validators.get(&key, schema);
    let validator = match compiled.as_ref() {
        Ok(v) => v,
        Err(e) => {
            // The Connector validates again; a schema we cannot compile is its contract's bug,
            // not the agent's, so the call goes through and the Connector decides.
            tracing::warn!(schema = %key, "skipping local validation: {e}");
            return None;
        }
    };
    let mut instance = Value::Object(arguments.clone());
    let declares_action = schema
        .get("properties")
        .and_then(|p| p.get("action"))
        .is_some();
    if action.is_some() && !declares_action {
        instance.as_object_mut().expect("object").remove("action");
    }
    let faults: Vec<Fault> =
        schema_check::check(validator, schema, &instance, args_pointer(native));
    if faults.is_empty() {
        return None;
    }
    let mut env = args::invalid(&tool.name, &faults);
    let see = if native {
        "the tool's input schema in tools/list".to_string()
    } else {
        format!(
            "tool_describe {{\"name\":{:?}{}}}",
            tool.name,
            action
                .map(|a| format!(",\"action\":{:?}", a.name))
                .unwrap_or_default()
        )
    };
    env.message = format!(
        "invalid argument at {}: {}. The arguments must match the input schema of {key}; see \
         {see}",
        if faults[0].pointer.is_empty() {
            "/"
        } else {
            &faults[0].pointer
        },
        faults[0].message,
    );
    Some(env)
}

/// A caller-supplied operation id, or `INVALID_OPERATION_ID` pointing at it.
fn parse_operation_id(raw: &str) -> Result<OperationId, Envelope> {
    OperationId::parse(raw).map_err(|e| {
        Envelope::error("INVALID_OPERATION_ID", e.to_string()).with_data(json!({
            "pointer": format!("/{}", native::OPERATION_ID_ARG),
            "message": e.to_string(),
            "expected": "8-128 letters, digits, '_' or '-'"
        }))
    })
}

/// A change refused because the server moved to another project since the agent last heard.
fn project_switched(switch: &super::link::ProjectSwitch, tool: &str) -> Envelope {
    Envelope::error(
        "PROJECT_SWITCHED",
        format!(
            "the Unity Editor for {} is no longer running and this server is now connected to {}; \
             {tool} would change that project, so it was not sent. If the change is meant for {}, \
             check the call against its catalog (tool_describe) and repeat it",
            switch.from, switch.to, switch.to
        ),
    )
    .with_data(json!({
        "retryable": true,
        "retry_after_ms": 0,
        "reason": "project_switched",
        "project": switch.to,
        "previous_project": switch.from,
    }))
}

fn task_not_found(raw: &str) -> ErrorData {
    ErrorData::invalid_params(
        "task not found: no pending or finished job of this project matches it",
        Some(json!({"taskId": raw})),
    )
}

fn task_envelope(id: &DurableTaskId, state: &TaskState) -> Envelope {
    let encoded = id.encode();
    match state {
        TaskState::Completed { result } => {
            Envelope::from_connector(result, "task completed").with_operation_id(id.o.clone())
        }
        TaskState::Working { .. } => Envelope::ok(
            format!(
                "still running; poll it with the tool \"{TASK_POLL_NAME}\" and arguments \
                 {{\"task_id\":\"{encoded}\"}} (through tool_call in compact exposure; called \
                 directly otherwise)"
            ),
            json!({
                "task_id": encoded,
                "status": "working",
                "kind": id.k,
                "poll_after_ms": TASK_POLL_AFTER_MS,
            }),
        )
        .with_operation_id(id.o.clone()),
        TaskState::NotFound => Envelope::error(
            "TASK_NOT_FOUND",
            "no pending or finished job matches this task id (it never started, or its files \
             were cleaned up)",
        )
        .with_data(json!({"task_id": encoded})),
    }
}

impl EditorLink {
    /// Runs one `tool_call`. Every outcome, refusals included, is an answer the model can read.
    pub async fn call(&self, a: CallArgs, allow_arbitrary_code: bool, cx: CallContext) -> Answer {
        let _in_call = self.in_call();
        match self.call_inner(a, allow_arbitrary_code, cx).await {
            Ok(answer) => answer,
            Err(refusal) => Answer::Made(refusal),
        }
    }

    /// `Err` is a refusal made here (never sent, or the exchange failed); `Ok` is what the
    /// Editor answered, shaped.
    async fn call_inner(
        &self,
        mut a: CallArgs,
        allow_arbitrary_code: bool,
        cx: CallContext,
    ) -> Result<Answer, Envelope> {
        let CallContext {
            progress,
            approver,
            tasks: tasks_extension,
            native,
        } = cx;
        let progress = progress.as_ref();
        if a.name == TASK_POLL_NAME {
            return self.poll_task(&a, progress).await;
        }
        // A malformed operation id is the caller's fault whatever the Editor's state: refuse it
        // before looking for the Editor (native calls carry theirs in the arguments; below).
        let mut client_op = a
            .operation_id
            .as_deref()
            .map(parse_operation_id)
            .transpose()?;
        let (client, view) = self.ready_for_call(1).await?;
        let catalog = view.catalog();
        let mut arguments = a.arguments.clone();
        let tool = match &native {
            None => find_tool(catalog, &a.name, allow_arbitrary_code)?,
            Some(n) => {
                let tool = n.resolve(&view, &a.name, allow_arbitrary_code)?;
                let (op, token) = native::take_controls(tool, &mut arguments)?;
                if let Some(raw) = op {
                    client_op = Some(parse_operation_id(&raw)?);
                    a.operation_id = Some(raw);
                }
                a.approval_token = token.or(a.approval_token);
                tool
            }
        };
        let is_native = native.is_some();
        let action = match arguments.get("action") {
            Some(Value::String(name)) if !tool.actions.is_empty() => {
                match find_action(tool, name) {
                    Ok(found) => Some(found),
                    Err(mut e) => {
                        if let Some(d) = e.data.as_mut() {
                            d["pointer"] = json!(format!("{}/action", args_pointer(is_native)));
                        }
                        return Err(e);
                    }
                }
            }
            _ => None,
        };
        if let Some(act) = action {
            arguments.insert("action".into(), Value::String(act.name.clone()));
        }
        if let Some(e) = validate(&view, tool, action, &arguments, is_native) {
            return Err(e);
        }
        let call_policy = policy::resolve_call(catalog, &tool.name, &arguments)
            .map_err(|e| Envelope::error(e.code(), e.to_string()))?;
        // The agent chose this change while another project was open: it is not made in the
        // project the server has just moved to until the agent has heard of the move.
        if !call_policy.read_only()
            && let Some(switch) = self.take_switch()
        {
            return Err(project_switched(&switch, &tool.name));
        }
        let heartbeat = client.instance().heartbeat;
        if policy::mutation_without_ledger(&call_policy, &heartbeat) {
            return Err(Envelope::error(
                "OPERATION_LEDGER_REQUIRED",
                format!(
                    "{} changes the project but this Unity Connector keeps no operation ledger \
                     (operation_ledger_v1), so a reload mid-call could leave its outcome unknown; \
                     update the AgentConnector package",
                    tool.name
                ),
            ));
        }
        let mut operation_id = match client_op {
            Some(op) => Some(op),
            None if call_policy.uses_ledger() => Some(OperationId::generate()),
            None => None,
        };
        let params = Value::Object(arguments.clone());
        let mut token = None;
        match policy::approval_need(&call_policy, &heartbeat) {
            ApprovalNeed::NotRequired => {}
            ApprovalNeed::Unsupported => {
                return Err(Envelope::error(
                    "APPROVAL_UNSUPPORTED",
                    format!(
                        "{} needs the user's approval but this Unity Connector does not support \
                         approvals (approval_v1); update the AgentConnector package",
                        tool.name
                    ),
                ));
            }
            ApprovalNeed::Required => {
                let binding = ApprovalBinding {
                    tool: call_policy.tool.clone(),
                    action: call_policy.action.clone(),
                    arguments_hash: arguments_hash_of_value(&params),
                    risk_class: call_policy.risk_class().as_str().to_string(),
                    project_id: catalog.project_id.clone(),
                    operation_id: a.operation_id.clone(),
                };
                let t = match a.approval_token.clone() {
                    Some(t) => t,
                    None => {
                        match self
                            .ask(
                                &client,
                                &call_policy,
                                &arguments,
                                operation_id.clone(),
                                approver,
                            )
                            .await?
                        {
                            Decision::Granted(t) => t,
                            Decision::Pending(answer) => return Ok(answer),
                        }
                    }
                };
                let claims = policy::check_token(&t, &binding).map_err(|e| {
                    let data = e.data();
                    let env = Envelope::error(e.code(), e.to_string())
                        .with_suggestions(vec![e.suggestion().to_string()]);
                    if data.is_null() {
                        env
                    } else {
                        env.with_data(data)
                    }
                })?;
                let op = OperationId::parse(&claims.operation_id).map_err(|e| {
                    Envelope::error(
                        "INVALID_APPROVAL_TOKEN",
                        format!("the approval token's operation id is invalid: {e}"),
                    )
                })?;
                operation_id = Some(op);
                token = Some(t);
            }
        }
        let options = CallOptions {
            operation_id: operation_id.clone(),
            approval_token: token.clone(),
            catalog_hash: Some(view.snapshot.catalog_hash().to_string()),
            idempotent: call_policy.idempotent(),
            client_kind: ClientKind::Mcp,
            timeout: None,
        };
        let mut reply = client
            .command(&call_policy.tool, &arguments, options.clone())
            .await
            .map_err(|e| connector_error(&e))?;
        // A reload rotated the Connector's approval secret after the human approved: renew the
        // approval for the identical operation once, but only for a token we issued ourselves.
        if let Some(t) = &token
            && reply.envelope.code.as_deref() == Some("INVALID_APPROVAL_TOKEN")
            && self.issued.issued_and_unexpired(t)
        {
            let pre = client
                .preflight(
                    &call_policy.tool,
                    call_policy.action.as_deref(),
                    &arguments,
                    operation_id.clone(),
                )
                .await
                .map_err(|e| connector_error(&e))?;
            tracing::info!("approval renewed after a domain reload");
            let mut again = options.clone();
            again.approval_token = Some(pre.token.clone());
            again.operation_id = Some(pre.operation_id.clone());
            reply = client
                .command(&call_policy.tool, &arguments, again)
                .await
                .map_err(|e| connector_error(&e))?;
        }
        let raw = &reply.envelope.raw;
        if reply.envelope.code.as_deref() == Some("CATALOG_STALE") {
            self.force_refresh(&client).await;
            let mut env = Envelope::from_connector(raw, "catalog stale");
            env.agent_hint = Some(if is_native {
                "The Editor's tool catalog changed and has been reloaded; read tools/list again \
                 if it changed, then repeat the call."
                    .into()
            } else {
                "The Editor's tool catalog changed and has been reloaded; check the contract \
                 with tool_describe, then repeat the call."
                    .into()
            });
            let mut data = env.data.take().unwrap_or_else(|| json!({}));
            if data.is_object() {
                data["retryable"] = json!(true);
            }
            return Err(env.with_data(data));
        }
        let op = reply.operation_id.as_str().to_string();
        let label = match &call_policy.action {
            Some(a) => format!("{}/{a}", call_policy.tool),
            None => call_policy.tool.clone(),
        };
        let safety = ResultSafety::from(&call_policy.safety);
        match tasks::job_of_reply(
            &call_policy.tool,
            call_policy.action.as_deref(),
            raw,
            &catalog.project_id,
            &op,
            now_ms(),
        ) {
            None => {}
            Some(Err(msg)) => {
                let env = Envelope::from_connector(raw, "running")
                    .with_operation_id(op)
                    .with_hint(format!("The job cannot be followed: {msg}"));
                return Ok(Answer::Made(env));
            }
            Some(Ok(id)) => {
                if tasks_extension {
                    let t = task_ext::task(
                        &id,
                        TaskStatus::Working,
                        id.c,
                        &format!("{label} started; poll tasks/get"),
                    );
                    return Ok(Answer::Task(CreateTaskResult::new(t)));
                }
                let status = self.home().status_dir();
                let wait = TASK_INLINE_WAIT.min(self.timeout);
                let state = wait_with_progress(&status, &id, wait, progress)
                    .await
                    .map_err(|e| {
                        Envelope::error("TASK_RESULT_UNREADABLE", e)
                            .with_data(json!({"task_id": id.encode()}))
                    })?;
                return Ok(self.task_answer(&id, &state, safety, &label).await);
            }
        }
        let mut env = Envelope::from_connector(raw, &format!("{} completed", call_policy.tool));
        if call_policy.uses_ledger() {
            env = env.with_operation_id(op);
        }
        Ok(self.shape(env, safety, &label, &catalog.project_id).await)
    }

    /// Gets the user's decision for a call that needs approval, by the best means this request
    /// has (see `approval`). A pending or refused decision ends the call without sending it.
    async fn ask(
        &self,
        client: &ConnectorClient,
        call_policy: &policy::CallPolicy,
        arguments: &Map<String, Value>,
        operation_id: Option<OperationId>,
        approver: Approver,
    ) -> Result<Decision, Envelope> {
        // An MRTR retry answering our question: honour it only for a token we issued.
        if let Approver::Mrtr {
            responses: Some(responses),
            state: Some(state),
        } = &approver
            && self.issued.issued_and_unexpired(state)
            && let Some(answer) = approval::answered(responses)
        {
            return match answer {
                Ok(()) => Ok(Decision::Granted(state.clone())),
                Err(why) => Err(approval::denied(&why)),
            };
        }
        let pre = client
            .preflight(
                &call_policy.tool,
                call_policy.action.as_deref(),
                arguments,
                operation_id,
            )
            .await
            .map_err(|e| connector_error(&e))?;
        self.issued.remember(&pre.token, pre.expires_at_ms);
        match approver {
            Approver::Token => Err(approval::required(&pre, None)),
            Approver::Mrtr { .. } => Ok(Decision::Pending(approval::input_required(&pre))),
            Approver::Elicit(peer) => approval::elicit(&peer, &pre).await,
        }
    }

    /// A task's state as an answer: a finished job's result goes through result shaping like
    /// any other Editor result.
    async fn task_answer(
        &self,
        id: &DurableTaskId,
        state: &TaskState,
        safety: ResultSafety,
        label: &str,
    ) -> Answer {
        let env = task_envelope(id, state);
        match state {
            TaskState::Completed { .. } => self.shape(env, safety, label, &id.project_id).await,
            _ => Answer::Made(env),
        }
    }

    /// Decides inline, spilled or withheld for one Editor result (blocking file I/O on the
    /// blocking pool). If the project id cannot key the cache the result stays inline.
    async fn shape(
        &self,
        env: Envelope,
        safety: ResultSafety,
        label: &str,
        project_id: &str,
    ) -> Answer {
        let Ok(project) = ProjectKey::from_project_id(project_id) else {
            return Answer::Made(env);
        };
        let store = self.results.clone();
        let cap = self.cap;
        let value = env.to_value();
        let label = label.to_string();
        let op = env.operation_id.clone();
        let shaped = tokio::task::spawn_blocking(move || {
            shape_result(
                &value,
                &ShapeContext {
                    safety,
                    cap,
                    store: &store,
                    project: &project,
                    label: &label,
                    operation_id: op.as_deref(),
                },
            )
        })
        .await;
        match shaped {
            Ok(s) => Answer::FromEditor(s),
            Err(e) => {
                tracing::error!("result shaping failed: {e}");
                Answer::Made(env)
            }
        }
    }

    async fn poll_task(
        &self,
        a: &CallArgs,
        progress: Option<&Progress>,
    ) -> Result<Answer, Envelope> {
        let Some(raw) = a.arguments.get("task_id").and_then(Value::as_str) else {
            return Err(args::invalid(
                TASK_POLL_NAME,
                &[Fault {
                    pointer: "/arguments/task_id".into(),
                    message:
                        "missing required field \"task_id\" (the data.task_id of a running result)"
                            .into(),
                    expected: Some(json!("string")),
                }],
            ));
        };
        let id = DurableTaskId::decode(raw).map_err(|e| {
            args::invalid(
                TASK_POLL_NAME,
                &[Fault {
                    pointer: "/arguments/task_id".into(),
                    message: format!("not a task id from this server: {e}"),
                    expected: None,
                }],
            )
        })?;
        let project = match self.view_for_reading().await {
            Ok(v) => v.catalog().project_id.clone(),
            Err(_) => id.project_id.clone(),
        };
        if id.project_id != project {
            return Err(task_envelope(&id, &TaskState::NotFound));
        }
        let status = self.home().status_dir();
        let state = wait_with_progress(&status, &id, TASK_POLL_WAIT.min(self.timeout), progress)
            .await
            .map_err(|e| {
                unavailable(
                    "TASK_RESULT_UNREADABLE",
                    "result_unreadable",
                    e,
                    json!({"task_id": raw}),
                )
            })?;
        // A finished job's safety is not known here; treat it as a change, never as read-only.
        let safety = ResultSafety::Resolved {
            read_only: false,
            arbitrary_code: false,
        };
        let label = match &id.a {
            Some(a) => format!("task {a}"),
            None => "task".to_string(),
        };
        Ok(self.task_answer(&id, &state, safety, &label).await)
    }

    /// `tasks/get`: the job's state from its files; a finished job carries its shaped result.
    pub async fn get_task(&self, raw: &str) -> Result<DetailedTask, ErrorData> {
        let id = self.task_of(raw).await?;
        let status = self.home().status_dir();
        let state = tasks::read_state(&status, &id)
            .map_err(|e| ErrorData::internal_error(format!("task result unreadable: {e}"), None))?;
        match &state {
            TaskState::NotFound => Err(task_not_found(raw)),
            TaskState::Working { .. } => Ok(DetailedTask::new(
                task_ext::task(&id, TaskStatus::Working, id.c, "the Unity job is running"),
                TaskPayload::Working,
            )),
            TaskState::Completed { .. } => {
                let safety = ResultSafety::Resolved {
                    read_only: false,
                    arbitrary_code: false,
                };
                let result = self
                    .task_answer(&id, &state, safety, "task")
                    .await
                    .into_result();
                let Value::Object(result) =
                    serde_json::to_value(result).expect("a tool result serializes")
                else {
                    unreachable!("a tool result is an object")
                };
                let done = tasks::finished_at_ms(&status, &id).unwrap_or_else(now_ms);
                Ok(DetailedTask::new(
                    task_ext::task(&id, TaskStatus::Completed, done, "the Unity job finished"),
                    TaskPayload::Completed { result },
                ))
            }
        }
    }

    /// `tasks/cancel`: asks the Editor to cancel a running test run. Package jobs cannot be
    /// cancelled safely; a finished job needs nothing.
    pub async fn cancel_task(&self, raw: &str) -> Result<(), ErrorData> {
        let id = self.task_of(raw).await?;
        let status = self.home().status_dir();
        match tasks::read_state(&status, &id) {
            Ok(TaskState::Completed { .. }) => return Ok(()),
            Ok(TaskState::NotFound) => return Err(task_not_found(raw)),
            _ => {}
        }
        if id.k == TaskKind::Package {
            return Err(ErrorData::invalid_request(
                "Unity Package Manager does not expose safe cancellation for package operations; \
                 the job continues",
                Some(json!({"taskId": raw, "cancellable": false})),
            ));
        }
        let (client, view) = self
            .ready_for_call(0)
            .await
            .map_err(|e| ErrorData::internal_error(e.message, e.data))?;
        let mut params = Map::new();
        params.insert("action".into(), json!("cancel"));
        let options = CallOptions {
            catalog_hash: Some(view.snapshot.catalog_hash().to_string()),
            idempotent: true,
            client_kind: ClientKind::Mcp,
            ..Default::default()
        };
        let reply = client
            .command("run_tests", &params, options)
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), Some(e.data())))?;
        if reply.envelope.success {
            Ok(())
        } else {
            Err(ErrorData::internal_error(
                format!(
                    "the Editor refused to cancel the test run: {}",
                    reply.envelope.message.unwrap_or_default()
                ),
                reply.envelope.code.map(|c| json!({"code": c})),
            ))
        }
    }

    /// Decodes a task id and checks it belongs to this project.
    async fn task_of(&self, raw: &str) -> Result<DurableTaskId, ErrorData> {
        let id = DurableTaskId::decode(raw).map_err(|e| {
            ErrorData::invalid_params(
                format!("taskId is not a task of this server: {e}"),
                Some(json!({"taskId": raw})),
            )
        })?;
        if let Ok(v) = self.view_for_reading().await
            && v.catalog().project_id != id.project_id
        {
            return Err(task_not_found(raw));
        }
        Ok(id)
    }

    /// Fetches the catalog again even if the domain epoch did not change (the Connector said our
    /// catalog hash is stale), bypassing the epoch-keyed cache lookup.
    async fn force_refresh(&self, client: &ConnectorClient) {
        if let Err(e) = self.reload_catalog(client).await {
            tracing::warn!("catalog reload after CATALOG_STALE failed: {e}");
        }
    }
}
