//! Action resolution, connector-contract/README.md §2.5 step 7 (and the corrected condition in §14.1 #7).

use super::validate::{ValidationFailure, token_text};
use hera_connector_contract::catalog::ToolEntry;
use serde_json::{Map, Value, json};

/// What the router does with a call before validation.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionResolution {
    /// An action of the tool was named. `params` is the request's params with `action` set to
    /// the canonical name (step 8); when the name came from `args[0]`, `args` is left as is and
    /// the validator skips `args[0]`.
    Action {
        name: String,
        from_args: bool,
        params: Map<String, Value>,
    },
    /// No action applies: the tool's default handler takes the call, validated against the
    /// tool-level schema, with `args[0]` (if any) as an ordinary positional.
    Default,
    /// `UNKNOWN_ACTION`, message `Unknown action: <a>`,
    /// `data {"path":"/action","expected":[sorted action names],"actual":<a>}`.
    Unknown(ValidationFailure),
}

/// Resolves the action of a call to `tool`. Every built-in tool has a default handler, and a
/// custom tool is assumed to have one too.
pub fn resolve_action(tool: &ToolEntry, params: &Map<String, Value>) -> ActionResolution {
    resolve_action_with(tool, params, true)
}

/// The candidate is `params.action`, else `args[0]`, lower-cased. A candidate that names no
/// action is `UNKNOWN_ACTION` only when the tool has actions and either the candidate came from
/// an `action` key or the tool has no default handler; otherwise the default handler runs.
pub(crate) fn resolve_action_with(
    tool: &ToolEntry,
    params: &Map<String, Value>,
    has_default_handler: bool,
) -> ActionResolution {
    let from_key = params
        .get("action")
        .filter(|v| !v.is_null())
        .map(token_text)
        .filter(|s| !s.trim().is_empty());
    let (candidate, from_args) = match from_key {
        Some(c) => (c, false),
        None => match params
            .get("args")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            Some(first) if !first.is_null() && !token_text(first).trim().is_empty() => {
                (token_text(first), true)
            }
            _ => return ActionResolution::Default,
        },
    };
    let candidate = candidate.to_lowercase();
    if let Some(action) = tool.action(&candidate) {
        let mut params = params.clone();
        params.insert("action".into(), json!(action.name));
        return ActionResolution::Action {
            name: action.name.clone(),
            from_args,
            params,
        };
    }
    if !tool.actions.is_empty() && (!from_args || !has_default_handler) {
        let mut expected: Vec<&str> = tool.actions.iter().map(|a| a.name.as_str()).collect();
        expected.sort();
        return ActionResolution::Unknown(ValidationFailure {
            code: "UNKNOWN_ACTION".into(),
            message: format!("Unknown action: {candidate}"),
            data: json!({"path": "/action", "expected": expected, "actual": candidate}),
        });
    }
    ActionResolution::Default
}
