//! `manage_timeline`: TimelineAsset (`.playable`) tracks and clips. Exists only while the
//! `com.unity.timeline` package is installed (`PACKAGE_NOT_INSTALLED` otherwise, as the Connector
//! reports it).

use super::args::{Args, Fail};
use super::asset_db::{self, AssetKind};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

const TIMELINE: &str = "TimelineAsset";
const TRACK_TYPES: [&str; 8] = [
    "Animation",
    "Audio",
    "Activation",
    "Control",
    "Playable",
    "Signal",
    "Marker",
    "Group",
];

fn load(ed: &Editor, a: Args) -> Result<(String, Value), Fail> {
    let raw = a.req_str("path")?;
    let path = ed.assets.resolve(raw).ok_or_else(|| {
        Fail::new("ASSET_NOT_FOUND", format!("No asset at '{raw}'."))
            .with_data(json!({"path": raw}))
    })?;
    match ed.assets.get(&path).map(|x| &x.kind) {
        Some(AssetKind::Data { type_name, body }) if type_name == TIMELINE => {
            Ok((path, body.clone()))
        }
        _ => Err(Fail::new(
            "ASSET_TYPE_MISMATCH",
            format!("'{path}' is not a TimelineAsset."),
        )
        .with_data(json!({"path": path}))),
    }
}

fn duration(body: &Value) -> f64 {
    body["tracks"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| t["clips"].as_array().cloned().unwrap_or_default())
        .map(|c| c["start"].as_f64().unwrap_or(0.0) + c["duration"].as_f64().unwrap_or(0.0))
        .fold(0.0, f64::max)
}

