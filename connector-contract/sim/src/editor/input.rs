//! `input`: simulated pointer, keyboard and UI event delivery.
//!
//! Events only flow in play mode (the EventSystem and Input System run there). UI actions find
//! the component that would handle the event on the target (Button, Toggle, Slider, ScrollRect…)
//! and apply its effect to the model: a Toggle click flips `m_IsOn`, a Slider drag moves
//! `m_Value`, a Button click is counted. Keyboard and mouse need the Input System package.
//!
//! Payloads follow the Connector's: the EventSystem actions report the target, the screen point
//! and the handler steps that ran; keyboard, mouse, `sequence` and `replay` report what the Input
//! System now holds; `record` writes a `hera.input-recording/1` file into the project folder.

use super::args::{self, Args, Fail};
use super::editor_state::PlayState;
use super::gameobjects;
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct InputState {
    keys_down: Vec<String>,
    buttons_down: Vec<String>,
    pointer: [f64; 2],
    events_sent: u64,
    clicks: BTreeMap<i64, u64>,
    recording: Option<Recording>,
    recent: Vec<Value>,
    /// The EventSystem's selected object: the last Selectable a pointer went down on.
    selected: Option<i64>,
}

impl InputState {
    fn note(&mut self, event: Value) {
        self.events_sent += 1;
        if let Some(r) = &mut self.recording {
            r.events.push(event.clone());
        }
        self.recent.push(event);
        if self.recent.len() > 50 {
            self.recent.remove(0);
        }
    }
}

/// An input recording in progress.
#[derive(Debug)]
struct Recording {
    path: String,
    events: Vec<Value>,
    started_ms: i64,
}

const RECORDING_SCHEMA: &str = "hera.input-recording/1";
/// The Input System update mode a recording is made in.
const UPDATE_TYPE: &str = "dynamic";
const EVENTSYSTEM: &str = "eventsystem";
const INPUTSYSTEM: &str = "inputsystem";

/// `[x, y]`, the form of every screen point in the payloads.
fn point_json(p: [f64; 2]) -> Value {
    json!([args::round(p[0]), args::round(p[1])])
}

/// `{keys, mouse_buttons}`, sorted: what Hera holds down right now.
fn held(ed: &Editor) -> Value {
    let mut keys = ed.input.keys_down.clone();
    keys.sort();
    let mut buttons = ed.input.buttons_down.clone();
    buttons.sort();
    json!({"keys": keys, "mouse_buttons": buttons})
}

const KEYS: [&str; 24] = [
    "space",
    "enter",
    "escape",
    "tab",
    "backspace",
    "leftShift",
    "rightShift",
    "leftCtrl",
    "rightCtrl",
    "leftAlt",
    "rightAlt",
    "upArrow",
    "downArrow",
    "leftArrow",
    "rightArrow",
    "delete",
    "home",
    "end",
    "pageUp",
    "pageDown",
    "f1",
    "f2",
    "f3",
    "f4",
];

fn key_name(raw: &str) -> Option<String> {
    let k = raw.trim();
    if k.len() == 1 && k.chars().all(|c| c.is_ascii_alphanumeric()) {
        let c = k.to_ascii_lowercase();
        return Some(if c.chars().all(|x| x.is_ascii_digit()) {
            format!("digit{c}")
        } else {
            c
        });
    }
    if let Some(d) = k
        .strip_prefix("digit")
        .filter(|d| d.len() == 1 && d.chars().all(|c| c.is_ascii_digit()))
    {
        return Some(format!("digit{d}"));
    }
    KEYS.iter()
        .find(|x| x.eq_ignore_ascii_case(k))
        .map(|x| x.to_string())
}

fn require_play(ed: &Editor) -> Result<(), Fail> {
    if ed.play.state == PlayState::Edit {
        return Err(Fail::new(
            "INPUT_REQUIRES_PLAY_MODE",
            "Input events are delivered only in play mode; enter it with manage_editor play.",
        ));
    }
    Ok(())
}

fn require_input_system(ed: &Editor) -> Result<(), Fail> {
    if !ed.packages.is_installed("com.unity.inputsystem") {
        return Err(Fail::new("INPUTSYSTEM_NOT_INSTALLED", "Keyboard and mouse simulation uses the Input System; add com.unity.inputsystem with manage_packages add.")
            .with_data(json!({"package": "com.unity.inputsystem"})));
    }
    Ok(())
}

