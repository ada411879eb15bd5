//! `tool_call` and native tool calls for an agent: the session's one pipeline runs the call;
//! this module words its outcome in MCP terms (tool results, hints that name `operation_id` and
//! `tool_describe`, tasks and progress) and shapes Editor results (inline, spilled, withheld).

use super::approval::{AgentApprover, TokenWhy};
use super::args::{self, CallArgs};
use super::envelope::{Answer, Envelope};
use super::native::{self, NativeCall, NativeScope};
use super::task_ext;
use super::tools::TASK_POLL_NAME;
use crate::connector::ClientKind;
use crate::discovery::{AliveEvent, now_ms};
use crate::results::{InlineCap, ProjectKey, ResultSafety, ResultStore, ShapeContext, shape_owned};
use crate::session::{
    AnyTool, CallError, CallEvent, CallOutcome, CallRequest, DateLikeString, EditorAnswer,
    ErrorKind, Fault, Session, ToolScope,
};
use crate::tasks::{self, TaskState};
use hera_connector_contract::task_id::{DurableTaskId, TaskKind};
use rmcp::ErrorData;
use rmcp::Peer;
use rmcp::model::{CreateTaskResult, DetailedTask, TaskPayload, TaskStatus};
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RoleServer;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long `tool_call` waits for a started job before handing back a task id to poll. Well
/// under the 30 s request timeout some clients apply.
pub const TASK_INLINE_WAIT: Duration = Duration::from_secs(10);
/// How long one poll of `hera.task` waits for completion before answering "still working".
pub const TASK_POLL_WAIT: Duration = Duration::from_secs(5);
/// Suggested pause between polls of a working task.
pub const TASK_POLL_AFTER_MS: u64 = 2000;

/// What a `tool_call` request offers besides its arguments.
pub struct CallContext {
    pub progress: Option<Progress>,
    pub approver: AgentApprover,
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
            "no pending or finished job matches this task id (it never started here, or its \
             result was removed: results are kept for 7 days)",
        )
        .with_data(json!({"task_id": encoded})),
    }
}

/// The agent's side of the session: the pipeline's outcomes as tool results, and the result
/// cache Editor results spill into.
pub struct AgentCalls {
    pub session: Arc<Session>,
    /// Spilled results of this user (`hera-result://` resources).
    pub results: Arc<ResultStore>,
    pub cap: InlineCap,
    pub allow_arbitrary_code: bool,
    /// `--mrtr`: approval through the client's form where it has one.
    pub ask_with_form: bool,
}

/// Words a pipeline refusal for an agent: the Connector's own envelope when it sent one,
/// otherwise the code, the sentence and the data, with what to do next in MCP terms.
pub fn refusal(e: CallError, native: bool) -> Envelope {
    if let Some(raw) = &e.editor_envelope {
        return Envelope::from_connector(raw, "request rejected");
    }
    let mut message = e.message.clone();
    let mut hint = None;
    match e.code.as_str() {
        "TOOL_NOT_FOUND" if !native => message.push_str(" Use tool_search to find tools."),
        "INVALID_ARGUMENT" => {
            let see = if native {
                "the tool's input schema in tools/list".to_string()
            } else {
                let tool = e.data["tool"].as_str().unwrap_or_default();
                let action = e.data["contract"]
                    .as_str()
                    .and_then(|c| c.split_once('/'))
                    .map(|(_, a)| format!(",\"action\":{a:?}"))
                    .unwrap_or_default();
                format!("tool_describe {{\"name\":{tool:?}{action}}}")
            };
            message = format!("{message}; see {see}");
        }
        "CATALOG_STALE" => {
            hint = Some(if native {
                "The Editor's tool catalog changed and has been reloaded; read tools/list again, \
                 then repeat the call."
            } else {
                "The Editor's tool catalog changed and has been reloaded; check the contract with \
                 tool_describe, then repeat the call."
            })
        }
        "APPROVAL_DENIED" => hint = Some("Do not retry unless the user asks for it."),
        _ => {}
    }
    let mut data = e.data.clone();
    if e.code == "INVALID_OPERATION_ID" {
        data["pointer"] = json!(format!("/{}", native::OPERATION_ID_ARG));
    }
    let mut env = Envelope::error(&e.code, message).with_suggestions(e.suggestions.clone());
    if data.as_object().is_some_and(|o| !o.is_empty()) {
        env = env.with_data(data);
    }
    if let ErrorKind::OutcomeUnknown { operation_id } = &e.kind {
        env = env
            .with_operation_id(operation_id.clone())
            .with_hint(format!(
                "Do not change the call. Once the Editor is back, repeat the identical call with \
             operation_id {operation_id:?}: the Editor's ledger replays the result if it ran, or \
             reports that it did not."
            ));
    }
    if let Some(h) = hint {
        env = env.with_hint(h);
    }
    env
}

