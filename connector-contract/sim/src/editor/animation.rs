//! `manage_animation`: AnimationClip (`.anim`) curves and AnimatorController (`.controller`)
//! parameters, layers, states and transitions, stored as asset bodies.

use super::args::{Args, Fail};
use super::asset_db::{self, AssetKind};
use super::component_types;
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

const CLIP: &str = "AnimationClip";
const CONTROLLER: &str = "AnimatorController";

fn load(ed: &Editor, a: Args, want: &str) -> Result<(String, Value), Fail> {
    let raw = a.req_str("path")?;
    let path = ed.assets.resolve(raw).ok_or_else(|| {
        Fail::new("ASSET_NOT_FOUND", format!("No asset at '{raw}'."))
            .with_data(json!({"path": raw}))
    })?;
    match ed.assets.get(&path).map(|x| &x.kind) {
        Some(AssetKind::Data { type_name, body }) if type_name == want => Ok((path, body.clone())),
        _ => Err(
            Fail::new("ASSET_TYPE_MISMATCH", format!("'{path}' is not an {want}."))
                .with_data(json!({"path": path, "expected": want})),
        ),
    }
}

/// Writes the asset body; returns the asset's GUID.
fn store(ed: &mut Editor, path: &str, ty: &str, body: Value) -> String {
    ed.assets.put(
        path,
        AssetKind::Data {
            type_name: ty.into(),
            body,
        },
    )
}

fn new_asset(ed: &Editor, a: Args, ext: &str) -> Result<String, Fail> {
    let path = asset_db::writable_path("path", a.req_str("path")?)?;
    asset_db::require_ext("path", &path, ext)?;
    if ed.assets.contains(&path) {
        return Err(
            Fail::new("ASSET_ALREADY_EXISTS", format!("'{path}' already exists."))
                .with_data(json!({"path": path})),
        );
    }
    Ok(path)
}

