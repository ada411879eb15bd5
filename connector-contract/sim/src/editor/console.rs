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
    pub fn next_index(&self) -> u64 {
        self.next_index
    }
    pub fn count(&self, kind: &str) -> usize {
        self.entries.iter().filter(|e| e.kind == kind).count()
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
        let cleared = ed.console.clear();
        return ok(
            format!(
                "Console cleared ({cleared} entr{}).",
                if cleared == 1 { "y" } else { "ies" }
            ),
            json!({ "cleared": cleared, "next_since": ed.console.next_index() }),
        );
    }
    let lines = a.i64("lines")?.unwrap_or(20);
    if lines < 0 {
        return Err(Fail::invalid("lines", "must be 0 (no cap) or positive"));
    }
    let since = a.i64("since")?.unwrap_or(0).max(0) as u64;
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
    let matching: Vec<&LogEntry> = ed
        .console
        .entries
        .iter()
        .filter(|e| e.index >= since && types.contains(&e.kind))
        .collect();
    let total = matching.len();
    // The newest `lines` entries, oldest first.
    let skip = if lines == 0 {
        0
    } else {
        total.saturating_sub(lines as usize)
    };
    let entries: Vec<Value> = matching[skip..]
        .iter()
        .map(|e| {
            let mut v = json!({ "index": e.index, "type": e.kind, "message": e.message });
            let st = trim_stack(&e.stacktrace, &stack_mode);
            if !st.is_empty() {
                v["stacktrace"] = json!(st);
            }
            v
        })
        .collect();
    let returned = entries.len();
    ok(
        format!(
            "{returned} of {total} console entr{} returned.",
            if total == 1 { "y" } else { "ies" }
        ),
        json!({
            "entries": entries,
            "returned": returned,
            "total": total,
            "truncated": returned < total,
            "counts": {
                "error": ed.console.count("error"),
                "warning": ed.console.count("warning"),
                "log": ed.console.count("log"),
            },
            "next_since": ed.console.next_index(),
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
    let kind = match a
        .str("level")?
        .unwrap_or("log")
        .to_ascii_lowercase()
        .as_str()
    {
        "" | "log" | "info" => "log",
        "warning" | "warn" => "warning",
        "error" | "err" => "error",
        other => return Err(Fail::invalid("level", format!("unknown level '{other}'"))),
    };
    let index = ed.console.push(
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
        json!({ "level": kind, "message": message, "index": index }),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_console_log_read_filter_clear() {
        let mut h = Harness::new();
        let start = h.ok("console", json!({"lines": 0}))["next_since"]
            .as_u64()
            .unwrap();
        h.ok("log", json!({"message": "hello"}));
        h.ok("log", json!({"message": "careful", "level": "warn"}));
        h.ok("log", json!({"message": "boom", "level": "error"}));
        let d = h.ok("console", json!({"since": start}));
        let msgs: Vec<_> = d["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["message"].clone())
            .collect();
        assert_eq!(msgs, vec![json!("hello"), json!("careful"), json!("boom")]);
        let errs = h.ok("console", json!({"since": start, "type": "error"}));
        assert_eq!(errs["total"], 1);
        assert_eq!(errs["entries"][0]["type"], "error");
        let last = h.ok("console", json!({"since": start, "lines": 1}));
        assert_eq!(last["entries"][0]["message"], "boom");
        assert_eq!(last["truncated"], true);
        let cleared = h.ok("console", json!({"clear": true}));
        assert!(cleared["cleared"].as_u64().unwrap() >= 3);
        assert_eq!(h.ok("console", json!({}))["total"], 0);
        assert_eq!(h.err("log", json!({})), "MISSING_PARAM");
    }
}
