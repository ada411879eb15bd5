//! `manage_ui`: build uGUI elements (with a Canvas and EventSystem created on demand) and edit
//! RectTransforms with Unity's own anchor/offset arithmetic.

use super::args::{self, Args, Fail, v2json};
use super::gameobjects;
use super::seed::component;
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Map, Value, json};

/// Screen size the root Canvas covers (the Game view's default resolution).
const SCREEN: [f64; 2] = [1920.0, 1080.0];
const UI_LAYER: u32 = 5;

const ELEMENTS: [&str; 12] = [
    "canvas",
    "panel",
    "button",
    "text",
    "image",
    "raw_image",
    "toggle",
    "slider",
    "input_field",
    "dropdown",
    "scroll_view",
    "event_system",
];

fn v2(props: &Map<String, Value>, key: &str, default: [f64; 2]) -> [f64; 2] {
    props
        .get(key)
        .map(|v| {
            [
                v["x"].as_f64().unwrap_or(default[0]),
                v["y"].as_f64().unwrap_or(default[1]),
            ]
        })
        .unwrap_or(default)
}

struct Rect {
    anchor_min: [f64; 2],
    anchor_max: [f64; 2],
    pos: [f64; 2],
    size: [f64; 2],
    pivot: [f64; 2],
}

impl Rect {
    fn read(props: &Map<String, Value>) -> Rect {
        Rect {
            anchor_min: v2(props, "m_AnchorMin", [0.5, 0.5]),
            anchor_max: v2(props, "m_AnchorMax", [0.5, 0.5]),
            pos: v2(props, "m_AnchoredPosition", [0.0, 0.0]),
            size: v2(props, "m_SizeDelta", [100.0, 100.0]),
            pivot: v2(props, "m_Pivot", [0.5, 0.5]),
        }
    }
    fn write(&self, props: &mut Map<String, Value>) {
        props.insert("m_AnchorMin".into(), v2json(self.anchor_min));
        props.insert("m_AnchorMax".into(), v2json(self.anchor_max));
        props.insert("m_AnchoredPosition".into(), v2json(self.pos));
        props.insert("m_SizeDelta".into(), v2json(self.size));
        props.insert("m_Pivot".into(), v2json(self.pivot));
    }
    fn offset_min(&self) -> [f64; 2] {
        [
            self.pos[0] - self.size[0] * self.pivot[0],
            self.pos[1] - self.size[1] * self.pivot[1],
        ]
    }
    fn offset_max(&self) -> [f64; 2] {
        [
            self.pos[0] + self.size[0] * (1.0 - self.pivot[0]),
            self.pos[1] + self.size[1] * (1.0 - self.pivot[1]),
        ]
    }
    fn set_offset_min(&mut self, v: [f64; 2]) {
        let cur = self.offset_min();
        for i in 0..2 {
            let d = v[i] - cur[i];
            self.size[i] -= d;
            self.pos[i] += d * (1.0 - self.pivot[i]);
        }
    }
    fn set_offset_max(&mut self, v: [f64; 2]) {
        let cur = self.offset_max();
        for i in 0..2 {
            let d = v[i] - cur[i];
            self.size[i] += d;
            self.pos[i] += d * self.pivot[i];
        }
    }
}

/// The size of an object's rect in pixels (root canvases cover the screen).
fn rect_size(ed: &Editor, id: i64, depth: usize) -> [f64; 2] {
    let Some(o) = ed.world.get(id) else {
        return [0.0, 0.0];
    };
    let is_root_canvas = o.has_component("Canvas")
        && o.parent
            .and_then(|p| ed.world.get(p))
            .is_none_or(|p| !p.has_component("RectTransform"));
    if is_root_canvas || depth > 64 {
        return SCREEN;
    }
    let Some(rt) = o.component("RectTransform") else {
        return [0.0, 0.0];
    };
    let r = Rect::read(&rt.props);
    let parent = o
        .parent
        .map(|p| rect_size(ed, p, depth + 1))
        .unwrap_or(SCREEN);
    [
        r.size[0] + (r.anchor_max[0] - r.anchor_min[0]) * parent[0],
        r.size[1] + (r.anchor_max[1] - r.anchor_min[1]) * parent[1],
    ]
}

