//! `catalog-payload-report`: what an agent pays, in bytes, for the hera-agent-unity MCP surface.
//!
//! It measures real bytes, not reconstructions: the reference Editor simulator runs in this
//! process with a throw-away HOME, the real `hera-agent-unity` binary runs as a stdio child, and
//! a minimal MCP client records the lines the server writes. The report is deterministic
//! (sorted keys, volatile values normalized; see `normalize`), so it can be committed and
//! compared: `--compare` lists growth and changes against a baseline, `--fail-on-growth` turns
//! growth into exit 3 for CI.
//!
//! # Layout
//! - `client`: the stdio MCP client; `session`: the measured exchanges;
//! - `scenario`: what is measured (flows, describe cases, exposures);
//! - `normalize`: volatile values; `measure`: byte accounting of one response;
//! - `raw_catalog`: the catalog as the Editor sends it;
//! - `comparison`: published figures of the anchor and the peers; `compare`: baseline deltas;
//! - `tasks`: the task suite's per-task cost and median; `chart`: its SVG.

mod chart;
mod client;
mod compare;
mod comparison;
mod measure;
mod normalize;
mod raw_catalog;
mod scenario;
mod session;
mod tasks;

use clap::Parser;
use client::{McpClient, SessionError};
use hera_connector_sim::{SimConfig, Simulator};
use normalize::Normalizer;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The report's schema. The anchor's `/2` measured catalog files; `/3` measures the live wire.
pub const SCHEMA: &str = "hera.catalog-payload-report/3";

/// How this report is regenerated; also written into the report and metrics/README.md.
pub const REPRODUCE: &str = "cargo build --workspace && target/debug/catalog-payload-report --output metrics/catalog-payload-baseline.json --tasks metrics/catalog-payload-tasks.json --chart metrics/catalog-payload-tasks.svg";

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_GROWTH: u8 = 3;

#[derive(Debug, Parser)]
#[command(
    name = "catalog-payload-report",
    version,
    about = "Measure what an agent pays in bytes (and estimated tokens) for the hera-agent-unity MCP surface",
    long_about = "\
Measure what an agent pays in bytes (and estimated tokens) for the hera-agent-unity MCP surface.

It starts the reference Editor simulator in this process (temporary HOME, OS-assigned port),
runs the real `hera-agent-unity mcp --transport stdio` binary as a child, speaks MCP to it over
stdio (initialize with protocol 2025-11-25), and records the bytes the server writes:

  compact     initialize (and its instructions) and the compact tools/list
  flows       search -> describe(action) -> call for everyday tasks: create a GameObject,
              read scene info, add a component, find a GameObject, run EditMode tests
  describe    tool_describe of a whole tool against single actions (manage_gameobject, input)
  catalog     the raw `list {\"catalog\":true}` reply from the Editor: the cost of exposing
              every schema, per tool and in total
  exposures   tools/list under --exposure profile --profile X and --exposure full, or
              \"not available in this build\" with the server's reason
  comparison  the Go anchor's and other bridges' published figures beside ours, with sources

  tasks       the flows as a task suite: per task, the o200k tokens and bytes of its results
              as the client shows them to the model (each once), the median against the
              target (3,500 B and 900 tokens), written with --tasks and drawn with --chart

Bytes are exact; o200k_tokens are counted with the o200k_base tokenizer (tiktoken-rs, offline);
tokens_estimate is ceil(bytes/4), kept for comparison with the anchor's figures.
Volatile values (epoch, project id, operation ids, timings, the temp HOME) are normalized before
counting, so two runs give the same report; `about.normalization` in the report says how.
Debug and release builds give the same bytes.",
    after_help = "\
EXIT CODES:
  0  report written (and, with --compare, the deltas printed to stderr)
  1  the measurement failed (simulator, server, a flow step, an unreadable baseline)
  2  bad command line
  3  --fail-on-growth and some payload grew against the baseline

