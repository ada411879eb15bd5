//! `manage_material`: material assets whose property set comes from their shader.

use super::args::{Args, Fail};
use super::asset_db::{self, AssetKind};
use super::shaders::{self, ShaderDef};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Map, Value, json};

pub fn default_props(def: &ShaderDef) -> Map<String, Value> {
    def.properties
        .as_array()
        .map(|props| {
            props
                .iter()
                .filter_map(|p| Some((p["name"].as_str()?.to_string(), p["default"].clone())))
                .collect()
        })
        .unwrap_or_default()
}

pub fn default_material_props(shader: &str, ed: &Editor) -> Option<Map<String, Value>> {
    shaders::find(ed, shader).map(|d| default_props(&d))
}

fn prop_type(def: Option<&ShaderDef>, name: &str) -> Option<String> {
    def?.properties
        .as_array()?
        .iter()
        .find(|p| p["name"] == name)
        .and_then(|p| p["type"].as_str().map(str::to_string))
}

/// Resolve a material path or handle.
fn material_path(ed: &Editor, a: Args) -> Result<String, Fail> {
    let raw = a.req_str("path")?;
    let path = ed.assets.resolve(raw).ok_or_else(|| {
        Fail::new("ASSET_NOT_FOUND", format!("No asset at '{raw}'."))
            .with_data(json!({"path": raw}))
    })?;
    match ed.assets.get(&path).map(|a| &a.kind) {
        Some(AssetKind::Material { .. }) => Ok(path),
        _ => Err(Fail::new(
            "ASSET_TYPE_MISMATCH",
            format!("'{path}' is not a Material."),
        )
        .with_data(json!({"path": path, "expected": "Material"}))),
    }
}

fn material_json(ed: &Editor, path: &str, only: Option<&str>, limit: usize) -> Result<Value, Fail> {
    let Some(asset) = ed.assets.get(path) else {
        return Err(Fail::new(
            "ASSET_NOT_FOUND",
            format!("No asset at '{path}'."),
        ));
    };
    let AssetKind::Material { shader, props } = &asset.kind else {
        return Err(Fail::new(
            "ASSET_TYPE_MISMATCH",
            format!("'{path}' is not a Material."),
        ));
    };
    let def = shaders::find(ed, shader);
    let ty = |name: &str| prop_type(def.as_ref(), name).unwrap_or_else(|| "Float".into());
    if let Some(want) = only {
        let Some((name, value)) = props.iter().find(|(k, _)| k.eq_ignore_ascii_case(want)) else {
            return Err(missing_property(path, shader, want, props));
        };
        let t = ty(name);
        return Ok(json!({"path": path, "shader": shader, "name": name,
                         "value": mat_value(ed, &t, value), "type": t}));
    }
    let list: Vec<Value> = props
        .iter()
        .take(limit)
        .map(|(k, v)| {
            let t = ty(k);
            json!({"name": k, "value": mat_value(ed, &t, v), "type": t})
        })
        .collect();
    Ok(json!({
        "path": path, "shader": shader, "property_count": props.len(),
        "truncated": props.len() > limit, "properties": list,
    }))
}

/// A property value as the Connector reads it back: numbers for Float/Range/Int (the published
/// schema says object), `{r,g,b,a}`, `{x,y,z,w}`, a texture as `{instance_id, name, type}` or
/// null.
fn mat_value(ed: &Editor, ty: &str, v: &Value) -> Value {
    match (ty, v) {
        ("Texture", Value::String(p)) => match ed.assets.get(p) {
            Some(a) => json!({
                "instance_id": i64::from_str_radix(&a.guid[..7.min(a.guid.len())], 16).unwrap_or(1) + 1,
                "name": asset_db::display_name(p), "type": a.type_name(),
            }),
            None => Value::Null,
        },
        ("Texture", _) => Value::Null,
        _ => v.clone(),
    }
}

fn material_summary(ed: &Editor, path: &str) -> Value {
    match ed.assets.get(path).map(|a| &a.kind) {
        Some(AssetKind::Material { shader, props }) => {
            json!({"path": path, "shader": shader, "property_count": props.len()})
        }
        _ => Value::Null,
    }
}

