//! This run against a committed baseline: what grew, shrank, changed, appeared or went away.
//!
//! Only the measured sections are compared (`surface`, `compact`, `flows`, `describe`,
//! `catalog`, `exposures`); `about` is prose and `comparison` restates figures already compared.
//! A leaf whose key (or whose map's key) ends in `_bytes` or `_tokens` is a payload size (bytes
//! or o200k tokens, of every exposure, describe, flow and task): bigger than in the baseline is
//! growth.
//! Any other differing leaf (a digest, a rank, a tool count, availability) is a change.

use serde_json::Value;
use std::collections::BTreeMap;

pub const MEASURED_SECTIONS: [&str; 7] = [
    "surface",
    "compact",
    "flows",
    "tasks",
    "describe",
    "catalog",
    "exposures",
];

#[derive(Debug, Default)]
pub struct Delta {
    pub grown: Vec<(String, u64, u64)>,
    pub shrunk: Vec<(String, u64, u64)>,
    pub changed: Vec<(String, String, String)>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl Delta {
    pub fn is_empty(&self) -> bool {
        self.grown.is_empty()
            && self.shrunk.is_empty()
            && self.changed.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty()
    }

    /// Human-readable lines, growth first.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let pct = |old: u64, new: u64| {
            if old == 0 {
                String::new()
            } else {
                format!(", {:+.1}%", (new as f64 - old as f64) * 100.0 / old as f64)
            }
        };
        for (p, old, new) in &self.grown {
            out.push(format!(
                "grown    {p}: {old} → {new} (+{}{})",
                new - old,
                pct(*old, *new)
            ));
        }
        for (p, old, new) in &self.shrunk {
            out.push(format!(
                "shrunk   {p}: {old} → {new} (-{}{})",
                old - new,
                pct(*old, *new)
            ));
        }
        for (p, old, new) in &self.changed {
            out.push(format!("changed  {p}: {old} → {new}"));
        }
        for p in &self.added {
            out.push(format!("added    {p}"));
        }
        for p in &self.removed {
            out.push(format!("removed  {p}"));
        }
        out
    }
}

fn flatten(v: &Value, path: String, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                flatten(child, format!("{path}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                flatten(child, format!("{path}[{i}]"), out);
            }
        }
        leaf => {
            out.insert(path, leaf.clone());
        }
    }
}

fn leaves(report: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for section in MEASURED_SECTIONS {
        if let Some(v) = report.get(section) {
            flatten(v, section.to_string(), &mut out);
        }
    }
    out
}

/// A payload size: the key ends in `_bytes`, or it is an entry of a map of sizes
/// (`per_tool_bytes.tool_call`).
fn is_size(path: &str) -> bool {
    path.rsplit('.')
        .take(2)
        .any(|k| k.ends_with("_bytes") || k.ends_with("_tokens"))
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn compare(baseline: &Value, current: &Value) -> Delta {
    let old = leaves(baseline);
    let new = leaves(current);
    let mut d = Delta::default();
    for (path, nv) in &new {
        match old.get(path) {
            None => d.added.push(path.clone()),
            Some(ov) if ov == nv => {}
            Some(ov) => match (ov.as_u64(), nv.as_u64()) {
                (Some(o), Some(n)) if is_size(path) => {
                    if n > o {
                        d.grown.push((path.clone(), o, n));
                    } else {
                        d.shrunk.push((path.clone(), o, n));
                    }
                }
                _ => d.changed.push((path.clone(), show(ov), show(nv))),
            },
        }
    }
    for path in old.keys() {
        if !new.contains_key(path) {
            d.removed.push(path.clone());
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn growth_shrinkage_and_changes() {
        let base = json!({
            "about": {"text": "old prose"},
            "compact": {"tools_list": {"result_bytes": 100, "digest": "a", "tools": 3, "per_tool_bytes": {"tool_call": 10}}},
            "flows": {"x": {"total": {"result_bytes": 50}}},
            "tasks": {"median": {"model_o200k_tokens": 700}},
            "exposures": {"full": {"available": false}}
        });
        let cur = json!({
            "tasks": {"median": {"model_o200k_tokens": 701}},
            "about": {"text": "new prose"},
            "compact": {"tools_list": {"result_bytes": 120, "digest": "b", "tools": 3, "per_tool_bytes": {"tool_call": 11}}},
            "flows": {"x": {"total": {"result_bytes": 40}}},
            "exposures": {"full": {"available": true, "result_bytes": 9000}}
        });
        let d = compare(&base, &cur);
        assert_eq!(
            d.grown,
            vec![
                (
                    "compact.tools_list.per_tool_bytes.tool_call".to_string(),
                    10,
                    11
                ),
                ("compact.tools_list.result_bytes".to_string(), 100, 120),
                ("tasks.median.model_o200k_tokens".to_string(), 700, 701),
            ]
        );
        assert_eq!(
            d.shrunk,
            vec![("flows.x.total.result_bytes".to_string(), 50, 40)]
        );
        let changed: Vec<&str> = d.changed.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(
            changed,
            ["compact.tools_list.digest", "exposures.full.available"]
        );
        assert_eq!(d.added, ["exposures.full.result_bytes"]);
        assert!(d.removed.is_empty());
        assert!(!d.is_empty());
        assert!(compare(&cur, &cur).is_empty());
    }
}
