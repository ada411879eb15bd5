//! `tool_search` latency in process: the built-in catalog (34 tools) and a synthetic catalog of
//! 10,000 tools (the 34 built-ins plus tools generated from the built-ins' own words with a fixed
//! seed, so term statistics look like a real catalog's and every run generates the same one).
//! Queries: every request in `tests/search/queries.json` and `tests/search/holdout.json`,
//! limit 5, no filter. Each search is timed on its own (wall clock, and the thread's CPU time,
//! which excludes preemption by other work on the machine); rounds and samples are bounded.

use hera_agent_unity::{SearchFilter, SearchIndex};
use hera_connector_contract::catalog::{
    ActionEntry, Catalog, RiskClass, SafetyDecl, Source, ToolEntry,
};
use hera_connector_sim::catalog::ToolSet;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const SYNTHETIC_TOOLS: usize = 10_000;
const SEED: u64 = 0x5EA2_C4B3_0000_0001;
const LIMIT: usize = 5;
/// Wall-clock budget per catalog; rounds stop early when it is spent.
const BUDGET: Duration = Duration::from_secs(20);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load_queries() -> Vec<String> {
    let mut out = Vec::new();
    for rel in ["tests/search/queries.json", "tests/search/holdout.json"] {
        let text = std::fs::read_to_string(root().join(rel)).expect("query file");
        let v: Value = serde_json::from_str(&text).expect("query file is JSON");
        for q in v["queries"].as_array().expect("queries") {
            out.push(q["query"].as_str().expect("query").to_string());
        }
    }
    out
}

/// splitmix64: small, fixed, good enough to make varied text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, words: &'a [String]) -> &'a str {
        &words[self.below(words.len())]
    }
    fn sentence(&mut self, words: &[String], min: usize, max: usize) -> String {
        let n = min + self.below(max - min + 1);
        let mut s: Vec<&str> = (0..n).map(|_| self.pick(words)).collect();
        s.dedup();
        let mut text = s.join(" ");
        text.push('.');
        text
    }
}

/// Words of the real catalog (names and descriptions), sorted and unique, as the generator's
/// vocabulary; identifiers are split into their snake_case parts.
fn vocabulary(tools: &[ToolEntry]) -> Vec<String> {
    let mut words = std::collections::BTreeSet::new();
    let mut add = |text: &str| {
        for w in text.split(|c: char| !c.is_ascii_alphanumeric()) {
            if w.len() >= 3 && !w.chars().all(|c| c.is_ascii_digit()) {
                words.insert(w.to_lowercase());
            }
        }
    };
    for t in tools {
        add(&t.name);
        add(&t.description);
        for a in &t.actions {
            add(&a.name);
            add(&a.description);
        }
    }
    words.into_iter().collect()
}

fn synthetic(real: &[ToolEntry], total: usize) -> Vec<ToolEntry> {
    let words = vocabulary(real);
    let mut rng = Rng(SEED);
    let mut tools: Vec<ToolEntry> = real.to_vec();
    let risks = [
        RiskClass::ReadOnly,
        RiskClass::Write,
        RiskClass::Destructive,
    ];
    let mut i = 0;
    while tools.len() < total {
        i += 1;
        let name = format!("{}_{}_{i}", rng.pick(&words), rng.pick(&words));
        let n_actions = if rng.below(10) < 4 {
            0
        } else {
            1 + rng.below(8)
        };
        let mut actions: Vec<ActionEntry> = Vec::new();
        for _ in 0..n_actions {
            let aname = format!("{}_{}", rng.pick(&words), rng.pick(&words));
            if actions.iter().any(|a| a.name == aname) {
                continue;
            }
            actions.push(ActionEntry {
                name: aname.clone(),
                description: rng.sentence(&words, 6, 20),
                aliases: vec![],
                input_schema: params(&mut rng, &words, Some(&aname)),
                output_schema: json!({"type": "object"}),
                safety: SafetyDecl {
                    risk: Some(risks[rng.below(3)]),
                    ..Default::default()
                }
                .normalize(None),
            });
        }
        actions.sort_by(|a, b| a.name.cmp(&b.name));
        tools.push(ToolEntry {
            name: name.clone(),
            title: name.replace('_', " "),
            description: rng.sentence(&words, 12, 30),
            source: Source {
                kind: "custom".into(),
                assembly: "Synthetic".into(),
                type_name: name.clone(),
            },
            contract_mode: "strict".into(),
            profiles: vec!["custom".into(), "full".into()],
            aliases: vec![],
            examples: vec![],
            input_schema: params(&mut rng, &words, None),
            output_schema: json!({"type": "object"}),
            actions,
            safety: SafetyDecl {
                risk: Some(risks[rng.below(3)]),
                ..Default::default()
            }
            .normalize(None),
        });
    }
    tools
}

