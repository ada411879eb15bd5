//! The one benchmark harness: the MCP server as an agent uses it, as ratios against the same
//! Connector call made straight from this process, written to `metrics/bench.json` with the
//! machine, the commit and the command; the README's "Performance" table is generated from it.
//!
//! ```sh
//! cargo run --release --example bench            # full run: metrics/bench.json + README table
//! cargo run --example bench -- --smoke           # a few iterations (CI): checks every step runs
//! cargo run --release --example bench -- --readme   # re-render the README table only
//! ```
//!
//! Options: `--smoke`, `--output <file>` (default `metrics/bench.json` for a full release run,
//! a temporary file otherwise), `--server <binary>` (default: the `hera-agent-unity` built next to
//! this example), `--baseline-server <binary>` (another build, for the binary-size comparison),
//! `--no-readme`, `--only <sections>` (comma-separated, of `startup`, `latency`, `throughput`,
//! `first_search`, `memory`, `spill`, `search`, `binary`: measure only those, e.g. while
//! working on one target; such a run never writes `metrics/bench.json` or the README).
//!
//! The reference Editor simulator runs in this process (temporary HOME, real HTTP on 127.0.0.1);
//! the real `hera-agent-unity mcp --transport stdio` binary runs as child processes. The baseline
//! ("direct") is `connector::ConnectorClient`, the adapter's own HTTP client, called from this
//! process: a fresh socket per request, `Connection: close`, the same `meta` (operation id,
//! arguments hash, catalog hash, client kind). MCP and direct samples are interleaved in the same
//! rounds, so each ratio compares figures taken under the same machine state. Measured:
//!
//! 1. read (`scene info`) and mutation (`manage_gameobject create`) `tool_call` p50/p99;
//! 2. throughput with 16 and 64 `tool_call`s in flight on one stdio session, against the same
//!    number of concurrent direct requests;
//! 3. spawn → first `tool_search` answer with a warm catalog cache and with none (against a
//!    direct catalog fetch);
//! 4. VmHWM after catalog load + 1,000 mixed calls, RSS growth over 10,000 calls, idle RSS;
//! 5. a ~48 MiB result (just under the Connector's 50 MiB reply cap), spilled: peak RSS ÷ payload;
//! 6. `tool_search` p50 in process at 34 tools and on a synthetic 10,000-tool catalog;
//! 7. the stripped release binary's size and the release profile.
//!
//! Wall clock only. The machine is shared and noisy, so the load average is recorded at the
//! start and the end. Every loop is bounded in rounds and time; any failed step aborts the run.

mod client;
mod readme;
mod search;

use client::{Ctx, REQUEST_TIMEOUT, Server};
use hera_agent_unity::{AgentHome, CallOptions, ClientKind, ConnectorClient, Selector};
use hera_connector_sim::{SimConfig, Simulator};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub type Res<T> = Result<T, String>;

/// Wall-clock budget of each measured loop; a loop stops early when it is spent.
const PHASE_BUDGET: Duration = Duration::from_secs(120);
/// The idle sample is taken this long after spawn, before anything is sent.
const IDLE_SAMPLE_DELAY: Duration = Duration::from_millis(300);
const IN_FLIGHT: [usize; 2] = [16, 64];
/// Everyday requests, used in turn.
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

/// Iteration counts: the full run, or the smoke run that only proves every step still works.
struct Plan {
    smoke: bool,
    latency_rounds: usize,
    /// Repetitions of each (MCP, direct) throughput pair per concurrency.
    throughput_reps: usize,
    /// Requests per throughput burst, as a multiple of the concurrency.
    throughput_per_slot: usize,
    spawn_rounds: usize,
    mixed_calls: usize,
    growth_calls: usize,
    spill_bytes: usize,
}

impl Plan {
    fn full() -> Plan {
        Plan {
            smoke: false,
            latency_rounds: 1000,
            throughput_reps: 3,
            throughput_per_slot: 16,
            spawn_rounds: 20,
            mixed_calls: 1000,
            growth_calls: 10_000,
            spill_bytes: 48 * 1024 * 1024,
        }
    }
    fn smoke() -> Plan {
        Plan {
            smoke: true,
            latency_rounds: 5,
            throughput_reps: 1,
            throughput_per_slot: 2,
            spawn_rounds: 1,
            mixed_calls: 20,
            growth_calls: 40,
            spill_bytes: 1024 * 1024,
        }
    }
}

struct Args {
    smoke: bool,
    readme_only: bool,
    no_readme: bool,
    output: Option<PathBuf>,
    server: Option<PathBuf>,
    baseline_server: Option<PathBuf>,
    /// `--only`: the sections to measure; `None` measures all.
    only: Option<Vec<String>>,
}

