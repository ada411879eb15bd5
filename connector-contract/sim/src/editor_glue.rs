//! Calling the in-memory Editor model from the core: context conversion and the router's
//! reading of a handler result (§2.5 step 11).

use crate::editor::{Editor, HandlerOutcome, InvokeContext, ReloadReason, ReloadRequest};
use crate::envelope::{Envelope, Reply};
use crate::handlers::{Call, EditorContext, Ran, ReloadAsk, label};
use serde_json::{Map, Value};

fn ictx(ctx: &EditorContext) -> InvokeContext<'_> {
    InvokeContext {
        port: ctx.port,
        project_id: &ctx.project_id,
        pid: ctx.pid,
        status_dir: &ctx.status_dir,
        now_ms: ctx.now_ms,
    }
}

/// The router's reading of a handler result (§2.5 step 11): envelopes keep their shape and
/// get tool timings, `null` becomes "completed", a throw becomes `TOOL_ACTION_FAILED` /
/// `TOOL_FAILED`, anything else is sent verbatim.
pub fn reply_of(
    tool: &str,
    action: Option<&str>,
    outcome: HandlerOutcome,
    timings: Option<Map<String, Value>>,
) -> Reply {
    use HandlerOutcome as H;
    let name = label(tool, action);
    let mut envelope = match outcome {
        H::Success { message, data } => Envelope::success(message, data),
        H::Error {
            code,
            message,
            data,
        } => {
            let mut e = Envelope::error(&code, message);
            e.data = data;
            e
        }
        H::Raw(Value::Null) | H::Completed => Envelope::success(format!("{name} completed"), None),
        H::Raw(v) => {
            return Reply::Verbatim(serde_json::to_string(&v).expect("a Value always serializes"));
        }
        H::Threw(msg) => Envelope::error(
            if action.is_some() {
                "TOOL_ACTION_FAILED"
            } else {
                "TOOL_FAILED"
            },
            format!("{name} failed: {msg}"),
        ),
    };
    envelope.timings = timings;
    Reply::Envelope(envelope)
}

/// The heartbeat states the Connector forces before `reloading` for this kind of reload.
fn ask(r: &ReloadRequest) -> ReloadAsk {
    let first_state = if r.reason == ReloadReason::EnterPlayMode {
        Some("entering_playmode")
    } else if r.compile {
        Some("compiling")
    } else {
        None
    };
    ReloadAsk { first_state }
}

/// Runs one validated call on the Editor.
pub fn invoke(ed: &mut Editor, call: &Call, ctx: &EditorContext) -> Ran {
    let inv = ed.invoke(&call.tool, call.action.as_deref(), &call.params, &ictx(ctx));
    let mut reply = reply_of(&call.tool, call.action.as_deref(), inv.outcome, inv.timings);
    if let (Some(h), Reply::Envelope(e)) = (inv.agent_hint, &mut reply)
        && e.success
    {
        e.agent_hint = Some(h);
    }
    Ran {
        reply,
        reload: inv.reload.map(|r| ask(&r)),
        hold: (inv.hold_ms > 0).then(|| std::time::Duration::from_millis(inv.hold_ms as u64)),
    }
}

/// Completes due background jobs; may ask for a reload (a package change finished).
pub fn tick(ed: &mut Editor, ctx: &EditorContext) -> Option<ReloadAsk> {
    ed.tick(&ictx(ctx)).map(|r| ask(&r))
}

/// Tells the Editor a domain reload finished (jobs in flight are interrupted or resumed).
pub fn domain_reloaded(ed: &mut Editor, ctx: &EditorContext) {
    ed.on_domain_reload(&ictx(ctx))
}
