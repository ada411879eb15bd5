//! The project a fresh simulator opens: a small but complete game skeleton so every tool has
//! something real to act on (two scenes, a prefab with a script, materials, a texture, a shader,
//! a ScriptableObject), with `SampleScene` loaded and active.

use super::Editor;
use super::asset_db::{AssetKind, ScriptInfo};
use super::component_types::builtin;
use super::materials::default_material_props;
use super::shaders;
use super::world::{Node, PrefabLink};
use serde_json::{Map, Value, json};

pub const SAMPLE_SCENE: &str = "Assets/Scenes/SampleScene.unity";
pub const LEVEL_SCENE: &str = "Assets/Scenes/Level1.unity";
pub const PLAYER_PREFAB: &str = "Assets/Prefabs/Player.prefab";

/// A node with built-in components (defaults overridden by `overrides`, per type).
pub fn node(name: &str, comps: &[(&str, Value)]) -> Node {
    let mut n = Node::new(name);
    for (ty, overrides) in comps {
        n.components.push(component(ty, overrides));
    }
    n
}

pub fn component(ty: &str, overrides: &Value) -> (String, Option<bool>, Map<String, Value>) {
    let (name, behaviour, mut props) = match builtin(ty) {
        Some(d) => (d.name.to_string(), d.behaviour, d.defaults()),
        None => (ty.to_string(), true, Map::new()),
    };
    if let Value::Object(o) = overrides {
        for (k, v) in o {
            props.insert(k.clone(), v.clone());
        }
    }
    (name, behaviour.then_some(true), props)
}

pub fn camera_node() -> Node {
    let mut cam = node(
        "Main Camera",
        &[("Camera", json!({})), ("AudioListener", json!({}))],
    );
    cam.tag = "MainCamera".into();
    cam.position = [0.0, 1.0, -10.0];
    cam
}

pub fn light_node() -> Node {
    let mut light = node("Directional Light", &[("Light", json!({}))]);
    light.position = [0.0, 3.0, 0.0];
    light.rotation = [50.0, 330.0, 0.0];
    light
}

/// Mesh components for a primitive, as `GameObject.CreatePrimitive` adds them.
pub fn primitive_components(kind: &str) -> Vec<(String, Option<bool>, Map<String, Value>)> {
    let mesh = match kind {
        "cube" => "Cube",
        "sphere" => "Sphere",
        "capsule" => "Capsule",
        "cylinder" => "Cylinder",
        "plane" => "Plane",
        _ => "Quad",
    };
    let collider = match kind {
        "cube" => component("BoxCollider", &json!({})),
        "sphere" => component("SphereCollider", &json!({})),
        "capsule" | "cylinder" => component("CapsuleCollider", &json!({})),
        _ => component("MeshCollider", &json!({"m_Mesh": mesh})),
    };
    vec![
        component("MeshFilter", &json!({"m_Mesh": mesh})),
        component("MeshRenderer", &json!({})),
        collider,
    ]
}

fn player_prefab() -> Node {
    let mut root = Node::new("Player");
    root.tag = "Player".into();
    root.components.extend(primitive_components("capsule"));
    if let Some(r) = root.components.iter_mut().find(|c| c.0 == "MeshRenderer") {
        r.2.insert("m_Materials".into(), json!(["Assets/Materials/Player.mat"]));
    }
    root.components
        .push(component("Rigidbody", &json!({"m_Constraints": 112})));
    root.components.push((
        "PlayerController".into(),
        Some(true),
        serde_json::from_value(json!({"speed": 5.0, "jumpHeight": 2.0})).unwrap_or_default(),
    ));
    let mut target = Node::new("CameraTarget");
    target.position = [0.0, 1.5, 0.0];
    root.children.push(target);
    root
}

/// Mark every node of a prefab instance with its link.
pub fn link_instance(node: &mut Node, guid: &str, rel: &str) {
    node.prefab = Some(PrefabLink {
        prefab_guid: guid.to_string(),
        relative_path: rel.to_string(),
    });
    for c in &mut node.children {
        let child_rel = if rel.is_empty() {
            c.name.clone()
        } else {
            format!("{rel}/{}", c.name)
        };
        link_instance(c, guid, &child_rel);
    }
}

fn script(class: &str, base: &str, fields: Value, methods: &[&str]) -> AssetKind {
    AssetKind::Script(ScriptInfo {
        class: class.into(),
        namespace: String::new(),
        base: base.into(),
        fields: serde_json::from_value(fields).unwrap_or_default(),
        methods: methods.iter().map(|m| m.to_string()).collect(),
    })
}

