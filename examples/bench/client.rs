//! The benchmark's MCP client: one `hera-agent-unity mcp` child spoken to over newline-delimited
//! JSON-RPC on its stdin/stdout, and `/proc` samples of its memory.

use super::Res;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Any single request, and any wait for a process, gives up after this.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// What every server of the run shares.
pub struct Ctx {
    pub binary: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    pub spawned: std::cell::Cell<usize>,
}

impl Ctx {
    pub fn spawn(&self, label: &str, env: &[(&str, &str)]) -> Res<Server> {
        let n = self.spawned.get() + 1;
        self.spawned.set(n);
        let log = self.home.join(format!("server-{n}-{label}.log"));
        Server::spawn(&self.binary, &self.home, &self.project, env, log)
    }
}

/// A reply to one request: its `result`.
pub struct Reply {
    pub result: Value,
}

pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: i64,
    log: PathBuf,
    pub requests: usize,
}

impl Server {
    fn spawn(
        binary: &Path,
        home: &Path,
        project: &Path,
        env: &[(&str, &str)],
        log: PathBuf,
    ) -> Res<Server> {
        let err = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut cmd = Command::new(binary);
        cmd.args(["mcp", "--transport", "stdio"])
            .env("HERA_MCP_ENABLED", "1")
            .env("HOME", home)
            .env("HERA_AGENT_PROJECT", project)
            .env_remove("HERA_MCP_MAX_INLINE_BYTES")
            .env_remove("HERA_MCP_EXPOSURE")
            .env_remove("HERA_AGENT_PORT")
            .env_remove("RUST_LOG")
            .current_dir(home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(err));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", binary.display()))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Ok(Server {
            child,
            stdin,
            lines: rx,
            next_id: 1,
            log,
            requests: 0,
        })
    }

    /// `msg`, with the end of the server's stderr so a failed run says why.
    pub fn fail(&self, msg: impl std::fmt::Display) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!(
            "{msg}\n  server stderr (last lines):\n    {}",
            tail.join("\n    ")
        )
    }

    fn send(&mut self, v: &Value) -> Res<()> {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{v}")
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("write to the server: {e}"))
    }

    fn next_line(&self, deadline: Instant, what: &str) -> Res<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.lines
            .recv_timeout(left)
            .map_err(|_| self.fail(format!("no answer to {what} within {REQUEST_TIMEOUT:?}")))
    }

    /// Sends one request and waits (bounded) for its response; notifications in between are skipped.
    pub fn request(&mut self, method: &str, params: Value) -> Res<(Duration, Reply)> {
        let id = self.next_id;
        self.next_id += 1;
        self.requests += 1;
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let start = Instant::now();
        self.send(&frame)?;
        let deadline = start + REQUEST_TIMEOUT;
        loop {
            let line = self.next_line(deadline, method)?;
            let took = start.elapsed();
            let msg: Value = serde_json::from_str(&line)
                .map_err(|e| self.fail(format!("non-JSON line from the server ({e}): {line}")))?;
            if msg["id"] != json!(id) {
                continue;
            }
            if let Some(err) = msg.get("error") {
                return Err(self.fail(format!("{method} failed: {err}")));
            }
            return Ok((
                took,
                Reply {
                    result: msg["result"].clone(),
                },
            ));
        }
    }

    pub fn initialize(&mut self) -> Res<Duration> {
        let (took, reply) = self.request(
            "initialize",
            json!({"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                   "clientInfo": {"name": "hera-bench", "version": "1"}}),
        )?;
        if reply.result["serverInfo"]["name"].as_str().is_none() {
            return Err(self.fail(format!("initialize without serverInfo: {}", reply.result)));
        }
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(took)
    }

    /// A `tools/call` that must succeed; returns its `structuredContent`.
    pub fn call_tool(&mut self, tool: &str, args: Value) -> Res<(Duration, Value)> {
        let (took, reply) = self.request(
            "tools/call",
            json!({"name": tool, "arguments": args.clone()}),
        )?;
        let structured = reply.result["structuredContent"].clone();
        if reply.result["isError"].as_bool() == Some(true) {
            return Err(self.fail(format!("{tool} {args} failed: {structured}")));
        }
        Ok((took, structured))
    }

    /// `total` `tools/call` requests with `in_flight` of them outstanding at every moment (a new
    /// one is written as soon as one is answered). Every answer must succeed. Returns the wall
    /// time from the first write to the last answer.
    pub fn pipelined(
        &mut self,
        tool: &str,
        args: &Value,
        total: usize,
        in_flight: usize,
    ) -> Res<Duration> {
        let mut pending: HashSet<i64> = HashSet::new();
        let mut sent = 0;
        let mut done = 0;
        let start = Instant::now();
        let deadline = start + REQUEST_TIMEOUT;
        while done < total {
            while sent < total && pending.len() < in_flight {
                let id = self.next_id;
                self.next_id += 1;
                self.requests += 1;
                let frame = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                                   "params": {"name": tool, "arguments": args}});
                self.send(&frame)?;
                pending.insert(id);
                sent += 1;
            }
            let line = self.next_line(deadline, "a pipelined tools/call")?;
            let msg: Value = serde_json::from_str(&line)
                .map_err(|e| self.fail(format!("non-JSON line from the server ({e})")))?;
            let Some(id) = msg["id"].as_i64() else {
                continue;
            };
            if !pending.remove(&id) {
                continue;
            }
            if msg.get("error").is_some() || msg["result"]["isError"].as_bool() == Some(true) {
                return Err(self.fail(format!("pipelined {tool} failed: {line}")));
            }
            done += 1;
        }
        Ok(start.elapsed())
    }

    pub fn sample(&self) -> Value {
        proc_sample(self.child.id())
    }

    /// Closes stdin, as clients do, and waits (bounded) for the exit.
    pub fn close(mut self) -> Res<()> {
        let start = Instant::now();
        drop(self.stdin.take());
        while start.elapsed() < REQUEST_TIMEOUT {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(()),
                Ok(Some(status)) => return Err(self.fail(format!("server exited with {status}"))),
                Ok(None) => std::thread::sleep(Duration::from_millis(1)),
                Err(e) => return Err(format!("wait for the server: {e}")),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        Err(self.fail("the server did not exit after stdin closed; killed"))
    }
}

/// VmRSS, VmHWM, threads and CPU time of a process, from `/proc`.
#[cfg(target_os = "linux")]
pub fn proc_sample(pid: u32) -> Value {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return Value::Null;
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
    };
    // utime and stime are fields 14 and 15; the command name (field 2) may hold spaces, so
    // count from the closing parenthesis.
    let cpu_ms = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = stat.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
            // SAFETY: sysconf reads a constant system setting and has no memory effects.
            let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
            (hz > 0).then(|| ticks * 1000 / hz as u64)
        });
    json!({
        "vm_rss_kib": field("VmRSS:"),
        "vm_hwm_kib": field("VmHWM:"),
        // RSS split: private heap and stacks, and pages of the binary and libraries (shared
        // with the page cache, and inflated by the kernel's fault-around).
        "rss_anon_kib": field("RssAnon:"),
        "rss_file_kib": field("RssFile:"),
        "threads": field("Threads:"),
        "cpu_ms": cpu_ms,
    })
}

#[cfg(not(target_os = "linux"))]
pub fn proc_sample(_pid: u32) -> Value {
    Value::Null
}
