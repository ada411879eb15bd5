//! The live scene graph: loaded scenes, their GameObjects and components.
//!
//! One arena (`objects`, keyed by instance id) plus per-scene root lists and per-object child
//! lists. Every mutation goes through methods here so parent/child links and scene dirtiness stay
//! consistent; tool handlers never edit the links themselves. Saved scenes and prefabs are
//! [`Node`] trees (no instance ids), instantiated with fresh ids, as Unity does.

use super::math::{Pose, Quat};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    pub id: i64,
    pub type_name: String,
    /// `Some` for Behaviours (they have an enabled checkbox).
    pub enabled: Option<bool>,
    pub props: Map<String, Value>,
}

/// Links a scene object to the prefab asset it was instantiated from.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefabLink {
    pub prefab_guid: String,
    /// Path of this object inside the prefab ("" for the prefab root).
    pub relative_path: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GameObject {
    pub id: i64,
    pub name: String,
    pub active: bool,
    pub tag: String,
    pub layer: u32,
    pub is_static: bool,
    pub parent: Option<i64>,
    pub children: Vec<i64>,
    pub scene: i64,
    pub position: [f64; 3],
    /// Local Euler angles as last set (Unity keeps a hint so inspectors show what was typed).
    pub rotation: [f64; 3],
    pub scale: [f64; 3],
    pub components: Vec<Component>,
    pub prefab: Option<PrefabLink>,
}

impl GameObject {
    pub fn component_types(&self) -> Vec<String> {
        self.components
            .iter()
            .map(|c| c.type_name.clone())
            .collect()
    }
    pub fn has_component(&self, type_name: &str) -> bool {
        self.components
            .iter()
            .any(|c| c.type_name.eq_ignore_ascii_case(type_name))
    }
    pub fn component(&self, type_name: &str) -> Option<&Component> {
        self.components
            .iter()
            .find(|c| c.type_name.eq_ignore_ascii_case(type_name))
    }
    pub fn component_mut(&mut self, type_name: &str) -> Option<&mut Component> {
        self.components
            .iter_mut()
            .find(|c| c.type_name.eq_ignore_ascii_case(type_name))
    }
    pub fn is_prefab_root(&self) -> bool {
        self.prefab
            .as_ref()
            .is_some_and(|p| p.relative_path.is_empty())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub handle: i64,
    pub path: String,
    pub loaded: bool,
    pub dirty: bool,
    pub roots: Vec<i64>,
}

impl Scene {
    pub fn name(&self) -> String {
        scene_name(&self.path)
    }
}

pub fn scene_name(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".unity").unwrap_or(file).to_string()
}

/// A saved object tree (scene file or prefab asset content).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    pub active: bool,
    pub tag: String,
    pub layer: u32,
    pub is_static: bool,
    pub position: [f64; 3],
    pub rotation: [f64; 3],
    pub scale: [f64; 3],
    /// (type, enabled, props)
    pub components: Vec<(String, Option<bool>, Map<String, Value>)>,
    pub children: Vec<Node>,
    pub prefab: Option<PrefabLink>,
}

impl Node {
    pub fn new(name: &str) -> Node {
        Node {
            name: name.to_string(),
            active: true,
            tag: "Untagged".into(),
            layer: 0,
            is_static: false,
            position: [0.0; 3],
            rotation: [0.0; 3],
            scale: [1.0; 3],
            components: vec![("Transform".into(), None, Map::new())],
            children: Vec::new(),
            prefab: None,
        }
    }
    /// Find a descendant by `/`-separated relative path ("" is this node).
    pub fn at(&self, rel: &str) -> Option<&Node> {
        let mut node = self;
        for seg in rel.split('/').filter(|s| !s.is_empty()) {
            node = node.children.iter().find(|c| c.name == seg)?;
        }
        Some(node)
    }
    pub fn at_mut(&mut self, rel: &str) -> Option<&mut Node> {
        let mut node = self;
        for seg in rel.split('/').filter(|s| !s.is_empty()) {
            node = node.children.iter_mut().find(|c| c.name == seg)?;
        }
        Some(node)
    }
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(Node::count).sum::<usize>()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct World {
    pub objects: BTreeMap<i64, GameObject>,
    pub scenes: Vec<Scene>,
    pub active_scene: i64,
    next_id: i64,
    next_handle: i64,
}

impl World {
    pub fn new() -> World {
        World {
            objects: BTreeMap::new(),
            scenes: Vec::new(),
            active_scene: 0,
            // Unity hands out positive ids for assets and larger ones for scene objects; any stable
            // positive range works for clients, and positives survive CLI flag parsing.
            next_id: 20_000,
            next_handle: 1_000,
        }
    }

