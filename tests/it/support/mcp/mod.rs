//! A small MCP test client: spawns the real `hera-agent-unity mcp` binary with a temporary HOME
//! and speaks newline-delimited JSON-RPC over real pipes.
//!
//! Every stdout line is checked as it arrives: it must be a JSON-RPC 2.0 message. Violations are
//! collected and asserted by [`McpProc::assert_clean_stdout`] (called on drop of a healthy test).

pub mod wiretap;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Generous bound for one request/response exchange on a noisy 2-core machine.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
pub const V2026: &str = "2026-07-28";

pub struct McpProc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    violations: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
    next_id: i64,
    /// Notifications seen while waiting for responses.
    pub notifications: Vec<Value>,
    /// Messages read while waiting for something else, served first by later waits.
    pending: std::collections::VecDeque<Value>,
}

/// Whether `v` is a JSON-RPC 2.0 request, notification, response or error.
pub fn is_jsonrpc(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    if o.get("jsonrpc") != Some(&json!("2.0")) {
        return false;
    }
    let has_id = o.contains_key("id");
    let method = o.get("method").is_some_and(Value::is_string);
    let result = o.contains_key("result");
    let error = o.get("error").is_some_and(|e| {
        e.get("code").is_some_and(Value::is_i64) && e.get("message").is_some_and(Value::is_string)
    });
    (method && !result && !o.contains_key("error")) || (has_id && (result ^ error))
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_hera-agent-unity")
}

