//! `game_feel` and `ui_slop`: short built-in guides (static text written for the simulator),
//! each with an index (`list` or no argument) and one entry per id.

use super::args::{Args, Fail};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

/// (id, title, body)
type Entry = (&'static str, &'static str, &'static str);

const GAME_FEEL: &[Entry] = &[
    (
        "hit_stop",
        "Hit stop",
        "Freeze the game for 2-6 frames on a heavy impact (Time.timeScale = 0 for ~50 ms, then restore). Scale the pause with the hit's weight; never stack pauses.",
    ),
    (
        "screen_shake",
        "Screen shake",
        "Offset the camera with decaying noise for 0.1-0.3 s. Use trauma (0-1) squared for amplitude, cap the offset, and offer a setting to turn it down.",
    ),
    (
        "squash_stretch",
        "Squash and stretch",
        "Scale along the motion axis on take-off and landing (e.g. 1.2/0.8), keeping volume roughly constant, and ease back within a few frames.",
    ),
    (
        "easing",
        "Easing",
        "Replace linear tweens with ease-out for things arriving and ease-in for things leaving; UI feels snappier with short (0.15-0.25 s) ease-out curves.",
    ),
    (
        "input_buffering",
        "Input buffering",
        "Remember a jump or attack pressed up to ~0.1 s before it becomes possible, and allow 'coyote time' of ~0.1 s after leaving a ledge.",
    ),
    (
        "audio_feedback",
        "Audio feedback",
        "Pair every important action with a short sound; vary pitch by ±5% to avoid repetition, and duck music briefly under big moments.",
    ),
];

const UI_SLOP: &[Entry] = &[
    (
        "inconsistent_spacing",
        "Inconsistent spacing",
        "Margins and gaps that differ by a few pixels between similar elements. Pick a spacing scale (4/8/16/24) and use layout groups.",
    ),
    (
        "unanchored_elements",
        "Unanchored elements",
        "Elements left on the centre anchor drift when the resolution changes. Anchor to the edge or corner they belong to, or stretch.",
    ),
    (
        "tiny_hit_targets",
        "Tiny hit targets",
        "Buttons smaller than ~44 px on their short side are hard to hit; enlarge the RectTransform or the raycast padding.",
    ),
    (
        "unreadable_text",
        "Unreadable text",
        "Low contrast or text under 18 px at the reference resolution. Check contrast against the background and use a CanvasScaler.",
    ),
    (
        "mixed_fonts",
        "Mixed fonts",
        "More than two font families or random weights. Keep one family for UI and one for display text.",
    ),
    (
        "missing_states",
        "Missing states",
        "Selectables without distinct highlighted/pressed/disabled looks give no feedback; set a transition on every Button.",
    ),
];

/// Each game-feel topic's category, in the index's category order.
const CATEGORIES: [&str; 7] = [
    "ethics",
    "theory",
    "technique",
    "ui",
    "workflow",
    "anti_pattern",
    "checklist",
];

fn feel_category(key: &str) -> &'static str {
    if key == "easing" { "ui" } else { "technique" }
}

/// Each UI tell's area (A-E) and severity.
fn slop_area(id: &str) -> (&'static str, &'static str) {
    match id {
        "inconsistent_spacing" => ("A", "weak"),
        "unanchored_elements" => ("A", "strong"),
        "tiny_hit_targets" => ("B", "strong"),
        "mixed_fonts" => ("C", "weak"),
        "unreadable_text" => ("C", "strong"),
        _ => ("D", "strong"),
    }
}

fn find<'a>(entries: &'a [Entry], kind: &str, want: &str) -> Result<&'a Entry, Fail> {
    let norm = want.to_ascii_lowercase().replace(['-', ' '], "_");
    entries
        .iter()
        .find(|(id, _, _)| *id == norm)
        .ok_or_else(|| {
            Fail::new(
                "GUIDE_ENTRY_NOT_FOUND",
                format!("No {kind} entry '{want}'."),
            )
            .with_data(
                json!({"id": want, "available": entries.iter().map(|e| e.0).collect::<Vec<_>>()}),
            )
        })
}

fn wanted(id: Option<&str>) -> Option<&str> {
    id.map(str::trim)
        .filter(|i| !i.is_empty() && !i.eq_ignore_ascii_case("list"))
}

pub fn game_feel(
    _ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    match wanted(a.str("topic")?) {
        // The index nests: `topics[i].topics[j]`, one group per category, keys sorted.
        None => {
            let groups: Vec<Value> = CATEGORIES
                .iter()
                .filter_map(|c| {
                    let mut keys: Vec<&Entry> = GAME_FEEL
                        .iter()
                        .filter(|(k, _, _)| feel_category(k) == *c)
                        .collect();
                    keys.sort_by_key(|(k, _, _)| *k);
                    (!keys.is_empty()).then(|| {
                        json!({"category": c, "topics": keys.iter()
                            .map(|(k, t, _)| json!({"key": k, "title": t})).collect::<Vec<_>>()})
                    })
                })
                .collect();
            ok(
                format!("{} game-feel topics; ask for one by key.", GAME_FEEL.len()),
                json!({ "topics": groups }),
            )
        }
        Some(want) => {
            let (key, title, body) = find(GAME_FEEL, "game-feel", want)?;
            ok(
                title.to_string(),
                json!({"key": key, "category": feel_category(key), "title": title, "body": body}),
            )
        }
    }
}

pub fn ui_slop(_ed: &mut Editor, _action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    match wanted(a.str("id")?) {
        None => {
            let areas: Vec<Value> = ["A", "B", "C", "D", "E"]
                .iter()
                .filter_map(|area| {
                    let tells: Vec<Value> = UI_SLOP
                        .iter()
                        .filter(|(id, _, _)| slop_area(id).0 == *area)
                        .map(|(id, t, _)| json!({"id": id, "severity": slop_area(id).1, "tell": t}))
                        .collect();
                    (!tells.is_empty()).then(|| json!({"area": area, "tells": tells}))
                })
                .collect();
            ok(
                format!("{} UI tells; ask for one by id.", UI_SLOP.len()),
                json!({ "areas": areas }),
            )
        }
        Some(want) => {
            let (id, title, body) = find(UI_SLOP, "UI-slop", want)?;
            let (area, severity) = slop_area(id);
            ok(
                title.to_string(),
                json!({"id": id, "area": area, "severity": severity, "tell": title,
                       "check": null, "exception": null, "fix": body, "borrow": null,
                       "deep_topic": null}),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_guides_index_and_entries() {
        let mut h = Harness::new();
        let index = h.ok("game_feel", json!({}));
        assert_eq!(index["topics"][0]["category"], "technique");
        assert_eq!(
            h.ok("game_feel", json!({"topic": "screen-shake"}))["key"],
            "screen_shake"
        );
        assert_eq!(
            h.ok("ui_slop", json!({"id": "list"}))["areas"][0]["area"],
            "A"
        );
        assert_eq!(h.ok("ui_slop", json!({"id": "mixed_fonts"}))["area"], "C");
        assert_eq!(
            h.err("ui_slop", json!({"id": "nope"})),
            "GUIDE_ENTRY_NOT_FOUND"
        );
    }
}
