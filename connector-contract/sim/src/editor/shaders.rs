//! Shaders the project can use: Unity's built-ins, the Universal RP ones when that package is
//! installed, and `.shader` assets. Materials take their property lists from here, and the
//! `describe_shader` tool reports them.

use super::args::{Args, Fail};
use super::asset_db::{AssetDb, AssetKind};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

#[derive(Debug, Clone)]
pub struct ShaderDef {
    pub name: String,
    pub builtin: bool,
    /// `[{name, display_name, type, default, range?}]`
    pub properties: Value,
}

fn p(name: &str, display: &str, ty: &str, default: Value) -> Value {
    json!({"name": name, "display_name": display, "type": ty, "default": default})
}
fn range(name: &str, display: &str, default: f64, lo: f64, hi: f64) -> Value {
    json!({"name": name, "display_name": display, "type": "Range", "default": default, "range": [lo, hi]})
}
fn white() -> Value {
    json!({"r": 1.0, "g": 1.0, "b": 1.0, "a": 1.0})
}
fn black() -> Value {
    json!({"r": 0.0, "g": 0.0, "b": 0.0, "a": 1.0})
}

/// A built-in shader (its render queue and pass count are not reported by the Connector).
fn def(name: &str, _queue: i64, _passes: i64, props: Vec<Value>) -> ShaderDef {
    ShaderDef {
        name: name.into(),
        builtin: true,
        properties: Value::Array(props),
    }
}

fn builtin_shaders() -> Vec<ShaderDef> {
    vec![
        def(
            "Standard",
            2000,
            5,
            vec![
                p("_Color", "Color", "Color", white()),
                p("_MainTex", "Albedo", "Texture", Value::Null),
                range("_Cutoff", "Alpha Cutoff", 0.5, 0.0, 1.0),
                range("_Glossiness", "Smoothness", 0.5, 0.0, 1.0),
                range("_Metallic", "Metallic", 0.0, 0.0, 1.0),
                p("_MetallicGlossMap", "Metallic", "Texture", Value::Null),
                p("_BumpScale", "Scale", "Float", json!(1.0)),
                p("_BumpMap", "Normal Map", "Texture", Value::Null),
                range("_OcclusionStrength", "Strength", 1.0, 0.0, 1.0),
                p("_OcclusionMap", "Occlusion", "Texture", Value::Null),
                p("_EmissionColor", "Color", "Color", black()),
                p("_EmissionMap", "Emission", "Texture", Value::Null),
                p("_Mode", "__mode", "Float", json!(0.0)),
            ],
        ),
        def(
            "Unlit/Color",
            2000,
            1,
            vec![p("_Color", "Main Color", "Color", white())],
        ),
        def(
            "Unlit/Texture",
            2000,
            1,
            vec![p("_MainTex", "Base (RGB)", "Texture", Value::Null)],
        ),
        def(
            "Unlit/Transparent",
            3000,
            1,
            vec![p(
                "_MainTex",
                "Base (RGB) Trans (A)",
                "Texture",
                Value::Null,
            )],
        ),
        def(
            "Sprites/Default",
            3000,
            1,
            vec![
                p("_MainTex", "Sprite Texture", "Texture", Value::Null),
                p("_Color", "Tint", "Color", white()),
            ],
        ),
        def(
            "UI/Default",
            3000,
            1,
            vec![
                p("_MainTex", "Sprite Texture", "Texture", Value::Null),
                p("_Color", "Tint", "Color", white()),
                p("_StencilComp", "Stencil Comparison", "Float", json!(8.0)),
            ],
        ),
        def(
            "Skybox/Procedural",
            1000,
            1,
            vec![
                range("_SunSize", "Sun Size", 0.04, 0.0, 1.0),
                range(
                    "_AtmosphereThickness",
                    "Atmosphere Thickness",
                    1.0,
                    0.0,
                    5.0,
                ),
                p(
                    "_SkyTint",
                    "Sky Tint",
                    "Color",
                    json!({"r": 0.5, "g": 0.5, "b": 0.5, "a": 1.0}),
                ),
                range("_Exposure", "Exposure", 1.3, 0.0, 8.0),
            ],
        ),
        def(
            "Legacy Shaders/Diffuse",
            2000,
            3,
            vec![
                p("_Color", "Main Color", "Color", white()),
                p("_MainTex", "Base (RGB)", "Texture", Value::Null),
            ],
        ),
    ]
}

