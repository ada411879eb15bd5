//! The task suite as an SVG bar chart: one bar per task, o200k tokens the model reads, split
//! into search, describe and call; the median and the target as lines. Plain SVG text, no
//! dependency: the chart is a handful of rectangles and labels, and it is committed beside the
//! report, so the same run always draws the same bytes.

use serde_json::Value;
use std::fmt::Write;

const BAR_W: u32 = 26;
const GAP: u32 = 8;
const LEFT: u32 = 60;
const TOP: u32 = 50;
const PLOT_H: u32 = 260;
const LABEL_H: u32 = 150;
const KEY_COLUMNS: usize = 3;
const KEY_COLUMN_W: u32 = 250;
const COLORS: [(&str, &str); 4] = [
    ("search", "#4e79a7"),
    ("describe", "#f28e2b"),
    ("call", "#59a14f"),
    ("call_approved", "#76b7b2"),
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Draws the `tasks` section of a report.
pub fn svg(tasks: &Value) -> String {
    let per_task: Vec<(&String, &Value)> = tasks["per_task"]
        .as_object()
        .map(|m| m.iter().collect())
        .unwrap_or_default();
    let median = tasks["median"]["model_o200k_tokens"].as_u64().unwrap_or(0);
    let target = tasks["target"]["median_model_o200k_tokens"]
        .as_u64()
        .unwrap_or(0);
    let max = per_task
        .iter()
        .map(|(_, t)| t["model_o200k_tokens"].as_u64().unwrap_or(0))
        .chain([target, median])
        .max()
        .unwrap_or(1)
        .max(1);
    // A round scale top: the next multiple of 500 tokens.
    let top = max.div_ceil(500) * 500;
    let y = |v: u64| TOP + PLOT_H - (v * u64::from(PLOT_H) / top) as u32;
    let width = (LEFT + 20 + per_task.len() as u32 * (BAR_W + GAP))
        .max(LEFT + KEY_COLUMNS as u32 * KEY_COLUMN_W);
    let height = TOP + PLOT_H + LABEL_H;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"##
    );
    let _ = writeln!(
        out,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="{LEFT}" y="20" font-size="14" font-weight="bold">o200k tokens the model reads per task (search, describe, call results, each once)</text>"##
    );
    let mut lx = LEFT;
    for (name, color) in COLORS {
        let _ = writeln!(
            out,
            r##"<rect x="{lx}" y="30" width="10" height="10" fill="{color}"/><text x="{}" y="39">{name}</text>"##,
            lx + 14
        );
        lx += 110;
    }
    // Axis and grid.
    let mut tick = 0;
    while tick <= top {
        let ty = y(tick);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{ty}" x2="{}" y2="{ty}" stroke="#e0e0e0"/><text x="{}" y="{}" text-anchor="end">{tick}</text>"##,
            width - 10,
            LEFT - 6,
            ty + 4
        );
        tick += 500;
    }
    for (i, (id, t)) in per_task.iter().enumerate() {
        let x = LEFT + 10 + i as u32 * (BAR_W + GAP);
        let mut acc = 0u64;
        for s in t["steps"].as_array().into_iter().flatten() {
            let v = s["model_o200k_tokens"].as_u64().unwrap_or(0);
            let step = s["step"].as_str().unwrap_or("");
            let color = COLORS
                .iter()
                .find(|(n, _)| *n == step)
                .map_or("#bab0ac", |c| c.1);
            let (y1, y0) = (y(acc + v), y(acc));
            let _ = writeln!(
                out,
                r##"<rect x="{x}" y="{y1}" width="{BAR_W}" height="{}" fill="{color}" stroke="none"><title>{} {step}: {v} tokens</title></rect>"##,
                y0 - y1,
                esc(id)
            );
            acc += v;
        }
        // Numbered under the bar, named in the key below: plain horizontal text renders the
        // same in every SVG viewer (rotated labels do not).
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" text-anchor="middle">{}</text>"##,
            x + BAR_W / 2,
            TOP + PLOT_H + 14,
            i + 1
        );
    }
    let rows = per_task.len().div_ceil(KEY_COLUMNS).max(1);
    for (i, (id, _)) in per_task.iter().enumerate() {
        let col = (i / rows) as u32;
        let row = (i % rows) as u32;
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}">{} {}</text>"##,
            LEFT + col * KEY_COLUMN_W,
            TOP + PLOT_H + 34 + row * 14,
            i + 1,
            esc(id)
        );
    }
    for (label, v, color, dash) in [
        ("median", median, "#333333", ""),
        (
            "median target",
            target,
            "#e15759",
            r##" stroke-dasharray="6 4""##,
        ),
    ] {
        let ly = y(v);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="1.5"{dash}/><text x="{}" y="{}" fill="{color}" text-anchor="end">{label} {v}</text>"##,
            width - 10,
            width - 10,
            ly - 4
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_bar_segment_per_step_and_both_lines() {
        let tasks = json!({
            "per_task": {
                "a<b": {"model_o200k_tokens": 600, "steps": [
                    {"step": "search", "model_o200k_tokens": 100},
                    {"step": "describe", "model_o200k_tokens": 400},
                    {"step": "call", "model_o200k_tokens": 100}]},
                "c": {"model_o200k_tokens": 50, "steps": [{"step": "search", "model_o200k_tokens": 50}]},
            },
            "median": {"model_o200k_tokens": 600},
            "target": {"median_model_o200k_tokens": 900},
        });
        let s = svg(&tasks);
        assert!(s.starts_with("<svg"));
        assert!(s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<title>").count(), 4);
        assert!(s.contains("median 600") && s.contains("target 900"));
        assert!(s.contains("a&lt;b") && !s.contains("a<b"));
        assert_eq!(svg(&tasks), s, "deterministic");
    }
}