/// The Connector answers `COMMAND_LOCK_TIMEOUT` before it runs anything: another command held
/// its one command lock for the whole wait (a long synchronous tool, or a handler that never
/// finishes and keeps the lock until Unity reloads).
const LOCK_TIMEOUT_HINT: &str = "Nothing ran: another command held the Editor's command lock \
    for the Connector's whole wait (120 s), such as a long synchronous tool or a hung one. The \
    identical call is safe to repeat later; if this keeps happening, the blocking command ends \
    only when Unity reloads its scripts or restarts.";

/// The Connector's ledger holds the operation as `running`: it runs now, or it ran and its
/// result could not be recorded (the record then stays until a reload or for an hour).
const IN_PROGRESS_HINT: &str = "The Editor's ledger has this operation as still running: \
    either it is running now, or it ran and the Editor failed to record its result, and then the \
    record stays until Unity reloads its scripts or an hour passes. Check in the Editor whether \
    the change happened before anything else; do not repeat it under a new operation id unless \
    you know it did not run.";

/// Words a refusal caused by strings the Connector read as dates, for an agent: what happened,
/// that repeating the call cannot help, and what may.
fn explain_date_like(env: &mut Envelope, strings: &[DateLikeString]) {
    let named: Vec<String> = strings
        .iter()
        .map(|d| format!("{:?} at {}", d.value, d.pointer))
        .collect();
    env.agent_hint = Some(format!(
        "The Editor read {} as a date, not as text: the Unity Connector turns every argument \
         string shaped like an ISO date-time (or /Date(...)/) into a date before it checks the \
         arguments, so a string parameter refuses it and a date-time parameter refuses every \
         value. Repeating the call unchanged fails the same way. If the text is yours to choose, \
         change it so it is no longer a bare date-time (for example a space instead of the 'T', \
         or a word before it); otherwise no client can pass this value to this tool.",
        named.join(", ")
    ));
    let list: Vec<Value> = strings.iter().map(DateLikeString::to_json).collect();
    let data = env.data.get_or_insert_with(|| json!({}));
    if let Some(d) = data.as_object_mut() {
        d.insert("date_like_strings".into(), Value::Array(list));
    }
}

impl AgentCalls {
    pub fn timeout(&self) -> Duration {
        self.session.timeout()
    }

    /// Runs one `tool_call` (or native tool call). Every outcome, refusals included, is an
    /// answer the model can read.
    pub async fn call(&self, a: CallArgs, cx: CallContext) -> Answer {
        let CallContext {
            progress,
            approver,
            tasks: tasks_extension,
            native,
        } = cx;
        let progress = progress.as_ref();
        if a.name == TASK_POLL_NAME {
            return match self.poll_task(&a, progress).await {
                Ok(answer) => answer,
                Err(refused) => Answer::Made(refused),
            };
        }
        let is_native = native.is_some();
        let any = AnyTool {
            allow_arbitrary_code: self.allow_arbitrary_code,
            pointer_prefix: "/arguments",
        };
        let scope: Box<dyn ToolScope> = match native {
            Some(n) => Box::new(NativeScope {
                call: n,
                allow_arbitrary_code: self.allow_arbitrary_code,
            }),
            None => Box::new(any),
        };
        let request = CallRequest {
            tool: a.name,
            arguments: a.arguments,
            operation_id: a.operation_id,
            approval_token: a.approval_token,
            client_kind: ClientKind::Mcp,
        };
        let quiet = |_: AliveEvent<'_>| {};
        let outcome = self
            .session
            .call(request, scope.as_ref(), &approver, &quiet)
            .await;
        match outcome {
            Err(e) => Answer::Made(refusal(e, is_native)),
            Ok(CallOutcome::ApprovalPending(answer)) => answer,
            Ok(CallOutcome::Answered(done)) => self.answer(*done, tasks_extension, progress).await,
        }
    }