/// The sections `--only` accepts, in run order.
const SECTIONS: [&str; 8] = [
    "startup",
    "latency",
    "throughput",
    "first_search",
    "memory",
    "spill",
    "search",
    "binary",
];

impl Args {
    fn wants(&self, section: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|s| s == section))
    }
}

fn parse_args() -> Res<Args> {
    let mut a = Args {
        smoke: false,
        readme_only: false,
        no_readme: false,
        output: None,
        server: None,
        baseline_server: None,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut path = |name: &str| {
            it.next()
                .map(PathBuf::from)
                .ok_or(format!("{name} needs a path"))
        };
        match arg.as_str() {
            "--smoke" => a.smoke = true,
            "--readme" => a.readme_only = true,
            "--no-readme" => a.no_readme = true,
            "--output" => a.output = Some(path("--output")?),
            "--server" => a.server = Some(path("--server")?),
            "--baseline-server" => a.baseline_server = Some(path("--baseline-server")?),
            "--only" => {
                let list = it.next().ok_or("--only needs a list of sections")?;
                let only: Vec<String> = list.split(',').map(|s| s.trim().to_string()).collect();
                if let Some(bad) = only.iter().find(|s| !SECTIONS.contains(&s.as_str())) {
                    return Err(format!(
                        "--only: unknown section {bad:?}; the sections are {}",
                        SECTIONS.join(", ")
                    ));
                }
                a.only = Some(only);
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?}; see the doc comment of examples/bench/main.rs"
                ));
            }
        }
    }
    Ok(a)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let args = parse_args()?;
    let committed = root().join("metrics/bench.json");
    if args.readme_only {
        let text = std::fs::read_to_string(&committed)
            .map_err(|e| format!("{}: {e}", committed.display()))?;
        let report: Value = serde_json::from_str(&text).map_err(|e| format!("bench.json: {e}"))?;
        return readme::write(&root().join("README.md"), &report);
    }
    if args.only.is_some()
        && args
            .output
            .as_ref()
            .is_some_and(|o| o.ends_with("metrics/bench.json"))
    {
        return Err(
            "an --only run measures part of the report; it is not written to metrics/bench.json"
                .into(),
        );
    }
    let release = !cfg!(debug_assertions);
    let plan = if args.smoke {
        Plan::smoke()
    } else {
        Plan::full()
    };
    if !release && !plan.smoke {
        eprintln!("bench: debug build; figures are not representative (use --release)");
    }
    let load_start = load_average();
    // Absolute: the servers run with the temporary HOME as their working directory.
    let binary = match &args.server {
        Some(b) => std::fs::canonicalize(b).map_err(|e| format!("{}: {e}", b.display()))?,
        None => adapter_binary()?,
    };
    let home = tempfile::tempdir().map_err(|e| format!("temp HOME: {e}"))?;
    let project = home.path().join("Projects").join("BenchGame");
    std::fs::create_dir_all(&project).map_err(|e| format!("project dir: {e}"))?;
    let ctx = Ctx {
        binary: binary.clone(),
        home: home.path().to_path_buf(),
        project: project.clone(),
        spawned: std::cell::Cell::new(0),
    };
    let sim = Simulator::start_background(SimConfig::new(home.path(), project.to_string_lossy()))
        .map_err(|e| format!("simulator: {e}"))?;
    if !sim.wait_ready_blocking(Duration::from_secs(10)) {
        return Err("the simulator did not become ready within 10 s".into());
    }
    // The same worker count as the server's runtime, so neither side has more threads.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    let direct = DirectClient::connect(&rt, home.path(), &project, &sim)?;

    let skipped = || Ok::<Value, String>(Value::Null);
    eprintln!("bench: 0. start-up and tools/list with no Editor");
    let startup = if args.wants("startup") {
        startup_rounds(&ctx, &plan)?
    } else {
        skipped()?
    };

    eprintln!("bench: 1. latency (read and mutation, interleaved with direct HTTP)");
    let (latency, creates) = if args.wants("latency") {
        let creates_before = sim.side_effects_of("manage_gameobject", Some("create"));
        let latency = latency_rounds(&ctx, &direct, &rt, &plan)?;
        let creates = sim.side_effects_of("manage_gameobject", Some("create")) - creates_before;
        if creates != latency.mutations {
            return Err(format!(
                "the simulator executed {creates} manage_gameobject create(s) for {} sent",
                latency.mutations
            ));
        }
        (latency.figures, json!(creates))
    } else {
        (Value::Null, Value::Null)
    };

    eprintln!("bench: 2. throughput at {IN_FLIGHT:?} in flight");
    let throughput = if args.wants("throughput") {
        throughput(&ctx, &direct, &rt, &plan)?
    } else {
        skipped()?
    };

    eprintln!("bench: 3. spawn -> first tool_search, warm and cold cache");
    let first_search = if args.wants("first_search") {
        first_search_rounds(&ctx, &direct, &rt, &plan)?
    } else {
        skipped()?
    };

    eprintln!("bench: 4. memory over {} mixed calls", plan.growth_calls);
    let memory = if args.wants("memory") {
        memory_session(&ctx, &plan)?
    } else {
        skipped()?
    };

    eprintln!("bench: 5. a spilled result of {} bytes", plan.spill_bytes);
    let spill = if args.wants("spill") {
        spill_session(&ctx, &sim, &direct, &rt, &plan)?
    } else {
        skipped()?
    };
    sim.shutdown();

    eprintln!("bench: 6. tool_search in process");
    let search = if args.wants("search") {
        search::run(plan.smoke)
    } else {
        Value::Null
    };

    let binary_fig = if args.wants("binary") {
        binary_figures(&binary, args.baseline_server.as_deref())
    } else {
        Value::Null
    };
    let load_end = load_average();
    let command = std::iter::once(if release {
        "cargo run --release --example bench --".to_string()
    } else {
        "cargo run --example bench --".to_string()
    })
    .chain(std::env::args().skip(1))
    .collect::<Vec<_>>()
    .join(" ");
    let mut report = json!({
        "format": "hera.bench/1",
        "command": command.trim_end_matches(" --"),
        "mode": if plan.smoke { "smoke (a few iterations: proves the steps run, figures mean nothing)" } else if args.only.is_some() { "partial (--only)" } else { "full" },
        "profile": if release { "release" } else { "debug (not representative)" },
        "date": today(),
        "commit": commit(),
        "machine": machine(load_start, load_end),
        "server": {
            "binary": binary.display().to_string(),
            "invocation": "hera-agent-unity mcp --transport stdio, env HERA_MCP_ENABLED=1, HOME=<temp>, HERA_AGENT_PROJECT=<project>",
            "processes_spawned": ctx.spawned.get(),
        },
        "about": {
            "baseline": "direct = hera_agent_unity::ConnectorClient called from the benchmark process: fresh socket per request, Connection: close, the same meta (operation id, arguments hash, catalog hash, client_kind mcp)",
            "latency": "wall clock from writing the JSON-RPC line to reading its response line; direct: from the call to the decoded reply; percentiles nearest-rank",
            "interleaving": "MCP and direct samples alternate within each round (the order flips every round), so ratios compare the same machine state",
            "memory": "VmRSS / VmHWM (KiB) from /proc/<pid>/status of the server process (Linux only)",
            "editor": "the reference simulator in this process, real HTTP on 127.0.0.1; its handlers are in memory, so the figures isolate the adapter",
            "noise": "a shared 2-core machine: compare ratios from one run, not absolute figures across runs",
        },
        "startup_no_editor": startup,
        "latency": latency,
        "throughput": throughput,
        "first_tool_search": first_search,
        "memory": memory,
        "spill": spill,
        "search_in_process": search,
        "binary": binary_fig,
        "checks": {
            "simulator_executed_every_create_sent": creates,
            "every_step_succeeded": true,
        },
    });
    report["targets"] = targets(&report);
    let text = serde_json::to_string_pretty(&report).expect("a JSON value serializes") + "\n";
    let partial = args.only.is_some();
    let output = match (&args.output, release && !plan.smoke && !partial) {
        (Some(p), _) => p.clone(),
        (None, true) => committed.clone(),
        (None, false) => std::env::temp_dir().join("hera-bench.json"),
    };
    std::fs::write(&output, &text).map_err(|e| format!("write {}: {e}", output.display()))?;
    eprintln!("bench: wrote {}", output.display());
    if output == committed && !args.no_readme {
        readme::write(&root().join("README.md"), &report)?;
    }
    eprintln!("{}", readme::table(&report));
    Ok(())
}