fn urp_shaders() -> Vec<ShaderDef> {
    vec![
        def(
            "Universal Render Pipeline/Lit",
            2000,
            7,
            vec![
                p("_BaseMap", "Base Map", "Texture", Value::Null),
                p("_BaseColor", "Base Color", "Color", white()),
                range("_Cutoff", "Alpha Cutoff", 0.5, 0.0, 1.0),
                range("_Smoothness", "Smoothness", 0.5, 0.0, 1.0),
                range("_Metallic", "Metallic", 0.0, 0.0, 1.0),
                p("_BumpMap", "Normal Map", "Texture", Value::Null),
                p("_EmissionColor", "Color", "Color", black()),
                p("_Surface", "__surface", "Float", json!(0.0)),
            ],
        ),
        def(
            "Universal Render Pipeline/Unlit",
            2000,
            3,
            vec![
                p("_BaseMap", "Texture", "Texture", Value::Null),
                p("_BaseColor", "Color", "Color", white()),
            ],
        ),
    ]
}

/// The custom shader the seeded project ships.
pub fn toon_shader() -> ShaderDef {
    ShaderDef {
        name: "Custom/Toon".into(),
        builtin: false,
        properties: json!([
            p("_BaseColor", "Base Color", "Color", white()),
            p("_MainTex", "Texture", "Texture", Value::Null),
            range("_ShadeSteps", "Shade Steps", 3.0, 1.0, 8.0),
            p("_OutlineWidth", "Outline Width", "Float", json!(0.02)),
        ]),
    }
}

/// Every shader available to this project right now.
pub fn all(ed: &Editor) -> Vec<ShaderDef> {
    let mut out = builtin_shaders();
    if ed
        .packages
        .is_installed("com.unity.render-pipelines.universal")
    {
        out.extend(urp_shaders());
    }
    out.extend(custom(&ed.assets));
    out
}

fn custom(db: &AssetDb) -> Vec<ShaderDef> {
    db.entries
        .values()
        .filter_map(|a| match &a.kind {
            AssetKind::Shader { name, properties } => Some(ShaderDef {
                name: name.clone(),
                builtin: false,
                properties: properties.clone(),
            }),
            _ => None,
        })
        .collect()
}

pub fn find(ed: &Editor, name: &str) -> Option<ShaderDef> {
    all(ed)
        .into_iter()
        .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
}

/// Read `Shader "Name"` and its `Properties { _X ("Label", Type) = default }` lines.
pub fn parse_source(source: &str, fallback_name: &str) -> ShaderDef {
    let mut name = fallback_name.to_string();
    let mut props = Vec::new();
    for line in source.lines().take(5_000) {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("Shader")
            && let Some(n) = rest
                .trim()
                .strip_prefix('"')
                .and_then(|r| r.split('"').next())
        {
            name = n.to_string();
        }
        if l.starts_with('_') && l.contains('(') {
            let pname: String = l
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let inner = l.split_once('(').map(|x| x.1).unwrap_or("");
            let display = inner.split('"').nth(1).unwrap_or(&pname).to_string();
            let after_label = inner.splitn(3, '"').nth(2).unwrap_or("");
            let ty_text = after_label.trim_start_matches([',', ' ']);
            let ty = if ty_text.starts_with("Color") {
                "Color"
            } else if ty_text.starts_with("2D")
                || ty_text.starts_with("Cube")
                || ty_text.starts_with("3D")
            {
                "Texture"
            } else if ty_text.starts_with("Range") {
                "Range"
            } else if ty_text.starts_with("Vector") {
                "Vector"
            } else if ty_text.starts_with("Int") {
                "Int"
            } else {
                "Float"
            };
            let default = match ty {
                "Color" => white(),
                "Texture" => Value::Null,
                "Vector" => json!({"x": 0.0, "y": 0.0, "z": 0.0, "w": 0.0}),
                "Int" => json!(0),
                _ => l
                    .rsplit('=')
                    .next()
                    .and_then(|d| d.trim().parse::<f64>().ok())
                    .map(|f| json!(f))
                    .unwrap_or(json!(0.0)),
            };
            props.push(p(&pname, &display, ty, default));
        }
    }
    ShaderDef {
        name,
        builtin: false,
        properties: Value::Array(props),
    }
}