pub fn handle(ed: &mut Editor, action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    if !ed.packages.is_installed("com.unity.timeline") {
        return Err(Fail::new(
            "PACKAGE_NOT_INSTALLED",
            "Timeline needs the com.unity.timeline package; add it with manage_packages add.",
        )
        .with_data(json!({"package": "com.unity.timeline"})));
    }
    match action.unwrap_or("") {
        "create" => {
            let path = asset_db::writable_path("path", a.req_str("path")?)?;
            asset_db::require_ext("path", &path, ".playable")?;
            if ed.assets.contains(&path) {
                return Err(
                    Fail::new("ASSET_ALREADY_EXISTS", format!("'{path}' already exists."))
                        .with_data(json!({"path": path})),
                );
            }
            let fr = a.f64("frame_rate")?.unwrap_or(60.0);
            if fr <= 0.0 {
                return Err(Fail::invalid("frame_rate", "must be positive"));
            }
            let body = json!({"frame_rate": fr, "tracks": []});
            let created = json!({"path": path, "guid": "", "frame_rate": fr, "duration": 0.0});
            ed.assets.put(
                &path,
                AssetKind::Data {
                    type_name: TIMELINE.into(),
                    body,
                },
            );
            let mut created = created;
            created["guid"] = json!(ed.assets.get(&path).map(|x| x.guid.clone()));
            ok(format!("Created timeline {path}."), created)
        }
        "get" => {
            let (path, body) = load(ed, a)?;
            let limit = a.limit("limit", 100, 1, 500)?;
            let mut budget = limit;
            let mut truncated = false;
            let tracks: Vec<Value> = body["tracks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|mut t| {
                    if budget == 0 {
                        truncated = true;
                        return None;
                    }
                    budget -= 1;
                    let clips = t["clips"].as_array().cloned().unwrap_or_default();
                    let keep = clips.len().min(budget);
                    truncated |= keep < clips.len();
                    budget -= keep;
                    t["clips"] = json!(clips.into_iter().take(keep).collect::<Vec<_>>());
                    t["muted"] = json!(false);
                    t["locked"] = json!(false);
                    Some(t)
                })
                .collect();
            // Tracks and clips share one budget; `returned` counts both.
            let returned = limit - budget;
            let guid = ed.assets.get(&path).map(|x| x.guid.clone());
            ok(
                format!("Timeline {path}."),
                json!({"path": path, "guid": guid, "frame_rate": body["frame_rate"],
                       "duration": duration(&body), "tracks": tracks, "returned": returned,
                       "truncated": truncated}),
            )
        }
        "add_track" => {
            let (path, mut body) = load(ed, a)?;
            let raw_ty = a.req_str("type")?;
            let ty = TRACK_TYPES
                .iter()
                .find(|t| t.eq_ignore_ascii_case(raw_ty))
                .ok_or_else(|| {
                    Fail::invalid(
                        "type",
                        format!("expected one of {}", TRACK_TYPES.join(", ")),
                    )
                })?;
            let tracks = body["tracks"].as_array().cloned().unwrap_or_default();
            let parent = match a.str("parent")? {
                None => Value::Null,
                Some(p) => {
                    let pt = tracks.iter().find(|t| t["name"] == p).ok_or_else(|| {
                        Fail::new(
                            "TIMELINE_TRACK_NOT_FOUND",
                            format!("{path} has no track '{p}'."),
                        )
                        .with_data(json!({"track": p}))
                    })?;
                    if pt["type"] != "Group" {
                        return Err(Fail::invalid(
                            "parent",
                            format!(
                                "'{p}' is a {} track; only Group tracks hold other tracks",
                                pt["type"].as_str().unwrap_or("?")
                            ),
                        ));
                    }
                    json!(p)
                }
            };
            let base = a
                .str("name")?
                .map(str::to_string)
                .unwrap_or_else(|| format!("{ty} Track"));
            let mut name = base.clone();
            let mut n = 1;
            while tracks.iter().any(|t| t["name"] == name.as_str()) && n < 10_000 {
                name = format!("{base} ({n})");
                n += 1;
            }
            let track = json!({"name": name, "type": ty, "parent": parent, "clips": []});
            let index = tracks.len();
            if let Some(list) = body["tracks"].as_array_mut() {
                list.push(track);
            }
            ed.assets.put(
                &path,
                AssetKind::Data {
                    type_name: TIMELINE.into(),
                    body,
                },
            );
            ok(
                format!("Added {ty} track {name} to {path}."),
                json!({"path": path, "name": name, "type": ty, "parent": parent, "index": index}),
            )
        }
        "add_clip" => {
            let (path, mut body) = load(ed, a)?;
            let track_name = a.req_str("track")?.to_string();
            let start = a.f64("start")?.ok_or_else(|| Fail::missing("start"))?;
            let dur = a
                .f64("duration")?
                .ok_or_else(|| Fail::missing("duration"))?;
            if start < 0.0 || dur <= 0.0 {
                return Err(Fail::invalid(
                    "duration",
                    "start must be >= 0 and duration > 0",
                ));
            }
            let asset =
                match a.str("asset")? {
                    None => Value::Null,
                    Some(p) => json!(ed.assets.resolve(p).ok_or_else(|| Fail::new(
                        "ASSET_NOT_FOUND",
                        format!("No asset at '{p}'.")
                    ))?),
                };
            let tracks = body["tracks"]
                .as_array_mut()
                .ok_or_else(|| Fail::new("ASSET_TYPE_MISMATCH", "timeline has no track list"))?;
            let track = tracks
                .iter_mut()
                .find(|t| t["name"] == track_name.as_str())
                .ok_or_else(|| {
                    Fail::new(
                        "TIMELINE_TRACK_NOT_FOUND",
                        format!("{path} has no track '{track_name}'."),
                    )
                    .with_data(json!({"track": track_name}))
                })?;
            let ty = track["type"].as_str().unwrap_or("").to_string();
            if matches!(ty.as_str(), "Group" | "Signal" | "Marker") {
                return Err(Fail::new(
                    "TIMELINE_TRACK_NO_CLIPS",
                    format!("{ty} tracks hold markers or tracks, not clips."),
                ));
            }
            let name = a
                .str("name")?
                .map(str::to_string)
                .unwrap_or_else(|| format!("{ty} Clip"));
            let clip = json!({"name": name, "start": start, "duration": dur, "asset": asset});
            if let Some(list) = track["clips"].as_array_mut() {
                list.push(clip.clone());
            }
            ed.assets.put(
                &path,
                AssetKind::Data {
                    type_name: TIMELINE.into(),
                    body,
                },
            );
            ok(
                format!("Added clip {name} to {track_name}."),
                json!({"path": path, "track": track_name, "name": clip["name"], "start": start,
                       "duration": dur, "asset": clip["asset"]}),
            )
        }
        "" => Err(Fail::missing("action")),
        other => Err(Fail::invalid(
            "action",
            format!("unsupported action '{other}'"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_timeline_tracks_and_clips() {
        let mut h = Harness::new();
        h.ok(
            "manage_timeline",
            json!({"action": "create", "path": "Assets/Cutscene.playable"}),
        );
        h.ok("manage_timeline", json!({"action": "add_track", "path": "Assets/Cutscene.playable", "type": "group", "name": "Intro"}));
        h.ok("manage_timeline", json!({"action": "add_track", "path": "Assets/Cutscene.playable", "type": "Audio", "parent": "Intro"}));
        let c = h.ok("manage_timeline", json!({"action": "add_clip", "path": "Assets/Cutscene.playable", "track": "Audio Track", "start": 1.5, "duration": 2, "asset": "Assets/Audio/Jump.wav"}));
        assert_eq!(c["start"], 1.5);
        assert_eq!(h.err("manage_timeline", json!({"action": "add_clip", "path": "Assets/Cutscene.playable", "track": "Intro", "start": 0, "duration": 1})), "TIMELINE_TRACK_NO_CLIPS");
        let g = h.ok(
            "manage_timeline",
            json!({"action": "get", "path": "Assets/Cutscene.playable"}),
        );
        assert_eq!(g["tracks"].as_array().unwrap().len(), 2);
        assert_eq!(g["duration"], 3.5);
        assert_eq!(g["returned"], 3);
        assert_eq!(g["tracks"][1]["clips"][0]["asset"], "Assets/Audio/Jump.wav");
    }
}