/// What must stay fast: spawn → `initialize` and spawn → compact `tools/list`, in a HOME that
/// has never seen an Editor (no heartbeat, no cached catalog), a fresh process per sample.
fn startup_rounds(ctx: &Ctx, plan: &Plan) -> Res<Value> {
    let empty = tempfile::tempdir().map_err(|e| format!("temp HOME: {e}"))?;
    let bare = Ctx {
        binary: ctx.binary.clone(),
        home: empty.path().to_path_buf(),
        project: ctx.project.clone(),
        spawned: std::cell::Cell::new(0),
    };
    let mut init = Vec::new();
    let mut list = Vec::new();
    let start = Instant::now();
    while init.len() < plan.spawn_rounds && start.elapsed() < PHASE_BUDGET {
        let t = Instant::now();
        let mut s = bare.spawn("startup", &[])?;
        s.initialize()?;
        init.push(t.elapsed());
        let (_, reply) = s.request("tools/list", json!({}))?;
        list.push(t.elapsed());
        let tools = reply.result["tools"].as_array().map_or(0, Vec::len);
        if tools != 3 {
            return Err(s.fail(format!("compact tools/list had {tools} tools, not 3")));
        }
        s.close()?;
    }
    ctx.spawned.set(ctx.spawned.get() + bare.spawned.get());
    Ok(json!({
        "spawn_to_initialize": distribution(&init),
        "spawn_to_tools_list": distribution(&list),
        "what": "a HOME with no heartbeat and no cached catalog; compact exposure (3 tools)",
    }))
}