EXAMPLES:
  # Regenerate the committed baseline:
  cargo build --workspace && target/debug/catalog-payload-report --output metrics/catalog-payload-baseline.json

  # In CI: fail when the surface got more expensive than the committed baseline:
  target/debug/catalog-payload-report --output /tmp/payload.json \\
      --compare metrics/catalog-payload-baseline.json --fail-on-growth

  # Measure another build of the server:
  catalog-payload-report --binary target/release/hera-agent-unity"
)]
struct Args {
    /// The hera-agent-unity binary to measure [default: next to this program, i.e. the same
    /// target directory, e.g. target/debug/hera-agent-unity; build it with `cargo build --workspace`].
    #[arg(long, value_name = "PATH")]
    binary: Option<PathBuf>,
    /// Write the report here (pretty JSON, sorted keys) instead of stdout.
    #[arg(long, short = 'o', value_name = "PATH")]
    output: Option<PathBuf>,
    /// Compare with a committed report: print every grown, shrunk, changed, added or removed
    /// figure to stderr.
    #[arg(long, value_name = "BASELINE")]
    compare: Option<PathBuf>,
    /// With --compare: exit 3 when any measured payload (*_bytes or *_tokens, of the compact
    /// surface, every exposure, describe, flow and task) grew.
    #[arg(long, requires = "compare")]
    fail_on_growth: bool,
    /// Also write the task suite's summary (per-task tokens, median, target) here.
    #[arg(long, value_name = "PATH")]
    tasks: Option<PathBuf>,
    /// Also draw the task suite as an SVG chart here.
    #[arg(long, value_name = "PATH")]
    chart: Option<PathBuf>,
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("catalog-payload-report: {message}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

fn default_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate this program to find the server next to it: {e}"))?;
    let dir = exe.parent().ok_or("this program has no parent directory")?;
    Ok(dir.join(format!("hera-agent-unity{}", std::env::consts::EXE_SUFFIX)))
}

fn read_baseline(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the baseline {}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("the baseline {} is not JSON: {e}", path.display()))?;
    if v["schema"] != json!(SCHEMA) {
        return Err(format!(
            "the baseline {} is not a {SCHEMA} report (schema {}); regenerate it with: {REPRODUCE}",
            path.display(),
            v["schema"]
        ));
    }
    Ok(v)
}

fn run(args: &Args) -> Result<u8, String> {
    let baseline = args.compare.as_deref().map(read_baseline).transpose()?;
    let binary = match &args.binary {
        Some(b) => b.clone(),
        None => default_binary()?,
    };
    if !binary.is_file() {
        return Err(format!(
            "the server binary {} does not exist; build it with `cargo build --workspace` or \
             pass --binary PATH",
            binary.display()
        ));
    }

    let report = measure_all(&binary)?;
    let text = serde_json::to_string_pretty(&report).expect("a report serializes") + "\n";
    match &args.output {
        Some(path) => write_file(path, &text)?,
        None => print!("{text}"),
    }
    if let Some(path) = &args.tasks {
        let summary = json!({
            "schema": "hera.catalog-payload-tasks/1",
            "reproduce": REPRODUCE,
            "surface": report["surface"],
            "session_setup": {
                "initialize_o200k_tokens": report["compact"]["initialize"]["o200k_tokens"],
                "tools_list_o200k_tokens": report["compact"]["tools_list"]["o200k_tokens"],
            },
            "tasks": report["tasks"],
        });
        write_file(
            path,
            &(serde_json::to_string_pretty(&summary).expect("JSON") + "\n"),
        )?;
    }
    if let Some(path) = &args.chart {
        write_file(path, &chart::svg(&report["tasks"]))?;
    }
    for line in headline(&report) {
        eprintln!("{line}");
    }

    let Some(baseline) = baseline else {
        return Ok(0);
    };
    let delta = compare::compare(&baseline, &report);
    let against = args.compare.as_deref().expect("baseline implies --compare");
    if delta.is_empty() {
        eprintln!(
            "compare with {}: no differences in measured figures",
            against.display()
        );
    } else {
        eprintln!(
            "compare with {}: {} grown, {} shrunk, {} changed, {} added, {} removed",
            against.display(),
            delta.grown.len(),
            delta.shrunk.len(),
            delta.changed.len(),
            delta.added.len(),
            delta.removed.len()
        );
        for line in delta.lines() {
            eprintln!("  {line}");
        }
    }
    if args.fail_on_growth && !delta.grown.is_empty() {
        eprintln!(
            "payload grew against {}; if that is intended, regenerate the baseline: {REPRODUCE}",
            against.display()
        );
        return Ok(EXIT_GROWTH);
    }
    Ok(0)
}

