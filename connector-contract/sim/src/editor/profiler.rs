//! `profiler`: a frame recorder fed by simulated time. While enabled it records 60 frames per
//! second in play mode (none while paused) and 10 editor frames per second in edit mode, keeping
//! the last 300 like Unity's default. Sample trees are synthesized per frame from the scene
//! (script and renderer counts), deterministically, so repeated reads of a frame agree.

use super::args::{Args, Fail};
use super::editor_state::PlayState;
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

const MAX_FRAMES: usize = 300;

#[derive(Debug, Clone)]
struct Frame {
    index: i64,
    total_ms: f64,
    playing: bool,
}

#[derive(Debug, Default)]
pub struct Profiler {
    enabled: bool,
    frames: Vec<Frame>,
    next_index: i64,
    carry_ms: f64,
}

/// A small deterministic hash for per-frame jitter.
fn jitter(index: i64, salt: u64) -> f64 {
    let mut x = (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt;
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 32;
    (x % 1000) as f64 / 1000.0
}

impl Profiler {
    pub fn advance(&mut self, since: i64, now: i64, state: PlayState) {
        if !self.enabled || now <= since {
            return;
        }
        let fps = match state {
            PlayState::Playing => 60.0,
            PlayState::Paused => return,
            PlayState::Edit => 10.0,
        };
        let period = 1000.0 / fps;
        self.carry_ms += (now - since) as f64;
        let n = ((self.carry_ms / period).floor() as usize).min(MAX_FRAMES);
        self.carry_ms -= n as f64 * period;
        self.carry_ms = self.carry_ms.min(period * MAX_FRAMES as f64);
        for _ in 0..n {
            let index = self.next_index;
            self.next_index += 1;
            let playing = state == PlayState::Playing;
            let base = if playing { 14.0 } else { 6.0 };
            self.frames.push(Frame {
                index,
                total_ms: base + 4.0 * jitter(index, 1),
                playing,
            });
        }
        if self.frames.len() > MAX_FRAMES {
            let excess = self.frames.len() - MAX_FRAMES;
            self.frames.drain(..excess);
        }
    }
}

/// What `hierarchy` needs while building the nested item tree: the samples, the averaging
/// function, and (depth, max children, min ms, sort column, thread scale).
type TreeCtx<'a> = (
    &'a Vec<Sample>,
    &'a dyn Fn(usize, fn(&Sample) -> f64) -> f64,
    usize,
    usize,
    f64,
    &'a str,
    f64,
);

struct Sample {
    name: String,
    parent: Option<usize>,
    total: f64,
    self_ms: f64,
    calls: u64,
}

/// The sample tree of one frame, flattened depth-first (index = item id).
fn samples(f: &Frame, scripts: usize, renderers: usize) -> Vec<Sample> {
    let mut out: Vec<Sample> = Vec::new();
    let mut push = |name: &str, parent: Option<usize>, total: f64, calls: u64| {
        out.push(Sample {
            name: name.into(),
            parent,
            total,
            self_ms: total,
            calls,
        });
        out.len() - 1
    };
    let t = f.total_ms;
    let root = push(
        if f.playing {
            "PlayerLoop"
        } else {
            "EditorLoop"
        },
        None,
        t,
        1,
    );
    let scripts_share = 0.05 * scripts as f64 * (1.0 + jitter(f.index, 2));
    let upd = push(
        "Update.ScriptRunBehaviourUpdate",
        Some(root),
        t * (0.08 + scripts_share).min(0.4),
        1,
    );
    if scripts > 0 {
        let bu = push(
            "BehaviourUpdate",
            Some(upd),
            t * (0.07 + scripts_share).min(0.38),
            1,
        );
        push(
            "PlayerController.Update() [Invoke]",
            Some(bu),
            t * (0.06 + scripts_share).min(0.36),
            scripts as u64,
        );
    }
    let phys = push(
        "FixedUpdate.PhysicsFixedUpdate",
        Some(root),
        t * 0.12,
        if f.playing { 1 } else { 0 },
    );
    push(
        "Physics.Simulate",
        Some(phys),
        t * 0.1,
        if f.playing { 1 } else { 0 },
    );
    let render = push(
        "PostLateUpdate.FinishFrameRendering",
        Some(root),
        t * 0.45,
        1,
    );
    let cam = push("Camera.Render", Some(render), t * 0.4, 1);
    push(
        "Render.OpaqueGeometry",
        Some(cam),
        t * (0.1 + 0.01 * renderers as f64).min(0.3),
        renderers.max(1) as u64,
    );
    push("Render.TransparentGeometry", Some(cam), t * 0.03, 1);
    push(
        "Gfx.WaitForPresentOnGfxThread",
        Some(root),
        t * 0.1 * jitter(f.index, 3),
        1,
    );
    // Self time = total minus children.
    for i in 0..out.len() {
        let child_sum: f64 = out
            .iter()
            .filter(|s| s.parent == Some(i))
            .map(|s| s.total)
            .sum();
        out[i].self_ms = (out[i].total - child_sum).max(0.0);
    }
    out
}

