//! The MCP server as an agent uses it: latency of every step and the server's memory, written to
//! `metrics/mcp-bench.json`.
//!
//! `cargo run --release --example mcp_bench`
//!
//! The reference Editor simulator runs in this process (temporary HOME, real HTTP on 127.0.0.1);
//! the real `hera-agent-unity mcp --transport stdio` binary runs as child processes, spoken to
//! over their stdin/stdout like an MCP client does. Measured:
//!
//! - process start → `initialize` response (a fresh process per sample; no Editor, Editor up),
//!   and process exit after stdin closes;
//! - `tools/list` in compact and full exposure with no Editor (fresh HOME), with the Editor up,
//!   and after the Editor quit (catalog from the on-disk cache);
//! - `tool_search`, `tool_describe` (one action), a read-only `tool_call` (`scene` `info`) and a
//!   mutation `tool_call` (`manage_gameobject` `create`, a new name each round);
//! - the same read sent straight to the simulator through the adapter's own HTTP client
//!   (`connector::ConnectorClient`), interleaved with the MCP calls, so the adapter's overhead is
//!   a ratio measured in one run on one machine state;
//! - the same read through a second server with `HERA_MCP_MAX_INLINE_BYTES=256`, so every result
//!   is spilled to the result cache (also interleaved, also a ratio);
//! - VmRSS and VmHWM (and thread count and CPU time) of the server from `/proc/<pid>/status` and
//!   `/proc/<pid>/stat` at points of a session. Linux only; elsewhere these fields are `null`.
//!
//! Wall clock only. The machine is shared and noisy, so the load average is recorded at the start
//! and the end, and comparisons are ratios within this run. Every loop is bounded in rounds and in
//! time; any failed step aborts the run (no figures of error paths are recorded).

use hera_agent_unity::{AgentHome, CallOptions, ClientKind, ConnectorClient, Selector};
use hera_connector_sim::{SimConfig, Simulator};
use serde_json::{Map, Value, json};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const COMMAND: &str = "cargo run --release --example mcp_bench";
/// Fresh processes timed from spawn to the `initialize` response, per Editor state.
const STARTUP_ROUNDS: usize = 30;
/// `tools/list` rounds per session pair.
const LIST_ROUNDS: usize = 100;
/// Rounds of search → describe → read → mutation → direct read → direct mutation → spilled read.
const CALL_ROUNDS: usize = 1000;
/// The servers' memory is sampled every this many call rounds, to show growth over a session.
const MEMORY_EVERY: usize = 100;
/// Wall-clock budget of each measured loop; a loop stops early when it is spent.
const PHASE_BUDGET: Duration = Duration::from_secs(90);
/// Any single request, and any wait for a process, gives up after this.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The idle sample is taken this long after spawn, before anything is sent.
const IDLE_SAMPLE_DELAY: Duration = Duration::from_millis(300);
/// The inline cap of the spilling server: below the scene info result (~460 B), so it always spills.
const SPILL_INLINE_CAP: &str = "256";
const PROTOCOL_VERSION: &str = "2025-11-25";

/// Everyday requests (the payload report's flows and the search set's themes), used in turn.
const QUERIES: [&str; 8] = [
    "create a game object",
    "read scene info",
    "add a component to an object",
    "find game objects by name",
    "run edit mode tests",
    "take a screenshot of the game view",
    "change a material color",
    "save the open scene",
];

type Res<T> = Result<T, String>;