/// Figures of [`latency_rounds`].
struct Latency {
    figures: Value,
    mutations: u64,
}

/// Read and mutation through a fresh compact session, each beside the same call made directly.
fn latency_rounds(
    ctx: &Ctx,
    direct: &DirectClient,
    rt: &tokio::runtime::Runtime,
    plan: &Plan,
) -> Res<Latency> {
    let mut s = ctx.spawn("latency", &[])?;
    s.initialize()?;
    // Catalog load and the first call's one-time costs are not what this step measures.
    s.call_tool(
        "tool_call",
        json!({"name": "scene", "arguments": {"action": "info"}}),
    )?;
    direct.command(rt, "scene", json!({"action": "info"}), true)?;
    let mut t: [Vec<Duration>; 4] = Default::default();
    let start = Instant::now();
    let read = json!({"name": "scene", "arguments": {"action": "info"}});
    let mut round = 0;
    while round < plan.latency_rounds && start.elapsed() < PHASE_BUDGET {
        let flip = round % 2 == 1;
        for step in 0..2 {
            if (step == 0) != flip {
                let (took, v) = s.call_tool("tool_call", read.clone())?;
                // The real Connector's scene info names the active scene under `data.active`.
                if v["data"]["active"]["name"].as_str().is_none()
                    && v["data"]["name"].as_str().is_none()
                {
                    return Err(s.fail(format!("scene info returned no scene name: {v}")));
                }
                t[0].push(took);
            } else {
                t[1].push(
                    direct
                        .command(rt, "scene", json!({"action": "info"}), true)?
                        .0,
                );
            }
        }
        for step in 0..2 {
            if (step == 0) != flip {
                let name = format!("BenchMcp{round:05}");
                let (took, v) = s.call_tool(
                    "tool_call",
                    json!({"name": "manage_gameobject",
                           "arguments": {"action": "create", "name": name, "primitive": "cube"}}),
                )?;
                if v["success"] != json!(true) {
                    return Err(s.fail(format!("create {name} did not succeed: {v}")));
                }
                t[2].push(took);
            } else {
                let args = json!({"action": "create", "name": format!("BenchDirect{round:05}"), "primitive": "cube"});
                t[3].push(direct.command(rt, "manage_gameobject", args, false)?.0);
            }
        }
        round += 1;
    }
    s.close()?;
    let d: Vec<Value> = t.iter().map(|x| distribution(x)).collect();
    let ratio = |a: &Value, b: &Value, k: &str| match (a[k].as_f64(), b[k].as_f64()) {
        (Some(x), Some(y)) if y > 0.0 => json!(round3(x / y)),
        _ => Value::Null,
    };
    Ok(Latency {
        mutations: (t[2].len() + t[3].len()) as u64,
        figures: json!({
            "rounds": round,
            "read_tool_call": d[0],
            "read_direct": d[1],
            "mutation_tool_call": d[2],
            "mutation_direct": d[3],
            "ratios": {
                "read_p50": ratio(&d[0], &d[1], "p50_ms"),
                "read_p99": ratio(&d[0], &d[1], "p99_ms"),
                "mutation_p50": ratio(&d[2], &d[3], "p50_ms"),
                "mutation_p99": ratio(&d[2], &d[3], "p99_ms"),
            },
            "requests": {
                "read": {"name": "scene", "arguments": {"action": "info"}},
                "mutation": {"name": "manage_gameobject", "arguments": {"action": "create", "name": "Bench<side><round>", "primitive": "cube"}},
            },
        }),
    })
}