    pub fn alloc_id(&mut self) -> i64 {
        self.next_id += 2;
        self.next_id
    }

    // ---- scenes ----

    pub fn add_scene(&mut self, path: &str, loaded: bool) -> i64 {
        self.next_handle += 1;
        let handle = self.next_handle;
        self.scenes.push(Scene {
            handle,
            path: path.to_string(),
            loaded,
            dirty: false,
            roots: Vec::new(),
        });
        if loaded
            && (self.scenes.len() == 1 || !self.scene(self.active_scene).is_some_and(|s| s.loaded))
        {
            self.active_scene = handle;
        }
        handle
    }

    pub fn scene(&self, handle: i64) -> Option<&Scene> {
        self.scenes.iter().find(|s| s.handle == handle)
    }
    pub fn scene_mut(&mut self, handle: i64) -> Option<&mut Scene> {
        self.scenes.iter_mut().find(|s| s.handle == handle)
    }
    pub fn scene_by_path(&self, path: &str) -> Option<&Scene> {
        self.scenes.iter().find(|s| s.path == path)
    }
    pub fn active(&self) -> Option<&Scene> {
        self.scene(self.active_scene)
    }

    /// Remove a scene and all its objects from the world.
    pub fn remove_scene(&mut self, handle: i64) {
        let roots = self
            .scene(handle)
            .map(|s| s.roots.clone())
            .unwrap_or_default();
        for r in roots {
            self.destroy(r);
        }
        self.scenes.retain(|s| s.handle != handle);
        if self.active_scene == handle {
            self.active_scene = self
                .scenes
                .iter()
                .find(|s| s.loaded)
                .map(|s| s.handle)
                .unwrap_or(0);
        }
    }

    fn mark_dirty(&mut self, scene: i64) {
        if let Some(s) = self.scene_mut(scene) {
            s.dirty = true;
        }
    }

    /// Mark the scene holding `id` as modified.
    pub fn touch(&mut self, id: i64) {
        if let Some(scene) = self.objects.get(&id).map(|o| o.scene) {
            self.mark_dirty(scene);
        }
    }

    // ---- objects ----

    pub fn get(&self, id: i64) -> Option<&GameObject> {
        self.objects.get(&id)
    }
    pub fn get_mut(&mut self, id: i64) -> Option<&mut GameObject> {
        self.objects.get_mut(&id)
    }

    /// Create an empty GameObject (with a Transform) under `parent` or at the root of `scene`.
    pub fn create(&mut self, name: &str, scene: i64, parent: Option<i64>) -> i64 {
        let id = self.alloc_id();
        let tid = self.alloc_id();
        let scene = parent
            .and_then(|p| self.objects.get(&p).map(|o| o.scene))
            .unwrap_or(scene);
        self.objects.insert(
            id,
            GameObject {
                id,
                name: name.to_string(),
                active: true,
                tag: "Untagged".into(),
                layer: 0,
                is_static: false,
                parent,
                children: Vec::new(),
                scene,
                position: [0.0; 3],
                rotation: [0.0; 3],
                scale: [1.0; 3],
                components: vec![Component {
                    id: tid,
                    type_name: "Transform".into(),
                    enabled: None,
                    props: Map::new(),
                }],
                prefab: None,
            },
        );
        match parent {
            Some(p) => {
                if let Some(po) = self.objects.get_mut(&p) {
                    po.children.push(id);
                }
            }
            None => {
                if let Some(s) = self.scene_mut(scene) {
                    s.roots.push(id);
                }
            }
        }
        self.mark_dirty(scene);
        id
    }

