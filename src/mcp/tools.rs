//! The three compact tools as published in `tools/list`, and the server instructions.
//!
//! The list is fixed: it never depends on the Editor, so `tools/list` answers at once even when
//! no Editor runs (anchor weakness §10.7/§10.8). Annotations are truthful worst cases: search and
//! describe only read the cached catalog; `tool_call` can do anything the Editor can.

use super::envelope::{lookup_output_schema, output_schema};
use rmcp::model::Tool;
use serde_json::{Value, json};

pub const TOOL_SEARCH: &str = "tool_search";
pub const TOOL_DESCRIBE: &str = "tool_describe";
pub const TOOL_CALL: &str = "tool_call";

/// The reserved `tool_call` name that polls a pending long-running task.
pub const TASK_POLL_NAME: &str = "hera.task";

/// The `_meta` key under which a client may pass an approval token.
pub const APPROVAL_META_KEY: &str = "hera/approval_token";

/// Default and maximum number of `tool_search` hits.
pub const SEARCH_DEFAULT_LIMIT: u64 = 5;
pub const SEARCH_MAX_LIMIT: u64 = 100;

/// Teaches the workflow in a few lines; sent in `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str = "Unity Editor tools, reached in three steps. \
1) tool_search {query}: find tools and their actions. \
2) tool_describe {name, action}: read that action's exact input schema and safety. \
3) tool_call {name, arguments}: run it; arguments must match the schema (include \"action\"). \
Errors carry a code and say how to fix the call. APPROVAL_REQUIRED: show the summary to the user, \
then repeat the identical call with approval_token. data.retryable=true: retry after \
data.retry_after_ms. A pending task (data.task_id) is polled with tool_call {name:\"hera.task\", \
arguments:{task_id}}.";

/// The instructions of profile and full exposure, where each Editor tool is its own MCP tool.
pub const NATIVE_INSTRUCTIONS: &str = "Unity Editor tools, one MCP tool per Editor tool. \
Multi-action tools take \"action\"; arguments must match the tool's input schema. Errors carry a \
code and say how to fix the call. APPROVAL_REQUIRED: show the summary to the user; if they \
approve, repeat the identical call with approval_token set to data.token. data.retryable=true: \
retry after data.retry_after_ms. The list follows the Editor's catalog (tools/list_changed) and \
is empty until the Editor has been reached once.";

/// One compact tool. `annotations.title` is left out: the tool's own `title` says the same
/// (2025-06-18 clients read that), and every byte here is paid on every session.
fn tool(name: &str, title: &str, description: &str, input: Value, read_only: bool) -> Tool {
    let def = json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": input,
        "outputSchema": if read_only { lookup_output_schema() } else { output_schema() },
        "annotations": {
            "readOnlyHint": read_only,
            "destructiveHint": !read_only,
            "idempotentHint": read_only,
            "openWorldHint": !read_only
        }
    });
    serde_json::from_value(def).expect("a compact tool definition is a valid MCP Tool")
}

/// `tools/list` in compact exposure, sorted by name.
///
/// Descriptions are short on purpose: the workflow is taught once, in [`INSTRUCTIONS`], and
/// the details (schemas, safety) come from tool_describe when they are needed.
pub fn compact_tools() -> Vec<Tool> {
    vec![
        tool(
            TOOL_CALL,
            "Tool Call",
            "Run a Unity tool; arguments must match tool_describe's input schema. On \
             APPROVAL_REQUIRED ask the user, then repeat the call with approval_token. Poll a \
             task: name \"hera.task\", arguments {task_id}.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "arguments": {"type": "object"},
                    "operation_id": {"type": "string"},
                    "approval_token": {"type": "string", "minLength": 1}
                },
                "required": ["name"]
            }),
            false,
        ),
        tool(
            TOOL_DESCRIBE,
            "Tool Describe",
            "A Unity tool's actions and safety; with action, its input schema.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "action": {"type": "string", "minLength": 1},
                    "provenance": {"type": "boolean"}
                },
                "required": ["name"]
            }),
            true,
        ),
        tool(
            TOOL_SEARCH,
            "Tool Search",
            "Find Unity Editor tools and actions by task words.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": crate::search::MAX_QUERY_CHARS},
                    "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_MAX_LIMIT},
                    "profile": {"type": "string"}
                },
                "required": ["query"]
            }),
            true,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_are_truthful() {
        let tools = compact_tools();
        let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, [TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH]);
        for t in &tools {
            let a = t.annotations.as_ref().unwrap();
            let read = t.name != TOOL_CALL;
            assert_eq!(a.read_only_hint, Some(read));
            assert_eq!(a.destructive_hint, Some(!read));
            assert_eq!(a.idempotent_hint, Some(read));
            assert_eq!(a.open_world_hint, Some(!read));
            assert!(t.output_schema.is_some());
            assert!(t.description.as_ref().unwrap().len() < 1000);
        }
    }

    /// The Go adapter's compact list is 2,505 bytes; ours must stay below it.
    #[test]
    fn list_stays_small() {
        let bytes = serde_json::to_string(&json!({ "tools": compact_tools() }))
            .unwrap()
            .len();
        assert!(bytes < 2505, "compact tools/list grew to {bytes} bytes");
    }
}
