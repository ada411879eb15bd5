//! `server.json` (the MCP registry listing) is valid against the registry's rules as restated in
//! `packaging/server.schema.json`, and agrees with the package and with the binary itself.

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_hera-agent-unity");

fn load(rel: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// One way to break the listing, named.
type Breakage = (&'static str, Box<dyn Fn(&mut Value)>);

fn errors(schema: &Value, doc: &Value) -> Vec<String> {
    let v = jsonschema::validator_for(schema).expect("the schema compiles");
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn server_json_is_valid_and_the_schema_rejects_what_the_registry_rejects() {
    let schema = load("packaging/server.schema.json");
    let doc = load("server.json");
    assert_eq!(errors(&schema, &doc), Vec::<String>::new());

    // The schema is not vacuous: each of the registry's refusals is a refusal here too.
    let broken: [Breakage; 7] = [
        (
            "long description",
            Box::new(|d| d["description"] = json!("x".repeat(101))),
        ),
        (
            "two slashes",
            Box::new(|d| d["name"] = json!("io.github/a/b")),
        ),
        ("a range", Box::new(|d| d["version"] = json!("^0.1.0"))),
        (
            "latest",
            Box::new(|d| d["packages"][0]["version"] = json!("latest")),
        ),
        (
            "1.x",
            Box::new(|d| d["packages"][0]["version"] = json!("1.x")),
        ),
        (
            "no transport",
            Box::new(|d| {
                d["packages"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("transport");
            }),
        ),
        (
            "a typo",
            Box::new(|d| d["packages"][0]["enviromentVariables"] = json!([])),
        ),
    ];
    for (what, change) in broken {
        let mut d = doc.clone();
        change(&mut d);
        assert!(!errors(&schema, &d).is_empty(), "{what} must be refused");
    }
}

#[test]
fn server_json_agrees_with_the_package_and_the_binary() {
    let doc = load("server.json");
    assert_eq!(doc["version"], env!("CARGO_PKG_VERSION"));
    let pkg = &doc["packages"][0];
    assert_eq!(pkg["identifier"], env!("CARGO_PKG_NAME"));
    assert_eq!(pkg["version"], env!("CARGO_PKG_VERSION"));
    let args: Vec<&str> = pkg["packageArguments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| [a["name"].as_str(), a["value"].as_str()])
        .flatten()
        .collect();
    assert_eq!(args, ["mcp", "--transport", "stdio"]);
    // Every variable the listing names is one the binary documents in its own help (the
    // server's settings in `mcp --help`).
    let help: String = [vec!["--help"], vec!["mcp", "--help"]]
        .iter()
        .map(|args| {
            let out = std::process::Command::new(BIN).args(args).output().unwrap();
            String::from_utf8_lossy(&out.stdout).into_owned()
        })
        .collect();
    for v in pkg["environmentVariables"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        assert!(help.contains(name), "--help does not mention {name}");
    }
    // And the required enablement is exactly what `mcp` checks: without it the server refuses.
    let out = std::process::Command::new(BIN)
        .args(["mcp", "--transport", "stdio"])
        .env_remove("HERA_MCP_ENABLED")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("HERA_MCP_ENABLED"));
}
