//! Asset tools over the asset tree: `manage_assets`, `manage_asset_import`, `detect_assets`,
//! `reserialize` and `refresh_unity`.
//!
//! Moves keep GUIDs and rewrite every path reference (materials, prefabs, saved and open scenes,
//! build list, selection), so nothing dangles; deletes refuse to pull an open scene away.
//! `import` reads the real source file, so imported scripts and shaders are what the file says.

use super::args::{Args, Fail};
use super::asset_db::{
    self, AssetKind, display_name, node_refs, referenced_paths, rewrite_node_refs, rewrite_refs,
};
use super::editor_state::{PlayState, Selected};
use super::{Editor, Handled, Invocation, InvokeContext, ReloadReason, ok, shaders};
use serde_json::{Map, Value, json};

fn not_found(raw: &str) -> Fail {
    Fail::new("ASSET_NOT_FOUND", format!("No asset at '{raw}'.")).with_data(json!({"path": raw}))
}

fn existing(ed: &Editor, raw: &str) -> Result<String, Fail> {
    ed.assets.resolve(raw).ok_or_else(|| not_found(raw))
}

/// The Connector's asset summary: `{path, guid, name, type}` (`type` the main asset's short type
/// name, `Folder` for a folder).
fn asset_summary(ed: &Editor, path: &str) -> Value {
    match ed.assets.get(path) {
        Some(a) => json!({"path": path, "guid": a.guid, "name": display_name(path),
                          "type": if a.is_folder() { "Folder".to_string() } else { a.type_name() }}),
        None => Value::Null,
    }
}

/// Rewrite path references from `old` to `new` everywhere. Returns how many changed.
fn retarget(ed: &mut Editor, old: &str, new: &str) -> usize {
    let mut n = 0;
    for a in ed.assets.entries.values_mut() {
        match &mut a.kind {
            AssetKind::Material { props, .. } => {
                for v in props.values_mut() {
                    n += rewrite_refs(v, old, new);
                }
            }
            AssetKind::Prefab(node) => n += rewrite_node_refs(node, old, new),
            AssetKind::Scene(roots) => {
                for r in roots {
                    n += rewrite_node_refs(r, old, new);
                }
            }
            AssetKind::Data { body, .. } => n += rewrite_refs(body, old, new),
            _ => {}
        }
    }
    for o in ed.world.objects.values_mut() {
        for c in &mut o.components {
            for v in c.props.values_mut() {
                n += rewrite_refs(v, old, new);
            }
        }
    }
    let fix = |p: &mut String| {
        let mut v = Value::String(std::mem::take(p));
        let changed = rewrite_refs(&mut v, old, new);
        *p = v.as_str().unwrap_or_default().to_string();
        changed
    };
    for s in &mut ed.world.scenes {
        n += fix(&mut s.path);
    }
    for b in &mut ed.build.scenes {
        n += fix(&mut b.path);
    }
    for s in &mut ed.chrome.selection {
        if let Selected::Asset(p) = s {
            n += fix(p);
        }
    }
    n
}

