//! `input`: simulated pointer, keyboard and UI event delivery.
//!
//! Events only flow in play mode (the EventSystem and Input System run there). UI actions find
//! the component that would handle the event on the target (Button, Toggle, Slider, ScrollRect…)
//! and apply its effect to the model: a Toggle click flips `m_IsOn`, a Slider drag moves
//! `m_Value`, a Button click is counted. Keyboard and mouse need the Input System package.

use super::args::{self, Args, Fail};
use super::editor_state::PlayState;
use super::gameobjects;
use super::{Editor, Handled, Invocation, InvokeContext, ok};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct InputState {
    keys_down: Vec<String>,
    buttons_down: Vec<String>,
    pointer: [f64; 2],
    events_sent: u64,
    clicks: BTreeMap<i64, u64>,
    recording: Option<(String, Vec<Value>)>,
    recordings: BTreeMap<String, Vec<Value>>,
    recent: Vec<Value>,
}

impl InputState {
    fn note(&mut self, event: Value) {
        self.events_sent += 1;
        if let Some((_, events)) = &mut self.recording {
            events.push(event.clone());
        }
        self.recent.push(event);
        if self.recent.len() > 50 {
            self.recent.remove(0);
        }
    }
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
        "state" => {
            let has_es = ed.world.walk().into_iter().any(|id| {
                ed.world
                    .get(id)
                    .is_some_and(|o| o.has_component("EventSystem"))
            });
            let s = &ed.input;
            let mut data = json!({
                "play_mode": ed.play.state != PlayState::Edit,
                "event_system": has_es, "input_system_installed": ed.packages.is_installed("com.unity.inputsystem"),
                "pointer_position": args::v2json(s.pointer), "keys_down": s.keys_down, "buttons_down": s.buttons_down,
                "events_sent": s.events_sent, "recording": s.recording.as_ref().map(|(p, e)| json!({"path": p, "events": e.len()})),
            });
            if a.flag("details")? {
                let max = a.limit("max_results", 50, 1, 100)?;
                let recent: Vec<&Value> = s.recent.iter().rev().take(max).collect();
                data["recent_events"] = json!(recent);
            }
            ok("Input state.", data)
        }
        "inspect" => {
            let id = gameobjects::target(ed, a)?;
            let o = ed
                .world
                .get(id)
                .ok_or_else(|| Fail::new("TARGET_NOT_FOUND", "object vanished"))?;
            let interactable = o
                .components
                .iter()
                .filter_map(|c| c.props.get("m_Interactable"))
                .all(|v| v != &json!(false));
            let raycast = o
                .components
                .iter()
                .any(|c| c.props.get("m_RaycastTarget") == Some(&json!(true)));
            ok(
                format!("{} inspected.", ed.world.path_of(id)),
                json!({
                    "instance_id": id, "path": ed.world.path_of(id), "is_ui": o.has_component("RectTransform"),
                    "active_in_hierarchy": ed.world.active_in_hierarchy(id), "interactable": interactable,
                    "raycast_target": raycast, "handlers": handler_components(ed, id),
                    "screen_position": super::ui::screen_center(ed, id).map(args::v2json),
                    "clicks_received": ed.input.clicks.get(&id).copied().unwrap_or(0),
                }),
            )
        }
        "click" | "pointer_down" | "pointer_up" | "drag" | "scroll" | "submit" => {
            ui_event(ed, action, a)
        }
        "keyboard" => keyboard(ed, a),
        "mouse" => mouse(ed, a),
        "sequence" => sequence(ed, a, ctx),
        "record" => record(ed, a),
        "replay" => {
            require_play(ed)?;
            let path = a.req_str("path")?.to_string();
            let events = ed
                .input
                .recordings
                .get(&path)
                .cloned()
                .or_else(|| read_recording(ed, &path))
                .ok_or_else(|| {
                    Fail::new(
                        "INPUT_RECORDING_NOT_FOUND",
                        format!("No input recording at '{path}'."),
                    )
                    .with_data(json!({"path": path}))
                })?;
            for e in &events {
                ed.input.note(json!({"replayed": e}));
            }
            ok(
                format!("Replayed {} event(s) from {path}.", events.len()),
                json!({"path": path, "events_replayed": events.len()}),
            )
        }
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

fn read_recording(ed: &Editor, path: &str) -> Option<Vec<Value>> {
    let full = std::path::Path::new(&ed.project_path).join(path);
    let v = super::file_bus::read_json(&full)?;
    v.get("events")?.as_array().cloned()
}

fn ui_event(ed: &mut Editor, action: &str, a: Args) -> Handled {
    require_play(ed)?;
    let backend = a
        .str("backend")?
        .unwrap_or("eventsystem")
        .to_ascii_lowercase();
    let has_es = ed.world.walk().into_iter().any(|id| {
        ed.world
            .get(id)
            .is_some_and(|o| o.has_component("EventSystem"))
    });
    if backend == "eventsystem" && !has_es {
        return Err(Fail::new(
            "INPUT_NO_EVENT_SYSTEM",
            "The loaded scenes have no EventSystem; create one (manage_ui create event_system).",
        ));
    }
    if backend == "inputsystem" {
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
    let blocked = !ed.world.active_in_hierarchy(id)
        || handler
            .as_ref()
            .and_then(|h| o.component(h))
            .and_then(|c| c.props.get("m_Interactable"))
            == Some(&json!(false));
    if strict && blocked {
        return Err(Fail::new(
            "INPUT_BLOCKED",
            format!("{path} is inactive or not interactable, so the {action} is not delivered."),
        )
        .with_data(json!({"path": path})));
    }
    if strict && handler.is_none() {
        return Err(Fail::new(
            "INPUT_NO_HANDLER",
            format!(
                "Nothing on {path} handles {action}; handlers present: {:?}.",
                handler_components(ed, id)
            ),
        )
        .with_data(json!({"path": path, "handlers": handler_components(ed, id)})));
    }
    let at = match (
        point(a, "position")?,
        point(a, "normalized")?,
        point(a, "offset")?,
    ) {
        (Some(p), _, _) => Some(p),
        (None, Some(n), _) => super::ui::screen_center(ed, id)
            .map(|c| [c[0] + (n[0] - 0.5) * 100.0, c[1] + (n[1] - 0.5) * 100.0]),
        (None, None, Some(off)) => {
            super::ui::screen_center(ed, id).map(|c| [c[0] + off[0], c[1] + off[1]])
        }
        _ => super::ui::screen_center(ed, id),
    };
    if let Some(p) = at {
        ed.input.pointer = p;
    }
    let events: Vec<&str> = match action {
        "click" => vec!["pointerEnter", "pointerDown", "pointerUp", "pointerClick"],
        "pointer_down" => vec!["pointerEnter", "pointerDown"],
        "pointer_up" => vec!["pointerUp"],
        "drag" => vec!["pointerDown", "beginDrag", "drag", "endDrag", "pointerUp"],
        "scroll" => vec!["scroll"],
        _ => vec!["submit"],
    };
    let mut effect = Value::Null;
    if !blocked && let (Some(h), Some(o)) = (handler.clone(), ed.world.get_mut(id)) {
        match (action, h.as_str()) {
            ("click" | "submit", "Toggle") => {
                if let Some(c) = o.component_mut("Toggle") {
                    let on = !c
                        .props
                        .get("m_IsOn")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    c.props.insert("m_IsOn".into(), json!(on));
                    effect = json!({"m_IsOn": on});
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
                    let v = lo + (hi - lo) * to;
                    c.props.insert("m_Value".into(), json!(v));
                    effect = json!({"m_Value": v});
                }
            }
            _ => {}
        }
        if matches!(action, "click" | "submit") {
            let n = ed.input.clicks.entry(id).or_insert(0);
            *n += 1;
            if effect.is_null() {
                effect = json!({"clicks_received": *n});
            }
        }
    }
    let event = json!({"action": action, "target": path, "events": events, "position": at.map(args::v2json)});
    ed.input.note(event);
    let mut data = json!({
        "action": action, "target": {"instance_id": id, "path": path}, "backend": backend,
        "handled_by": handler, "blocked": blocked, "events": events,
        "position": at.map(args::v2json), "effect": effect,
    });
    if a.flag("details")? {
        data["details"] =
            json!({"handlers_on_target": handler_components(ed, id), "event_system": has_es});
    }
    ok(format!("{action} delivered to {path}."), data)
}

fn keyboard(ed: &mut Editor, a: Args) -> Handled {
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
        "up" => ed.input.keys_down.retain(|k| *k != key),
        "press" => {}
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
    ok(
        format!("Key {key} {mode}."),
        json!({"key": key, "mode": mode, "hold_ms": hold, "keys_down": ed.input.keys_down}),
    )
}

fn mouse(ed: &mut Editor, a: Args) -> Handled {
    require_play(ed)?;
    require_input_system(ed)?;
    let mode = a.str("mode")?.unwrap_or("click").to_ascii_lowercase();
    let button = a.str("button")?.unwrap_or("left").to_ascii_lowercase();
    if let Some(p) = point(a, "position")? {
        ed.input.pointer = p;
    }
    match mode.as_str() {
        "move" => {
            if a.raw("position").is_none() {
                return Err(Fail::missing("position"));
            }
        }
        "delta" => {
            let d = point(a, "delta")?.ok_or_else(|| Fail::missing("delta"))?;
            ed.input.pointer = [ed.input.pointer[0] + d[0], ed.input.pointer[1] + d[1]];
        }
        "scroll" => {
            point(a, "scroll_delta")?.ok_or_else(|| Fail::missing("scroll_delta"))?;
        }
        "down" => {
            if !ed.input.buttons_down.contains(&button) {
                ed.input.buttons_down.push(button.clone());
            }
        }
        "up" => ed.input.buttons_down.retain(|b| *b != button),
        "click" => {}
        other => return Err(Fail::invalid("mode", format!("unknown mode '{other}'"))),
    }
    ed.input.note(json!({"action": "mouse", "mode": mode, "button": button, "position": args::v2json(ed.input.pointer)}));
    ok(
        format!("Mouse {mode}."),
        json!({"mode": mode, "button": button, "position": args::v2json(ed.input.pointer), "buttons_down": ed.input.buttons_down}),
    )
}

fn sequence(ed: &mut Editor, a: Args, ctx: &InvokeContext) -> Handled {
    let steps = match a.raw("steps") {
        Some(Value::Array(s)) if !s.is_empty() => s.clone(),
        _ => return Err(Fail::missing("steps")),
    };
    if steps.len() > 32 {
        return Err(Fail::invalid("steps", "at most 32 steps"));
    }
    let mut results = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let Some(map) = step.as_object() else {
            return Err(Fail::invalid("steps", format!("step {i} is not an object")));
        };
        let kind = map.get("action").and_then(Value::as_str).unwrap_or("");
        let mut params: Map<String, Value> = map.clone();
        params.remove("action");
        let inner = match kind {
            "keyboard" => keyboard(ed, Args(&params)),
            "mouse" => mouse(ed, Args(&params)),
            other => Err(Fail::invalid(
                "steps",
                format!("step {i} has unknown action '{other}' (keyboard or mouse)"),
            )),
        };
        match inner {
            Ok(Invocation {
                outcome: super::HandlerOutcome::Success { data, .. },
                ..
            }) => results.push(json!({"step": i, "action": kind, "result": data})),
            Ok(_) => results.push(json!({"step": i, "action": kind})),
            Err(f) => {
                return Err(Fail::new(
                    "INPUT_SEQUENCE_FAILED",
                    format!("Step {i} ({kind}) failed: {}", f.message),
                )
                .with_data(json!({"step": i, "code": f.code, "completed": results})));
            }
        }
    }
    let _ = ctx;
    ok(
        format!("Ran {} step(s).", results.len()),
        json!({"steps_run": results.len(), "results": results}),
    )
}

fn record(ed: &mut Editor, a: Args) -> Handled {
    let mode = a.req_str("mode")?.to_ascii_lowercase();
    match mode.as_str() {
        "start" => {
            if let Some((p, _)) = &ed.input.recording {
                return Err(Fail::new(
                    "INPUT_RECORDING_ACTIVE",
                    format!("Already recording to {p}; stop it first."),
                ));
            }
            let path = a.req_str("path")?.to_string();
            ed.input.recording = Some((path.clone(), Vec::new()));
            ok(
                format!("Recording input to {path}."),
                json!({"recording": true, "path": path}),
            )
        }
        "stop" => {
            let (path, events) =
                ed.input.recording.take().ok_or_else(|| {
                    Fail::new("INPUT_NOT_RECORDING", "No input recording is active.")
                })?;
            let full = std::path::Path::new(&ed.project_path).join(&path);
            let written = std::path::Path::new(&ed.project_path).is_dir()
                && full
                    .parent()
                    .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
                && std::fs::write(&full, json!({"version": 1, "events": events}).to_string())
                    .is_ok();
            ed.input.recordings.insert(path.clone(), events.clone());
            ok(
                format!("Recorded {} event(s) to {path}.", events.len()),
                json!({"recording": false, "path": path, "events": events.len(), "written_to_disk": written}),
            )
        }
        "status" => ok(
            "Recording status.",
            json!({"recording": ed.input.recording.is_some(), "path": ed.input.recording.as_ref().map(|r| r.0.clone()),
                   "events": ed.input.recording.as_ref().map_or(0, |r| r.1.len())}),
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
        assert_eq!(c["effect"]["m_IsOn"], false);
        h.ok("input", json!({"action": "click", "path": "Canvas/Button"}));
        assert_eq!(
            h.ok(
                "input",
                json!({"action": "inspect", "path": "Canvas/Button"})
            )["clicks_received"],
            1
        );
        assert_eq!(
            h.err("input", json!({"action": "click", "path": "Canvas"})),
            "INPUT_NO_HANDLER"
        );
        assert_eq!(
            h.err("input", json!({"action": "keyboard", "key": "space"})),
            "INPUTSYSTEM_NOT_INSTALLED"
        );
        let stop = h.ok("input", json!({"action": "record", "mode": "stop"}));
        assert_eq!(stop["events"], 2);
        assert_eq!(
            h.ok(
                "input",
                json!({"action": "replay", "path": "Recordings/a.json"})
            )["events_replayed"],
            2
        );
        h.ok("manage_components", json!({"action": "set", "path": "Canvas/Button", "type": "Button", "property": "m_Interactable", "value": false}));
        assert_eq!(
            h.err("input", json!({"action": "click", "path": "Canvas/Button"})),
            "INPUT_BLOCKED"
        );
        assert_eq!(h.ok("input", json!({"action": "state"}))["events_sent"], 4);
    }
}
