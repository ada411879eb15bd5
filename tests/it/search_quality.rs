//! Retrieval quality of `tool_search` against a faithful re-implementation of the Go adapter's
//! lexical scoring (as the Go adapter v0.2.17 ranks).
//!
//! The catalog is shaped like the one a real Editor publishes: the simulator's built-in catalog
//! with every action description emptied (Connector 0.1.3 publishes `""` for all 133), whatever
//! the simulator itself publishes. The same queries are also measured on three other shapes, to
//! show that recall does not rest on our prose: the simulator's own prose, every description
//! removed, and tool descriptions in a second wording (`tests/search/reworded.json`).
//!
//! Query sets: `tests/search/queries.json` (the tuning set), older holdouts since seen
//! (`holdout.json`, `holdout_unseen.json`, `holdout_fresh.json`), `holdout_fresh2.json` (measured
//! once after the second 2026-12-04 round, its requests never looked at since) and
//! `holdout_fresh3.json` (written after the last round's last change, committed before it was
//! measured, never tuned on). The committed figures live in `metrics/search-quality.json`; this
//! test fails if ours fall below them on any gated set, if the tuning set falls below the floors
//! (recall@5 ≥ 0.95, recall@1 ≥ 0.80), if ours fail to beat the baseline, and when a request
//! nothing matches is answered as found. Regenerate the file (after a deliberate change) with:
//!
//! `HERA_WRITE_METRICS=1 cargo test --test it search_quality`

use hera_agent_unity::{SearchFilter, SearchIndex, Verdict};
use hera_connector_contract::catalog::{Catalog, ToolEntry};
use hera_connector_sim::catalog::ToolSet;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

const REGENERATE: &str = "HERA_WRITE_METRICS=1 cargo test --test it search_quality";
const RECALL_AT_5_FLOOR: f64 = 0.95;
const RECALL_AT_1_FLOOR: f64 = 0.80;
/// Ranks beyond this count as "not found" for MRR.
const MRR_CUTOFF: usize = 10;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[derive(Debug, Clone)]
struct Query {
    id: u64,
    text: String,
    tool: String,
    action: Option<String>,
    kind: String,
}

fn queries() -> Vec<Query> {
    load("tests/search/queries.json")
}

/// Requests written after the first measurement, before the first tuning (since seen).
fn holdout() -> Vec<Query> {
    load("tests/search/holdout.json")
}

/// Requests written and committed before the ranking's second tuning; seen since.
fn unseen() -> Vec<Query> {
    load("tests/search/holdout_unseen.json")
}

/// Everyday phrasings written on 2026-12-04 before that day's first ranker changes; measured
/// once, seen since.
fn fresh() -> Vec<Query> {
    load("tests/search/holdout_fresh.json")
}

/// Everyday phrasings written on 2026-12-04 after `holdout_fresh.json` was measured and before
/// the last rule of that round (a word naming a tool counts less at the entry level); never
/// tuned on.
fn fresh2() -> Vec<Query> {
    load("tests/search/holdout_fresh2.json")
}

/// Everyday phrasings over all 34 tools, written on 2026-12-04 after the last round's last
/// ranker change and committed before they were measured; never tuned on.
fn fresh3() -> Vec<Query> {
    load("tests/search/holdout_fresh3.json")
}

/// Requests no tool here serves: each must be answered "no action does that" (or "not
/// offered"), never as found.
const NO_MATCH: &[&str] = &[
    "order a pizza for the team",
    "send an email to the producer",
    "what's the weather in Oslo",
    "book a meeting room for tomorrow",
    "translate this paragraph into French",
    "commit my changes to git and push",
    "undo last change",
    "undo that",
    "redo what you just undid",
    "roll back the last edit",
    // One everyday verb shared with a destructive action is not enough to offer it.
    "get rid of the spam in my inbox",
    "throw away the pizza boxes",
    "delete my browser history",
];

/// Requests for arbitrary code: without the permission each is "not offered".
const ARBITRARY_CODE_REQUESTS: &[&str] = &[
    "run this C# snippet in the editor",
    "execute some code that prints the frame count",
    "compile and run a C# expression",
];