/// Assets `path` references directly: path strings in its payload, prefab links, script types.
fn forward(ed: &Editor, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(a) = ed.assets.get(path) else {
        return out;
    };
    let db = &ed.assets;
    let mut nodes = Vec::new();
    match &a.kind {
        AssetKind::Material { shader, props } => {
            for v in props.values() {
                referenced_paths(v, db, &mut out);
            }
            if let Some((p, _)) = db
                .entries
                .iter()
                .find(|(_, x)| matches!(&x.kind, AssetKind::Shader { name, .. } if name == shader))
            {
                out.push(p.clone());
            }
        }
        AssetKind::Prefab(n) => nodes.push(n),
        AssetKind::Scene(roots) => nodes.extend(roots.iter()),
        AssetKind::Data { body, .. } => referenced_paths(body, db, &mut out),
        _ => {}
    }
    let mut stack = nodes.clone();
    while let Some(n) = stack.pop() {
        if let Some(link) = &n.prefab
            && let Some(p) = db.by_guid(&link.prefab_guid)
            && p != path
            && !out.iter().any(|x| x == p)
        {
            out.push(p.to_string());
        }
        for (ty, _, _) in &n.components {
            if let Some((p, _)) = db.script_class(ty)
                && !out.contains(p)
            {
                out.push(p.clone());
            }
        }
        stack.extend(n.children.iter());
    }
    for n in nodes {
        node_refs(n, db, &mut out);
    }
    out.retain(|p| p != path);
    out
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "find" => find(ed, a),
        "mkdir" => {
            let path = asset_db::writable_path("path", a.req_str("path")?)?;
            match ed.assets.get(&path) {
                Some(x) if x.is_folder() => ok(
                    format!("{path} already exists."),
                    json!({"path": path, "created": false}),
                ),
                Some(_) => Err(Fail::new(
                    "ASSET_ALREADY_EXISTS",
                    format!("'{path}' exists and is not a folder."),
                )
                .with_data(json!({"path": path}))),
                None => {
                    ed.assets.put(&path, AssetKind::Folder);
                    ok(
                        format!("Created folder {path}."),
                        json!({"path": path, "created": true}),
                    )
                }
            }
        }
        "create" => create(ed, a),
        "copy" => transfer(ed, a, false),
        "move" => transfer(ed, a, true),
        "delete" => delete(ed, a),
        "deps" => deps(ed, a),
        "import" => import(ed, a),
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn find(ed: &Editor, a: Args) -> Handled {
    let filter = a.str("filter")?.unwrap_or("");
    let mut types: Vec<String> = a
        .str("type")?
        .map(|t| vec![t.to_string()])
        .unwrap_or_default();
    let mut labels = Vec::new();
    let mut words = Vec::new();
    for tok in filter.split_whitespace() {
        if let Some(t) = tok.strip_prefix("t:") {
            types.push(t.to_string());
        } else if let Some(l) = tok.strip_prefix("l:") {
            labels.push(l.to_ascii_lowercase());
        } else {
            words.push(tok.to_ascii_lowercase());
        }
    }
    if filter.trim().is_empty() && types.is_empty() {
        return Err(
            Fail::new("MISSING_ARGUMENT", "Give a filter or a type to search for.").with_data(
                json!({"path": "/filter", "expected": "filter or type", "actual": null}),
            ),
        );
    }
    let include_folders = a.flag("include_folders")?;
    let limit = a.limit("limit", 50, 1, 500)?;
    let hits: Vec<&String> = ed
        .assets
        .entries
        .iter()
        .filter(|(p, x)| {
            (include_folders || !x.is_folder())
                && p.as_str() != "Assets"
                && (types.is_empty() || types.iter().any(|t| x.matches_type(t)))
                && labels
                    .iter()
                    .all(|l| x.labels.iter().any(|xl| xl.to_ascii_lowercase() == *l))
                && words
                    .iter()
                    .all(|w| display_name(p).to_ascii_lowercase().contains(w.as_str()))
        })
        .map(|(p, _)| p)
        .collect();
    let total = hits.len();
    let results: Vec<Value> = hits
        .into_iter()
        .take(limit)
        .map(|p| asset_summary(ed, p))
        .collect();
    // `query` is the AssetDatabase search string the handler built.
    let mut query: Vec<String> = types.iter().map(|t| format!("t:{t}")).collect();
    query.extend(labels.iter().map(|l| format!("l:{l}")));
    query.extend(words.iter().cloned());
    ok(
        format!("{} of {total} asset(s) matched.", results.len()),
        json!({"query": query.join(" "), "total": total, "returned": results.len(),
               "truncated": results.len() < total, "assets": results}),
    )
}

fn create(ed: &mut Editor, a: Args) -> Handled {
    let path = asset_db::writable_path("path", a.req_str("path")?)?;
    asset_db::require_ext("path", &path, ".asset")?;
    if ed.assets.contains(&path) {
        return Err(
            Fail::new("ASSET_ALREADY_EXISTS", format!("'{path}' already exists."))
                .with_data(json!({"path": path})),
        );
    }
    let ty = a.req_str("type")?;
    let overrides: Map<String, Value> = match a.raw("properties") {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => {
            return Err(Fail::invalid(
                "properties",
                "expected an object of field values",
            ));
        }
    };
    let applied: Vec<String> = overrides.keys().cloned().collect();
    let (type_name, full_name, mut body) = if let Some((script_path, s)) =
        ed.assets.script_class(ty)
    {
        if s.base != "ScriptableObject" {
            return Err(Fail::new(
                "TYPE_INVALID",
                format!(
                    "{} ({script_path}) derives from {}, not ScriptableObject.",
                    s.class, s.base
                ),
            ));
        }
        let full = if s.namespace.is_empty() {
            s.class.clone()
        } else {
            format!("{}.{}", s.namespace, s.class)
        };
        (s.class.clone(), full, s.fields.clone())
    } else if ty.eq_ignore_ascii_case("UniversalRenderPipelineAsset") {
        if !ed
            .packages
            .is_installed("com.unity.render-pipelines.universal")
        {
            return Err(Fail::new(
                "TYPE_NOT_FOUND",
                "UniversalRenderPipelineAsset needs the com.unity.render-pipelines.universal package.",
            ));
        }
        (
            "UniversalRenderPipelineAsset".to_string(),
            "UnityEngine.Rendering.Universal.UniversalRenderPipelineAsset".to_string(),
            serde_json::from_value(
                json!({"m_RendererDataList": [], "m_RenderScale": 1.0, "m_MSAA": 1}),
            )
            .unwrap_or_default(),
        )
    } else {
        return Err(Fail::new(
            "TYPE_NOT_FOUND",
            format!("No ScriptableObject type named '{ty}'."),
        )
        .with_data(json!({"type": ty})));
    };
    for (k, v) in overrides {
        let Some(cur) = body.get(&k) else {
            return Err(Fail::invalid(
                "properties",
                format!(
                    "{type_name} has no field '{k}' (fields: {})",
                    body.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        };
        let same_kind = std::mem::discriminant(cur) == std::mem::discriminant(&v) || cur.is_null();
        if !same_kind {
            return Err(Fail::invalid(
                "properties",
                format!("field '{k}' holds {cur}, got {v}"),
            ));
        }
        body.insert(k, v);
    }
    let body = Value::Object(body);
    let guid = ed.assets.put(&path, AssetKind::Data { type_name, body });
    let mut data = json!({"path": path, "type": full_name, "guid": guid});
    // `applied` is present only when the call gave `properties`.
    if a.raw("properties").is_some() {
        data["applied"] = json!(applied);
    }
    ok("Asset created", data)
}

fn transfer(ed: &mut Editor, a: Args, is_move: bool) -> Handled {
    let from = existing(ed, a.req_str("path")?)?;
    let to = asset_db::writable_path("new_path", a.req_str("new_path")?)?;
    if from == "Assets" {
        return Err(Fail::invalid(
            "path",
            "the Assets root cannot be moved or copied",
        ));
    }
    if ed.assets.contains(&to) {
        return Err(
            Fail::new("ASSET_ALREADY_EXISTS", format!("'{to}' already exists."))
                .with_data(json!({"new_path": to})),
        );
    }
    if to.starts_with(&format!("{from}/")) {
        return Err(Fail::invalid(
            "new_path",
            "cannot place a folder inside itself",
        ));
    }
    if is_move {
        ed.assets.move_tree(&from, &to);
        retarget(ed, &from, &to);
        return ok("Asset moved", json!({"path": from, "new_path": to}));
    }
    ed.assets.copy_tree(&from, &to);
    ok("Asset copied", json!({"path": from, "new_path": to}))
}

fn delete(ed: &mut Editor, a: Args) -> Handled {
    let path = existing(ed, a.req_str("path")?)?;
    if path == "Assets" {
        return Err(Fail::invalid("path", "the Assets root cannot be deleted"));
    }
    let doomed = ed.assets.subtree(&path);
    if let Some(open) = ed.world.scenes.iter().find(|s| doomed.contains(&s.path)) {
        return Err(Fail::new(
            "ASSET_IN_USE",
            format!(
                "{} is open in the hierarchy; close it before deleting.",
                open.path
            ),
        )
        .with_data(json!({"scene": open.path})));
    }
    let removed = ed.assets.remove(&path);
    ed.chrome
        .selection
        .retain(|s| !matches!(s, Selected::Asset(p) if removed.contains(p)));
    ok("Asset deleted", json!({"path": path}))
}

fn deps(ed: &Editor, a: Args) -> Handled {
    let path = existing(ed, a.req_str("path")?)?;
    let direction = a.req_str("direction")?.to_ascii_lowercase();
    let limit = a.limit("limit", 100, 1, 1000)?;
    let recursive = a.flag("recursive")?;
    let found: Vec<String> = match direction.as_str() {
        "forward" => {
            let mut seen: Vec<String> = forward(ed, &path);
            if recursive {
                let mut i = 0;
                // Bounded: each asset enters `seen` at most once.
                while i < seen.len() && seen.len() <= ed.assets.entries.len() {
                    for d in forward(ed, &seen[i].clone()) {
                        if d != path && !seen.contains(&d) {
                            seen.push(d);
                        }
                    }
                    i += 1;
                }
            }
            seen
        }
        "reverse" => ed
            .assets
            .entries
            .keys()
            .filter(|p| p.as_str() != path && forward(ed, p).contains(&path))
            .cloned()
            .collect(),
        other => {
            return Err(Fail::invalid(
                "direction",
                format!("expected forward or reverse, got '{other}'"),
            ));
        }
    };
    let total = found.len();
    let list: Vec<Value> = found
        .iter()
        .take(limit)
        .map(|p| asset_summary(ed, p))
        .collect();
    let returned = list.len();
    let data = if direction == "reverse" {
        json!({"path": path, "direction": direction, "scope": a.str("scope")?.unwrap_or("assets"),
               "total": total, "returned": returned, "truncated": returned < total,
               "scanned": ed.assets.entries.len(), "elapsed_ms": 0, "assets": list})
    } else {
        json!({"path": path, "direction": direction, "recursive": recursive, "total": total,
               "returned": returned, "truncated": returned < total, "assets": list})
    };
    ok(
        format!(
            "{total} {direction} dependenc{} of {path}.",
            if total == 1 { "y" } else { "ies" }
        ),
        data,
    )
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let w = u32::from_be_bytes(bytes[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(bytes[20..24].try_into().ok()?);
    Some((w, h))
}

fn import(ed: &mut Editor, a: Args) -> Handled {
    let source = a.req_str("source")?;
    let bytes = std::fs::read(source).map_err(|e| {
        Fail::new(
            "ASSET_SOURCE_NOT_FOUND",
            format!("Cannot read source file '{source}': {e}"),
        )
        .with_data(json!({"source": source}))
    })?;
    let file = std::path::Path::new(source)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or("imported")
        .to_string();
    let mut path = asset_db::writable_path("path", a.req_str("path")?)?;
    if ed.assets.get(&path).is_some_and(|x| x.is_folder()) {
        path = format!("{path}/{file}");
    }
    if ed.assets.contains(&path) {
        return Err(
            Fail::new("ASSET_ALREADY_EXISTS", format!("'{path}' already exists."))
                .with_data(json!({"path": path})),
        );
    }
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    let text = String::from_utf8_lossy(&bytes);
    let kind = match ext.as_str() {
        "cs" => AssetKind::Script(asset_db::scan_script(&path, &text)),
        "shader" => {
            let def = shaders::parse_source(&text, &display_name(&path));
            AssetKind::Shader {
                name: def.name,
                properties: def.properties,
            }
        }
        "png" | "jpg" | "jpeg" | "tga" | "psd" => {
            let (w, h) = png_size(&bytes).unwrap_or((0, 0));
            AssetKind::Data {
                type_name: "Texture2D".into(),
                body: json!({"width": w, "height": h}),
            }
        }
        "wav" | "mp3" | "ogg" => AssetKind::Data {
            type_name: "AudioClip".into(),
            body: json!({"bytes": bytes.len()}),
        },
        "fbx" | "obj" => AssetKind::Data {
            type_name: "Mesh".into(),
            body: json!({"bytes": bytes.len()}),
        },
        _ => AssetKind::Data {
            type_name: "TextAsset".into(),
            body: json!({"bytes": bytes.len()}),
        },
    };
    let is_script = matches!(kind, AssetKind::Script(_));
    let guid = ed.assets.put(&path, kind);
    let importer_type = ed
        .assets
        .get(&path)
        .and_then(|x| x.importer.get("importer").cloned())
        .unwrap_or(json!("DefaultImporter"));
    let data = json!({"path": path, "source": source.replace('\\', "/"), "guid": guid, "importer_type": importer_type});
    let inv = Invocation::ok("Asset imported", data);
    Ok(if is_script {
        inv.with_reload(ReloadReason::ScriptCompile, true)
    } else {
        inv
    })
}

// ---- manage_asset_import ----

fn enum_values(key: &str) -> Option<&'static [&'static str]> {
    Some(match key {
        "textureType" => &[
            "Default",
            "NormalMap",
            "Sprite",
            "Cursor",
            "Cookie",
            "Lightmap",
            "SingleChannel",
        ],
        "filterMode" => &["Point", "Bilinear", "Trilinear"],
        "wrapMode" => &["Repeat", "Clamp", "Mirror", "MirrorOnce"],
        "textureCompression" => &["Uncompressed", "Compressed", "CompressedHQ", "CompressedLQ"],
        "spriteImportMode" => &["None", "Single", "Multiple", "Polygon"],
        "loadType" => &["DecompressOnLoad", "CompressedInMemory", "Streaming"],
        "compressionFormat" => &["PCM", "Vorbis", "ADPCM"],
        "meshCompression" => &["Off", "Low", "Medium", "High"],
        _ => return None,
    })
}

/// A serialized property value as the Connector reads it: scalars as JSON scalars (which the
/// published schema's open objects do not admit), an enum as `{value: index, name}`.
fn sp_value(key: &str, v: &Value) -> Value {
    match (enum_values(key), v.as_str()) {
        (Some(opts), Some(s)) => match opts.iter().position(|o| *o == s) {
            Some(i) => json!({"value": i, "name": s}),
            None => json!({"value": 0, "name": null}),
        },
        _ => v.clone(),
    }
}

/// The `SerializedPropertyType` name of a setting.
fn sp_type(key: &str, v: &Value) -> &'static str {
    if enum_values(key).is_some() {
        return "Enum";
    }
    match v {
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "Integer",
        Value::Number(_) => "Float",
        _ => "String",
    }
}

pub fn import_settings(
    ed: &mut Editor,
    action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    let path = existing(ed, a.req_str("path")?)?;
    let asset = ed.assets.get(&path).ok_or_else(|| not_found(&path))?;
    if asset.is_folder() {
        return Err(Fail::new(
            "ASSET_TYPE_MISMATCH",
            format!("{path} is a folder; folders have no importer settings."),
        ));
    }
    let importer = asset.importer.clone();
    let importer_type = importer
        .get("importer")
        .cloned()
        .unwrap_or(json!("DefaultImporter"));
    // Serialized names (`m_MaxTextureSize`) and the simulator's own (`maxTextureSize`) both
    // name a setting.
    let find_key = |want: &str| {
        let bare = want.strip_prefix("m_").unwrap_or(want);
        importer
            .keys()
            .filter(|k| k.as_str() != "importer")
            .find(|k| k.eq_ignore_ascii_case(bare))
            .cloned()
    };
    let missing = |want: &str| {
        Fail::new(
            "IMPORTER_PROPERTY_NOT_FOUND",
            format!(
                "{} for {path} has no property '{want}'.",
                importer_type.as_str().unwrap_or("Importer")
            ),
        )
        .with_data(json!({"property": want, "available": importer.keys().collect::<Vec<_>>()}))
    };
    match action.unwrap_or("") {
        "get" => match a.str("property")? {
            None => {
                let props: Map<String, Value> = importer
                    .iter()
                    .filter(|(k, _)| k.as_str() != "importer")
                    .map(|(k, v)| (k.clone(), sp_value(k, v)))
                    .collect();
                ok(
                    format!("{} for {path}", importer_type.as_str().unwrap_or("")),
                    json!({"path": path, "importer_type": importer_type, "properties": props}),
                )
            }
            Some(p) => {
                let key = find_key(p).ok_or_else(|| missing(p))?;
                ok(
                    format!("{}.{key}", importer_type.as_str().unwrap_or("")),
                    json!({"path": path, "importer_type": importer_type, "property": p,
                           "property_type": sp_type(&key, &importer[&key]),
                           "value": sp_value(&key, &importer[&key])}),
                )
            }
        },
        "set" => {
            let p = a.req_str("property")?;
            let key = find_key(p).ok_or_else(|| missing(p))?;
            if key == "importer" {
                return Err(Fail::invalid("property", "the importer type is read-only"));
            }
            let raw = a.raw("value").cloned().unwrap_or(Value::Null);
            let cur = &importer[&key];
            let value = match cur {
                Value::Bool(_) => match &raw {
                    Value::Bool(_) => raw.clone(),
                    Value::String(s)
                        if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") =>
                    {
                        json!(s.eq_ignore_ascii_case("true"))
                    }
                    _ => return Err(Fail::invalid("value", format!("{key} expects a boolean"))),
                },
                Value::Number(n) => {
                    let f = raw
                        .as_f64()
                        .or_else(|| raw.as_str().and_then(|s| s.trim().parse().ok()))
                        .ok_or_else(|| Fail::invalid("value", format!("{key} expects a number")))?;
                    if key == "maxTextureSize"
                        && (!(32..=16384).contains(&(f as i64))
                            || !(f as i64 as u64).is_power_of_two())
                    {
                        return Err(Fail::invalid(
                            "value",
                            "maxTextureSize must be a power of two between 32 and 16384",
                        ));
                    }
                    if n.is_i64() {
                        json!(f as i64)
                    } else {
                        json!(f)
                    }
                }
                _ => {
                    let s = match &raw {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        _ => return Err(Fail::invalid("value", format!("{key} expects a string"))),
                    };
                    match enum_values(&key) {
                        Some(opts) => json!(
                            opts.iter()
                                .find(|o| o.eq_ignore_ascii_case(&s))
                                .ok_or_else(|| Fail::invalid(
                                    "value",
                                    format!("{key} expects one of {}", opts.join(", "))
                                ))?
                        ),
                        None => json!(s),
                    }
                }
            };
            if let Some(x) = ed.assets.get_mut(&path) {
                x.importer.insert(key.clone(), value.clone());
            }
            ok(
                format!("Set {key} on {path} and reimported it."),
                json!({"path": path, "importer_type": importer_type, "property": p,
                       "property_type": sp_type(&key, &value), "value": sp_value(&key, &value)}),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

// ---- detect_assets, reserialize, refresh_unity ----

/// The detection rules, in the Connector's order: an id and the folders or files (relative to
/// the project root) whose presence means the asset is installed.
const DETECTION_RULES: [(&str, &[&str]); 5] = [
    ("odin_inspector", &["Assets/Plugins/Sirenix/Odin Inspector"]),
    ("odin_validator", &["Assets/Plugins/Sirenix/Odin Validator"]),
    (
        "odin_serializer",
        &[
            "Assets/Plugins/Sirenix/Odin Serializer",
            "Assets/Plugins/Sirenix/Assemblies/Sirenix.Serialization.dll",
        ],
    ),
    ("dotween", &["Assets/Plugins/Demigiant/DOTween"]),
    ("dotween_pro", &["Assets/Plugins/Demigiant/DOTweenPro"]),
];

/// Where the Connector keeps the user's asset overrides (under the user's home).
const ASSET_CONFIG_PATH: &str = "~/.hera-agent-unity/asset-config.json";

/// `detect_assets`: one entry per detection rule, `path` the first matching folder or file.
/// The open project is looked up in its asset tree; another `project_path` on disk.
pub fn detect(ed: &mut Editor, _action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    let norm = |p: &str| p.trim_end_matches(['/', '\\']).to_string();
    let other = a
        .str("project_path")?
        .filter(|p| norm(p) != norm(&ed.project_path))
        .map(str::to_string);
    if let Some(root) = &other
        && !std::path::Path::new(root).join("Assets").is_dir()
    {
        return Err(Fail::new(
            "PROJECT_NOT_FOUND",
            format!("'{root}' is not a Unity project (no Assets folder)."),
        )
        .with_data(json!({"project_path": root})));
    }
    let present = |rel: &str| match &other {
        Some(root) => std::path::Path::new(root).join(rel).exists(),
        None => ed.assets.entries.contains_key(rel),
    };
    let detected: Vec<Value> = DETECTION_RULES
        .iter()
        .map(|(id, paths)| {
            let hit = paths.iter().find(|p| present(p));
            json!({"id": id, "installed": hit.is_some(), "path": hit})
        })
        .collect();
    ok(
        "Asset detection complete",
        json!({
            "project_path": other.unwrap_or_else(|| ed.project_path.clone()),
            "detected": detected,
            "config_path": ASSET_CONFIG_PATH,
        }),
    )
}

pub fn reserialize(
    ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    let given = a.strings("paths")?.filter(|p| !p.is_empty());
    let paths = match given.clone() {
        Some(p) => p,
        None => ed
            .assets
            .entries
            .iter()
            .filter(|(_, x)| !x.is_folder())
            .map(|(p, _)| p.clone())
            .collect(),
    };
    let mut done = Vec::new();
    let mut missing = Vec::new();
    for p in paths {
        match ed.assets.resolve(&p) {
            Some(found) => {
                for sub in ed.assets.subtree(&found) {
                    if !ed.assets.get(&sub).is_some_and(|x| x.is_folder()) && !done.contains(&sub) {
                        done.push(sub);
                    }
                }
            }
            None => missing.push(p),
        }
    }
    if !missing.is_empty() {
        return Err(Fail::new(
            "ASSET_NOT_FOUND",
            format!("No asset at: {}.", missing.join(", ")),
        )
        .with_data(json!({"missing": missing})));
    }
    // The reply echoes the requested paths; the whole project's reserialization has no data.
    ok(
        format!("Reserialized {} asset(s).", done.len()),
        given.map_or(Value::Null, |p| json!({ "paths": p })),
    )
}

pub fn refresh(ed: &mut Editor, _action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    let force = a.flag("force")?;
    if ed.play.state != PlayState::Edit && !force {
        return Err(Fail::new(
            "PLAYMODE_REFRESH_BLOCKED",
            "Refreshing during play mode can reload the domain and stop the game; pass force: true to refresh anyway, or stop play mode first.",
        ));
    }
    let scope = a.str("scope")?.unwrap_or("all").to_string();
    if scope != "all" && ed.assets.resolve(&scope).is_none() {
        return Err(not_found(&scope));
    }
    let mode = a.str("mode")?.unwrap_or("if_dirty").to_ascii_lowercase();
    if mode != "if_dirty" && mode != "force" {
        return Err(Fail::invalid("mode", "expected if_dirty or force"));
    }
    let compile = a.str("compile")?.unwrap_or("none").to_ascii_lowercase();
    if compile != "none" && compile != "request" {
        return Err(Fail::invalid("compile", "expected none or request"));
    }
    let requested = compile == "request";
    let data = json!({"refresh_triggered": true, "compile_requested": requested, "force": force});
    if requested {
        ed.compiling_since_ms = Some(ctx.now_ms);
        return Ok(Invocation::ok(
            "Asset database refreshed; script compilation requested (the domain will reload).",
            data,
        )
        .with_reload(ReloadReason::ScriptCompile, true));
    }
    ok("Asset database refreshed; nothing on disk changed.", data)
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_assets_create_move_delete_find() {
        let mut h = Harness::new();
        h.ok(
            "manage_assets",
            json!({"action": "mkdir", "path": "Assets/Data/Levels"}),
        );
        assert_eq!(
            h.ok(
                "manage_assets",
                json!({"action": "mkdir", "path": "Assets/Data"})
            )["created"],
            false
        );
        let c = h.ok("manage_assets", json!({"action": "create", "path": "Assets/Data/Hard.asset", "type": "GameSettings", "properties": {"difficulty": 3}}));
        assert_eq!(c["applied"], json!(["difficulty"]));
        assert_eq!(
            h.ok("manage_assets", json!({"action": "create", "path": "Assets/Data/Easy.asset", "type": "GameSettings"}))
                .get("applied"),
            None
        );
        assert_eq!(h.err("manage_assets", json!({"action": "create", "path": "Assets/Data/X.asset", "type": "PlayerController"})), "TYPE_INVALID");
        assert_eq!(
            h.err(
                "manage_assets",
                json!({"action": "create", "path": "Assets/Data/X.asset", "type": "Nope"})
            ),
            "TYPE_NOT_FOUND"
        );
        let f = h.ok(
            "manage_assets",
            json!({"action": "find", "filter": "t:GameSettings"}),
        );
        assert_eq!(f["total"], 3);
        // Move a material folder: references in scenes and open objects follow.
        let m = h.ok("manage_assets", json!({"action": "move", "path": "Assets/Materials", "new_path": "Assets/Art/Materials"}));
        assert_eq!(
            m,
            json!({"path": "Assets/Materials", "new_path": "Assets/Art/Materials"})
        );
        let got = h.ok("manage_components", json!({"action": "get", "path": "Ground", "type": "MeshRenderer", "property": "m_Materials"}));
        assert_eq!(got["value"], json!(["Assets/Art/Materials/Ground.mat"]));
        let deps = h.ok("manage_assets", json!({"action": "deps", "path": "Assets/Art/Materials/Ground.mat", "direction": "forward"}));
        assert_eq!(deps["assets"][0]["path"], "Assets/Textures/Grass.png");
        let rev = h.ok("manage_assets", json!({"action": "deps", "path": "Assets/Prefabs/Player.prefab", "direction": "reverse"}));
        assert_eq!(rev["assets"][0]["path"], "Assets/Scenes/SampleScene.unity");
        let fwd = h.ok("manage_assets", json!({"action": "deps", "path": "Assets/Scenes/SampleScene.unity", "direction": "forward", "recursive": true}));
        let paths: Vec<_> = fwd["assets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["path"].clone())
            .collect();
        assert!(
            paths.contains(&json!("Assets/Scripts/PlayerController.cs"))
                && paths.contains(&json!("Assets/Textures/Grass.png")),
            "{paths:?}"
        );
        assert_eq!(
            h.err(
                "manage_assets",
                json!({"action": "delete", "path": "Assets/Scenes"})
            ),
            "ASSET_IN_USE"
        );
        h.ok(
            "manage_assets",
            json!({"action": "copy", "path": "Assets/Art", "new_path": "Assets/Art2"}),
        );
        let d = h.ok(
            "manage_assets",
            json!({"action": "delete", "path": "Assets/Art2"}),
        );
        assert_eq!(d, json!({"path": "Assets/Art2"}));
        assert_eq!(
            h.err(
                "manage_assets",
                json!({"action": "delete", "path": "Assets/Art2"})
            ),
            "ASSET_NOT_FOUND"
        );
        assert_eq!(
            h.err(
                "manage_assets",
                json!({"action": "move", "path": "Assets/Art", "new_path": "Packages/x"})
            ),
            "ASSET_PATH_INVALID"
        );
    }

    #[test]
    fn editor_import_reads_real_files_and_importer_settings() {
        let mut h = Harness::new();
        let src = h.dir.path().join("Mover.cs");
        std::fs::write(
            &src,
            "public class Mover : UnityEngine.MonoBehaviour { public float speed = 3f; }",
        )
        .unwrap();
        let inv = h.call(
            "manage_assets",
            json!({"action": "import", "path": "Assets/Scripts", "source": src.to_str().unwrap()}),
        );
        assert!(inv.reload.is_some());
        h.ok(
            "manage_components",
            json!({"action": "add", "path": "Ground", "type": "Mover"}),
        );
        assert_eq!(
            h.err(
                "manage_assets",
                json!({"action": "import", "path": "Assets/x.png", "source": "/no/such/file.png"})
            ),
            "ASSET_SOURCE_NOT_FOUND"
        );
        let g = h.ok(
            "manage_asset_import",
            json!({"action": "get", "path": "Assets/Textures/Grass.png"}),
        );
        assert_eq!(g["importer_type"], "TextureImporter");
        assert_eq!(g["properties"]["maxTextureSize"], 2048);
        h.ok("manage_asset_import", json!({"action": "set", "path": "Assets/Textures/Grass.png", "property": "texturetype", "value": "sprite"}));
        assert_eq!(h.ok("manage_asset_import", json!({"action": "get", "path": "Assets/Textures/Grass.png", "property": "textureType"}))["value"], json!({"value": 2, "name": "Sprite"}));
        assert_eq!(h.err("manage_asset_import", json!({"action": "set", "path": "Assets/Textures/Grass.png", "property": "maxTextureSize", "value": 1000})), "INVALID_PARAM");
        assert_eq!(h.err("manage_asset_import", json!({"action": "set", "path": "Assets/Textures/Grass.png", "property": "bogus", "value": 1})), "IMPORTER_PROPERTY_NOT_FOUND");
        assert_eq!(
            h.ok("reserialize", json!({"paths": ["Assets/Textures"]})),
            json!({"paths": ["Assets/Textures"]})
        );
        assert_eq!(
            h.err("reserialize", json!({"paths": ["Assets/Nope"]})),
            "ASSET_NOT_FOUND"
        );
        let d = h.ok("detect_assets", json!({}));
        let ids: Vec<&str> = d["detected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "odin_inspector",
                "odin_validator",
                "odin_serializer",
                "dotween",
                "dotween_pro"
            ]
        );
        assert_eq!(
            d["detected"][3],
            json!({"id": "dotween", "installed": false, "path": null})
        );
        h.ok(
            "manage_assets",
            json!({"action": "mkdir", "path": "Assets/Plugins/Demigiant/DOTween"}),
        );
        let d = h.ok("detect_assets", json!({}));
        assert_eq!(d["detected"][3]["path"], "Assets/Plugins/Demigiant/DOTween");
        assert_eq!(
            h.err(
                "detect_assets",
                json!({"project_path": "/nonexistent-hera-sim/Other"})
            ),
            "PROJECT_NOT_FOUND"
        );
    }

    #[test]
    fn editor_refresh_compile_sets_compiling_until_reload() {
        let mut h = Harness::new();
        let inv = h.call("refresh_unity", json!({"compile": "request"}));
        assert!(inv.reload.unwrap().compile);
        assert_eq!(h.ed.editor_state(), "compiling");
        h.reload();
        assert_eq!(h.ed.editor_state(), "ready");
        h.ok("manage_editor", json!({"action": "play"}));
        assert_eq!(
            h.err("refresh_unity", json!({})),
            "PLAYMODE_REFRESH_BLOCKED"
        );
        h.ok("refresh_unity", json!({"force": true}));
    }
}
