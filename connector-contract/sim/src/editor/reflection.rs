//! Code introspection: `describe_type`, `find_method`, `list_assemblies`, `unity_docs`.
//!
//! The simulator has no CLR to reflect over, so it carries a small catalog of well-known Unity
//! API types (signatures written out by hand) plus the project's own script classes and the
//! types of installed packages. Everything reported is drawn from that catalog, consistently
//! across the four tools.

use super::args::{Args, Fail};
use super::{Editor, Handled, InvokeContext, ok};
use serde_json::{Value, json};

#[derive(Clone)]
struct TypeInfo {
    full_name: String,
    assembly: String,
    kind: &'static str,
    base: String,
    summary: String,
    methods: Vec<(String, bool)>,
    properties: Vec<String>,
    fields: Vec<String>,
    events: Vec<String>,
    /// Part of Unity's scripting reference (user scripts are not).
    documented: bool,
}

struct Builtin {
    full: &'static str,
    asm: &'static str,
    kind: &'static str,
    base: &'static str,
    package: Option<&'static str>,
    summary: &'static str,
    methods: &'static [&'static str],
    private: &'static [&'static str],
    properties: &'static [&'static str],
    fields: &'static [&'static str],
    events: &'static [&'static str],
}

const CORE: &str = "UnityEngine.CoreModule";