/// A command for the binary with a minimal environment: only PATH, HOME and what the test adds.
pub fn command(home: &Path, env: &[(&str, &str)], args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .current_dir(home)
        .args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

impl McpProc {
    /// Starts `hera-agent-unity [global args] mcp [mcp args]` with `HERA_MCP_ENABLED=1`.
    pub fn start(home: &Path, global: &[&str], mcp: &[&str], env: &[(&str, &str)]) -> McpProc {
        let mut args: Vec<&str> = global.to_vec();
        args.push("mcp");
        args.extend_from_slice(mcp);
        let mut all_env = vec![("HERA_MCP_ENABLED", "1")];
        all_env.extend_from_slice(env);
        let mut child = command(home, &all_env, &args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn hera-agent-unity");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        let violations = Arc::new(Mutex::new(Vec::new()));
        let v2 = violations.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match serde_json::from_str::<Value>(&line) {
                    Ok(v) if is_jsonrpc(&v) => {
                        if tx.send(v).is_err() {
                            break;
                        }
                    }
                    _ => v2.lock().unwrap().push(line),
                }
            }
        });
        let err = Arc::new(Mutex::new(String::new()));
        let e2 = err.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut s = e2.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let stdin = child.stdin.take();
        McpProc {
            child,
            stdin,
            lines: rx,
            violations,
            stderr: err,
            next_id: 1,
            notifications: Vec::new(),
            pending: std::collections::VecDeque::new(),
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits (up to `bound`) until the server's stderr, as read so far, contains `needle`.
    /// stderr is read on its own thread, so a line the server wrote before answering may
    /// still be on its way when the answer is.
    pub fn wait_stderr(&self, needle: &str, bound: Duration) -> bool {
        let deadline = Instant::now() + bound;
        loop {
            if self.stderr().contains(needle) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn send_raw(&mut self, line: &str) {
        let s = self.stdin.as_mut().expect("stdin open");
        s.write_all(line.as_bytes()).unwrap();
        s.write_all(b"\n").unwrap();
        s.flush().unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        self.send_raw(&v.to_string());
    }

    pub fn notify(&mut self, method: &str, params: Option<Value>) {
        let mut m = json!({"jsonrpc":"2.0","method":method});
        if let Some(p) = params {
            m["params"] = p;
        }
        self.send(&m);
    }

    /// Waits for the next message with this id (notifications are kept aside).
    pub fn wait_for(&mut self, id: &Value) -> Value {
        if let Some(i) = self
            .pending
            .iter()
            .position(|v| v.get("id") == Some(id) && v.get("method").is_none())
        {
            return self.pending.remove(i).unwrap();
        }
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if v.get("id") == Some(id) && v.get("method").is_none() => return v,
                Ok(v) => {
                    if v.get("id").is_none() {
                        self.notifications.push(v)
                    } else {
                        self.pending.push_back(v)
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no reply to id {id} within {REPLY_TIMEOUT:?}; stderr:\n{}",
                        self.stderr()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "server closed stdout before replying to {id}; stderr:\n{}",
                        self.stderr()
                    )
                }
            }
        }
    }

    /// Waits for a request from the server (e.g. `elicitation/create`); other messages are kept.
    pub fn wait_server_request(&mut self, method: &str) -> Value {
        if let Some(i) = self.pending.iter().position(|v| v["method"] == method) {
            return self.pending.remove(i).unwrap();
        }
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if v["method"] == method && v.get("id").is_some() => return v,
                Ok(v) if v.get("id").is_none() => self.notifications.push(v),
                Ok(v) => self.pending.push_back(v),
                Err(_) => panic!(
                    "no {method} request from the server; stderr:\n{}",
                    self.stderr()
                ),
            }
        }
    }

    /// Waits (up to `bound`) for a notification `method`, taking it out of the ones already
    /// seen first; other messages are kept for later waits. `None` when none arrived.
    pub fn wait_notification(&mut self, method: &str, bound: Duration) -> Option<Value> {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|v| v["method"] == method)
        {
            return Some(self.notifications.remove(i));
        }
        let deadline = Instant::now() + bound;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if v["method"] == method && v.get("id").is_none() => return Some(v),
                Ok(v) if v.get("id").is_none() => self.notifications.push(v),
                Ok(v) => self.pending.push_back(v),
                Err(_) => return None,
            }
        }
    }

    /// Forgets the notifications seen so far (to wait for a later one).
    pub fn clear_notifications(&mut self) {
        self.notifications.clear();
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        id
    }

    /// Sends a request and returns the whole response message.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        let mut m = json!({"jsonrpc":"2.0","id":id,"method":method});
        if !params.is_null() {
            m["params"] = params;
        }
        self.send(&m);
        self.wait_for(&id)
    }

    /// A request that must succeed; returns `result`.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        let r = self.ok(
            "initialize",
            json!({"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"hera-test","version":"1"}}),
        );
        self.notify("notifications/initialized", None);
        r
    }

    /// `tools/call` of one of our tools; returns the CallToolResult.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.ok("tools/call", json!({"name":tool,"arguments":arguments}))
    }

    /// `tools/call` whose structured content is returned, checked for the text copy.
    pub fn call_structured(&mut self, tool: &str, arguments: Value) -> Value {
        let r = self.call(tool, arguments);
        structured(&r)
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Closes stdin and waits (bounded) for the exit; returns the status and how long it took.
    pub fn shutdown(&mut self, bound: Duration) -> (ExitStatus, Duration) {
        let start = Instant::now();
        self.close_stdin();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return (s, start.elapsed());
            }
            if start.elapsed() > bound {
                let _ = self.child.kill();
                panic!(
                    "server did not exit within {bound:?} of stdin EOF; stderr:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits (bounded) for the process to exit on its own.
    pub fn wait_exit(&mut self, bound: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            if start.elapsed() > bound {
                let _ = self.child.kill();
                panic!(
                    "process did not exit within {bound:?}; stderr:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn assert_clean_stdout(&self) {
        let v = self.violations.lock().unwrap();
        assert!(v.is_empty(), "non-JSON-RPC lines on stdout: {v:?}");
    }
}

impl Drop for McpProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            self.assert_clean_stdout();
        }
    }
}

/// The structured content of a CallToolResult, after checking that the text block carries the
/// same JSON (never a bare "OK") and that `isError` agrees with `success`.
pub fn structured(result: &Value) -> Value {
    let s = result["structuredContent"].clone();
    assert!(s.is_object(), "no structuredContent: {result}");
    let text = result["content"][0]["text"].as_str().expect("text content");
    let parsed: Value = serde_json::from_str(text).expect("text content is JSON");
    assert_eq!(parsed, s, "text content differs from structuredContent");
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    assert_eq!(
        is_error,
        !s["success"].as_bool().unwrap(),
        "isError disagrees: {result}"
    );
    s
}

/// Validates structured content against the tool's advertised output schema.
pub fn assert_fits_output_schema(tools_list: &Value, tool: &str, structured: &Value) {
    let t = tools_list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("{tool} not listed"));
    let schema = &t["outputSchema"];
    let v = jsonschema::draft202012::new(schema).expect("output schema compiles");
    let errors: Vec<String> = v.iter_errors(structured).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "{tool} result does not fit its outputSchema: {errors:?}\n{structured}"
    );
}

/// The `_meta` every 2026-07-28 request carries.
pub fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V2026,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name":"hera-test","version":"1"}
    })
}

/// Repeats `f` until it returns `Some`, for at most `bound` (then fails the test). The one
/// condition-based wait of the MCP tests: nothing here assumes work finishes within a sleep.
pub fn eventually<T>(bound: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            started.elapsed() < bound,
            "condition not met within {bound:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