fn load(rel: &str) -> Vec<Query> {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path:?}: {e}"));
    let v: Value = serde_json::from_str(&text).expect("queries.json is JSON");
    v["queries"]
        .as_array()
        .expect("queries.json has a queries array")
        .iter()
        .map(|q| Query {
            id: q["id"].as_u64().expect("id"),
            text: q["query"].as_str().expect("query").to_string(),
            tool: q["tool"].as_str().expect("tool").to_string(),
            action: q["action"].as_str().map(str::to_string),
            kind: q["kind"].as_str().unwrap_or("plain").to_string(),
        })
        .collect()
}

/// The catalog as the adapter receives it: the simulator's published `hera.tool-catalog/1`.
fn catalog() -> Catalog {
    let project_id = format!("sha256:{}", "0".repeat(64));
    let v = ToolSet::builtin().catalog("search-quality", &project_id);
    serde_json::from_value(v).expect("the simulator publishes a valid catalog")
}

/// A ranked answer: (tool, action) pairs, best first.
type Ranking = Vec<(String, Option<String>)>;

// ---------------------------------------------------------------------------------------------
// Baseline: the Go adapter's compact tool_search scoring, §2.4, step by step.

/// Go `strings.Contains` on lower-cased text.
fn contains(hay: &str, needle: &str) -> bool {
    hay.contains(needle)
}

/// §2.4 steps 3–5 for one tool (filters of steps 1–2 are the caller's).
fn go_score(tool: &ToolEntry, query: &str) -> i64 {
    let q = query.trim().to_lowercase();
    let tokens: Vec<&str> = q.split_whitespace().collect();
    let name = tool.name.to_lowercase();
    let title = tool.title.to_lowercase();
    let desc = tool.description.to_lowercase();
    let actions: Vec<String> = tool
        .actions
        .iter()
        .map(|a| format!("{} {}", a.name, a.description).to_lowercase())
        .collect();
    let mut score = 0;
    if q == name {
        score += 1000;
    }
    for t in &tokens {
        if name == *t {
            score += 200;
        } else if contains(&name, t) {
            score += 100;
        }
        if contains(&title, t) {
            score += 40;
        }
        if contains(&desc, t) {
            score += 20;
        }
        score += 30 * actions.iter().filter(|a| contains(a, t)).count() as i64;
    }
    score
}

/// How a baseline tool hit names an action (the Go adapter returns tools only).
#[derive(Clone, Copy)]
enum ActionRule {
    /// The action whose lower-cased "<name> <description>" contains the most query tokens
    /// (duplicates counted, as the scoring counts them); ties → catalog order; none → no action.
    MostTokens,
    /// The first action (catalog order) whose text contains any query token; none → no action.
    FirstMatch,
}

fn go_action(tool: &ToolEntry, query: &str, rule: ActionRule) -> Option<String> {
    let q = query.trim().to_lowercase();
    let tokens: Vec<&str> = q.split_whitespace().collect();
    let mut best: Option<(usize, &str)> = None;
    for a in &tool.actions {
        let text = format!("{} {}", a.name, a.description).to_lowercase();
        let n = tokens.iter().filter(|t| contains(&text, t)).count();
        if n == 0 {
            continue;
        }
        match rule {
            ActionRule::FirstMatch => return Some(a.name.clone()),
            ActionRule::MostTokens => {
                if best.is_none_or(|(m, _)| n > m) {
                    best = Some((n, &a.name));
                }
            }
        }
    }
    best.map(|(_, n)| n.to_string())
}

