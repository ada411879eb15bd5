//! What a call names, found out by the adapter because the Connector does not say:
//!
//! - the **approval subject**: the Connector's preflight summary names the target as the JSON
//!   text of one raw argument (`"parameters: action,instance_id"` for an instance id, nothing
//!   for a package's `identifier`), which a person cannot judge. Before asking, the subject is
//!   added as `summary.subject`: a GameObject's name and path (one read by instance id or
//!   path), a package id, an asset path, with a one-line `text`.
//! - **ambiguous targets**: Unity lets two GameObjects share a name under the same parent, and a
//!   path or bare name then resolves to one of them without a word. One `find_gameobjects`
//!   read lists every object a call's path or name denotes: before a change by path (after it,
//!   a destroy or rename leaves fewer), after a read by path, and after a create (its new path);
//!   more than one is reported with their instance ids, and an approval by path names them all.
//!
//! Each is one bounded read, made only when the call needs it, and any failure of the read
//! leaves the answer as it was: these are explanations, never conditions of the call.

use super::view::CatalogView;
use crate::connector::{CallOptions, ClientKind, ConnectorClient};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Bound on each read made here: an explanation is not worth a long wait.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// At most this many same-named objects are listed (the read asks for one more, to know).
const MAX_LISTED: usize = 20;

/// Tools whose `path`, `target` and `instance_id` name a GameObject in the open scenes.
const GAMEOBJECT_TOOLS: [&str; 2] = ["manage_gameobject", "manage_components"];

/// One successful read's `data`, or `None` (not in the catalog, refused, failed, timed out).
async fn read(
    client: &ConnectorClient,
    view: &CatalogView,
    client_kind: ClientKind,
    tool: &str,
    args: Map<String, Value>,
) -> Option<Value> {
    let entry = view.catalog().tool(tool)?;
    if let Some(action) = args.get("action").and_then(Value::as_str)
        && entry.action(action).is_none()
    {
        return None;
    }
    let options = CallOptions {
        operation_id: None,
        approval_token: None,
        catalog_hash: (!view.snapshot.is_legacy())
            .then(|| view.snapshot.catalog_hash().to_string()),
        idempotent: true,
        client_kind,
        timeout: Some(READ_TIMEOUT),
        arguments_hash: None,
        read_only: true,
    };
    let reply = client.command(tool, &args, options).await.ok()?;
    let env = reply.envelope;
    if !env.success {
        return None;
    }
    env.data().cloned()
}

/// A path that names an asset rather than a GameObject.
fn is_asset_path(p: &str) -> bool {
    p.starts_with("Assets/") || p.starts_with("Packages/") || p == "Assets"
}

/// How a call names a GameObject: its instance id, or a hierarchy path or bare name.
enum GameObjectRef {
    Id(i64),
    Path(String),
}

fn gameobject_ref(tool: &str, args: &Map<String, Value>) -> Option<GameObjectRef> {
    if let Some(id) = args.get("instance_id").and_then(Value::as_i64) {
        return Some(GameObjectRef::Id(id));
    }
    if !GAMEOBJECT_TOOLS.contains(&tool) {
        return None;
    }
    for key in ["path", "target"] {
        match args.get(key) {
            Some(Value::Number(n)) => return n.as_i64().map(GameObjectRef::Id),
            Some(Value::String(s)) => {
                let s = s.trim();
                if let Ok(id) = s.parse::<i64>() {
                    return Some(GameObjectRef::Id(id));
                }
                if !s.is_empty() && !is_asset_path(s) {
                    return Some(GameObjectRef::Path(s.to_string()));
                }
            }
            _ => {}
        }
    }
    None
}

