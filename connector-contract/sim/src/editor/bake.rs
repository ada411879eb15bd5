//! `bake`: lighting, NavMesh, NavMesh surfaces and occlusion bakes. Asynchronous, polled with
//! `bake status`; no file bus (connector-contract/README.md §7.4).

use super::args::{Args, Fail};
use super::editor_state::PlayState;
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};
use std::collections::BTreeMap;

const AREAS: [&str; 4] = ["lighting", "navmesh", "navmesh_surfaces", "occlusion"];

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Idle,
    Running { started_ms: i64, due_ms: i64 },
    Completed { at_ms: i64 },
    Cancelled { at_ms: i64 },
}

#[derive(Debug, Clone)]
struct Area {
    phase: Phase,
    has_data: bool,
    surfaces: Vec<String>,
}

#[derive(Debug, Default)]
pub struct BakeState {
    areas: BTreeMap<String, Area>,
}

fn area_param(a: Args) -> Result<String, Fail> {
    let area = a.req_str("area")?.to_ascii_lowercase();
    if !AREAS.contains(&area.as_str()) {
        return Err(Fail::invalid(
            "area",
            format!("expected one of {}", AREAS.join(", ")),
        ));
    }
    Ok(area)
}

/// The Connector's status payloads: the typed `StatusResult` for the main areas (absent keys
/// omitted, never null), and an anonymous object with counts for `navmesh_surfaces`.
fn status_json(area: &str, st: Option<&Area>, now: i64) -> Value {
    let default = Area {
        phase: Phase::Idle,
        has_data: false,
        surfaces: Vec::new(),
    };
    let st = st.unwrap_or(&default);
    let baking = matches!(st.phase, Phase::Running { .. });
    let state = if baking { "baking" } else { "idle" };
    if area == "navmesh_surfaces" {
        let n = st.surfaces.len();
        return json!({"area": area, "state": state, "surfaces": n,
                      "baking": if baking { n } else { 0 },
                      "with_data": if st.has_data { n } else { 0 }});
    }
    let mut v = json!({"area": area, "state": state, "has_baked_data": st.has_data});
    if let (true, Phase::Running { started_ms, due_ms }) = (area == "lighting", &st.phase) {
        let span = (due_ms - started_ms).max(1) as f64;
        let p = ((now - started_ms) as f64 / span).clamp(0.0, 0.99);
        v["progress"] = json!((p * 100.0).round() / 100.0);
    }
    if area == "occlusion" {
        v["data_size_bytes"] = json!(if st.has_data { 262_144 } else { 0 });
    }
    v
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    let now = ctx.now_ms;
    match action.unwrap_or("") {
        "start" => {
            let area = area_param(a)?;
            if area == "navmesh_surfaces" && !ed.packages.is_installed("com.unity.ai.navigation") {
                return Err(Fail::new("PACKAGE_NOT_INSTALLED", "NavMesh surfaces need the com.unity.ai.navigation package; add it with manage_packages add.")
                    .with_data(json!({"package": "com.unity.ai.navigation"})));
            }
            if area == "lighting" && ed.play.state != PlayState::Edit {
                return Err(Fail::new(
                    "IN_PLAY_MODE",
                    "Lighting cannot be baked in play mode.",
                ));
            }
            if matches!(
                ed.bake.areas.get(&area).map(|s| &s.phase),
                Some(Phase::Running { .. })
            ) {
                return Err(Fail::new(
                    "ALREADY_BAKING",
                    format!("A {area} bake is already running; check bake status or cancel it."),
                ));
            }
            let target = a.str("target")?.map(str::to_string);
            let roots: Vec<i64> = match &target {
                Some(t) => vec![ed.world.resolve(t).ok_or_else(|| {
                    Fail::new("TARGET_NOT_FOUND", format!("No GameObject matches '{t}'."))
                        .with_data(json!({"target": t}))
                })?],
                None => ed
                    .world
                    .scenes
                    .iter()
                    .filter(|s| s.loaded)
                    .flat_map(|s| s.roots.clone())
                    .collect(),
            };
            let mut surfaces = Vec::new();
            if area == "navmesh_surfaces" {
                for r in roots {
                    for id in ed.world.subtree(r) {
                        if ed
                            .world
                            .get(id)
                            .is_some_and(|o| o.has_component("NavMeshSurface"))
                        {
                            surfaces.push(ed.world.path_of(id));
                        }
                    }
                }
                if surfaces.is_empty() {
                    return Err(Fail::new(
                        "TARGET_NOT_FOUND",
                        "No NavMeshSurface components found to bake; add one with manage_components add.",
                    ));
                }
            }
            let st = Area {
                phase: Phase::Running {
                    started_ms: now,
                    due_ms: now + ed.knobs.job_delay_ms,
                },
                has_data: ed.bake.areas.get(&area).is_some_and(|s| s.has_data),
                surfaces,
            };
            let count = st.surfaces.len();
            ed.bake.areas.insert(area.clone(), st);
            let data = match area.as_str() {
                "navmesh_surfaces" => {
                    json!({"area": area, "started": true, "surfaces": count})
                }
                "lighting" => {
                    json!({"area": area, "started": true, "lighting_workflow_mode": "OnDemand"})
                }
                _ => json!({"area": area, "started": true}),
            };
            ok(
                format!("{area} bake started; poll bake status --area {area} until it is idle."),
                data,
            )
        }
        "status" => {
            let area = area_param(a)?;
            complete_due(ed, now);
            let data = status_json(&area, ed.bake.areas.get(&area), now);
            ok(
                format!("{area} bake: {}.", data["state"].as_str().unwrap_or("")),
                data,
            )
        }
        "cancel" => {
            let area = area_param(a)?;
            if area == "navmesh_surfaces" {
                return Err(Fail::new(
                    "CANCEL_UNSUPPORTED",
                    "NavMesh surface bakes cannot be cancelled once started.",
                ));
            }
            let running = matches!(
                ed.bake.areas.get(&area).map(|s| &s.phase),
                Some(Phase::Running { .. })
            );
            if let (true, Some(st)) = (running, ed.bake.areas.get_mut(&area)) {
                st.phase = Phase::Cancelled { at_ms: now };
            }
            ok(
                if running {
                    format!("{area} bake cancelled.")
                } else {
                    format!("No {area} bake was running.")
                },
                json!({"area": area, "was_baking": running}),
            )
        }
        "clear" => {
            let area = area_param(a)?;
            let st = ed.bake.areas.entry(area.clone()).or_insert(Area {
                phase: Phase::Idle,
                has_data: false,
                surfaces: Vec::new(),
            });
            st.has_data = false;
            st.phase = Phase::Idle;
            if area == "navmesh_surfaces" {
                let n = st.surfaces.len();
                return ok(
                    format!("Cleared baked data on {n} surface(s)."),
                    json!({"area": area, "cleared": true, "surfaces": n}),
                );
            }
            ok(
                format!("{area} baked data cleared."),
                json!({"area": area, "cleared": true}),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

pub fn complete_due(ed: &mut Editor, now: i64) {
    for st in ed.bake.areas.values_mut() {
        if let Phase::Running { due_ms, .. } = st.phase
            && due_ms <= now
        {
            st.phase = Phase::Completed { at_ms: due_ms };
            st.has_data = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_bake_lifecycle() {
        let mut h = Harness::new();
        assert_eq!(
            h.ok("bake", json!({"action": "start", "area": "lighting"}))["started"],
            true
        );
        assert_eq!(
            h.err("bake", json!({"action": "start", "area": "lighting"})),
            "ALREADY_BAKING"
        );
        let _ = h.advance(1_000);
        let s = h.ok("bake", json!({"action": "status", "area": "lighting"}));
        assert_eq!(s["state"], "idle");
        assert_eq!(s["has_baked_data"], true);
        assert_eq!(
            h.ok("bake", json!({"action": "clear", "area": "lighting"}))["cleared"],
            true
        );
        h.ok("bake", json!({"action": "start", "area": "occlusion"}));
        assert_eq!(
            h.ok("bake", json!({"action": "cancel", "area": "occlusion"}))["was_baking"],
            true
        );
        assert_eq!(
            h.ok("bake", json!({"action": "status", "area": "occlusion"}))["state"],
            "idle"
        );
        assert_eq!(
            h.err(
                "bake",
                json!({"action": "start", "area": "navmesh_surfaces"})
            ),
            "PACKAGE_NOT_INSTALLED"
        );
        assert_eq!(
            h.err(
                "bake",
                json!({"action": "cancel", "area": "navmesh_surfaces"})
            ),
            "CANCEL_UNSUPPORTED"
        );
    }
}