fn go_search(tools: &[ToolEntry], query: &str, limit: usize, rule: ActionRule) -> Ranking {
    let mut scored: Vec<(i64, &ToolEntry)> = tools
        .iter()
        .map(|t| (go_score(t, query), t))
        .filter(|(s, _)| *s > 0)
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1.name.as_bytes().cmp(b.1.name.as_bytes()))
    });
    scored.truncate(limit);
    scored
        .into_iter()
        .map(|(_, t)| (t.name.clone(), go_action(t, query, rule)))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Measurement.

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Figures {
    recall_at_1: f64,
    recall_at_5: f64,
    mrr: f64,
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// 1-based rank of the first hit that satisfies `ok`, within the first `MRR_CUTOFF`.
fn rank_of(r: &Ranking, ok: impl Fn(&(String, Option<String>)) -> bool) -> Option<usize> {
    r.iter().take(MRR_CUTOFF).position(ok).map(|p| p + 1)
}

fn figures(ranks: &[Option<usize>]) -> Figures {
    let n = ranks.len() as f64;
    let at = |k: usize| ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / n;
    let mrr = ranks
        .iter()
        .map(|r| r.map_or(0.0, |r| 1.0 / r as f64))
        .sum::<f64>()
        / n;
    Figures {
        recall_at_1: round4(at(1)),
        recall_at_5: round4(at(5)),
        mrr: round4(mrr),
    }
}

fn figures_json(f: &Figures) -> Value {
    json!({"recall_at_1": f.recall_at_1, "recall_at_5": f.recall_at_5, "mrr": f.mrr})
}

/// Action-level and tool-level ranks of one system over the query set.
struct Run {
    action_ranks: Vec<Option<usize>>,
    tool_ranks: Vec<Option<usize>>,
    rankings: Vec<Ranking>,
}

fn run(qs: &[Query], mut search: impl FnMut(&str) -> Ranking) -> Run {
    let mut out = Run {
        action_ranks: Vec::new(),
        tool_ranks: Vec::new(),
        rankings: Vec::new(),
    };
    for q in qs {
        let r = search(&q.text);
        out.action_ranks
            .push(rank_of(&r, |(t, a)| *t == q.tool && *a == q.action));
        out.tool_ranks.push(rank_of(&r, |(t, _)| *t == q.tool));
        out.rankings.push(r);
    }
    out
}

fn by_kind(qs: &[Query], ranks: &[Option<usize>]) -> Value {
    let mut kinds: BTreeMap<&str, Vec<Option<usize>>> = BTreeMap::new();
    for (q, r) in qs.iter().zip(ranks) {
        kinds.entry(&q.kind).or_default().push(*r);
    }
    let mut m = serde_json::Map::new();
    for (k, rs) in kinds {
        let mut f = figures_json(&figures(&rs));
        f["queries"] = json!(rs.len());
        m.insert(k.to_string(), f);
    }
    Value::Object(m)
}

fn ours_ranking(index: &SearchIndex, q: &str) -> Ranking {
    index
        .search(q, MRR_CUTOFF, &SearchFilter::everything())
        .into_iter()
        .map(|h| (h.tool, h.action))
        .collect()
}

/// The catalog as a real Connector 0.1.3 publishes it: no action descriptions at all.
fn real_shaped(tools: &[ToolEntry]) -> Vec<ToolEntry> {
    tools
        .iter()
        .cloned()
        .map(|mut t| {
            for a in &mut t.actions {
                a.description.clear();
            }
            t
        })
        .collect()
}

/// Tool descriptions in a second wording, no action or parameter descriptions.
fn reworded(tools: &[ToolEntry]) -> Vec<ToolEntry> {
    let path = root().join("tests/search/reworded.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path:?}: {e}"));
    let v: Value = serde_json::from_str(&text).expect("reworded.json is JSON");
    without_descriptions(tools)
        .into_iter()
        .map(|mut t| {
            t.description = v["tools"][&t.name]
                .as_str()
                .unwrap_or_else(|| panic!("reworded.json has no description for {}", t.name))
                .to_string();
            t
        })
        .collect()
}

/// The catalog with every description removed (tool, action, parameter): what ranking is left
/// when the Connector's prose says nothing useful.
fn without_descriptions(tools: &[ToolEntry]) -> Vec<ToolEntry> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("description");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    tools
        .iter()
        .cloned()
        .map(|mut t| {
            t.description.clear();
            t.examples.clear();
            strip(&mut t.input_schema);
            for a in &mut t.actions {
                a.description.clear();
                strip(&mut a.input_schema);
            }
            t
        })
        .collect()
}

/// Queries whose expected answer was not ranked first, with what was.
fn not_first(qs: &[Query], r: &Run) -> Vec<Value> {
    qs.iter()
        .zip(&r.action_ranks)
        .zip(&r.rankings)
        .filter(|((_, rank), _)| **rank != Some(1))
        .map(|((q, rank), ranking)| {
            let name = |t: &str, a: &Option<String>| match a {
                Some(a) => format!("{t}/{a}"),
                None => t.to_string(),
            };
            json!({"id": q.id, "query": q.text, "expected": name(&q.tool, &q.action),
                   "got": ranking.first().map(|(t, a)| name(t, a)), "rank": rank})
        })
        .collect()
}

