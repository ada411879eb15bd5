//! `manage_components`: add, list, read, write and remove components on scene objects.
//!
//! Property values are type-checked against what is stored (a number stays a number, a vector
//! stays a vector), and references must name something that exists, so `get` after `set` always
//! shows a value Unity itself could hold. Transform values are views of the object's TRS.

use super::args::{self, Args, Fail, round, v3json};
use super::component_types::{self, builtin};
use super::gameobjects;
use super::math::Quat;
use super::world::World;
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Map, Value, json};

/// A component type the project can add right now.
pub struct TypeInfo {
    pub name: String,
    pub full_name: String,
    pub behaviour: bool,
    pub single: bool,
    pub props: Map<String, Value>,
}

pub fn resolve_type(ed: &Editor, name: &str) -> Result<TypeInfo, Fail> {
    if let Some(d) = builtin(name) {
        if let Some(pkg) = d.package
            && !ed.packages.is_installed(pkg)
        {
            return Err(Fail::new(
                "COMPONENT_TYPE_NOT_FOUND",
                format!(
                    "{} comes from package {pkg}, which is not installed.",
                    d.name
                ),
            )
            .with_data(json!({"type": name, "package": pkg})));
        }
        return Ok(TypeInfo {
            name: d.name.into(),
            full_name: d.full_name(),
            behaviour: d.behaviour,
            single: d.single,
            props: d.defaults(),
        });
    }
    if let Some((path, s)) = ed.assets.script_class(name) {
        if s.base != "MonoBehaviour" {
            return Err(Fail::new(
                "COMPONENT_TYPE_INVALID",
                format!(
                    "{} ({path}) derives from {}, not MonoBehaviour, so it cannot be added as a component.",
                    s.class, s.base
                ),
            ));
        }
        return Ok(TypeInfo {
            name: s.class.clone(),
            full_name: if s.namespace.is_empty() {
                s.class.clone()
            } else {
                format!("{}.{}", s.namespace, s.class)
            },
            behaviour: true,
            single: false,
            props: s.fields.clone(),
        });
    }
    Err(Fail::new(
        "COMPONENT_TYPE_NOT_FOUND",
        format!("No component type named '{name}'."),
    )
    .with_data(json!({"type": name})))
}

/// Serialized view of a component (Transform values are derived from the object's TRS).
pub fn props_of(w: &World, owner: i64, idx: usize) -> Map<String, Value> {
    let Some(o) = w.get(owner) else {
        return Map::new();
    };
    let c = &o.components[idx];
    let mut props = Map::new();
    if c.type_name == "Transform" || c.type_name == "RectTransform" {
        let q = Quat::from_euler(o.rotation);
        props.insert("m_LocalPosition".into(), v3json(o.position));
        props.insert(
            "m_LocalRotation".into(),
            json!({"x": round(q.x), "y": round(q.y), "z": round(q.z), "w": round(q.w)}),
        );
        props.insert("m_LocalEulerAnglesHint".into(), v3json(o.rotation));
        props.insert("m_LocalScale".into(), v3json(o.scale));
    }
    for (k, v) in &c.props {
        props.insert(k.clone(), v.clone());
    }
    props
}

/// The Connector's component summary: `{component_id, type (full name), type_short,
/// enabled}`, `enabled` null for a component with no enabled flag (e.g. Transform).
pub fn component_summary(ed: &Editor, owner: i64, idx: usize) -> Value {
    let Some(o) = ed.world.get(owner) else {
        return Value::Null;
    };
    let c = &o.components[idx];
    json!({
        "component_id": c.id, "type": full_type_name(ed, &c.type_name),
        "type_short": c.type_name, "enabled": c.enabled,
    })
}

/// The summary with the component's visible serialized properties.
pub fn component_json(ed: &Editor, owner: i64, idx: usize) -> Value {
    let mut v = component_summary(ed, owner, idx);
    if !v.is_null() {
        v["properties"] = Value::Object(props_of(&ed.world, owner, idx));
    }
    v
}

fn full_type_name(ed: &Editor, short: &str) -> String {
    match builtin(short) {
        Some(d) => d.full_name(),
        None => ed
            .assets
            .script_class(short)
            .map(|(_, s)| {
                if s.namespace.is_empty() {
                    s.class.clone()
                } else {
                    format!("{}.{}", s.namespace, s.class)
                }
            })
            .unwrap_or_else(|| short.to_string()),
    }
}