/// A few lines for the person running it.
fn headline(r: &Value) -> Vec<String> {
    let n = |p: &str| {
        r.pointer(p)
            .and_then(Value::as_u64)
            .map_or("-".to_string(), |v| v.to_string())
    };
    let mut out = vec![
        format!(
            "compact tools/list: {} B, {} o200k tokens; initialize: {} B, {} o200k tokens",
            n("/compact/tools_list/result_bytes"),
            n("/compact/tools_list/o200k_tokens"),
            n("/compact/initialize/result_bytes"),
            n("/compact/initialize/o200k_tokens")
        ),
        format!(
            "raw catalog reply: {} B, {} o200k tokens, {} tools, {} actions",
            n("/catalog/envelope_bytes"),
            n("/catalog/o200k_tokens"),
            n("/catalog/tools"),
            n("/catalog/actions")
        ),
    ];
    if let Some(flows) = r["flows"].as_object() {
        for (id, f) in flows {
            out.push(format!(
                "task {id}: the model reads {} B, {} o200k tokens",
                f["total"]["model_bytes"], f["total"]["model_o200k_tokens"]
            ));
        }
    }
    out.push(format!(
        "median search -> describe -> call task: {} B, {} o200k tokens (target {} B, {} tokens: {})",
        n("/tasks/median/model_bytes"),
        n("/tasks/median/model_o200k_tokens"),
        tasks::TARGET_MEDIAN_BYTES,
        tasks::TARGET_MEDIAN_TOKENS,
        if r["tasks"]["target"]["met"] == json!(true) { "met" } else { "NOT met" }
    ));
    if let Some(ex) = r["exposures"].as_object() {
        for (id, e) in ex {
            if e["available"] == json!(true) {
                out.push(format!(
                    "exposure {id}: {} tools, {} B, {} o200k tokens",
                    e["tools"], e["result_bytes"], e["o200k_tokens"]
                ));
            } else {
                out.push(format!(
                    "exposure {id}: {} ({})",
                    show(&e["status"]),
                    show(&e["reason"])
                ));
            }
        }
    }
    out
}

fn show(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

fn failed(e: SessionError) -> String {
    e.to_string()
}

fn measure_all(binary: &Path) -> Result<Value, String> {
    let home = tempfile::Builder::new()
        .prefix("hera-payload-report-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary HOME: {e}"))?;
    let project = home.path().join("Projects").join("PayloadGame");
    std::fs::create_dir_all(&project)
        .map_err(|e| format!("cannot create the project folder: {e}"))?;
    let project = project.to_string_lossy().into_owned();
    let sim = Simulator::start_background(SimConfig::new(home.path(), project.clone()))
        .map_err(|e| format!("the simulator did not start: {e}"))?;
    if !sim.wait_ready_blocking(Duration::from_secs(30)) {
        return Err("the simulator did not become ready within 30 s".into());
    }
    let mut n = Normalizer::new(
        &sim.domain_epoch(),
        sim.project_id(),
        &home.path().to_string_lossy(),
    );
    let target = session::Target {
        binary,
        home: home.path(),
        project: &project,
    };

    let catalog = raw_catalog::measure(sim.port(), &mut n)?;

    let mut client = McpClient::spawn(binary, home.path(), &project, &[]).map_err(failed)?;
    let initialize = session::initialize(&mut client, &mut n).map_err(failed)?;
    let tools_list = session::tools_list(&mut client, &mut n).map_err(failed)?;
    let setup = initialize["result_bytes"].as_u64().unwrap_or(0)
        + tools_list["result_bytes"].as_u64().unwrap_or(0);
    let flows = session::flows(&mut client, &mut n, &scenario::flows(), setup).map_err(failed)?;
    let mut describe =
        session::describes(&mut client, &mut n, &scenario::describe_cases()).map_err(failed)?;
    client.close();
    // The full catalog entry of each described tool is what "describe everything" would send;
    // the action's JSON payload (structuredContent, the same JSON as its text) is set against it,
    // as the anchor's action_describe_savings do (the Go adapter v0.2.17's published figures).
    if let Some(map) = describe.as_object_mut() {
        for (tool, v) in map.iter_mut() {
            let entry = catalog["per_tool"][tool]["entry_bytes"].as_u64();
            v["catalog_entry_bytes"] = json!(entry);
            if let (Some(entry), Some(actions)) = (entry, v["actions"].as_object_mut()) {
                for a in actions.values_mut() {
                    let payload = a["model_bytes"].as_u64().unwrap_or(0);
                    a["saving_vs_catalog_entry"] = session::ratio_saved(payload, entry);
                }
            }
        }
    }

    let mut exposures = serde_json::Map::new();
    for e in scenario::exposures() {
        let v = session::exposure(&target, &mut n, &e).map_err(failed)?;
        exposures.insert(e.id.clone(), v);
    }

    let surface = json!({
        "server": format!("{} {}", show(&initialize["server_name"]), show(&initialize["server_version"])),
        "protocol_version": initialize["protocol_version"],
        "catalog_hash": catalog["catalog_hash"],
        "catalog_tools": catalog["tools"],
        "catalog_actions": catalog["actions"],
    });
    let mut report = json!({
        "schema": SCHEMA,
        "about": about(),
        "surface": surface,
        "compact": {"initialize": initialize, "tools_list": tools_list},
        "tasks": tasks::summary(&flows),
        "flows": flows,
        "describe": describe,
        "catalog": catalog,
        "exposures": exposures,
    });
    report["comparison"] = comparison::section(&report);
    sim.shutdown();
    Ok(report)
}

