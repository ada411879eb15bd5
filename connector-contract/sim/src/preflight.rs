//! `POST /approval/preflight` (§5.2, §5.3): checks a proposed operation and issues a token
//! bound to it.
//!
//! It runs outside the command lock (a long command must not block approvals) and never
//! touches the ledger. The binding's `arguments_hash` is computed over the **raw** `arguments`
//! text, so the later `/command` must send byte-identical params; validation and safety use
//! the normalized copy, like `/command` does. The summary's `target` is read from the raw
//! `arguments` too, so aliases, positional `args` and uncoerced values show as they were sent.
//!
//! `operation_id`, `tool` and `action` are read the way Newtonsoft's `Value<string>()` reads a
//! token: a number or boolean becomes its text, and an object or array throws, which the
//! Connector answers `INTERNAL_ERROR`.

use crate::approval::Binding;
use crate::catalog;
use crate::connector::Connector;
use crate::envelope::Envelope;
use crate::http::{Answer, ParsedRequest};
use crate::pipeline::{internal_error, raw_member_hash};
use hera_connector_contract::operation::OperationId;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The argument keys whose value names the target in an approval summary, in priority order.
const TARGET_KEYS: [&str; 6] = ["path", "target", "id", "name", "asset_path", "package"];

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What the human is asked to approve: the first target-like argument as JSON text, else the
/// argument names, else the project itself.
pub fn summary_target(args: &Map<String, Value>) -> String {
    for key in TARGET_KEYS {
        if let Some(v) = args.get(key) {
            return serde_json::to_string(v).expect("a Value always serializes");
        }
    }
    if args.is_empty() {
        return "current Unity project".to_string();
    }
    let mut keys: Vec<&str> = args.keys().map(String::as_str).collect();
    keys.sort_by(|a, b| hera_connector_contract::canonical::cmp_utf16(a, b));
    format!("parameters: {}", keys.join(","))
}

fn refuse(e: Envelope) -> Answer {
    Answer::ok(e.to_text())
}

/// A request member as `Value<string>()` reads it: `Ok(None)` for absent or null, the text of a
/// string, number or boolean (.NET writes `True`/`False`), `Err` for an object or array.
fn member_text(o: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::Bool(b)) => Ok(Some(if *b { "True" } else { "False" }.to_string())),
        Some(other) => Err(format!(
            "Cannot cast {} to string ({key}).",
            if other.is_array() {
                "JArray"
            } else {
                "JObject"
            }
        )),
    }
}

