//! The task suite's summary: what each everyday task costs the model, and the median against
//! the target, from the measured flows.
//!
//! A task's cost is the sum of its results as the client shows them to the model, each counted
//! once (`model_bytes`, `model_o200k_tokens`; see `measure::model_text`). The session setup
//! (initialize, tools/list) is paid once per session and reported apart, not per task.

use serde_json::{Map, Value, json};

/// The target for the median search → describe → call task.
pub const TARGET_MEDIAN_BYTES: u64 = 3_500;
pub const TARGET_MEDIAN_TOKENS: u64 = 900;

/// The median of `v` (the lower middle for an even count); 0 for none.
pub fn median(mut v: Vec<u64>) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[(v.len() - 1) / 2]
}

/// The `tasks` section of the report from its `flows` section.
pub fn summary(flows: &Value) -> Value {
    let mut per_task = Map::new();
    let mut bytes = Vec::new();
    let mut tokens = Vec::new();
    let Some(map) = flows.as_object() else {
        return json!({});
    };
    for (id, f) in map {
        let steps: Vec<Value> = f["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                json!({
                    "step": s["step"],
                    "model_bytes": s["response"]["model_bytes"],
                    "model_o200k_tokens": s["response"]["model_o200k_tokens"],
                })
            })
            .collect();
        let b = f["total"]["model_bytes"].as_u64().unwrap_or(0);
        let t = f["total"]["model_o200k_tokens"].as_u64().unwrap_or(0);
        if f["kind"] == "search_describe_call" {
            bytes.push(b);
            tokens.push(t);
        }
        per_task.insert(
            id.clone(),
            json!({
                "task": f["task"],
                "kind": f["kind"],
                "model_bytes": b,
                "model_o200k_tokens": t,
                "arguments_o200k_tokens": f["total"]["arguments_o200k_tokens"],
                "steps": steps,
            }),
        );
    }
    let (mb, mt) = (median(bytes.clone()), median(tokens.clone()));
    json!({
        "about": "each task's results as the client shows them to the model, each counted once (structuredContent when present, else the text blocks); session setup (initialize, tools/list) excluded, see compact; the median and maximum are over the search -> describe -> call tasks",
        "count": per_task.len(),
        "search_describe_call_tasks": bytes.len(),
        "per_task": per_task,
        "median": {"model_bytes": mb, "model_o200k_tokens": mt},
        "max": {
            "model_bytes": bytes.iter().copied().max().unwrap_or(0),
            "model_o200k_tokens": tokens.iter().copied().max().unwrap_or(0),
        },
        "target": {
            "median_model_bytes": TARGET_MEDIAN_BYTES,
            "median_model_o200k_tokens": TARGET_MEDIAN_TOKENS,
            "met": mb <= TARGET_MEDIAN_BYTES && mt <= TARGET_MEDIAN_TOKENS,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_is_the_lower_middle() {
        assert_eq!(median(vec![]), 0);
        assert_eq!(median(vec![5]), 5);
        assert_eq!(median(vec![9, 1, 5]), 5);
        assert_eq!(median(vec![4, 1, 3, 2]), 2);
    }

    #[test]
    fn summary_counts_only_full_tasks_in_the_median() {
        let flows = json!({
            "a": {"task": "A", "kind": "search_describe_call", "steps": [], "total": {"model_bytes": 100, "model_o200k_tokens": 30}},
            "b": {"task": "B", "kind": "search_describe_call", "steps": [], "total": {"model_bytes": 300, "model_o200k_tokens": 90}},
            "c": {"task": "C", "kind": "search_describe_call", "steps": [], "total": {"model_bytes": 200, "model_o200k_tokens": 60}},
            "u": {"task": "U", "kind": "search_only", "steps": [], "total": {"model_bytes": 5, "model_o200k_tokens": 1}},
        });
        let s = summary(&flows);
        assert_eq!(s["count"], 4);
        assert_eq!(s["median"]["model_bytes"], 200);
        assert_eq!(s["median"]["model_o200k_tokens"], 60);
        assert_eq!(s["max"]["model_o200k_tokens"], 90);
        assert_eq!(s["target"]["met"], true);
    }
}
