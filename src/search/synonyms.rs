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
pub(crate) const SAME: f32 = 0.7;
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
    ("uninstall", &[("remove", SAME), ("package", SAME)]),
    // Making things.
    ("spawn", &[("instantiate", SAME), ("create", NEAR)]),
    ("instantiate", &[("spawn", SAME), ("create", NEAR)]),
    ("make", &[("create", SAME)]),
    ("create", &[("add", NEAR)]),
    ("new", &[("create", NEAR)]),
    (
        "generate",
        &[("create", NEAR), ("bake", NEAR), ("start", NEAR)],
    ),
    ("attach", &[("add", SAME), ("component", HINT)]),
    ("insert", &[("add", SAME)]),
    ("install", &[("add", SAME), ("package", SAME)]),
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
    ("every", &[("list", HINT), ("all", SAME)]),
    ("find", &[("search", NEAR)]),
    ("search", &[("find", NEAR)]),
    ("locate", &[("find", SAME)]),
    ("lookup", &[("find", NEAR), ("docs", HINT)]),
    ("registry", &[("search", NEAR), ("package", NEAR)]),
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
    ("nudge", &[("move", SAME), ("position", HINT)]),
    ("shift", &[("move", SAME), ("position", HINT)]),
    ("slide", &[("move", NEAR), ("position", HINT)]),
    ("raise", &[("move", NEAR), ("position", HINT)]),
    ("lift", &[("move", NEAR), ("position", HINT)]),
    ("lower", &[("move", NEAR), ("position", HINT)]),
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
    ("level", &[("scene", NEAR)]),
    ("levels", &[("scene", NEAR)]),
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
    ("big", &[("scale", NEAR), ("transform", HINT)]),
    ("large", &[("scale", NEAR), ("transform", HINT)]),
    ("bigger", &[("scale", NEAR)]),
    ("smaller", &[("scale", NEAR)]),
    ("spin", &[("rotation", SAME), ("transform", HINT)]),
    ("tilt", &[("rotation", SAME), ("transform", HINT)]),
    ("degrees", &[("rotation", SAME)]),
    ("degree", &[("rotation", SAME)]),
    ("twice", &[("scale", NEAR)]),
    ("double", &[("scale", NEAR)]),
    ("half", &[("scale", HINT)]),
    ("size", &[("scale", HINT)]),
    ("face", &[("rotation", NEAR)]),
    ("facing", &[("rotation", NEAR)]),
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
    ("speed", &[("time", NEAR), ("scale", NEAR)]),
    ("slow", &[("time", NEAR), ("scale", HINT)]),
    ("slowmo", &[("time", SAME), ("scale", NEAR)]),
    ("fast", &[("time", HINT), ("scale", HINT)]),
    ("faster", &[("time", HINT), ("scale", HINT)]),
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
    ("select", &[("selection", SAME), ("set", HINT)]),
    ("selected", &[("selection", SAME)]),
    ("recompile", &[("compile", SAME), ("refresh", NEAR)]),
    ("compile", &[("refresh", HINT)]),
    ("reload", &[("refresh", NEAR)]),
    ("reimport", &[("refresh", SAME), ("import", NEAR)]),
    ("disk", &[("refresh", NEAR)]),
    // Capturing and reading output.
    ("screenshot", &[("capture", NEAR)]),
    ("capture", &[("screenshot", SAME)]),
    ("snapshot", &[("screenshot", SAME)]),
    ("screengrab", &[("screenshot", SAME)]),
    ("picture", &[("screenshot", SAME), ("image", NEAR)]),
    ("image", &[("screenshot", SAME)]),
    ("png", &[("screenshot", NEAR)]),
    ("grab", &[("capture", NEAR), ("screenshot", NEAR)]),
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
    ("gravity", &[("physics", SAME)]),
    ("cube", &[("primitive", NEAR), ("create", HINT)]),
    ("sphere", &[("primitive", NEAR), ("create", HINT)]),
    ("capsule", &[("primitive", NEAR), ("create", HINT)]),
    ("cylinder", &[("primitive", NEAR), ("create", HINT)]),
    ("quad", &[("primitive", NEAR), ("create", HINT)]),
    ("mipmap", &[("import", NEAR)]),
    ("mipmaps", &[("import", NEAR)]),
    ("compression", &[("import", HINT)]),
    ("srgb", &[("import", NEAR)]),
    ("smoothness", &[("property", NEAR)]),
    ("metallic", &[("property", NEAR)]),
    ("albedo", &[("property", NEAR), ("color", NEAR)]),
    ("emission", &[("property", NEAR)]),
    ("roughness", &[("property", NEAR)]),
    ("red", &[("color", NEAR), ("value", HINT)]),
    ("green", &[("color", NEAR), ("value", HINT)]),
    ("blue", &[("color", NEAR), ("value", HINT)]),
    ("yellow", &[("color", NEAR), ("value", HINT)]),
    ("white", &[("color", NEAR), ("value", HINT)]),
    ("black", &[("color", NEAR), ("value", HINT)]),
    ("orange", &[("color", NEAR), ("value", HINT)]),
    ("purple", &[("color", NEAR), ("value", HINT)]),
    ("color", &[("property", HINT)]),
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
    ("snippet", &[("code", NEAR), ("exec", NEAR)]),
    ("serialization", &[("reserialize", SAME)]),
    ("serialize", &[("reserialize", NEAR)]),
    ("rewrite", &[("reserialize", NEAR)]),
    ("execute", &[("exec", SAME), ("run", SAME)]),
    ("evaluate", &[("exec", NEAR), ("code", NEAR)]),
    ("expression", &[("code", NEAR)]),
    ("eval", &[("exec", NEAR), ("code", NEAR)]),
    ("function", &[("method", SAME)]),
    ("class", &[("type", SAME)]),
    ("struct", &[("type", NEAR)]),
    ("dll", &[("assembly", SAME)]),
    ("dlls", &[("assembly", SAME)]),
    ("namespace", &[("type", HINT)]),
    ("doc", &[("docs", SAME)]),
    ("documentation", &[("docs", SAME)]),
    ("manual", &[("docs", SAME)]),
    ("api", &[("docs", HINT)]),
    // Tests, profiling, input.
    ("unittest", &[("test", SAME)]),
    ("nunit", &[("test", NEAR)]),
    ("cpu", &[("profiler", NEAR), ("hierarchy", HINT)]),
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
    "animator",
    "animation",
    "collider",
];