struct Report {
    /// (label, ours, baseline) that must hold; `ours` also must not fall below the committed
    /// figure at `json[label]["ours"]["action_level"]`.
    gated: Vec<(&'static str, Figures, Figures)>,
    fresh_real: Figures,
    json: Value,
}

/// Our ranking and the baseline's on one catalog shape and one query set.
fn measure_set(qs: &[Query], tools: &[ToolEntry]) -> (Run, Run, Value) {
    let index = SearchIndex::build(tools);
    let ours = run(qs, |q| ours_ranking(&index, q));
    let base = run(qs, |q| {
        go_search(tools, q, MRR_CUTOFF, ActionRule::MostTokens)
    });
    let base_first = run(qs, |q| {
        go_search(tools, q, MRR_CUTOFF, ActionRule::FirstMatch)
    });
    let found = qs
        .iter()
        .filter(|q| {
            index
                .answer(&q.text, 5, &SearchFilter::everything())
                .verdict
                == Verdict::Found
        })
        .count();
    let json = json!({
        "count": qs.len(),
        "ours": {
            "action_level": figures_json(&figures(&ours.action_ranks)),
            "tool_level": figures_json(&figures(&ours.tool_ranks)),
            "action_level_by_kind": by_kind(qs, &ours.action_ranks),
            "answered_found": round4(found as f64 / qs.len() as f64),
        },
        "baseline_go_lexical": {
            "action_level": figures_json(&figures(&base.action_ranks)),
            "tool_level": figures_json(&figures(&base.tool_ranks)),
            "action_level_first_match_rule": figures_json(&figures(&base_first.action_ranks)),
        },
        "ours_not_first": not_first(qs, &ours),
    });
    (ours, base, json)
}

#[allow(
    clippy::approx_constant,
    reason = "a committed figure, mrr 0.6931, only looks like ln 2"
)]
fn measure() -> Report {
    let qs = queries();
    let hq = holdout();
    let uq = unseen();
    let fq = fresh();
    let f2q = fresh2();
    let f3q = fresh3();
    let cat = catalog();
    let real = real_shaped(&cat.tools);
    let bare = without_descriptions(&cat.tools);
    let alt = reworded(&cat.tools);

    let (q_ours, q_base, q_json) = measure_set(&qs, &real);
    let (_, _, h_json) = measure_set(&hq, &real);
    let (u_ours, u_base, u_json) = measure_set(&uq, &real);
    let (f_ours, f_base, f_json) = measure_set(&fq, &real);
    let (f2_ours, f2_base, f2_json) = measure_set(&f2q, &real);
    let (f3_ours, f3_base, f3_json) = measure_set(&f3q, &real);
    let shape = |tools: &[ToolEntry]| {
        json!({
            "queries": measure_set(&qs, tools).2,
            "holdout_unseen": measure_set(&uq, tools).2,
            "holdout_fresh": measure_set(&fq, tools).2,
            "holdout_fresh2": measure_set(&f2q, tools).2,
            "holdout_fresh3": measure_set(&f3q, tools).2,
        })
    };

    let real_index = SearchIndex::build(&real);
    let no_match: Vec<Value> = NO_MATCH
        .iter()
        .map(|q| {
            let a = real_index.answer(q, 5, &SearchFilter::default());
            json!({"query": q, "verdict": verdict_name(&a.verdict),
                   "closest": a.hits.first().map(|h| format!("{}/{}", h.tool, h.action.clone().unwrap_or_default()))})
        })
        .collect();
    let arbitrary: Vec<Value> = ARBITRARY_CODE_REQUESTS
        .iter()
        .map(|q| {
            let a = real_index.answer(q, 5, &SearchFilter::default());
            json!({"query": q, "verdict": verdict_name(&a.verdict)})
        })
        .collect();

    let n_actions: usize = cat.tools.iter().map(|t| t.actions.len()).sum();
    let uf = figures(&u_ours.action_ranks);
    let ff = figures(&f_ours.action_ranks);
    let ff2 = figures(&f2_ours.action_ranks);
    let ff3 = figures(&f3_ours.action_ranks);
    let json = json!({
        "format": "hera.search-quality/2",
        "command": REGENERATE,
        "catalog": {
            "source": "hera_connector_sim::catalog::ToolSet::builtin() (Connector 0.1.3 built-ins)",
            "tools": cat.tools.len(),
            "actions": n_actions,
            "catalog_hash_as_published_by_the_simulator": cat.catalog_hash,
            "shapes": {
                "real_shaped": "the primary shape: every action description emptied, as Connector 0.1.3 publishes them; tool and parameter descriptions as the simulator words them",
                "simulator_prose": "the catalog as the simulator publishes it",
                "names_only": "every tool, action and parameter description removed",
                "reworded": "tool descriptions in a second wording (tests/search/reworded.json), every action and parameter description removed",
            },
        },
        "definitions": {
            "hit": "a ranked result matches when its tool equals the expected tool and its action equals the expected action (null expected = the tool called without an action)",
            "recall_at_k": "share of queries with a matching result among the first k",
            "mrr": format!("mean reciprocal rank of the first matching result, 0 beyond rank {MRR_CUTOFF}"),
            "tool_level": "the same figures when only the tool has to match",
            "answered_found": "share of queries tool_search answers as found (not 'no action does that')",
            "filter": "no profile filter; arbitrary-code tools included, for both systems (the no-match and arbitrary-code checks use the default filter)",
            "baseline": "the Go adapter v0.2.17's ranking re-implemented: lower-cased whitespace tokens, +1000 whole query = name, per token +200 name equal / +100 name contains, +40 title contains, +20 description contains, +30 per action whose \"<name> <description>\" contains it; score 0 dropped; ties by name",
            "baseline_action_rule": "the Go adapter returns tools, not actions; a baseline hit names the tool's action whose lower-cased \"<name> <description>\" contains the most query tokens (ties: catalog order), or no action when none contains any",
            "baseline_first_match_rule": "alternative: the first action (catalog order) whose text contains any query token",
        },
        "query_sets": {
            "queries": {"file": "tests/search/queries.json", "about": "the tuning set"},
            "holdout": {"file": "tests/search/holdout.json", "about": "written before the first tuning; seen since, so no longer a holdout; its misses were analysed in the last 2026-12-04 round"},
            "holdout_unseen": {"file": "tests/search/holdout_unseen.json", "about": "written and committed before an earlier round's tuning; its misses were analysed to set rules in the last 2026-12-04 round, so it is seen"},
            "holdout_fresh": {"file": "tests/search/holdout_fresh.json", "about": "72 everyday phrasings written on 2026-12-04, before that round's ranker changes, by the same person who then made them (so not independent of the rules' author); measured once after the first set of changes (recall@1 0.6111, recall@5 0.8889, see fresh_holdout_first_measurement); its misses were analysed to set rules in the last round, so it is seen"},
            "holdout_fresh2": {"file": "tests/search/holdout_fresh2.json", "about": "64 everyday phrasings written on 2026-12-04 after holdout_fresh was measured and before the second round's last rule, by the same person; never tuned on, measured once after it (recall@1 0.7031, recall@5 0.8281, see before_the_last_round). In the last round its per-query results were never looked at; its aggregate figures were printed during that round's first changes"},
            "holdout_fresh3": {"file": "tests/search/holdout_fresh3.json", "about": "124 everyday phrasings over all 34 tools, written on 2026-12-04 by the session of the last round after its last ranker change, committed before it was measured (commit cfd3610), measured once: these figures; never tuned on; the gate of the targets"},
        },
        "real_shaped": {
            "queries": q_json,
            "holdout": h_json,
            "holdout_unseen": u_json,
            "holdout_fresh": f_json,
            "holdout_fresh2": f2_json,
            "holdout_fresh3": f3_json,
        },
        "simulator_prose": shape(&cat.tools),
        "names_only": shape(&bare),
        "reworded": shape(&alt),
        "before_this_tuning": {
            "about": "the ranking at commit ebff961 (the unseen holdout committed, nothing tuned yet), measured with this harness on the real-shaped catalog",
            "queries": {"recall_at_1": 0.8308, "recall_at_5": 0.9801, "mrr": 0.899},
            "holdout_unseen": {"recall_at_1": 0.4516, "recall_at_5": 0.7312, "mrr": 0.5847},
        },
        "fresh_holdout_first_measurement": {
            "about": "holdout_fresh as measured once, on the real-shaped catalog, after the round's first set of ranker changes (commit 'search-quality figures regenerated: the fresh holdout measured once'); the figures under real_shaped.holdout_fresh are after the last rule, so no longer unseen",
            "recall_at_1": 0.6111, "recall_at_5": 0.8889, "mrr": 0.7305,
        },
        "before_the_last_round": {
            "about": "the figures committed before the last 2026-12-04 round (commit 9177df3), real-shaped catalog, with names_only and reworded for the newest set then",
            "queries": {"recall_at_1": 0.9042, "recall_at_5": 0.9917, "mrr": 0.9401},
            "holdout": {"recall_at_1": 0.8727, "recall_at_5": 0.9455, "mrr": 0.903},
            "holdout_unseen": {"recall_at_1": 0.7527, "recall_at_5": 0.9462, "mrr": 0.8378},
            "holdout_fresh": {"recall_at_1": 0.6667, "recall_at_5": 0.9028, "mrr": 0.7682},
            "holdout_fresh2": {"recall_at_1": 0.7031, "recall_at_5": 0.8281, "mrr": 0.7617},
            "holdout_fresh2_names_only": {"recall_at_1": 0.5781, "recall_at_5": 0.7969, "mrr": 0.6772},
            "holdout_fresh2_reworded": {"recall_at_1": 0.6094, "recall_at_5": 0.7813, "mrr": 0.6931},
        },
        "before_the_first_round": {
            "about": "the figures committed before the first 2026-12-04 round (commit 1bbb5b8), real-shaped catalog; the tuning set then had 201 queries (ids 300+ were added in the round)",
            "queries": {"recall_at_1": 0.9154, "recall_at_5": 1.0, "mrr": 0.9537},
            "holdout_unseen": {"recall_at_1": 0.6452, "recall_at_5": 0.9247, "mrr": 0.7711},
        },
        "targets": {
            "holdout_fresh3_real_shaped": {"recall_at_1": RECALL_AT_1_FLOOR, "recall_at_5": RECALL_AT_5_FLOOR},
            "status": if ff3.recall_at_1 >= RECALL_AT_1_FLOOR && ff3.recall_at_5 >= RECALL_AT_5_FLOOR { "met" } else { "not met: the newest holdout is below the target; the test gates the tuning set at the target and the holdouts at their committed figures" },
        },
        "no_match_requests": no_match,
        "arbitrary_code_requests_without_permission": arbitrary,
    });
    Report {
        gated: vec![
            (
                "queries",
                figures(&q_ours.action_ranks),
                figures(&q_base.action_ranks),
            ),
            ("holdout_unseen", uf, figures(&u_base.action_ranks)),
            ("holdout_fresh", ff, figures(&f_base.action_ranks)),
            ("holdout_fresh2", ff2, figures(&f2_base.action_ranks)),
            ("holdout_fresh3", ff3, figures(&f3_base.action_ranks)),
        ],
        fresh_real: ff3,
        json,
    }
}