/// Components that answer a UI event, in priority order.
fn handlers_for(action: &str) -> &'static [&'static str] {
    match action {
        "click" => &["Button", "Toggle", "Dropdown", "TMP_Dropdown"],
        "submit" => &[
            "Button",
            "Toggle",
            "InputField",
            "TMP_InputField",
            "Dropdown",
            "TMP_Dropdown",
        ],
        "drag" => &["Slider", "Scrollbar", "ScrollRect"],
        "scroll" => &["ScrollRect", "Scrollbar"],
        _ => &[
            "Button",
            "Toggle",
            "Slider",
            "Scrollbar",
            "ScrollRect",
            "InputField",
            "TMP_InputField",
            "Dropdown",
            "TMP_Dropdown",
        ],
    }
}

fn handler_components(ed: &Editor, id: i64) -> Vec<String> {
    let Some(o) = ed.world.get(id) else {
        return Vec::new();
    };
    o.components
        .iter()
        .filter(|c| handlers_for("inspect").contains(&c.type_name.as_str()))
        .map(|c| c.type_name.clone())
        .collect()
}

fn point(a: Args, name: &str) -> Result<Option<[f64; 2]>, Fail> {
    a.raw(name).map(|v| args::vec2(name, v)).transpose()
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, ctx: &InvokeContext) -> Handled {
    let action = action.ok_or_else(|| Fail::missing("action"))?;
    match action {
        "state" => state(ed, a),
        "inspect" => inspect(ed, a),
        "click" | "pointer_down" | "pointer_up" | "drag" | "scroll" | "submit" => {
            ui_event(ed, action, a)
        }
        "keyboard" => {
            let data = keyboard(ed, a)?;
            ok("Input System keyboard", data)
        }
        "mouse" => {
            let data = mouse(ed, a)?;
            ok("Input System mouse", data)
        }
        "sequence" => sequence(ed, a),
        "record" => record(ed, a, ctx),
        "replay" => replay(ed, a),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn event_system(ed: &Editor) -> Value {
    let found = ed.world.walk().into_iter().find(|id| {
        ed.world
            .get(*id)
            .is_some_and(|o| o.has_component("EventSystem"))
    });
    match found.and_then(|id| ed.world.get(id).map(|o| (id, o))) {
        Some((id, o)) => {
            let module = ["InputSystemUIInputModule", "StandaloneInputModule"]
                .into_iter()
                .find(|m| o.has_component(m));
            json!({"present": true, "instance_id": id, "path": ed.world.path_of(id), "input_module": module})
        }
        None => json!({"present": false}),
    }
}

fn state(ed: &Editor, a: Args) -> Handled {
    let backend = a
        .str("backend")?
        .unwrap_or(EVENTSYSTEM)
        .to_ascii_lowercase();
    let installed = ed.packages.get("com.unity.inputsystem");
    if backend == INPUTSYSTEM {
        let playing = ed.play.state != PlayState::Edit;
        let reason = match (installed.is_some(), playing) {
            (false, _) => Some("the Input System package (com.unity.inputsystem) is not installed"),
            (true, false) => Some("input is injected only in play mode"),
            (true, true) => None,
        };
        let device = |name: &str| match installed {
            Some(_) => json!({"present": true, "name": name, "type": name}),
            None => json!({"present": false}),
        };
        return ok(
            "Input System state",
            json!({
                "backend": INPUTSYSTEM, "evidence_level": INPUTSYSTEM,
                "available": installed.is_some(), "ready": reason.is_none(), "reason": reason,
                "package_version": installed.map(|p| p.version.clone()),
                "play_mode": playing, "paused": ed.play.state == PlayState::Paused,
                "keyboard": device("Keyboard"), "mouse": device("Mouse"), "injected": held(ed),
            }),
        );
    }
    let max = a.limit("max_results", 50, 1, 100)?;
    let raycasters: Vec<Value> = ed
        .world
        .walk()
        .into_iter()
        .filter_map(|id| {
            let o = ed.world.get(id)?;
            let ty = ["GraphicRaycaster", "PhysicsRaycaster", "Physics2DRaycaster"]
                .into_iter()
                .find(|t| o.has_component(t))?;
            Some(
                json!({"instance_id": id, "path": ed.world.path_of(id), "type": ty,
                        "active": ed.world.active_in_hierarchy(id)}),
            )
        })
        .collect();
    let total = raycasters.len();
    ok(
        "Input state",
        json!({
            "backend": EVENTSYSTEM, "evidence_level": EVENTSYSTEM,
            "event_system": event_system(ed),
            "raycasters": raycasters.into_iter().take(max).collect::<Vec<_>>(),
            "raycasters_total": total, "raycasters_truncated": total > max,
            "inputsystem": {"available": installed.is_some()},
            "native_win32": {"available": false, "implemented": false},
        }),
    )
}

/// The screen point an EventSystem action aims at, and where it came from.
fn aim(ed: &Editor, id: i64, a: Args) -> Result<([f64; 2], &'static str), Fail> {
    let center = super::ui::screen_center(ed, id);
    let at = match (
        point(a, "position")?,
        point(a, "normalized")?,
        point(a, "offset")?,
    ) {
        (Some(p), _, _) => Some((p, "position")),
        (None, Some(n), _) => center.map(|c| {
            (
                [c[0] + (n[0] - 0.5) * 100.0, c[1] + (n[1] - 0.5) * 100.0],
                "normalized",
            )
        }),
        (None, None, Some(off)) => center.map(|c| ([c[0] + off[0], c[1] + off[1]], "offset")),
        _ => center.map(|c| (c, "rect_center")),
    };
    at.ok_or_else(|| {
        Fail::new(
            "INPUT_RAYCAST_MISS",
            format!(
                "{} has no screen rect to aim at; give a screen position.",
                ed.world.path_of(id)
            ),
        )
        .with_data(json!({"target_path": ed.world.path_of(id)}))
    })
}

/// Why the target's handler would ignore the event, if it would.
fn not_interactable(ed: &Editor, id: i64) -> Option<&'static str> {
    let o = ed.world.get(id)?;
    if !ed.world.active_in_hierarchy(id) {
        return Some("inactive_in_hierarchy");
    }
    o.components
        .iter()
        .any(|c| c.props.get("m_Interactable") == Some(&json!(false)))
        .then_some("selectable_not_interactable")
}

fn target_json(ed: &Editor, id: i64) -> Value {
    let name = ed.world.get(id).map(|o| o.name.clone()).unwrap_or_default();
    json!({"instance_id": id, "name": name, "path": ed.world.path_of(id), "active": ed.world.active_in_hierarchy(id)})
}

fn inspect(ed: &Editor, a: Args) -> Handled {
    let id = gameobjects::target(ed, a)?;
    let (at, source) = aim(ed, id, a)?;
    let reason = not_interactable(ed, id);
    let path = ed.world.path_of(id);
    if !a.flag("details")? {
        return ok(
            "Input inspect",
            json!({
                "backend": EVENTSYSTEM, "evidence_level": EVENTSYSTEM, "target_id": id,
                "target_path": path, "target_destroyed": false, "point": point_json(at),
                "target_hit": true, "target_top_hit": true, "blocked_by": null,
                "interactable": reason.is_none(), "not_interactable_reason": reason,
            }),
        );
    }
    let handlers = handler_components(ed, id);
    let press = handlers
        .iter()
        .find(|h| handlers_for("click").contains(&h.as_str()));
    let module = ed
        .world
        .get(id)
        .filter(|o| o.has_component("RectTransform"))
        .map(|_| "GraphicRaycaster");
    ok(
        "Input inspect",
        json!({
            "backend": EVENTSYSTEM, "evidence_level": EVENTSYSTEM, "target": target_json(ed, id),
            "point": {"screen": point_json(at), "source": source},
            "event_system": event_system(ed),
            "raycast": {
                "top_hit_path": path, "target_hit": true, "target_top_hit": true, "blocked_by": null,
                "hits": [{"rank": 0, "instance_id": id, "name": ed.world.get(id).map(|o| o.name.clone()),
                          "path": path, "module": module, "distance": 0.0,
                          "target_or_child": true, "handler_is_target": press.is_some()}],
                "hits_total": 1, "hits_truncated": false,
            },
            "interactable": reason.is_none(), "not_interactable_reason": reason,
            "handlers": {"press": press, "click": press},
        }),
    )
}

fn ui_event(ed: &mut Editor, action: &str, a: Args) -> Handled {
    require_play(ed)?;
    let backend = a
        .str("backend")?
        .unwrap_or(EVENTSYSTEM)
        .to_ascii_lowercase();
    if backend == EVENTSYSTEM && event_system(ed)["present"] != true {
        return Err(Fail::new(
            "INPUT_NO_EVENT_SYSTEM",
            "The loaded scenes have no EventSystem; create one (manage_ui create event_system).",
        ));
    }
    if backend == INPUTSYSTEM {
        require_input_system(ed)?;
    }
    let id = gameobjects::target(ed, a)?;
    let strict = a.bool("strict")?.unwrap_or(true);
    let path = ed.world.path_of(id);
    let o = ed
        .world
        .get(id)
        .ok_or_else(|| Fail::new("TARGET_NOT_FOUND", "object vanished"))?;
    let handler = handlers_for(action)
        .iter()
        .find(|h| o.has_component(h))
        .map(|h| h.to_string());
    let blocked = not_interactable(ed, id).is_some();
    if strict && blocked {
        return Err(Fail::new(
            "INPUT_BLOCKED",
            format!("{path} is inactive or not interactable, so the {action} is not delivered."),
        )
        .with_data(json!({"path": path})));
    }
    // Pointer down and up reach every Selectable; the other events need their own handler.
    let needs_handler = !matches!(action, "pointer_down" | "pointer_up");
    if strict && needs_handler && handler.is_none() {
        return Err(Fail::new(
            "INPUT_NO_HANDLER",
            format!(
                "Nothing on {path} handles {action}; handlers present: {:?}.",
                handler_components(ed, id)
            ),
        )
        .with_data(json!({"path": path, "handlers": handler_components(ed, id)})));
    }
    let (at, _) = aim(ed, id, a)?;
    ed.input.pointer = at;
    let steps = a.limit("steps", 8, 1, 120)?;
    let delivered = !blocked && (handler.is_some() || !needs_handler);
    let executed: Vec<&str> = match action {
        "click" => vec!["enter", "down", "up", "click"],
        "pointer_down" => vec!["enter", "down"],
        "pointer_up" => vec!["up"],
        "submit" => vec!["submit"],
        "scroll" if delivered => vec!["scroll"],
        "scroll" => vec![],
        _ => {
            let mut v = vec!["enter", "down", "initialize_potential_drag", "begin_drag"];
            v.extend(std::iter::repeat_n("drag", steps));
            v.extend(["up", "end_drag"]);
            v
        }
    };
    if delivered && let (Some(h), Some(o)) = (handler.clone(), ed.world.get_mut(id)) {
        match (action, h.as_str()) {
            ("click" | "submit", "Toggle") => {
                if let Some(c) = o.component_mut("Toggle") {
                    let on = !c
                        .props
                        .get("m_IsOn")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    c.props.insert("m_IsOn".into(), json!(on));
                }
            }
            ("drag", "Slider") => {
                let to = point(a, "to_normalized")?
                    .map(|p| p[0])
                    .unwrap_or(1.0)
                    .clamp(0.0, 1.0);
                if let Some(c) = o.component_mut("Slider") {
                    let lo = c
                        .props
                        .get("m_MinValue")
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0);
                    let hi = c
                        .props
                        .get("m_MaxValue")
                        .and_then(Value::as_f64)
                        .unwrap_or(1.0);
                    c.props.insert("m_Value".into(), json!(lo + (hi - lo) * to));
                }
            }
            _ => {}
        }
        if matches!(action, "click" | "submit") {
            *ed.input.clicks.entry(id).or_insert(0) += 1;
        }
    }
    ed.input.note(
        json!({"action": action, "target": path, "executed": executed, "position": point_json(at)}),
    );
    // A Selectable the pointer went down on becomes the EventSystem's selected object and stays
    // so until another one is.
    let selects = matches!(action, "click" | "pointer_down" | "drag") && delivered;
    if selects && !handler_components(ed, id).is_empty() {
        ed.input.selected = Some(id);
    }
    let selected_after = match ed.input.selected {
        Some(s) if ed.world.get(s).is_some() => target_json(ed, s),
        _ => Value::Null,
    };
    ok(
        format!("Input {action}"),
        json!({
            "backend": EVENTSYSTEM, "evidence_level": EVENTSYSTEM, "action": action,
            "target_id": id, "target_path": path, "target_destroyed": false,
            "point": point_json(at), "target_top_hit": true, "executed": executed,
            "blocked_by": null, "selected_after": selected_after,
        }),
    )
}

