//! The words Unity developers use for an operation, mapped to the words the catalog uses.
//!
//! A request says "spawn", "destroy", "install", "screenshot of"; the catalog says
//! `instantiate`, `delete`, `add`, `screenshot`. Each entry expands one query word into catalog
//! words at a reduced weight, so an exact word always outranks its synonym. The table is about the
//! Editor domain (what people call things), not about any one catalog's descriptions: it must stay
//! right for a real Connector whose prose we have never seen.
//!
//! Expansions are one step only (a synonym's synonyms are not followed), which keeps the effect of
//! each entry predictable.

use super::text::stem;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Weight of a near-equivalent ("destroy" for "delete").
const SAME: f32 = 0.7;
/// Weight of a related word that often, not always, means the same operation.
const NEAR: f32 = 0.45;
/// Weight of a weak hint (the area a word belongs to).
const HINT: f32 = 0.3;

/// (query word, [(catalog word, weight)]), written as surface words; stemmed when loaded.
const TABLE: &[(&str, &[(&str, f32)])] = &[
    // Removing things.
    ("destroy", &[("delete", SAME), ("remove", SAME)]),
    ("delete", &[("destroy", SAME), ("remove", SAME)]),
    ("remove", &[("delete", SAME), ("destroy", SAME)]),
    (
        "erase",
        &[("delete", SAME), ("remove", SAME), ("clear", NEAR)],
    ),
    ("kill", &[("destroy", SAME), ("delete", NEAR)]),
    ("wipe", &[("clear", SAME), ("delete", NEAR)]),
    ("uninstall", &[("remove", SAME), ("package", NEAR)]),
    // Making things.
    ("spawn", &[("instantiate", SAME), ("create", NEAR)]),
    ("instantiate", &[("spawn", SAME), ("create", NEAR)]),
    ("make", &[("create", SAME)]),
    ("create", &[("add", NEAR)]),
    ("new", &[("create", NEAR)]),
    (
        "generate",
        &[("create", NEAR), ("bake", NEAR), ("start", HINT)],
    ),
    ("attach", &[("add", SAME), ("component", HINT)]),
    ("insert", &[("add", SAME)]),
    ("install", &[("add", SAME), ("package", NEAR)]),
    ("import", &[("add", HINT)]),
    ("copy", &[("duplicate", NEAR)]),
    ("duplicate", &[("copy", NEAR)]),
    ("clone", &[("duplicate", SAME), ("copy", NEAR)]),
    ("folder", &[("mkdir", SAME), ("directory", NEAR)]),
    ("directory", &[("mkdir", SAME), ("folder", NEAR)]),
    ("variant", &[("prefab", NEAR)]),
    // Reading things.
    ("show", &[("get", NEAR), ("list", NEAR)]),
    ("display", &[("get", NEAR), ("list", NEAR)]),
    ("read", &[("get", NEAR)]),
    ("fetch", &[("get", SAME)]),
    ("print", &[("get", HINT), ("log", HINT)]),
    ("inspect", &[("get", HINT)]),
    ("current", &[("get", HINT), ("status", HINT)]),
    ("enumerate", &[("list", SAME)]),
    ("every", &[("list", HINT), ("all", NEAR)]),
    ("find", &[("search", NEAR)]),
    ("search", &[("find", NEAR)]),
    ("locate", &[("find", SAME)]),
    ("lookup", &[("find", NEAR), ("docs", HINT)]),
    ("look", &[("find", HINT)]),
    ("progress", &[("status", NEAR)]),
    ("finished", &[("status", SAME)]),
    ("done", &[("status", SAME)]),
    ("complete", &[("status", NEAR)]),
    // Changing things.
    ("change", &[("set", NEAR)]),
    ("modify", &[("set", NEAR)]),
    ("update", &[("set", NEAR)]),
    ("adjust", &[("set", NEAR)]),
    ("tweak", &[("set", NEAR)]),
    ("configure", &[("set", NEAR), ("setting", HINT)]),
    ("assign", &[("set", NEAR)]),
    ("switch", &[("set", NEAR)]),
    ("turn", &[("set", HINT)]),
    ("increase", &[("set", NEAR)]),
    ("decrease", &[("set", NEAR)]),
    ("rename", &[("set", NEAR), ("name", SAME)]),
    ("reparent", &[("set", NEAR), ("parent", SAME)]),
    ("unparent", &[("set", NEAR), ("parent", SAME)]),
    ("hide", &[("active", NEAR)]),
    ("deactivate", &[("active", SAME), ("set", HINT)]),
    ("activate", &[("active", SAME), ("set", HINT)]),
    ("teleport", &[("move", SAME), ("position", NEAR)]),
    ("place", &[("position", NEAR), ("move", HINT)]),
    ("put", &[("set", NEAR), ("add", NEAR), ("position", HINT)]),
    ("give", &[("add", NEAR)]),
    ("platform", &[("target", SAME)]),
    ("platforms", &[("target", SAME)]),
    ("strip", &[("remove", SAME)]),
    ("detach", &[("remove", SAME), ("parent", HINT)]),
    (
        "off",
        &[("remove", HINT), ("disable", HINT), ("active", HINT)],
    ),
    (
        "drop",
        &[
            ("move", NEAR),
            ("remove", HINT),
            ("parent", HINT),
            ("instantiate", HINT),
        ],
    ),
    ("under", &[("parent", NEAR)]),
    ("beneath", &[("parent", NEAR)]),
    ("nest", &[("parent", NEAR)]),
    ("relocate", &[("move", SAME)]),
    ("child", &[("parent", SAME)]),
    ("children", &[("parent", NEAR)]),
    ("hidden", &[("active", NEAR)]),
    ("unhide", &[("active", SAME), ("set", HINT)]),
    ("visible", &[("active", NEAR)]),
    ("invisible", &[("active", NEAR)]),
    ("shrink", &[("scale", SAME), ("transform", HINT)]),
    ("grow", &[("scale", SAME), ("transform", HINT)]),
    ("enlarge", &[("scale", SAME), ("transform", HINT)]),
    ("big", &[("scale", NEAR)]),
    ("bigger", &[("scale", NEAR)]),
    ("smaller", &[("scale", NEAR)]),
    ("spin", &[("rotation", SAME), ("transform", HINT)]),
    ("tilt", &[("rotation", SAME), ("transform", HINT)]),
    ("degrees", &[("rotation", NEAR)]),
    ("degree", &[("rotation", NEAR)]),
    ("used", &[("deps", NEAR)]),
    ("usage", &[("deps", NEAR)]),
    ("uses", &[("deps", NEAR)]),
    ("stick", &[("add", NEAR)]),
    ("slap", &[("add", NEAR)]),
    ("break", &[("unpack", NEAR)]),
    ("unlink", &[("unpack", SAME)]),
    ("disconnect", &[("unpack", NEAR)]),
    ("discard", &[("revert", SAME), ("clear", NEAR)]),
    ("throw", &[("revert", HINT), ("delete", HINT)]),
    ("push", &[("apply", SAME)]),
    ("commit", &[("apply", NEAR)]),
    (
        "rid",
        &[("delete", SAME), ("remove", SAME), ("destroy", SAME)],
    ),
    ("trash", &[("delete", SAME), ("remove", NEAR)]),
    ("freeze", &[("pause", SAME)]),
    ("unpause", &[("pause", SAME)]),
    ("resume", &[("pause", NEAR), ("play", HINT)]),
    ("tree", &[("hierarchy", SAME)]),
    ("outline", &[("hierarchy", NEAR)]),
    ("fresh", &[("create", NEAR)]),
    ("tint", &[("color", SAME), ("set", HINT)]),
    ("colour", &[("color", SAME)]),
    ("bring", &[("import", NEAR)]),
    ("stretch", &[("anchor", SAME)]),
    ("fill", &[("anchor", NEAR)]),
    ("speed", &[("time", HINT), ("scale", HINT)]),
    ("copies", &[("duplicate", SAME), ("count", HINT)]),
    ("rotate", &[("rotation", SAME), ("transform", NEAR)]),
    ("rotation", &[("transform", NEAR)]),
    ("scale", &[("transform", NEAR)]),
    ("position", &[("transform", NEAR)]),
    ("resize", &[("size", SAME), ("rect", HINT), ("scale", NEAR)]),
    ("open", &[("load", SAME), ("focus", HINT)]),
    ("start", &[("enable", NEAR), ("begin", NEAR)]),
    ("begin", &[("start", SAME)]),
    ("stop", &[("disable", NEAR), ("cancel", NEAR)]),
    ("abort", &[("cancel", SAME)]),
    ("halt", &[("stop", SAME), ("cancel", NEAR)]),
    ("exit", &[("stop", SAME)]),
    ("leave", &[("stop", NEAR)]),
    ("quit", &[("stop", SAME)]),
    ("release", &[("up", NEAR), ("pointer", NEAR)]),
    ("enable", &[("active", HINT), ("status", HINT)]),
    ("disable", &[("active", HINT)]),
    // Verbs that name a tool's main operation.
    ("bake", &[("start", HINT)]),
    ("build", &[("start", HINT)]),
    // Editor and play mode.
    ("playmode", &[("play", SAME)]),
    ("editmode", &[("edit", HINT)]),
    ("select", &[("selection", SAME)]),
    ("selected", &[("selection", SAME)]),
    ("recompile", &[("compile", SAME), ("refresh", NEAR)]),
    ("compile", &[("refresh", HINT)]),
    ("reload", &[("refresh", NEAR)]),
    ("reimport", &[("refresh", NEAR), ("import", NEAR)]),
    // Capturing and reading output.
    ("screenshot", &[("capture", NEAR)]),
    ("capture", &[("screenshot", SAME)]),
    ("snapshot", &[("screenshot", SAME)]),
    ("screengrab", &[("screenshot", SAME)]),
    ("picture", &[("screenshot", NEAR), ("image", NEAR)]),
    ("image", &[("screenshot", NEAR)]),
    ("png", &[("screenshot", NEAR)]),
    ("grab", &[("capture", NEAR), ("screenshot", HINT)]),
    ("log", &[("console", NEAR)]),
    ("logs", &[("console", NEAR)]),
    ("console", &[("log", NEAR)]),
    ("error", &[("console", NEAR)]),
    ("warning", &[("console", NEAR)]),
    ("exception", &[("console", NEAR), ("error", NEAR)]),
    ("stacktrace", &[("console", HINT)]),
    // Packages.
    ("upm", &[("package", SAME)]),
    ("pkg", &[("package", SAME)]),
    ("dependency", &[("deps", SAME)]),
    ("dependencies", &[("deps", SAME)]),
    ("depend", &[("deps", SAME)]),
    ("reference", &[("deps", NEAR)]),
    // Assets and rendering.
    ("shader", &[("material", HINT)]),
    ("material", &[("shader", HINT)]),
    ("texture", &[("asset", HINT), ("import", HINT)]),
    ("importer", &[("import", SAME)]),
    ("lightmap", &[("lighting", NEAR), ("bake", NEAR)]),
    ("lightmaps", &[("lighting", NEAR), ("bake", NEAR)]),
    ("light", &[("lighting", NEAR)]),
    ("navigation", &[("navmesh", SAME)]),
    ("pathfinding", &[("navmesh", NEAR)]),
    ("urp", &[("pipeline", NEAR), ("render", HINT)]),
    ("hdrp", &[("pipeline", NEAR), ("render", HINT)]),
    ("srp", &[("pipeline", NEAR)]),
    (
        "msaa",
        &[("anti", NEAR), ("aliasing", NEAR), ("quality", HINT)],
    ),
    ("vsync", &[("quality", HINT)]),
    ("sound", &[("audio", SAME)]),
    ("volume", &[("audio", HINT)]),
    (
        "timestep",
        &[("fixed", NEAR), ("delta", NEAR), ("time", NEAR)],
    ),
    ("gravity", &[("physics", HINT)]),
    ("mono", &[("scripting", HINT), ("backend", HINT)]),
    // Objects, components, UI.
    ("object", &[("gameobject", NEAR)]),
    ("objects", &[("gameobject", NEAR)]),
    ("script", &[("component", HINT)]),
    ("behaviour", &[("component", HINT)]),
    ("monobehaviour", &[("component", HINT)]),
    ("canvas", &[("ui", NEAR)]),
    ("button", &[("ui", HINT)]),
    ("label", &[("ui", HINT), ("text", NEAR)]),
    ("panel", &[("ui", HINT)]),
    ("recttransform", &[("rect", SAME)]),
    ("animator", &[("animation", NEAR), ("controller", NEAR)]),
    ("anim", &[("animation", SAME), ("clip", NEAR)]),
    ("keyframe", &[("key", NEAR), ("curve", NEAR)]),
    ("keyframes", &[("key", NEAR), ("curve", NEAR)]),
    ("cutscene", &[("timeline", NEAR)]),
    ("sequence", &[("timeline", HINT)]),
    // Code and reflection.
    ("csharp", &[("code", NEAR), ("exec", NEAR)]),
    ("snippet", &[("code", NEAR)]),
    ("execute", &[("exec", SAME), ("run", NEAR)]),
    ("eval", &[("exec", NEAR), ("code", NEAR)]),
    ("function", &[("method", SAME)]),
    ("class", &[("type", SAME)]),
    ("struct", &[("type", NEAR)]),
    ("dll", &[("assembly", SAME)]),
    ("dlls", &[("assembly", SAME)]),
    ("namespace", &[("type", HINT)]),
    ("doc", &[("docs", SAME)]),
    ("documentation", &[("docs", SAME)]),
    ("manual", &[("docs", NEAR)]),
    ("api", &[("docs", HINT)]),
    // Tests, profiling, input.
    ("unittest", &[("test", SAME)]),
    ("nunit", &[("test", NEAR)]),
    ("cpu", &[("profiler", NEAR)]),
    ("gpu", &[("profiler", NEAR)]),
    ("fps", &[("profiler", NEAR), ("stats", NEAR)]),
    ("performance", &[("profiler", NEAR)]),
    ("perf", &[("profiler", NEAR)]),
    ("lag", &[("profiler", NEAR)]),
    ("slow", &[("profiler", HINT)]),
    ("spike", &[("profiler", NEAR)]),
    ("memory", &[("profiler", HINT)]),
    ("tap", &[("click", SAME)]),
    ("touch", &[("pointer", NEAR)]),
    ("cursor", &[("mouse", NEAR), ("pointer", NEAR)]),
    ("key", &[("keyboard", NEAR)]),
    ("keypress", &[("keyboard", SAME)]),
    ("type", &[("keyboard", HINT)]),
    ("hotkey", &[("keyboard", NEAR)]),
];