fn params(rng: &mut Rng, words: &[String], action: Option<&str>) -> Value {
    let mut props = serde_json::Map::new();
    if let Some(a) = action {
        props.insert("action".into(), json!({"type": "string", "const": a}));
    }
    for _ in 0..rng.below(7) {
        let mut p = json!({"type": "string", "description": rng.sentence(words, 4, 10)});
        if rng.below(5) == 0 {
            p["enum"] = json!([rng.pick(words), rng.pick(words), rng.pick(words)]);
        }
        props.insert(format!("{}_{}", rng.pick(words), rng.pick(words)), p);
    }
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn micros(ns: u64) -> f64 {
    (ns as f64 / 1000.0 * 10.0).round() / 10.0
}

/// CPU time this thread has used, in ns: unlike wall time it excludes time spent preempted,
/// which on a shared 2-core machine dominates the tail percentiles.
#[cfg(unix)]
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec we pass; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(not(unix))]
fn thread_cpu_ns() -> u64 {
    0
}

fn distribution(mut ns: Vec<u64>) -> Value {
    ns.sort_unstable();
    let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64;
    json!({
        "p50_us": micros(percentile(&ns, 0.50)),
        "p95_us": micros(percentile(&ns, 0.95)),
        "p99_us": micros(percentile(&ns, 0.99)),
        "max_us": micros(*ns.last().unwrap()),
        "mean_us": (mean / 100.0).round() / 10.0,
    })
}

/// Times every query, round after round, until `max_rounds` or the budget is spent.
fn time_searches(index: &SearchIndex, queries: &[String], max_rounds: usize) -> Value {
    let filter = SearchFilter::everything();
    for q in queries {
        std::hint::black_box(index.search(q, LIMIT, &filter));
    }
    let start = Instant::now();
    let mut wall: Vec<u64> = Vec::with_capacity(queries.len() * max_rounds);
    let mut cpu: Vec<u64> = Vec::with_capacity(queries.len() * max_rounds);
    let mut rounds = 0;
    while rounds < max_rounds && start.elapsed() < BUDGET {
        for q in queries {
            let c = thread_cpu_ns();
            let t = Instant::now();
            std::hint::black_box(index.search(std::hint::black_box(q), LIMIT, &filter));
            wall.push(t.elapsed().as_nanos() as u64);
            cpu.push(thread_cpu_ns().saturating_sub(c));
        }
        rounds += 1;
    }
    let mut v = distribution(wall);
    v["searches"] = json!(cpu.len());
    v["rounds"] = json!(rounds);
    v["thread_cpu"] = distribution(cpu);
    v
}

fn timed_build(tools: &[ToolEntry]) -> (SearchIndex, f64) {
    let t = Instant::now();
    let index = SearchIndex::build(tools);
    (index, (t.elapsed().as_secs_f64() * 10_000.0).round() / 10.0)
}

/// Both catalogs, timed; `smoke` shrinks the synthetic catalog and the rounds.
pub fn run(smoke: bool) -> Value {
    let queries = load_queries();
    let project_id = format!("sha256:{}", "0".repeat(64));
    let catalog: Catalog =
        serde_json::from_value(ToolSet::builtin().catalog("search-bench", &project_id))
            .expect("the simulator publishes a valid catalog");
    let (rounds_real, rounds_big, tools_big) = if smoke {
        (2, 1, 500)
    } else {
        (200, 20, SYNTHETIC_TOOLS)
    };
    let (real, real_build_ms) = timed_build(&catalog.tools);
    let real_timing = time_searches(&real, &queries, rounds_real);
    let big_tools = synthetic(&catalog.tools, tools_big);
    let big_actions: usize = big_tools.iter().map(|t| t.actions.len()).sum();
    let (big, big_build_ms) = timed_build(&big_tools);
    let big_timing = time_searches(&big, &queries, rounds_big);
    json!({
        "queries": {"count": queries.len(), "files": ["tests/search/queries.json", "tests/search/holdout.json"], "limit": LIMIT, "filter": "none"},
        "builtin_catalog": {
            "tools": catalog.tools.len(),
            "entries": real.entry_count(),
            "index_build_ms": real_build_ms,
            "search": real_timing,
        },
        "synthetic_catalog": {
            "tools": big_tools.len(),
            "actions": big_actions,
            "entries": big.entry_count(),
            "seed": format!("{SEED:#x}"),
            "generator": "the 34 built-ins plus generated tools whose names, descriptions, actions and parameters are drawn from the built-ins' own words (splitmix64, fixed seed)",
            "index_build_ms": big_build_ms,
            "search": big_timing,
        },
    })
}
