//! `game_feel` and `ui_slop`: short built-in guides (static text written for the simulator),
//! each with an index (`list` or no argument) and one entry per id.

use super::args::{Args, Fail};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::json;

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

fn guide(entries: &[Entry], kind: &str, id: Option<&str>) -> Handled {
    match id
        .map(str::trim)
        .filter(|i| !i.eq_ignore_ascii_case("list"))
    {
        None => {
            let index: Vec<_> = entries
                .iter()
                .map(|(id, title, _)| json!({"id": id, "title": title}))
                .collect();
            ok(
                format!("{} {kind} entries; ask for one by id.", index.len()),
                json!({"entries": index, "count": index.len()}),
            )
        }
        Some(want) => {
            let norm = want.to_ascii_lowercase().replace(['-', ' '], "_");
            let Some((id, title, body)) = entries.iter().find(|(id, _, _)| *id == norm) else {
                return Err(Fail::new("GUIDE_ENTRY_NOT_FOUND", format!("No {kind} entry '{want}'."))
                    .with_data(json!({"id": want, "available": entries.iter().map(|e| e.0).collect::<Vec<_>>()})));
            };
            ok(
                title.to_string(),
                json!({"id": id, "title": title, "text": body}),
            )
        }
    }
}

pub fn game_feel(
    _ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    guide(GAME_FEEL, "game-feel", a.str("topic")?)
}

pub fn ui_slop(_ed: &mut Editor, _action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    guide(UI_SLOP, "UI-slop", a.str("id")?)
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_guides_index_and_entries() {
        let mut h = Harness::new();
        assert_eq!(h.ok("game_feel", json!({}))["count"], 6);
        assert_eq!(
            h.ok("game_feel", json!({"topic": "screen-shake"}))["id"],
            "screen_shake"
        );
        assert_eq!(h.ok("ui_slop", json!({"id": "list"}))["count"], 6);
        assert_eq!(
            h.err("ui_slop", json!({"id": "nope"})),
            "GUIDE_ENTRY_NOT_FOUND"
        );
    }
}