/// A phrase's meaning that no single word carries: "put a Rigidbody *on* the Player" adds a
/// component, "take the collider *off*" removes one, "*turn off* the lamp" deactivates an
/// object, "*under* the Table" names a parent, "*get rid of*" deletes, "*where is*" asks for a
/// position, "*which objects* have…" searches the scene. A cue may also only weaken words that
/// describe rather than ask (a particle, a subordinate clause, the place a thing is). Words such as "on" and "off" are stopwords, so
/// only the phrase sees them. A cue adds catalog words (`forms`) as one more query group, and
/// weakens (`damp`) verbs the phrase gives another sense ("drag the Sword under the Hand" is
/// not a pointer drag).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cue {
    pub label: &'static str,
    pub forms: Vec<(String, f32)>,
    pub damp: Vec<String>,
}

/// Verbs a phrase's cue speaks for entirely when it damps them ("get rid of", "look for", "look
/// up", "throw away"): they do not count in a hit's coverage.
pub(crate) const SPENT_VERBS: &[&str] = &["get", "look", "throw"];

/// Factor on a damped verb's forms.
pub(crate) const DAMP: f32 = 0.5;

const PLACE_VERBS: &[&str] = &[
    "put", "stick", "slap", "place", "pop", "attach", "add", "give",
];
const TAKE_VERBS: &[&str] = &["take", "pull", "knock", "strip", "rip"];
const TOGGLE_VERBS: &[&str] = &["turn", "switch", "flip", "toggle"];
const PARENT_CUES: &[&str] = &["under", "beneath", "inside", "child", "children", "nest"];
const PLACE_INTO: &[&str] = &["scene", "level", "world", "hierarchy"];
const REMOVE_VERBS: &[&str] = &[
    "remove", "delete", "destroy", "rid", "strip", "detach", "drop", "kill", "erase", "trash",
];
/// Places a request names as where its object is ("in the scene").
const LOCATIONS: &[&str] = &[
    "scene",
    "hierarchy",
    "project",
    "level",
    "editor",
    "world",
    "inspector",
    "game",
];
/// Kinds of asset a request lists or looks for.
const ASSET_PLURALS: &[&str] = &[
    "textures",
    "materials",
    "prefabs",
    "sprites",
    "models",
    "meshes",
    "scripts",
    "sounds",
    "clips",
    "animations",
    "assets",
    "files",
    "images",
    "fonts",
];
/// Words that open a question.
const QUESTION_OPENINGS: &[&str] = &["what", "which", "whats", "is", "are", "where", "how"];
/// Labels of the cues that make a request a write although it opens like a read ("show the
/// hidden Menu", "get the Addressables package").
pub(crate) const WRITE_CUES: &[&str] = &["unhide", "get a package", "get rid of"];
const UI_ELEMENTS: &[&str] = &[
    "button",
    "slider",
    "toggle",
    "dropdown",
    "scrollbar",
    "scrollview",
    "inputfield",
    "panel",
    "checkbox",
];
const OVERRIDE_WORDS: &[&str] = &[
    "override",
    "overrides",
    "overridden",
    "changes",
    "modifications",
];
const NUMBER_WORDS: &[&str] = &[
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twenty", "few",
    "several", "many", "more",
];