/// Screen-space centre of a UI element (origin bottom-left), composed up to the root canvas.
pub fn screen_center(ed: &Editor, id: i64) -> Option<[f64; 2]> {
    let (origin, _) = screen_rect(ed, id, 0)?;
    let size = rect_size(ed, id, 0);
    Some([origin[0] + size[0] / 2.0, origin[1] + size[1] / 2.0])
}

/// (bottom-left corner, size) of an element's rect in screen space.
fn screen_rect(ed: &Editor, id: i64, depth: usize) -> Option<([f64; 2], [f64; 2])> {
    let o = ed.world.get(id)?;
    let rt = o.component("RectTransform")?;
    let parent_is_ui = o
        .parent
        .and_then(|p| ed.world.get(p))
        .is_some_and(|p| p.has_component("RectTransform"));
    if (o.has_component("Canvas") && !parent_is_ui) || depth > 64 {
        return Some(([0.0, 0.0], SCREEN));
    }
    let (porigin, psize) = match o.parent {
        Some(p) if parent_is_ui => screen_rect(ed, p, depth + 1)?,
        _ => ([0.0, 0.0], SCREEN),
    };
    let r = Rect::read(&rt.props);
    let size = rect_size(ed, id, 0);
    let mut corner = [0.0; 2];
    for i in 0..2 {
        let anchor_ref = porigin[i]
            + psize[i] * (r.anchor_min[i] + (r.anchor_max[i] - r.anchor_min[i]) * r.pivot[i]);
        corner[i] = anchor_ref + r.pos[i] - size[i] * r.pivot[i];
    }
    Some((corner, size))
}

/// The Connector's RectResult: `{instance_id, name, path, rect: {anchors, position, size_delta,
/// pivot, offsets, size}, preset}`.
fn rect_json(ed: &Editor, id: i64) -> Value {
    let Some(rt) = ed.world.get(id).and_then(|o| o.component("RectTransform")) else {
        return Value::Null;
    };
    let r = Rect::read(&rt.props);
    let size = rect_size(ed, id, 0);
    json!({
        "instance_id": id,
        "name": ed.world.get(id).map(|o| o.name.clone()),
        "path": format!("/{}", ed.world.path_of(id)),
        "rect": {
            "anchor_min": v2json(r.anchor_min), "anchor_max": v2json(r.anchor_max),
            "anchored_position": v2json(r.pos), "size_delta": v2json(r.size),
            "pivot": v2json(r.pivot), "offset_min": v2json(r.offset_min()),
            "offset_max": v2json(r.offset_max()),
            "size": {"width": args::round(size[0]), "height": args::round(size[1])},
        },
        "preset": preset_name(r.anchor_min, r.anchor_max),
    })
}

/// `stretch`, `<top|middle|bottom>-<left|center|right>`, or `custom`.
fn preset_name(min: [f64; 2], max: [f64; 2]) -> String {
    if min == [0.0, 0.0] && max == [1.0, 1.0] {
        return "stretch".into();
    }
    if min != max {
        return "custom".into();
    }
    let pick = |x: f64, names: [&'static str; 3]| {
        [0.0, 0.5, 1.0]
            .iter()
            .position(|p| *p == x)
            .map(|i| names[i])
    };
    match (
        pick(min[1], ["bottom", "middle", "top"]),
        pick(min[0], ["left", "center", "right"]),
    ) {
        (Some(v), Some(h)) => format!("{v}-{h}"),
        _ => "custom".into(),
    }
}

/// `create`'s payload: the new element, the auxiliary objects made on the way, and its whole
/// RectResult under `rect` (so anchors are at `rect.rect.anchor_min`).
fn created_json(ed: &Editor, id: i64, created: Vec<&str>) -> Value {
    let Some(o) = ed.world.get(id) else {
        return Value::Null;
    };
    json!({
        "instance_id": id, "name": o.name, "path": format!("/{}", ed.world.path_of(id)),
        "scene": ed.world.scene(o.scene).map(|s| s.name()),
        "components": o.component_types(), "created": created, "rect": rect_json(ed, id),
    })
}

fn has_component_anywhere(ed: &Editor, ty: &str) -> bool {
    ed.world
        .walk()
        .into_iter()
        .any(|id| ed.world.get(id).is_some_and(|o| o.has_component(ty)))
}