static BUILTINS: &[Builtin] = &[
    Builtin {
        full: "UnityEngine.GameObject",
        asm: CORE,
        kind: "class",
        base: "UnityEngine.Object",
        package: None,
        summary: "Base class for all entities in Unity scenes.",
        methods: &[
            "public Component AddComponent(Type componentType)",
            "public T GetComponent<T>()",
            "public T[] GetComponentsInChildren<T>()",
            "public void SetActive(bool value)",
            "public bool CompareTag(string tag)",
            "public static GameObject Find(string name)",
            "public static GameObject[] FindGameObjectsWithTag(string tag)",
            "public static GameObject CreatePrimitive(PrimitiveType type)",
        ],
        private: &["private Component Internal_AddComponentWithType(Type componentType)"],
        properties: &[
            "public Transform transform { get; }",
            "public bool activeSelf { get; }",
            "public bool activeInHierarchy { get; }",
            "public string tag { get; set; }",
            "public int layer { get; set; }",
            "public Scene scene { get; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Transform",
        asm: CORE,
        kind: "class",
        base: "UnityEngine.Component",
        package: None,
        summary: "Position, rotation and scale of an object, and its place in the hierarchy.",
        methods: &[
            "public void Translate(Vector3 translation)",
            "public void Rotate(Vector3 eulers)",
            "public void LookAt(Transform target)",
            "public void SetParent(Transform parent, bool worldPositionStays)",
            "public Transform Find(string n)",
            "public Transform GetChild(int index)",
            "public Vector3 TransformPoint(Vector3 position)",
            "public Vector3 InverseTransformPoint(Vector3 position)",
        ],
        private: &[],
        properties: &[
            "public Vector3 position { get; set; }",
            "public Vector3 localPosition { get; set; }",
            "public Quaternion rotation { get; set; }",
            "public Vector3 eulerAngles { get; set; }",
            "public Vector3 localScale { get; set; }",
            "public Transform parent { get; set; }",
            "public int childCount { get; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Rigidbody",
        asm: "UnityEngine.PhysicsModule",
        kind: "class",
        base: "UnityEngine.Component",
        package: None,
        summary: "Puts an object under control of the physics engine.",
        methods: &[
            "public void AddForce(Vector3 force, ForceMode mode)",
            "public void AddTorque(Vector3 torque, ForceMode mode)",
            "public void MovePosition(Vector3 position)",
            "public void MoveRotation(Quaternion rot)",
            "public void Sleep()",
            "public void WakeUp()",
        ],
        private: &[],
        properties: &[
            "public float mass { get; set; }",
            "public Vector3 linearVelocity { get; set; }",
            "public Vector3 angularVelocity { get; set; }",
            "public bool useGravity { get; set; }",
            "public bool isKinematic { get; set; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.MonoBehaviour",
        asm: CORE,
        kind: "class",
        base: "UnityEngine.Behaviour",
        package: None,
        summary: "Base class for script components.",
        methods: &[
            "public Coroutine StartCoroutine(IEnumerator routine)",
            "public void StopAllCoroutines()",
            "public void Invoke(string methodName, float time)",
            "public void CancelInvoke()",
        ],
        private: &[],
        properties: &[
            "public bool enabled { get; set; }",
            "public bool isActiveAndEnabled { get; }",
            "public bool useGUILayout { get; set; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Debug",
        asm: CORE,
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "Logging and debug drawing.",
        methods: &[
            "public static void Log(object message)",
            "public static void LogWarning(object message)",
            "public static void LogError(object message)",
            "public static void LogException(Exception exception)",
            "public static void DrawLine(Vector3 start, Vector3 end, Color color)",
            "public static void DrawRay(Vector3 start, Vector3 dir, Color color)",
        ],
        private: &[],
        properties: &["public static bool isDebugBuild { get; }"],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Vector3",
        asm: CORE,
        kind: "struct",
        base: "System.ValueType",
        package: None,
        summary: "A 3D vector or point.",
        methods: &[
            "public static float Distance(Vector3 a, Vector3 b)",
            "public static Vector3 Lerp(Vector3 a, Vector3 b, float t)",
            "public static float Dot(Vector3 lhs, Vector3 rhs)",
            "public static Vector3 Cross(Vector3 lhs, Vector3 rhs)",
            "public void Normalize()",
        ],
        private: &[],
        properties: &[
            "public float magnitude { get; }",
            "public Vector3 normalized { get; }",
            "public float sqrMagnitude { get; }",
            "public static Vector3 zero { get; }",
            "public static Vector3 one { get; }",
            "public static Vector3 up { get; }",
            "public static Vector3 forward { get; }",
        ],
        fields: &["public float x", "public float y", "public float z"],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Physics",
        asm: "UnityEngine.PhysicsModule",
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "Global physics properties and queries.",
        methods: &[
            "public static bool Raycast(Vector3 origin, Vector3 direction, out RaycastHit hitInfo, float maxDistance)",
            "public static Collider[] OverlapSphere(Vector3 position, float radius)",
            "public static void Simulate(float step)",
        ],
        private: &[],
        properties: &["public static Vector3 gravity { get; set; }"],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Application",
        asm: CORE,
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "Runtime data about the application.",
        methods: &[
            "public static void Quit()",
            "public static void OpenURL(string url)",
        ],
        private: &[],
        properties: &[
            "public static bool isPlaying { get; }",
            "public static string dataPath { get; }",
            "public static string unityVersion { get; }",
            "public static string productName { get; }",
            "public static int targetFrameRate { get; set; }",
        ],
        fields: &[],
        events: &["public static event Action quitting"],
    },
    Builtin {
        full: "UnityEngine.Time",
        asm: CORE,
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "Time information from Unity.",
        methods: &[],
        private: &[],
        properties: &[
            "public static float deltaTime { get; }",
            "public static float time { get; }",
            "public static float timeScale { get; set; }",
            "public static float fixedDeltaTime { get; set; }",
            "public static int frameCount { get; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Input",
        asm: "UnityEngine.InputLegacyModule",
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "The legacy Input Manager interface.",
        methods: &[
            "public static bool GetKey(KeyCode key)",
            "public static bool GetKeyDown(KeyCode key)",
            "public static float GetAxis(string axisName)",
            "public static bool GetMouseButtonDown(int button)",
        ],
        private: &[],
        properties: &["public static Vector3 mousePosition { get; }"],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.SceneManagement.SceneManager",
        asm: CORE,
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "Scene management at run-time.",
        methods: &[
            "public static void LoadScene(string sceneName)",
            "public static AsyncOperation LoadSceneAsync(string sceneName)",
            "public static Scene GetActiveScene()",
            "public static bool SetActiveScene(Scene scene)",
        ],
        private: &[],
        properties: &["public static int sceneCount { get; }"],
        fields: &[],
        events: &["public static event UnityAction<Scene, LoadSceneMode> sceneLoaded"],
    },
    Builtin {
        full: "UnityEditor.EditorApplication",
        asm: "UnityEditor.CoreModule",
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "Editor application state and callbacks.",
        methods: &[
            "public static bool ExecuteMenuItem(string menuItemPath)",
            "public static void EnterPlaymode()",
            "public static void ExitPlaymode()",
        ],
        private: &[],
        properties: &[
            "public static bool isPlaying { get; set; }",
            "public static bool isPaused { get; set; }",
            "public static bool isCompiling { get; }",
        ],
        fields: &[],
        events: &[
            "public static event Action update",
            "public static event Action<PlayModeStateChange> playModeStateChanged",
        ],
    },
    Builtin {
        full: "UnityEditor.AssetDatabase",
        asm: "UnityEditor.CoreModule",
        kind: "class",
        base: "System.Object",
        package: None,
        summary: "Editor access to project assets.",
        methods: &[
            "public static void Refresh()",
            "public static T LoadAssetAtPath<T>(string assetPath)",
            "public static void CreateAsset(Object asset, string path)",
            "public static string MoveAsset(string oldPath, string newPath)",
            "public static bool DeleteAsset(string path)",
            "public static string[] FindAssets(string filter)",
            "public static string[] GetDependencies(string pathName, bool recursive)",
        ],
        private: &[],
        properties: &[],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.UI.Button",
        asm: "UnityEngine.UI",
        kind: "class",
        base: "UnityEngine.UI.Selectable",
        package: Some("com.unity.ugui"),
        summary: "A standard clickable button.",
        methods: &[
            "public void OnPointerClick(PointerEventData eventData)",
            "public void OnSubmit(BaseEventData eventData)",
        ],
        private: &["private void Press()"],
        properties: &[
            "public Button.ButtonClickedEvent onClick { get; set; }",
            "public bool interactable { get; set; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "TMPro.TextMeshProUGUI",
        asm: "Unity.TextMeshPro",
        kind: "class",
        base: "TMPro.TMP_Text",
        package: Some("com.unity.ugui"),
        summary: "TextMesh Pro text for uGUI.",
        methods: &[
            "public void SetText(string sourceText)",
            "public void ForceMeshUpdate()",
        ],
        private: &[],
        properties: &[
            "public string text { get; set; }",
            "public float fontSize { get; set; }",
            "public Color color { get; set; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.InputSystem.Keyboard",
        asm: "Unity.InputSystem",
        kind: "class",
        base: "UnityEngine.InputSystem.InputDevice",
        package: Some("com.unity.inputsystem"),
        summary: "A keyboard input device.",
        methods: &["public KeyControl FindKeyOnCurrentKeyboardLayout(string displayName)"],
        private: &[],
        properties: &[
            "public static Keyboard current { get; }",
            "public KeyControl spaceKey { get; }",
            "public AnyKeyControl anyKey { get; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "Unity.AI.Navigation.NavMeshSurface",
        asm: "Unity.AI.Navigation",
        kind: "class",
        base: "UnityEngine.MonoBehaviour",
        package: Some("com.unity.ai.navigation"),
        summary: "Builds and holds NavMesh data for a set of objects.",
        methods: &[
            "public void BuildNavMesh()",
            "public void RemoveData()",
            "public AsyncOperation UpdateNavMesh(NavMeshData data)",
        ],
        private: &[],
        properties: &[
            "public int agentTypeID { get; set; }",
            "public CollectObjects collectObjects { get; set; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "UnityEngine.Timeline.TimelineAsset",
        asm: "Unity.Timeline",
        kind: "class",
        base: "UnityEngine.Playables.PlayableAsset",
        package: Some("com.unity.timeline"),
        summary: "A timeline of tracks and clips.",
        methods: &[
            "public T CreateTrack<T>(TrackAsset parent, string name)",
            "public IEnumerable<TrackAsset> GetOutputTracks()",
            "public bool DeleteTrack(TrackAsset track)",
        ],
        private: &[],
        properties: &[
            "public double duration { get; }",
            "public double frameRate { get; set; }",
        ],
        fields: &[],
        events: &[],
    },
    Builtin {
        full: "NUnit.Framework.Assert",
        asm: "nunit.framework",
        kind: "class",
        base: "System.Object",
        package: Some("com.unity.test-framework"),
        summary: "NUnit assertions.",
        methods: &[
            "public static void AreEqual(object expected, object actual)",
            "public static void IsTrue(bool condition)",
            "public static void IsNotNull(object anObject)",
            "public static void Fail(string message)",
        ],
        private: &[],
        properties: &[],
        fields: &[],
        events: &[],
    },
];

fn catalog(ed: &Editor) -> Vec<TypeInfo> {
    let mut out: Vec<TypeInfo> = BUILTINS
        .iter()
        .filter(|b| b.package.is_none_or(|p| ed.packages.is_installed(p)))
        .map(|b| TypeInfo {
            full_name: b.full.into(),
            assembly: b.asm.into(),
            kind: b.kind,
            base: b.base.into(),
            summary: b.summary.into(),
            methods: b
                .methods
                .iter()
                .map(|m| (m.to_string(), true))
                .chain(b.private.iter().map(|m| (m.to_string(), false)))
                .collect(),
            properties: b.properties.iter().map(|s| s.to_string()).collect(),
            fields: b.fields.iter().map(|s| s.to_string()).collect(),
            events: b.events.iter().map(|s| s.to_string()).collect(),
            documented: true,
        })
        .collect();
    for (path, s) in ed.assets.scripts() {
        let base = match s.base.as_str() {
            "MonoBehaviour" | "ScriptableObject" => format!("UnityEngine.{}", s.base),
            other => other.to_string(),
        };
        let is_test = path.starts_with("Assets/Tests/");
        out.push(TypeInfo {
            full_name: if s.namespace.is_empty() {
                s.class.clone()
            } else {
                format!("{}.{}", s.namespace, s.class)
            },
            assembly: if is_test {
                if path.contains("/PlayMode/") {
                    "Tests.PlayMode".into()
                } else {
                    "Tests.EditMode".into()
                }
            } else {
                "Assembly-CSharp".into()
            },
            kind: "class",
            base,
            summary: format!("Project script ({path})."),
            methods: s
                .methods
                .iter()
                .map(|m| (format!("public void {m}()"), true))
                .collect(),
            properties: Vec::new(),
            fields: s
                .fields
                .iter()
                .map(|(k, v)| {
                    let ty = match v {
                        Value::Number(n) if n.is_f64() => "float",
                        Value::Number(_) => "int",
                        Value::Bool(_) => "bool",
                        Value::String(_) => "string",
                        _ => "object",
                    };
                    format!("public {ty} {k}")
                })
                .collect(),
            events: Vec::new(),
            documented: false,
        });
    }
    out
}

/// The member name inside a signature: the identifier before `(` or the last word before `{`.
fn member_name(sig: &str) -> String {
    let head = sig.split(['(', '{', '<']).next().unwrap_or(sig).trim();
    head.split_whitespace().last().unwrap_or("").to_string()
}

fn find_type(types: &[TypeInfo], query: &str) -> Option<TypeInfo> {
    let q = query.trim();
    types
        .iter()
        .find(|t| t.full_name.eq_ignore_ascii_case(q))
        .or_else(|| {
            types.iter().find(|t| {
                t.full_name
                    .rsplit('.')
                    .next()
                    .is_some_and(|s| s.eq_ignore_ascii_case(q))
            })
        })
        .cloned()
}

pub fn describe_type(
    ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    let query = a.req_str("type")?;
    let types = catalog(ed);
    let Some(t) = find_type(&types, query) else {
        let similar: Vec<String> = types
            .iter()
            .map(|t| t.full_name.clone())
            .filter(|n| n.to_ascii_lowercase().contains(&query.to_ascii_lowercase()))
            .take(5)
            .collect();
        return Err(
            Fail::new("TYPE_NOT_FOUND", format!("No loaded type named '{query}'."))
                .with_data(json!({"type": query, "similar": similar})),
        );
    };
    let members = a.str("members")?.unwrap_or("methods").to_ascii_lowercase();
    let private = a.flag("include_private")?;
    let limit = a.limit("limit", 30, 1, 10_000)?;
    let kinds: Vec<&str> = match members.as_str() {
        "all" => vec!["methods", "properties", "fields", "events"],
        "methods" | "properties" | "fields" | "events" => vec![members.as_str()],
        other => {
            return Err(Fail::invalid(
                "members",
                format!("unknown member kind '{other}'"),
            ));
        }
    };
    // Every category key is present; one not selected by `members` is null.
    let mut data = serde_json::Map::new();
    let (ns, name) = match t.full_name.rsplit_once('.') {
        Some((ns, name)) => (json!(ns), name),
        None => (Value::Null, t.full_name.as_str()),
    };
    data.insert("name".into(), json!(name));
    data.insert("full_name".into(), json!(t.full_name));
    data.insert("namespace".into(), ns);
    data.insert("assembly".into(), json!(t.assembly));
    data.insert("kind".into(), json!(t.kind));
    data.insert("is_static".into(), json!(false));
    data.insert(
        "base_type".into(),
        if t.base.is_empty() {
            Value::Null
        } else {
            json!(t.base)
        },
    );
    data.insert("interfaces".into(), json!([]));
    for k in ["methods", "properties", "fields", "events"] {
        if !kinds.contains(&k) {
            data.insert(k.into(), Value::Null);
            continue;
        }
        let items: Vec<Value> = match k {
            "methods" => t
                .methods
                .iter()
                .filter(|(_, public)| private || *public)
                .map(|(sig, _)| json!({"name": member_name(sig), "signature": sig}))
                .collect(),
            "properties" => t
                .properties
                .iter()
                .map(|sig| {
                    let d = Decl::parse(sig);
                    json!({"name": d.name, "type": d.ty, "can_read": sig.contains("get;"),
                           "can_write": sig.contains("set;"), "is_static": d.has("static")})
                })
                .collect(),
            "fields" => t
                .fields
                .iter()
                .map(|sig| {
                    let d = Decl::parse(sig);
                    json!({"name": d.name, "type": d.ty, "is_static": d.has("static") || d.has("const"),
                           "is_const": d.has("const"), "is_readonly": d.has("readonly")})
                })
                .collect(),
            _ => t
                .events
                .iter()
                .map(|sig| {
                    let d = Decl::parse(sig);
                    json!({"name": d.name, "handler": d.ty, "is_static": d.has("static")})
                })
                .collect(),
        };
        let count = items.len();
        let items: Vec<Value> = items.into_iter().take(limit).collect();
        data.insert(
            k.into(),
            json!({"count": count, "truncated": count > limit, "items": items}),
        );
    }
    // The simulator knows no pitfalls for its types.
    data.insert("pitfalls".into(), Value::Null);
    ok(format!("Described {}", t.full_name), Value::Object(data))
}

/// A member declaration as the catalog writes it: `public [static|const|readonly…] Type name
/// [{ get; set; }]`.
struct Decl<'a> {
    modifiers: Vec<&'a str>,
    ty: &'a str,
    name: &'a str,
}

impl<'a> Decl<'a> {
    fn parse(sig: &'a str) -> Decl<'a> {
        let head = sig.split(['{', '=', ';']).next().unwrap_or(sig);
        let words: Vec<&str> = head.split_whitespace().filter(|w| *w != "event").collect();
        let n = words.len();
        Decl {
            modifiers: words[..n.saturating_sub(2)].to_vec(),
            ty: if n >= 2 { words[n - 2] } else { "" },
            name: words.last().copied().unwrap_or(""),
        }
    }
    fn has(&self, modifier: &str) -> bool {
        self.modifiers.contains(&modifier)
    }
}

pub fn find_method(
    ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    let pattern = a.req_str("pattern")?.to_ascii_lowercase();
    let ns = a.str("namespace")?;
    let private = a.flag("include_private")?;
    let grouped = a.bool("group_by_type")?.unwrap_or(true);
    let limit = a.limit("limit", 50, 1, 10_000)?;
    let mut hits: Vec<(String, String, String)> = Vec::new();
    for t in catalog(ed) {
        if ns.is_some_and(|n| !t.full_name.starts_with(n)) {
            continue;
        }
        for (sig, public) in &t.methods {
            if (private || *public) && member_name(sig).to_ascii_lowercase().contains(&pattern) {
                hits.push((t.full_name.clone(), t.assembly.clone(), sig.clone()));
            }
        }
    }
    let total = hits.len();
    hits.truncate(limit);
    // Items are `{type, assembly, methods}` grouped, `{declaring_type, assembly, signature}`
    // flat: never the `{name, signature, type}` the published schema describes.
    let results: Vec<Value> = if grouped {
        let mut groups: Vec<(String, String, Vec<String>)> = Vec::new();
        for (ty, asm, sig) in &hits {
            match groups.iter_mut().find(|(t, _, _)| t == ty) {
                Some((_, _, v)) => v.push(sig.clone()),
                None => groups.push((ty.clone(), asm.clone(), vec![sig.clone()])),
            }
        }
        groups
            .iter()
            .map(|(t, asm, m)| json!({"type": t, "assembly": asm, "methods": m}))
            .collect()
    } else {
        hits.iter()
            .map(|(t, asm, s)| json!({"declaring_type": t, "assembly": asm, "signature": s}))
            .collect()
    };
    let data = json!({"total": total, "truncated": hits.len() < total, "results": results});
    ok(
        format!("{} of {total} method(s) match '{pattern}'.", hits.len()),
        data,
    )
}

pub fn list_assemblies(
    ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    let filter = a.str("filter")?.unwrap_or("").to_ascii_lowercase();
    let include_system = a.flag("include_system")?;
    let location = a.flag("include_location")?;
    let version = a.flag("include_version")? || location;
    let project = ed.project_path.clone();
    let editor_managed = "/Applications/Unity/Hub/Editor/6000.3.5f2/Unity.app/Contents/Managed";
    // (name, version, location)
    let mut list: Vec<(String, String, String)> = Vec::new();
    let script = |n: &str| format!("{project}/Library/ScriptAssemblies/{n}.dll");
    for n in [
        "UnityEngine.CoreModule",
        "UnityEngine.PhysicsModule",
        "UnityEngine.InputLegacyModule",
        "UnityEditor.CoreModule",
    ] {
        list.push((
            n.into(),
            "0.0.0.0".into(),
            format!("{editor_managed}/UnityEngine/{n}.dll"),
        ));
    }
    list.push((
        "Assembly-CSharp".into(),
        "0.0.0.0".into(),
        script("Assembly-CSharp"),
    ));
    let pkg_asms: [(&str, &[&str]); 8] = [
        (
            "com.unity.test-framework",
            &[
                "UnityEngine.TestRunner",
                "UnityEditor.TestRunner",
                "nunit.framework",
                "Tests.EditMode",
                "Tests.PlayMode",
            ],
        ),
        ("com.unity.ugui", &["UnityEngine.UI", "Unity.TextMeshPro"]),
        (
            "com.unity.timeline",
            &["Unity.Timeline", "Unity.Timeline.Editor"],
        ),
        ("com.unity.inputsystem", &["Unity.InputSystem"]),
        ("com.unity.ai.navigation", &["Unity.AI.Navigation"]),
        ("com.unity.ide.rider", &["Unity.Rider.Editor"]),
        ("com.unity.nuget.newtonsoft-json", &["Newtonsoft.Json"]),
        ("com.notnull92.hera-agent-unity", &["HeraAgent.Editor"]),
    ];
    for (pkg, asms) in pkg_asms {
        if let Some(p) = ed.packages.get(pkg) {
            for n in asms {
                list.push((n.to_string(), p.version.clone(), script(n)));
            }
        }
    }
    if include_system {
        for n in [
            "mscorlib",
            "netstandard",
            "System",
            "System.Core",
            "System.Xml",
        ] {
            list.push((
                n.into(),
                "4.0.0.0".into(),
                format!("{editor_managed}/UnityReferenceAssemblies/unity-4.8-api/{n}.dll"),
            ));
        }
    }
    list.sort();
    list.retain(|(n, _, _)| filter.is_empty() || n.to_ascii_lowercase().contains(&filter));
    let items: Vec<Value> = list
        .iter()
        .map(|(n, v, l)| {
            if !version {
                return json!(n);
            }
            let mut o = json!({"name": n, "version": v});
            if location {
                o["location"] = json!(l);
            }
            o
        })
        .collect();
    ok(
        format!(
            "{} assembl{}.",
            items.len(),
            if items.len() == 1 { "y" } else { "ies" }
        ),
        json!({"assemblies": items, "count": items.len()}),
    )
}

fn short_name(full: &str) -> &str {
    full.rsplit('.').next().unwrap_or(full)
}

/// One scripting-reference page as the Connector returns it; `signature` is always present,
/// null for a page without one.
fn docs_page(title: &str, signature: Option<&str>, summary: &str) -> Value {
    json!({"title": title, "signature": signature, "summary": summary,
           "unity_version": "6000.3.5f2", "docs_version": "6000.3"})
}

pub fn unity_docs(
    ed: &mut Editor,
    _action: Option<&str>,
    a: Args,
    _ctx: &InvokeContext,
) -> Handled {
    let query = a.req_str("query")?.trim().to_string();
    let types: Vec<TypeInfo> = catalog(ed).into_iter().filter(|t| t.documented).collect();
    let (type_part, member_part) = match query.rsplit_once('.') {
        Some((t, m)) if find_type(&types, t).is_some() => (t.to_string(), Some(m.to_string())),
        _ => (query.clone(), None),
    };
    let page = |t: &TypeInfo, member: Option<&str>| {
        let short = t
            .full_name
            .rsplit('.')
            .next()
            .unwrap_or(&t.full_name)
            .to_string();
        let slug = match member {
            Some(m) => format!("{short}.{m}"),
            None => short.clone(),
        };
        (
            short,
            format!("https://docs.unity3d.com/6000.3/Documentation/ScriptReference/{slug}.html"),
        )
    };
    let all_members = |t: &TypeInfo| -> Vec<String> {
        t.methods
            .iter()
            .filter(|(_, p)| *p)
            .map(|(s, _)| s.clone())
            .chain(t.properties.iter().cloned())
            .chain(t.fields.iter().cloned())
            .chain(t.events.iter().cloned())
            .collect()
    };
    if let Some(t) = find_type(&types, &type_part) {
        if let Some(m) = &member_part {
            let sigs: Vec<String> = all_members(&t)
                .into_iter()
                .filter(|s| member_name(s).eq_ignore_ascii_case(m))
                .collect();
            if sigs.is_empty() {
                return Err(Fail::new("DOC_NOT_FOUND", format!("{} has no documented member '{m}'.", t.full_name))
                    .with_data(json!({"query": query, "members": all_members(&t).iter().map(|s| member_name(s)).collect::<Vec<_>>()})));
            }
            let (_, url) = page(&t, Some(&member_name(&sigs[0])));
            return ok(
                url,
                docs_page(
                    &format!("{}.{}", short_name(&t.full_name), member_name(&sigs[0])),
                    Some(&sigs[0]),
                    &t.summary,
                ),
            );
        }
        let (_, url) = page(&t, None);
        return ok(url, docs_page(short_name(&t.full_name), None, &t.summary));
    }
    // A bare member name: search every documented type.
    let hits: Vec<(String, Value)> = types
        .iter()
        .flat_map(|t| {
            all_members(t)
                .into_iter()
                .filter(|s| member_name(s).eq_ignore_ascii_case(&query))
                .map(|s| {
                    let (_, url) = page(t, Some(&member_name(&s)));
                    let title = format!("{}.{}", short_name(&t.full_name), member_name(&s));
                    (url, docs_page(&title, Some(&s), &t.summary))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    if hits.is_empty() {
        return Err(Fail::new("DOC_NOT_FOUND", format!("No Unity scripting reference entry for '{query}'."))
            .with_data(json!({"query": query, "hint": "Use a type (Rigidbody) or Type.Member (Rigidbody.AddForce)."})));
    }
    // The first page that documents the member.
    let (url, data) = hits.into_iter().next().unwrap_or_default();
    ok(url, data)
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_reflection_tools_share_one_catalog() {
        let mut h = Harness::new();
        let d = h.ok(
            "describe_type",
            json!({"type": "GameObject", "members": "all"}),
        );
        assert_eq!(d["full_name"], "UnityEngine.GameObject");
        assert_eq!(d["name"], "GameObject");
        assert!(
            d["methods"]["items"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["name"] == "SetActive")
        );
        let p = h.ok(
            "describe_type",
            json!({"type": "PlayerController", "members": "fields"}),
        );
        assert_eq!(p["assembly"], "Assembly-CSharp");
        assert_eq!(p["methods"], json!(null));
        assert!(
            p["fields"]["items"]
                .as_array()
                .unwrap()
                .contains(&json!({"name": "speed", "type": "float", "is_static": false, "is_const": false, "is_readonly": false}))
        );
        assert_eq!(
            h.err("describe_type", json!({"type": "NavMeshSurface"})),
            "TYPE_NOT_FOUND"
        );
        let f = h.ok("find_method", json!({"pattern": "addforce"}));
        assert_eq!(f["results"][0]["type"], "UnityEngine.Rigidbody");
        assert_eq!(
            h.ok(
                "find_method",
                json!({"pattern": "AddComponent", "include_private": true})
            )["total"],
            2
        );
        let asm = h.ok("list_assemblies", json!({"filter": "test"}));
        assert!(
            asm["assemblies"]
                .as_array()
                .unwrap()
                .contains(&json!("UnityEngine.TestRunner"))
        );
        let v = h.ok(
            "list_assemblies",
            json!({"filter": "Timeline", "include_location": true}),
        );
        assert_eq!(v["assemblies"][0]["version"], "1.8.7");
        let doc = h.ok("unity_docs", json!({"query": "Rigidbody.AddForce"}));
        assert_eq!(doc["title"], "Rigidbody.AddForce");
        assert!(doc["signature"].as_str().unwrap().contains("AddForce"));
        assert_eq!(
            h.ok("unity_docs", json!({"query": "SetActive"}))["title"],
            "GameObject.SetActive"
        );
        assert_eq!(
            h.ok("unity_docs", json!({"query": "Rigidbody"}))["signature"],
            serde_json::Value::Null
        );
        assert_eq!(
            h.err("unity_docs", json!({"query": "PlayerController"})),
            "DOC_NOT_FOUND"
        );
    }
}