fn ws(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The cues of a request, from its lower-cased words in order (stopwords included) and whether
/// it names a component (a Unity component type, or the word itself).
/// `file`: the request names a file of the project ("Logo.png"); `assigns`: it writes an
/// assignment (`Physics.gravity = …`).
/// `joined_types`: component types the request writes in camelCase ("TextMeshPro");
/// `object`: it names a scene object ("the Crate").
pub(crate) fn cues(
    words: &[&str],
    joined_types: &[&str],
    names_component: bool,
    file: bool,
    object: bool,
    assigns: bool,
) -> Vec<Cue> {
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
            damp: ws(&["put", "place", "pop"]),
        });
    }
    if names_component
        && (after(TAKE_VERBS, &["off"]) || after(&["drop", "remove", "delete"], &["from"]))
    {
        out.push(Cue {
            label: "take off",
            forms: vec![form("remove", SAME)],
            damp: Vec::new(),
        });
    }
    if has(TOGGLE_VERBS) && has(&["on", "off"]) {
        out.push(if names_component {
            // "turn off gravity on the Rigidbody": a component's property.
            Cue {
                label: "turn on/off",
                forms: vec![form("set", NEAR)],
                damp: ws(&["off"]),
            }
        } else {
            Cue {
                label: "turn on/off",
                forms: vec![form("active", SAME), form("set", HINT)],
                damp: ws(&["off", "turn", "switch"]),
            }
        });
    }
    if has(PARENT_CUES) {
        out.push(Cue {
            label: "under",
            forms: vec![form("parent", SAME)],
            damp: ws(&["drag", "drop", "move", "put"]),
        });
    }
    if after(&["drop", "put", "place", "throw"], &["into", "in"]) && has(PLACE_INTO) {
        out.push(Cue {
            label: "drop into",
            forms: vec![form("instantiate", NEAR)],
            damp: Vec::new(),
        });
    }
    // "make the Rigidbody kinematic": a component is made something by setting it.
    if names_component && has(&["make"]) && !has(&["new", "create", "add"]) {
        out.push(Cue {
            label: "make it",
            forms: vec![form("set", NEAR)],
            damp: ws(&["make"]),
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
            damp: Vec::new(),
        });
    }
    // A component taken away in other words ("get rid of the Animator", "delete the
    // BoxCollider from the Crate"): the component's removal, not the object's.
    if names_component && has(REMOVE_VERBS) {
        out.push(Cue {
            label: "remove component",
            forms: vec![form("remove", SAME)],
            damp: Vec::new(),
        });
    }
    // "remove the Crate": a named object taken out of the scene is destroyed (`Destroy` in
    // Unity's API), unless a component is what goes.
    if object && !names_component && has(REMOVE_VERBS) {
        out.push(Cue {
            label: "remove an object",
            forms: vec![form("destroy", NEAR)],
            damp: Vec::new(),
        });
    }
    // "detach the Wheel from the Car" with no component named: the object leaves its parent.
    if !names_component && has(&["detach", "unparent"]) {
        out.push(Cue {
            label: "detach",
            forms: vec![form("parent", SAME), form("set", NEAR)],
            damp: ws(&["detach"]),
        });
    }
    // "get rid of": "get" is not a read here.
    if let Some(i) = words.iter().position(|w| *w == "rid")
        && i > 0
        && words[i - 1] == "get"
    {
        out.push(Cue {
            label: "get rid of",
            forms: vec![
                form("delete", SAME),
                form("destroy", SAME),
                form("remove", SAME),
            ],
            damp: ws(&["get"]),
        });
    }
    // "throw away the old Cube", "toss it": deletion.
    if (after(&["throw", "toss", "chuck"], &["away", "out"]) || has(&["toss", "bin"]))
        && !has(OVERRIDE_WORDS)
    {
        out.push(Cue {
            label: "throw away",
            forms: vec![form("delete", SAME), form("destroy", SAME)],
            damp: ws(&["throw"]),
        });
    }
    // Prefab overrides kept ("save my overrides into the prefab") or dropped ("discard the
    // overrides"): apply or revert.
    if has(OVERRIDE_WORDS) && (has(&["prefab", "instance"]) || has(&["override", "overrides"])) {
        if has(&["save", "push", "commit", "keep", "write", "store"]) {
            out.push(Cue {
                label: "keep overrides",
                forms: vec![form("apply", SAME)],
                damp: ws(&["save", "overrides", "override"]),
            });
        }
        if has(&[
            "undo", "discard", "reset", "drop", "throw", "lose", "clear", "remove", "rid",
            "restore",
        ]) {
            out.push(Cue {
                label: "drop overrides",
                forms: vec![form("revert", SAME)],
                damp: ws(&[
                    "undo",
                    "drop",
                    "clear",
                    "remove",
                    "throw",
                    "overrides",
                    "override",
                ]),
            });
        }
    }
    // "turn the Player into a prefab", "save it as a prefab": a prefab made from an object.
    if has(&["prefab"])
        && after(
            &["turn", "make", "convert", "save", "store"],
            &["into", "as"],
        )
    {
        out.push(Cue {
            label: "into a prefab",
            forms: vec![form("create", NEAR)],
            damp: ws(&["turn", "make", "save"]),
        });
    }
    // "start a fresh scene", "open a new scene": a creation, not a start or a load.
    if has(&["new", "fresh", "empty", "blank"]) && has(&["start", "begin", "open"]) {
        out.push(Cue {
            label: "start a new",
            forms: vec![form("create", SAME)],
            damp: ws(&["start", "begin", "open"]),
        });
    }
    // "where is the Health script used", "what references Grass.png": its dependents.
    let usage = has(&[
        "used",
        "uses",
        "usage",
        "referenced",
        "references",
        "referencing",
    ]);
    if usage
        && words
            .first()
            .is_some_and(|w| QUESTION_OPENINGS.contains(w) || *w == "who")
    {
        out.push(Cue {
            label: "where used",
            forms: vec![form("deps", SAME)],
            damp: ws(&["script", "component"]),
        });
    }
    // "where is the Camera", "where's the Player": its position.
    if !usage && words.first().is_some_and(|w| *w == "where") {
        out.push(Cue {
            label: "where is",
            forms: vec![
                form("position", NEAR),
                form("transform", NEAR),
                form("get", HINT),
            ],
            damp: Vec::new(),
        });
    }
    // "which scene am I in", "what scenes are open", "what is the active scene": the state of
    // the Editor is an info or a status read.
    if words.first().is_some_and(|w| QUESTION_OPENINGS.contains(w))
        && (has(&["open", "opened", "current", "currently", "loaded", "active"])
            || (has(&["am"]) && words.last().is_some_and(|w| *w == "in")))
    {
        out.push(Cue {
            label: "current state",
            forms: vec![form("info", NEAR), form("status", HINT)],
            damp: ws(&["open", "active"]),
        });
    }
    // "show the hidden Menu again": showing what is hidden is a write.
    if has(&["show", "reveal", "display"]) && has(&["hidden", "inactive", "disabled", "invisible"])
    {
        out.push(Cue {
            label: "unhide",
            forms: vec![form("active", SAME), form("set", NEAR)],
            damp: ws(&["show", "reveal", "display"]),
        });
    }
    // "which objects have a Light", "list every game object tagged Player": a search of the
    // scene's objects.
    if has(&["objects", "gameobjects"])
        && has(&[
            "which", "what", "find", "list", "all", "every", "show", "search", "any", "many",
            "count", "tagged", "named", "called",
        ])
    {
        out.push(Cue {
            label: "which objects",
            forms: vec![form("find", SAME), form("gameobject", SAME)],
            damp: Vec::new(),
        });
    }
    // "list all textures in the project", "find prefabs of type …": a search of the assets.
    if has(ASSET_PLURALS)
        && has(&[
            "which", "what", "find", "list", "all", "every", "show", "search", "where",
        ])
    {
        out.push(Cue {
            label: "which assets",
            forms: vec![form("find", SAME), form("asset", NEAR)],
            damp: ws(&["list", "show"]),
        });
    }
    // "import settings" of an asset, not the project's settings.
    if words
        .windows(2)
        .any(|p| p[0] == "import" && p[1] == "settings")
    {
        out.push(Cue {
            label: "import settings",
            forms: vec![form("asset", NEAR)],
            damp: ws(&["settings"]),
        });
    }
    // "scale it up", "slow down": a particle, unless a pointer, key or button goes up or down.
    let particles: Vec<String> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            matches!(**w, "up" | "down")
                && !(*i > 0
                    && matches!(
                        words[i - 1],
                        "pointer" | "mouse" | "key" | "button" | "finger" | "touch" | "release"
                    ))
        })
        .map(|(_, w)| w.to_string())
        .collect();
    // Words of a subordinate clause ("bake the navmesh so agents can walk") and places named
    // as where the thing is ("find all enemies in the scene"), and adjectives in -ing ("the
    // running tests") describe the request's object, not its operation.
    let mut weak = particles;
    if let Some(i) = words
        .iter()
        .position(|w| matches!(*w, "so" | "because" | "after" | "since" | "once"))
        && i > 0
    {
        weak.extend(words[i + 1..].iter().map(|w| w.to_string()));
    }
    let mut located = None;
    for (i, w) in words.iter().enumerate() {
        if i >= 2
            && LOCATIONS.contains(w)
            && matches!(words[i - 1], "the" | "this" | "my" | "our" | "current")
            && matches!(
                words[i - 2],
                "in" | "from" | "within" | "across" | "throughout"
            )
        {
            weak.push(w.to_string());
            located = Some(*w);
        }
        if i >= 1 && matches!(words[i - 1], "the" | "all") && w.len() > 5 && w.ends_with("ing") {
            weak.push(w.to_string());
        }
    }
    // Where the thing is says what kind of thing it is: "in the scene" an object, "in the
    // project" an asset.
    match located {
        Some("scene" | "hierarchy" | "level" | "world") => out.push(Cue {
            label: "in the scene",
            forms: vec![form("gameobject", NEAR)],
            damp: Vec::new(),
        }),
        Some("project") => out.push(Cue {
            label: "in the project",
            forms: vec![form("asset", NEAR)],
            damp: Vec::new(),
        }),
        _ => {}
    }
    // "uninstall TextMeshPro", "add the Cinemachine package": a package named like a component.
    if has(&["install", "uninstall", "package", "packages", "upm"]) {
        weak.extend(
            words
                .iter()
                .filter(|w| is_component_type(w))
                .map(|w| w.to_string()),
        );
        weak.extend(joined_types.iter().map(|w| w.to_string()));
        out.push(Cue {
            label: "a package",
            forms: vec![form("package", NEAR)],
            damp: Vec::new(),
        });
    }
    // "Unity" qualifies ("the unity log"); it names no tool.
    if has(&["unity"]) {
        weak.push("unity".to_string());
    }
    // "call the object Hero", "name it Boss": naming.
    if words.first().is_some_and(|w| matches!(*w, "call" | "name")) {
        out.push(Cue {
            label: "call it",
            forms: vec![form("name", SAME), form("set", NEAR)],
            damp: ws(&["call"]),
        });
    }
    // "get rid of the Timeline package": the word before "package" is its name.
    for (i, w) in words.iter().enumerate() {
        if words
            .get(i + 1)
            .is_some_and(|n| matches!(*n, "package" | "packages"))
            && !matches!(
                *w,
                "the"
                    | "a"
                    | "an"
                    | "this"
                    | "that"
                    | "new"
                    | "which"
                    | "what"
                    | "all"
                    | "installed"
                    | "every"
                    | "my"
                    | "our"
                    | "each"
            )
        {
            weak.push(w.to_string());
        }
    }
    // "the player" is the player's object unless its settings are meant ("player settings",
    // "the player's company name").
    if has(&["player"])
        && !has(&[
            "settings",
            "setting",
            "build",
            "builds",
            "company",
            "product",
            "bundle",
            "scripting",
            "backend",
            "version",
            "icon",
            "splash",
            "il2cpp",
            "mono",
        ])
    {
        weak.push("player".to_string());
    }
    // "make the Gun a child of…", "make the game run at half speed": "make the" changes what
    // exists; "make a …" creates.
    if let Some(i) = words.iter().position(|w| *w == "make")
        && words.get(i + 1).is_some_and(|n| {
            matches!(
                *n,
                "the"
                    | "it"
                    | "this"
                    | "that"
                    | "my"
                    | "our"
                    | "its"
                    | "them"
                    | "these"
                    | "those"
                    | "everything"
            )
        })
    {
        weak.push("make".to_string());
        out.push(Cue {
            label: "make the",
            forms: vec![form("set", HINT)],
            damp: Vec::new(),
        });
    }
    // "tag the goal as Finish", "put the wall on the Obstacles layer": a tag or layer given to an
    // object, unless one is being created or removed.
    if has(&["tag", "layer"])
        && !has(&[
            "add", "new", "create", "make", "define", "register", "remove", "delete", "list", "all",
        ])
        && !words.first().is_some_and(|w| QUESTION_OPENINGS.contains(w))
    {
        out.push(Cue {
            label: "give a tag",
            forms: vec![form("set", NEAR)],
            damp: Vec::new(),
        });
    }
    // "turn off mipmaps on Logo.png": a file's setting, not an object's active state.
    if file && has(TOGGLE_VERBS) && has(&["on", "off"]) {
        out.push(Cue {
            label: "file setting",
            forms: vec![form("set", SAME), form("import", HINT)],
            damp: ws(&["turn", "off"]),
        });
    }
    // "rename Old.mat to New.mat", "drop Rock.png into the Textures folder": a file moves.
    if file && (has(&["rename"]) || after(&["drop", "put", "drag", "place"], &["into", "in", "to"]))
    {
        out.push(Cue {
            label: "move a file",
            forms: vec![form("move", SAME)],
            damp: ws(&["drop", "rename"]),
        });
    }
    // `Physics.gravity = …`: an assignment sets.
    if assigns {
        out.push(Cue {
            label: "assignment",
            forms: vec![form("set", NEAR)],
            damp: Vec::new(),
        });
    }
    // "make three copies of the Tree": duplicates, not a file copy.
    if let Some(i) = words.iter().position(|w| *w == "copies")
        && i > 0
        && (words[i - 1].chars().all(|c| c.is_ascii_digit())
            || NUMBER_WORDS.contains(&words[i - 1]))
    {
        out.push(Cue {
            label: "n copies",
            forms: vec![form("duplicate", SAME), form("count", NEAR)],
            damp: ws(&["copies"]),
        });
    }
    // "add an empty object called Managers": a new GameObject.
    if has(&["empty", "blank"]) && has(&["object", "gameobject", "go"]) {
        out.push(Cue {
            label: "empty object",
            forms: vec![form("create", SAME), form("gameobject", NEAR)],
            damp: ws(&["add"]),
        });
    }
    // "write a note to the console", "print hello to the log": a log line, not a console read.
    if after(
        &["write", "print", "post", "send", "output", "add", "put"],
        &["to", "in", "into"],
    ) && has(&["console", "log"])
    {
        out.push(Cue {
            label: "write to the console",
            forms: vec![form("log", SAME)],
            damp: ws(&["console", "print"]),
        });
    }
    // "look for a splines package": a search.
    if after(&["look", "hunt", "searching", "looking"], &["for"]) {
        out.push(Cue {
            label: "look for",
            forms: vec![form("search", SAME), form("find", SAME)],
            damp: ws(&["look"]),
        });
    }
    // "search the scene for everything tagged Enemy": objects found by tag or name.
    if has(&["tagged", "everything", "anything", "named"])
        && has(&[
            "search",
            "find",
            "list",
            "select",
            "all",
            "every",
            "which",
            "everything",
        ])
        && !has(&["asset", "assets", "project", "file", "files"])
    {
        out.push(Cue {
            label: "objects tagged",
            forms: vec![form("find", NEAR), form("gameobject", NEAR)],
            damp: Vec::new(),
        });
    }
    // "what did I change on this prefab instance": its overrides.
    if has(&["prefab"])
        && has(&[
            "changed",
            "change",
            "modified",
            "different",
            "differ",
            "differs",
        ])
        && words
            .first()
            .is_some_and(|w| QUESTION_OPENINGS.contains(w) || matches!(*w, "show" | "list"))
    {
        out.push(Cue {
            label: "what changed",
            forms: vec![form("overrides", NEAR), form("list", HINT)],
            damp: ws(&["change", "changed"]),
        });
    }
    // "get the Addressables package", "grab the splines package": an install.
    if has(&["get", "grab", "fetch", "pull"])
        && has(&["package", "packages"])
        && !has(&[
            "list",
            "search",
            "which",
            "what",
            "version",
            "versions",
            "installed",
            "rid",
        ])
    {
        out.push(Cue {
            label: "get a package",
            forms: vec![form("add", SAME)],
            damp: ws(&["get", "grab", "fetch"]),
        });
    }
    // "add a button to the canvas": a UI element.
    if has(UI_ELEMENTS) && has(&["add", "create", "make", "new", "put", "place"]) {
        out.push(Cue {
            label: "ui element",
            forms: vec![form("ui", NEAR), form("create", NEAR)],
            damp: ws(&["add"]),
        });
    }
    // "make a new tag called Pickup", "create a new layer": something added to a list the
    // project keeps (`add_tag`, `add_layer`) as much as created.
    if has(&["new", "another", "extra"]) && has(&["create", "make", "new", "define"]) {
        out.push(Cue {
            label: "a new one",
            forms: vec![form("add", SAME), form("create", NEAR)],
            damp: Vec::new(),
        });
    }
    // "what fields does the Rigidbody class have": the type, not a component on an object.
    if has(&["class", "struct", "type", "api"])
        && has(&["members", "methods", "fields", "properties"])
    {
        out.push(Cue {
            label: "about the type",
            forms: vec![form("describe", NEAR), form("type", NEAR)],
            damp: words
                .iter()
                .filter(|w| is_component_type(w) || matches!(**w, "component" | "components"))
                .map(|w| w.to_string())
                .collect(),
        });
    }
    // "run this C# snippet", "compile this code": code to run, not tests.
    if has(&["code", "snippet", "csharp", "expression", "statement"])
        && has(&["run", "execute", "compile", "eval", "evaluate", "try"])
    {
        out.push(Cue {
            label: "run code",
            forms: vec![form("exec", SAME), form("code", NEAR)],
            damp: ws(&["run", "running", "compile"]),
        });
    }
    // "run the menu item File/Save Project": a menu item is invoked, not a test run.
    if has(&["menu", "menuitem"]) && has(&["run", "execute", "invoke", "trigger", "click", "press"])
    {
        out.push(Cue {
            label: "menu item",
            forms: vec![form("menu", NEAR)],
            damp: ws(&["run", "execute", "click", "press"]),
        });
    }
    // "stop recording profiler data": the -ing word is what stops.
    if let Some(i) = words
        .iter()
        .position(|w| matches!(*w, "stop" | "quit" | "end" | "pause"))
        && words
            .get(i + 1)
            .is_some_and(|n| n.len() > 5 && n.ends_with("ing"))
    {
        weak.push(words[i + 1].to_string());
    }
    // "create a folder named Scripts": a folder is made by `mkdir`.
    if has(&["folder", "folders", "directory"]) && has(&["create", "make", "new", "add"]) {
        out.push(Cue {
            label: "new folder",
            forms: vec![form("mkdir", SAME)],
            damp: ws(&["create", "make", "new", "add"]),
        });
    }
    // "look up Physics.Raycast", "the scripting reference": the documentation.
    if after(&["look"], &["up"])
        || words.windows(2).any(|p| {
            matches!(p[0], "scripting" | "script" | "api") && matches!(p[1], "reference" | "docs")
        })
    {
        out.push(Cue {
            label: "look up",
            forms: vec![form("docs", SAME)],
            damp: ws(&["look", "reference"]),
        });
    }
    // "put the Lamp at 0, 3, 0": a position.
    if after(&["put", "place", "set", "position", "move"], &["at"]) && !names_component {
        out.push(Cue {
            label: "put at",
            forms: vec![form("move", NEAR), form("position", NEAR)],
            damp: ws(&["put", "place"]),
        });
    }
    // "what does the Player material look like": a read.
    if after(&["look", "looks"], &["like"]) {
        out.push(Cue {
            label: "look like",
            forms: vec![form("get", NEAR)],
            damp: ws(&["look", "looks"]),
        });
    }
    // "pause the game", "freeze the game": the game is play mode, not the `game_feel` tool.
    for (i, w) in words.iter().enumerate() {
        if *w == "game"
            && i > 0
            && matches!(words[i - 1], "the" | "my" | "our")
            && !words
                .get(i + 1)
                .is_some_and(|n| matches!(*n, "view" | "feel" | "object" | "objects" | "window"))
        {
            weak.push("game".to_string());
            out.push(Cue {
                label: "the game",
                forms: vec![form("play", HINT)],
                damp: Vec::new(),
            });
            break;
        }
    }
    if !weak.is_empty() {
        out.push(Cue {
            label: "weak words",
            forms: Vec::new(),
            damp: weak,
        });
    }
    // "which scenes…", "what components are…": a plural asked about is a list.
    if let [first, next, ..] = words
        && matches!(*first, "which" | "what")
        && !matches!(*next, "objects" | "gameobjects")
        && next.len() > 3
        && next.ends_with('s')
        && !next.ends_with("ss")
    {
        out.push(Cue {
            label: "which ones",
            forms: vec![form("list", NEAR)],
            damp: Vec::new(),
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
