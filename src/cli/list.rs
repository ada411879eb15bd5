//! `list`: the Editor's tools and actions from its (verified, possibly cached) catalog.

use super::context::Globals;
use super::exit;
use super::output::{Failure, print_json};
use crate::catalog::{Safety, ToolEntry};
use serde_json::{Value, json};

fn safety_brief(s: &Safety) -> Value {
    json!({"risk_class": s.risk_class.as_str(), "read_only": s.read_only,
           "requires_confirmation": s.requires_confirmation})
}

/// The most severe view of a tool: confirmation if any part needs it, read-only only if all are.
fn tool_summary(t: &ToolEntry) -> Value {
    let all = std::iter::once(&t.safety)
        .chain(t.safety.rules.iter().map(|r| &r.safety))
        .chain(t.actions.iter().map(|a| &a.safety));
    let (mut confirm, mut read_only) = (false, true);
    for s in all {
        confirm |= s.requires_confirmation;
        read_only &= s.read_only;
    }
    json!({
        "name": t.name,
        "description": t.description,
        "contract_mode": t.contract_mode,
        "profiles": t.profiles,
        "read_only": read_only,
        "may_require_confirmation": confirm,
        "safety": safety_brief(&t.safety),
        "actions": t.actions.iter().map(|a| json!({
            "name": a.name, "description": a.description, "safety": safety_brief(&a.safety)
        })).collect::<Vec<_>>(),
    })
}

pub async fn run(g: &Globals, compact: bool, json_out: bool) -> Result<u8, Failure> {
    let session = g.session();
    let (_, view) = session
        .ready_for_call(0, &g.alive_report())
        .await
        .map_err(Failure::from)?;
    let snap = &view.snapshot;
    let tools = &snap.catalog.tools;
    match (compact, json_out) {
        (true, true) => print_json(&json!(tools.iter().map(|t| &t.name).collect::<Vec<_>>())),
        (true, false) => {
            for t in tools {
                println!("{}", t.name);
            }
        }
        (false, true) => print_json(&json!({
            "catalog_hash": snap.catalog_hash(),
            "domain_epoch": snap.domain_epoch(),
            "legacy": snap.is_legacy(),
            "tools": tools.iter().map(tool_summary).collect::<Vec<_>>(),
        })),
        (false, false) => {
            if snap.is_legacy() {
                eprintln!(
                    "note: this Connector publishes no safety contracts (legacy); every call asks for confirmation"
                );
            }
            for t in tools {
                let s = tool_summary(t);
                let mark = if s["may_require_confirmation"] == true {
                    " [approval]"
                } else if s["read_only"] == true {
                    " [read-only]"
                } else {
                    ""
                };
                println!("{}{mark}  {}", t.name, first_line(&t.description));
                for a in &t.actions {
                    let m = if a.safety.requires_confirmation {
                        " [approval]"
                    } else if a.safety.read_only {
                        " [read-only]"
                    } else {
                        ""
                    };
                    println!("    {}{m}  {}", a.name, first_line(&a.description));
                }
            }
            eprintln!(
                "{} tools, {} actions (catalog {})",
                tools.len(),
                tools.iter().map(|t| t.actions.len()).sum::<usize>(),
                snap.catalog_hash()
            );
        }
    }
    Ok(exit::OK)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