    pub fn add_component(
        &mut self,
        id: i64,
        type_name: &str,
        enabled: Option<bool>,
        props: Map<String, Value>,
    ) -> Option<i64> {
        let cid = self.alloc_id();
        let obj = self.objects.get_mut(&id)?;
        obj.components.push(Component {
            id: cid,
            type_name: type_name.to_string(),
            enabled,
            props,
        });
        self.touch(id);
        Some(cid)
    }

    /// Destroy an object and its subtree; returns how many objects were removed.
    pub fn destroy(&mut self, id: i64) -> usize {
        let Some(obj) = self.objects.get(&id) else {
            return 0;
        };
        let (parent, scene) = (obj.parent, obj.scene);
        match parent {
            Some(p) => {
                if let Some(po) = self.objects.get_mut(&p) {
                    po.children.retain(|c| *c != id);
                }
            }
            None => {
                if let Some(s) = self.scene_mut(scene) {
                    s.roots.retain(|c| *c != id);
                }
            }
        }
        let doomed = self.subtree(id);
        for d in &doomed {
            self.objects.remove(d);
        }
        self.mark_dirty(scene);
        doomed.len()
    }

    /// `id` and all descendants, depth-first pre-order.
    pub fn subtree(&self, id: i64) -> Vec<i64> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(cur) = stack.pop() {
            if let Some(o) = self.objects.get(&cur) {
                out.push(cur);
                for c in o.children.iter().rev() {
                    stack.push(*c);
                }
            }
        }
        out
    }

    /// Every object of every loaded scene, in hierarchy order.
    pub fn walk(&self) -> Vec<i64> {
        let mut out = Vec::new();
        for s in self.scenes.iter().filter(|s| s.loaded) {
            for r in &s.roots {
                out.extend(self.subtree(*r));
            }
        }
        out
    }

    pub fn path_of(&self, id: i64) -> String {
        let mut parts = Vec::new();
        let mut cur = Some(id);
        // Bounded by the number of objects: a parent chain can't be longer than the arena.
        for _ in 0..=self.objects.len() {
            let Some(c) = cur else { break };
            let Some(o) = self.objects.get(&c) else { break };
            parts.push(o.name.clone());
            cur = o.parent;
        }
        parts.reverse();
        parts.join("/")
    }

    /// Whether the object and all ancestors are active.
    pub fn active_in_hierarchy(&self, id: i64) -> bool {
        let mut cur = Some(id);
        for _ in 0..=self.objects.len() {
            let Some(c) = cur else { return true };
            let Some(o) = self.objects.get(&c) else {
                return true;
            };
            if !o.active {
                return false;
            }
            cur = o.parent;
        }
        true
    }

    /// Find by hierarchy path (`Root/Child`, optional leading `/`) across loaded scenes.
    pub fn find_path(&self, path: &str) -> Option<i64> {
        let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
        if segs.iter().any(|s| s.is_empty()) {
            return None;
        }
        for s in self.scenes.iter().filter(|s| s.loaded) {
            for r in &s.roots {
                if let Some(found) = self.descend(*r, &segs) {
                    return Some(found);
                }
            }
        }
        None
    }

    fn descend(&self, id: i64, segs: &[&str]) -> Option<i64> {
        let o = self.objects.get(&id)?;
        if o.name != segs[0] {
            return None;
        }
        if segs.len() == 1 {
            return Some(id);
        }
        o.children.iter().find_map(|c| self.descend(*c, &segs[1..]))
    }

    /// Resolve a target: an instance id, a hierarchy path, or (without `/`) the first object
    /// with that name, as `GameObject.Find` does.
    pub fn resolve(&self, target: &str) -> Option<i64> {
        let t = target.trim();
        if let Ok(id) = t.parse::<i64>()
            && self.objects.contains_key(&id)
            && self.is_loaded_object(id)
        {
            return Some(id);
        }
        if let Some(id) = self.find_path(t) {
            return Some(id);
        }
        if !t.contains('/') {
            return self
                .walk()
                .into_iter()
                .find(|id| self.objects.get(id).is_some_and(|o| o.name == t));
        }
        None
    }