fn verdict_name(v: &Verdict) -> String {
    match v {
        Verdict::Found => "found".into(),
        Verdict::NoGoodMatch => "no_good_match".into(),
        Verdict::NotOffered(n) => format!("not_offered:{}", n.capability),
    }
}

fn committed(v: &Value) -> Figures {
    let f = &v["ours"]["action_level"];
    Figures {
        recall_at_1: f["recall_at_1"].as_f64().expect("committed recall_at_1"),
        recall_at_5: f["recall_at_5"].as_f64().expect("committed recall_at_5"),
        mrr: f["mrr"].as_f64().expect("committed mrr"),
    }
}

#[test]
fn query_set_is_well_formed_and_names_real_actions() {
    let qs = queries();
    assert!(
        qs.len() >= 100,
        "need at least 100 queries, have {}",
        qs.len()
    );
    let cat = catalog();
    let mut ids = std::collections::HashSet::new();
    for q in &qs {
        assert!(ids.insert(q.id), "duplicate query id {}", q.id);
        let tool = cat
            .tool(&q.tool)
            .unwrap_or_else(|| panic!("query {} expects unknown tool {}", q.id, q.tool));
        match &q.action {
            Some(a) => assert!(
                tool.actions.iter().any(|x| x.name == *a),
                "query {} expects unknown action {}/{a}",
                q.id,
                q.tool
            ),
            None => assert!(
                tool.callable_without_action(),
                "query {} expects {} without an action, but its tool-level schema requires one",
                q.id,
                q.tool
            ),
        }
    }
}

