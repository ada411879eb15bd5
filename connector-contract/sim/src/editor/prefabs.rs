//! `manage_prefab`: prefab assets and their scene instances.
//!
//! Every change to a prefab asset (add/remove component, apply) is pushed to its instances with a
//! three-way merge: a value the instance still shares with the old prefab takes the new prefab's
//! value, an overridden value stays. `revert` is the same merge with every value treated as
//! shared. The root's name, position and rotation are default overrides and never synced.

use super::args::{Args, Fail};
use super::asset_db::{self, AssetKind};
use super::components::resolve_type;
use super::seed::link_instance;
use super::world::{Node, PrefabLink, World};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

fn strip_links(n: &mut Node) {
    n.prefab = None;
    for c in &mut n.children {
        strip_links(c);
    }
}

fn prefab_path(ed: &Editor, raw: &str) -> Result<String, Fail> {
    let path = ed.assets.resolve(raw).ok_or_else(|| {
        Fail::new("ASSET_NOT_FOUND", format!("No asset at '{raw}'."))
            .with_data(json!({"path": raw}))
    })?;
    match ed.assets.get(&path).map(|a| &a.kind) {
        Some(AssetKind::Prefab(_)) => Ok(path),
        _ => Err(
            Fail::new("ASSET_TYPE_MISMATCH", format!("'{path}' is not a prefab."))
                .with_data(json!({"path": path, "expected": "Prefab"})),
        ),
    }
}

fn prefab_node(ed: &Editor, path: &str) -> Option<Node> {
    match ed.assets.get(path).map(|a| &a.kind) {
        Some(AssetKind::Prefab(n)) => Some(n.clone()),
        _ => None,
    }
}

/// The instance root for `target`, with its prefab's path and guid.
fn instance(ed: &Editor, a: Args) -> Result<(i64, String, String), Fail> {
    let t = a.req_str("target")?;
    let id = ed.world.resolve(t).ok_or_else(|| {
        Fail::new("TARGET_NOT_FOUND", format!("No GameObject matches '{t}'."))
            .with_data(json!({"target": t}))
    })?;
    let root = ed.world.prefab_instance_root(id).ok_or_else(|| {
        Fail::new(
            "PREFAB_NOT_INSTANCE",
            format!("{} is not part of a prefab instance.", ed.world.path_of(id)),
        )
    })?;
    let guid = ed
        .world
        .get(root)
        .and_then(|o| o.prefab.as_ref())
        .map(|l| l.prefab_guid.clone())
        .unwrap_or_default();
    let path = ed
        .assets
        .by_guid(&guid)
        .map(str::to_string)
        .ok_or_else(|| {
            Fail::new(
                "PREFAB_ASSET_MISSING",
                format!(
                    "The prefab asset of {} no longer exists (guid {guid}).",
                    ed.world.path_of(root)
                ),
            )
        })?;
    Ok((root, path, guid))
}