    pub fn is_loaded_object(&self, id: i64) -> bool {
        self.objects
            .get(&id)
            .and_then(|o| self.scene(o.scene))
            .is_some_and(|s| s.loaded)
    }

    /// The object's world pose, composed from the root down.
    pub fn pose(&self, id: i64) -> Pose {
        let mut chain = Vec::new();
        let mut cur = Some(id);
        for _ in 0..=self.objects.len() {
            let Some(c) = cur else { break };
            let Some(o) = self.objects.get(&c) else { break };
            chain.push(c);
            cur = o.parent;
        }
        let mut pose = Pose::ROOT;
        for c in chain.iter().rev() {
            let o = &self.objects[c];
            pose = pose.child(o.position, Quat::from_euler(o.rotation), o.scale);
        }
        pose
    }

    pub fn parent_pose(&self, id: i64) -> Pose {
        match self.objects.get(&id).and_then(|o| o.parent) {
            Some(p) => self.pose(p),
            None => Pose::ROOT,
        }
    }

    /// World Euler angles; an object whose ancestors are unrotated reports its own angles
    /// verbatim, so a typed `(0, 450, 0)`-style hint is not rewritten needlessly.
    pub fn world_euler(&self, id: i64) -> [f64; 3] {
        let parent = self.parent_pose(id);
        let Some(o) = self.objects.get(&id) else {
            return [0.0; 3];
        };
        if parent.rotation.is_identity() {
            return o.rotation;
        }
        self.pose(id).rotation.to_euler()
    }

    /// Reparent (`None` = scene root of the object's scene). Refuses cycles. With
    /// `keep_world`, local TRS is recomputed so the world pose stays put.
    pub fn set_parent(
        &mut self,
        id: i64,
        parent: Option<i64>,
        keep_world: bool,
    ) -> Result<(), String> {
        if let Some(p) = parent {
            if p == id || self.subtree(id).contains(&p) {
                return Err("an object cannot be parented to itself or its own descendant".into());
            }
            if !self.objects.contains_key(&p) {
                return Err(format!("parent {p} does not exist"));
            }
        }
        let world = self.pose(id);
        let Some(obj) = self.objects.get(&id) else {
            return Err(format!("object {id} does not exist"));
        };
        let (old_parent, old_scene) = (obj.parent, obj.scene);
        match old_parent {
            Some(op) => {
                if let Some(po) = self.objects.get_mut(&op) {
                    po.children.retain(|c| *c != id);
                }
            }
            None => {
                if let Some(s) = self.scene_mut(old_scene) {
                    s.roots.retain(|c| *c != id);
                }
            }
        }
        let new_scene = parent
            .and_then(|p| self.objects.get(&p).map(|o| o.scene))
            .unwrap_or(old_scene);
        match parent {
            Some(p) => self.objects.get_mut(&p).unwrap().children.push(id),
            None => {
                if let Some(s) = self.scene_mut(new_scene) {
                    s.roots.push(id);
                }
            }
        }
        for d in self.subtree(id) {
            if let Some(o) = self.objects.get_mut(&d) {
                o.scene = new_scene;
            }
        }
        if let Some(o) = self.objects.get_mut(&id) {
            o.parent = parent;
        }
        if keep_world {
            let pp = self.parent_pose(id);
            let o = self.objects.get_mut(&id).unwrap();
            o.position = pp.local_position_of(world.position);
            let local_rot = pp.local_rotation_of(world.rotation);
            if !pp.rotation.is_identity() || !Quat::from_euler(o.rotation).is_identity() {
                o.rotation = local_rot.to_euler();
            }
            o.scale = pp.local_scale_of(world.scale);
        }
        self.mark_dirty(old_scene);
        self.mark_dirty(new_scene);
        Ok(())
    }

    // ---- saved trees ----

    /// Capture a subtree as a saved tree (no ids).
    pub fn capture(&self, id: i64) -> Option<Node> {
        let o = self.objects.get(&id)?;
        Some(Node {
            name: o.name.clone(),
            active: o.active,
            tag: o.tag.clone(),
            layer: o.layer,
            is_static: o.is_static,
            position: o.position,
            rotation: o.rotation,
            scale: o.scale,
            components: o
                .components
                .iter()
                .map(|c| (c.type_name.clone(), c.enabled, c.props.clone()))
                .collect(),
            children: o.children.iter().filter_map(|c| self.capture(*c)).collect(),
            prefab: o.prefab.clone(),
        })
    }