#[test]
fn baseline_scores_as_the_go_adapter_does() {
    let cat = catalog();
    let scene = cat.tool("scene").unwrap();
    // Whole query equals the name: +1000, and the token equals the name: +200; the title
    // "Scene" contains it: +40; plus description and per-action contributions.
    let s = go_score(scene, "scene");
    assert!(s >= 1240, "{s}");
    // Tokens are whitespace-split and substring-matched: "scen" still hits the name (+100).
    assert!(go_score(scene, "scen") >= 140);
    // Nothing matches an unrelated token.
    assert_eq!(go_score(scene, "zzzz"), 0);
    // Ties break by name (byte order) and zero scores are dropped.
    let r = go_search(&cat.tools, "zzzz", 5, ActionRule::MostTokens);
    assert!(r.is_empty());
}

#[test]
fn ours_meets_the_floors_beats_the_baseline_and_holds_the_committed_figures() {
    let report = measure();
    let path = root().join("metrics/search-quality.json");
    if std::env::var_os("HERA_WRITE_METRICS").is_some() {
        let text = serde_json::to_string_pretty(&report.json).unwrap() + "\n";
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {path:?}: {e}"));
    }
    let u = report.fresh_real;
    eprintln!(
        "newest holdout, real-shaped catalog: {u:?} (target recall@1 {RECALL_AT_1_FLOOR}, recall@5 {RECALL_AT_5_FLOOR})"
    );
    // The floors hold on the tuning set; the unseen set must not fall below its committed
    // figures (below).
    let (_, q, _) = &report.gated[0];
    let misses = &report.json["real_shaped"]["queries"]["ours_not_first"];
    assert!(
        q.recall_at_5 >= RECALL_AT_5_FLOOR,
        "queries recall@5 {} < {RECALL_AT_5_FLOOR}; not first: {misses}",
        q.recall_at_5
    );
    assert!(
        q.recall_at_1 >= RECALL_AT_1_FLOOR,
        "queries recall@1 {} < {RECALL_AT_1_FLOOR}; not first: {misses}",
        q.recall_at_1
    );
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {path:?}: {e}; create it with `{REGENERATE}`"));
    let committed_json: Value = serde_json::from_str(&text).expect("metrics file is JSON");
    for (label, ours, base) in &report.gated {
        eprintln!("{label}: ours {ours:?} baseline {base:?}");
        assert!(
            ours.recall_at_1 > base.recall_at_1
                && ours.recall_at_5 > base.recall_at_5
                && ours.mrr > base.mrr,
            "{label}: {ours:?} vs baseline {base:?}"
        );
        let c = committed(&committed_json["real_shaped"][label]);
        assert!(
            ours.recall_at_1 >= c.recall_at_1
                && ours.recall_at_5 >= c.recall_at_5
                && ours.mrr >= c.mrr,
            "{label}: search quality fell below the committed figures: now {ours:?}, committed \
             {c:?}; if the drop is deliberate, regenerate with `{REGENERATE}`"
        );
    }
}