/// The `SerializedPropertyType` name of a value as the simulator stores it.
fn property_type(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "Integer",
        Value::Number(_) => "Float",
        Value::String(_) | Value::Null => "ObjectReference",
        Value::Array(_) => "Generic",
        Value::Object(o) if o.contains_key("r") => "Color",
        Value::Object(o) if o.contains_key("w") => "Quaternion",
        Value::Object(o) if o.contains_key("z") => "Vector3",
        Value::Object(o) if o.contains_key("y") => "Vector2",
        Value::Object(_) => "Generic",
    }
}

/// Locate a component by `component_id`, or by GameObject target + `type` + `index`.
fn locate(ed: &Editor, a: Args) -> Result<(i64, usize), Fail> {
    if let Some(cid) = a.i64("component_id")? {
        return ed
            .world
            .find_component(cid)
            .filter(|(o, _)| ed.world.is_loaded_object(*o))
            .ok_or_else(|| {
                Fail::new(
                    "COMPONENT_NOT_FOUND",
                    format!("No component with id {cid}."),
                )
                .with_data(json!({"component_id": cid}))
            });
    }
    let owner = gameobjects::target(ed, a)?;
    let ty = a.req_str("type")?;
    let index = a.i64("index")?.unwrap_or(0);
    let short = ty.rsplit('.').next().unwrap_or(ty);
    let o = ed
        .world
        .get(owner)
        .ok_or_else(|| Fail::new("TARGET_NOT_FOUND", "object vanished"))?;
    let positions: Vec<usize> = o
        .components
        .iter()
        .enumerate()
        .filter(|(_, c)| c.type_name.eq_ignore_ascii_case(short))
        .map(|(i, _)| i)
        .collect();
    if index < 0 || index as usize >= positions.len() {
        return Err(Fail::new(
            "COMPONENT_NOT_FOUND",
            format!(
                "{} has {} {short} component(s); index {index} does not exist.",
                ed.world.path_of(owner),
                positions.len()
            ),
        )
        .with_data(json!({"type": ty, "index": index, "available": o.component_types()})));
    }
    Ok((owner, positions[index as usize]))
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "add" => add(ed, a),
        "list" => {
            let owner = gameobjects::target(ed, a)?;
            let o = ed
                .world
                .get(owner)
                .ok_or_else(|| Fail::new("TARGET_NOT_FOUND", "object vanished"))?;
            let comps: Vec<Value> = (0..o.components.len())
                .map(|i| component_summary(ed, owner, i))
                .collect();
            ok(
                format!(
                    "{} has {} component(s).",
                    ed.world.path_of(owner),
                    comps.len()
                ),
                json!({"instance_id": owner, "components": comps}),
            )
        }
        "get" => {
            let (owner, idx) = locate(ed, a)?;
            let component = component_json(ed, owner, idx);
            let message = format!(
                "{} on {}.",
                component["type_short"].as_str().unwrap_or(""),
                ed.world.path_of(owner)
            );
            // Property values are serialized values: mostly JSON scalars, where the published
            // schema declares open objects.
            let data = match a.str("property")? {
                None => json!({"instance_id": owner, "component": component}),
                Some(p) => {
                    let props = props_of(&ed.world, owner, idx);
                    let value =
                        read_path(&props, p).ok_or_else(|| no_property(&component, p, &props))?;
                    json!({"instance_id": owner, "component_id": component["component_id"],
                           "type": component["type"], "property": p,
                           "property_type": property_type(&value), "value": value})
                }
            };
            ok(message, data)
        }
        "set" => set(ed, a),
        "remove" => {
            let (owner, idx) = locate(ed, a)?;
            let Some(o) = ed.world.get_mut(owner) else {
                return Err(Fail::new("TARGET_NOT_FOUND", "object vanished"));
            };
            let ty = o.components[idx].type_name.clone();
            let snapshot = component_summary(ed, owner, idx);
            let Some(o) = ed.world.get_mut(owner) else {
                return Err(Fail::new("TARGET_NOT_FOUND", "object vanished"));
            };
            if ty == "Transform" || ty == "RectTransform" {
                return Err(Fail::new(
                    "COMPONENT_REMOVE_FORBIDDEN",
                    format!("{ty} cannot be removed; destroy the GameObject instead."),
                ));
            }
            o.components.remove(idx);
            ed.world.touch(owner);
            ok(
                format!("Removed {ty} from {}.", ed.world.path_of(owner)),
                json!({"instance_id": owner, "removed": snapshot}),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn add(ed: &mut Editor, a: Args) -> Handled {
    let owner = gameobjects::target(ed, a)?;
    let info = resolve_type(ed, a.req_str("type")?)?;
    let o = ed
        .world
        .get_mut(owner)
        .ok_or_else(|| Fail::new("TARGET_NOT_FOUND", "object vanished"))?;
    if info.name == "RectTransform" {
        // Unity converts the Transform in place.
        if let Some(t) = o.components.iter_mut().find(|c| c.type_name == "Transform") {
            t.type_name = "RectTransform".into();
            t.props = info.props;
            let idx = o
                .components
                .iter()
                .position(|c| c.type_name == "RectTransform")
                .unwrap_or(0);
            ed.world.touch(owner);
            return ok(
                "Converted Transform to RectTransform.",
                json!({"instance_id": owner, "component": component_summary(ed, owner, idx)}),
            );
        }
    }
    if info.name == "Transform" || (info.single && o.has_component(&info.name)) {
        return Err(Fail::new(
            "COMPONENT_ALREADY_EXISTS",
            format!(
                "{} already has a {} and cannot have two.",
                o.name, info.name
            ),
        )
        .with_data(json!({"type": info.name})));
    }
    ed.world.add_component(
        owner,
        &info.name,
        info.behaviour.then_some(true),
        info.props,
    );
    let idx = ed
        .world
        .get(owner)
        .map(|o| o.components.len() - 1)
        .unwrap_or(0);
    ok(
        format!("Added {} to {}.", info.full_name, ed.world.path_of(owner)),
        json!({"instance_id": owner, "component": component_summary(ed, owner, idx)}),
    )
}

fn no_property(component: &Value, p: &str, props: &Map<String, Value>) -> Fail {
    Fail::new(
        "COMPONENT_PROPERTY_NOT_FOUND",
        format!(
            "{} has no serialized property '{p}'.",
            component["type"].as_str().unwrap_or("component")
        ),
    )
    .with_data(json!({"property": p, "available": props.keys().collect::<Vec<_>>()}))
}

/// Split a SerializedProperty path: `a.b`, `m_Materials.Array.data[0]`.
fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let parts: Vec<&str> = path.split('.').collect();
    let mut i = 0;
    while i < parts.len() {
        if parts[i] == "Array" {
            i += 1;
            continue;
        }
        if let Some(n) = parts[i]
            .strip_prefix("data[")
            .and_then(|r| r.strip_suffix(']'))
        {
            out.push(format!("[{n}]"));
        } else {
            out.push(parts[i].to_string());
        }
        i += 1;
    }
    out
}

fn read_path(props: &Map<String, Value>, path: &str) -> Option<Value> {
    let segs = segments(path);
    let first = component_types::property_key(props.keys(), segs.first()?)?;
    let mut cur = props.get(&first)?;
    for s in &segs[1..] {
        cur = match s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            Some(n) => cur.get(n.parse::<usize>().ok()?)?,
            None => cur.get(s.as_str())?,
        };
    }
    Some(cur.clone())
}

fn set(ed: &mut Editor, a: Args) -> Handled {
    let (owner, idx) = locate(ed, a)?;
    let prop = a.req_str("property")?;
    if !a.has_key("value") {
        return Err(Fail::missing("value"));
    }
    let value = a.0.get("value").cloned().unwrap_or(Value::Null);
    let component = component_json(ed, owner, idx);
    let ty = component["type_short"].as_str().unwrap_or("").to_string();
    let props = props_of(&ed.world, owner, idx);

    // The enabled checkbox of Behaviours.
    let is_enabled = prop.eq_ignore_ascii_case("enabled") || prop.eq_ignore_ascii_case("m_Enabled");
    if is_enabled && !props.contains_key("m_Enabled") {
        let Some(o) = ed.world.get_mut(owner) else {
            return Err(Fail::new("TARGET_NOT_FOUND", "object vanished"));
        };
        let c = &mut o.components[idx];
        if c.enabled.is_none() {
            return Err(Fail::new(
                "COMPONENT_PROPERTY_NOT_FOUND",
                format!("{ty} has no enabled flag."),
            ));
        }
        let b = Args(&Map::from_iter([("value".to_string(), value)]))
            .bool("value")?
            .ok_or_else(|| Fail::invalid("value", "expected a boolean"))?;
        c.enabled = Some(b);
        ed.world.touch(owner);
        return ok(
            format!("{ty}.enabled = {b}."),
            json!({"instance_id": owner, "component_id": component["component_id"],
                   "type": component["type"], "property": prop, "property_type": "Boolean",
                   "value": b}),
        );
    }

    let segs = segments(prop);
    let Some(key) = segs
        .first()
        .and_then(|s| component_types::property_key(props.keys(), s))
    else {
        return Err(no_property(&component, prop, &props));
    };
    let previous = read_path(&props, prop).ok_or_else(|| no_property(&component, prop, &props))?;
    let converted = convert(ed, prop, &previous, &value)?;

    if (ty == "Transform" || ty == "RectTransform") && segs.len() == 1 && key.starts_with("m_Local")
    {
        apply_transform(&mut ed.world, owner, &key, &converted)?;
    } else {
        let Some(o) = ed.world.get_mut(owner) else {
            return Err(Fail::new("TARGET_NOT_FOUND", "object vanished"));
        };
        let c = &mut o.components[idx];
        let Some(mut slot) = c.props.get_mut(&key) else {
            return Err(no_property(&component, prop, &props));
        };
        for s in &segs[1..] {
            let next = match s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                Some(n) => n.parse::<usize>().ok().and_then(|i| slot.get_mut(i)),
                None => slot.get_mut(s.as_str()),
            };
            slot = next.ok_or_else(|| {
                Fail::new(
                    "COMPONENT_PROPERTY_NOT_FOUND",
                    format!("no element '{s}' in {prop}"),
                )
            })?;
        }
        *slot = converted.clone();
    }
    ed.world.touch(owner);
    let now = read_path(&props_of(&ed.world, owner, idx), prop).unwrap_or(converted);
    let _ = previous;
    ok(
        format!("Set {ty}.{prop} on {}.", ed.world.path_of(owner)),
        json!({"instance_id": owner, "component_id": component["component_id"],
               "type": component["type"], "property": prop,
               "property_type": property_type(&now), "value": now}),
    )
}