/// Three-way merge of one instance object (see module docs). `old == None` forces every value.
fn sync(
    w: &mut World,
    obj: i64,
    old: Option<&Node>,
    new: &Node,
    is_root: bool,
    guid: &str,
    rel: &str,
) {
    let Some(o) = w.get_mut(obj) else { return };
    macro_rules! field {
        ($f:ident) => {
            if old.is_none_or(|od| o.$f == od.$f) {
                o.$f = new.$f.clone();
            }
        };
    }
    if !is_root {
        field!(name);
        field!(position);
        field!(rotation);
    }
    field!(active);
    field!(tag);
    field!(layer);
    field!(is_static);
    field!(scale);
    // Components, matched by (type, occurrence).
    let occurrence = |list: &[(String, Option<bool>, serde_json::Map<String, Value>)], i: usize| {
        list[..i].iter().filter(|c| c.0 == list[i].0).count()
    };
    let mut keep_ids = Vec::new();
    for (i, (ty, en, props)) in new.components.iter().enumerate() {
        let k = occurrence(&new.components, i);
        let old_comp = old.and_then(|od| {
            od.components
                .iter()
                .enumerate()
                .find(|(j, c)| c.0 == *ty && occurrence(&od.components, *j) == k)
                .map(|(_, c)| c)
        });
        let pos = o
            .components
            .iter()
            .enumerate()
            .filter(|(_, c)| c.type_name == *ty)
            .nth(k)
            .map(|(j, _)| j);
        match pos {
            Some(j) => {
                let c = &mut o.components[j];
                for (key, v) in props {
                    let shared = match old_comp {
                        None => true,
                        Some(oc) => c.props.get(key) == oc.2.get(key),
                    };
                    if shared {
                        c.props.insert(key.clone(), v.clone());
                    }
                }
                if old_comp.is_none_or(|oc| c.enabled == oc.1) {
                    c.enabled = *en;
                }
                keep_ids.push(c.id);
            }
            None if old.is_none() || old_comp.is_none() => {
                keep_ids.push(-1 - i as i64); // placeholder; the real id is assigned below
            }
            None => {}
        }
    }
    // Remove components the prefab no longer has (or, when forced, that the instance added).
    let removable: Vec<i64> = o
        .components
        .iter()
        .filter(|c| {
            c.type_name != "Transform"
                && c.type_name != "RectTransform"
                && !keep_ids.contains(&c.id)
        })
        .filter(|c| match old {
            None => true,
            Some(od) => od.components.iter().any(|oc| oc.0 == c.type_name),
        })
        .map(|c| c.id)
        .collect();
    o.components.retain(|c| !removable.contains(&c.id));
    // Add components new to the prefab.
    let to_add: Vec<(String, Option<bool>, serde_json::Map<String, Value>)> = new
        .components
        .iter()
        .enumerate()
        .filter(|(i, _)| keep_ids.contains(&(-1 - *i as i64)))
        .map(|(_, c)| c.clone())
        .collect();
    for (ty, en, props) in to_add {
        w.add_component(obj, &ty, en, props);
    }
    // Children, matched by prefab-relative path.
    let child_rel = |name: &str| {
        if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}/{name}")
        }
    };
    let kids: Vec<i64> = w.get(obj).map(|o| o.children.clone()).unwrap_or_default();
    let link_of = |w: &World, id: i64| {
        w.get(id)
            .and_then(|c| c.prefab.as_ref())
            .map(|l| l.relative_path.clone())
    };
    for nc in &new.children {
        let r = child_rel(&nc.name);
        let old_child = old.and_then(|od| od.children.iter().find(|c| c.name == nc.name));
        match kids
            .iter()
            .find(|k| link_of(w, **k).as_deref() == Some(r.as_str()))
        {
            Some(k) => sync(
                w,
                *k,
                if old.is_some() { old_child } else { None },
                nc,
                false,
                guid,
                &r,
            ),
            None if old.is_none() || old_child.is_none() => {
                let mut linked = nc.clone();
                link_instance(&mut linked, guid, &r);
                let scene = w.get(obj).map(|o| o.scene).unwrap_or(0);
                w.instantiate(&linked, scene, Some(obj));
            }
            None => {}
        }
    }
    for k in kids {
        let doomed = match link_of(w, k) {
            Some(r) => {
                let in_new = new.children.iter().any(|c| child_rel(&c.name) == r);
                let in_old =
                    old.is_none_or(|od| od.children.iter().any(|c| child_rel(&c.name) == r));
                !in_new && in_old
            }
            None => old.is_none(),
        };
        if doomed {
            w.destroy(k);
        }
    }
    w.touch(obj);
}