/// Sends one key; the payload the `keyboard` action returns (a `sequence` step reads it too).
fn keyboard(ed: &mut Editor, a: Args) -> Result<Value, Fail> {
    require_play(ed)?;
    require_input_system(ed)?;
    let raw = a.req_str("key")?;
    let key = key_name(raw).ok_or_else(|| {
        Fail::invalid(
            "key",
            format!(
                "'{raw}' is not an Input System key name (e.g. a, digit1, space, enter, leftShift)"
            ),
        )
    })?;
    let mode = a.str("mode")?.unwrap_or("press").to_ascii_lowercase();
    match mode.as_str() {
        "down" => {
            if !ed.input.keys_down.contains(&key) {
                ed.input.keys_down.push(key.clone());
            }
        }
        "up" | "press" => ed.input.keys_down.retain(|k| *k != key),
        other => {
            return Err(Fail::invalid(
                "mode",
                format!("unknown mode '{other}' (press, down, up)"),
            ));
        }
    }
    let hold = a.i64("hold_ms")?.unwrap_or(50);
    ed.input
        .note(json!({"action": "keyboard", "key": key, "mode": mode, "hold_ms": hold}));
    let down = ed.input.keys_down.contains(&key);
    Ok(json!({
        "backend": INPUTSYSTEM, "evidence_level": INPUTSYSTEM, "action": "keyboard",
        "mode": mode, "key": key, "pressed_after": down, "held_by_hera": down,
    }))
}

