//! The main job, end to end, with no Unity installed.
//!
//! 1. Starts the reference Editor simulator (the AgentConnector's side of the wire) in this
//!    process, with a throw-away HOME so nothing touches your real `~/.hera-agent-unity`.
//! 2. Launches `hera-agent-unity mcp --transport stdio` as a child process, exactly as an MCP client
//!    (Claude Code, Cursor, …) would.
//! 3. Speaks MCP to it over the child's stdin/stdout: initialize, tools/list, then
//!    search → describe → a read → a mutation → a re-read that shows the change.
//!
//! Run it with `cargo run --release --example quickstart`. The transcript goes to stdout.

use hera_connector_sim::{SimConfig, Simulator};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long any single MCP request may take before the quickstart gives up.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let home = tempfile::tempdir()?;
    let project = home.path().join("Projects").join("QuickstartGame");
    std::fs::create_dir_all(&project)?;

    let sim = Simulator::start_background(SimConfig::new(home.path(), project.to_string_lossy()))?;
    if !sim.wait_ready_blocking(Duration::from_secs(10)) {
        return Err("the simulator did not become ready within 10 s".into());
    }
    println!(
        "# Simulated Unity Editor for {} on 127.0.0.1:{}",
        sim.project_path(),
        sim.port()
    );
    println!("#   heartbeat: {}", sim.heartbeat_path().display());

    let binary = adapter_binary()?;
    let mut client = McpClient::spawn(&binary, home.path(), &project)?;

    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "quickstart", "version": "1"}}),
    )?;
    client.notify("notifications/initialized")?;
    println!(
        "# Connected to {} {} (protocol {})\n",
        init["serverInfo"]["name"].as_str().unwrap_or("?"),
        init["serverInfo"]["version"].as_str().unwrap_or("?"),
        init["protocolVersion"].as_str().unwrap_or("?")
    );

    let tools = client.request("tools/list", json!({}))?;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    println!(
        "tools/list → {}  ({} bytes)\n",
        names.join(", "),
        tools.to_string().len()
    );

    let found = step(
        &mut client,
        "1. search",
        "tool_search",
        json!({"query": "create a game object", "limit": 3}),
    )?;
    for hit in found["data"]["results"].as_array().into_iter().flatten() {
        println!(
            "   {:<20} {:<12} {:<6} {}",
            hit["name"].as_str().unwrap_or(""),
            hit["action"].as_str().unwrap_or("-"),
            hit["safety"]["risk_class"].as_str().unwrap_or(""),
            hit["summary"].as_str().unwrap_or("")
        );
    }
    let described = step(
        &mut client,
        "2. describe",
        "tool_describe",
        json!({"name": "manage_gameobject", "action": "create"}),
    )?;
    let schema = &described["data"]["action"]["input_schema"];
    let params: Vec<&String> = schema["properties"]
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    println!(
        "   parameters: {}; required: {}; safety: {}",
        params
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        schema["required"],
        // The risk class, and only the flags that differ from that class's defaults.
        described["data"]["action"]["safety"]
    );
    let find = json!({"name": "find_gameobjects", "arguments": {"name": "QuickstartCube"}});
    let before = step(&mut client, "3. read", "tool_call", find.clone())?;
    println!("   {}", before["message"].as_str().unwrap_or(""));
    let created = step(
        &mut client,
        "4. mutation",
        "tool_call",
        json!({"name": "manage_gameobject", "arguments": {"action": "create", "name": "QuickstartCube", "primitive": "cube", "position": [0, 1, 0]}}),
    )?;
    println!(
        "   {} (instance {}, operation {})",
        created["message"].as_str().unwrap_or(""),
        created["data"]["instance_id"],
        created["operation_id"].as_str().unwrap_or("-")
    );
    let after = step(&mut client, "5. re-read", "tool_call", find)?;
    println!("   {}", after["message"].as_str().unwrap_or(""));
    println!();

    let count = |v: &Value| v.to_string().matches("QuickstartCube").count();
    println!(
        "Result: QuickstartCube appears {} time(s) before the mutation and {} time(s) after; the simulator counted {} side effect(s).",
        count(&before["data"]),
        count(&after["data"]),
        sim.side_effects()
    );

    client.close()?;
    sim.shutdown();
    Ok(())
}