fn r3(f: f64) -> f64 {
    (f * 1000.0).round() / 1000.0
}

fn scene_counts(ed: &Editor) -> (usize, usize) {
    let ids = ed.world.walk();
    let scripts = ids
        .iter()
        .filter(|id| {
            ed.world
                .get(**id)
                .is_some_and(|o| o.has_component("PlayerController"))
        })
        .count();
    let renderers = ids
        .iter()
        .filter(|id| {
            ed.world
                .get(**id)
                .is_some_and(|o| o.has_component("MeshRenderer"))
        })
        .count();
    (scripts, renderers)
}

/// The Connector's status, in camelCase as its result class declares (-1 for no frame).
fn status_json(ed: &Editor) -> Value {
    let p = &ed.profiler;
    json!({
        "enabled": p.enabled,
        "firstFrame": p.frames.first().map_or(-1, |f| f.index),
        "lastFrame": p.frames.last().map_or(-1, |f| f.index),
        "frameCount": p.frames.len(),
        "isPlaying": ed.play.state != PlayState::Edit,
    })
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    // The tool-level call is the default action, `hierarchy`.
    match action.unwrap_or("hierarchy") {
        "status" => ok(
            format!(
                "Profiler {}.",
                if ed.profiler.enabled {
                    "enabled"
                } else {
                    "disabled"
                }
            ),
            status_json(ed),
        ),
        "enable" => {
            let was = std::mem::replace(&mut ed.profiler.enabled, true);
            ok(
                if was {
                    "Profiler was already enabled."
                } else {
                    "Profiler enabled."
                },
                Value::Null,
            )
        }
        "disable" => {
            let was = std::mem::replace(&mut ed.profiler.enabled, false);
            ok(
                if was {
                    "Profiler disabled."
                } else {
                    "Profiler was already disabled."
                },
                Value::Null,
            )
        }
        "clear" => {
            let n = ed.profiler.frames.len();
            ed.profiler.frames.clear();
            ok(format!("Cleared {n} recorded frame(s)."), Value::Null)
        }
        "stats" => stats(ed),
        "hierarchy" => hierarchy(ed, a),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn mesh_cost(mesh: &str) -> (u64, u64) {
    match mesh {
        "Cube" => (12, 24),
        "Sphere" => (768, 515),
        "Capsule" => (832, 550),
        "Cylinder" => (80, 88),
        "Plane" => (200, 121),
        _ => (2, 4),
    }
}

fn stats(ed: &Editor) -> Handled {
    let frames = &ed.profiler.frames;
    let recent: Vec<&Frame> = frames.iter().rev().take(60).collect();
    let avg = if recent.is_empty() {
        0.0
    } else {
        recent.iter().map(|f| f.total_ms).sum::<f64>() / recent.len() as f64
    };
    let (mut tris, mut verts, mut batches) = (0u64, 0u64, 0u64);
    for id in ed.world.walk() {
        let Some(o) = ed.world.get(id) else { continue };
        if !ed.world.active_in_hierarchy(id) || !o.has_component("MeshRenderer") {
            continue;
        }
        let mesh = o
            .component("MeshFilter")
            .and_then(|c| c.props.get("m_Mesh"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let (t, v) = mesh_cost(mesh);
        tris += t;
        verts += v;
        batches += 1;
    }
    let objects = ed.world.objects.len() as f64;
    ok(
        if frames.is_empty() {
            "No frames recorded yet; enable the profiler (and enter play mode for game frames)."
                .to_string()
        } else {
            format!("Stats over the last {} frame(s).", recent.len())
        },
        // The typed StatsResult, snake_case; sizes in bytes.
        json!({
            "is_playing": ed.play.state != PlayState::Edit,
            "render_available": true,
            "render": {"draw_calls": batches, "set_pass_calls": batches.min(8), "batches": batches,
                       "triangles": tris, "vertices": verts, "shadow_casters": batches / 2,
                       "frame_time_ms": r3(avg), "render_time_ms": r3(avg * 0.6),
                       "screen_res": "1920x1080"},
            "memory": {
                "total_allocated_bytes": ((312.0 + objects * 0.02) * 1_048_576.0) as i64,
                "total_reserved_bytes": ((512.0 + objects * 0.02) * 1_048_576.0) as i64,
                "mono_used_bytes": ((48.0 + objects * 0.004) * 1_048_576.0) as i64,
                "mono_heap_bytes": ((64.0 + objects * 0.004) * 1_048_576.0) as i64,
                "graphics_driver_bytes": ((64.0 + ed.assets.entries.len() as f64 * 0.25) * 1_048_576.0) as i64,
            },
        }),
    )
}

fn hierarchy(ed: &Editor, a: Args) -> Handled {
    let frames = &ed.profiler.frames;
    if frames.is_empty() {
        return Err(Fail::new(
            "PROFILER_NO_DATA",
            if ed.profiler.enabled {
                "No frames recorded yet; wait a moment (or enter play mode)."
            } else {
                "The profiler is disabled; enable it with profiler enable."
            },
        ));
    }
    let thread = a.i64("thread")?.unwrap_or(0);
    let thread_name = match thread {
        0 => "Main Thread",
        1 => "Render Thread",
        _ => {
            return Err(Fail::new(
                "PROFILER_THREAD_NOT_FOUND",
                format!(
                    "Thread index {thread} does not exist (0 = Main Thread, 1 = Render Thread)."
                ),
            )
            .with_data(json!({"thread": thread})));
        }
    };
    let (first, last) = (frames[0].index, frames[frames.len() - 1].index);
    let out_of_range = |f: i64| {
        Fail::new(
            "PROFILER_FRAME_OUT_OF_RANGE",
            format!("Frame {f} is not recorded; recorded frames are {first}-{last}."),
        )
        .with_data(json!({"frame": f, "first_frame": first, "last_frame": last}))
    };
    let pick: Vec<&Frame> = if let Some(n) = a.i64("frames")?.filter(|n| *n > 0) {
        frames.iter().rev().take(n as usize).collect()
    } else if a.i64("from")?.is_some_and(|f| f >= 0) || a.i64("to")?.is_some_and(|f| f >= 0) {
        let from = a.i64("from")?.filter(|f| *f >= 0).unwrap_or(first);
        let to = a.i64("to")?.filter(|f| *f >= 0).unwrap_or(last);
        if from > to {
            return Err(Fail::invalid("from", "from must not be after to"));
        }
        let sel: Vec<&Frame> = frames
            .iter()
            .filter(|f| f.index >= from && f.index <= to)
            .collect();
        if sel.is_empty() {
            return Err(out_of_range(from));
        }
        sel
    } else {
        let f = a.i64("frame")?.unwrap_or(-1);
        if f < 0 {
            vec![&frames[frames.len() - 1]]
        } else {
            vec![
                frames
                    .iter()
                    .find(|x| x.index == f)
                    .ok_or_else(|| out_of_range(f))?,
            ]
        }
    };
    let (scripts, renderers) = scene_counts(ed);
    let trees: Vec<Vec<Sample>> = pick
        .iter()
        .map(|f| samples(f, scripts, renderers))
        .collect();
    // Average by position (every frame of one kind shares the same tree shape) or by name.
    let base = &trees[0];
    let n = trees.len() as f64;
    let avg = |i: usize, f: fn(&Sample) -> f64| -> f64 {
        trees
            .iter()
            .map(|t| {
                t.iter()
                    .find(|s| s.name == base[i].name)
                    .map(f)
                    .unwrap_or(0.0)
            })
            .sum::<f64>()
            / n
    };
    let scale = if thread == 1 { 0.6 } else { 1.0 };
    let depth = a.i64("depth")?.unwrap_or(1).max(0) as usize;
    let max = a.i64("max")?.unwrap_or(30).max(1) as usize;
    let min = a.f64("min")?.unwrap_or(0.0);
    let sort = a.str("sort")?.unwrap_or("total").to_ascii_lowercase();
    let start: usize = if let Some(pid) = a.i64("parent")? {
        if pid < 0 || pid as usize >= base.len() {
            return Err(Fail::new(
                "PROFILER_ITEM_NOT_FOUND",
                format!("No sample with id {pid} in this frame."),
            ));
        }
        pid as usize
    } else if let Some(r) = a.str("root")? {
        base.iter()
            .position(|s| s.name.to_lowercase().contains(&r.to_lowercase()))
            .ok_or_else(|| {
                Fail::new(
                    "PROFILER_ITEM_NOT_FOUND",
                    format!("No sample name contains '{r}'."),
                )
                .with_data(json!({"root": r}))
            })?
    } else {
        0
    };
    fn build(i: usize, level: usize, ctx: &TreeCtx) -> Value {
        let (base, avg, depth, max, min, sort, scale) = *ctx;
        let mut v = json!({
            "itemId": i, "name": base[i].name, "totalMs": r3(avg(i, |s| s.total) * scale),
            "selfMs": r3(avg(i, |s| s.self_ms) * scale), "calls": base[i].calls,
        });
        if depth == 0 || level < depth {
            let mut kids: Vec<usize> = (0..base.len())
                .filter(|c| base[*c].parent == Some(i) && avg(*c, |s| s.total) * scale >= min)
                .collect();
            kids.sort_by(|x, y| {
                let key = |k: usize| match sort {
                    "self" => avg(k, |s| s.self_ms),
                    "calls" => base[k].calls as f64,
                    _ => avg(k, |s| s.total),
                };
                key(*y)
                    .partial_cmp(&key(*x))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let children: Vec<Value> = kids
                .into_iter()
                .take(max)
                .map(|c| build(c, level + 1, ctx))
                .collect();
            // `children` only where deeper levels exist.
            if !children.is_empty() {
                v["children"] = json!(children);
            }
        }
        v
    }
    let ctx = (
        base,
        &avg as &dyn Fn(usize, fn(&Sample) -> f64) -> f64,
        depth,
        max,
        min,
        sort.as_str(),
        scale,
    );
    let tree = build(start, 0, &ctx);
    let children = tree.get("children").cloned().unwrap_or(json!([]));
    if pick.len() > 1 {
        // Averaged over frames: a flat list of the parent's children.
        let items: Vec<Value> = children
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                json!({"name": c["name"], "avgTotalMs": c["totalMs"], "avgSelfMs": c["selfMs"],
                       "avgCalls": c["calls"].as_f64().unwrap_or(0.0), "appearedIn": pick.len()})
            })
            .collect();
        return ok(
            format!("{thread_name}, {} frame(s) averaged.", pick.len()),
            json!({"frameCount": pick.len(), "threadIndex": thread,
                   "root": base[start].name, "items": items}),
        );
    }
    ok(
        format!("{thread_name}, frame {}.", pick[0].index),
        json!({
            "frame": pick[0].index, "threadIndex": thread, "parent": start,
            "parentName": if start == 0 { "(root)".to_string() } else { base[start].name.clone() },
            "depth": depth, "children": children,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_profiler_records_while_enabled() {
        let mut h = Harness::new();
        assert_eq!(
            h.err("profiler", json!({"action": "hierarchy"})),
            "PROFILER_NO_DATA"
        );
        h.ok("profiler", json!({"action": "enable"}));
        h.ok("manage_editor", json!({"action": "play"}));
        let _ = h.advance(1_000);
        let st = h.ok("profiler", json!({"action": "status"}));
        assert!(st["frameCount"].as_u64().unwrap() >= 59, "{st}");
        let hier = h.ok("profiler", json!({"action": "hierarchy", "depth": 0}));
        assert_eq!(hier["parentName"], "(root)");
        let text = hier.to_string();
        assert!(text.contains("PlayerController.Update()"), "{text}");
        let avg = h.ok(
            "profiler",
            json!({"action": "hierarchy", "frames": 10, "root": "Camera"}),
        );
        assert_eq!(avg["frameCount"], 10);
        assert_eq!(avg["root"], "Camera.Render");
        assert_eq!(
            h.err("profiler", json!({"action": "hierarchy", "frame": 999_999})),
            "PROFILER_FRAME_OUT_OF_RANGE"
        );
        assert!(
            h.ok("profiler", json!({"action": "stats"}))["render"]["triangles"]
                .as_u64()
                .unwrap()
                > 0
        );
        h.ok("profiler", json!({"action": "clear"}));
        assert_eq!(
            h.ok("profiler", json!({"action": "status"}))["frameCount"],
            0
        );
    }
}