/// Moves, clicks or scrolls the mouse; the payload the `mouse` action returns.
fn mouse(ed: &mut Editor, a: Args) -> Result<Value, Fail> {
    require_play(ed)?;
    require_input_system(ed)?;
    let mode = a.str("mode")?.unwrap_or("click").to_ascii_lowercase();
    let button = a.str("button")?.unwrap_or("left").to_ascii_lowercase();
    let position = point(a, "position")?;
    if let Some(p) = position {
        ed.input.pointer = p;
    }
    let (mut delta, mut scroll) = (None, None);
    match mode.as_str() {
        "move" => {
            position.ok_or_else(|| Fail::missing("position"))?;
        }
        "delta" => {
            let d = point(a, "delta")?.ok_or_else(|| Fail::missing("delta"))?;
            ed.input.pointer = [ed.input.pointer[0] + d[0], ed.input.pointer[1] + d[1]];
            delta = Some(d);
        }
        "scroll" => {
            scroll = Some(point(a, "scroll_delta")?.ok_or_else(|| Fail::missing("scroll_delta"))?);
        }
        "down" => {
            if !ed.input.buttons_down.contains(&button) {
                ed.input.buttons_down.push(button.clone());
            }
        }
        "up" | "click" => ed.input.buttons_down.retain(|b| *b != button),
        other => return Err(Fail::invalid("mode", format!("unknown mode '{other}'"))),
    }
    let hold = a.i64("hold_ms")?.unwrap_or(50);
    ed.input.note(
        json!({"action": "mouse", "mode": mode, "button": button, "hold_ms": hold,
                         "position": point_json(ed.input.pointer)}),
    );
    let uses_button = matches!(mode.as_str(), "click" | "down" | "up");
    let down = ed.input.buttons_down.contains(&button);
    Ok(json!({
        "backend": INPUTSYSTEM, "evidence_level": INPUTSYSTEM, "action": "mouse", "mode": mode,
        "button": uses_button.then_some(&button),
        "position": position.map(point_json), "delta": delta.map(point_json),
        "scroll": scroll.map(point_json),
        "pressed_after": uses_button.then_some(down), "held_by_hera": down,
    }))
}