/// Requests per second with N `tool_call`s in flight on one stdio session, and with N direct
/// requests in flight from this process, alternating bursts.
fn throughput(
    ctx: &Ctx,
    direct: &DirectClient,
    rt: &tokio::runtime::Runtime,
    plan: &Plan,
) -> Res<Value> {
    let mut s = ctx.spawn("throughput", &[])?;
    s.initialize()?;
    let read = json!({"name": "scene", "arguments": {"action": "info"}});
    s.call_tool("tool_call", read.clone())?;
    let mut out = serde_json::Map::new();
    for n in IN_FLIGHT {
        let total = n * plan.throughput_per_slot;
        let mut mcp = Duration::ZERO;
        let mut dir = Duration::ZERO;
        let mut bursts = Vec::new();
        for rep in 0..plan.throughput_reps {
            let order = if rep % 2 == 0 { [0, 1] } else { [1, 0] };
            let mut pair = [Duration::ZERO; 2];
            for side in order {
                pair[side] = if side == 0 {
                    s.pipelined("tool_call", &read, total, n)?
                } else {
                    direct.burst(rt, total, n)?
                };
            }
            mcp += pair[0];
            dir += pair[1];
            bursts.push(json!({"mcp_ms": ms(pair[0]), "direct_ms": ms(pair[1])}));
        }
        let reqs = (total * plan.throughput_reps) as f64;
        let mcp_rps = reqs / mcp.as_secs_f64();
        let dir_rps = reqs / dir.as_secs_f64();
        out.insert(
            format!("in_flight_{n}"),
            json!({
                "requests_per_burst": total,
                "bursts": bursts,
                "mcp_requests_per_s": round1(mcp_rps),
                "direct_requests_per_s": round1(dir_rps),
                "ratio_mcp_over_direct": round3(mcp_rps / dir_rps),
            }),
        );
    }
    out.insert("server_after".into(), s.sample());
    s.close()?;
    out.insert("request".into(), json!({"tool_call": read, "what": "the read of step 1; MCP: one stdio session, a new request written as soon as one is answered; direct: N tokio tasks on a 2-worker runtime sharing one ConnectorClient"}));
    Ok(Value::Object(out))
}

/// Spawn → `initialize` → first `tool_search` answer, a fresh process per sample, with the
/// catalog cache in place (warm) and removed (cold), beside a direct catalog fetch.
fn first_search_rounds(
    ctx: &Ctx,
    direct: &DirectClient,
    rt: &tokio::runtime::Runtime,
    plan: &Plan,
) -> Res<Value> {
    let cache_dir = AgentHome::for_home(&ctx.home).catalog_cache_dir();
    let mut t: [Vec<Duration>; 3] = Default::default();
    let start = Instant::now();
    let mut round = 0;
    while round < plan.spawn_rounds && start.elapsed() < PHASE_BUDGET {
        match std::fs::remove_dir_all(&cache_dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("remove {}: {e}", cache_dir.display())),
        }
        t[0].push(spawn_to_search(ctx, QUERIES[round % QUERIES.len()])?);
        if !cache_dir.exists() {
            return Err("the cold server did not write the catalog cache".into());
        }
        let f = Instant::now();
        let fetched = rt.block_on(direct.client.fetch_catalog());
        fetched.map_err(|e| format!("direct catalog fetch: {e}"))?;
        t[1].push(f.elapsed());
        t[2].push(spawn_to_search(ctx, QUERIES[(round + 1) % QUERIES.len()])?);
        round += 1;
    }
    let d: Vec<Value> = t.iter().map(|x| distribution(x)).collect();
    let cold_minus_fetch = match (d[0]["p50_ms"].as_f64(), d[1]["p50_ms"].as_f64()) {
        (Some(c), Some(f)) => json!(round3(c - f)),
        _ => Value::Null,
    };
    Ok(json!({
        "rounds": round,
        "cold_no_cache": d[0],
        "direct_catalog_fetch": d[1],
        "warm_cache": d[2],
        "cold_p50_minus_fetch_p50_ms": cold_minus_fetch,
        "what": "spawn → initialize → notifications/initialized → tools/call tool_search (limit 5) answered; cold = the catalog cache directory removed before the spawn; fetch = ConnectorClient::fetch_catalog from this process (the catalog's bytes, unverified)",
    }))
}

fn spawn_to_search(ctx: &Ctx, query: &str) -> Res<Duration> {
    let t = Instant::now();
    let mut s = ctx.spawn("first-search", &[])?;
    s.initialize()?;
    let (_, v) = s.call_tool("tool_search", json!({"query": query, "limit": 5}))?;
    let took = t.elapsed();
    expect_hits(&s, &v)?;
    s.close()?;
    Ok(took)
}