/// `summary.subject` for an approval of `tool` with `args`, or `None` when the arguments name
/// nothing a person would recognise better than the Connector's own `target`.
pub(super) async fn approval_subject(
    client: &ConnectorClient,
    view: &CatalogView,
    client_kind: ClientKind,
    tool: &str,
    args: &Map<String, Value>,
) -> Option<Value> {
    if let Some(r) = gameobject_ref(tool, args) {
        let mut read_args = Map::new();
        read_args.insert("action".into(), json!("get_transform"));
        match &r {
            GameObjectRef::Id(id) => read_args.insert("instance_id".into(), json!(id)),
            GameObjectRef::Path(p) => read_args.insert("path".into(), json!(p)),
        };
        let found = read(client, view, client_kind, "manage_gameobject", read_args).await;
        let name = found.as_ref().and_then(|d| d["name"].as_str());
        let path = found.as_ref().and_then(|d| d["path"].as_str());
        let id = found
            .as_ref()
            .and_then(|d| d["instance_id"].as_i64())
            .or(match r {
                GameObjectRef::Id(id) => Some(id),
                GameObjectRef::Path(_) => None,
            });
        // A path or name that fits several objects: the person should know before saying yes.
        let twins = match &r {
            GameObjectRef::Path(p) => denoted(client, view, client_kind, p)
                .await
                .filter(|(ids, _)| ids.len() > 1),
            GameObjectRef::Id(_) => None,
        };
        let mut subject = match (name, path) {
            (Some(name), Some(path)) => json!({
                "kind": "game_object", "name": name, "path": path, "instance_id": id,
                "text": format!("GameObject \"{name}\" at {path}{}",
                    id.map(|i| format!(" (instance id {i})")).unwrap_or_default()),
            }),
            _ => {
                let named = match &r {
                    GameObjectRef::Id(id) => format!("instance id {id}"),
                    GameObjectRef::Path(p) => format!("path {p}"),
                };
                json!({
                    "kind": "game_object", "instance_id": id, "resolved": false,
                    "text": format!("the GameObject with {named} (not found in the open scenes \
                                     when asked; the Editor will report it if it is missing)"),
                })
            }
        };
        if let Some((ids, truncated)) = twins {
            let list: Vec<String> = ids.iter().map(i64::to_string).collect();
            let more = if truncated { " and more" } else { "" };
            let text = format!(
                "{}; this path or name fits {} GameObjects (instance ids {}{more}) and the \
                 Editor acts on one of them",
                subject["text"].as_str().unwrap_or_default(),
                ids.len(),
                list.join(", "),
            );
            subject["text"] = json!(text);
            subject["also_named"] = json!(ids);
        }
        return Some(subject);
    }
    if tool == "manage_packages"
        && let Some(id) = args.get("identifier").and_then(Value::as_str)
    {
        return Some(json!({"kind": "package", "id": id, "text": format!("package {id}")}));
    }
    for key in ["path", "asset_path", "target"] {
        if let Some(p) = args.get(key).and_then(Value::as_str)
            && is_asset_path(p)
        {
            let kind = if p.ends_with(".unity") {
                "scene"
            } else {
                "asset"
            };
            let word = if kind == "scene" { "scene" } else { "asset" };
            return Some(json!({"kind": kind, "path": p, "text": format!("{word} {p}")}));
        }
    }
    None
}

/// A path or name that denotes more than one GameObject, as a result reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ambiguity {
    /// The path or name as the call gave it (for a create: the new object's path).
    pub named: String,
    /// Every GameObject it denotes, in hierarchy order (at most [`MAX_LISTED`]).
    pub instance_ids: Vec<i64>,
    /// The one the call acted on, when the result says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen: Option<i64>,
    /// More objects matched than are listed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// What happened, in one sentence.
    pub message: String,
}

/// Whether this successful call's target may be ambiguous, and the path or name to check.
fn ambiguity_question(
    tool: &str,
    action: Option<&str>,
    args: &Map<String, Value>,
    data: Option<&Value>,
) -> Option<(String, bool)> {
    if tool == "manage_gameobject" && action == Some("create") {
        let path = data?.get("path")?.as_str()?;
        return Some((path.to_string(), true));
    }
    match gameobject_ref(tool, args)? {
        GameObjectRef::Path(p) if args.get("instance_id").is_none() => Some((p, false)),
        _ => None,
    }
}