#[test]
fn requests_nothing_serves_are_not_answered_as_found() {
    let cat = catalog();
    let index = SearchIndex::build(&real_shaped(&cat.tools));
    for q in NO_MATCH {
        let a = index.answer(q, 5, &SearchFilter::default());
        assert_ne!(
            a.verdict,
            Verdict::Found,
            "{q:?} answered as found: {:?}",
            a.hits.first()
        );
        if q.contains("undo") || q.contains("redo") || q.contains("roll back") {
            assert!(
                matches!(&a.verdict, Verdict::NotOffered(n) if n.capability == "undo"),
                "{q:?}: {:?}",
                a.verdict
            );
        }
    }
    for q in ARBITRARY_CODE_REQUESTS {
        let a = index.answer(q, 5, &SearchFilter::default());
        assert!(
            matches!(&a.verdict, Verdict::NotOffered(n) if n.capability == "arbitrary_code"),
            "{q:?}: {:?}",
            a.verdict
        );
        // With the permission the tool is there, ranked first.
        let allowed = index.answer(q, 5, &SearchFilter::everything());
        assert!(
            !matches!(allowed.verdict, Verdict::NotOffered(_)),
            "{q:?} with permission: {:?}",
            allowed.verdict
        );
        assert_eq!(allowed.hits[0].tool, "exec", "{q:?}");
    }
}