/// A fresh session: idle, after the catalog loads, then mixed calls (search, describe, read,
/// mutation in turn) with a sample every 1,000 (or every tenth in a smoke run).
fn memory_session(ctx: &Ctx, plan: &Plan) -> Res<Value> {
    let mut s = ctx.spawn("memory", &[])?;
    std::thread::sleep(IDLE_SAMPLE_DELAY);
    let idle = s.sample();
    s.initialize()?;
    std::thread::sleep(IDLE_SAMPLE_DELAY);
    let after_init = s.sample();
    s.call_tool(
        "tool_describe",
        json!({"name": "manage_gameobject", "action": "create"}),
    )?;
    let after_catalog = s.sample();
    let every = (plan.growth_calls / 10).max(1);
    let mut series = vec![json!({"calls": 0, "sample": after_catalog.clone()})];
    let mut search_t = Vec::new();
    let mut at_mixed = Value::Null;
    let start = Instant::now();
    let mut n = 0;
    while n < plan.growth_calls && start.elapsed() < PHASE_BUDGET * 2 {
        match n % 4 {
            0 => {
                let q = QUERIES[(n / 4) % QUERIES.len()];
                let (took, v) = s.call_tool("tool_search", json!({"query": q, "limit": 5}))?;
                expect_hits(&s, &v)?;
                search_t.push(took);
            }
            1 => {
                s.call_tool(
                    "tool_describe",
                    json!({"name": "manage_gameobject", "action": "create"}),
                )?;
            }
            2 => {
                s.call_tool(
                    "tool_call",
                    json!({"name": "scene", "arguments": {"action": "info"}}),
                )?;
            }
            _ => {
                let (_, v) = s.call_tool(
                    "tool_call",
                    json!({"name": "manage_gameobject",
                           "arguments": {"action": "create", "name": format!("BenchMix{n:05}"), "primitive": "cube"}}),
                )?;
                if v["success"] != json!(true) {
                    return Err(s.fail(format!("mixed create did not succeed: {v}")));
                }
            }
        }
        n += 1;
        if n == plan.mixed_calls {
            at_mixed = s.sample();
        }
        if n % every == 0 {
            series.push(json!({"calls": n, "sample": s.sample()}));
        }
    }
    let end = s.sample();
    s.close()?;
    let kib = |v: &Value, k: &str| v[k].as_i64();
    let growth = |k: &str| match (kib(&end, k), kib(&at_mixed, k)) {
        (Some(a), Some(b)) => json!(a - b),
        _ => Value::Null,
    };
    Ok(json!({
        "idle_before_initialize": idle,
        "idle_sample_delay_ms": IDLE_SAMPLE_DELAY.as_millis() as u64,
        "idle_after_initialize": after_init,
        "after_catalog_load": after_catalog,
        "mixed_calls": plan.mixed_calls,
        "after_mixed_calls": at_mixed,
        "total_calls": n,
        "after_total_calls": end,
        "rss_growth_kib_after_mixed_to_end": growth("vm_rss_kib"),
        "hwm_growth_kib_after_mixed_to_end": growth("vm_hwm_kib"),
        "series": series,
        "tool_search_over_mcp": distribution(&search_t),
        "calls": "tool_search (the 8 queries in turn), tool_describe manage_gameobject create, tool_call scene info, tool_call manage_gameobject create, in turn",
    }))
}

/// A console read of `plan.spill_bytes`, which the server must spill to its result cache.
fn spill_session(
    ctx: &Ctx,
    sim: &Simulator,
    direct: &DirectClient,
    rt: &tokio::runtime::Runtime,
    plan: &Plan,
) -> Res<Value> {
    // Plain words, so credential screening has nothing to withhold; the console keeps 5,000
    // entries, so each is a fifth of a thousandth of the payload.
    const ENTRIES: usize = 4_800;
    let per_entry = plan.spill_bytes / ENTRIES;
    let line = "the quick brown fox jumps over the lazy dog; ";
    sim.with_editor(|ed| {
        for i in 0..ENTRIES {
            let mut m = format!("bench frame {i:05}: ");
            while m.len() + line.len() < per_entry {
                m.push_str(line);
            }
            ed.log("log", &m);
        }
    });
    let args = json!({"lines": 0, "type": "log"});
    let mut s = ctx.spawn("spill", &[])?;
    s.initialize()?;
    s.call_tool("tool_describe", json!({"name": "console"}))?;
    let before = s.sample();
    let (took, v) = s.call_tool(
        "tool_call",
        json!({"name": "console", "arguments": args.clone()}),
    )?;
    let after = s.sample();
    s.close()?;
    if v["result"]["status"] != json!("spilled") {
        let head: String = v.to_string().chars().take(400).collect();
        return Err(format!("the large console read was not spilled: {head}"));
    }
    let (direct_took, payload) = direct.command(rt, "console", args.clone(), true)?;
    let kib = |v: &Value, k: &str| v[k].as_f64();
    let peak = kib(&after, "vm_hwm_kib");
    let base = kib(&before, "vm_hwm_kib");
    let p = payload as f64;
    Ok(json!({
        "payload_bytes": payload,
        "payload_what": "the Connector's whole /command reply body (console, lines 0, type log; 4,800 entries of plain words)",
        "server_before": before,
        "server_after": after,
        "peak_rss_over_payload": peak.map(|k| round3(k * 1024.0 / p)),
        "peak_growth_over_payload": match (peak, base) { (Some(a), Some(b)) => json!(round3((a - b) * 1024.0 / p)), _ => Value::Null },
        "tool_call_ms": ms(took),
        "direct_ms": ms(direct_took),
        "result_status": v["result"]["status"],
    }))
}