/// Unity's built-in component types, lower-cased as a query word or a camelCase run's joined
/// form is ("BoxCollider" → `boxcollider`, also its last part `collider`). A request that names
/// one is about components ("put a Rigidbody on the Player"), which the catalog calls
/// `component`; real Connectors describe no action, so the type name must lead there by itself.
pub(crate) const COMPONENT_TYPES: &[&str] = &[
    "rigidbody",
    "rigidbody2d",
    "collider",
    "collider2d",
    "boxcollider",
    "boxcollider2d",
    "spherecollider",
    "capsulecollider",
    "meshcollider",
    "wheelcollider",
    "terraincollider",
    "circlecollider2d",
    "polygoncollider2d",
    "edgecollider2d",
    "charactercontroller",
    "joint",
    "hingejoint",
    "fixedjoint",
    "springjoint",
    "configurablejoint",
    "audiosource",
    "audiolistener",
    "audioreverbzone",
    "navmeshagent",
    "navmeshobstacle",
    "meshrenderer",
    "meshfilter",
    "skinnedmeshrenderer",
    "spriterenderer",
    "linerenderer",
    "trailrenderer",
    "renderer",
    "particlesystem",
    "lodgroup",
    "reflectionprobe",
    "lightprobegroup",
    "cloth",
    "constantforce",
    "tilemaprenderer",
    "textmeshpro",
    "textmeshprougui",
    "eventsystem",
    "playerinput",
    "videoplayer",
    "monobehaviour",
    "cinemachinecamera",
    "cinemachinevirtualcamera",
];