fn apply_transform(w: &mut World, owner: i64, key: &str, v: &Value) -> Result<(), Fail> {
    let Some(o) = w.get_mut(owner) else {
        return Err(Fail::new("TARGET_NOT_FOUND", "object vanished"));
    };
    match key {
        "m_LocalPosition" => o.position = args::vec3("value", v, o.position)?,
        "m_LocalScale" => o.scale = args::vec3("value", v, o.scale)?,
        "m_LocalEulerAnglesHint" => o.rotation = args::vec3("value", v, o.rotation)?,
        "m_LocalRotation" => {
            let f = |k: &str| v.get(k).and_then(Value::as_f64);
            let (Some(x), Some(y), Some(z), Some(qw)) = (f("x"), f("y"), f("z"), f("w")) else {
                return Err(Fail::invalid(
                    "value",
                    "m_LocalRotation expects a quaternion {x,y,z,w}",
                ));
            };
            o.rotation = Quat { x, y, z, w: qw }.to_euler();
        }
        _ => {}
    }
    Ok(())
}

/// Check `value` against the stored `previous` shape and return what will be stored.
fn convert(ed: &Editor, prop: &str, previous: &Value, value: &Value) -> Result<Value, Fail> {
    let bad = |what: &str| Fail::invalid("value", format!("'{prop}' holds {what}"));
    match previous {
        Value::Number(p) => {
            let n = match value {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
                _ => None,
            }
            .ok_or_else(|| bad("a number"))?;
            if p.is_i64() || p.is_u64() {
                if n.fract() != 0.0 {
                    return Err(bad("an integer"));
                }
                Ok(json!(n as i64))
            } else {
                Ok(json!(n))
            }
        }
        Value::Bool(_) => Args(&Map::from_iter([("value".to_string(), value.clone())]))
            .bool("value")
            .ok()
            .flatten()
            .map(Value::Bool)
            .ok_or_else(|| bad("a boolean")),
        // A string that currently holds a reference stays a reference.
        Value::String(p) if p.starts_with("Assets/") || p == "Default-Material" => match value {
            Value::String(s) => check_reference(ed, s),
            _ => Err(bad("an object reference")),
        },
        Value::String(_) => match value {
            Value::String(_) => Ok(value.clone()),
            Value::Number(n) => Ok(json!(n.to_string())),
            _ => Err(bad("a string")),
        },
        Value::Object(m) if m.contains_key("r") && m.contains_key("a") => {
            let c = |k: &str| value.get(k).and_then(Value::as_f64);
            if let (Some(r), Some(g), Some(b)) = (c("r"), c("g"), c("b")) {
                return Ok(json!({"r": r, "g": g, "b": b, "a": c("a").unwrap_or(1.0)}));
            }
            if let Some(items) = value.as_array() {
                let n: Option<Vec<f64>> = items.iter().map(Value::as_f64).collect();
                if let Some(n) = n.filter(|n| n.len() == 3 || n.len() == 4) {
                    return Ok(
                        json!({"r": n[0], "g": n[1], "b": n[2], "a": n.get(3).copied().unwrap_or(1.0)}),
                    );
                }
            }
            Err(bad("a color {r,g,b,a}"))
        }
        Value::Object(m) if m.contains_key("x") && m.contains_key("w") => {
            let c = |k: &str| value.get(k).and_then(Value::as_f64);
            match (c("x"), c("y"), c("z"), c("w")) {
                (Some(x), Some(y), Some(z), Some(w)) => Ok(json!({"x": x, "y": y, "z": z, "w": w})),
                _ => Err(bad("a quaternion {x,y,z,w}")),
            }
        }
        Value::Object(m) if m.contains_key("x") && m.contains_key("z") => {
            let cur = [
                m["x"].as_f64().unwrap_or(0.0),
                m["y"].as_f64().unwrap_or(0.0),
                m["z"].as_f64().unwrap_or(0.0),
            ];
            Ok(v3json(args::vec3("value", value, cur)?))
        }
        Value::Object(m) if m.contains_key("x") && m.contains_key("y") => {
            Ok(args::v2json(args::vec2("value", value)?))
        }
        Value::Object(_) => match value {
            Value::Object(_) => Ok(value.clone()),
            _ => Err(bad("an object")),
        },
        Value::Array(_) => match value {
            Value::Array(items) => {
                for item in items {
                    if let Some(s) = item.as_str() {
                        check_reference(ed, s)?;
                    }
                }
                Ok(value.clone())
            }
            _ => Err(bad("an array")),
        },
        // An object reference: null clears it; otherwise it must name an asset or scene object.
        Value::Null => match value {
            Value::Null => Ok(Value::Null),
            Value::String(s) if s.trim().is_empty() => Ok(Value::Null),
            Value::String(s) => check_reference(ed, s),
            Value::Number(n) => {
                let id = n.as_i64().ok_or_else(|| bad("an object reference"))?;
                ed.world
                    .get(id)
                    .map(|_| json!(ed.world.path_of(id)))
                    .ok_or_else(|| {
                        Fail::new(
                            "OBJECT_NOT_FOUND",
                            format!("No object with instance id {id}."),
                        )
                    })
            }
            _ => Err(bad("an object reference (asset path, scene path, or null)")),
        },
    }
}