fn ui_target(ed: &Editor, a: Args) -> Result<i64, Fail> {
    let id = gameobjects::target(ed, a)?;
    if !ed
        .world
        .get(id)
        .is_some_and(|o| o.has_component("RectTransform"))
    {
        return Err(Fail::new(
            "COMPONENT_NOT_FOUND",
            format!(
                "{} has no RectTransform; it is not a UI element.",
                ed.world.path_of(id)
            ),
        ));
    }
    Ok(id)
}

/// Create a UI object: RectTransform instead of Transform, UI layer, given components.
fn ui_object(
    ed: &mut Editor,
    name: &str,
    parent: Option<i64>,
    comps: &[(&str, Value)],
    size: [f64; 2],
) -> i64 {
    let scene = ed.world.active_scene;
    let id = ed.world.create(name, scene, parent);
    if let Some(o) = ed.world.get_mut(id) {
        o.layer = UI_LAYER;
        if let Some(t) = o.components.first_mut() {
            t.type_name = "RectTransform".into();
            let mut props = super::component_types::builtin("RectTransform")
                .map(|d| d.defaults())
                .unwrap_or_default();
            props.insert("m_SizeDelta".into(), v2json(size));
            t.props = props;
        }
    }
    for (ty, overrides) in comps {
        let (t, en, props) = component(ty, overrides);
        ed.world.add_component(id, &t, en, props);
    }
    id
}

fn stretch(ed: &mut Editor, id: i64) {
    if let Some(rt) = ed
        .world
        .get_mut(id)
        .and_then(|o| o.component_mut("RectTransform"))
    {
        let r = Rect {
            anchor_min: [0.0, 0.0],
            anchor_max: [1.0, 1.0],
            pos: [0.0, 0.0],
            size: [0.0, 0.0],
            pivot: [0.5, 0.5],
        };
        r.write(&mut rt.props);
    }
}

fn ensure_event_system(ed: &mut Editor) -> Option<i64> {
    let exists = ed.world.walk().into_iter().any(|id| {
        ed.world
            .get(id)
            .is_some_and(|o| o.has_component("EventSystem"))
    });
    if exists {
        return None;
    }
    let scene = ed.world.active_scene;
    let id = ed.world.create("EventSystem", scene, None);
    let module = if ed.packages.is_installed("com.unity.inputsystem") {
        "InputSystemUIInputModule"
    } else {
        "StandaloneInputModule"
    };
    for ty in ["EventSystem", module] {
        let (t, en, props) = component(ty, &json!({}));
        ed.world.add_component(id, &t, en, props);
    }
    Some(id)
}

fn make_canvas(ed: &mut Editor, name: &str, parent: Option<i64>) -> i64 {
    let id = ui_object(
        ed,
        name,
        parent,
        &[
            ("Canvas", json!({})),
            ("CanvasScaler", json!({})),
            ("GraphicRaycaster", json!({})),
        ],
        [0.0, 0.0],
    );
    ensure_event_system(ed);
    id
}

fn text_component(ed: &Editor, flavour: Option<&str>) -> Result<&'static str, Fail> {
    let tmp_ok = ed.packages.is_installed("com.unity.ugui");
    match flavour.map(str::to_ascii_lowercase).as_deref() {
        None => Ok(if tmp_ok { "TextMeshProUGUI" } else { "Text" }),
        Some("tmp" | "textmeshpro" | "textmeshprougui") if tmp_ok => Ok("TextMeshProUGUI"),
        Some("tmp" | "textmeshpro" | "textmeshprougui") => Err(Fail::new(
            "COMPONENT_TYPE_NOT_FOUND",
            "TextMeshPro needs the com.unity.ugui package.",
        )),
        Some("legacy" | "text") => Ok("Text"),
        Some(other) => Err(Fail::invalid(
            "text",
            format!("unknown text flavour '{other}' (tmp or legacy)"),
        )),
    }
}

