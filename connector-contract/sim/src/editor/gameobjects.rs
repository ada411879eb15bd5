//! `manage_gameobject` (create, destroy, reparent, transform, …) and `find_gameobjects`.

use super::args::{self, Args, Fail, v3json};
use super::math::Quat;
use super::world::World;
use super::{Editor, Handled, InvokeContext, ok, seed};
use serde_json::{Value, json};

fn not_found(what: &str, param: &str) -> Fail {
    Fail::new(
        "TARGET_NOT_FOUND",
        format!("No GameObject matches '{what}' in the loaded scenes."),
    )
    .with_data(json!({"param": param, "value": what}))
}

/// Resolve the `instance_id` / `path` / `target` trio (the validator ensures at most one).
pub fn target(ed: &Editor, a: Args) -> Result<i64, Fail> {
    if let Some(id) = a.i64("instance_id")? {
        return (ed.world.get(id).is_some() && ed.world.is_loaded_object(id))
            .then_some(id)
            .ok_or_else(|| not_found(&id.to_string(), "instance_id"));
    }
    if let Some(p) = a.str("path")? {
        return ed.world.resolve(p).ok_or_else(|| not_found(p, "path"));
    }
    if let Some(t) = a.text("target")? {
        return ed.world.resolve(&t).ok_or_else(|| not_found(&t, "target"));
    }
    Err(Fail::new(
        "MISSING_PARAM",
        "Name the GameObject with instance_id, path or target.",
    )
    .with_data(json!({"expected": "instance_id, path or target"})))
}

/// Resolve an optional parent given as id or path (`oneOf(integer, string)`).
fn parent_param(ed: &Editor, a: Args) -> Result<Option<i64>, Fail> {
    match a.text("parent")? {
        None => Ok(None),
        Some(p) if p.eq_ignore_ascii_case("none") => Ok(None),
        Some(p) => ed
            .world
            .resolve(&p)
            .map(Some)
            .ok_or_else(|| not_found(&p, "parent")),
    }
}

/// What every `GameObjectResult` action of `manage_gameobject` returns (README, "Payload
/// shapes"): the path with a leading `/`, the scene's name and path, `active` in the hierarchy,
/// and the transform as six `{x,y,z}` objects where `scale` is the local scale too.
pub fn go_shape(ed: &Editor, id: i64) -> Value {
    let w = &ed.world;
    let Some(o) = w.get(id) else {
        return Value::Null;
    };
    let pose = w.pose(id);
    let scene_path = w.scene(o.scene).map(|s| s.path.clone()).unwrap_or_default();
    let scene_name = scene_path
        .rsplit('/')
        .next()
        .and_then(|f| f.strip_suffix(".unity").or(Some(f)))
        .unwrap_or_default()
        .to_string();
    json!({
        "instance_id": id, "name": o.name, "path": format!("/{}", w.path_of(id)),
        "scene": scene_name, "scene_path": scene_path,
        "active": w.active_in_hierarchy(id), "tag": o.tag, "layer": o.layer,
        "layer_name": ed.chrome.layer_name(o.layer),
        "transform": {
            "position": v3json(pose.position), "rotation": v3json(w.world_euler(id)),
            "scale": v3json(o.scale), "local_position": v3json(o.position),
            "local_rotation": v3json(o.rotation), "local_scale": v3json(o.scale),
        },
    })
}