#[test]
fn unseen_and_reworded_sets_name_real_actions() {
    let cat = catalog();
    let qs = unseen();
    assert!(qs.len() >= 80, "the unseen holdout has {}", qs.len());
    for q in &qs {
        let tool = cat
            .tool(&q.tool)
            .unwrap_or_else(|| panic!("unseen {} expects unknown tool {}", q.id, q.tool));
        match &q.action {
            Some(a) => assert!(tool.actions.iter().any(|x| x.name == *a), "unseen {}", q.id),
            None => assert!(tool.callable_without_action(), "unseen {}", q.id),
        }
    }
    let fresh = fresh();
    assert!(fresh.len() >= 60, "the fresh holdout has {}", fresh.len());
    for q in &fresh {
        let tool = cat
            .tool(&q.tool)
            .unwrap_or_else(|| panic!("fresh {} expects unknown tool {}", q.id, q.tool));
        match &q.action {
            Some(a) => assert!(tool.actions.iter().any(|x| x.name == *a), "fresh {}", q.id),
            None => assert!(tool.callable_without_action(), "fresh {}", q.id),
        }
    }
    let fresh3 = fresh3();
    assert!(
        fresh3.len() >= 80,
        "the third fresh holdout has {}",
        fresh3.len()
    );
    let tools: std::collections::BTreeSet<&str> = fresh3.iter().map(|q| q.tool.as_str()).collect();
    assert_eq!(
        tools.len(),
        cat.tools.len(),
        "the third fresh holdout covers every tool"
    );
    let fresh2 = fresh2();
    assert!(
        fresh2.len() >= 60,
        "the second fresh holdout has {}",
        fresh2.len()
    );
    for q in fresh2.iter().chain(&fresh3) {
        let tool = cat
            .tool(&q.tool)
            .unwrap_or_else(|| panic!("fresh2/fresh3 {} expects unknown tool {}", q.id, q.tool));
        match &q.action {
            Some(a) => assert!(
                tool.actions.iter().any(|x| x.name == *a),
                "fresh2/fresh3 {}",
                q.id
            ),
            None => assert!(tool.callable_without_action(), "fresh2/fresh3 {}", q.id),
        }
    }
    // Every tool has a reworded description that shares no sentence with the simulator's.
    let alt = reworded(&cat.tools);
    for (a, t) in alt.iter().zip(&cat.tools) {
        assert!(!a.description.is_empty());
        assert_ne!(a.description, t.description);
        assert!(a.actions.iter().all(|x| x.description.is_empty()));
    }
}

/// Prints the tuning set's misses on the real-shaped catalog with the top three, for tuning
/// (`cargo test --test it search_quality::tuning_misses -- --ignored --nocapture`). Reads the
/// tuning set only: the holdouts are measured by the gated test, never inspected here.
#[test]
#[ignore = "a tuning aid, not a check"]
fn tuning_misses() {
    let real = real_shaped(&catalog().tools);
    let index = SearchIndex::build(&real);
    let qs = queries();
    let (mut r1, mut r5) = (0, 0);
    for q in &qs {
        let r = ours_ranking(&index, &q.text);
        let rank = rank_of(&r, |(t, a)| *t == q.tool && *a == q.action);
        r1 += usize::from(rank == Some(1));
        r5 += usize::from(rank.is_some_and(|k| k <= 5));
        if rank != Some(1) {
            let top: Vec<String> = r
                .iter()
                .take(3)
                .map(|(t, a)| format!("{t}/{}", a.clone().unwrap_or_default()))
                .collect();
            eprintln!(
                "{:>4} {:?} want {}/{} rank {rank:?} top {top:?}",
                q.id,
                q.text,
                q.tool,
                q.action.clone().unwrap_or_default()
            );
        }
    }
    eprintln!(
        "tuning set: recall@1 {:.4} recall@5 {:.4} of {}",
        r1 as f64 / qs.len() as f64,
        r5 as f64 / qs.len() as f64,
        qs.len()
    );
}