fn add_label(ed: &mut Editor, parent: i64, text_ty: &str, name: &str, content: &str) -> i64 {
    let overrides = if text_ty == "Text" {
        json!({"m_Text": content})
    } else {
        json!({"m_text": content, "m_fontSize": 24.0})
    };
    let id = ui_object(
        ed,
        name,
        Some(parent),
        &[("CanvasRenderer", json!({})), (text_ty, overrides)],
        [160.0, 30.0],
    );
    stretch(ed, id);
    id
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match action.unwrap_or("") {
        "create" => create(ed, a),
        "get_rect" => {
            let id = ui_target(ed, a)?;
            ok(
                format!("Rect of {}.", ed.world.path_of(id)),
                rect_json(ed, id),
            )
        }
        "set_anchor" => set_anchor(ed, a),
        "set_rect" => {
            let id = ui_target(ed, a)?;
            let Some(rt) = ed.world.get(id).and_then(|o| o.component("RectTransform")) else {
                return Err(Fail::new("COMPONENT_NOT_FOUND", "no RectTransform"));
            };
            let mut r = Rect::read(&rt.props);
            let mut any = false;
            if let Some(v) = a.raw("pivot") {
                r.pivot = args::vec2("pivot", v)?;
                any = true;
            }
            if let Some(v) = a.raw("size_delta") {
                r.size = args::vec2("size_delta", v)?;
                any = true;
            }
            if let Some(v) = a.raw("anchored_position") {
                r.pos = args::vec2("anchored_position", v)?;
                any = true;
            }
            if let Some(v) = a.raw("offset_min") {
                r.set_offset_min(args::vec2("offset_min", v)?);
                any = true;
            }
            if let Some(v) = a.raw("offset_max") {
                r.set_offset_max(args::vec2("offset_max", v)?);
                any = true;
            }
            if !any {
                return Err(Fail::new(
                    "MISSING_PARAM",
                    "Give at least one of anchored_position, size_delta, pivot, offset_min, offset_max.",
                ));
            }
            if let Some(rt) = ed
                .world
                .get_mut(id)
                .and_then(|o| o.component_mut("RectTransform"))
            {
                r.write(&mut rt.props);
            }
            ed.world.touch(id);
            ok(
                format!("Rect of {} updated.", ed.world.path_of(id)),
                rect_json(ed, id),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn create(ed: &mut Editor, a: Args) -> Handled {
    let element = a
        .req_str("element")?
        .to_ascii_lowercase()
        .replace(['-', ' '], "_");
    let element = match element.as_str() {
        "inputfield" => "input_field".to_string(),
        "scrollview" => "scroll_view".to_string(),
        "eventsystem" => "event_system".to_string(),
        "rawimage" => "raw_image".to_string(),
        _ => element,
    };
    if !ELEMENTS.contains(&element.as_str()) {
        return Err(Fail::invalid(
            "element",
            format!("expected one of {}", ELEMENTS.join(", ")),
        ));
    }
    if !ed.world.active().is_some_and(|s| s.loaded) {
        return Err(Fail::new(
            "SCENE_NOT_LOADED",
            "There is no loaded active scene to build UI in.",
        ));
    }
    let text_ty = text_component(ed, a.str("text")?)?;
    let default_name: String = element
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ");
    let name = a
        .str("name")?
        .map(str::to_string)
        .unwrap_or(default_name.clone());
    let content = a.str("content")?.map(str::to_string);
    let had_canvas = has_component_anywhere(ed, "Canvas");
    let had_events = has_component_anywhere(ed, "EventSystem");
    if element == "event_system" {
        let id = ensure_event_system(ed)
            .ok_or_else(|| Fail::new("ALREADY_EXISTS", "The scene already has an EventSystem."))?;
        return ok("Created EventSystem.", created_json(ed, id, Vec::new()));
    }
    let explicit_parent = match a.text("parent")? {
        None => None,
        Some(p) => Some(ed.world.resolve(&p).ok_or_else(|| {
            Fail::new(
                "TARGET_NOT_FOUND",
                format!("No GameObject matches parent '{p}'."),
            )
            .with_data(json!({"parent": p}))
        })?),
    };
    if element == "canvas" {
        let id = make_canvas(ed, &name, explicit_parent);
        let created = if had_events || !has_component_anywhere(ed, "EventSystem") {
            Vec::new()
        } else {
            vec!["EventSystem"]
        };
        let data = created_json(ed, id, created);
        return ok(format!("Created Canvas: {name}"), data);
    }
    let parent = match explicit_parent {
        Some(p) => p,
        None => {
            let existing = ed
                .world
                .walk()
                .into_iter()
                .find(|id| ed.world.get(*id).is_some_and(|o| o.has_component("Canvas")));
            match existing {
                Some(c) => c,
                None => make_canvas(ed, "Canvas", None),
            }
        }
    };
    let white = json!({"r": 1.0, "g": 1.0, "b": 1.0, "a": 1.0});
    let id = match element.as_str() {
        "panel" => {
            let id = ui_object(
                ed,
                &name,
                Some(parent),
                &[
                    ("CanvasRenderer", json!({})),
                    (
                        "Image",
                        json!({"m_Color": {"r": 1.0, "g": 1.0, "b": 1.0, "a": 0.392}}),
                    ),
                ],
                [0.0, 0.0],
            );
            stretch(ed, id);
            id
        }
        "button" => {
            let id = ui_object(
                ed,
                &name,
                Some(parent),
                &[
                    ("CanvasRenderer", json!({})),
                    ("Image", json!({"m_Color": white})),
                    ("Button", json!({})),
                ],
                [160.0, 30.0],
            );
            add_label(
                ed,
                id,
                text_ty,
                if text_ty == "Text" {
                    "Text"
                } else {
                    "Text (TMP)"
                },
                content.as_deref().unwrap_or("Button"),
            );
            id
        }
        "text" => {
            let c = content.as_deref().unwrap_or("New Text");
            let overrides = if text_ty == "Text" {
                json!({"m_Text": c})
            } else {
                json!({"m_text": c})
            };
            ui_object(
                ed,
                &name,
                Some(parent),
                &[("CanvasRenderer", json!({})), (text_ty, overrides)],
                [200.0, 50.0],
            )
        }
        "image" => ui_object(
            ed,
            &name,
            Some(parent),
            &[("CanvasRenderer", json!({})), ("Image", json!({}))],
            [100.0, 100.0],
        ),
        "raw_image" => ui_object(
            ed,
            &name,
            Some(parent),
            &[("CanvasRenderer", json!({})), ("RawImage", json!({}))],
            [100.0, 100.0],
        ),
        "toggle" => {
            let id = ui_object(
                ed,
                &name,
                Some(parent),
                &[("Toggle", json!({}))],
                [160.0, 20.0],
            );
            let bg = ui_object(
                ed,
                "Background",
                Some(id),
                &[("CanvasRenderer", json!({})), ("Image", json!({}))],
                [20.0, 20.0],
            );
            ui_object(
                ed,
                "Checkmark",
                Some(bg),
                &[("CanvasRenderer", json!({})), ("Image", json!({}))],
                [20.0, 20.0],
            );
            add_label(
                ed,
                id,
                text_ty,
                "Label",
                content.as_deref().unwrap_or("Toggle"),
            );
            id
        }
        "slider" => {
            let id = ui_object(
                ed,
                &name,
                Some(parent),
                &[("Slider", json!({}))],
                [160.0, 20.0],
            );
            ui_object(
                ed,
                "Background",
                Some(id),
                &[("CanvasRenderer", json!({})), ("Image", json!({}))],
                [0.0, 0.0],
            );
            let area = ui_object(ed, "Fill Area", Some(id), &[], [-20.0, 0.0]);
            ui_object(
                ed,
                "Fill",
                Some(area),
                &[("CanvasRenderer", json!({})), ("Image", json!({}))],
                [10.0, 0.0],
            );
            let handle_area = ui_object(ed, "Handle Slide Area", Some(id), &[], [-20.0, 0.0]);
            ui_object(
                ed,
                "Handle",
                Some(handle_area),
                &[("CanvasRenderer", json!({})), ("Image", json!({}))],
                [20.0, 0.0],
            );
            id
        }
        "input_field" => {
            let field = if text_ty == "Text" {
                "InputField"
            } else {
                "TMP_InputField"
            };
            let id = ui_object(
                ed,
                &name,
                Some(parent),
                &[
                    ("CanvasRenderer", json!({})),
                    ("Image", json!({})),
                    (
                        field,
                        json!({"m_Text": content.clone().unwrap_or_default()}),
                    ),
                ],
                [160.0, 30.0],
            );
            add_label(ed, id, text_ty, "Placeholder", "Enter text...");
            add_label(ed, id, text_ty, "Text", content.as_deref().unwrap_or(""));
            id
        }
        "dropdown" => {
            let dd = if text_ty == "Text" {
                "Dropdown"
            } else {
                "TMP_Dropdown"
            };
            let id = ui_object(
                ed,
                &name,
                Some(parent),
                &[
                    ("CanvasRenderer", json!({})),
                    ("Image", json!({})),
                    (
                        dd,
                        json!({"m_Options": {"m_Options": [{"m_Text": "Option A"}, {"m_Text": "Option B"}, {"m_Text": "Option C"}]}}),
                    ),
                ],
                [160.0, 30.0],
            );
            add_label(
                ed,
                id,
                text_ty,
                "Label",
                content.as_deref().unwrap_or("Option A"),
            );
            id
        }
        _ => {
            let id = ui_object(
                ed,
                &name,
                Some(parent),
                &[
                    ("CanvasRenderer", json!({})),
                    ("Image", json!({})),
                    ("ScrollRect", json!({})),
                ],
                [200.0, 200.0],
            );
            let viewport = ui_object(
                ed,
                "Viewport",
                Some(id),
                &[
                    ("CanvasRenderer", json!({})),
                    ("Image", json!({})),
                    ("Mask", json!({"m_ShowMaskGraphic": false})),
                ],
                [0.0, 0.0],
            );
            stretch(ed, viewport);
            let content_id = ui_object(ed, "Content", Some(viewport), &[], [0.0, 300.0]);
            let content_path = ed.world.path_of(content_id);
            if let Some(sr) = ed
                .world
                .get_mut(id)
                .and_then(|o| o.component_mut("ScrollRect"))
            {
                sr.props.insert("m_Content".into(), json!(content_path));
            }
            id
        }
    };
    let mut created = Vec::new();
    if !had_canvas && has_component_anywhere(ed, "Canvas") {
        created.push("Canvas");
    }
    if !had_events && has_component_anywhere(ed, "EventSystem") {
        created.push("EventSystem");
    }
    let data = created_json(ed, id, created);
    ok(
        format!(
            "Created {}: {}",
            element.replace('_', " "),
            ed.world.get(id).map(|o| o.name.clone()).unwrap_or_default()
        ),
        data,
    )
}

/// (anchor_min, anchor_max) of a preset keyword.
fn preset(name: &str) -> Option<([f64; 2], [f64; 2])> {
    let n = name.to_ascii_lowercase().replace(['-', ' ', '_'], "");
    Some(match n.as_str() {
        "topleft" => ([0.0, 1.0], [0.0, 1.0]),
        "topcenter" | "top" => ([0.5, 1.0], [0.5, 1.0]),
        "topright" => ([1.0, 1.0], [1.0, 1.0]),
        "middleleft" | "left" => ([0.0, 0.5], [0.0, 0.5]),
        "middlecenter" | "center" | "middle" => ([0.5, 0.5], [0.5, 0.5]),
        "middleright" | "right" => ([1.0, 0.5], [1.0, 0.5]),
        "bottomleft" => ([0.0, 0.0], [0.0, 0.0]),
        "bottomcenter" | "bottom" => ([0.5, 0.0], [0.5, 0.0]),
        "bottomright" => ([1.0, 0.0], [1.0, 0.0]),
        "stretch" | "stretchall" | "fill" => ([0.0, 0.0], [1.0, 1.0]),
        "topstretch" => ([0.0, 1.0], [1.0, 1.0]),
        "middlestretch" => ([0.0, 0.5], [1.0, 0.5]),
        "bottomstretch" => ([0.0, 0.0], [1.0, 0.0]),
        "leftstretch" => ([0.0, 0.0], [0.0, 1.0]),
        "centerstretch" => ([0.5, 0.0], [0.5, 1.0]),
        "rightstretch" => ([1.0, 0.0], [1.0, 1.0]),
        _ => return None,
    })
}

fn set_anchor(ed: &mut Editor, a: Args) -> Handled {
    let id = ui_target(ed, a)?;
    let snap = a.flag("snap")?;
    let (min, max) = match a.str("preset")? {
        Some(p) => preset(p).ok_or_else(|| {
            Fail::invalid(
                "preset",
                format!("unknown preset '{p}' (e.g. top_left, center, stretch, bottom_stretch)"),
            )
        })?,
        None => {
            let min = args::vec2(
                "anchor_min",
                a.raw("anchor_min")
                    .ok_or_else(|| Fail::missing("anchor_min"))?,
            )?;
            let max = args::vec2(
                "anchor_max",
                a.raw("anchor_max")
                    .ok_or_else(|| Fail::missing("anchor_max"))?,
            )?;
            (min, max)
        }
    };
    if (0..2).any(|i| min[i] > max[i]) {
        return Err(Fail::invalid(
            "anchor_min",
            "anchor_min must not exceed anchor_max",
        ));
    }
    let pivot = match a.raw("pivot") {
        Some(v) => Some(args::vec2("pivot", v)?),
        None => None,
    };
    let Some(rt) = ed
        .world
        .get_mut(id)
        .and_then(|o| o.component_mut("RectTransform"))
    else {
        return Err(Fail::new("COMPONENT_NOT_FOUND", "no RectTransform"));
    };
    let mut r = Rect::read(&rt.props);
    r.anchor_min = min;
    r.anchor_max = max;
    if let Some(p) = pivot {
        r.pivot = p;
    }
    if snap {
        for i in 0..2 {
            if min[i] == max[i] {
                if pivot.is_none() {
                    r.pivot[i] = min[i];
                }
            } else {
                r.size[i] = 0.0;
            }
            r.pos[i] = 0.0;
        }
    }
    r.write(&mut rt.props);
    ed.world.touch(id);
    ok(
        format!("Anchors of {} set.", ed.world.path_of(id)),
        rect_json(ed, id),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_ui_create_and_rect_math() {
        let mut h = Harness::new();
        let b = h.ok(
            "manage_ui",
            json!({"action": "create", "element": "button", "content": "Go"}),
        );
        assert_eq!(b["path"], "/Canvas/Button");
        assert_eq!(b["created"], json!(["Canvas", "EventSystem"]));
        assert!(b["rect"]["rect"]["anchor_min"].is_object());
        assert!(
            b["components"]
                .as_array()
                .unwrap()
                .contains(&json!("Button"))
        );
        assert_eq!(
            h.ok("find_gameobjects", json!({"component": "EventSystem"}))["total"],
            1
        );
        let label = h.ok("manage_components", json!({"action": "get", "path": "Canvas/Button/Text (TMP)", "type": "TextMeshProUGUI", "property": "m_text"}));
        assert_eq!(label["value"], "Go");
        let r = h.ok(
            "manage_ui",
            json!({"action": "get_rect", "path": "Canvas/Button"}),
        );
        assert_eq!(r["rect"]["size"]["width"], 160.0);
        h.ok("manage_ui", json!({"action": "set_anchor", "path": "Canvas/Button", "preset": "top_left", "snap": true}));
        let r = h.ok(
            "manage_ui",
            json!({"action": "get_rect", "path": "Canvas/Button"}),
        );
        assert_eq!(r["rect"]["pivot"], json!({"x": 0.0, "y": 1.0}));
        assert_eq!(r["preset"], "top-left");
        h.ok("manage_ui", json!({"action": "set_rect", "path": "Canvas/Button", "offset_min": "10,-40", "offset_max": [200, -10]}));
        let r = h.ok(
            "manage_ui",
            json!({"action": "get_rect", "path": "Canvas/Button"}),
        );
        assert_eq!(r["rect"]["size_delta"], json!({"x": 190.0, "y": 30.0}));
        assert_eq!(r["rect"]["offset_min"], json!({"x": 10.0, "y": -40.0}));
        let p = h.ok("manage_ui", json!({"action": "create", "element": "panel"}));
        h.ok("manage_ui", json!({"action": "create", "element": "text", "parent": p["instance_id"], "text": "legacy"}));
        assert_eq!(
            h.ok(
                "manage_ui",
                json!({"action": "get_rect", "path": "Canvas/Panel"})
            )["rect"]["size"]["width"],
            1920.0
        );
        assert_eq!(
            h.err("manage_ui", json!({"action": "get_rect", "path": "Ground"})),
            "COMPONENT_NOT_FOUND"
        );
        assert_eq!(
            h.err(
                "manage_ui",
                json!({"action": "create", "element": "hologram"})
            ),
            "INVALID_PARAM"
        );
    }
}