/// What a finished (or failed) `sequence`/`replay` reports.
struct SeqRun {
    action: &'static str,
    source: Value,
    steps_total: usize,
    completed: Vec<Value>,
    hold_ms: i64,
    frames: i64,
    released_keys: Vec<String>,
    released_buttons: Vec<String>,
    with_steps: bool,
}

impl SeqRun {
    /// A run of `steps_total` steps that has done nothing yet.
    fn new(action: &'static str, source: Value, steps_total: usize, with_steps: bool) -> SeqRun {
        SeqRun {
            action,
            source,
            steps_total,
            completed: Vec::new(),
            hold_ms: 0,
            frames: 0,
            released_keys: Vec::new(),
            released_buttons: Vec::new(),
            with_steps,
        }
    }

    fn payload(&self, ed: &Editor, failed: Option<(usize, &str)>) -> Value {
        json!({
            "backend": INPUTSYSTEM, "evidence_level": INPUTSYSTEM, "action": self.action,
            "source": self.source, "steps_total": self.steps_total,
            "completed_count": self.completed.len(), "failed_step_index": failed.map(|f| f.0),
            "total_hold_ms": self.hold_ms, "total_awaited_frames": self.frames,
            "elapsed_ms": self.hold_ms + self.frames * 16,
            "cleanup": {"attempted": true, "succeeded": true, "released_keys": self.released_keys,
                        "released_mouse_buttons": self.released_buttons, "errors": []},
            "held_after": held(ed),
            "steps": if self.with_steps { json!(self.completed) } else { Value::Null },
            "cause_code": failed.map(|f| f.1),
        })
    }
}

