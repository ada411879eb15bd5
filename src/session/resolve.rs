//! Resolution: from a tool name and arguments to the catalog entries and the policy facts of
//! one call, once.
//!
//! Which tools a call may name is the front-end's business (every permitted tool for `call` and
//! `tool_call`; the listed profile for a native MCP tool), so it arrives as a [`ToolScope`].
//! Everything after the tool is found is the same for every caller: the action by name or alias,
//! the canonical action written back into the arguments, strict validation against that action's
//! input schema, then the resolved safety.

use super::error::CallError;
use super::validate::{self, Fault};
use super::view::CatalogView;
use crate::catalog::suggest::close_names;
use crate::policy::{self, CallPolicy};
use hera_connector_contract::catalog::{ActionEntry, ToolEntry};
use serde_json::{Map, Value, json};

/// Call controls some front-ends carry inside the arguments (native MCP tools declare
/// `operation_id` and `approval_token` as parameters).
#[derive(Debug, Default, Clone)]
pub struct Controls {
    pub operation_id: Option<String>,
    pub approval_token: Option<String>,
}

/// Which tools a call may name, and how it carries its controls.
pub trait ToolScope: Send + Sync {
    /// The tool `name` refers to in `view`, or why this caller may not call it.
    fn admit<'v>(&self, view: &'v CatalogView, name: &str) -> Result<&'v ToolEntry, CallError>;

    /// Removes the call controls from `arguments` (none by default).
    fn take_controls(
        &self,
        _tool: &ToolEntry,
        _arguments: &mut Map<String, Value>,
    ) -> Result<Controls, CallError> {
        Ok(Controls::default())
    }

    /// Where the tool arguments sit in the caller's request, for JSON pointers in faults.
    fn pointer_prefix(&self) -> &'static str {
        ""
    }
}

/// Every tool of the catalog, by name, alias or a unique case-insensitive match; tools that run
/// arbitrary code only with permission.
pub struct AnyTool {
    pub allow_arbitrary_code: bool,
    /// Pointer prefix of the arguments (`/arguments` inside `tool_call`).
    pub pointer_prefix: &'static str,
}

impl ToolScope for AnyTool {
    fn admit<'v>(&self, view: &'v CatalogView, name: &str) -> Result<&'v ToolEntry, CallError> {
        find_tool(view, name, self.allow_arbitrary_code)
    }
    fn pointer_prefix(&self) -> &'static str {
        self.pointer_prefix
    }
}

/// `ARBITRARY_CODE_PERMISSION_REQUIRED` for `tool`.
pub fn arbitrary_code_refused(tool: &str) -> CallError {
    CallError::input(
        "ARBITRARY_CODE_PERMISSION_REQUIRED",
        format!(
            "tool {tool:?} runs arbitrary code in the Editor and is disabled; the user must \
             restart the server with --allow-arbitrary-code (or HERA_MCP_ALLOW_ARBITRARY_CODE=1) \
             to use it"
        ),
    )
    .with_data(json!({"tool": tool}))
}

/// A tool by name, alias, or a unique case-insensitive match.
pub fn find_tool<'v>(
    view: &'v CatalogView,
    name: &str,
    allow_arbitrary_code: bool,
) -> Result<&'v ToolEntry, CallError> {
    let catalog = view.catalog();
    match catalog.find_tool(name) {
        Some(t) if t.is_arbitrary_code() && !allow_arbitrary_code => {
            Err(arbitrary_code_refused(&t.name))
        }
        Some(t) => Ok(t),
        None => {
            let names = catalog
                .tools
                .iter()
                .filter(|t| allow_arbitrary_code || !t.is_arbitrary_code())
                .flat_map(|t| {
                    std::iter::once(t.name.as_str()).chain(t.aliases.iter().map(String::as_str))
                });
            let close = close_names(name, names);
            let mean = if close.is_empty() {
                String::new()
            } else {
                format!("; did you mean {}?", close.join(", "))
            };
            let mut e = CallError::input(
                "TOOL_NOT_FOUND",
                format!("tool {name:?} was not found{mean}"),
            )
            .with_data(json!({"tool": name, "did_you_mean": close}));
            e.suggestions = close;
            Err(e)
        }
    }
}

/// An action of `tool` by canonical name or alias (case-insensitive).
pub fn find_action<'t>(
    tool: &'t ToolEntry,
    action: &str,
    pointer: &str,
) -> Result<&'t ActionEntry, CallError> {
    tool.action(action).ok_or_else(|| {
        let names = tool.actions.iter().flat_map(|a| {
            std::iter::once(a.name.as_str()).chain(a.aliases.iter().map(String::as_str))
        });
        let close = close_names(action, names);
        let available: Vec<&str> = tool.actions.iter().map(|a| a.name.as_str()).collect();
        let mut e = CallError::input(
            "ACTION_NOT_FOUND",
            if available.is_empty() {
                format!(
                    "tool {:?} has no actions; call it without \"action\"",
                    tool.name
                )
            } else {
                format!(
                    "action {action:?} was not found for tool {:?}; available: {}",
                    tool.name,
                    available.join(", ")
                )
            },
        )
        .with_data(
            json!({"tool": tool.name, "action": action, "available_actions": available,
            "did_you_mean": close, "pointer": pointer}),
        );
        e.suggestions = close;
        e
    })
}

