//! The Console window's log buffer, and the `console` (read/clear) and `log` (write) tools.
//!
//! Entries carry a monotonically increasing `index` that survives `clear`, so a `since` cursor
//! taken before a clear never re-reads or skips entries written after it.

use super::args::{Args, Fail};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub index: u64,
    /// `log`, `warning` or `error`.
    pub kind: String,
    pub message: String,
    pub stacktrace: String,
}

#[derive(Debug, Default)]
pub struct Console {
    pub entries: Vec<LogEntry>,
    next_index: u64,
}

/// The buffer keeps the most recent entries only, like Unity's console does in practice.
const CAPACITY: usize = 5_000;

impl Console {
    pub fn push(&mut self, kind: &str, message: &str, stacktrace: &str) -> u64 {
        let index = self.next_index;
        self.next_index += 1;
        self.entries.push(LogEntry {
            index,
            kind: kind.to_string(),
            message: message.to_string(),
            stacktrace: stacktrace.to_string(),
        });
        if self.entries.len() > CAPACITY {
            let excess = self.entries.len() - CAPACITY;
            self.entries.drain(..excess);
        }
        index
    }
    pub fn clear(&mut self) -> usize {
        let n = self.entries.len();
        self.entries.clear();
        n
    }
}

/// A stack trace in Unity's format for a log written from user code at `file:line`.
pub fn user_stack(method: &str, file: &str, line: u32) -> String {
    format!(
        "UnityEngine.Debug:Log (object)\n{method} (at {file}:{line})\nUnityEditor.EditorApplication:Internal_CallUpdateFunctions ()"
    )
}

fn trim_stack(stack: &str, mode: &str) -> String {
    match mode {
        "none" => String::new(),
        "full" => stack.to_string(),
        // "user": drop engine frames, keep the caller's own.
        _ => stack
            .lines()
            .filter(|l| !l.starts_with("UnityEngine.") && !l.starts_with("UnityEditor."))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

pub fn handle_console(
    ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    if a.flag("clear")? {
        ed.console.clear();
        // The real reply to a clear carries no `data` at all.
        return ok("Console cleared.", Value::Null);
    }
    let lines = a.i64("lines")?.unwrap_or(20);
    if lines < 0 {
        return Err(Fail::invalid("lines", "must be 0 (no cap) or positive"));
    }
    let since_given = a.has_key("since");
    let since = a.i64("since")?.unwrap_or(0).max(0) as usize;
    let stack_mode = a.str("stacktrace")?.unwrap_or("user").to_ascii_lowercase();
    let types: Vec<String> = a
        .str("type")?
        .unwrap_or("error,warning,log")
        .split(',')
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    if let Some(bad) = types
        .iter()
        .find(|t| !["error", "warning", "log"].contains(&t.as_str()))
    {
        return Err(Fail::invalid(
            "type",
            format!("unknown log type '{bad}' (use error, warning, log)"),
        ));
    }
    // Indices are positions in the Console's list (a clear starts it again at 0); a cursor
    // past the end restarts at 0.
    let count = ed.console.entries.len();
    let start = if since > count { 0 } else { since };
    let matching: Vec<(usize, &LogEntry)> = ed
        .console
        .entries
        .iter()
        .enumerate()
        .skip(start)
        .filter(|(_, e)| types.contains(&e.kind))
        .collect();
    let matched = matching.len();
    let cap = if lines == 0 { matched } else { lines as usize };
    let picked: &[(usize, &LogEntry)] = if since_given {
        &matching[..matched.min(cap)]
    } else {
        &matching[matched.saturating_sub(cap)..]
    };
    let truncated = picked.len() < matched;
    let last_cursor = match picked.last() {
        Some((i, _)) if since_given && truncated => i + 1,
        _ => count,
    };
    // Each entry is only the message text, shaped by `stacktrace`.
    let entries: Vec<Value> = picked
        .iter()
        .map(|(_, e)| {
            let text = match stack_mode.as_str() {
                "none" => e.message.lines().next().unwrap_or("").to_string(),
                _ => {
                    let st = trim_stack(&e.stacktrace, &stack_mode);
                    if st.is_empty() {
                        e.message.clone()
                    } else {
                        format!("{}\n{st}", e.message)
                    }
                }
            };
            json!(text)
        })
        .collect();
    let returned = entries.len();
    ok(
        format!("Retrieved {returned} entries."),
        json!({
            "entries": entries,
            "total_in_console": count,
            "matched": matched,
            "returned": returned,
            "since": since,
            "last_cursor": last_cursor,
            "truncated": truncated,
        }),
    )
}

pub fn handle_log(
    ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    let message = a.req_str("message")?;
    // The reply echoes the requested level lower-cased, aliases as given.
    let level = a.str("level")?.unwrap_or("log").to_ascii_lowercase();
    let kind = match level.as_str() {
        "" | "log" | "info" => "log",
        "warning" | "warn" => "warning",
        "error" | "err" => "error",
        other => return Err(Fail::invalid("level", format!("unknown level '{other}'"))),
    };
    ed.console.push(
        kind,
        message,
        &user_stack(
            "HeraAgent.LogToConsole:Invoke (Newtonsoft.Json.Linq.JObject)",
            "AgentConnector/Editor/Tools/LogToConsole.cs",
            31,
        ),
    );
    ok(
        format!("Logged {kind} message to the Unity console."),
        json!({ "message": message, "level": level }),
    )
}

#[cfg(test)]
mod tests {
    use super::super::HandlerOutcome;
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_console_log_read_filter_clear() {
        let mut h = Harness::new();
        h.ok("console", json!({"clear": true}));
        h.ok("log", json!({"message": "hello"}));
        h.ok("log", json!({"message": "careful", "level": "warn"}));
        h.ok("log", json!({"message": "boom", "level": "error"}));
        let d = h.ok("console", json!({"since": 0, "stacktrace": "none"}));
        assert_eq!(d["entries"], json!(["hello", "careful", "boom"]));
        assert_eq!(d["last_cursor"], 3);
        let errs = h.ok("console", json!({"type": "error", "stacktrace": "none"}));
        assert_eq!(errs["matched"], 1);
        assert_eq!(errs["entries"], json!(["boom"]));
        let last = h.ok("console", json!({"lines": 1, "stacktrace": "none"}));
        assert_eq!(last["entries"], json!(["boom"]));
        assert_eq!(last["truncated"], true);
        let first = h.ok("console", json!({"since": 0, "lines": 1}));
        assert_eq!(first["last_cursor"], 1);
        assert!(first["entries"][0].as_str().unwrap().starts_with("hello"));
        assert!(matches!(
            h.call("console", json!({"clear": true})).outcome,
            HandlerOutcome::Success { data: None, .. }
        ));
        assert_eq!(h.ok("console", json!({}))["total_in_console"], 0);
        assert_eq!(h.err("log", json!({})), "MISSING_PARAM");
    }
}