    /// Instantiate a saved tree with fresh ids; returns the new root id.
    pub fn instantiate(&mut self, node: &Node, scene: i64, parent: Option<i64>) -> i64 {
        let id = self.create(&node.name, scene, parent);
        let mut comps = Vec::new();
        for (t, en, props) in &node.components {
            let cid = self.alloc_id();
            comps.push(Component {
                id: cid,
                type_name: t.clone(),
                enabled: *en,
                props: props.clone(),
            });
        }
        {
            let o = self.objects.get_mut(&id).unwrap();
            o.active = node.active;
            o.tag = node.tag.clone();
            o.layer = node.layer;
            o.is_static = node.is_static;
            o.position = node.position;
            o.rotation = node.rotation;
            o.scale = node.scale;
            o.prefab = node.prefab.clone();
            if !comps.is_empty() {
                o.components = comps;
            }
        }
        for child in &node.children {
            self.instantiate(child, scene, Some(id));
        }
        id
    }

    /// Find the root of the prefab instance that `id` belongs to.
    pub fn prefab_instance_root(&self, id: i64) -> Option<i64> {
        let mut cur = Some(id);
        for _ in 0..=self.objects.len() {
            let c = cur?;
            let o = self.objects.get(&c)?;
            if o.is_prefab_root() {
                return Some(c);
            }
            o.prefab.as_ref()?;
            cur = o.parent;
        }
        None
    }

    /// Roots of every prefab instance of `guid` in loaded scenes.
    pub fn instances_of(&self, guid: &str) -> Vec<i64> {
        self.walk()
            .into_iter()
            .filter(|id| {
                self.objects[id]
                    .prefab
                    .as_ref()
                    .is_some_and(|p| p.prefab_guid == guid && p.relative_path.is_empty())
            })
            .collect()
    }

    /// Find a component anywhere by its own instance id: (owner, index).
    pub fn find_component(&self, component_id: i64) -> Option<(i64, usize)> {
        self.objects.values().find_map(|o| {
            o.components
                .iter()
                .position(|c| c.id == component_id)
                .map(|i| (o.id, i))
        })
    }
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_world_links_stay_consistent() {
        let mut w = World::new();
        let s = w.add_scene("Assets/Scenes/A.unity", true);
        let root = w.create("Root", s, None);
        let child = w.create("Child", s, Some(root));
        let leaf = w.create("Leaf", s, Some(child));
        assert_eq!(w.path_of(leaf), "Root/Child/Leaf");
        assert_eq!(w.find_path("/Root/Child/Leaf"), Some(leaf));
        assert_eq!(w.resolve("Leaf"), Some(leaf));
        assert_eq!(w.resolve(&child.to_string()), Some(child));
        assert!(w.set_parent(root, Some(leaf), true).is_err());
        w.get_mut(root).unwrap().position = [5.0, 0.0, 0.0];
        w.set_parent(leaf, None, true).unwrap();
        assert_eq!(w.get(leaf).unwrap().position, [5.0, 0.0, 0.0]);
        assert_eq!(w.scene(s).unwrap().roots, vec![root, leaf]);
        assert_eq!(w.destroy(root), 2);
        assert_eq!(w.walk(), vec![leaf]);
        assert!(w.scene(s).unwrap().dirty);
    }

    #[test]
    fn editor_capture_and_instantiate_round_trip() {
        let mut w = World::new();
        let s = w.add_scene("Assets/Scenes/A.unity", true);
        let root = w.create("Root", s, None);
        w.create("Child", s, Some(root));
        let tree = w.capture(root).unwrap();
        let copy = w.instantiate(&tree, s, None);
        assert_ne!(copy, root);
        assert_eq!(w.capture(copy).unwrap(), tree);
        assert_eq!(w.subtree(copy).len(), 2);
    }
}
