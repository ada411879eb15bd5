//! `manage_settings`: the project-settings groups (physics, time, quality, player, audio,
//! graphics, input, lighting, navmesh) as typed values; `set_*` validates, reports every change
//! as `{key, from, to}`, and with `dry_run` only previews.

use super::args::{Args, Fail};
use super::{Editor, Handled, Invocation, InvokeContext, ReloadReason};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

const QUALITY_LEVELS: [&str; 6] = ["Very Low", "Low", "Medium", "High", "Very High", "Ultra"];

#[derive(Debug)]
pub struct Settings {
    groups: BTreeMap<&'static str, Map<String, Value>>,
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn axis(name: &str, pos: &str, neg: &str, kind: &str) -> Value {
    json!({"name": name, "positive_button": pos, "negative_button": neg, "gravity": 3.0, "dead": 0.001, "sensitivity": 3.0, "type": kind})
}

impl Settings {
    pub fn new(project_path: &str) -> Settings {
        let product = project_path
            .trim_end_matches(['/', '\\'])
            .rsplit(['/', '\\'])
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or("New Unity Project")
            .to_string();
        let mut groups = BTreeMap::new();
        groups.insert("physics", obj(json!({
            "gravity": [0.0, -9.81, 0.0], "default_contact_offset": 0.01, "bounce_threshold": 2.0,
            "sleep_threshold": 0.005, "default_solver_iterations": 6, "default_solver_velocity_iterations": 1,
        })));
        groups.insert("time", obj(json!({
            "fixed_delta_time": 0.02, "maximum_delta_time": 0.3333333, "time_scale": 1.0, "maximum_particle_delta_time": 0.03,
        })));
        groups.insert("quality", obj(json!({
            "level": 5, "level_name": "Ultra", "levels": QUALITY_LEVELS, "anti_aliasing": 2, "vsync_count": 1,
        })));
        groups.insert("player", obj(json!({
            "company_name": "DefaultCompany", "product_name": product, "bundle_version": "1.0",
            "scripting_backend": "mono2x", "api_compatibility_level": "net_standard",
            "default_screen_width": 1920, "default_screen_height": 1080, "color_space": "Linear",
        })));
        groups.insert("audio", obj(json!({
            "volume": 1.0, "doppler_factor": 1.0, "rolloff_scale": 1.0, "speaker_mode": "Stereo", "dsp_buffer_size": 1024,
        })));
        groups.insert("graphics", obj(json!({
            "render_pipeline_asset": null, "render_pipeline": "Built-in",
            "always_included_shaders": ["Legacy Shaders/Diffuse", "Hidden/CubeBlur", "UI/Default", "Sprites/Default"],
        })));
        groups.insert("input", obj(json!({"axes": [
            axis("Horizontal", "right", "left", "KeyOrMouseButton"), axis("Vertical", "up", "down", "KeyOrMouseButton"),
            axis("Fire1", "left ctrl", "", "KeyOrMouseButton"), axis("Fire2", "left alt", "", "KeyOrMouseButton"),
            axis("Fire3", "left shift", "", "KeyOrMouseButton"), axis("Jump", "space", "", "KeyOrMouseButton"),
            axis("Mouse X", "", "", "MouseMovement"), axis("Mouse Y", "", "", "MouseMovement"),
            axis("Mouse ScrollWheel", "", "", "MouseMovement"), axis("Submit", "return", "", "KeyOrMouseButton"),
            axis("Cancel", "escape", "", "KeyOrMouseButton"),
        ]})));
        groups.insert("lighting", obj(json!({
            "baked_gi": true, "realtime_gi": false, "lightmapper": "ProgressiveGPU", "lightmap_resolution": 40.0,
            "lightmap_padding": 2, "max_lightmap_size": 1024, "direct_sample_count": 32, "indirect_sample_count": 512,
            "environment_sample_count": 256, "bounces": 2, "ao": false, "ao_max_distance": 1.0,
            "directional_mode": "directional", "filtering_mode": "Auto", "lightmap_compression": "NormalQuality",
        })));
        groups.insert(
            "navmesh",
            obj(json!({
                "agent_radius": 0.5, "agent_height": 2.0, "agent_slope": 45.0, "agent_climb": 0.4,
                "min_region_area": 2.0, "manual_voxel_size": false, "voxel_size": 0.1666667,
            })),
        );
        Settings { groups }
    }