fn named<'v>(list: &'v [Value], name: &str) -> Option<&'v Value> {
    list.iter().find(|x| x["name"].as_str() == Some(name))
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "create_clip" => {
            let path = new_asset(ed, a, ".anim")?;
            let fr = a.f64("frame_rate")?.unwrap_or(60.0);
            if fr <= 0.0 {
                return Err(Fail::invalid("frame_rate", "must be positive"));
            }
            let body =
                json!({"frame_rate": fr, "loop": a.flag("loop")?, "length": 0.0, "curves": []});
            let guid = store(ed, &path, CLIP, body.clone());
            ok(
                "Clip created",
                json!({"path": path, "guid": guid, "frame_rate": body["frame_rate"], "loop": body["loop"]}),
            )
        }
        "create_controller" => {
            let path = new_asset(ed, a, ".controller")?;
            let body = json!({"parameters": [], "layers": [{"name": "Base Layer", "weight": 1.0, "blending": "override", "default_state": null, "states": [], "transitions": []}]});
            let guid = store(ed, &path, CONTROLLER, body);
            ok(
                "Controller created",
                json!({"path": path, "guid": guid, "layers": 1}),
            )
        }
        "get_clip" => {
            let (path, body) = load(ed, a, CLIP)?;
            let with_keys = a.flag("include_keys")?;
            let bindings: Vec<Value> = body["curves"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    let keys = c["keys"].as_array().cloned().unwrap_or_default();
                    let mut b = json!({"relative_path": c["relative_path"], "type": c["type"], "property": c["property"], "keys": keys.len()});
                    if with_keys {
                        b["keyframes"] = keys
                            .iter()
                            .map(|k| json!({"time": k["time"], "value": k["value"], "in_tangent": k["in_tangent"].as_f64().unwrap_or(0.0), "out_tangent": k["out_tangent"].as_f64().unwrap_or(0.0)}))
                            .collect();
                    }
                    b
                })
                .collect();
            let guid = ed.assets.get(&path).map(|x| x.guid.clone());
            let length = body["length"].as_f64().unwrap_or(0.0);
            ok(
                format!(
                    "{}: {} binding(s), {}s.",
                    asset_db::display_name(&path),
                    bindings.len(),
                    (length * 1000.0).round() / 1000.0
                ),
                json!({"path": path, "guid": guid, "frame_rate": body["frame_rate"], "loop": body["loop"], "length": length, "bindings": bindings}),
            )
        }
        "get_controller" => {
            let (path, body) = load(ed, a, CONTROLLER)?;
            let guid = ed.assets.get(&path).map(|x| x.guid.clone());
            let parameters: Vec<Value> = body["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    // A trigger has no default value to report.
                    let default = if p["type"] == "trigger" {
                        Value::Null
                    } else {
                        p["default"].clone()
                    };
                    json!({"name": p["name"], "type": p["type"], "default": default})
                })
                .collect();
            let layers: Vec<Value> = body["layers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(controller_layer)
                .collect();
            ok(
                format!(
                    "{}: {} parameter(s), {} layer(s).",
                    asset_db::display_name(&path),
                    parameters.len(),
                    layers.len()
                ),
                json!({"path": path, "guid": guid, "parameters": parameters, "layers": layers}),
            )
        }
        "set_curve" | "remove_curve" => curve(ed, a, action == Some("set_curve")),
        "add_parameter" => {
            let (path, mut body) = load(ed, a, CONTROLLER)?;
            let name = a.req_str("name")?.to_string();
            let ty = a.req_str("type")?.to_ascii_lowercase();
            let params = body["parameters"].as_array().cloned().unwrap_or_default();
            if named(&params, &name).is_some() {
                return Err(Fail::new(
                    "ANIMATION_PARAMETER_EXISTS",
                    format!("{path} already has a parameter '{name}'."),
                ));
            }
            let raw = a.raw("default");
            let default = match (ty.as_str(), raw) {
                ("float", None) => json!(0.0),
                ("float", Some(v)) => json!(
                    v.as_f64()
                        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                        .ok_or_else(|| Fail::invalid(
                            "default",
                            "a float parameter needs a number"
                        ))?
                ),
                ("int", None) => json!(0),
                ("int", Some(v)) => json!(
                    v.as_i64()
                        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                        .ok_or_else(|| Fail::invalid(
                            "default",
                            "an int parameter needs an integer"
                        ))?
                ),
                ("bool", None) | ("trigger", None) => json!(false),
                ("bool", Some(v)) | ("trigger", Some(v)) => json!(
                    v.as_bool()
                        .or_else(|| v.as_str().map(|s| s.eq_ignore_ascii_case("true")))
                        .ok_or_else(|| Fail::invalid("default", "expected a boolean"))?
                ),
                _ => {
                    return Err(Fail::invalid(
                        "type",
                        "expected float, int, bool or trigger",
                    ));
                }
            };
            let p = json!({"name": name, "type": ty, "default": default});
            let count = params.len() + 1;
            if let Some(l) = body["parameters"].as_array_mut() {
                l.push(p);
            }
            store(ed, &path, CONTROLLER, body);
            // The reply spells the type as Unity's enum does (`Float`); `get_controller` lower-cases it.
            let unity_type = format!("{}{}", ty[..1].to_ascii_uppercase(), &ty[1..]);
            ok(
                "Parameter added",
                json!({"path": path, "name": name, "type": unity_type, "parameters": count}),
            )
        }
        "add_layer" => {
            let (path, mut body) = load(ed, a, CONTROLLER)?;
            let name = a.req_str("name")?.to_string();
            let layers = body["layers"].as_array().cloned().unwrap_or_default();
            if named(&layers, &name).is_some() {
                return Err(Fail::new(
                    "ANIMATION_LAYER_EXISTS",
                    format!("{path} already has a layer '{name}'."),
                ));
            }
            let blending = a
                .str("blending")?
                .unwrap_or("override")
                .to_ascii_lowercase();
            if blending != "override" && blending != "additive" {
                return Err(Fail::invalid("blending", "expected override or additive"));
            }
            let weight = a.f64("weight")?.unwrap_or(1.0);
            if !(0.0..=1.0).contains(&weight) {
                return Err(Fail::invalid("weight", "must be between 0 and 1"));
            }
            let layer = json!({"name": name, "weight": weight, "blending": blending, "default_state": null, "states": [], "transitions": []});
            if let Some(l) = body["layers"].as_array_mut() {
                l.push(layer);
            }
            store(ed, &path, CONTROLLER, body);
            ok(
                "Layer added",
                json!({"path": path, "name": name, "index": layers.len(), "weight": weight, "blending": blending, "layers": layers.len() + 1}),
            )
        }
        "add_state" => {
            let (path, mut body) = load(ed, a, CONTROLLER)?;
            let name = a.req_str("name")?.to_string();
            let motion = match a.str("motion")? {
                None => Value::Null,
                Some(m) => {
                    let p = ed.assets.resolve(m).ok_or_else(|| {
                        Fail::new("ASSET_NOT_FOUND", format!("No motion asset at '{m}'."))
                    })?;
                    if ed.assets.get(&p).map(|x| x.type_name()).as_deref() != Some(CLIP) {
                        return Err(Fail::new(
                            "ASSET_TYPE_MISMATCH",
                            format!("'{p}' is not an AnimationClip."),
                        ));
                    }
                    json!(p)
                }
            };
            let base = &mut body["layers"][0];
            let states = base["states"].as_array().cloned().unwrap_or_default();
            if named(&states, &name).is_some() {
                return Err(Fail::new(
                    "ANIMATION_STATE_EXISTS",
                    format!("The base layer of {path} already has a state '{name}'."),
                ));
            }
            let state = json!({"name": name, "motion": motion});
            if let Some(l) = base["states"].as_array_mut() {
                l.push(state);
            }
            if a.flag("default")? || base["default_state"].is_null() {
                base["default_state"] = json!(name);
            }
            let is_default = base["default_state"] == name.as_str();
            store(ed, &path, CONTROLLER, body);
            ok(
                "State added",
                json!({"path": path, "name": name, "motion": motion, "is_default": is_default, "states": states.len() + 1}),
            )
        }
        "add_transition" => add_transition(ed, a),
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn curve(ed: &mut Editor, a: Args, set: bool) -> Handled {
    let (path, mut body) = load(ed, a, CLIP)?;
    let (ty, full_type) = binding_type(a.req_str("type")?);
    let property = a.req_str("property")?.to_string();
    let rel = a.str("relative_path")?.unwrap_or("").to_string();
    let curves = body["curves"]
        .as_array_mut()
        .ok_or_else(|| Fail::new("ASSET_TYPE_MISMATCH", "clip has no curve list"))?;
    let pos = curves.iter().position(|c| {
        c["type"] == ty.as_str()
            && c["property"] == property.as_str()
            && c["relative_path"] == rel.as_str()
    });
    let binding = json!({"relative_path": rel, "type": ty, "property": property});
    let keys_touched;
    if !set {
        let i = pos.ok_or_else(|| {
            Fail::new(
                "ANIMATION_CURVE_NOT_FOUND",
                format!("{path} has no curve for {ty}.{property} at '{rel}'."),
            )
            .with_data(binding.clone())
        })?;
        keys_touched = curves.remove(i)["keys"].as_array().map_or(0, Vec::len);
    } else {
        let mut keys: Vec<Value> = match a.raw("keys") {
            Some(Value::Array(k)) if !k.is_empty() => k.clone(),
            _ => return Err(Fail::missing("keys")),
        };
        for k in &keys {
            if k["time"].as_f64().is_none() || k["value"].as_f64().is_none() {
                return Err(Fail::invalid(
                    "keys",
                    "every key needs numeric time and value",
                ));
            }
        }
        keys.sort_by(|x, y| {
            x["time"]
                .as_f64()
                .partial_cmp(&y["time"].as_f64())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        keys_touched = keys.len();
        let mut c = binding.clone();
        c["keys"] = json!(keys);
        match pos {
            Some(i) => curves[i] = c,
            None => curves.push(c),
        }
    }
    let length = curves
        .iter()
        .flat_map(|c| c["keys"].as_array().cloned().unwrap_or_default())
        .filter_map(|k| k["time"].as_f64())
        .fold(0.0, f64::max);
    let count = curves.len();
    body["length"] = json!(length);
    store(ed, &path, CLIP, body);
    let keys_key = if set { "keys" } else { "keys_removed" };
    ok(
        if set { "Curve set" } else { "Curve removed" },
        json!({"path": path, "relative_path": rel, "type": full_type, "property": property, keys_key: keys_touched, "total_bindings": count}),
    )
}

/// A binding's component type as `(short, full)` name: `get_clip` reports the short one,
/// `set_curve`/`remove_curve` the namespace-qualified one.
fn binding_type(raw: &str) -> (String, String) {
    match component_types::builtin(raw) {
        Some(d) => (d.name.to_string(), d.full_name()),
        None => (
            raw.rsplit('.').next().unwrap_or(raw).to_string(),
            raw.to_string(),
        ),
    }
}

/// One layer as `get_controller` lists it: each state carries its own outgoing transitions
/// and whether it is the layer's default.
fn controller_layer(l: &Value) -> Value {
    let transitions = l["transitions"].as_array().cloned().unwrap_or_default();
    let states: Vec<Value> = l["states"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let out: Vec<Value> = transitions
                .iter()
                .filter(|t| t["from"] == s["name"])
                .map(|t| json!({"to": t["to"], "has_exit_time": t["has_exit_time"], "duration": t["duration"], "conditions": t["conditions"]}))
                .collect();
            json!({"name": s["name"], "motion": s["motion"], "is_default": l["default_state"] == s["name"], "transitions": out})
        })
        .collect();
    json!({"name": l["name"], "weight": l["weight"], "blending": l["blending"], "states": states})
}

fn add_transition(ed: &mut Editor, a: Args) -> Handled {
    let (path, mut body) = load(ed, a, CONTROLLER)?;
    let from = a.req_str("from")?.to_string();
    let to = a.req_str("to")?.to_string();
    let params = body["parameters"].as_array().cloned().unwrap_or_default();
    let base = &mut body["layers"][0];
    let states = base["states"].as_array().cloned().unwrap_or_default();
    let any = from.eq_ignore_ascii_case("any state") || from.eq_ignore_ascii_case("anystate");
    for (label, s) in [("from", &from), ("to", &to)] {
        if (label == "to" || !any) && named(&states, s).is_none() {
            return Err(Fail::new(
                "ANIMATION_STATE_NOT_FOUND",
                format!("{path} has no state '{s}' ({label})."),
            )
            .with_data(json!({"state": s})));
        }
    }
    let mut conditions = Vec::new();
    if let Some(Value::Array(list)) = a.raw("conditions") {
        for c in list {
            let pname = c["parameter"].as_str().unwrap_or("");
            let p = named(&params, pname).ok_or_else(|| {
                Fail::new(
                    "ANIMATION_PARAMETER_NOT_FOUND",
                    format!("{path} has no parameter '{pname}'."),
                )
                .with_data(json!({"parameter": pname}))
            })?;
            let ptype = p["type"].as_str().unwrap_or("float");
            let default_mode = match ptype {
                "float" => "Greater",
                "int" => "Equals",
                _ => "If",
            };
            let mode = c["mode"].as_str().unwrap_or(default_mode);
            let allowed: &[&str] = match ptype {
                "trigger" => &["If"],
                "bool" => &["If", "IfNot"],
                "float" => &["Greater", "Less"],
                _ => &["Greater", "Less", "Equals", "NotEqual"],
            };
            let mode = allowed
                .iter()
                .find(|m| m.eq_ignore_ascii_case(mode))
                .ok_or_else(|| {
                    Fail::invalid(
                        "conditions",
                        format!(
                            "mode '{mode}' does not apply to {ptype} parameter '{pname}' (use {})",
                            allowed.join(", ")
                        ),
                    )
                })?;
            conditions.push(json!({"parameter": pname, "mode": mode, "threshold": c["threshold"].as_f64().unwrap_or(0.0)}));
        }
    }
    let t = json!({
        "from": if any { "Any State".to_string() } else { from.clone() }, "to": to,
        "duration": a.f64("duration")?.unwrap_or(0.25), "has_exit_time": a.flag("has_exit_time")?,
        "conditions": conditions,
    });
    if let Some(l) = base["transitions"].as_array_mut() {
        l.push(t.clone());
    }
    store(ed, &path, CONTROLLER, body);
    ok(
        "Transition added",
        json!({"path": path, "from": t["from"], "to": t["to"], "has_exit_time": t["has_exit_time"], "conditions": t["conditions"]}),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_animation_clip_and_controller() {
        let mut h = Harness::new();
        h.ok(
            "manage_animation",
            json!({"action": "create_clip", "path": "Assets/Anim/Run.anim", "loop": true}),
        );
        h.ok("manage_animation", json!({"action": "set_curve", "path": "Assets/Anim/Run.anim", "type": "Transform", "property": "localPosition.y",
            "keys": [{"time": 1.0, "value": 0.0}, {"time": 0.0, "value": 1.0}]}));
        let clip = h.ok(
            "manage_animation",
            json!({"action": "get_clip", "path": "Assets/Anim/Run.anim", "include_keys": true}),
        );
        assert_eq!(clip["length"], 1.0);
        assert_eq!(clip["bindings"][0]["keyframes"][0]["time"], 0.0);
        h.ok(
            "manage_animation",
            json!({"action": "create_controller", "path": "Assets/Anim/Player.controller"}),
        );
        h.ok("manage_animation", json!({"action": "add_parameter", "path": "Assets/Anim/Player.controller", "name": "Speed", "type": "float"}));
        h.ok(
            "manage_animation",
            json!({"action": "add_state", "path": "Assets/Anim/Player.controller", "name": "Idle"}),
        );
        h.ok("manage_animation", json!({"action": "add_state", "path": "Assets/Anim/Player.controller", "name": "Run", "motion": "Assets/Anim/Run.anim"}));
        h.ok("manage_animation", json!({"action": "add_transition", "path": "Assets/Anim/Player.controller", "from": "Idle", "to": "Run",
            "conditions": [{"parameter": "Speed", "mode": "greater", "threshold": 0.1}]}));
        assert_eq!(h.err("manage_animation", json!({"action": "add_transition", "path": "Assets/Anim/Player.controller", "from": "Idle", "to": "Fly"})), "ANIMATION_STATE_NOT_FOUND");
        assert_eq!(h.err("manage_animation", json!({"action": "add_transition", "path": "Assets/Anim/Player.controller", "from": "Idle", "to": "Run",
            "conditions": [{"parameter": "Speed", "mode": "If"}]})), "INVALID_PARAM");
        let c = h.ok(
            "manage_animation",
            json!({"action": "get_controller", "path": "Assets/Anim/Player.controller"}),
        );
        assert_eq!(c["layers"][0]["states"][0]["is_default"], true);
        assert_eq!(
            c["layers"][0]["states"][0]["transitions"][0]["conditions"][0]["mode"],
            "Greater"
        );
        assert_eq!(
            h.err(
                "manage_animation",
                json!({"action": "add_layer", "path": "Assets/Anim/Run.anim", "name": "X"})
            ),
            "ASSET_TYPE_MISMATCH"
        );
        assert_eq!(h.err("manage_animation", json!({"action": "remove_curve", "path": "Assets/Anim/Run.anim", "type": "Transform", "property": "nope"})), "ANIMATION_CURVE_NOT_FOUND");
    }
}