fn main() {
    if let Err(e) = run() {
        eprintln!("mcp_bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let release = !cfg!(debug_assertions);
    if !release {
        eprintln!(
            "mcp_bench: debug build of the example; the server binary is debug too (use --release)"
        );
    }
    let load_start = load_average();
    let home = tempfile::tempdir().map_err(|e| format!("temp HOME: {e}"))?;
    let project = home.path().join("Projects").join("BenchGame");
    std::fs::create_dir_all(&project).map_err(|e| format!("project dir: {e}"))?;
    let binary = adapter_binary()?;
    let ctx = Ctx {
        binary: binary.clone(),
        home: home.path().to_path_buf(),
        project: project.clone(),
        spawned: std::cell::Cell::new(0),
    };

    // ── 1. No Editor: a HOME that has never seen one (no heartbeat, no cached catalog).
    eprintln!("mcp_bench: startup without an Editor");
    let startup_no_editor = startup_rounds(&ctx)?;
    eprintln!("mcp_bench: tools/list without an Editor");
    let mut d = ctx.spawn("compact", &[])?;
    d.initialize()?;
    let mut e = ctx.spawn("full", &["--exposure", "full"])?;
    e.initialize()?;
    let list_no_editor = list_rounds(&mut d, &mut e)?;
    let mem_no_editor = d.sample();
    d.close()?;
    e.close()?;

    // ── 2. The Editor comes up.
    let sim = Simulator::start_background(SimConfig::new(home.path(), project.to_string_lossy()))
        .map_err(|e| format!("simulator: {e}"))?;
    if !sim.wait_ready_blocking(Duration::from_secs(10)) {
        return Err("the simulator did not become ready within 10 s".into());
    }
    eprintln!("mcp_bench: startup with the Editor up");
    let startup_editor_up = startup_rounds(&ctx)?;

    // The measured compact session, with memory samples along the way.
    let mut a = ctx.spawn("compact", &[])?;
    std::thread::sleep(IDLE_SAMPLE_DELAY);
    let mem_idle = a.sample();
    a.initialize()?;
    let mem_after_init = a.sample();
    // The first describe loads the catalog (fetch, checks, cache write); the first search then
    // builds the search index. Sampled apart so each cost is visible.
    let (first_describe, v) = a.call_tool(
        "tool_describe",
        json!({"name": "manage_gameobject", "action": "create"}),
    )?;
    if !v["data"]["action"]["input_schema"].is_object() {
        return Err(a.fail(format!("tool_describe gave no action schema: {v}")));
    }
    let mem_after_catalog = a.sample();
    let (first_search, v) = a.call_tool("tool_search", json!({"query": QUERIES[0], "limit": 5}))?;
    expect_hits(&a, &v)?;
    let mem_after_index = a.sample();

    let mut b = ctx.spawn_with_env(
        "compact",
        &[],
        &[("HERA_MCP_MAX_INLINE_BYTES", SPILL_INLINE_CAP)],
    )?;
    b.initialize()?;
    b.call_tool("tool_search", json!({"query": QUERIES[1], "limit": 5}))?;

    let mut c = ctx.spawn("full", &["--exposure", "full"])?;
    c.initialize()?;
    let (c_first, c_first_reply) = c.request("tools/list", json!({}))?;
    let full_tools_first = tool_count(&c_first_reply.result);
    if full_tools_first == 0 {
        return Err(c.fail("the full exposure listed no tools with the Editor up"));
    }

    eprintln!("mcp_bench: tools/list with the Editor up");
    let list_editor_up = list_rounds(&mut a, &mut c)?;

    eprintln!("mcp_bench: call rounds");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    let direct = DirectClient::connect(&rt, home.path(), &project, &sim)?;
    let creates_before = sim.side_effects_of("manage_gameobject", Some("create"));
    let calls = call_rounds(&mut a, &mut b, &direct, &rt)?;
    let creates = sim.side_effects_of("manage_gameobject", Some("create")) - creates_before;
    let mutations_sent = calls.mutations;
    if creates != mutations_sent {
        return Err(format!(
            "the simulator executed {creates} manage_gameobject create(s) for {mutations_sent} sent"
        ));
    }
    let mem_after_calls = a.sample();
    let mem_spill = b.sample();
    let mem_full = c.sample();
    let requests_a = a.requests;
    let requests_b = b.requests;
    let requests_c = c.requests;
    a.close()?;
    b.close()?;
    c.close()?;

    // ── 3. The Editor quits; fresh servers answer from the cached catalog.
    sim.shutdown();
    eprintln!("mcp_bench: tools/list and tool_search after the Editor quit");
    let mut f = ctx.spawn("compact", &[])?;
    f.initialize()?;
    let mut g = ctx.spawn("full", &["--exposure", "full"])?;
    g.initialize()?;
    let list_closed = list_rounds(&mut f, &mut g)?;
    let search_closed = search_rounds(&mut f)?;
    f.close()?;
    g.close()?;

    let load_end = load_average();
    let ratio = |num: &Value, den: &Value, key: &str| -> Value {
        match (num[key].as_f64(), den[key].as_f64()) {
            (Some(n), Some(d)) if d > 0.0 => json!(round3(n / d)),
            _ => Value::Null,
        }
    };
    let ratios = json!({
        "adapter_read_over_direct_http_read": {
            "p50": ratio(&calls.read, &calls.direct_read, "p50_ms"),
            "p95": ratio(&calls.read, &calls.direct_read, "p95_ms"),
            "mean": ratio(&calls.read, &calls.direct_read, "mean_ms"),
            "what": "tool_call scene info through the MCP server ÷ the same /command sent by ConnectorClient from this process, interleaved in the same rounds",
        },
        "adapter_mutation_over_direct_http_mutation": {
            "p50": ratio(&calls.mutation, &calls.direct_mutation, "p50_ms"),
            "p95": ratio(&calls.mutation, &calls.direct_mutation, "p95_ms"),
            "mean": ratio(&calls.mutation, &calls.direct_mutation, "mean_ms"),
            "what": "tool_call manage_gameobject create through the MCP server ÷ the same create sent by ConnectorClient from this process (another unique name), interleaved",
        },
        "spilled_read_over_inline_read": {
            "p50": ratio(&calls.spilled, &calls.read, "p50_ms"),
            "p95": ratio(&calls.spilled, &calls.read, "p95_ms"),
            "what": "the same read through a server with HERA_MCP_MAX_INLINE_BYTES=256 (result spilled to the cache) ÷ through the default server, interleaved",
        },
        "mutation_over_read": {
            "p50": ratio(&calls.mutation, &calls.read, "p50_ms"),
            "p95": ratio(&calls.mutation, &calls.read, "p95_ms"),
        },
        "full_list_over_compact_list_editor_up": {
            "p50": ratio(&list_editor_up["full"], &list_editor_up["compact"], "p50_ms"),
        },
        "initialize_editor_up_over_no_editor": {
            "p50": ratio(&startup_editor_up["initialize"], &startup_no_editor["initialize"], "p50_ms"),
        },
    });

    let report = json!({
        "format": "hera.mcp-bench/1",
        "command": COMMAND,
        "date": today(),
        "profile": if release { "release" } else { "debug (not representative)" },
        "server": {
            "binary": "target/<profile>/hera-agent-unity",
            "bytes": std::fs::metadata(&binary).map(|m| m.len()).ok(),
            "invocation": "hera-agent-unity mcp --transport stdio [--exposure full], env HERA_MCP_ENABLED=1, HOME=<temp>, HERA_AGENT_PROJECT=<project>",
            "processes_spawned": ctx.spawned.get(),
        },
        "machine": {
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
            "available_parallelism": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
            "load_average_start": load_start,
            "load_average_end": load_end,
            "load_average_fields": "1, 5 and 15 minute averages from /proc/loadavg (null off Linux)",
        },
        "about": {
            "latency": "wall clock, ms, from writing the JSON-RPC request line to reading its response line (the client's reader thread hand-off included, the same for every MCP figure); percentiles are nearest-rank",
            "drift": "p50 of the first and of the last tenth of a loop's samples (time order), when it has 100 or more; a cost that grows over a session shows here",
            "rounds": "every loop stops at its round count or its time budget, whichever comes first; `samples` says how many were taken",
            "memory": "from /proc/<pid>/status (VmRSS, VmHWM in KiB, Threads) and /proc/<pid>/stat (utime+stime as cpu_ms) of the server process; Linux only, null elsewhere",
            "editor": "the reference simulator (hera_connector_sim) in this process, real HTTP on 127.0.0.1; its handlers are in-memory, so Editor-side time is small and the figures isolate the adapter",
            "noise": "a shared 2-core machine; read the load averages, and compare ratios from one run rather than absolute figures across runs",
        },
        "startup": {
            "no_editor": startup_no_editor,
            "editor_up": startup_editor_up,
            "what": "spawn → initialize response, a fresh process per sample, request written right after spawn; exit = stdin closed → process exited",
        },
        "tools_list": {
            "no_editor": list_no_editor,
            "editor_up": list_editor_up,
            "editor_up_full_first_list_with_catalog_load": {
                "ms": ms(c_first),
                "tools": full_tools_first,
                "response_bytes": c_first_reply.bytes,
            },
            "editor_closed_cached_catalog": list_closed,
            "what": "compact and full exposure sessions, alternating requests; no_editor = HOME with no heartbeat and no cached catalog (full lists nothing until an Editor appears); editor_closed = fresh processes after the Editor quit, catalog from the on-disk cache",
        },
        "calls": {
            "rounds": calls.rounds,
            "first_tool_describe_with_catalog_load_ms": ms(first_describe),
            "first_tool_search_with_index_build_ms": ms(first_search),
            "tool_search": calls.search,
            "tool_describe_action": calls.describe,
            "tool_call_read_scene_info": calls.read,
            "tool_call_mutation_create_gameobject": calls.mutation,
            "direct_http_read_scene_info": calls.direct_read,
            "direct_http_mutation_create_gameobject": calls.direct_mutation,
            "tool_call_read_scene_info_spilled": calls.spilled,
            "tool_search_editor_closed_cached_catalog": search_closed,
            "requests": {
                "tool_search": "limit 5, the 8 queries of this file in turn",
                "tool_describe_action": {"name": "manage_gameobject", "action": "create"},
                "tool_call_read_scene_info": {"name": "scene", "arguments": {"action": "info"}},
                "tool_call_mutation_create_gameobject": {"name": "manage_gameobject", "arguments": {"action": "create", "name": "McpBench<round>", "primitive": "cube"}},
                "direct_http_read_scene_info": "POST /command {command: scene, params: {action: info}} via hera_agent_unity::connector::ConnectorClient (the adapter's one HTTP client), with catalog_hash",
                "direct_http_mutation_create_gameobject": "POST /command {command: manage_gameobject, params: {action: create, name: McpBenchDirect<round>, primitive: cube}} via ConnectorClient, with catalog_hash",
                "tool_call_read_scene_info_spilled": format!("as tool_call_read_scene_info, server with HERA_MCP_MAX_INLINE_BYTES={SPILL_INLINE_CAP}; every result checked to be spilled"),
            },
        },
        "ratios": ratios,
        "memory": {
            "linux_only": true,
            "measured": cfg!(target_os = "linux"),
            "compact_session": {
                "idle_before_initialize": mem_idle,
                "idle_sample_delay_ms": IDLE_SAMPLE_DELAY.as_millis() as u64,
                "after_initialize": mem_after_init,
                "after_catalog_load": mem_after_catalog,
                "after_search_index_build": mem_after_index,
                "after_calls": mem_after_calls,
                "requests_served": requests_a,
            },
            "during_calls": {"every_rounds": MEMORY_EVERY, "samples": calls.memory_series},
            "spilling_session_after_calls": {"sample": mem_spill, "requests_served": requests_b},
            "full_exposure_session_after_lists": {"sample": mem_full, "requests_served": requests_c},
            "no_editor_compact_session_after_lists": mem_no_editor,
        },
        "checks": {
            "mutations_sent_mcp_and_direct": mutations_sent,
            "simulator_executed_manage_gameobject_create": creates,
            "every_spilled_read_was_spilled": true,
            "every_step_succeeded": true,
        },
    });
    let text = serde_json::to_string_pretty(&report).expect("a JSON value serializes") + "\n";
    println!("{text}");
    if release {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("metrics/mcp-bench.json");
        std::fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    } else {
        eprintln!("debug build: metrics/mcp-bench.json left unchanged");
    }
    Ok(())
}

/// What every server of the run shares.
struct Ctx {
    binary: PathBuf,
    home: PathBuf,
    project: PathBuf,
    spawned: std::cell::Cell<usize>,
}

impl Ctx {
    fn spawn(&self, label: &str, args: &[&str]) -> Res<Server> {
        self.spawn_with_env(label, args, &[])
    }

    fn spawn_with_env(&self, label: &str, args: &[&str], env: &[(&str, &str)]) -> Res<Server> {
        let n = self.spawned.get() + 1;
        self.spawned.set(n);
        let log = self.home.join(format!("server-{n}-{label}.log"));
        Server::spawn(&self.binary, &self.home, &self.project, args, env, log)
    }
}

/// A reply to one request: its `result`, and the size of the whole response line.
struct Reply {
    result: Value,
    bytes: usize,
}

/// One `hera-agent-unity mcp` child, spoken to one request at a time over newline-delimited JSON-RPC.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: i64,
    log: PathBuf,
    requests: usize,
}

impl Server {
    fn spawn(
        binary: &Path,
        home: &Path,
        project: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        log: PathBuf,
    ) -> Res<Server> {
        let err = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut cmd = Command::new(binary);
        cmd.args(["mcp", "--transport", "stdio"])
            .args(args)
            .env("HERA_MCP_ENABLED", "1")
            .env("HOME", home)
            .env("HERA_AGENT_PROJECT", project)
            .env_remove("HERA_MCP_MAX_INLINE_BYTES")
            .env_remove("HERA_MCP_EXPOSURE")
            .env_remove("HERA_AGENT_PORT")
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
    fn fail(&self, msg: impl std::fmt::Display) -> String {
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

    /// Sends one request and waits (bounded) for its response; notifications in between are skipped.
    fn request(&mut self, method: &str, params: Value) -> Res<(Duration, Reply)> {
        let id = self.next_id;
        self.next_id += 1;
        self.requests += 1;
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let start = Instant::now();
        self.send(&frame)?;
        let deadline = start + REQUEST_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(_) => {
                    return Err(
                        self.fail(format!("no answer to {method} within {REQUEST_TIMEOUT:?}"))
                    );
                }
            };
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
                    bytes: line.len(),
                },
            ));
        }
    }

    fn initialize(&mut self) -> Res<Duration> {
        let (took, _) = self.request(
            "initialize",
            json!({"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                   "clientInfo": {"name": "mcp_bench", "version": "1"}}),
        )?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(took)
    }

    /// A `tools/call` that must succeed; returns its `structuredContent`.
    fn call_tool(&mut self, tool: &str, args: Value) -> Res<(Duration, Value)> {
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

    fn sample(&self) -> Value {
        proc_sample(self.child.id())
    }

    /// Closes stdin, as clients do, and waits (bounded) for the exit; returns how long it took.
    fn close(mut self) -> Res<Duration> {
        let start = Instant::now();
        drop(self.stdin.take());
        while start.elapsed() < REQUEST_TIMEOUT {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(start.elapsed()),
                Ok(Some(status)) => return Err(self.fail(format!("server exited with {status}"))),
                Ok(None) => std::thread::sleep(Duration::from_micros(250)),
                Err(e) => return Err(format!("wait for the server: {e}")),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        Err(self.fail("the server did not exit after stdin closed; killed"))
    }
}

/// Spawn → initialize response, a fresh process each round, and stdin close → exit.
fn startup_rounds(ctx: &Ctx) -> Res<Value> {
    let mut init = Vec::new();
    let mut exit = Vec::new();
    let start = Instant::now();
    while init.len() < STARTUP_ROUNDS && start.elapsed() < PHASE_BUDGET {
        let t = Instant::now();
        let mut s = ctx.spawn("startup", &[])?;
        let (_, reply) = s.request(
            "initialize",
            json!({"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                   "clientInfo": {"name": "mcp_bench", "version": "1"}}),
        )?;
        init.push(t.elapsed());
        if reply.result["serverInfo"]["name"].as_str().is_none() {
            return Err(s.fail(format!(
                "initialize answered without serverInfo: {}",
                reply.result
            )));
        }
        exit.push(s.close()?);
    }
    Ok(json!({"initialize": distribution(&init), "exit_after_stdin_close": distribution(&exit)}))
}

/// `tools/list` on two sessions (compact, full), alternating, bounded.
fn list_rounds(compact: &mut Server, full: &mut Server) -> Res<Value> {
    let mut times = [Vec::new(), Vec::new()];
    let mut shape = [(0usize, 0usize), (0usize, 0usize)];
    let start = Instant::now();
    while times[0].len() < LIST_ROUNDS && start.elapsed() < PHASE_BUDGET {
        for (i, s) in [&mut *compact, &mut *full].into_iter().enumerate() {
            let (took, reply) = s.request("tools/list", json!({}))?;
            times[i].push(took);
            shape[i] = (tool_count(&reply.result), reply.bytes);
        }
    }
    if shape[0].0 != 3 {
        return Err(compact.fail(format!(
            "compact tools/list had {} tools, not 3",
            shape[0].0
        )));
    }
    let mut out = Map::new();
    for (i, key) in ["compact", "full"].into_iter().enumerate() {
        let mut d = distribution(&times[i]);
        d["tools"] = json!(shape[i].0);
        d["response_bytes"] = json!(shape[i].1);
        out.insert(key.into(), d);
    }
    Ok(Value::Object(out))
}

/// `tool_search` only (the Editor closed: answered from the cached catalog).
fn search_rounds(s: &mut Server) -> Res<Value> {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < CALL_ROUNDS && start.elapsed() < PHASE_BUDGET {
        let q = QUERIES[times.len() % QUERIES.len()];
        let (took, reply) = s.call_tool("tool_search", json!({"query": q, "limit": 5}))?;
        expect_hits(s, &reply)?;
        times.push(took);
    }
    Ok(distribution(&times))
}

struct CallFigures {
    rounds: usize,
    /// Creates sent through the MCP server and straight to the simulator.
    mutations: u64,
    search: Value,
    describe: Value,
    read: Value,
    mutation: Value,
    direct_read: Value,
    direct_mutation: Value,
    spilled: Value,
    /// Memory of the measured session (`a`) and of the spilling one (`b`) every [`MEMORY_EVERY`] rounds.
    memory_series: Vec<Value>,
}

/// The agent's everyday loop, one step of each kind per round, interleaved with the direct
/// read, the direct mutation and the spilled read so that all see the same machine state.
fn call_rounds(
    a: &mut Server,
    b: &mut Server,
    direct: &DirectClient,
    rt: &tokio::runtime::Runtime,
) -> Res<CallFigures> {
    let mut t: [Vec<Duration>; 7] = Default::default();
    let mut sizes = [0usize; 7];
    let mut memory_series = Vec::new();
    let start = Instant::now();
    let mut round = 0;
    let read = json!({"name": "scene", "arguments": {"action": "info"}});
    let mut sample_memory = |round: usize, a: &Server, b: &Server| {
        memory_series.push(json!({
            "round": round,
            "compact_session": a.sample(),
            "compact_session_requests_served": a.requests,
            "spilling_session": b.sample(),
            "spilling_session_requests_served": b.requests,
        }));
    };
    while round < CALL_ROUNDS && start.elapsed() < PHASE_BUDGET {
        if round % MEMORY_EVERY == 0 {
            sample_memory(round, a, b);
        }
        let q = QUERIES[round % QUERIES.len()];
        let (took, v) = a.call_tool("tool_search", json!({"query": q, "limit": 5}))?;
        expect_hits(a, &v)?;
        t[0].push(took);
        sizes[0] = v.to_string().len();

        let (took, v) = a.call_tool(
            "tool_describe",
            json!({"name": "manage_gameobject", "action": "create"}),
        )?;
        if !v["data"]["action"]["input_schema"].is_object() {
            return Err(a.fail(format!("tool_describe gave no action schema: {v}")));
        }
        t[1].push(took);
        sizes[1] = v.to_string().len();

        let (took, v) = a.call_tool("tool_call", read.clone())?;
        if v["data"]["name"].as_str().is_none() {
            return Err(a.fail(format!("scene info returned no scene name: {v}")));
        }
        t[2].push(took);
        sizes[2] = v.to_string().len();

        let name = format!("McpBench{round:04}");
        let (took, v) = a.call_tool(
            "tool_call",
            json!({"name": "manage_gameobject",
                   "arguments": {"action": "create", "name": name, "primitive": "cube"}}),
        )?;
        if v["success"] != json!(true) {
            return Err(a.fail(format!("create {name} did not succeed: {v}")));
        }
        t[3].push(took);
        sizes[3] = v.to_string().len();

        let (took, bytes) = direct.command(rt, "scene", json!({"action": "info"}), true)?;
        t[4].push(took);
        sizes[4] = bytes;

        let (took, bytes) = direct.command(
            rt,
            "manage_gameobject",
            json!({"action": "create", "name": format!("McpBenchDirect{round:04}"), "primitive": "cube"}),
            false,
        )?;
        t[5].push(took);
        sizes[5] = bytes;

        let (took, v) = b.call_tool("tool_call", read.clone())?;
        if v["result"]["status"] != json!("spilled") {
            return Err(b.fail(format!(
                "the read was not spilled under cap {SPILL_INLINE_CAP}: {v}"
            )));
        }
        t[6].push(took);
        sizes[6] = v.to_string().len();
        round += 1;
    }
    sample_memory(round, a, b);
    let fig = |i: usize, what: &str| {
        let mut d = distribution(&t[i]);
        d[what] = json!(sizes[i]);
        d
    };
    Ok(CallFigures {
        rounds: round,
        mutations: (t[3].len() + t[5].len()) as u64,
        search: fig(0, "structured_content_bytes"),
        describe: fig(1, "structured_content_bytes"),
        read: fig(2, "structured_content_bytes"),
        mutation: fig(3, "structured_content_bytes"),
        direct_read: fig(4, "response_body_bytes"),
        direct_mutation: fig(5, "response_body_bytes"),
        spilled: fig(6, "structured_content_bytes"),
        memory_series,
    })
}

/// Calls sent straight to the simulator with the adapter's own HTTP client: the baseline.
struct DirectClient {
    client: ConnectorClient,
    catalog_hash: String,
}

impl DirectClient {
    fn connect(
        rt: &tokio::runtime::Runtime,
        home: &Path,
        project: &Path,
        sim: &Simulator,
    ) -> Res<DirectClient> {
        let agent_home = AgentHome::for_home(home);
        let sel = Selector {
            project: Some(project.to_string_lossy().into_owned()),
            ..Default::default()
        };
        let instance = rt
            .block_on(hera_agent_unity::discover(
                &agent_home,
                &sel,
                Duration::from_secs(10),
            ))
            .map_err(|e| format!("discover the simulator: {e}"))?;
        Ok(DirectClient {
            client: ConnectorClient::new(agent_home, instance, REQUEST_TIMEOUT),
            catalog_hash: sim.catalog_hash(),
        })
    }

    /// One `/command` that must succeed; returns its time and the decoded body's size.
    fn command(
        &self,
        rt: &tokio::runtime::Runtime,
        tool: &str,
        params: Value,
        idempotent: bool,
    ) -> Res<(Duration, usize)> {
        let Value::Object(params) = params else {
            unreachable!("params are built as objects here")
        };
        let opts = CallOptions {
            catalog_hash: Some(self.catalog_hash.clone()),
            idempotent,
            client_kind: ClientKind::Mcp,
            ..Default::default()
        };
        let start = Instant::now();
        let reply = rt
            .block_on(self.client.command(tool, &params, opts))
            .map_err(|e| format!("direct {tool}: {e}"))?;
        let took = start.elapsed();
        if !reply.envelope.success {
            return Err(format!("direct {tool} failed: {}", reply.envelope.raw));
        }
        Ok((took, reply.envelope.raw.to_string().len()))
    }
}

fn expect_hits(s: &Server, v: &Value) -> Res<()> {
    match v["data"]["results"].as_array() {
        Some(hits) if !hits.is_empty() => Ok(()),
        _ => Err(s.fail(format!("tool_search returned no hits: {v}"))),
    }
}

fn tool_count(list_result: &Value) -> usize {
    list_result["tools"].as_array().map_or(0, Vec::len)
}

/// The adapter binary next to this example's build output, built first (a no-op when current).
fn adapter_binary() -> Res<PathBuf> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let profile_dir = exe
        .parent()
        .and_then(|p| p.parent())
        .ok_or("unexpected example location")?;
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    // `cargo run --example` builds the library and the example, not the binary.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(cargo);
    build.args([
        "build",
        "--quiet",
        "--workspace",
        "--bin",
        "hera-agent-unity",
    ]);
    if release {
        build.arg("--release");
    }
    let status = build.status().map_err(|e| format!("run cargo: {e}"))?;
    if !status.success() {
        return Err("building the hera-agent-unity binary failed".into());
    }
    Ok(profile_dir.join(format!("hera-agent-unity{}", std::env::consts::EXE_SUFFIX)))
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn distribution(samples: &[Duration]) -> Value {
    if samples.is_empty() {
        return json!({"samples": 0});
    }
    let mut s = samples.to_vec();
    s.sort_unstable();
    // Samples are in time order: the median of the first and the last tenth shows drift over
    // the loop (a cost that grows with the session), which the percentiles alone would hide.
    let tenth = samples.len() / 10;
    let drift = (tenth >= 10).then(|| {
        let median = |part: &[Duration]| {
            let mut p = part.to_vec();
            p.sort_unstable();
            ms(percentile(&p, 0.5))
        };
        json!({
            "p50_first_tenth_ms": median(&samples[..tenth]),
            "p50_last_tenth_ms": median(&samples[samples.len() - tenth..]),
        })
    });
    let mean = s.iter().map(Duration::as_secs_f64).sum::<f64>() / s.len() as f64;
    json!({
        "samples": s.len(),
        "min_ms": ms(s[0]),
        "p50_ms": ms(percentile(&s, 0.50)),
        "p95_ms": ms(percentile(&s, 0.95)),
        "p99_ms": ms(percentile(&s, 0.99)),
        "max_ms": ms(*s.last().expect("non-empty")),
        "mean_ms": round3(mean * 1000.0),
        "drift": drift,
    })
}

/// 1, 5 and 15 minute load averages.
fn load_average() -> Value {
    match std::fs::read_to_string("/proc/loadavg") {
        Ok(l) => json!(
            l.split_whitespace()
                .take(3)
                .filter_map(|x| x.parse::<f64>().ok())
                .collect::<Vec<_>>()
        ),
        Err(_) => Value::Null,
    }
}

/// VmRSS, VmHWM, threads and CPU time of a process, from `/proc`.
#[cfg(target_os = "linux")]
fn proc_sample(pid: u32) -> Value {
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
        "threads": field("Threads:"),
        "cpu_ms": cpu_ms,
    })
}

#[cfg(not(target_os = "linux"))]
fn proc_sample(_pid: u32) -> Value {
    Value::Null
}

/// Today's UTC date as YYYY-MM-DD (civil-from-days, proleptic Gregorian).
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