    pub fn product_name(&self) -> String {
        self.groups["player"]["product_name"]
            .as_str()
            .unwrap_or("Game")
            .to_string()
    }
    pub fn get(&self, group: &str, key: &str) -> Value {
        self.groups
            .get(group)
            .and_then(|g| g.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    }
}

/// Enum-like string settings and their allowed values (matched case-insensitively).
fn allowed(key: &str) -> Option<&'static [&'static str]> {
    Some(match key {
        "scripting_backend" => &["mono2x", "il2cpp"],
        "api_compatibility_level" => &["net_standard", "net_framework"],
        "directional_mode" => &["non_directional", "directional"],
        "lightmapper" => &["ProgressiveCPU", "ProgressiveGPU"],
        "filtering_mode" => &["None", "Auto", "Advanced"],
        "lightmap_compression" => &["None", "LowQuality", "NormalQuality", "HighQuality"],
        _ => return None,
    })
}

/// Parse `raw` to the type of the current value `cur`.
fn coerce(key: &str, cur: &Value, raw: &Value) -> Result<Value, Fail> {
    let as_f = |v: &Value| {
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    };
    match cur {
        Value::Bool(_) => match raw {
            Value::Bool(_) => Ok(raw.clone()),
            Value::String(s)
                if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") =>
            {
                Ok(json!(s.eq_ignore_ascii_case("true")))
            }
            _ => Err(Fail::invalid(key, "expected a boolean")),
        },
        Value::Number(n) if n.is_i64() || n.is_u64() => {
            let f = as_f(raw).ok_or_else(|| Fail::invalid(key, "expected an integer"))?;
            if f.fract() != 0.0 {
                return Err(Fail::invalid(key, "expected an integer"));
            }
            Ok(json!(f as i64))
        }
        Value::Number(_) => as_f(raw)
            .map(|f| json!(f))
            .ok_or_else(|| Fail::invalid(key, "expected a number")),
        Value::Array(items) => {
            let arr = raw.as_array().ok_or_else(|| {
                Fail::invalid(key, format!("expected an array of {} numbers", items.len()))
            })?;
            let nums: Option<Vec<f64>> = arr.iter().map(Value::as_f64).collect();
            match nums {
                Some(n) if n.len() == items.len() => Ok(json!(n)),
                _ => Err(Fail::invalid(
                    key,
                    format!("expected an array of {} numbers", items.len()),
                )),
            }
        }
        _ => {
            let s = raw
                .as_str()
                .ok_or_else(|| Fail::invalid(key, "expected a string"))?;
            match allowed(key) {
                Some(options) => options
                    .iter()
                    .find(|o| o.eq_ignore_ascii_case(s.trim()))
                    .map(|o| json!(o))
                    .ok_or_else(|| {
                        Fail::invalid(key, format!("expected one of {}", options.join(", ")))
                    }),
                None => Ok(json!(s)),
            }
        }
    }
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    let action = action.ok_or_else(|| Fail::missing("action"))?;
    let (verb, group) = action
        .split_once('_')
        .ok_or_else(|| Fail::invalid("action", "expected get_<group> or set_<group>"))?;
    let group: &'static str = ed
        .settings
        .groups
        .keys()
        .find(|g| **g == group)
        .copied()
        .ok_or_else(|| Fail::invalid("action", format!("unknown settings group '{group}'")))?;
    match verb {
        "get" => get(ed, group, a),
        "set" => set(ed, group, a),
        _ => Err(Fail::invalid(
            "action",
            "expected get_<group> or set_<group>",
        )),
    }
}

fn get(ed: &Editor, group: &'static str, a: Args) -> Handled {
    let g = &ed.settings.groups[group];
    let pick = |keys: &[&str]| -> Map<String, Value> {
        keys.iter()
            .map(|k| (k.to_string(), g.get(*k).cloned().unwrap_or(Value::Null)))
            .collect()
    };
    // Each group's typed result class, under its snake_case names (connector-contract/README.md ("Payload shapes")).
    let data = match group {
        "physics" => Value::Object(pick(&[
            "gravity",
            "default_solver_iterations",
            "default_solver_velocity_iterations",
            "bounce_threshold",
            "default_contact_offset",
            "sleep_threshold",
        ])),
        "time" => Value::Object(pick(&[
            "fixed_delta_time",
            "maximum_delta_time",
            "time_scale",
        ])),
        "quality" => {
            let mut m = pick(&["level", "level_name", "vsync_count", "anti_aliasing"]);
            m.insert("names".into(), json!(QUALITY_LEVELS));
            Value::Object(m)
        }
        "player" => {
            let mut m = pick(&["company_name", "product_name", "bundle_version"]);
            // The getter reports the enum names; a setter echoes the accepted lower-case key.
            let backend = match g["scripting_backend"].as_str() {
                Some("il2cpp") => "IL2CPP",
                _ => "Mono2x",
            };
            let api = match g["api_compatibility_level"].as_str() {
                Some("net_framework") => "NET_Unity_4_8",
                _ => "NET_Standard",
            };
            m.insert("scripting_backend".into(), json!(backend));
            m.insert("api_compatibility_level".into(), json!(api));
            Value::Object(m)
        }
        "audio" => Value::Object(pick(&["volume", "doppler_factor", "rolloff_scale"])),
        "graphics" => {
            let path = g["render_pipeline_asset"].as_str();
            let name = path.map(|p| {
                p.rsplit('/')
                    .next()
                    .unwrap_or(p)
                    .trim_end_matches(".asset")
                    .to_string()
            });
            json!({
                "render_pipeline_asset": name,
                "render_pipeline_asset_path": path,
                "using_scriptable_render_pipeline": path.is_some(),
            })
        }
        "input" => {
            let limit = a.limit("limit", 100, 1, 500)?;
            let axes = g["axes"].as_array().cloned().unwrap_or_default();
            let shown: Vec<Value> = axes
                .iter()
                .take(limit)
                .map(|x| {
                    json!({"name": x["name"], "sensitivity": x["sensitivity"],
                           "gravity": x["gravity"], "dead": x["dead"]})
                })
                .collect();
            json!({"total": axes.len(), "returned": shown.len(),
                   "truncated": axes.len() > limit, "axes": shown})
        }
        _ => {
            // lighting and navmesh report whether their settings object exists.
            let mut m = Map::new();
            m.insert("available".into(), json!(true));
            m.extend(g.clone());
            Value::Object(m)
        }
    };
    Ok(Invocation::ok(format!("{group} settings."), data))
}

fn set(ed: &mut Editor, group: &'static str, a: Args) -> Handled {
    let dry = a.flag("dry_run")?;
    let current = ed.settings.groups[group].clone();
    let mut next = current.clone();
    let mut given = 0usize;
    // What the Connector's change set stages: each supplied field under its own name.
    let mut applied = Map::new();

    match group {
        "input" => {
            let name = a.req_str("axis")?;
            let axes = next
                .get_mut("axes")
                .and_then(Value::as_array_mut)
                .ok_or_else(|| Fail::new("INTERNAL_ERROR", "input axes missing"))?;
            let ax = axes
                .iter_mut()
                .find(|x| {
                    x["name"]
                        .as_str()
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .ok_or_else(|| {
                    Fail::new(
                        "INPUT_AXIS_NOT_FOUND",
                        format!("No input axis named '{name}'."),
                    )
                    .with_data(json!({"axis": name}))
                })?;
            for key in ["dead", "gravity", "sensitivity"] {
                if let Some(raw) = a.raw(key) {
                    given += 1;
                    ax[key] = coerce(key, &ax[key].clone(), raw)?;
                    applied.insert(key.into(), ax[key].clone());
                }
            }
        }
        "quality" => {
            if let Some(level) = a.i64("level")? {
                given += 1;
                let name = QUALITY_LEVELS
                    .get(level.max(0) as usize)
                    .filter(|_| level >= 0)
                    .ok_or_else(|| {
                        Fail::invalid(
                            "level",
                            format!("quality levels are 0-{}", QUALITY_LEVELS.len() - 1),
                        )
                    })?;
                next.insert("level".into(), json!(level));
                next.insert("level_name".into(), json!(name));
                applied.insert("level".into(), json!(level));
            }
            if let Some(name) = a.str("level_name")? {
                given += 1;
                let idx = QUALITY_LEVELS
                    .iter()
                    .position(|l| l.eq_ignore_ascii_case(name))
                    .ok_or_else(|| {
                        Fail::invalid(
                            "level_name",
                            format!("expected one of {}", QUALITY_LEVELS.join(", ")),
                        )
                    })?;
                next.insert("level".into(), json!(idx));
                next.insert("level_name".into(), json!(QUALITY_LEVELS[idx]));
                applied.insert("level".into(), json!(idx));
            }
            if let Some(aa) = a.i64("anti_aliasing")? {
                given += 1;
                if ![0, 2, 4, 8].contains(&aa) {
                    return Err(Fail::invalid("anti_aliasing", "expected 0, 2, 4 or 8"));
                }
                next.insert("anti_aliasing".into(), json!(aa));
                applied.insert("anti_aliasing".into(), json!(aa));
            }
            if let Some(v) = a.i64("vsync_count")? {
                given += 1;
                if !(0..=4).contains(&v) {
                    return Err(Fail::invalid("vsync_count", "expected 0-4"));
                }
                next.insert("vsync_count".into(), json!(v));
                applied.insert("vsync_count".into(), json!(v));
            }
        }
        "graphics" => {
            if a.has_key("render_pipeline_asset") {
                given += 1;
                let value = match a.str("render_pipeline_asset")? {
                    None | Some("") => Value::Null,
                    Some(p) => {
                        let path = ed.assets.resolve(p).ok_or_else(|| {
                            Fail::new("ASSET_NOT_FOUND", format!("No asset at '{p}'."))
                                .with_data(json!({"path": p}))
                        })?;
                        let ty = ed
                            .assets
                            .get(&path)
                            .map(|x| x.type_name())
                            .unwrap_or_default();
                        if !ty.contains("RenderPipelineAsset") {
                            return Err(Fail::new(
                                "ASSET_TYPE_MISMATCH",
                                format!("'{path}' is a {ty}, not a render pipeline asset."),
                            ));
                        }
                        json!(path)
                    }
                };
                applied.insert("render_pipeline_asset".into(), value.clone());
                next.insert("render_pipeline_asset".into(), value);
            }
        }
        _ => {
            let keys: Vec<String> = current
                .keys()
                .filter(|k| !["levels"].contains(&k.as_str()))
                .cloned()
                .collect();
            for key in keys {
                if let Some(raw) = a.raw(&key) {
                    given += 1;
                    let v = coerce(&key, &current[&key], raw)?;
                    applied.insert(key.clone(), v.clone());
                    next.insert(key.clone(), v);
                }
            }
            if group == "navmesh" && a.raw("voxel_size").is_some() {
                next.insert("manual_voxel_size".into(), json!(true));
            }
            if group == "audio"
                && let Some(v) = next["volume"].as_f64().filter(|v| !(0.0..=1.0).contains(v))
            {
                return Err(Fail::invalid("volume", format!("{v} is outside 0-1")));
            }
        }
    }
    if given == 0 {
        return Err(Fail::new(
            "MISSING_PARAM",
            format!("Nothing to change: give at least one {group} setting."),
        ));
    }
    let changes: Vec<Value> = diff(&current, &next);
    let recompile = group == "player"
        && changes.iter().any(|c| {
            matches!(
                c["key"].as_str(),
                Some("scripting_backend" | "api_compatibility_level")
            )
        });
    if !dry {
        ed.settings.groups.insert(group, next.clone());
    }
    // The Connector's SetResult: each supplied field with its staged value (a scalar, an
    // array or null, although the published schema declares every value an open object).
    let mut data = json!({"applied": applied, "skipped": {}, "dry_run": dry});
    if group == "player" {
        data["build_target"] = json!("Standalone");
        data["recompile_triggered"] = json!(recompile && !dry);
    }
    let inv = Invocation::ok(
        format!(
            "{} {} {group} field(s).",
            if dry { "Would change" } else { "Changed" },
            data["applied"].as_object().map_or(0, Map::len)
        ),
        data,
    );
    Ok(if recompile && !dry {
        inv.with_reload(ReloadReason::ScriptCompile, true)
    } else {
        inv
    })
}

fn diff(from: &Map<String, Value>, to: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    for (k, v) in to {
        let old = from.get(k).cloned().unwrap_or(Value::Null);
        if &old == v {
            continue;
        }
        if let (Value::Array(a), Value::Array(b)) = (&old, v)
            && k == "axes"
        {
            for (x, y) in a.iter().zip(b.iter()) {
                if x != y {
                    for field in ["dead", "gravity", "sensitivity"] {
                        if x[field] != y[field] {
                            out.push(json!({"key": format!("axes.{}.{field}", y["name"].as_str().unwrap_or("")), "from": x[field], "to": y[field]}));
                        }
                    }
                }
            }
            continue;
        }
        out.push(json!({"key": k, "from": old, "to": v}));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::ReloadReason;
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_settings_get_set_dry_run() {
        let mut h = Harness::new();
        assert_eq!(
            h.ok("manage_settings", json!({"action": "get_physics"}))["gravity"],
            json!([0.0, -9.81, 0.0])
        );
        let dry = h.ok(
            "manage_settings",
            json!({"action": "set_physics", "gravity": [0, -20, 0], "dry_run": true}),
        );
        assert_eq!(dry["applied"]["gravity"], json!([0.0, -20.0, 0.0]));
        assert_eq!(dry["dry_run"], true);
        assert_eq!(
            h.ok("manage_settings", json!({"action": "get_physics"}))["gravity"][1],
            -9.81
        );
        h.ok(
            "manage_settings",
            json!({"action": "set_physics", "gravity": [0, -20, 0]}),
        );
        assert_eq!(
            h.ok("manage_settings", json!({"action": "get_physics"}))["gravity"][1],
            -20.0
        );
        h.ok(
            "manage_settings",
            json!({"action": "set_quality", "level_name": "low"}),
        );
        assert_eq!(
            h.ok("manage_settings", json!({"action": "get_quality"}))["level"],
            1
        );
        assert_eq!(
            h.err(
                "manage_settings",
                json!({"action": "set_input", "axis": "Nope", "dead": 0.1})
            ),
            "INPUT_AXIS_NOT_FOUND"
        );
        let inp = h.ok(
            "manage_settings",
            json!({"action": "set_input", "axis": "horizontal", "dead": 0.2}),
        );
        assert_eq!(inp["applied"], json!({"dead": 0.2}));
        assert_eq!(inp["skipped"], json!({}));
        assert_eq!(
            h.err("manage_settings", json!({"action": "set_time"})),
            "MISSING_PARAM"
        );
        let inv = h.call(
            "manage_settings",
            json!({"action": "set_player", "scripting_backend": "IL2CPP", "product_name": "Game"}),
        );
        assert_eq!(inv.reload.unwrap().reason, ReloadReason::ScriptCompile);
        assert_eq!(
            h.ok("manage_settings", json!({"action": "get_player"}))["scripting_backend"],
            "IL2CPP"
        );
        assert_eq!(h.err("manage_settings", json!({"action": "set_graphics", "render_pipeline_asset": "Assets/Materials/Ground.mat"})), "ASSET_TYPE_MISMATCH");
        h.ok(
            "manage_settings",
            json!({"action": "set_graphics", "render_pipeline_asset": null}),
        );
    }
}