/// A phrase's meaning that no single word carries: "put a Rigidbody *on* the Player" adds a
/// component, "take the collider *off*" removes one, "*turn off* the lamp" deactivates an
/// object, "*under* the Table" names a parent. Words such as "on" and "off" are stopwords, so
/// only the phrase sees them. A cue adds catalog words (`forms`) as one more query group, and
/// weakens (`damp`) verbs the phrase gives another sense ("drag the Sword under the Hand" is
/// not a pointer drag).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cue {
    pub label: &'static str,
    pub forms: Vec<(String, f32)>,
    pub damp: &'static [&'static str],
}

/// Factor on a damped verb's forms.
pub(crate) const DAMP: f32 = 0.5;

const PLACE_VERBS: &[&str] = &[
    "put", "stick", "slap", "place", "pop", "attach", "add", "give",
];
const TAKE_VERBS: &[&str] = &["take", "pull", "knock", "strip", "rip"];
const TOGGLE_VERBS: &[&str] = &["turn", "switch", "flip", "toggle"];
const PARENT_CUES: &[&str] = &["under", "beneath", "inside", "child", "children", "nest"];
const PLACE_INTO: &[&str] = &["scene", "level", "world", "hierarchy"];

/// The cues of a request, from its lower-cased words in order (stopwords included) and whether
/// it names a component (a Unity component type, or the word itself).
pub(crate) fn cues(words: &[&str], names_component: bool) -> Vec<Cue> {
    let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
    let after = |verbs: &[&str], particles: &[&str]| {
        words
            .iter()
            .position(|w| verbs.contains(w))
            .is_some_and(|i| words[i + 1..].iter().any(|w| particles.contains(w)))
    };
    let form = |w: &str, weight: f32| (stem(w), weight);
    let mut out = Vec::new();
    if names_component && after(PLACE_VERBS, &["on", "onto", "to"]) {
        out.push(Cue {
            label: "put on",
            forms: vec![form("add", SAME)],
            damp: &[],
        });
    }
    if names_component
        && (after(TAKE_VERBS, &["off"]) || after(&["drop", "remove", "delete"], &["from"]))
    {
        out.push(Cue {
            label: "take off",
            forms: vec![form("remove", SAME)],
            damp: &[],
        });
    }
    if has(TOGGLE_VERBS) && has(&["on", "off"]) {
        out.push(if names_component {
            // "turn off gravity on the Rigidbody": a component's property.
            Cue {
                label: "turn on/off",
                forms: vec![form("set", NEAR)],
                damp: &["off"],
            }
        } else {
            Cue {
                label: "turn on/off",
                forms: vec![form("active", SAME), form("set", HINT)],
                damp: &["off", "turn", "switch"],
            }
        });
    }
    if has(PARENT_CUES) {
        out.push(Cue {
            label: "under",
            forms: vec![form("parent", NEAR)],
            damp: &["drag", "drop", "move", "put"],
        });
    }
    if after(&["drop", "put", "place", "throw"], &["into", "in"]) && has(PLACE_INTO) {
        out.push(Cue {
            label: "drop into",
            forms: vec![form("instantiate", NEAR)],
            damp: &[],
        });
    }
    // "make the Rigidbody kinematic": a component is made something by setting it.
    if names_component && has(&["make"]) && !has(&["new", "create", "add"]) {
        out.push(Cue {
            label: "make it",
            forms: vec![form("set", NEAR)],
            damp: &["make"],
        });
    }
    // "is there a Camera component…", "does the Enemy have a NavMeshAgent?": what is on it.
    if names_component
        && let [first, second, ..] = words
        && (matches!((*first, *second), ("is" | "are", "there"))
            || matches!(*first, "does" | "do" | "has"))
    {
        out.push(Cue {
            label: "is there",
            forms: vec![form("list", NEAR)],
            damp: &[],
        });
    }
    // "which scenes…", "what components are…": a plural asked about is a list.
    if let [first, next, ..] = words
        && matches!(*first, "which" | "what")
        && next.len() > 3
        && next.ends_with('s')
        && !next.ends_with("ss")
    {
        out.push(Cue {
            label: "which ones",
            forms: vec![form("list", NEAR)],
            damp: &[],
        });
    }
    out
}