/// Sizes of the measured binary (and a baseline build's), stripped and not, and the release
/// profile they were built with.
fn binary_figures(binary: &Path, baseline: Option<&Path>) -> Value {
    let sizes = |b: &Path| {
        let bytes = std::fs::metadata(b).map(|m| m.len()).ok();
        let stripped =
            std::env::temp_dir().join(format!("hera-bench-strip-{}", std::process::id()));
        let ok = Command::new("strip")
            .arg("-o")
            .arg(&stripped)
            .arg(b)
            .status()
            .is_ok_and(|s| s.success());
        let stripped_bytes = ok
            .then(|| std::fs::metadata(&stripped).map(|m| m.len()).ok())
            .flatten();
        let _ = std::fs::remove_file(&stripped);
        json!({"path": b.display().to_string(), "bytes": bytes, "stripped_bytes": stripped_bytes})
    };
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap_or_default();
    let profile: Vec<&str> = manifest
        .lines()
        .skip_while(|l| l.trim() != "[profile.release]")
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    json!({
        "measured": sizes(binary),
        "baseline": baseline.map(sizes),
        "release_profile": profile,
        "stripped_by": "strip -o (binutils), a copy; the build itself is unchanged",
    })
}

/// The issue's targets with what this run measured.
fn targets(r: &Value) -> Value {
    let f = |v: &Value| v.as_f64();
    let lat = &r["latency"]["ratios"];
    let mut rows = Vec::new();
    let mut row = |id: &str,
                   what: &str,
                   measured: Option<f64>,
                   unit: &str,
                   cmp: &str,
                   target: f64| {
        let met = measured.map(|m| {
            if cmp == "<=" {
                m <= target
            } else {
                m >= target
            }
        });
        rows.push(json!({"id": id, "what": what, "measured": measured, "unit": unit, "target": format!("{cmp} {target}"), "met": met}));
    };
    row(
        "read_p50",
        "read tool_call p50 ÷ direct HTTP",
        f(&lat["read_p50"]),
        "×",
        "<=",
        1.3,
    );
    row(
        "read_p99",
        "read tool_call p99 ÷ direct HTTP",
        f(&lat["read_p99"]),
        "×",
        "<=",
        2.0,
    );
    row(
        "mutation_p50",
        "mutation tool_call p50 ÷ direct HTTP",
        f(&lat["mutation_p50"]),
        "×",
        "<=",
        1.3,
    );
    row(
        "mutation_p99",
        "mutation tool_call p99 ÷ direct HTTP",
        f(&lat["mutation_p99"]),
        "×",
        "<=",
        2.0,
    );
    for n in IN_FLIGHT {
        row(
            &format!("throughput_{n}"),
            &format!("throughput, {n} in flight, ÷ direct HTTP"),
            f(&r["throughput"][format!("in_flight_{n}")]["ratio_mcp_over_direct"]),
            "×",
            ">=",
            0.7,
        );
    }
    let fs = &r["first_tool_search"];
    row(
        "first_search_warm",
        "spawn → first tool_search, warm cache (p50)",
        f(&fs["warm_cache"]["p50_ms"]),
        "ms",
        "<=",
        15.0,
    );
    row(
        "first_search_cold",
        "spawn → first tool_search, no cache, minus the catalog fetch (p50)",
        f(&fs["cold_p50_minus_fetch_p50_ms"]),
        "ms",
        "<=",
        10.0,
    );
    let m = &r["memory"];
    let mib = |v: &Value| v.as_f64().map(|k| round3(k / 1024.0));
    row(
        "hwm_mixed",
        &format!(
            "VmHWM after catalog load + {} mixed calls",
            m["mixed_calls"]
        ),
        mib(&m["after_mixed_calls"]["vm_hwm_kib"]),
        "MiB",
        "<=",
        16.0,
    );
    row(
        "rss_growth",
        &format!(
            "RSS growth from {} to {} calls",
            m["mixed_calls"], m["total_calls"]
        ),
        mib(&m["rss_growth_kib_after_mixed_to_end"]),
        "MiB",
        "<=",
        0.5,
    );
    row(
        "idle_rss",
        "idle RSS (before initialize)",
        mib(&m["idle_before_initialize"]["vm_rss_kib"]),
        "MiB",
        "<=",
        8.0,
    );
    row(
        "idle_rss_anon",
        "idle RSS, private (heap, stacks) only",
        mib(&m["idle_before_initialize"]["rss_anon_kib"]),
        "MiB",
        "<=",
        8.0,
    );
    row(
        "spill_peak",
        "spilled result: peak RSS ÷ payload",
        f(&r["spill"]["peak_rss_over_payload"]),
        "×",
        "<=",
        3.0,
    );
    let s = &r["search_in_process"];
    row(
        "search_34",
        "tool_search p50, 34 tools (in process)",
        f(&s["builtin_catalog"]["search"]["p50_us"]),
        "µs",
        "<=",
        100.0,
    );
    row(
        "search_10k",
        "tool_search p50, synthetic 10,000 tools (in process)",
        f(&s["synthetic_catalog"]["search"]["p50_us"]),
        "µs",
        "<=",
        2000.0,
    );
    let st = &r["startup_no_editor"];
    rows.push(json!({"id": "startup_initialize", "what": "spawn → initialize, no Editor (p50)", "measured": f(&st["spawn_to_initialize"]["p50_ms"]), "unit": "ms", "target": "keep", "met": Value::Null}));
    rows.push(json!({"id": "startup_tools_list", "what": "spawn → tools/list, no Editor (p50)", "measured": f(&st["spawn_to_tools_list"]["p50_ms"]), "unit": "ms", "target": "keep", "met": Value::Null}));
    let mut out = Value::Array(rows);
    if let Some(b) = r["binary"]["measured"]["stripped_bytes"].as_f64() {
        out.as_array_mut().expect("array").push(json!({
            "id": "binary", "what": "stripped release binary", "measured": round3(b / 1048576.0),
            "unit": "MiB", "target": "report", "met": Value::Null,
        }));
    }
    out
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

    fn options(&self, idempotent: bool) -> CallOptions {
        CallOptions {
            catalog_hash: Some(self.catalog_hash.clone()),
            idempotent,
            client_kind: ClientKind::Mcp,
            ..Default::default()
        }
    }

    /// One `/command` that must succeed; returns its time and the reply body's size.
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
        let opts = self.options(idempotent);
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

    /// `total` scene reads with `in_flight` outstanding; returns the wall time.
    fn burst(&self, rt: &tokio::runtime::Runtime, total: usize, in_flight: usize) -> Res<Duration> {
        let next = Arc::new(AtomicUsize::new(0));
        rt.block_on(async {
            let start = Instant::now();
            let mut set = tokio::task::JoinSet::new();
            for _ in 0..in_flight {
                let client = self.client.clone();
                let opts = self.options(true);
                let next = next.clone();
                set.spawn(async move {
                    let mut params = serde_json::Map::new();
                    params.insert("action".into(), json!("info"));
                    while next.fetch_add(1, Ordering::SeqCst) < total {
                        let reply = client
                            .command("scene", &params, opts.clone())
                            .await
                            .map_err(|e| format!("direct burst: {e}"))?;
                        if !reply.envelope.success {
                            return Err(format!("direct burst failed: {}", reply.envelope.raw));
                        }
                    }
                    Ok::<(), String>(())
                });
            }
            while let Some(r) = set.join_next().await {
                r.map_err(|e| format!("direct burst task: {e}"))??;
            }
            Ok(start.elapsed())
        })
    }
}