pub fn describe(ed: &mut Editor, _action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    let include_builtin = a.bool("include_builtin")?.unwrap_or(true);
    if a.flag("list")? {
        let filter = a.str("filter")?.unwrap_or("").to_ascii_lowercase();
        let limit = a.limit("limit", 50, 1, 10_000)?;
        let matching: Vec<ShaderDef> = all(ed)
            .into_iter()
            .filter(|s| include_builtin || !s.builtin)
            .filter(|s| filter.is_empty() || s.name.to_ascii_lowercase().contains(&filter))
            .collect();
        // Names only, sorted case-insensitively, `Hidden/` dropped.
        let mut names: Vec<String> = matching
            .iter()
            .map(|s| s.name.clone())
            .filter(|n| !n.starts_with("Hidden/"))
            .collect();
        names.sort_by_key(|n| n.to_lowercase());
        let total = names.len();
        names.truncate(limit);
        return ok(
            format!("{} of {total} shader(s).", names.len()),
            json!({"total": total, "truncated": names.len() < total, "shaders": names}),
        );
    }
    let name = a.str("name")?.ok_or_else(|| {
        Fail::new(
            "MISSING_ARGUMENT",
            "Give a shader 'name', or 'list': true to search.",
        )
        .with_data(json!({"path": "/", "expected": "name or list=true", "actual": null}))
    })?;
    let Some(s) = find(ed, name) else {
        let near: Vec<String> = all(ed)
            .into_iter()
            .map(|s| s.name)
            .filter(|n| n.to_ascii_lowercase().contains(&name.to_ascii_lowercase()))
            .take(5)
            .collect();
        return Err(Fail::new(
            "SHADER_NOT_FOUND",
            format!("Shader '{name}' was not found."),
        )
        .with_data(json!({"name": name, "similar": near})));
    };
    let limit = a.limit("limit", 60, 1, 10_000)?;
    let props = s.properties.as_array().cloned().unwrap_or_default();
    let total = props.len();
    // Each property is `{name, type, display?, range?}`: the describe mode's own shape, which
    // the published schema (list mode only) does not describe.
    let shown: Vec<Value> = props
        .into_iter()
        .take(limit)
        .map(|p| {
            let mut v = json!({"name": p["name"], "type": p["type"]});
            if let Some(d) = p["display_name"].as_str().filter(|d| !d.is_empty()) {
                v["display"] = json!(d);
            }
            if p["range"].is_array() {
                v["range"] = p["range"].clone();
            }
            v
        })
        .collect();
    ok(
        format!(
            "Shader '{}' has {total} propert{}.",
            s.name,
            if total == 1 { "y" } else { "ies" }
        ),
        json!({
            "name": s.name, "property_count": total, "truncated": total > limit,
            "properties": shown,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use super::*;

    #[test]
    fn editor_describe_shader_lists_and_describes() {
        let mut h = Harness::new();
        let list = h.ok("describe_shader", json!({"list": true, "filter": "unlit"}));
        assert!(
            list["shaders"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s == "Unlit/Color")
        );
        let custom_only = h.ok(
            "describe_shader",
            json!({"list": true, "include_builtin": false}),
        );
        assert_eq!(custom_only["shaders"][0], "Custom/Toon");
        let d = h.ok("describe_shader", json!({"name": "standard"}));
        assert_eq!(d["name"], "Standard");
        assert!(
            d["properties"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "_Color")
        );
        assert_eq!(
            h.err("describe_shader", json!({"name": "Nope/Nothing"})),
            "SHADER_NOT_FOUND"
        );
    }

    #[test]
    fn editor_shader_source_is_parsed() {
        let src = "Shader \"Custom/Glow\" {\n Properties {\n  _GlowColor (\"Glow\", Color) = (1,0,0,1)\n  _Power (\"Power\", Range(0,4)) = 2\n  _Tex (\"Tex\", 2D) = \"white\" {}\n }\n}";
        let s = parse_source(src, "x");
        assert_eq!(s.name, "Custom/Glow");
        let types: Vec<_> = s
            .properties
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["type"].clone())
            .collect();
        assert_eq!(
            types,
            vec![json!("Color"), json!("Range"), json!("Texture")]
        );
    }
}