/// The `/approval/preflight` endpoint.
pub async fn preflight(c: &Arc<Connector>, req: ParsedRequest) -> Answer {
    let Some(_slot) = c.enqueue() else {
        return crate::http::queue_full();
    };
    let bad = |what: &str| {
        refuse(Envelope::error(
            "INVALID_APPROVAL_PREFLIGHT",
            format!(
                "Invalid approval preflight: {what}. Send {{\"operation_id\",\"tool\",\"action\"?,\"arguments\":{{…}}}}."
            ),
        ))
    };
    let o = &req.object;
    // `operation_id` and `tool` are read first; `action` only once the tool is known.
    let (operation_id, tool_name) = match (member_text(o, "operation_id"), member_text(o, "tool")) {
        (Ok(op), Ok(tool)) => (op, tool),
        (Err(e), _) | (_, Err(e)) => return refuse(internal_error(e)),
    };
    let Some(operation_id) = operation_id.and_then(|s| OperationId::parse(&s).ok()) else {
        return bad("operation_id must be 8-128 letters, digits, '_' or '-'");
    };
    let Some(tool_name) = tool_name.filter(|s| !s.trim().is_empty()) else {
        return bad("tool is missing");
    };
    let Some(arguments) = o.get("arguments").and_then(Value::as_object) else {
        return bad("arguments must be a JSON object");
    };
    let tools = c.tools.lock().expect("tools");
    let Some(tool) = tools.get(tool_name.as_str()) else {
        return refuse(Envelope::error(
            "UNKNOWN_TOOL",
            format!("Tool not found: {tool_name}"),
        ));
    };
    // 3. The action: request `action`, else `arguments.action`; both given must agree.
    let normalize = |v: &Value| -> Option<String> {
        let t = text_of(v).trim().to_lowercase();
        if t.is_empty() {
            return None;
        }
        Some(tool.action(&t).map(|a| a.name.clone()).unwrap_or(t))
    };
    let request_action = match member_text(o, "action") {
        Ok(a) => a,
        Err(e) => return refuse(internal_error(e)),
    };
    let from_request = request_action.map(|a| normalize(&Value::String(a)));
    let from_args = arguments
        .get("action")
        .filter(|v| !v.is_null())
        .map(normalize);
    let action = match (from_request, from_args) {
        (Some(r), Some(a)) if r != a => {
            return refuse(Envelope::error(
                "APPROVAL_MISMATCH",
                "Approval action does not match the request arguments.",
            ));
        }
        (Some(r), _) => r,
        (None, a) => a.flatten(),
    };
    // 4. A named action the tool does not have.
    let entry = match action.as_deref() {
        Some(a) => match tool.action(a) {
            Some(e) => Some(e),
            None if !tool.actions.is_empty() => {
                return refuse(Envelope::error(
                    "UNKNOWN_ACTION",
                    format!("Unknown action: {a}"),
                ));
            }
            None => None,
        },
        None => None,
    };
    let action = entry.map(|e| e.name.clone());
    // 5. Validate a normalized copy.
    let mut copy = arguments.clone();
    if let Some(a) = &action {
        copy.insert("action".into(), json!(a));
    }
    let normalized = match catalog::validate(tool, entry, &copy) {
        Ok(n) => n,
        Err(f) => return refuse(Envelope::error(&f.code, f.message).with_data(f.data)),
    };
    // 6. Safety.
    let safety = match catalog::effective_safety(tool, action.as_deref(), &normalized) {
        Ok(s) => s,
        Err(e) => return refuse(internal_error(e)),
    };
    if !safety.requires_confirmation {
        return refuse(Envelope::error(
            "APPROVAL_NOT_REQUIRED",
            "This operation does not require approval; send it without a token.",
        ));
    }
    // 7. Issue.
    let binding = Binding {
        operation_id: operation_id.to_string(),
        tool: tool.name.clone(),
        action: action.clone(),
        arguments_hash: raw_member_hash(&req.text, "arguments", c.quirks().zone),
        risk_class: safety.risk_class.as_str().to_string(),
        project_id: c.settings.project_id.clone(),
    };
    let tool_name = tool.name.clone();
    drop(tools);
    let now = c.clock.now_ms();
    let (token, claims) = c.with_domain(|d| d.approval.issue(&binding, now));
    let data = json!({
        "token": token,
        "operation_id": binding.operation_id,
        "expires_at_ms": claims.expires_at_ms,
        "summary": {
            "tool": tool_name,
            "action": action,
            // The raw arguments, as the Connector reads them (not the normalized copy).
            "target": summary_target(arguments),
            "side_effect": safety.side_effect_scope,
            "reversible": safety.reversible,
            "may_reload_domain": safety.may_reload_domain,
            "external_impact": safety.risk_class.external_impact(),
            "operation_id": binding.operation_id,
        }
    });
    Answer::ok(Envelope::success("Approval preflight", Some(data)).to_text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        let m = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            summary_target(&m(
                json!({"action":"close","path":"Assets/Scenes/Level2.unity"})
            )),
            "\"Assets/Scenes/Level2.unity\""
        );
        assert_eq!(summary_target(&m(json!({"id": 5, "name": "x"}))), "5");
        assert_eq!(
            summary_target(&m(json!({"clear": true, "action": "x"}))),
            "parameters: action,clear"
        );
        assert_eq!(summary_target(&Map::new()), "current Unity project");
    }
}