/// One resolved call: the entries it names and its policy facts.
pub struct Resolved<'v> {
    pub tool: &'v ToolEntry,
    pub action: Option<&'v ActionEntry>,
    pub policy: CallPolicy,
    pub controls: Controls,
}

impl Resolved<'_> {
    /// What the call's contract is made of: if this is equal before and after a catalog
    /// change, the call means the same thing in both.
    pub fn contract(&self) -> Value {
        json!({
            "tool": self.tool.name,
            "action": self.action.map(|a| &a.name),
            "input_schema": self.action.map(|a| &a.input_schema).unwrap_or(&self.tool.input_schema),
            "safety": serde_json::to_value(&self.policy.safety).unwrap_or(Value::Null),
        })
    }
}

/// `tool/action`, or the tool alone.
pub fn label(policy: &CallPolicy) -> String {
    match &policy.action {
        Some(a) => format!("{}/{a}", policy.tool),
        None => policy.tool.clone(),
    }
}

/// Resolves `name` with `arguments` (whose `action` is rewritten to its canonical name) in
/// `view`, validating the arguments against the resolved contract.
pub fn resolve<'v>(
    view: &'v CatalogView,
    scope: &dyn ToolScope,
    name: &str,
    arguments: &mut Map<String, Value>,
) -> Result<Resolved<'v>, CallError> {
    let tool = scope.admit(view, name)?;
    let controls = scope.take_controls(tool, arguments)?;
    let prefix = scope.pointer_prefix();
    let action = match arguments.get("action") {
        Some(Value::String(a)) if !tool.actions.is_empty() => {
            Some(find_action(tool, a, &format!("{prefix}/action"))?)
        }
        _ => None,
    };
    if let Some(a) = action {
        arguments.insert("action".into(), Value::String(a.name.clone()));
    }
    check_arguments(view, tool, action, arguments, prefix)?;
    let policy = policy::resolve_entry(tool, action.map(|a| a.name.as_str()), arguments)
        .map_err(|e| CallError::input(e.code(), e.to_string()))?;
    Ok(Resolved {
        tool,
        action,
        policy,
        controls,
    })
}

/// Validates `arguments` against the resolved contract: the action's input schema, or the
/// tool's when the call names no action. Older Connectors publish action schemas without the
/// `action` property; then `action` is left out of the validated copy only.
fn check_arguments(
    view: &CatalogView,
    tool: &ToolEntry,
    action: Option<&ActionEntry>,
    arguments: &Map<String, Value>,
    prefix: &str,
) -> Result<(), CallError> {
    let (key, schema) = match action {
        Some(a) => (format!("{}/{}", tool.name, a.name), &a.input_schema),
        None => (tool.name.clone(), &tool.input_schema),
    };
    let compiled = view.validators.get(&key, schema);
    let validator = match compiled.as_ref() {
        Ok(v) => v,
        Err(e) => {
            // The Connector validates again; a schema we cannot compile is its contract's bug,
            // not the caller's, so the call goes through and the Connector decides.
            tracing::warn!(schema = %key, "skipping local validation: {e}");
            return Ok(());
        }
    };
    let declares_action = schema
        .get("properties")
        .and_then(|p| p.get("action"))
        .is_some();
    let faults: Vec<Fault> = if action.is_some() && !declares_action {
        let mut copy = arguments.clone();
        copy.remove("action");
        validate::check(validator, schema, &Value::Object(copy), prefix)
    } else {
        let instance = Value::Object(arguments.clone());
        validate::check(validator, schema, &instance, prefix)
    };
    if faults.is_empty() {
        return Ok(());
    }
    Err(invalid_arguments(&tool.name, &key, &faults))
}

/// `INVALID_ARGUMENT` for faults in a call's arguments, checked against `contract`.
pub fn invalid_arguments(tool: &str, contract: &str, faults: &[Fault]) -> CallError {
    let first = &faults[0];
    let at = if first.pointer.is_empty() {
        "/"
    } else {
        &first.pointer
    };
    CallError::input(
        "INVALID_ARGUMENT",
        format!(
            "invalid argument at {at}: {}. The arguments must match the input schema of {contract}",
            first.message
        ),
    )
    .with_data(json!({
        "tool": tool,
        "contract": contract,
        "pointer": first.pointer,
        "message": first.message,
        "expected": first.expected,
        "faults": faults.iter().map(Fault::to_json).collect::<Vec<_>>(),
    }))
}
