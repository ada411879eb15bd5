//! The README's "Performance" table, rendered from `metrics/bench.json` alone, between two
//! marker lines so the rest of the README is never touched.

use super::Res;
use serde_json::Value;
use std::path::Path;

pub const BEGIN: &str = "<!-- bench table: generated from metrics/bench.json by `cargo run --release --example bench -- --readme`; do not edit by hand -->";
pub const END: &str = "<!-- end of bench table -->";

/// The table in Markdown.
pub fn table(report: &Value) -> String {
    let mut out = String::from("| measure | this run | target | met |\n|---|---|---|---|\n");
    for row in report["targets"].as_array().into_iter().flatten() {
        let measured = match row["measured"].as_f64() {
            Some(m) => format!("{m} {}", row["unit"].as_str().unwrap_or("")),
            None => "not measured".to_string(),
        };
        let met = match row["met"].as_bool() {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "",
        };
        out.push_str(&format!(
            "| {} | {} | {} | {met} |\n",
            row["what"].as_str().unwrap_or(""),
            measured.trim_end(),
            row["target"].as_str().unwrap_or(""),
        ));
    }
    let m = &report["machine"];
    out.push_str(&format!(
        "\n{} run of commit `{}` on {} ({} CPUs, load {} at the start), {}.\n",
        report["mode"]
            .as_str()
            .unwrap_or("?")
            .split(' ')
            .next()
            .unwrap_or("?"),
        report["commit"]["sha"]
            .as_str()
            .map_or("?", |s| &s[..s.len().min(12)]),
        m["cpu"].as_str().unwrap_or("an unknown CPU"),
        m["available_parallelism"],
        m["load_average_start"][0],
        report["date"].as_str().unwrap_or("?"),
    ));
    out
}

/// Replaces the text between [`BEGIN`] and [`END`] in `readme` with [`table`].
pub fn write(readme: &Path, report: &Value) -> Res<()> {
    let text = std::fs::read_to_string(readme).map_err(|e| format!("{}: {e}", readme.display()))?;
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        return Err(format!(
            "{} has no bench table markers; put these two lines where the table goes:\n{BEGIN}\n{END}",
            readme.display()
        ));
    };
    if e < b {
        return Err(format!(
            "{}: the end marker precedes the begin marker",
            readme.display()
        ));
    }
    let new = format!("{}{BEGIN}\n\n{}\n{}", &text[..b], table(report), &text[e..]);
    if new != text {
        std::fs::write(readme, new).map_err(|e| format!("{}: {e}", readme.display()))?;
        eprintln!("bench: README table updated");
    }
    Ok(())
}