/// Runs one tool call, prints the request and the compact result (shortened), returns the
/// structured result. A tool error ends the quickstart with the server's own message.
fn step(
    client: &mut McpClient,
    label: &str,
    tool: &str,
    args: Value,
) -> Result<Value, Box<dyn std::error::Error>> {
    println!("── {label}: {tool} {args}");
    let result = client.request("tools/call", json!({"name": tool, "arguments": args}))?;
    let structured = result["structuredContent"].clone();
    let text = structured.to_string();
    let shown: String = text.chars().take(300).collect();
    let more = text.chars().count().saturating_sub(300);
    println!(
        "   ← {shown}{}",
        if more > 0 {
            format!(" … (+{more} chars)")
        } else {
            String::new()
        }
    );
    if result["isError"].as_bool() == Some(true) {
        return Err(format!("{label} failed: {}", structured["message"]).into());
    }
    Ok(structured)
}

/// The adapter binary next to this example's own build output; built first when missing.
fn adapter_binary() -> Result<PathBuf, Box<dyn std::error::Error>> {
    let exe = std::env::current_exe()?;
    let profile_dir = exe
        .parent()
        .and_then(|p| p.parent())
        .ok_or("unexpected example location")?;
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    // `cargo run --example` builds only the library and the example; make sure the binary is current.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(cargo);
    build.args(["build", "--quiet", "--bin", "hera-agent-unity"]);
    if release {
        build.arg("--release");
    }
    if !build.status()?.success() {
        return Err("building the hera-agent-unity binary failed".into());
    }
    Ok(profile_dir.join(format!("hera-agent-unity{}", std::env::consts::EXE_SUFFIX)))
}

/// A minimal MCP client over a child's stdio: newline-delimited JSON-RPC, one request at a time.
struct McpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: i64,
}

impl McpClient {
    fn spawn(
        binary: &PathBuf,
        home: &std::path::Path,
        project: &std::path::Path,
    ) -> std::io::Result<Self> {
        let mut child = Command::new(binary)
            .args(["mcp", "--transport", "stdio"])
            .env("HERA_MCP_ENABLED", "1")
            .env("HOME", home)
            .env("HERA_AGENT_PROJECT", project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdout: ChildStdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Ok(McpClient {
            child,
            stdin,
            lines: rx,
            next_id: 1,
        })
    }

    fn send(&mut self, v: &Value) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{v}")?;
        stdin.flush()
    }

    fn notify(&mut self, method: &str) -> std::io::Result<()> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}))
    }

    fn request(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Value, Box<dyn std::error::Error>> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = std::time::Instant::now() + REQUEST_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .map_err(|_| format!("no answer to {method} within {REQUEST_TIMEOUT:?}"))?;
            let msg: Value = serde_json::from_str(&line)?;
            if msg["id"] != json!(id) {
                continue; // a notification (progress, list_changed): not ours to print
            }
            if let Some(err) = msg.get("error") {
                return Err(format!("{method} failed: {err}").into());
            }
            return Ok(msg["result"].clone());
        }
    }

    /// Closes stdin, as clients do to stop a server, and waits (bounded) for a clean exit.
    fn close(mut self) -> Result<(), Box<dyn std::error::Error>> {
        drop(self.stdin.take());
        for _ in 0..50 {
            if let Some(status) = self.child.try_wait()? {
                println!("# Server exited with {status} after stdin closed.");
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        self.child.kill()?;
        Err("the server did not exit within 5 s of stdin closing".into())
    }
}