/// Runs keyboard/mouse steps in order; on a failed step releases what the run pressed and
/// reports `INPUT_SEQUENCE_STEP_FAILED` with the run so far.
fn run_steps(ed: &mut Editor, run: &mut SeqRun, steps: &[Value]) -> Result<(), Fail> {
    let keys_before = ed.input.keys_down.clone();
    let buttons_before = ed.input.buttons_down.clone();
    for (i, step) in steps.iter().enumerate() {
        let params: Map<String, Value> = step.as_object().cloned().unwrap_or_default();
        let kind = params.get("action").and_then(Value::as_str).unwrap_or("");
        let result = match kind {
            "keyboard" => keyboard(ed, Args(&params)),
            "mouse" => mouse(ed, Args(&params)),
            other => Err(Fail::invalid(
                "steps",
                format!("step {i} has unknown action '{other}' (keyboard or mouse)"),
            )),
        };
        match result {
            Ok(d) => {
                let mode = d["mode"].as_str().unwrap_or("").to_string();
                let control = match (kind, mode.as_str()) {
                    ("keyboard", _) => d["key"].clone(),
                    (_, "move") => json!("position"),
                    (_, "delta") => json!("delta"),
                    (_, "scroll") => json!("scroll"),
                    _ => d["button"].clone(),
                };
                run.hold_ms += params.get("hold_ms").and_then(Value::as_i64).unwrap_or(50);
                run.frames += params
                    .get("settle_frames")
                    .and_then(Value::as_i64)
                    .unwrap_or(1);
                run.completed
                    .push(json!({"index": i, "action": kind, "mode": mode, "control": control}));
            }
            Err(f) => {
                run.released_keys = ed
                    .input
                    .keys_down
                    .iter()
                    .filter(|k| !keys_before.contains(k))
                    .cloned()
                    .collect();
                run.released_buttons = ed
                    .input
                    .buttons_down
                    .iter()
                    .filter(|b| !buttons_before.contains(b))
                    .cloned()
                    .collect();
                ed.input.keys_down = keys_before;
                ed.input.buttons_down = buttons_before;
                return Err(Fail::new(
                    "INPUT_SEQUENCE_STEP_FAILED",
                    format!("Step {i} ({kind}) failed: {}", f.message),
                )
                .with_data(run.payload(ed, Some((i, f.code.as_str())))));
            }
        }
    }
    Ok(())
}

fn sequence(ed: &mut Editor, a: Args) -> Handled {
    require_play(ed)?;
    let steps = match a.raw("steps") {
        Some(Value::Array(s)) if !s.is_empty() => s.clone(),
        _ => return Err(Fail::missing("steps")),
    };
    if steps.len() > 32 {
        return Err(Fail::invalid("steps", "at most 32 steps"));
    }
    if let Some(i) = steps.iter().position(|s| !s.is_object()) {
        return Err(Fail::invalid("steps", format!("step {i} is not an object")));
    }
    let mut run = SeqRun::new("sequence", Value::Null, steps.len(), true);
    run_steps(ed, &mut run, &steps)?;
    ok("Input sequence", run.payload(ed, None))
}

