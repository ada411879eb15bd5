//! The project's asset tree (`Assets/…`), keyed by path, each entry with a GUID and a payload.
//!
//! Payloads make operations consistent without side tables: moving a scene moves its saved
//! content, deleting a prefab deletes its tree. Cross-asset and scene references are stored as
//! asset paths (what callers pass and see); [`rewrite_refs`] fixes them up after a move.

use super::args::Fail;
use super::world::Node;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct ScriptInfo {
    pub class: String,
    pub namespace: String,
    /// `MonoBehaviour`, `ScriptableObject`, `Editor`, or a test fixture marker.
    pub base: String,
    /// Serialized public fields with their defaults.
    pub fields: Map<String, Value>,
    pub methods: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AssetKind {
    Folder,
    Scene(Vec<Node>),
    Prefab(Node),
    Material {
        shader: String,
        props: Map<String, Value>,
    },
    Script(ScriptInfo),
    /// A shader source file: its `Shader "<name>"` and its property list (the JSON shape of
    /// `shaders::ShaderDef::properties`).
    Shader {
        name: String,
        properties: Value,
    },
    /// Everything else: a Unity type name plus a JSON body owned by the tool that edits it
    /// (AnimationClip, AnimatorController, TimelineAsset, ScriptableObject, Texture2D, …).
    Data {
        type_name: String,
        body: Value,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    pub guid: String,
    pub kind: AssetKind,
    pub importer: Map<String, Value>,
    pub labels: Vec<String>,
}

impl Asset {
    pub fn type_name(&self) -> String {
        match &self.kind {
            AssetKind::Folder => "DefaultAsset".into(),
            AssetKind::Scene(_) => "SceneAsset".into(),
            AssetKind::Prefab(_) => "GameObject".into(),
            AssetKind::Material { .. } => "Material".into(),
            AssetKind::Script(_) => "MonoScript".into(),
            AssetKind::Shader { .. } => "Shader".into(),
            AssetKind::Data { type_name, .. } => type_name.clone(),
        }
    }
    pub fn is_folder(&self) -> bool {
        matches!(self.kind, AssetKind::Folder)
    }
    /// Whether a `t:<word>` search term selects this asset (Unity's aliases included).
    pub fn matches_type(&self, word: &str) -> bool {
        let w = word.to_ascii_lowercase();
        let t = self.type_name().to_ascii_lowercase();
        if t == w {
            return true;
        }
        match (&self.kind, w.as_str()) {
            (AssetKind::Prefab(_), "prefab") => true,
            (AssetKind::Scene(_), "scene") => true,
            (AssetKind::Folder, "folder") => true,
            (AssetKind::Script(_), "script") => true,
            (AssetKind::Data { type_name, .. }, "texture") => type_name == "Texture2D",
            (AssetKind::Data { type_name, .. }, "animation") => type_name == "AnimationClip",
            (AssetKind::Data { type_name, .. }, "scriptableobject") => !matches!(
                type_name.as_str(),
                "Texture2D" | "AudioClip" | "Mesh" | "TextAsset" | "AnimationClip"
            ),
            _ => false,
        }
    }
}

pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// File name without extension, as the Project window shows it.
pub fn display_name(path: &str) -> String {
    let f = file_name(path);
    match f.rfind('.') {
        Some(i) if i > 0 => f[..i].to_string(),
        _ => f.to_string(),
    }
}

pub fn parent_of(path: &str) -> Option<&str> {
    path.rfind('/').map(|i| &path[..i])
}

/// Importer settings a fresh asset of this path gets.
pub fn default_importer(path: &str) -> Map<String, Value> {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    let v = match ext.as_str() {
        "png" | "jpg" | "jpeg" | "tga" | "psd" | "exr" => json!({
            "importer": "TextureImporter", "textureType": "Default", "sRGBTexture": true,
            "mipmapEnabled": true, "maxTextureSize": 2048, "filterMode": "Bilinear",
            "wrapMode": "Repeat", "textureCompression": "Compressed", "isReadable": false,
            "spriteImportMode": "None"}),
        "fbx" | "obj" | "blend" => json!({
            "importer": "ModelImporter", "globalScale": 1.0, "importAnimation": true,
            "importBlendShapes": true, "meshCompression": "Off", "isReadable": false,
            "generateSecondaryUV": false, "materialImportMode": "ImportViaMaterialDescription"}),
        "wav" | "mp3" | "ogg" | "aif" => json!({
            "importer": "AudioImporter", "forceToMono": false, "loadInBackground": false,
            "preloadAudioData": true, "loadType": "DecompressOnLoad", "compressionFormat": "Vorbis",
            "quality": 0.7}),
        "cs" => json!({"importer": "MonoImporter", "executionOrder": 0}),
        "txt" | "json" | "xml" | "csv" | "bytes" | "html" | "htm" | "yaml" | "fnt" => {
            json!({"importer": "TextScriptImporter"})
        }
        "shader" => json!({"importer": "ShaderImporter"}),
        "unity" | "prefab" | "mat" | "asset" | "anim" | "controller" | "playable" => {
            json!({"importer": "NativeFormatImporter"})
        }
        _ => json!({"importer": "DefaultImporter"}),
    };
    let mut m = match v {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    m.insert("userData".into(), json!(""));
    m.insert("assetBundleName".into(), json!(""));
    m
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssetDb {
    pub entries: BTreeMap<String, Asset>,
}

impl AssetDb {
    pub fn new() -> AssetDb {
        let mut db = AssetDb::default();
        db.put("Assets", AssetKind::Folder);
        db
    }

    pub fn get(&self, path: &str) -> Option<&Asset> {
        self.entries.get(path)
    }
    pub fn get_mut(&mut self, path: &str) -> Option<&mut Asset> {
        self.entries.get_mut(path)
    }
    pub fn contains(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }
    pub fn by_guid(&self, guid: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(_, a)| a.guid.eq_ignore_ascii_case(guid))
            .map(|(p, _)| p.as_str())
    }

    /// Resolve a path or a handle (`guid:<hex>` or a bare 32-hex GUID) to an existing path.
    pub fn resolve(&self, path_or_handle: &str) -> Option<String> {
        let t = path_or_handle.trim().replace('\\', "/");
        let t = t.trim_end_matches('/');
        if self.entries.contains_key(t) {
            return Some(t.to_string());
        }
        let guid = t.strip_prefix("guid:").unwrap_or(t);
        if guid.len() == 32 && guid.chars().all(|c| c.is_ascii_hexdigit()) {
            return self.by_guid(guid).map(str::to_string);
        }
        None
    }

    /// Insert (or replace the payload of) an entry, creating missing parent folders.
    /// Returns the entry's GUID.
    pub fn put(&mut self, path: &str, kind: AssetKind) -> String {
        if let Some(parent) = parent_of(path)
            && !self.entries.contains_key(parent)
        {
            self.put(parent, AssetKind::Folder);
        }
        if let Some(existing) = self.entries.get_mut(path) {
            existing.kind = kind;
            return existing.guid.clone();
        }
        let guid = super::file_bus::hex32();
        self.entries.insert(
            path.to_string(),
            Asset {
                guid: guid.clone(),
                kind,
                importer: default_importer(path),
                labels: Vec::new(),
            },
        );
        guid
    }

    /// `path` and everything below it.
    pub fn subtree(&self, path: &str) -> Vec<String> {
        let prefix = format!("{path}/");
        self.entries
            .keys()
            .filter(|k| k.as_str() == path || k.starts_with(&prefix))
            .cloned()
            .collect()
    }

    pub fn remove(&mut self, path: &str) -> Vec<String> {
        let doomed = self.subtree(path);
        for d in &doomed {
            self.entries.remove(d);
        }
        doomed
    }

    /// Move a subtree; GUIDs are kept (that is what makes a move different from copy+delete).
    pub fn move_tree(&mut self, from: &str, to: &str) -> Vec<(String, String)> {
        let moves: Vec<(String, String)> = self
            .subtree(from)
            .into_iter()
            .map(|p| {
                let tail = &p[from.len()..];
                (p.clone(), format!("{to}{tail}"))
            })
            .collect();
        if let Some(parent) = parent_of(to)
            && !self.entries.contains_key(parent)
        {
            self.put(parent, AssetKind::Folder);
        }
        for (old, new) in &moves {
            if let Some(a) = self.entries.remove(old) {
                self.entries.insert(new.clone(), a);
            }
        }
        moves
    }

    /// Copy a subtree with fresh GUIDs.
    pub fn copy_tree(&mut self, from: &str, to: &str) -> Vec<String> {
        let copies: Vec<(String, Asset)> = self
            .subtree(from)
            .into_iter()
            .filter_map(|p| {
                let a = self.entries.get(&p)?.clone();
                Some((format!("{to}{}", &p[from.len()..]), a))
            })
            .collect();
        if let Some(parent) = parent_of(to)
            && !self.entries.contains_key(parent)
        {
            self.put(parent, AssetKind::Folder);
        }
        let mut out = Vec::new();
        for (path, mut a) in copies {
            a.guid = super::file_bus::hex32();
            out.push(path.clone());
            self.entries.insert(path, a);
        }
        out
    }

    pub fn scripts(&self) -> impl Iterator<Item = (&String, &ScriptInfo)> {
        self.entries.iter().filter_map(|(p, a)| match &a.kind {
            AssetKind::Script(s) => Some((p, s)),
            _ => None,
        })
    }

    /// A script class by name (short or namespace-qualified, case-insensitive).
    pub fn script_class(&self, name: &str) -> Option<(&String, &ScriptInfo)> {
        self.scripts().find(|(_, s)| {
            s.class.eq_ignore_ascii_case(name)
                || (!s.namespace.is_empty()
                    && format!("{}.{}", s.namespace, s.class).eq_ignore_ascii_case(name))
        })
    }
}

/// Validate a writable project path: `Assets` or below, `/` separators, no `..`, no blanks.
pub fn writable_path(name: &str, raw: &str) -> Result<String, Fail> {
    let p = raw.trim().replace('\\', "/");
    let p = p.trim_end_matches('/').to_string();
    if p != "Assets" && !p.starts_with("Assets/") {
        return Err(Fail::new(
            "ASSET_PATH_INVALID",
            format!("'{raw}' is not inside Assets/; project assets must live under Assets/."),
        )
        .with_data(json!({ "param": name, "path": raw })));
    }
    if p.split('/').any(|s| s.is_empty() || s == ".." || s == ".") {
        return Err(Fail::new(
            "ASSET_PATH_INVALID",
            format!("'{raw}' has an empty, '.' or '..' segment."),
        )
        .with_data(json!({ "param": name, "path": raw })));
    }
    Ok(p)
}

/// Require a file extension (case-insensitive), e.g. `.mat` for materials.
pub fn require_ext(name: &str, path: &str, ext: &str) -> Result<(), Fail> {
    if path.to_ascii_lowercase().ends_with(ext) {
        Ok(())
    } else {
        Err(Fail::invalid(
            name,
            format!("'{path}' must end with '{ext}'"),
        ))
    }
}

/// Replace asset-path references after a move: every string equal to `old`, or below it, is
/// rewritten to the same place under `new`. Returns how many strings changed.
pub fn rewrite_refs(v: &mut Value, old: &str, new: &str) -> usize {
    match v {
        Value::String(s) => {
            if s == old {
                *s = new.to_string();
                1
            } else if s.starts_with(old) && s[old.len()..].starts_with('/') {
                *s = format!("{new}{}", &s[old.len()..]);
                1
            } else {
                0
            }
        }
        Value::Array(items) => items.iter_mut().map(|i| rewrite_refs(i, old, new)).sum(),
        Value::Object(map) => map.values_mut().map(|i| rewrite_refs(i, old, new)).sum(),
        _ => 0,
    }
}

/// Every string in `v` that names an existing asset (a dependency).
pub fn referenced_paths(v: &Value, db: &AssetDb, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.starts_with("Assets/") && db.contains(s) && !out.contains(s) => {
            out.push(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|i| referenced_paths(i, db, out)),
        Value::Object(map) => map.values().for_each(|i| referenced_paths(i, db, out)),
        _ => {}
    }
}

/// Apply [`rewrite_refs`] to a saved tree.
pub fn rewrite_node_refs(node: &mut Node, old: &str, new: &str) -> usize {
    let mut n = 0;
    for (_, _, props) in &mut node.components {
        for v in props.values_mut() {
            n += rewrite_refs(v, old, new);
        }
    }
    for c in &mut node.children {
        n += rewrite_node_refs(c, old, new);
    }
    n
}

pub fn node_refs(node: &Node, db: &AssetDb, out: &mut Vec<String>) {
    for (_, _, props) in &node.components {
        for v in props.values() {
            referenced_paths(v, db, out);
        }
    }
    for c in &node.children {
        node_refs(c, db, out);
    }
}

/// Read a C# source file's first class declaration and its simple public fields. A light scan,
/// not a compiler: enough to expose imported MonoBehaviours as component types.
pub fn scan_script(path: &str, source: &str) -> ScriptInfo {
    let mut info = ScriptInfo {
        class: display_name(path),
        namespace: String::new(),
        base: "MonoBehaviour".into(),
        fields: Map::new(),
        methods: Vec::new(),
    };
    let mut found_class = false;
    for line in source.lines().take(5_000) {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("namespace ") {
            info.namespace = rest.trim_end_matches(['{', ';', ' ']).trim().to_string();
        }
        if let Some(idx) = l.find("class ") {
            let after = &l[idx + 6..];
            let mut parts = after.split(':');
            let name = parts.next().unwrap_or("").trim();
            let name: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !found_class {
                found_class = true;
                info.class = name;
                if let Some(base) = parts.next() {
                    let b: String = base
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                        .collect();
                    if !b.is_empty() {
                        info.base = b.rsplit('.').next().unwrap_or(&b).to_string();
                    }
                }
            }
        }
        if let Some(decl) = l.strip_prefix("public ") {
            if decl.contains('(') {
                if let Some(name) = decl
                    .split('(')
                    .next()
                    .and_then(|h| h.split_whitespace().last())
                    && !name.is_empty()
                    && name != info.class
                {
                    info.methods.push(name.to_string());
                }
            } else if let Some(field) = parse_field(decl) {
                info.fields.insert(field.0, field.1);
            }
        }
    }
    info
}

fn parse_field(decl: &str) -> Option<(String, Value)> {
    let decl = decl.trim_end_matches(';').trim();
    let (head, init) = match decl.split_once('=') {
        Some((h, i)) => (h.trim(), Some(i.trim())),
        None => (decl, None),
    };
    let mut words = head.split_whitespace();
    let ty = words.next()?;
    let name = words.next()?;
    if words.next().is_some() || ["class", "static", "const", "void"].contains(&ty) {
        return None;
    }
    let default = match ty {
        "float" | "double" => json!(
            init.and_then(|i| i.trim_end_matches(['f', 'F', 'd']).parse::<f64>().ok())
                .unwrap_or(0.0)
        ),
        "int" | "long" => json!(init.and_then(|i| i.parse::<i64>().ok()).unwrap_or(0)),
        "bool" => json!(init == Some("true")),
        "string" => json!(
            init.map(|i| i.trim_matches('"').to_string())
                .unwrap_or_default()
        ),
        _ => Value::Null,
    };
    Some((name.to_string(), default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_asset_tree_moves_keep_guids_and_copies_do_not() {
        let mut db = AssetDb::new();
        let g = db.put("Assets/A/B/x.mat", AssetKind::Folder);
        assert!(db.contains("Assets/A") && db.contains("Assets/A/B"));
        db.move_tree("Assets/A", "Assets/C");
        assert_eq!(db.get("Assets/C/B/x.mat").unwrap().guid, g);
        assert!(!db.contains("Assets/A"));
        let copies = db.copy_tree("Assets/C", "Assets/D");
        assert_eq!(copies.len(), 3);
        assert_ne!(db.get("Assets/D/B/x.mat").unwrap().guid, g);
        assert_eq!(
            db.resolve(&format!("guid:{g}")).as_deref(),
            Some("Assets/C/B/x.mat")
        );
        assert_eq!(db.remove("Assets/D").len(), 3);
    }

    #[test]
    fn editor_paths_are_validated_and_refs_rewritten() {
        assert!(writable_path("path", "Packages/x").is_err());
        assert!(writable_path("path", "Assets/../x").is_err());
        assert_eq!(
            writable_path("path", "Assets\\Foo\\").unwrap(),
            "Assets/Foo"
        );
        let mut v = json!({"a": "Assets/M/x.mat", "b": ["Assets/Mx.mat", "Assets/M"]});
        assert_eq!(rewrite_refs(&mut v, "Assets/M", "Assets/N"), 2);
        assert_eq!(
            v,
            json!({"a": "Assets/N/x.mat", "b": ["Assets/Mx.mat", "Assets/N"]})
        );
    }

    #[test]
    fn editor_script_scan_reads_class_and_fields() {
        let src = "using UnityEngine;\nnamespace Game {\npublic class Mover : MonoBehaviour {\n  public float speed = 2.5f;\n  public int lives = 3;\n  public void Jump() {}\n}\n}";
        let s = scan_script("Assets/Scripts/Mover.cs", src);
        assert_eq!(s.class, "Mover");
        assert_eq!(s.namespace, "Game");
        assert_eq!(s.base, "MonoBehaviour");
        assert_eq!(s.fields["speed"], json!(2.5));
        assert_eq!(s.fields["lives"], json!(3));
        assert_eq!(s.methods, vec!["Jump"]);
    }
}