fn expect_hits(s: &Server, v: &Value) -> Res<()> {
    match v["data"]["results"].as_array() {
        Some(hits) if !hits.is_empty() => Ok(()),
        _ => Err(s.fail(format!("tool_search returned no hits: {v}"))),
    }
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
        "-p",
        "hera-agent-unity",
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

/// The checked-out commit and whether tracked files differ from it.
fn commit() -> Value {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    json!({
        "sha": git(&["rev-parse", "HEAD"]),
        "dirty": git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
    })
}

fn machine(load_start: Value, load_end: Value) -> Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|r| r.trim_start_matches([' ', '\t', ':']).to_string());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_kib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|r| r.split_whitespace().next()?.parse::<u64>().ok());
    json!({
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
        "kernel": std::fs::read_to_string("/proc/sys/kernel/osrelease").ok().map(|s| s.trim().to_string()),
        "cpu": cpu,
        "available_parallelism": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "mem_total_kib": mem_kib,
        "load_average_start": load_start,
        "load_average_end": load_end,
        "load_average_fields": "1, 5 and 15 minute averages from /proc/loadavg (null off Linux)",
    })
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
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
    let mean = s.iter().map(Duration::as_secs_f64).sum::<f64>() / s.len() as f64;
    json!({
        "samples": s.len(),
        "min_ms": ms(s[0]),
        "p50_ms": ms(percentile(&s, 0.50)),
        "p90_ms": ms(percentile(&s, 0.90)),
        "p99_ms": ms(percentile(&s, 0.99)),
        "max_ms": ms(*s.last().expect("non-empty")),
        "mean_ms": round3(mean * 1000.0),
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