fn replay(ed: &mut Editor, a: Args) -> Handled {
    require_play(ed)?;
    require_input_system(ed)?;
    let path = a.req_str("path")?.to_string();
    let full = ed.project_dir().join(&path);
    let file = super::file_bus::read_json(&full)
        .filter(|v| v["schema"] == RECORDING_SCHEMA)
        .ok_or_else(|| {
            Fail::new(
                "INPUT_RECORDING_NOT_FOUND",
                format!("No input recording at '{path}'."),
            )
            .with_data(json!({"path": path}))
        })?;
    let events: Vec<Value> = file["events"].as_array().cloned().unwrap_or_default();
    // Only device input is replayed; EventSystem actions in the file are not device events.
    let steps: Vec<Value> = events
        .iter()
        .filter(|e| matches!(e["action"].as_str(), Some("keyboard" | "mouse")))
        .cloned()
        .collect();
    let bytes = std::fs::metadata(&full).map_or(0, |m| m.len());
    let source = json!({"schema": RECORDING_SCHEMA, "path": path, "bytes": bytes,
                        "update_type": file["update_type"].as_str()});
    let mut run = SeqRun::new("replay", source, steps.len(), false);
    run_steps(ed, &mut run, &steps)?;
    ok("Input replay", run.payload(ed, None))
}

fn record_status(r: &Recording, now_ms: i64) -> Value {
    let elapsed = (now_ms - r.started_ms).max(0);
    json!({
        "schema": RECORDING_SCHEMA, "active": true, "pending_save": false, "path": r.path,
        "event_count": r.events.len(), "total_frames": elapsed * 60 / 1000, "elapsed_ms": elapsed,
        "stop_reason": null, "update_type": UPDATE_TYPE,
    })
}

