//! The built-in component types the simulated Editor knows, with their serialized defaults.
//!
//! Property names are Unity's serialized names (`m_Mass`), so `manage_components get` looks like a
//! SerializedObject dump; lookups also accept the friendly spelling (`mass`, see
//! [`property_key`]). Script components come from `.cs` assets instead (see `asset_db`).

use serde_json::{Map, Value, json};

pub struct ComponentDef {
    pub name: &'static str,
    pub namespace: &'static str,
    /// Behaviours carry an `enabled` flag.
    pub behaviour: bool,
    /// `[DisallowMultipleComponent]`-like: a second one is refused.
    pub single: bool,
    /// A package that must be installed for the type to exist.
    pub package: Option<&'static str>,
    defaults: fn() -> Value,
}

impl ComponentDef {
    pub fn defaults(&self) -> Map<String, Value> {
        match (self.defaults)() {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
    pub fn full_name(&self) -> String {
        format!("{}.{}", self.namespace, self.name)
    }
}

const UE: &str = "UnityEngine";
const UI: &str = "UnityEngine.UI";

fn color(r: f64, g: f64, b: f64, a: f64) -> Value {
    json!({"r": r, "g": g, "b": b, "a": a})
}

macro_rules! def {
    ($name:expr, $ns:expr, $beh:expr, $single:expr, $pkg:expr, $defaults:expr) => {
        ComponentDef {
            name: $name,
            namespace: $ns,
            behaviour: $beh,
            single: $single,
            package: $pkg,
            defaults: $defaults,
        }
    };
}

/// Every built-in type, in a stable order.
pub static BUILTIN: &[ComponentDef] = &[
    def!("Transform", UE, false, true, None, || json!({})),
    def!("RectTransform", UE, false, true, None, || json!({
        "m_AnchorMin": {"x": 0.5, "y": 0.5}, "m_AnchorMax": {"x": 0.5, "y": 0.5},
        "m_AnchoredPosition": {"x": 0.0, "y": 0.0}, "m_SizeDelta": {"x": 100.0, "y": 100.0},
        "m_Pivot": {"x": 0.5, "y": 0.5}})),
    def!("Camera", UE, true, true, None, || json!({
        "m_ClearFlags": 1, "m_BackGroundColor": color(0.192, 0.302, 0.475, 0.0),
        "field of view": 60.0, "near clip plane": 0.3, "far clip plane": 1000.0,
        "orthographic": false, "orthographic size": 5.0, "m_Depth": -1.0, "m_CullingMask": -1})),
    def!("AudioListener", UE, true, true, None, || json!({})),
    def!("Light", UE, true, true, None, || json!({
        "m_Type": 1, "m_Color": color(1.0, 0.957, 0.839, 1.0), "m_Intensity": 1.0,
        "m_Range": 10.0, "m_SpotAngle": 30.0, "m_Shadows": {"m_Type": 2}, "m_Lightmapping": 4})),
    def!(
        "MeshFilter",
        UE,
        false,
        true,
        None,
        || json!({"m_Mesh": null})
    ),
    def!("MeshRenderer", UE, false, true, None, || json!({
        "m_Enabled": true, "m_CastShadows": 1, "m_ReceiveShadows": true,
        "m_Materials": ["Default-Material"], "m_StaticShadowCaster": false})),
    def!("SkinnedMeshRenderer", UE, false, true, None, || json!({
        "m_Enabled": true, "m_Materials": [], "m_Mesh": null})),
    def!("BoxCollider", UE, false, false, None, || json!({
        "m_IsTrigger": false, "m_Enabled": true, "m_Center": {"x":0.0,"y":0.0,"z":0.0},
        "m_Size": {"x":1.0,"y":1.0,"z":1.0}})),
    def!("SphereCollider", UE, false, false, None, || json!({
        "m_IsTrigger": false, "m_Enabled": true, "m_Center": {"x":0.0,"y":0.0,"z":0.0}, "m_Radius": 0.5})),
    def!("CapsuleCollider", UE, false, false, None, || json!({
        "m_IsTrigger": false, "m_Enabled": true, "m_Center": {"x":0.0,"y":0.0,"z":0.0},
        "m_Radius": 0.5, "m_Height": 2.0, "m_Direction": 1})),
    def!("MeshCollider", UE, false, false, None, || json!({
        "m_IsTrigger": false, "m_Enabled": true, "m_Convex": false, "m_Mesh": null})),
    def!("Rigidbody", UE, false, true, None, || json!({
        "m_Mass": 1.0, "m_LinearDamping": 0.0, "m_AngularDamping": 0.05, "m_UseGravity": true,
        "m_IsKinematic": false, "m_Interpolate": 0, "m_CollisionDetection": 0, "m_Constraints": 0})),
    def!("CharacterController", UE, false, true, None, || json!({
        "m_Height": 2.0, "m_Radius": 0.5, "m_SlopeLimit": 45.0, "m_StepOffset": 0.3,
        "m_Center": {"x":0.0,"y":0.0,"z":0.0}})),
    def!("AudioSource", UE, true, false, None, || json!({
        "m_audioClip": null, "m_Volume": 1.0, "m_Pitch": 1.0, "Loop": false, "m_PlayOnAwake": true,
        "Mute": false, "m_SpatialBlend": 0.0})),
    def!("Animator", UE, true, true, None, || json!({
        "m_Controller": null, "m_Avatar": null, "m_ApplyRootMotion": false, "m_UpdateMode": 0,
        "m_CullingMode": 0})),
    def!("ParticleSystem", UE, false, true, None, || json!({
        "lengthInSec": 5.0, "looping": true, "playOnAwake": true, "maxNumParticles": 1000})),
    def!("Canvas", UE, true, true, None, || json!({
        "m_RenderMode": 0, "m_PixelPerfect": false, "m_SortingOrder": 0, "m_TargetDisplay": 0})),
    def!(
        "CanvasRenderer",
        UE,
        false,
        true,
        None,
        || json!({"m_CullTransparentMesh": true})
    ),
    def!("CanvasGroup", UE, true, true, None, || json!({
        "m_Alpha": 1.0, "m_Interactable": true, "m_BlocksRaycasts": true})),
    def!("CanvasScaler", UI, true, true, None, || json!({
        "m_UiScaleMode": 0, "m_ScaleFactor": 1.0,
        "m_ReferenceResolution": {"x": 800.0, "y": 600.0}, "m_MatchWidthOrHeight": 0.0})),
    def!("GraphicRaycaster", UI, true, true, None, || json!({
        "m_IgnoreReversedGraphics": true, "m_BlockingObjects": 0})),
    def!("Image", UI, true, true, None, || json!({
        "m_Color": color(1.0, 1.0, 1.0, 1.0), "m_Sprite": null, "m_RaycastTarget": true,
        "m_Type": 0, "m_PreserveAspect": false})),
    def!("RawImage", UI, true, true, None, || json!({
        "m_Color": color(1.0, 1.0, 1.0, 1.0), "m_Texture": null, "m_RaycastTarget": true})),
    def!("Text", UI, true, true, None, || json!({
        "m_Text": "New Text", "m_FontSize": 14, "m_Color": color(0.196, 0.196, 0.196, 1.0),
        "m_Alignment": 0, "m_RaycastTarget": true})),
    def!("Button", UI, true, true, None, || json!({
        "m_Interactable": true, "m_Transition": 1, "m_OnClick": {"m_PersistentCalls": []}})),
    def!("Toggle", UI, true, true, None, || json!({
        "m_Interactable": true, "m_IsOn": true, "onValueChanged": {"m_PersistentCalls": []}})),
    def!("Slider", UI, true, true, None, || json!({
        "m_Interactable": true, "m_MinValue": 0.0, "m_MaxValue": 1.0, "m_Value": 0.0,
        "m_WholeNumbers": false, "m_Direction": 0})),
    def!("Scrollbar", UI, true, true, None, || json!({
        "m_Interactable": true, "m_Value": 0.0, "m_Size": 0.2, "m_Direction": 0})),
    def!("ScrollRect", UI, true, true, None, || json!({
        "m_Horizontal": true, "m_Vertical": true, "m_Inertia": true, "m_ScrollSensitivity": 1.0,
        "m_Content": null})),
    def!("InputField", UI, true, true, None, || json!({
        "m_Interactable": true, "m_Text": "", "m_CharacterLimit": 0})),
    def!("Dropdown", UI, true, true, None, || json!({
        "m_Interactable": true, "m_Value": 0, "m_Options": {"m_Options": []}})),
    def!(
        "Mask",
        UI,
        true,
        true,
        None,
        || json!({"m_ShowMaskGraphic": true})
    ),
    def!("LayoutElement", UI, true, true, None, || json!({
        "m_IgnoreLayout": false, "m_MinWidth": -1.0, "m_MinHeight": -1.0,
        "m_PreferredWidth": -1.0, "m_PreferredHeight": -1.0})),
    def!("HorizontalLayoutGroup", UI, true, true, None, || json!({
        "m_Spacing": 0.0, "m_ChildAlignment": 0, "m_ChildControlWidth": true, "m_ChildControlHeight": true})),
    def!("VerticalLayoutGroup", UI, true, true, None, || json!({
        "m_Spacing": 0.0, "m_ChildAlignment": 0, "m_ChildControlWidth": true, "m_ChildControlHeight": true})),
    def!(
        "TextMeshProUGUI",
        "TMPro",
        true,
        true,
        Some("com.unity.ugui"),
        || json!({
        "m_text": "New Text", "m_fontSize": 36.0, "m_fontColor": color(1.0, 1.0, 1.0, 1.0),
        "m_HorizontalAlignment": 1, "m_RaycastTarget": true})
    ),
    def!(
        "TMP_InputField",
        "TMPro",
        true,
        true,
        Some("com.unity.ugui"),
        || json!({
        "m_Interactable": true, "m_Text": "", "m_CharacterLimit": 0})
    ),
    def!(
        "TMP_Dropdown",
        "TMPro",
        true,
        true,
        Some("com.unity.ugui"),
        || json!({
        "m_Interactable": true, "m_Value": 0, "m_Options": {"m_Options": []}})
    ),
    def!(
        "EventSystem",
        "UnityEngine.EventSystems",
        true,
        true,
        None,
        || json!({
        "m_FirstSelected": null, "m_sendNavigationEvents": true, "m_DragThreshold": 10})
    ),
    def!(
        "StandaloneInputModule",
        "UnityEngine.EventSystems",
        true,
        true,
        None,
        || json!({
        "m_HorizontalAxis": "Horizontal", "m_VerticalAxis": "Vertical", "m_SubmitButton": "Submit"})
    ),
    def!(
        "InputSystemUIInputModule",
        "UnityEngine.InputSystem.UI",
        true,
        true,
        Some("com.unity.inputsystem"),
        || json!({"m_MoveRepeatDelay": 0.5, "m_MoveRepeatRate": 0.1})
    ),
    def!(
        "PlayerInput",
        "UnityEngine.InputSystem",
        true,
        true,
        Some("com.unity.inputsystem"),
        || json!({"m_Actions": null, "m_DefaultActionMap": "Player", "m_NotificationBehavior": 0})
    ),
    def!(
        "NavMeshAgent",
        "UnityEngine.AI",
        true,
        true,
        None,
        || json!({
        "m_Speed": 3.5, "m_AngularSpeed": 120.0, "m_Acceleration": 8.0, "m_StoppingDistance": 0.0,
        "m_Radius": 0.5, "m_Height": 2.0})
    ),
    def!(
        "NavMeshObstacle",
        "UnityEngine.AI",
        true,
        true,
        None,
        || json!({
        "m_Shape": 1, "m_Carve": false, "m_Size": {"x":1.0,"y":1.0,"z":1.0}})
    ),
    def!(
        "NavMeshSurface",
        "Unity.AI.Navigation",
        true,
        false,
        Some("com.unity.ai.navigation"),
        || json!({"m_AgentTypeID": 0, "m_CollectObjects": 0, "m_LayerMask": -1, "m_UseGeometry": 0,
                  "m_NavMeshData": null})
    ),
    def!(
        "PlayableDirector",
        "UnityEngine.Playables",
        true,
        true,
        None,
        || json!({
        "m_PlayableAsset": null, "m_InitialState": 1, "m_WrapMode": 2})
    ),
    def!(
        "LODGroup",
        UE,
        false,
        true,
        None,
        || json!({"m_LODs": [], "m_Enabled": true})
    ),
    def!("ReflectionProbe", UE, true, true, None, || json!({
        "m_Mode": 0, "m_Resolution": 128, "m_BoxSize": {"x":10.0,"y":10.0,"z":10.0}})),
    def!("SpriteRenderer", UE, false, true, None, || json!({
        "m_Sprite": null, "m_Color": color(1.0, 1.0, 1.0, 1.0), "m_FlipX": false, "m_FlipY": false,
        "m_SortingOrder": 0})),
];

/// Find a built-in type by short or full name, case-insensitively.
pub fn builtin(name: &str) -> Option<&'static ComponentDef> {
    let wanted = name.trim();
    BUILTIN
        .iter()
        .find(|d| d.name.eq_ignore_ascii_case(wanted) || d.full_name().eq_ignore_ascii_case(wanted))
}

/// Map a caller's property spelling onto an existing serialized key: exact, then
/// case-insensitive, then ignoring an `m_` prefix and spaces/underscores (`mass` → `m_Mass`).
pub fn property_key<'a>(
    props: impl IntoIterator<Item = &'a String>,
    wanted: &str,
) -> Option<String> {
    let keys: Vec<&String> = props.into_iter().collect();
    if let Some(k) = keys.iter().find(|k| k.as_str() == wanted) {
        return Some((*k).clone());
    }
    if let Some(k) = keys.iter().find(|k| k.eq_ignore_ascii_case(wanted)) {
        return Some((*k).clone());
    }
    let norm = |s: &str| {
        let lower = s.to_ascii_lowercase();
        let trimmed = lower.strip_prefix("m_").unwrap_or(&lower).to_string();
        trimmed.replace([' ', '_'], "")
    };
    let target = norm(wanted);
    keys.iter()
        .find(|k| norm(k) == target)
        .map(|k| (*k).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_component_lookup_and_friendly_property_names() {
        assert_eq!(builtin("rigidbody").unwrap().name, "Rigidbody");
        assert_eq!(builtin("UnityEngine.UI.Button").unwrap().name, "Button");
        assert!(builtin("NoSuchThing").is_none());
        let props = builtin("Rigidbody").unwrap().defaults();
        assert_eq!(
            property_key(props.keys(), "mass").as_deref(),
            Some("m_Mass")
        );
        assert_eq!(
            property_key(props.keys(), "use_gravity").as_deref(),
            Some("m_UseGravity")
        );
        assert_eq!(property_key(props.keys(), "bogus"), None);
    }
}