fn missing_property(path: &str, shader: &str, want: &str, props: &Map<String, Value>) -> Fail {
    Fail::new(
        "MATERIAL_PROPERTY_NOT_FOUND",
        format!("Material '{path}' (shader {shader}) has no property '{want}'."),
    )
    .with_data(json!({"property": want, "available": props.keys().collect::<Vec<_>>()}))
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "create" => {
            let path = asset_db::writable_path("path", a.req_str("path")?)?;
            asset_db::require_ext("path", &path, ".mat")?;
            if ed.assets.contains(&path) {
                return Err(
                    Fail::new("ASSET_ALREADY_EXISTS", format!("'{path}' already exists."))
                        .with_data(json!({"path": path})),
                );
            }
            let shader_name = a.req_str("shader")?;
            let def = shaders::find(ed, shader_name).ok_or_else(|| {
                Fail::new(
                    "SHADER_NOT_FOUND",
                    format!("Shader '{shader_name}' was not found."),
                )
            })?;
            let props = default_props(&def);
            ed.assets.put(
                &path,
                AssetKind::Material {
                    shader: def.name.clone(),
                    props,
                },
            );
            ok(
                format!("Created material at {path}"),
                material_summary(ed, &path),
            )
        }
        "get" => {
            let path = material_path(ed, a)?;
            let limit = a.limit("limit", 60, 1, 10_000)?;
            let data = material_json(ed, &path, a.str("property")?, limit)?;
            ok(format!("Material {path}."), data)
        }
        "set" => {
            let path = material_path(ed, a)?;
            let want = a.req_str("property")?;
            let value = a.raw("value").cloned().unwrap_or(Value::Null);
            let shader = match ed.assets.get(&path).map(|x| &x.kind) {
                Some(AssetKind::Material { shader, .. }) => shader.clone(),
                _ => unreachable_material(&path)?,
            };
            let def = shaders::find(ed, &shader);
            let (key, ty, converted) = {
                let Some(AssetKind::Material { props, .. }) = ed.assets.get(&path).map(|x| &x.kind)
                else {
                    return unreachable_material(&path);
                };
                let Some(key) = props.keys().find(|k| k.eq_ignore_ascii_case(want)).cloned() else {
                    return Err(missing_property(&path, &shader, want, props));
                };
                let ty = prop_type(def.as_ref(), &key).unwrap_or_else(|| "Float".into());
                let converted = convert(ed, &ty, &value)?;
                (key, ty, converted)
            };
            let Some(AssetKind::Material { props, .. }) =
                ed.assets.get_mut(&path).map(|x| &mut x.kind)
            else {
                return unreachable_material(&path);
            };
            props.insert(key.clone(), converted.clone());
            let value = mat_value(ed, &ty, &converted);
            ok(
                format!("Set {key} on {path}."),
                json!({"path": path, "name": key, "type": ty, "value": value}),
            )
        }
        "set_shader" => {
            let path = material_path(ed, a)?;
            let shader_name = a.req_str("shader")?;
            let def = shaders::find(ed, shader_name).ok_or_else(|| {
                Fail::new(
                    "SHADER_NOT_FOUND",
                    format!("Shader '{shader_name}' was not found."),
                )
            })?;
            let Some(AssetKind::Material { shader, props }) =
                ed.assets.get_mut(&path).map(|x| &mut x.kind)
            else {
                return unreachable_material(&path);
            };
            let previous = std::mem::replace(shader, def.name.clone());
            let mut fresh = default_props(&def);
            let mut kept = Vec::new();
            for (k, v) in fresh.iter_mut() {
                if let Some(old) = props.get(k)
                    && (std::mem::discriminant(old) == std::mem::discriminant(v)
                        || v.is_null()
                        || old.is_null())
                {
                    *v = old.clone();
                    kept.push(k.clone());
                }
            }
            *props = fresh;
            let _ = kept;
            ok(
                format!("Material {path} now uses {} (was {previous}).", def.name),
                material_summary(ed, &path),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn unreachable_material<T>(path: &str) -> Result<T, Fail> {
    Err(Fail::new(
        "ASSET_TYPE_MISMATCH",
        format!("'{path}' is not a Material."),
    ))
}

fn numbers(v: &Value) -> Option<Vec<f64>> {
    match v {
        Value::Array(items) => items.iter().map(Value::as_f64).collect(),
        Value::String(s) => s.split(',').map(|p| p.trim().parse::<f64>().ok()).collect(),
        _ => None,
    }
}

/// Convert a caller's value to the stored form for a shader property type.
fn convert(ed: &Editor, ty: &str, v: &Value) -> Result<Value, Fail> {
    let bad = |what: &str| Fail::invalid("value", format!("a {ty} property expects {what}"));
    match ty {
        "Color" => {
            if let Some(hex) = v.as_str().and_then(|s| s.trim().strip_prefix('#')) {
                let byte =
                    |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("zz"), 16).ok();
                if (hex.len() == 6 || hex.len() == 8)
                    && let (Some(r), Some(g), Some(b)) = (byte(0), byte(2), byte(4))
                {
                    let a = if hex.len() == 8 {
                        byte(6).ok_or_else(|| bad("#RRGGBB[AA]"))?
                    } else {
                        255
                    };
                    let c = |x: u8| (x as f64 / 255.0 * 1000.0).round() / 1000.0;
                    return Ok(json!({"r": c(r), "g": c(g), "b": c(b), "a": c(a)}));
                }
                return Err(bad("#RRGGBB[AA]"));
            }
            if let Value::Object(m) = v {
                let ch = |k: &str, d: f64| m.get(k).map_or(Some(d), Value::as_f64);
                if let (Some(r), Some(g), Some(b), Some(a)) =
                    (ch("r", 0.0), ch("g", 0.0), ch("b", 0.0), ch("a", 1.0))
                {
                    return Ok(json!({"r": r, "g": g, "b": b, "a": a}));
                }
            }
            match numbers(v) {
                Some(n) if n.len() == 3 || n.len() == 4 => Ok(
                    json!({"r": n[0], "g": n[1], "b": n[2], "a": n.get(3).copied().unwrap_or(1.0)}),
                ),
                _ => Err(bad("\"#RRGGBB[AA]\", [r,g,b(,a)] or {r,g,b,a}")),
            }
        }
        "Float" | "Range" => match v {
            Value::Number(n) => Ok(json!(n.as_f64().unwrap_or(0.0))),
            Value::String(s) => s
                .trim()
                .parse::<f64>()
                .map(|f| json!(f))
                .map_err(|_| bad("a number")),
            _ => Err(bad("a number")),
        },
        "Int" => match v {
            Value::Number(n) if n.as_i64().is_some() => Ok(v.clone()),
            Value::String(s) => s
                .trim()
                .parse::<i64>()
                .map(|i| json!(i))
                .map_err(|_| bad("an integer")),
            _ => Err(bad("an integer")),
        },
        "Vector" => {
            if let Value::Object(m) = v {
                let c = |k: &str| m.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                return Ok(json!({"x": c("x"), "y": c("y"), "z": c("z"), "w": c("w")}));
            }
            match numbers(v) {
                Some(n) if (2..=4).contains(&n.len()) => Ok(json!({
                    "x": n[0], "y": n[1], "z": n.get(2).copied().unwrap_or(0.0), "w": n.get(3).copied().unwrap_or(0.0)
                })),
                _ => Err(bad("[x,y,z,w] or {x,y,z,w}")),
            }
        }
        "Texture" => match v {
            Value::Null => Ok(Value::Null),
            Value::String(s) if s.trim().is_empty() || s.eq_ignore_ascii_case("none") => {
                Ok(Value::Null)
            }
            Value::String(s) => {
                let path = ed.assets.resolve(s).ok_or_else(|| {
                    Fail::new("ASSET_NOT_FOUND", format!("No texture asset at '{s}'."))
                        .with_data(json!({"path": s}))
                })?;
                let is_texture = ed.assets.get(&path).is_some_and(|a| {
                    matches!(
                        a.type_name().as_str(),
                        "Texture2D" | "RenderTexture" | "Cubemap"
                    )
                });
                if !is_texture {
                    return Err(Fail::new(
                        "ASSET_TYPE_MISMATCH",
                        format!("'{path}' is not a texture."),
                    ));
                }
                Ok(json!(path))
            }
            _ => Err(bad("a texture asset path or null")),
        },
        _ => Ok(v.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_material_create_get_set_shader() {
        let mut h = Harness::new();
        let c = h.ok(
            "manage_material",
            json!({"action": "create", "path": "Assets/Materials/Red.mat", "shader": "Standard"}),
        );
        assert_eq!(c["shader"], "Standard");
        assert_eq!(h.err("manage_material", json!({"action": "create", "path": "Assets/Materials/Red.mat", "shader": "Standard"})), "ASSET_ALREADY_EXISTS");
        let s = h.ok("manage_material", json!({"action": "set", "path": "Assets/Materials/Red.mat", "property": "_Color", "value": "#FF0000"}));
        assert_eq!(s["value"], json!({"r": 1.0, "g": 0.0, "b": 0.0, "a": 1.0}));
        let g = h.ok(
            "manage_material",
            json!({"action": "get", "path": "Assets/Materials/Red.mat", "property": "_color"}),
        );
        assert_eq!(g["value"]["r"], 1.0);
        assert_eq!(g["name"], "_Color");
        h.ok("manage_material", json!({"action": "set", "path": "Assets/Materials/Red.mat", "property": "_MainTex", "value": "Assets/Textures/Grass.png"}));
        assert_eq!(h.err("manage_material", json!({"action": "set", "path": "Assets/Materials/Red.mat", "property": "_Glossiness", "value": "shiny"})), "INVALID_PARAM");
        assert_eq!(h.err("manage_material", json!({"action": "set", "path": "Assets/Materials/Red.mat", "property": "_Nope", "value": 1})), "MATERIAL_PROPERTY_NOT_FOUND");
        let ss = h.ok("manage_material", json!({"action": "set_shader", "path": "Assets/Materials/Red.mat", "shader": "Unlit/Color"}));
        assert_eq!(ss["shader"], "Unlit/Color");
        let red = h.ok(
            "manage_material",
            json!({"action": "get", "path": "Assets/Materials/Red.mat", "property": "_Color"}),
        );
        assert_eq!(red["value"]["r"], 1.0);
        let found = h.ok(
            "manage_assets",
            json!({"action": "find", "type": "Material"}),
        );
        assert!(
            found["assets"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["path"] == "Assets/Materials/Red.mat")
        );
    }
}