/// Replace a prefab's content and merge the change into every loaded instance.
fn update_prefab(ed: &mut Editor, path: &str, guid: &str, new: Node, skip: Option<i64>) -> usize {
    let old = prefab_node(ed, path);
    ed.assets.put(path, AssetKind::Prefab(new.clone()));
    let roots: Vec<i64> = ed
        .world
        .instances_of(guid)
        .into_iter()
        .filter(|r| Some(*r) != skip)
        .collect();
    for r in &roots {
        sync(&mut ed.world, *r, old.as_ref(), &new, true, guid, "");
    }
    roots.len()
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "create" => create(ed, a),
        "instantiate" => {
            let path = prefab_path(ed, a.req_str("path")?)?;
            let parent = match a.text("parent")? {
                None => None,
                Some(p) => Some(ed.world.resolve(&p).ok_or_else(|| {
                    Fail::new(
                        "TARGET_NOT_FOUND",
                        format!("No GameObject matches parent '{p}'."),
                    )
                    .with_data(json!({"parent": p}))
                })?),
            };
            if parent.is_none() && !ed.world.active().is_some_and(|s| s.loaded) {
                return Err(Fail::new(
                    "SCENE_NOT_LOADED",
                    "There is no loaded active scene to instantiate into.",
                ));
            }
            let guid = ed
                .assets
                .get(&path)
                .map(|x| x.guid.clone())
                .unwrap_or_default();
            let mut node = prefab_node(ed, &path).unwrap_or_else(|| Node::new("Prefab"));
            link_instance(&mut node, &guid, "");
            let id = ed.world.instantiate(&node, ed.world.active_scene, parent);
            let name = ed.world.get(id).map(|o| o.name.clone()).unwrap_or_default();
            ok(
                format!("Instantiated {}", asset_db::display_name(&path)),
                json!({"instance_id": id, "name": name, "path": hierarchy_path(&ed.world, id)}),
            )
        }
        "add_component" | "remove_component" => {
            edit_component(ed, a, action == Some("add_component"))
        }
        "list_overrides" => list_overrides(ed, a),
        "apply" => {
            let (root, path, guid) = instance(ed, a)?;
            let mut node = ed
                .world
                .capture(root)
                .unwrap_or_else(|| Node::new("Prefab"));
            strip_links(&mut node);
            // The root's name and pose are default overrides; the asset keeps its own.
            if let Some(old) = prefab_node(ed, &path) {
                node.name = old.name;
                node.position = old.position;
                node.rotation = old.rotation;
            }
            update_prefab(ed, &path, &guid, node, Some(root));
            // Relink the applied instance so renamed children map onto the new asset.
            relink(&mut ed.world, root, &guid, "");
            let root_path = hierarchy_path(&ed.world, root);
            let has = overrides(ed, root, &path, false).has;
            ok(
                format!("Applied {root_path} overrides to {path}."),
                json!({"instance_root": root_path, "asset_path": path, "has_overrides": has}),
            )
        }
        "revert" => {
            let (root, path, guid) = instance(ed, a)?;
            let node = prefab_node(ed, &path).unwrap_or_else(|| Node::new("Prefab"));
            sync(&mut ed.world, root, None, &node, true, &guid, "");
            let root_path = hierarchy_path(&ed.world, root);
            let has = overrides(ed, root, &path, false).has;
            ok(
                format!("Reverted {root_path} to {path}."),
                json!({"instance_root": root_path, "asset_path": path, "has_overrides": has}),
            )
        }
        "unpack" => {
            let (root, _, _) = instance(ed, a)?;
            let mode = a.req_str("mode")?.to_ascii_lowercase();
            if mode != "outermost" && mode != "completely" {
                return Err(Fail::invalid("mode", "expected outermost or completely"));
            }
            // The simulator has no nested prefabs, so no instance root remains in either mode.
            for id in ed.world.subtree(root) {
                if let Some(o) = ed.world.get_mut(id) {
                    o.prefab = None;
                }
            }
            ed.world.touch(root);
            let remaining: Vec<String> = Vec::new();
            let root_path = hierarchy_path(&ed.world, root);
            ok(
                format!(
                    "Unpacked {root_path} ({mode}); {} nested prefab instance root(s) remain.",
                    remaining.len()
                ),
                json!({"instance_root": root_path, "mode": mode, "remaining_instance_roots": remaining}),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

/// A GameObject's hierarchy path as the handler reports it (`/Root/Child`).
fn hierarchy_path(w: &World, id: i64) -> String {
    format!("/{}", w.path_of(id))
}

fn relink(w: &mut World, id: i64, guid: &str, rel: &str) {
    let kids = w.get(id).map(|o| o.children.clone()).unwrap_or_default();
    if let Some(o) = w.get_mut(id) {
        o.prefab = Some(PrefabLink {
            prefab_guid: guid.into(),
            relative_path: rel.into(),
        });
    }
    for k in kids {
        let name = w.get(k).map(|o| o.name.clone()).unwrap_or_default();
        let r = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        relink(w, k, guid, &r);
    }
}

fn create(ed: &mut Editor, a: Args) -> Handled {
    let path = asset_db::writable_path("path", a.req_str("path")?)?;
    asset_db::require_ext("path", &path, ".prefab")?;
    if ed.assets.contains(&path) {
        return Err(
            Fail::new("ASSET_ALREADY_EXISTS", format!("'{path}' already exists."))
                .with_data(json!({"path": path})),
        );
    }
    let id = match (a.i64("instance_id")?, a.str("source")?) {
        (Some(id), _) => ed.world.get(id).map(|_| id).ok_or_else(|| {
            Fail::new(
                "TARGET_NOT_FOUND",
                format!("No GameObject with instance id {id}."),
            )
            .with_data(json!({"instance_id": id}))
        })?,
        (None, Some(s)) => ed.world.resolve(s).ok_or_else(|| {
            Fail::new("TARGET_NOT_FOUND", format!("No GameObject matches '{s}'."))
                .with_data(json!({"source": s}))
        })?,
        (None, None) => {
            return Err(Fail::new(
                "MISSING_ARGUMENT",
                "Give the scene object as source or instance_id.",
            )
            .with_data(
                json!({"path": "/source", "expected": "source or instance_id", "actual": null}),
            ));
        }
    };
    let mut node = ed.world.capture(id).unwrap_or_else(|| Node::new("Prefab"));
    strip_links(&mut node);
    node.position = [0.0; 3];
    node.rotation = [0.0; 3];
    let root = node.name.clone();
    let components: Vec<String> = node.components.iter().map(|c| c.0.clone()).collect();
    let guid = ed.assets.put(&path, AssetKind::Prefab(node));
    relink(&mut ed.world, id, &guid, "");
    ed.world.touch(id);
    ok(
        format!("Saved {} as prefab at {path}", ed.world.path_of(id)),
        json!({"path": path, "root": root, "components": components, "asset_type": "Regular"}),
    )
}

fn edit_component(ed: &mut Editor, a: Args, add: bool) -> Handled {
    let path = prefab_path(ed, a.req_str("path")?)?;
    let guid = ed
        .assets
        .get(&path)
        .map(|x| x.guid.clone())
        .unwrap_or_default();
    let ty_raw = a.req_str("component")?;
    let child = a.str("child")?.unwrap_or("").trim_matches('/').to_string();
    let mut node = prefab_node(ed, &path).unwrap_or_else(|| Node::new("Prefab"));
    let info = resolve_type(ed, ty_raw)?;
    let edited = if child.is_empty() {
        format!("/{}", node.name)
    } else {
        format!("/{}/{child}", node.name)
    };
    let components: Vec<String>;
    {
        let target = node.at_mut(&child).ok_or_else(|| {
            Fail::new(
                "PREFAB_CHILD_NOT_FOUND",
                format!("{path} has no child '{child}'."),
            )
            .with_data(json!({"child": child}))
        })?;
        if add {
            if info.name == "Transform"
                || (info.single && target.components.iter().any(|c| c.0 == info.name))
            {
                return Err(Fail::new(
                    "COMPONENT_ALREADY_EXISTS",
                    format!("That object in {path} already has a {}.", info.name),
                ));
            }
            target.components.push((
                info.name.clone(),
                info.behaviour.then_some(true),
                info.props.clone(),
            ));
        } else {
            if info.name == "Transform" || info.name == "RectTransform" {
                return Err(Fail::new(
                    "COMPONENT_REMOVE_FORBIDDEN",
                    format!("{} cannot be removed.", info.name),
                ));
            }
            let pos = target
                .components
                .iter()
                .position(|c| c.0 == info.name)
                .ok_or_else(|| {
                    Fail::new(
                        "COMPONENT_NOT_FOUND",
                        format!("That object in {path} has no {}.", info.name),
                    )
                })?;
            target.components.remove(pos);
        }
        components = target.components.iter().map(|c| c.0.clone()).collect();
    }
    update_prefab(ed, &path, &guid, node, None);
    ok(
        format!(
            "{} {} {} {edited}",
            if add { "Added" } else { "Removed" },
            info.name,
            if add { "to" } else { "from" }
        ),
        json!({"path": path, "root": edited, "component": info.name, "components": components}),
    )
}

/// An instance's differences from its prefab asset, in the handler's `list_overrides` lists.
struct Overrides {
    has: bool,
    object_overrides: Vec<Value>,
    added_components: Vec<Value>,
    removed_components: Vec<Value>,
    added_gameobjects: Vec<Value>,
    removed_gameobjects: Vec<Value>,
}

fn list_overrides(ed: &Editor, a: Args) -> Handled {
    let (root, path, _) = instance(ed, a)?;
    let include_default = a.flag("include_default")?;
    let o = overrides(ed, root, &path, include_default);
    let root_path = hierarchy_path(&ed.world, root);
    let out = ok(
        format!(
            "{root_path}: {} object override(s), {} added / {} removed component(s), {} added / {} removed GameObject(s).",
            o.object_overrides.len(),
            o.added_components.len(),
            o.removed_components.len(),
            o.added_gameobjects.len(),
            o.removed_gameobjects.len()
        ),
        json!({
            "instance_root": root_path, "asset_path": path, "asset_type": "Regular",
            "status": "Connected", "has_overrides": o.has, "include_default": include_default,
            "object_overrides": o.object_overrides, "added_components": o.added_components,
            "removed_components": o.removed_components, "added_gameobjects": o.added_gameobjects,
            "removed_gameobjects": o.removed_gameobjects,
        }),
    )?;
    if include_default {
        return Ok(out);
    }
    Ok(out.with_hint(
        "The root's name and pose (default overrides) are not listed; pass include_default: true to see them.",
    ))
}

fn overrides(ed: &Editor, root: i64, path: &str, include_default: bool) -> Overrides {
    let prefab = prefab_node(ed, path).unwrap_or_else(|| Node::new("Prefab"));
    let mut props = Vec::new();
    let mut added_components = Vec::new();
    let mut removed_components = Vec::new();
    let mut added_objects = Vec::new();
    let mut removed_objects = Vec::new();
    let w = &ed.world;
    for id in w.subtree(root) {
        let Some(o) = w.get(id) else { continue };
        let obj_path = w.path_of(id);
        let Some(link) = &o.prefab else {
            if w.get(o.parent.unwrap_or(0))
                .is_some_and(|p| p.prefab.is_some())
            {
                let sibling_index = o
                    .parent
                    .and_then(|p| w.get(p))
                    .and_then(|p| p.children.iter().position(|k| *k == id))
                    .unwrap_or(0);
                added_objects
                    .push(json!({"path": format!("/{obj_path}"), "sibling_index": sibling_index}));
            }
            continue;
        };
        let Some(pn) = prefab.at(&link.relative_path) else {
            continue;
        };
        let is_root = id == root;
        let mut diff = |property: &str, value: Value, prefab_value: Value, default: bool| {
            if value != prefab_value && (include_default || !default) {
                props.push(json!({"object": obj_path, "component": if property.starts_with("m_Local") { "Transform" } else { "GameObject" },
                    "property": property, "value": value, "prefab_value": prefab_value, "default_override": default}));
            }
        };
        diff("m_Name", json!(o.name), json!(pn.name), is_root);
        diff("m_IsActive", json!(o.active), json!(pn.active), false);
        diff("m_TagString", json!(o.tag), json!(pn.tag), false);
        diff("m_Layer", json!(o.layer), json!(pn.layer), false);
        diff(
            "m_LocalPosition",
            json!(o.position),
            json!(pn.position),
            is_root,
        );
        diff(
            "m_LocalEulerAnglesHint",
            json!(o.rotation),
            json!(pn.rotation),
            is_root,
        );
        diff("m_LocalScale", json!(o.scale), json!(pn.scale), false);
        for (i, c) in o.components.iter().enumerate() {
            let k = o.components[..i]
                .iter()
                .filter(|x| x.type_name == c.type_name)
                .count();
            match pn.components.iter().filter(|pc| pc.0 == c.type_name).nth(k) {
                Some(pc) => {
                    for (key, v) in &c.props {
                        if pc.2.get(key) != Some(v) {
                            props.push(json!({"object": obj_path, "component": c.type_name, "property": key,
                                "value": v, "prefab_value": pc.2.get(key), "default_override": false}));
                        }
                    }
                }
                None => added_components
                    .push(json!({"path": format!("/{obj_path}"), "type": c.type_name})),
            }
        }
        for (i, pc) in pn.components.iter().enumerate() {
            let k = pn.components[..i].iter().filter(|x| x.0 == pc.0).count();
            if o.components
                .iter()
                .filter(|c| c.type_name == pc.0)
                .nth(k)
                .is_none()
            {
                removed_components.push(json!({"path": format!("/{obj_path}"), "type": pc.0}));
            }
        }
        for pc in &pn.children {
            let rel = if link.relative_path.is_empty() {
                pc.name.clone()
            } else {
                format!("{}/{}", link.relative_path, pc.name)
            };
            let present = o.children.iter().any(|k| {
                w.get(*k)
                    .and_then(|c| c.prefab.as_ref())
                    .is_some_and(|l| l.relative_path == rel)
            });
            if !present {
                removed_objects
                    .push(json!({"parent_path": format!("/{obj_path}"), "name": pc.name}));
            }
        }
    }
    let has = !(props.iter().all(|p| p["default_override"] == true)
        && added_components.is_empty()
        && removed_components.is_empty()
        && added_objects.is_empty()
        && removed_objects.is_empty());
    // One entry per modified object (a component or the GameObject itself), as Unity lists them.
    let mut object_overrides: Vec<Value> = Vec::new();
    for p in &props {
        let item = json!({"path": format!("/{}", p["object"].as_str().unwrap_or("")), "type": p["component"]});
        if !object_overrides.contains(&item) {
            object_overrides.push(item);
        }
    }
    Overrides {
        has,
        object_overrides,
        added_components,
        removed_components,
        added_gameobjects: added_objects,
        removed_gameobjects: removed_objects,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_prefab_overrides_apply_revert() {
        let mut h = Harness::new();
        let lo = h.ok(
            "manage_prefab",
            json!({"action": "list_overrides", "target": "Player"}),
        );
        assert_eq!(lo["has_overrides"], false);
        let with_default = h.ok(
            "manage_prefab",
            json!({"action": "list_overrides", "target": "Player", "include_default": true}),
        );
        assert!(
            with_default["object_overrides"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o["type"] == "Transform")
        );
        h.ok("manage_components", json!({"action": "set", "path": "Player", "type": "Rigidbody", "property": "m_Mass", "value": 3}));
        h.ok(
            "manage_components",
            json!({"action": "add", "path": "Player", "type": "AudioSource"}),
        );
        let lo = h.ok(
            "manage_prefab",
            json!({"action": "list_overrides", "target": "Player"}),
        );
        assert_eq!(lo["has_overrides"], true);
        assert_eq!(lo["object_overrides"][0]["type"], "Rigidbody");
        assert_eq!(lo["added_components"][0]["type"], "AudioSource");

        // A second instance picks up applied changes.
        h.ok(
            "manage_prefab",
            json!({"action": "instantiate", "path": "Assets/Prefabs/Player.prefab"}),
        );
        h.ok(
            "manage_prefab",
            json!({"action": "apply", "target": "Player"}),
        );
        let second = h.ok(
            "find_gameobjects",
            json!({"name": "Player", "fields": "instance_id"}),
        )["results"][1]["instance_id"]
            .clone();
        assert!(
            h.ok(
                "manage_components",
                json!({"action": "list", "instance_id": second})
            )["components"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["type_short"] == "AudioSource")
        );
        assert_eq!(
            h.ok(
                "manage_prefab",
                json!({"action": "list_overrides", "target": "Player"})
            )["has_overrides"],
            false
        );

        // Prefab edits propagate; revert drops instance changes.
        h.ok("manage_prefab", json!({"action": "add_component", "path": "Assets/Prefabs/Player.prefab", "component": "BoxCollider", "child": "CameraTarget"}));
        assert!(
            h.ok(
                "manage_components",
                json!({"action": "list", "path": "Player/CameraTarget"})
            )["components"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["type_short"] == "BoxCollider")
        );
        h.ok("manage_components", json!({"action": "set", "path": "Player", "type": "Rigidbody", "property": "m_Mass", "value": 9}));
        h.ok(
            "manage_gameobject",
            json!({"action": "create", "name": "Extra", "parent": "Player"}),
        );
        h.ok(
            "manage_prefab",
            json!({"action": "revert", "target": "Player"}),
        );
        let mass = h.ok(
            "manage_components",
            json!({"action": "get", "path": "Player", "type": "Rigidbody", "property": "m_Mass"}),
        );
        assert_eq!(mass["value"], 3.0);
        assert_eq!(
            h.ok("find_gameobjects", json!({"name": "Extra"}))["total"],
            0
        );

        let u = h.ok(
            "manage_prefab",
            json!({"action": "unpack", "target": "Player", "mode": "completely"}),
        );
        assert_eq!(u["remaining_instance_roots"], json!([]));
        assert_eq!(
            h.err(
                "manage_prefab",
                json!({"action": "apply", "target": "Player"})
            ),
            "PREFAB_NOT_INSTANCE"
        );
    }

    #[test]
    fn editor_prefab_create_from_scene_object() {
        let mut h = Harness::new();
        h.ok(
            "manage_gameobject",
            json!({"action": "create", "name": "Crate", "primitive": "cube"}),
        );
        let c = h.ok(
            "manage_prefab",
            json!({"action": "create", "path": "Assets/Prefabs/Crate.prefab", "source": "Crate"}),
        );
        assert_eq!(c["root"], "Crate");
        assert_eq!(
            h.ok(
                "manage_prefab",
                json!({"action": "list_overrides", "target": "Crate"})
            )["has_overrides"],
            false
        );
        let inst = h.ok("manage_prefab", json!({"action": "instantiate", "path": "Assets/Prefabs/Crate.prefab", "parent": "Ground"}));
        assert_eq!(inst["path"], "/Ground/Crate");
        assert_eq!(
            h.err(
                "manage_prefab",
                json!({"action": "instantiate", "path": "Assets/Materials/Ground.mat"})
            ),
            "ASSET_TYPE_MISMATCH"
        );
    }
}