    /// An Editor answer as a tool result: a started job followed (task, or waited for with
    /// progress), anything else shaped.
    async fn answer(
        &self,
        mut done: EditorAnswer,
        tasks_extension: bool,
        progress: Option<&Progress>,
    ) -> Answer {
        let label = done.label();
        let op = done.operation_id.to_string();
        let safety = ResultSafety::from(&done.policy.safety);
        let raw = &done.envelope.raw;
        match &done.job {
            None => {}
            Some(Err(msg)) => {
                let env = Envelope::from_connector(raw, "running")
                    .with_operation_id(op)
                    .with_hint(format!("The job cannot be followed: {msg}"));
                return Answer::Made(env);
            }
            Some(Ok(id)) => {
                if tasks_extension {
                    let t = task_ext::task(
                        id,
                        TaskStatus::Working,
                        id.c,
                        &format!("{label} started; poll tasks/get"),
                    );
                    return Answer::Task(CreateTaskResult::new(t));
                }
                let status = self.session.home().status_dir();
                let wait = TASK_INLINE_WAIT.min(self.timeout());
                return match wait_with_progress(&status, id, wait, progress).await {
                    Ok(state) => self.task_answer(id, &state, safety, &label).await,
                    Err(e) => Answer::Made(
                        Envelope::error("TASK_RESULT_UNREADABLE", e)
                            .with_data(json!({"task_id": id.encode()})),
                    ),
                };
            }
        }
        // The reply is moved, not copied: a large result is held once until shaping.
        let body = std::mem::take(&mut done.envelope.raw);
        let mut env =
            Envelope::from_connector_owned(body, &format!("{} completed", done.policy.tool));
        let uses_ledger = done.policy.uses_ledger();
        let renewed = done.events.contains(&CallEvent::ApprovalRenewed);
        let replayed = done.events.iter().find_map(|e| match e {
            CallEvent::Replayed { first_ran_at_ms } => Some(*first_ran_at_ms),
            _ => None,
        });
        let ambiguous = done.ambiguity.clone();
        let project_id = done.project_id.clone();
        if !done.date_like.is_empty() {
            explain_date_like(&mut env, &done.date_like);
        }
        if env.agent_hint.is_none() {
            env.agent_hint = match env.code.as_deref() {
                Some("COMMAND_LOCK_TIMEOUT") => Some(LOCK_TIMEOUT_HINT.into()),
                Some("OPERATION_IN_PROGRESS") => Some(IN_PROGRESS_HINT.into()),
                _ => None,
            };
        }
        drop(done);
        if uses_ledger {
            env = env.with_operation_id(op);
        }
        if let Some(first) = replayed {
            let at = task_ext::iso8601(first);
            env.replay =
                Some(json!({"replayed": true, "first_ran_at": at, "first_ran_at_ms": first}));
            env.agent_hint = Some(format!(
                "Nothing ran now: operation {} already ran at {at}, and this is the Editor's \
                 stored result of that run.",
                env.operation_id.as_deref().unwrap_or_default()
            ));
        }
        if let Some(a) = ambiguous {
            if env.agent_hint.is_none() {
                env.agent_hint = Some(a.message.clone());
            }
            env.ambiguous = Some(serde_json::to_value(&a).expect("an ambiguity serializes"));
        }
        if renewed && env.agent_hint.is_none() {
            env.agent_hint = Some(
                "The Editor reloaded after the approval; the unchanged operation was approved \
                 again and ran once."
                    .into(),
            );
        }
        // A token this session could not renew (issued in an earlier session, or made up): the
        // Editor refused it and nothing ran. The way forward is a fresh approval, which the
        // call without the token starts.
        if !env.success
            && env.code.as_deref() == Some("INVALID_APPROVAL_TOKEN")
            && env.agent_hint.is_none()
        {
            env.agent_hint = Some(format!(
                "Nothing ran: the Editor did not accept this approval token (tokens issued \
                 before a domain reload stop working). Repeat the call without {} to ask the \
                 user for a fresh approval; do not reuse the old token.",
                native::APPROVAL_TOKEN_ARG
            ));
        }
        self.shape(env, safety, &label, &project_id).await
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
        let label = label.to_string();
        let op = env.operation_id.clone();
        let op_for_error = op.clone();
        // Moved, not kept as a fallback: an unshaped result would skip credential screening,
        // and keeping it would hold a large result once more while it is shaped.
        let value = env.into_value();
        // A result within the inline cap never touches the disk, so it is shaped right here:
        // the hop to the blocking pool would cost more than the shaping. Larger ones may be
        // written to the result cache, which blocks.
        let inline = serialized_within(&value, cap.bytes());
        let run = move || {
            shape_owned(
                value,
                &ShapeContext {
                    safety,
                    cap,
                    store: &store,
                    project: &project,
                    label: &label,
                    operation_id: op.as_deref(),
                },
            )
        };
        let shaped = if inline {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
                .map_err(|_| "result shaping panicked".to_string())
        } else {
            tokio::task::spawn_blocking(run)
                .await
                .map_err(|e| e.to_string())
        };
        match shaped {
            Ok(s) => Answer::FromEditor(s),
            Err(e) => {
                tracing::error!("result shaping failed: {e}");
                let mut env = Envelope::error(
                    "RESULT_UNAVAILABLE",
                    "the Editor answered, but its result could not be prepared for you (an \
                     internal error, logged on the server's stderr); the call itself ran, so \
                     do not repeat a change: check the project's state instead",
                );
                if let Some(op) = op_for_error {
                    env = env.with_operation_id(op);
                }
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
        let project = match self.session.view_for_reading().await {
            Ok(v) => v.catalog().project_id.clone(),
            Err(_) => id.project_id.clone(),
        };
        if id.project_id != project {
            return Err(task_envelope(&id, &TaskState::NotFound));
        }
        let status = self.session.home().status_dir();
        let state = wait_with_progress(&status, &id, TASK_POLL_WAIT.min(self.timeout()), progress)
            .await
            .map_err(|e| {
                refusal(
                    CallError::unavailable(
                        "TASK_RESULT_UNREADABLE",
                        "result_unreadable",
                        e,
                        json!({"task_id": raw}),
                    ),
                    false,
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
        let status = self.session.home().status_dir();
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
        let status = self.session.home().status_dir();
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
        // The cancel is a call like any other: the same pipeline, the same rules.
        let mut arguments = Map::new();
        arguments.insert("action".into(), json!("cancel"));
        let request = CallRequest {
            tool: "run_tests".into(),
            arguments,
            operation_id: None,
            approval_token: None,
            client_kind: ClientKind::Mcp,
        };
        let scope = AnyTool {
            allow_arbitrary_code: false,
            pointer_prefix: "",
        };
        let quiet = |_: AliveEvent<'_>| {};
        let outcome = self
            .session
            .call(
                request,
                &scope,
                &AgentApprover::Token {
                    protocol: None,
                    why: TokenWhy::Internal,
                },
                &quiet,
            )
            .await
            .map_err(|e| ErrorData::internal_error(e.message, Some(e.data)))?;
        let CallOutcome::Answered(done) = outcome else {
            return Err(ErrorData::invalid_request(
                "cancelling this test run needs the user's approval; cancel it in the Unity Test \
                 Runner window",
                Some(json!({"taskId": raw})),
            ));
        };
        let env = &done.envelope;
        if !env.success {
            return Err(ErrorData::internal_error(
                format!(
                    "the Editor refused to cancel the test run: {}",
                    env.message.clone().unwrap_or_default()
                ),
                env.code.clone().map(|c| json!({"code": c})),
            ));
        }
        // The Connector cancels only a run it is executing now; it says so in `was_running`.
        let was_running = env
            .data()
            .and_then(|d| d.get("was_running"))
            .and_then(Value::as_bool);
        if was_running == Some(false) {
            return Err(ErrorData::invalid_request(
                "the Editor reports no test run in progress to cancel (the run may have finished, \
                 or it runs in an Editor instance this server does not follow); nothing was \
                 cancelled",
                Some(json!({"taskId": raw, "cancelled": false})),
            ));
        }
        Ok(())
    }

    /// Decodes a task id and checks it belongs to this project.
    async fn task_of(&self, raw: &str) -> Result<DurableTaskId, ErrorData> {
        let id = DurableTaskId::decode(raw).map_err(|e| {
            ErrorData::invalid_params(
                format!("taskId is not a task of this server: {e}"),
                Some(json!({"taskId": raw})),
            )
        })?;
        if let Ok(v) = self.session.view_for_reading().await
            && v.catalog().project_id != id.project_id
        {
            return Err(task_not_found(raw));
        }
        Ok(id)
    }
}

/// Whether `value` serializes to at most `cap` bytes, found without building the text: the
/// count stops at the first byte over, so a 50 MiB result costs no 50 MiB copy to measure.
fn serialized_within(value: &Value, cap: usize) -> bool {
    struct Budget(usize);
    impl std::io::Write for Budget {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = self
                .0
                .checked_sub(buf.len())
                .ok_or_else(|| std::io::Error::other("over the cap"))?;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Budget(cap), value).is_ok()
}

#[cfg(test)]
mod tests {
    use super::serialized_within;
    use serde_json::json;

    #[test]
    fn the_inline_size_check_is_exact_at_the_cap() {
        let v = json!({"a": "bc", "n": [1, 2]});
        let len = serde_json::to_vec(&v).unwrap().len();
        assert!(serialized_within(&v, len));
        assert!(!serialized_within(&v, len - 1));
        assert!(!serialized_within(&json!("x".repeat(1 << 20)), 1 << 20));
    }
}
