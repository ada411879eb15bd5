//! The MCP Tasks extension (`io.modelcontextprotocol/tasks`) over durable file-bus jobs.
//!
//! When the client declares the extension, a `tool_call` that starts a test run or a package
//! job answers at once with `resultType: "task"`; the client polls `tasks/get`. The task id *is*
//! the durable task id (`hera_task_…`), so the state is read from the Editor's files and
//! survives restarts of this server; nothing is kept in memory. `tasks/cancel` asks the Editor
//! to cancel a test run (package jobs cannot be cancelled safely and say so); `tasks/update` has
//! nothing to accept.

use hera_connector_contract::task_id::DurableTaskId;
use rmcp::model::{Task, TaskStatus};

/// Suggested interval between `tasks/get` polls.
pub const POLL_INTERVAL_MS: u64 = 2000;

/// ISO 8601 UTC with milliseconds, from Unix ms. Out of chrono's range (never for a real
/// clock) it falls back to the epoch rather than failing a task answer.
pub fn iso8601(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// The task record of a job: created when the job started, updated when its result was written.
pub fn task(id: &DurableTaskId, status: TaskStatus, updated_ms: i64, message: &str) -> Task {
    let mut t = Task::new(
        id.encode(),
        status,
        iso8601(id.c),
        iso8601(updated_ms.max(id.c)),
    )
    .with_status_message(message)
    .with_poll_interval_ms(POLL_INTERVAL_MS);
    // Durable: the Editor's files decide how long a job stays readable, not this process.
    t.ttl_ms = None;
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn iso_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_767_225_600_123), "2026-01-01T00:00:00.123Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