/// Set a world position (keeping the parent as is).
pub fn set_world_position(w: &mut World, id: i64, pos: [f64; 3]) {
    let local = w.parent_pose(id).local_position_of(pos);
    if let Some(o) = w.get_mut(id) {
        o.position = local;
    }
    w.touch(id);
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "create" => create(ed, a),
        "destroy" => {
            let id = target(ed, a)?;
            // The snapshot is taken before the object goes.
            let before = go_shape(ed, id);
            let _ = ed.world.destroy(id);
            let world = &ed.world;
            ed.chrome.selection.retain(|s| !matches!(s, super::editor_state::Selected::Object(x) if world.get(*x).is_none()));
            ok("Destroyed GameObject.", before)
        }
        "duplicate" => duplicate(ed, a),
        "get_transform" => {
            let id = target(ed, a)?;
            ok("OK", go_shape(ed, id))
        }
        "move" => {
            let id = target(ed, a)?;
            let raw = a.raw("position").ok_or_else(|| Fail::missing("position"))?;
            let space = a.str("space")?.unwrap_or("world").to_ascii_lowercase();
            let current = match space.as_str() {
                "local" => ed.world.get(id).map(|o| o.position).unwrap_or_default(),
                _ => ed.world.pose(id).position,
            };
            let pos = args::vec3("position", raw, current)?;
            match space.as_str() {
                "world" => set_world_position(&mut ed.world, id, pos),
                "local" => {
                    if let Some(o) = ed.world.get_mut(id) {
                        o.position = pos;
                    }
                    ed.world.touch(id);
                }
                other => {
                    return Err(Fail::invalid(
                        "space",
                        format!("unknown space '{other}' (world or local)"),
                    ));
                }
            }
            ok(format!("Moved {}.", ed.world.path_of(id)), go_shape(ed, id))
        }
        "set_active" => {
            let id = target(ed, a)?;
            let active = a.bool("active")?.ok_or_else(|| Fail::missing("active"))?;
            if let Some(o) = ed.world.get_mut(id) {
                o.active = active;
            }
            ed.world.touch(id);
            ok(
                format!(
                    "{} is now {}.",
                    ed.world.path_of(id),
                    if active { "active" } else { "inactive" }
                ),
                go_shape(ed, id),
            )
        }
        "set_layer" => {
            let id = target(ed, a)?;
            let raw = a.text("layer")?.ok_or_else(|| Fail::missing("layer"))?;
            let index = match raw.trim().parse::<i64>() {
                Ok(i) if (0..32).contains(&i) => i as u32,
                Ok(_) => return Err(Fail::invalid("layer", "a layer index must be 0-31")),
                Err(_) => ed.chrome.layer_index(&raw).ok_or_else(|| {
                    Fail::new(
                        "LAYER_NOT_FOUND",
                        format!(
                            "Layer '{raw}' does not exist; add it with manage_editor add_layer."
                        ),
                    )
                })?,
            };
            if let Some(o) = ed.world.get_mut(id) {
                o.layer = index;
            }
            ed.world.touch(id);
            ok(
                format!("{} moved to layer {index}.", ed.world.path_of(id)),
                go_shape(ed, id),
            )
        }
        "set_name" => {
            let id = target(ed, a)?;
            let name = a.req_str("name")?.to_string();
            if let Some(o) = ed.world.get_mut(id) {
                o.name = name.clone();
            }
            ed.world.touch(id);
            ok(format!("Renamed to {name}."), go_shape(ed, id))
        }
        "set_parent" => {
            let id = target(ed, a)?;
            let parent = parent_param(ed, a)?;
            let keep = a.bool("world_position_stays")?.unwrap_or(true);
            ed.world
                .set_parent(id, parent, keep)
                .map_err(|e| Fail::invalid("parent", e))?;
            ok(
                format!("{} reparented.", ed.world.path_of(id)),
                go_shape(ed, id),
            )
        }
        "set_tag" => {
            let id = target(ed, a)?;
            let tag = a.req_str("tag")?.to_string();
            if !ed.chrome.has_tag(&tag) {
                return Err(Fail::new(
                    "TAG_NOT_FOUND",
                    format!("Tag '{tag}' is not defined; add it with manage_editor add_tag."),
                )
                .with_data(json!({"tag": tag, "tags": ed.chrome.tags})));
            }
            if let Some(o) = ed.world.get_mut(id) {
                o.tag = tag.clone();
            }
            ed.world.touch(id);
            ok(
                format!("{} tagged {tag}.", ed.world.path_of(id)),
                go_shape(ed, id),
            )
        }
        "set_transform" => set_transform(ed, a),
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn create(ed: &mut Editor, a: Args) -> Handled {
    let primitive = a.str("primitive")?.map(str::to_ascii_lowercase);
    if let Some(p) = &primitive
        && !["cube", "sphere", "capsule", "cylinder", "plane", "quad"].contains(&p.as_str())
    {
        return Err(Fail::invalid(
            "primitive",
            "expected cube, sphere, capsule, cylinder, plane or quad",
        ));
    }
    let parent = parent_param(ed, a)?;
    if parent.is_none() && !ed.world.active().is_some_and(|s| s.loaded) {
        return Err(Fail::new(
            "SCENE_NOT_LOADED",
            "There is no loaded active scene to create the object in.",
        ));
    }
    let default_name = match &primitive {
        Some(p) => {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        }
        None => "GameObject".into(),
    };
    let name = a.str("name")?.map(str::to_string).unwrap_or(default_name);
    let position = match a.raw("position") {
        Some(raw) => Some(args::vec3("position", raw, [0.0; 3])?),
        None => None,
    };
    let scene = ed.world.active_scene;
    let id = ed.world.create(&name, scene, parent);
    if let Some(p) = &primitive {
        let comps = seed::primitive_components(p);
        for (t, en, props) in comps {
            ed.world.add_component(id, &t, en, props);
        }
    }
    if let Some(pos) = position {
        set_world_position(&mut ed.world, id, pos);
    }
    ok(format!("Created GameObject: {name}"), go_shape(ed, id))
}

fn duplicate(ed: &mut Editor, a: Args) -> Handled {
    let id = target(ed, a)?;
    let count = a.i64("count")?.unwrap_or(1);
    if !(1..=100).contains(&count) {
        return Err(Fail::invalid("count", "must be between 1 and 100"));
    }
    let parent = match a.raw("parent") {
        Some(_) => parent_param(ed, a)?,
        None => ed.world.get(id).and_then(|o| o.parent),
    };
    let Some(tree) = ed.world.capture(id) else {
        return Err(not_found(&id.to_string(), "instance_id"));
    };
    let scene = ed
        .world
        .get(id)
        .map(|o| o.scene)
        .unwrap_or(ed.world.active_scene);
    let fixed_name = a.str("name")?.map(str::to_string);
    let base = tree
        .name
        .split(" (")
        .next()
        .unwrap_or(&tree.name)
        .to_string();
    let mut created = Vec::new();
    for _ in 0..count {
        let copy = ed.world.instantiate(&tree, scene, parent);
        let name = match &fixed_name {
            Some(n) => n.clone(),
            None => next_copy_name(&ed.world, copy, &base),
        };
        if let Some(o) = ed.world.get_mut(copy) {
            o.name = name;
        }
        // A duplicate sits where the original sits in world space.
        let pos = ed.world.pose(id).position;
        set_world_position(&mut ed.world, copy, pos);
        created.push(json!({"instance_id": copy, "name": ed.world.get(copy).map(|o| o.name.clone()), "path": format!("/{}", ed.world.path_of(copy))}));
    }
    let source_name = ed.world.get(id).map(|o| o.name.clone()).unwrap_or_default();
    ok(
        format!("Duplicated {source_name} x{count}."),
        json!({"source": {"instance_id": id, "name": source_name}, "count": count, "clones": created}),
    )
}

/// Unity's "Name (n)" numbering: the lowest n not used by a sibling.
fn next_copy_name(w: &World, copy: i64, base: &str) -> String {
    let siblings: Vec<String> = match w.get(copy).and_then(|o| o.parent) {
        Some(p) => w.get(p).map(|po| po.children.clone()).unwrap_or_default(),
        None => w
            .get(copy)
            .and_then(|o| w.scene(o.scene))
            .map(|s| s.roots.clone())
            .unwrap_or_default(),
    }
    .into_iter()
    .filter(|s| *s != copy)
    .filter_map(|s| w.get(s).map(|o| o.name.clone()))
    .collect();
    (1..=10_000)
        .map(|n| format!("{base} ({n})"))
        .find(|candidate| !siblings.contains(candidate))
        .unwrap_or_else(|| format!("{base} (copy)"))
}

fn set_transform(ed: &mut Editor, a: Args) -> Handled {
    let id = target(ed, a)?;
    let space = a.str("space")?.unwrap_or("local").to_ascii_lowercase();
    if space != "local" && space != "world" {
        return Err(Fail::invalid("space", "expected world or local"));
    }
    let (pos, rot, scale) = (a.raw("position"), a.raw("rotation"), a.raw("scale"));
    if pos.is_none() && rot.is_none() && scale.is_none() {
        return Err(Fail::new(
            "MISSING_PARAM",
            "Give at least one of position, rotation, scale.",
        )
        .with_data(json!({"expected": "position, rotation or scale"})));
    }
    let world_space = space == "world";
    if let Some(raw) = pos {
        let current = if world_space {
            ed.world.pose(id).position
        } else {
            ed.world.get(id).map(|o| o.position).unwrap_or_default()
        };
        let p = args::vec3("position", raw, current)?;
        if world_space {
            set_world_position(&mut ed.world, id, p);
        } else if let Some(o) = ed.world.get_mut(id) {
            o.position = p;
        }
    }
    if let Some(raw) = rot {
        let current = if world_space {
            ed.world.world_euler(id)
        } else {
            ed.world.get(id).map(|o| o.rotation).unwrap_or_default()
        };
        let e = args::vec3("rotation", raw, current)?;
        let local = if world_space {
            let parent = ed.world.parent_pose(id);
            if parent.rotation.is_identity() {
                e
            } else {
                parent.local_rotation_of(Quat::from_euler(e)).to_euler()
            }
        } else {
            e
        };
        if let Some(o) = ed.world.get_mut(id) {
            o.rotation = local;
        }
    }
    if let Some(raw) = scale {
        let current = ed.world.get(id).map(|o| o.scale).unwrap_or([1.0; 3]);
        let s = args::vec3("scale", raw, current)?;
        if let Some(o) = ed.world.get_mut(id) {
            o.scale = s;
        }
    }
    ed.world.touch(id);
    ok(
        format!("Transform of {} updated.", ed.world.path_of(id)),
        go_shape(ed, id),
    )
}

/// The projection fields a `fields` list may name (`id` is an alias of `instance_id`).
const FIELDS: [&str; 6] = [
    "instance_id",
    "name",
    "path",
    "scene",
    "active",
    "global_id",
];

pub fn find(ed: &mut Editor, _action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    let name = a.str("name")?.map(str::to_lowercase);
    let tag = a.str("tag")?;
    let component = a.str("component")?;
    let glob = a.str("path_glob")?;
    let layer =
        match a.text("layer")? {
            None => None,
            Some(l) => Some(ed.chrome.layer_index(&l).ok_or_else(|| {
                Fail::new("LAYER_NOT_FOUND", format!("Layer '{l}' does not exist."))
            })?),
        };
    let include_inactive = a.bool("include_inactive")?.unwrap_or(true);
    let limit = a.i64("limit")?.unwrap_or(50).max(0) as usize;
    let offset = a.i64("offset")?.unwrap_or(0).max(0) as usize;
    let w = &ed.world;
    let matches: Vec<i64> = w
        .walk()
        .into_iter()
        .filter(|id| {
            let o = &w.objects[id];
            name.as_ref()
                .is_none_or(|n| o.name.to_lowercase().contains(n))
                && tag.is_none_or(|t| o.tag == t)
                && layer.is_none_or(|l| o.layer == l)
                && component.is_none_or(|c| {
                    let short = c.rsplit('.').next().unwrap_or(c);
                    o.has_component(short)
                })
                && glob.is_none_or(|g| args::glob_match(g, &w.path_of(*id)))
                && (include_inactive || w.active_in_hierarchy(*id))
        })
        .collect();
    // Sorted by hierarchy path (ordinal), then paged.
    let mut matches: Vec<(String, i64)> =
        matches.into_iter().map(|id| (w.path_of(id), id)).collect();
    matches.sort();
    let total = matches.len();
    let page: Vec<i64> = matches
        .into_iter()
        .map(|(_, id)| id)
        .skip(offset)
        .take(if limit == 0 { usize::MAX } else { limit })
        .collect();
    let returned = page.len();
    let has_more = limit > 0 && offset + returned < total;
    let ids = a.flag("ids")?;
    let names = a.flag("names")?;
    let fields = a.str("fields")?;
    if [ids, names, fields.is_some()]
        .iter()
        .filter(|x| **x)
        .count()
        > 1
    {
        return Err(Fail::new(
            "INVALID_PROJECTION",
            "Use at most one of ids, names and fields.",
        ));
    }
    let fields: Vec<String> = match fields {
        None => vec!["instance_id".into(), "name".into()],
        Some(f) if f.trim().eq_ignore_ascii_case("all") => {
            FIELDS[..5].iter().map(|s| s.to_string()).collect()
        }
        Some(f) => f
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s == "id" {
                    "instance_id".to_string()
                } else {
                    s
                }
            })
            .collect(),
    };
    if let Some(bad) = fields.iter().find(|f| !FIELDS.contains(&f.as_str())) {
        return Err(Fail::new(
            "INVALID_FIELDS",
            format!(
                "Unknown field '{bad}'; known: {}, id, all.",
                FIELDS.join(", ")
            ),
        )
        .with_data(json!({"field": bad})));
    }
    // `ids` and `names` project each match to a bare integer or string, which the published
    // schema (items: open objects) does not admit.
    let results: Vec<Value> = page
        .iter()
        .map(|id| {
            let o = &w.objects[id];
            if ids {
                return json!(id);
            }
            if names {
                return json!(o.name);
            }
            let mut m = serde_json::Map::new();
            for f in &fields {
                let v = match f.as_str() {
                    "instance_id" => json!(id),
                    "name" => json!(o.name),
                    "path" => json!(format!("/{}", w.path_of(*id))),
                    "scene" => json!(w.scene(o.scene).map(|s| s.name())),
                    "active" => json!(w.active_in_hierarchy(*id)),
                    _ => json!(format!(
                        "GlobalObjectId_V1-2-{:032x}-{}-0",
                        o.scene,
                        id * 7919
                    )),
                };
                m.insert(f.clone(), v);
            }
            Value::Object(m)
        })
        .collect();
    ok(
        format!("{returned} of {total} matched (offset {offset})."),
        json!({"total": total, "returned": returned, "offset": offset, "limit": limit,
               "has_more": has_more, "results": results}),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_gameobject_create_find_transform_destroy() {
        let mut h = Harness::new();
        let c = h.ok(
            "manage_gameobject",
            json!({"action": "create", "name": "Cube", "primitive": "cube", "position": [1, 2, 3]}),
        );
        let id = c["instance_id"].as_i64().unwrap();
        assert_eq!(c["path"], "/Cube");
        assert_eq!(
            c["transform"]["position"],
            json!({"x": 1.0, "y": 2.0, "z": 3.0})
        );
        assert_eq!(c["transform"]["scale"], c["transform"]["local_scale"]);
        let f = h.ok("find_gameobjects", json!({"name": "cube", "fields": "all"}));
        assert_eq!(f["total"], 1);
        assert_eq!(f["results"][0]["path"], "/Cube");
        assert_eq!(f["results"][0]["scene"], "SampleScene");
        let child = h.ok(
            "manage_gameobject",
            json!({"action": "create", "name": "Child", "parent": id}),
        )["instance_id"]
            .as_i64()
            .unwrap();
        assert_eq!(
            h.ok(
                "manage_gameobject",
                json!({"action": "get_transform", "instance_id": child})
            )["transform"]["position"]["y"],
            2.0
        );
        h.ok("manage_gameobject", json!({"action": "set_transform", "path": "Cube", "rotation": "0,90,0", "scale": [2, 2, 2]}));
        h.ok(
            "manage_gameobject",
            json!({"action": "set_transform", "path": "Cube/Child", "position": "1,0,0"}),
        );
        let t = h.ok(
            "manage_gameobject",
            json!({"action": "get_transform", "path": "Cube/Child"}),
        );
        assert_eq!(
            t["transform"]["position"],
            json!({"x": 1.0, "y": 2.0, "z": 1.0})
        );
        h.ok(
            "manage_gameobject",
            json!({"action": "set_parent", "target": "Cube/Child", "parent": null}),
        );
        let t = h.ok(
            "manage_gameobject",
            json!({"action": "get_transform", "path": "Child"}),
        );
        assert_eq!(
            t["transform"]["position"],
            json!({"x": 1.0, "y": 2.0, "z": 1.0})
        );
        assert_eq!(
            t["transform"]["local_scale"],
            json!({"x": 2.0, "y": 2.0, "z": 2.0})
        );
        assert_eq!(
            h.ok("find_gameobjects", json!({"path_glob": "Cube/*"}))["total"],
            0
        );
        let d = h.ok(
            "manage_gameobject",
            json!({"action": "duplicate", "path": "Cube", "count": 2}),
        );
        assert_eq!(d["clones"][1]["name"], "Cube (2)");
        assert_eq!(d["source"]["instance_id"], id);
        assert_eq!(
            h.ok("find_gameobjects", json!({"name": "Cube", "names": true}))["results"],
            json!(["Cube", "Cube (1)", "Cube (2)"])
        );
        h.ok(
            "manage_gameobject",
            json!({"action": "destroy", "instance_id": id}),
        );
        assert_eq!(
            h.err(
                "manage_gameobject",
                json!({"action": "get_transform", "instance_id": id})
            ),
            "TARGET_NOT_FOUND"
        );
    }

    #[test]
    fn editor_gameobject_tags_layers_active_and_filters() {
        let mut h = Harness::new();
        assert_eq!(
            h.err(
                "manage_gameobject",
                json!({"action": "set_tag", "path": "Ground", "tag": "Enemy"})
            ),
            "TAG_NOT_FOUND"
        );
        h.ok(
            "manage_gameobject",
            json!({"action": "set_layer", "path": "Ground", "layer": "Water"}),
        );
        assert_eq!(
            h.ok("find_gameobjects", json!({"layer": "Water", "ids": true}))["results"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        h.ok(
            "manage_gameobject",
            json!({"action": "set_active", "path": "Player", "active": false}),
        );
        let active_only = h.ok(
            "find_gameobjects",
            json!({"include_inactive": false, "names": true}),
        );
        assert!(
            !active_only["results"]
                .as_array()
                .unwrap()
                .contains(&json!("CameraTarget"))
        );
        assert_eq!(
            h.ok("find_gameobjects", json!({"component": "Camera"}))["results"][0]["name"],
            "Main Camera"
        );
        assert_eq!(
            h.ok(
                "find_gameobjects",
                json!({"tag": "Player", "limit": 1, "offset": 0})
            )["has_more"],
            false
        );
        assert_eq!(
            h.err("find_gameobjects", json!({"fields": "bogus"})),
            "INVALID_FIELDS"
        );
        assert_eq!(
            h.err(
                "manage_gameobject",
                json!({"action": "set_parent", "path": "Player", "parent": "Player/CameraTarget"})
            ),
            "INVALID_PARAM"
        );
    }
}