pub fn populate(ed: &mut Editor) {
    let db = &mut ed.assets;
    for folder in [
        "Assets/Scenes",
        "Assets/Scripts/Editor",
        "Assets/Tests/EditMode",
        "Assets/Tests/PlayMode",
    ] {
        db.put(folder, AssetKind::Folder);
    }
    db.put(
        "Assets/Scripts/PlayerController.cs",
        script(
            "PlayerController",
            "MonoBehaviour",
            json!({"speed": 5.0, "jumpHeight": 2.0}),
            &["Move", "Jump"],
        ),
    );
    db.put(
        "Assets/Scripts/GameSettings.cs",
        script(
            "GameSettings",
            "ScriptableObject",
            json!({"difficulty": 1, "musicVolume": 0.8}),
            &[],
        ),
    );
    db.put(
        "Assets/Tests/EditMode/PlayerControllerTests.cs",
        script(
            "PlayerControllerTests",
            "TestFixture",
            json!({}),
            &[
                "SpeedIsPositive",
                "JumpHeightDefault",
                "MoveChangesPosition",
            ],
        ),
    );
    db.put(
        "Assets/Tests/PlayMode/GameplayTests.cs",
        script(
            "GameplayTests",
            "TestFixture",
            json!({}),
            &["PlayerFallsWithGravity", "SceneLoads"],
        ),
    );
    db.put(
        "Assets/Textures/Grass.png",
        AssetKind::Data {
            type_name: "Texture2D".into(),
            body: json!({"width": 512, "height": 512, "format": "RGBA32"}),
        },
    );
    db.put(
        "Assets/Audio/Jump.wav",
        AssetKind::Data {
            type_name: "AudioClip".into(),
            body: json!({"length": 0.42, "channels": 1, "frequency": 44100}),
        },
    );
    let toon = shaders::toon_shader();
    db.put(
        "Assets/Shaders/Toon.shader",
        AssetKind::Shader {
            name: toon.name.clone(),
            properties: toon.properties.clone(),
        },
    );

    let mut ground = default_material_props("Standard", ed).unwrap_or_default();
    ground.insert(
        "_Color".into(),
        json!({"r": 0.36, "g": 0.6, "b": 0.29, "a": 1.0}),
    );
    ground.insert("_MainTex".into(), json!("Assets/Textures/Grass.png"));
    ed.assets.put(
        "Assets/Materials/Ground.mat",
        AssetKind::Material {
            shader: "Standard".into(),
            props: ground,
        },
    );
    let mut player_mat = default_material_props("Standard", ed).unwrap_or_default();
    player_mat.insert(
        "_Color".into(),
        json!({"r": 0.2, "g": 0.4, "b": 0.9, "a": 1.0}),
    );
    ed.assets.put(
        "Assets/Materials/Player.mat",
        AssetKind::Material {
            shader: "Standard".into(),
            props: player_mat,
        },
    );
    ed.assets.put(
        "Assets/Settings/GameSettings.asset",
        AssetKind::Data {
            type_name: "GameSettings".into(),
            body: json!({"difficulty": 2, "musicVolume": 0.8}),
        },
    );
    let prefab_guid = ed
        .assets
        .put(PLAYER_PREFAB, AssetKind::Prefab(player_prefab()));

    let mut ground_node = Node::new("Ground");
    ground_node.components.extend(primitive_components("plane"));
    if let Some(r) = ground_node
        .components
        .iter_mut()
        .find(|c| c.0 == "MeshRenderer")
    {
        r.2.insert("m_Materials".into(), json!(["Assets/Materials/Ground.mat"]));
    }
    ground_node.scale = [5.0, 1.0, 5.0];
    ground_node.is_static = true;
    let mut player = player_prefab();
    player.position = [0.0, 1.0, 0.0];
    link_instance(&mut player, &prefab_guid, "");
    ed.assets.put(
        SAMPLE_SCENE,
        AssetKind::Scene(vec![camera_node(), light_node(), ground_node, player]),
    );

    let mut geometry = Node::new("Level Geometry");
    let mut platform = Node::new("Platform");
    platform.components.extend(primitive_components("cube"));
    platform.scale = [4.0, 0.5, 4.0];
    geometry.children.push(platform);
    ed.assets.put(
        LEVEL_SCENE,
        AssetKind::Scene(vec![camera_node(), light_node(), geometry]),
    );

    super::scene::open(ed, SAMPLE_SCENE, super::scene::OpenMode::Single);
    ed.console
        .push("log", "Hera AgentConnector initialized.", "");
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_seed_opens_sample_scene() {
        let mut h = Harness::new();
        let info = h.ok("scene", json!({"action": "info"}));
        assert_eq!(info["active"]["path"], super::SAMPLE_SCENE);
        assert_eq!(info["active"]["isDirty"], false);
        assert_eq!(info["loaded"][0]["rootCount"], 4);
    }
}