fn about() -> Value {
    json!({
        "what": "What an agent pays in bytes for the hera-agent-unity MCP surface, measured on the wire: the real hera-agent-unity binary over stdio against the reference Editor simulator (in-process, temporary HOME).",
        "reproduce": REPRODUCE,
        "protocol": "initialize with protocolVersion 2025-11-25 and no client capabilities, then notifications/initialized; tools/list is followed through nextCursor and summed over pages; server-to-client notifications are not counted (their number depends on timing and models do not see them).",
        "byte_accounting": {
            "frame_bytes": "the whole JSON-RPC response line the server wrote, without its newline",
            "result_bytes": "the JSON-RPC result object alone; the unit the anchor (ListToolsResult) and the peer bridges' published measurements ({\"tools\":…}) measure",
            "tools_array_bytes": "the tools array alone (the peer bridges' published measurements reports this unit)",
            "content_text_bytes": "the text content blocks of a tool result: what a text-only client hands the model",
            "structured_content_bytes": "structuredContent of a tool result: what a structured client may hand the model instead",
            "arguments_bytes": "the tool arguments the agent writes, compact JSON",
            "instructions_bytes": "the initialize instructions string (sent once, usually into the system prompt)",
            "envelope_bytes": "the Editor's raw list-catalog reply body; data_bytes is its data member",
            "entry_bytes": "one tool's entry in the raw catalog (every schema of the tool and its actions)",
            "session_result_bytes": "initialize + tools/list + the flow's three results: what an agent that does only this task pays",
            "model_bytes": "a tool result as the client shows it to the model, each payload once: structuredContent's compact JSON when present (Claude Code, Codex, Copilot CLI), else the text blocks (Claude Desktop, Cursor, VS Code, SDK-built agents); the two are the same JSON for this server",
            "o200k_tokens": "the result object (or, as model_o200k_tokens, the model_bytes text) counted with the o200k_base tokenizer (tiktoken-rs, bundled encoding, offline)",
            "exactness": "sub-parts are measured by compact re-serialization, which the tool checks gives back the exact length of the whole line first",
        },
        "token_estimate": "tokens_estimate = ceil(bytes/4) of result_bytes (envelope_bytes for the catalog). An estimate, not a tokenizer count: real tokenizers give 4.1-4.5 bytes per token on tool JSON. The bytes are the measurement.",
        "normalization": "Before counting, volatile values are replaced in the raw text (also inside escaped content text): domain_epoch -> 32 zeros, project_id -> sha256: + 64 zeros, operation ids -> op_ + a 32-hex counter in order of first appearance (all three keep their length, so counts are exact); every number in a timings object -> 0 (so timings count one digit each); the temporary HOME path -> $HOME (none is expected). digest fields are sha256 of the normalized text.",
        "build_profile": "Byte counts do not depend on debug or release builds; the baseline is generated from a debug build.",
        "schema_note": "hera.catalog-payload-report/2 is the Go anchor's report over catalog files (the Go adapter v0.2.17's published figures); /3 measures the live wire of this implementation. The comparison section maps the anchor's and peers' published figures onto ours, citing each source.",
    })
}
