//! `POST /commands` (§2.6): several commands under one lock acquisition.
//!
//! Batch items carry no `meta`, so they get no protocol or catalog check, no ledger and no
//! approval; that is why any item that would need approval fails the whole batch up front
//! (the pre-scan). The reply uses PascalCase keys (`Results`, `Completed`, `Failed`) because
//! the C# class has no JSON attributes, and `success` is `true` even when items failed.
//! `Completed` is the number of items that ran (failed ones included), `Failed` the number of
//! error envelopes among them.

use crate::catalog::{self, ActionResolution};
use crate::connector::Connector;
use crate::envelope::{Envelope, Reply};
use crate::faults::FaultKind;
use crate::handlers::ReloadAsk;
use crate::http::{AfterWrite, Answer, ParsedRequest};
use crate::pipeline;
use hera_connector_contract::wire::MAX_BATCH_ITEMS;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Instant;

/// Newtonsoft's conversion of an option value to `bool`: booleans, the strings
/// `"true"`/`"false"` (any case) and numbers convert; `null` and other strings throw, which
/// the Connector answers with `HTTP_INTERNAL_ERROR`.
fn option_bool(
    options: Option<&Map<String, Value>>,
    key: &str,
    default: bool,
) -> Result<bool, String> {
    match options.and_then(|o| o.get(key)) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
        Some(Value::Number(n)) => Ok(n.as_f64().is_some_and(|f| f != 0.0)),
        Some(other) => Err(format!(
            "options.{key} cannot be converted to a boolean: {other}"
        )),
    }
}

struct Item {
    /// `None` when the item has no `command` (or a `null` one).
    command: Option<String>,
    params: Map<String, Value>,
}

/// The safety an item would run with. An item whose validation fails is skipped (it fails when
/// it runs, with its own error); an unknown action is judged by the tool-level contract and
/// safety, as the Connector's pre-scan does.
fn prescan_safety(c: &Connector, item: &Item) -> Option<hera_connector_contract::catalog::Safety> {
    let command = item.command.as_deref()?;
    if command == "list" {
        return None;
    }
    let tools = c.tools.lock().expect("tools");
    let tool = tools.get(command)?;
    let (action, params) = match catalog::resolve_action(tool, &item.params) {
        ActionResolution::Action { name, params, .. } => (Some(name), params),
        ActionResolution::Default | ActionResolution::Unknown(_) => (None, item.params.clone()),
    };
    let entry = action.as_deref().and_then(|a| tool.action(a));
    let normalized = catalog::validate(tool, entry, &params).ok()?;
    catalog::effective_safety(tool, action.as_deref(), &normalized).ok()
}

/// Runs one item (steps 6–11 without a request context); notes a reload the Editor asks for.
fn run_item(c: &Connector, command: &str, item: &Item, reload: &mut Option<ReloadAsk>) -> Reply {
    let started = Instant::now();
    let envelope = if command == "list" {
        crate::list::answer(c, &item.params)
    } else {
        match pipeline::resolve(c, command, &item.params) {
            Err((e, true)) => return Reply::Envelope(e),
            Err((e, false)) => e,
            Ok(r) => {
                let ran = pipeline::execute(c, &r);
                if ran.reload.is_some() {
                    *reload = reload.or(ran.reload);
                }
                match ran.reply {
                    Reply::Envelope(e) => e,
                    verbatim => return verbatim,
                }
            }
        }
    };
    Reply::Envelope(envelope.with_total_ms(started.elapsed().as_millis() as i64))
}