fn check_reference(ed: &Editor, s: &str) -> Result<Value, Fail> {
    if let Some(p) = ed.assets.resolve(s) {
        return Ok(json!(p));
    }
    if matches!(
        s,
        "Default-Material" | "Cube" | "Sphere" | "Capsule" | "Cylinder" | "Plane" | "Quad"
    ) {
        return Ok(json!(s));
    }
    if let Some(id) = ed.world.resolve(s) {
        return Ok(json!(ed.world.path_of(id)));
    }
    Err(Fail::new(
        "OBJECT_NOT_FOUND",
        format!("'{s}' is neither an asset nor a scene object."),
    )
    .with_data(json!({"reference": s})))
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_components_add_get_set_list_remove() {
        let mut h = Harness::new();
        h.ok(
            "manage_gameobject",
            json!({"action": "create", "name": "Box"}),
        );
        let added = h.ok(
            "manage_components",
            json!({"action": "add", "path": "Box", "type": "Rigidbody"}),
        );
        let cid = added["component"]["component_id"].as_i64().unwrap();
        assert_eq!(added["component"]["type"], "UnityEngine.Rigidbody");
        assert_eq!(
            h.err(
                "manage_components",
                json!({"action": "add", "path": "Box", "type": "Rigidbody"})
            ),
            "COMPONENT_ALREADY_EXISTS"
        );
        let list = h.ok(
            "manage_components",
            json!({"action": "list", "path": "Box"}),
        );
        let types: Vec<_> = list["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["type_short"].clone())
            .collect();
        assert_eq!(types, vec![json!("Transform"), json!("Rigidbody")]);
        assert_eq!(list["components"][0]["enabled"], json!(null));
        h.ok(
            "manage_components",
            json!({"action": "set", "component_id": cid, "property": "mass", "value": 2.5}),
        );
        let got = h.ok(
            "manage_components",
            json!({"action": "get", "path": "Box", "type": "Rigidbody", "property": "m_Mass"}),
        );
        assert_eq!(got["value"], 2.5);
        assert_eq!(
            h.err(
                "manage_components",
                json!({"action": "set", "component_id": cid, "property": "mass", "value": "heavy"})
            ),
            "INVALID_PARAM"
        );
        assert_eq!(
            h.err(
                "manage_components",
                json!({"action": "set", "component_id": cid, "property": "nope", "value": 1})
            ),
            "COMPONENT_PROPERTY_NOT_FOUND"
        );
        h.ok("manage_components", json!({"action": "set", "path": "Box", "type": "Transform", "property": "m_LocalPosition", "value": [1, 2, 3]}));
        assert_eq!(
            h.ok(
                "manage_gameobject",
                json!({"action": "get_transform", "path": "Box"})
            )["transform"]["position"]["z"],
            3.0
        );
        h.ok(
            "manage_components",
            json!({"action": "add", "path": "Box", "type": "PlayerController"}),
        );
        let pc = h.ok(
            "manage_components",
            json!({"action": "get", "path": "Box", "type": "PlayerController"}),
        );
        assert_eq!(pc["component"]["properties"]["speed"], 5.0);
        h.ok("manage_components", json!({"action": "set", "path": "Box", "type": "PlayerController", "property": "enabled", "value": false}));
        assert_eq!(
            h.ok(
                "manage_components",
                json!({"action": "get", "path": "Box", "type": "PlayerController"})
            )["component"]["enabled"],
            false
        );
        assert_eq!(
            h.err(
                "manage_components",
                json!({"action": "add", "path": "Box", "type": "GameSettings"})
            ),
            "COMPONENT_TYPE_INVALID"
        );
        assert_eq!(
            h.err(
                "manage_components",
                json!({"action": "add", "path": "Box", "type": "NavMeshSurface"})
            ),
            "COMPONENT_TYPE_NOT_FOUND"
        );
        assert_eq!(
            h.err(
                "manage_components",
                json!({"action": "remove", "path": "Box", "type": "Transform"})
            ),
            "COMPONENT_REMOVE_FORBIDDEN"
        );
        h.ok(
            "manage_components",
            json!({"action": "remove", "component_id": cid}),
        );
        assert_eq!(
            h.err(
                "manage_components",
                json!({"action": "get", "component_id": cid})
            ),
            "COMPONENT_NOT_FOUND"
        );
    }

    #[test]
    fn editor_component_references_must_exist() {
        let mut h = Harness::new();
        h.ok(
            "manage_components",
            json!({"action": "set", "path": "Ground", "type": "MeshRenderer",
            "property": "m_Materials.Array.data[0]", "value": "Assets/Materials/Player.mat"}),
        );
        let got = h.ok("manage_components", json!({"action": "get", "path": "Ground", "type": "MeshRenderer", "property": "m_Materials"}));
        assert_eq!(got["value"], json!(["Assets/Materials/Player.mat"]));
        assert_eq!(h.err("manage_components", json!({"action": "set", "path": "Player", "type": "Rigidbody", "property": "m_Mass", "value": null})), "INVALID_PARAM");
        h.ok(
            "manage_components",
            json!({"action": "add", "path": "Player", "type": "Animator"}),
        );
        assert_eq!(h.err("manage_components", json!({"action": "set", "path": "Player", "type": "Animator", "property": "m_Controller", "value": "Assets/None.controller"})), "OBJECT_NOT_FOUND");
    }
}