/// Whether a lower-cased query word names a built-in component type.
pub(crate) fn is_component_type(word: &str) -> bool {
    COMPONENT_TYPES.contains(&word)
}

/// Expansions keyed by the stem of the query word.
fn table() -> &'static HashMap<String, Vec<(String, f32)>> {
    static TABLE_STEMMED: OnceLock<HashMap<String, Vec<(String, f32)>>> = OnceLock::new();
    TABLE_STEMMED.get_or_init(|| {
        let mut m: HashMap<String, Vec<(String, f32)>> = HashMap::new();
        for ty in COMPONENT_TYPES {
            let entry = m.entry(stem(ty)).or_default();
            entry.push((stem("component"), SAME));
        }
        for (word, targets) in TABLE {
            let entry = m.entry(stem(word)).or_default();
            for (t, w) in *targets {
                let t = stem(t);
                match entry.iter_mut().find(|(x, _)| *x == t) {
                    Some(e) => e.1 = e.1.max(*w),
                    None => entry.push((t, *w)),
                }
            }
        }
        m
    })
}

/// The catalog terms a query term stands for, with their weights (empty if none).
pub(crate) fn expand(term: &str) -> &'static [(String, f32)] {
    table().get(term).map(Vec::as_slice).unwrap_or(&[])
}

/// Every query-side stem the table knows; typo correction may land on these too.
pub(crate) fn known_terms() -> impl Iterator<Item = &'static str> {
    table().keys().map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansions_are_stemmed_and_weaker_than_exact() {
        let e = expand(&stem("destroying"));
        assert!(e.iter().any(|(t, _)| *t == stem("delete")));
        for targets in table().values() {
            for (_, w) in targets {
                assert!(*w > 0.0 && *w < 1.0);
            }
        }
        assert!(expand("nonexistentword").is_empty());
    }
}