fn record(ed: &mut Editor, a: Args, ctx: &InvokeContext) -> Handled {
    let mode = a.req_str("mode")?.to_ascii_lowercase();
    match mode.as_str() {
        "start" => {
            if let Some(r) = &ed.input.recording {
                return Err(Fail::new(
                    "INPUT_RECORDING_ACTIVE",
                    format!("Already recording to {}; stop it first.", r.path),
                ));
            }
            let path = a.req_str("path")?.to_string();
            let r = Recording {
                path,
                events: Vec::new(),
                started_ms: ctx.now_ms,
            };
            let data = record_status(&r, ctx.now_ms);
            ed.input.recording = Some(r);
            ok("Input recording started", data)
        }
        "stop" => {
            let r =
                ed.input.recording.take().ok_or_else(|| {
                    Fail::new("INPUT_NOT_RECORDING", "No input recording is active.")
                })?;
            let elapsed = (ctx.now_ms - r.started_ms).max(0);
            let frames = elapsed * 60 / 1000;
            let text = json!({"schema": RECORDING_SCHEMA, "update_type": UPDATE_TYPE,
                              "total_frames": frames, "events": r.events})
            .to_string();
            let full = ed.project_dir().join(&r.path);
            full.parent()
                .map(std::fs::create_dir_all)
                .transpose()
                .and_then(|_| std::fs::write(&full, &text))
                .map_err(|e| {
                    Fail::new(
                        "INPUT_RECORDING_WRITE_FAILED",
                        format!("Cannot write {}: {e}", full.display()),
                    )
                    .with_data(json!({"path": r.path}))
                })?;
            ok(
                "Input recording saved",
                json!({"schema": RECORDING_SCHEMA, "path": r.path, "event_count": r.events.len(),
                       "total_frames": frames, "bytes": text.len(), "stop_reason": "requested"}),
            )
        }
        "status" => ok(
            "Input recording status",
            match &ed.input.recording {
                Some(r) => record_status(r, ctx.now_ms),
                None => json!({"schema": RECORDING_SCHEMA, "active": false, "pending_save": false}),
            },
        ),
        other => Err(Fail::invalid(
            "mode",
            format!("unknown mode '{other}' (start, stop, status)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_input_clicks_toggle_and_needs_play_mode() {
        let mut h = Harness::new();
        h.ok(
            "manage_ui",
            json!({"action": "create", "element": "toggle"}),
        );
        h.ok(
            "manage_ui",
            json!({"action": "create", "element": "button"}),
        );
        assert_eq!(
            h.err("input", json!({"action": "click", "path": "Canvas/Toggle"})),
            "INPUT_REQUIRES_PLAY_MODE"
        );
        h.ok("manage_editor", json!({"action": "play"}));
        h.ok(
            "input",
            json!({"action": "record", "mode": "start", "path": "Recordings/a.json"}),
        );
        let c = h.ok("input", json!({"action": "click", "path": "Canvas/Toggle"}));
        assert_eq!(c["executed"], json!(["enter", "down", "up", "click"]));
        assert_eq!(c["target_path"], "Canvas/Toggle");
        assert_eq!(c["selected_after"]["path"], "Canvas/Toggle");
        let up = h.ok(
            "input",
            json!({"action": "pointer_up", "path": "Canvas/Button"}),
        );
        assert_eq!(up["selected_after"]["path"], "Canvas/Toggle");
        let toggle = h.ok(
            "manage_components",
            json!({"action": "get", "path": "Canvas/Toggle", "type": "Toggle"}),
        );
        assert!(toggle.to_string().contains("\"m_IsOn\":false"), "{toggle}");
        h.ok("input", json!({"action": "click", "path": "Canvas/Button"}));
        let insp = h.ok(
            "input",
            json!({"action": "inspect", "path": "Canvas/Button"}),
        );
        assert_eq!(insp["interactable"], true);
        assert_eq!(insp["point"].as_array().unwrap().len(), 2);
        assert_eq!(
            h.err("input", json!({"action": "click", "path": "Canvas"})),
            "INPUT_NO_HANDLER"
        );
        let lax = h.ok(
            "input",
            json!({"action": "scroll", "path": "Canvas/Button", "strict": false}),
        );
        assert_eq!(lax["executed"], json!([]));
        assert_eq!(
            h.err("input", json!({"action": "keyboard", "key": "space"})),
            "INPUTSYSTEM_NOT_INSTALLED"
        );
        assert_eq!(
            h.ok(
                "input",
                json!({"action": "state", "backend": "inputsystem"})
            )["available"],
            false
        );
        let stop = h.ok("input", json!({"action": "record", "mode": "stop"}));
        assert_eq!(stop["event_count"], 4);
        assert_eq!(stop["stop_reason"], "requested");
        let file = h.ed.project_dir().join("Recordings/a.json");
        assert_eq!(
            std::fs::metadata(&file).unwrap().len(),
            stop["bytes"].as_u64().unwrap()
        );
        assert_eq!(
            h.ok("input", json!({"action": "record", "mode": "status"})),
            json!({"schema": "hera.input-recording/1", "active": false, "pending_save": false})
        );
        h.ed.add_installed_package("com.unity.inputsystem", "1.11.2", "Input System");
        let down = h.ok(
            "input",
            json!({"action": "keyboard", "key": "leftShift", "mode": "down"}),
        );
        assert_eq!(down["held_by_hera"], true);
        let seq = h.ok(
            "input",
            json!({"action": "sequence", "steps": [
                {"action": "keyboard", "key": "a"},
                {"action": "mouse", "mode": "move", "position": "5,5"}]}),
        );
        assert_eq!(seq["completed_count"], 2);
        assert_eq!(seq["steps"][1]["control"], "position");
        assert_eq!(seq["held_after"]["keys"], json!(["leftShift"]));
        // The recording holds EventSystem clicks only: nothing to replay on the devices.
        let rep = h.ok(
            "input",
            json!({"action": "replay", "path": "Recordings/a.json"}),
        );
        assert_eq!(rep["steps_total"], 0);
        assert_eq!(rep["source"]["path"], "Recordings/a.json");
        h.ok("manage_components", json!({"action": "set", "path": "Canvas/Button", "type": "Button", "property": "m_Interactable", "value": false}));
        assert_eq!(
            h.err("input", json!({"action": "click", "path": "Canvas/Button"})),
            "INPUT_BLOCKED"
        );
        let state = h.ok("input", json!({"action": "state"}));
        assert_eq!(state["event_system"]["present"], true);
        assert!(state["raycasters_total"].as_u64().unwrap() >= 1);
    }
}