/// Every GameObject `named` (a hierarchy path, or a bare name) denotes: a bare name is any
/// object of that name, a path the objects at exactly that path. `None` when the read failed.
async fn denoted(
    client: &ConnectorClient,
    view: &CatalogView,
    client_kind: ClientKind,
    named: &str,
) -> Option<(Vec<i64>, bool)> {
    let trimmed = named.trim().trim_matches('/');
    let bare = !trimmed.contains('/') && !named.trim().starts_with('/');
    let glob = if bare {
        format!("**/{trimmed}")
    } else {
        trimmed.to_string()
    };
    let mut args = Map::new();
    args.insert("path_glob".into(), json!(glob));
    args.insert("fields".into(), json!("instance_id,name,path"));
    args.insert("include_inactive".into(), json!(true));
    args.insert("limit".into(), json!(MAX_LISTED + 1));
    let data = read(client, view, client_kind, "find_gameobjects", args).await?;
    let results = data.get("results")?.as_array()?;
    // The glob treats `*` and `?` in a name as wildcards and may ignore case: keep exact
    // matches only.
    let mut ids: Vec<i64> = results
        .iter()
        .filter(|r| {
            let path = r["path"].as_str().unwrap_or_default();
            if bare {
                r["name"].as_str() == Some(trimmed)
            } else {
                path.trim_matches('/') == trimmed
            }
        })
        .filter_map(|r| r["instance_id"].as_i64())
        .collect();
    let more = data.get("has_more").and_then(Value::as_bool) == Some(true);
    let truncated = more || ids.len() > MAX_LISTED;
    ids.truncate(MAX_LISTED);
    Some((ids, truncated))
}

/// What a path or name in a call denoted, read before or after the call.
pub(super) struct Denoted {
    named: String,
    ids: Vec<i64>,
    truncated: bool,
    /// The call created the object (read after it).
    created: bool,
}

/// Whether the call names a GameObject by a path or bare name (not by instance id).
pub(super) fn names_by_path(tool: &str, args: &Map<String, Value>) -> bool {
    matches!(gameobject_ref(tool, args), Some(GameObjectRef::Path(_)))
}

/// Every GameObject the call's path or name denotes (`data`: the result, for a create), or
/// `None` when the call names none that way or the read failed.
pub(super) async fn denoted_by_call(
    client: &ConnectorClient,
    view: &CatalogView,
    client_kind: ClientKind,
    (tool, action): (&str, Option<&str>),
    args: &Map<String, Value>,
    data: Option<&Value>,
) -> Option<Denoted> {
    let (named, created) = ambiguity_question(tool, action, args, data)?;
    let (ids, truncated) = denoted(client, view, client_kind, &named).await?;
    Some(Denoted {
        named,
        ids,
        truncated,
        created,
    })
}

/// The ambiguity a result reports, when the path or name denoted more than one object.
/// `data`: the result (which object the Editor acted on, when it says).
pub(super) fn ambiguity(d: Denoted, data: Option<&Value>) -> Option<Ambiguity> {
    let Denoted {
        named,
        ids,
        truncated,
        created,
    } = d;
    if ids.len() < 2 {
        return None;
    }
    let chosen = data
        .and_then(|d| d.get("instance_id"))
        .and_then(Value::as_i64);
    let n = if truncated {
        format!("more than {}", ids.len())
    } else {
        ids.len().to_string()
    };
    let message = if created {
        format!(
            "{n} GameObjects now have the path {named}: the new one{} shares its name with \
             another at the same place, so a later call by this path or name may reach either; \
             target them by instance_id",
            chosen
                .map(|c| format!(" (instance id {c})"))
                .unwrap_or_default()
        )
    } else {
        format!(
            "\"{named}\" names {n} GameObjects; the Editor acted on {} and did not say the \
             target was ambiguous. Target by instance_id to choose",
            chosen
                .map(|c| format!("instance id {c}"))
                .unwrap_or_else(|| "one of them".into())
        )
    };
    Some(Ambiguity {
        named,
        instance_ids: ids,
        chosen,
        truncated,
        message,
    })
}