/// The `/commands` endpoint.
pub async fn commands(c: &Arc<Connector>, req: ParsedRequest) -> Answer {
    let Some(Value::Array(raw_items)) = req.object.get("commands") else {
        return Answer::http_error(
            400,
            "HTTP_MISSING_COMMANDS",
            "The request has no \"commands\" array.",
        );
    };
    if raw_items.len() > MAX_BATCH_ITEMS {
        return Answer::http_error(
            400,
            "HTTP_BATCH_TOO_LARGE",
            format!(
                "A batch holds at most {MAX_BATCH_ITEMS} commands; this one has {}. Split it.",
                raw_items.len()
            ),
        );
    }
    let mut items = Vec::with_capacity(raw_items.len());
    for v in raw_items {
        let Value::Object(o) = v else {
            return Answer::http_error(
                400,
                "HTTP_INVALID_JSON",
                "Every batch item must be a JSON object.",
            );
        };
        items.push(Item {
            command: match o.get("command") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => Some(other.to_string()),
            },
            params: o
                .get("params")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        });
    }
    let options = req.object.get("options").and_then(Value::as_object);
    let (fail_fast, _atomic) = match (
        option_bool(options, "fail_fast", true),
        option_bool(options, "atomic", false),
    ) {
        (Ok(f), Ok(a)) => (f, a),
        (Err(e), _) | (_, Err(e)) => {
            return Answer::http_error(
                500,
                "HTTP_INTERNAL_ERROR",
                format!("Request handling error: {e}"),
            );
        }
    };
    let Some(_slot) = c.enqueue() else {
        return crate::http::queue_full();
    };
    if !c.legacy() {
        for item in &items {
            if prescan_safety(c, item).is_some_and(|s| s.requires_confirmation) {
                return Answer::ok(
                    Envelope::error(
                        "APPROVAL_REQUIRED",
                        format!(
                            "Batch item '{}' requires individual approval.",
                            item.command.as_deref().unwrap_or_default()
                        ),
                    )
                    .to_text(),
                );
            }
        }
    }
    let wait = c.settings.lock_wait;
    if c.take_fault(FaultKind::Lock, "/commands", None).is_some() {
        return Answer::ok(pipeline::lock_timeout(wait).to_text());
    }
    let Ok(lock) = tokio::time::timeout(wait, c.command_lock.lock()).await else {
        return Answer::ok(pipeline::lock_timeout(wait).to_text());
    };
    let mut results = Vec::with_capacity(items.len());
    let mut failed = 0u32;
    let mut reload = None;
    for item in &items {
        let Some(command) = item.command.as_deref() else {
            // The handler lookup throws on a null name: the whole batch becomes an
            // INTERNAL_ERROR, after the earlier items already ran.
            drop(lock);
            return Answer::Json {
                status: 200,
                body: pipeline::internal_error("Value cannot be null. (Parameter 'key')").to_text(),
                after: AfterWrite {
                    responded: None,
                    reload,
                },
            };
        };
        let reply = run_item(c, command, item, &mut reload);
        // Only an error envelope counts as failed (a tool's raw `{"success":false}` does not).
        let bad = reply.is_error_response();
        results.push(reply.text());
        if bad {
            failed += 1;
            if fail_fast {
                break;
            }
        }
    }
    // `Completed` counts the items that ran, failed ones included.
    let completed = results.len();
    drop(lock);
    Answer::Json {
        status: 200,
        body: format!(
            "{{\"success\":true,\"Results\":[{}],\"Completed\":{completed},\"Failed\":{failed}}}",
            results.join(",")
        ),
        after: AfterWrite {
            responded: None,
            reload,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn option_conversion() {
        let o = json!({"a": "TRUE", "b": 0, "c": null, "d": "yes", "e": false});
        let o = o.as_object();
        assert_eq!(option_bool(o, "a", false), Ok(true));
        assert_eq!(option_bool(o, "b", true), Ok(false));
        assert!(option_bool(o, "c", true).is_err());
        assert!(option_bool(o, "d", true).is_err());
        assert_eq!(option_bool(o, "e", true), Ok(false));
        assert_eq!(option_bool(o, "missing", true), Ok(true));
        assert_eq!(option_bool(None, "fail_fast", true), Ok(true));
    }
}
