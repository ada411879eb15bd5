//! A minimal MCP client over a child's stdio: newline-delimited JSON-RPC, one request at a time.
//!
//! The report needs the exact bytes the server writes, so this client keeps every response line
//! as received (the `line`) next to its parsed form. It never measures its own requests' framing.
//! Notifications (progress, list changes) are skipped: their number depends on timing, and a
//! model does not see them. Requests from the server are answered with "method not found",
//! because this client declares no capabilities.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest wait for one answer. Generous: debug builds on a loaded two-core machine.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a closed server may take to exit before it is killed.
const EXIT_WAIT: Duration = Duration::from_secs(5);

/// The protocol version this client asks for in `initialize`: the newest one that legacy
/// `initialize` negotiates, which is what today's clients send.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Why a session could not go on.
#[derive(Debug)]
pub enum SessionError {
    /// The server exited (or closed stdout) before answering: it refused this command line.
    /// Carries the server's own explanation from stderr.
    Refused(String),
    /// Anything else: a timeout, a JSON-RPC error, an unreadable line.
    Failed(String),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Refused(s) => write!(f, "the server exited: {s}"),
            SessionError::Failed(s) => f.write_str(s),
        }
    }
}

/// One response exactly as it arrived (measurement parses it after normalization).
pub struct Reply {
    pub line: String,
}

pub struct McpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// Signalled (by dropping the sender) when the stderr reader has seen EOF.
    stderr_done: Receiver<()>,
    next_id: u64,
}

impl McpClient {
    /// Starts `binary mcp --transport stdio <extra>` with a minimal environment: PATH, the
    /// temporary HOME, the MCP gate and the project to pin. Nothing else from this process's
    /// environment leaks in (no `HERA_*` overrides, no proxy settings).
    pub fn spawn(
        binary: &Path,
        home: &Path,
        project: &str,
        extra: &[&str],
    ) -> Result<Self, SessionError> {
        let mut child = Command::new(binary)
            .args(["mcp", "--transport", "stdio"])
            .args(extra)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("HERA_MCP_ENABLED", "1")
            .env("HERA_AGENT_PROJECT", project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| SessionError::Failed(format!("cannot start {}: {e}", binary.display())))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let mut err_pipe = child.stderr.take().expect("stderr is piped");
        let (done_tx, stderr_done) = channel::<()>();
        std::thread::spawn(move || {
            let _done = done_tx;
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .expect("stderr buffer")
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let stdin = child.stdin.take();
        Ok(McpClient {
            child,
            stdin,
            lines: rx,
            stderr,
            stderr_done,
            next_id: 1,
        })
    }

    /// `initialize` then `notifications/initialized`; returns the initialize response.
    pub fn handshake(&mut self) -> Result<Reply, SessionError> {
        let reply = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "catalog-payload-report", "version": "1"}
            }),
        )?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(reply)
    }

    fn send(&mut self, v: &Value) -> Result<(), SessionError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(SessionError::Failed("stdin already closed".into()));
        };
        let written = writeln!(stdin, "{v}").and_then(|_| stdin.flush());
        if written.is_err() {
            return Err(self.refusal());
        }
        Ok(())
    }

    /// Sends one request and waits (bounded) for the response with its id.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Reply, SessionError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + REQUEST_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(SessionError::Failed(format!(
                        "no answer to {method} within {} s",
                        REQUEST_TIMEOUT.as_secs()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.refusal()),
            };
            let value: Value = serde_json::from_str(&line).map_err(|e| {
                SessionError::Failed(format!(
                    "the server wrote a line that is not JSON ({e}): {}",
                    preview(&line)
                ))
            })?;
            if value.get("method").is_some() {
                if let Some(server_id) = value.get("id") {
                    let refusal = json!({"jsonrpc": "2.0", "id": server_id,
                        "error": {"code": -32601, "message": "this client has no capabilities"}});
                    self.send(&refusal)?;
                }
                continue;
            }
            if value.get("id") != Some(&json!(id)) {
                continue;
            }
            if let Some(error) = value.get("error") {
                return Err(SessionError::Failed(format!(
                    "{method} answered a JSON-RPC error: {error}"
                )));
            }
            return Ok(Reply { line });
        }
    }

    /// The server is gone: wait for it briefly and return what it said on stderr.
    fn refusal(&mut self) -> SessionError {
        self.stdin = None;
        let deadline = Instant::now() + EXIT_WAIT;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // The reader reaches EOF once the exited server's pipe is drained; wait for that
        // (bounded) rather than for a fixed moment, so a busy machine loses no reason line.
        let _ = self.stderr_done.recv_timeout(EXIT_WAIT);
        let text = self.stderr.lock().expect("stderr buffer").clone();
        SessionError::Refused(reason_line(&text))
    }

    /// Closes stdin (how clients stop a server) and waits, bounded, for the exit.
    pub fn close(mut self) {
        self.stdin = None;
        let deadline = Instant::now() + EXIT_WAIT;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The line of a refusal worth keeping: the first `Error:`/`error:` line, else the first
/// non-empty one. Tracing noise and usage blocks are left out so the report stays stable.
pub fn reason_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .find(|l| l.starts_with("Error:") || l.starts_with("error:"))
        .or_else(|| lines.first())
        .map(|l| l.to_string())
        .unwrap_or_else(|| "the server exited without a message".to_string())
}

fn preview(line: &str) -> String {
    line.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_prefers_the_error_line() {
        let text =
            "  \n2026 WARN something\nerror: unexpected argument '--profile' found\n\nUsage: x\n";
        assert_eq!(
            reason_line(text),
            "error: unexpected argument '--profile' found"
        );
        assert_eq!(reason_line("just this\nand that"), "just this");
        assert_eq!(reason_line(""), "the server exited without a message");
    }
}
