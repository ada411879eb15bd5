//! Runs every file in `connector-contract/vectors/*.json` through this crate.
//!
//! The vectors are derived from the protocol text by `vectors/derive/make_vectors.py` (Python
//! standard library, no Rust involved), so a failure here means the crate and the protocol
//! disagree; the README's "Vectors" section says how to decide which one is wrong. Each test
//! collects every mismatch of its file before failing, so one run shows the whole picture.

use hera_connector_contract::approval::{self, ApprovalClaims, TokenError};
use hera_connector_contract::canonical::{self, Json, NumberMode};
use hera_connector_contract::catalog::{Catalog, SafetyError, resolve_safety};
use hera_connector_contract::identity::{self, PathFlavor};
use hera_connector_contract::operation::{OperationId, OperationIdError};
use hera_connector_contract::task_id::{DurableTaskId, TaskIdError};
use hera_connector_contract::wire::{Heartbeat, LedgerRecord, PackagePending, TestPending};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every vector file and the test that consumes it. A new file without a runner fails
/// `every_vector_file_has_a_runner`, so no vector can sit unused.
const FILES: [&str; 10] = [
    "project-identity.json",
    "arguments-hash.json",
    "catalog-hash.json",
    "safety-resolution.json",
    "approval-sign.json",
    "approval-verify.json",
    "task-id-encode.json",
    "task-id-decode.json",
    "operation-ids.json",
    "schema-examples.json",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn load(file: &str) -> Vec<Value> {
    let path = root().join("vectors").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    let items = v
        .as_array()
        .unwrap_or_else(|| panic!("{file} must be an array"));
    assert!(!items.is_empty(), "{file} has no vectors");
    items.clone()
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("vector {} lacks string field {key}", v["name"]))
}

/// Collects mismatches and fails once, listing all of them.
struct Report {
    file: &'static str,
    ran: usize,
    failures: Vec<String>,
}

impl Report {
    fn new(file: &'static str) -> Self {
        Report {
            file,
            ran: 0,
            failures: Vec::new(),
        }
    }
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, name: &str, what: &str, got: T, want: T) {
        if got != want {
            self.failures.push(format!(
                "[{name}] {what}:\n    got  {got:?}\n    want {want:?}"
            ));
        }
    }
    fn finish(self) {
        assert!(self.ran > 0, "{}: no vector ran", self.file);
        assert!(
            self.failures.is_empty(),
            "{}: {} of {} vectors disagree with the crate:\n{}",
            self.file,
            self.failures.len(),
            self.ran,
            self.failures.join("\n")
        );
        eprintln!("{}: {} vectors agree", self.file, self.ran);
    }
}

#[test]
fn every_vector_file_has_a_runner() {
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("vectors")).expect("vectors dir") {
        let name = entry
            .expect("dir entry")
            .file_name()
            .into_string()
            .expect("utf-8 name");
        if name.ends_with(".json") {
            on_disk.insert(name);
        }
    }
    let known: BTreeSet<String> = FILES.iter().map(|f| f.to_string()).collect();
    assert_eq!(
        on_disk, known,
        "vector files on disk vs runners in tests/vectors.rs"
    );
    for f in FILES {
        let mut names = BTreeSet::new();
        for v in load(f) {
            assert!(
                names.insert(s(&v, "name").to_string()),
                "{f}: duplicate name {}",
                v["name"]
            );
        }
    }
}

#[test]
fn project_identity() {
    let mut r = Report::new("project-identity.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let path = s(&v, "project_path");
        let flavor = match s(&v, "flavor") {
            "unix" => PathFlavor::Unix,
            "windows" => PathFlavor::Windows,
            other => panic!("unknown flavor {other}"),
        };
        let pid = identity::project_id_for(path, flavor);
        r.check(
            name,
            "normalized",
            identity::normalize_project_path(path, flavor).as_str(),
            s(&v, "expected_normalized"),
        );
        r.check(
            name,
            "project_id",
            pid.as_str(),
            s(&v, "expected_project_id"),
        );
        r.check(
            name,
            "heartbeat file",
            identity::heartbeat_file_name(path).as_str(),
            s(&v, "expected_heartbeat_file"),
        );
        r.check(
            name,
            "ledger dir",
            identity::ledger_dir_name(&pid).as_str(),
            s(&v, "expected_ledger_dir"),
        );
        r.ran += 1;
    }
    r.finish();
}

#[test]
fn arguments_hash() {
    let mut r = Report::new("arguments-hash.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let text = s(&v, "params_text");
        let want_canon = s(&v, "expected_canonical");
        let want_hash = s(&v, "expected_hash");
        let parsed = canonical::parse(text).expect("params_text parses");
        let canon = match &parsed {
            Json::Object(_) => canonical::write_canonical(&parsed, NumberMode::Newtonsoft),
            _ => "{}".to_string(),
        };
        r.check(name, "canonical text", canon.as_str(), want_canon);
        r.check(
            name,
            "hash of raw text",
            canonical::arguments_hash_text(text).ok().as_deref(),
            Some(want_hash),
        );
        r.check(
            name,
            "hash of parsed tree",
            canonical::arguments_hash_json(&parsed).as_str(),
            want_hash,
        );
        // A client omits arguments_hash exactly for the params whose hash needs the Editor's zone.
        r.check(
            name,
            "zone dependence",
            canonical::zone_dependent(&parsed),
            v["editor_zone_dependent"] == json!(true),
        );
        if v["value_round_trip"] == json!(true) {
            // The adapter's path: params held as a serde_json::Value, then hashed.
            let value: Value = serde_json::from_str(text).expect("serde parses params_text");
            r.check(
                name,
                "hash of serde value",
                canonical::arguments_hash_of_value(&value).as_str(),
                want_hash,
            );
            if value.is_object() {
                r.check(
                    name,
                    "canonical text of serde value",
                    canonical::canonical_arguments_text(&value).as_str(),
                    want_canon,
                );
            }
        }
        r.ran += 1;
    }
    r.finish();
}

fn catalog_material(text: &str) -> String {
    match canonical::parse(text).expect("envelope parses") {
        Json::Object(m) => canonical::write_canonical(
            &Json::Object(
                m.into_iter()
                    .filter(|(k, _)| k == "schema_version" || k == "tools")
                    .collect(),
            ),
            NumberMode::Literal,
        ),
        _ => panic!("envelope is not an object"),
    }
}

#[test]
fn catalog_hash() {
    let mut r = Report::new("catalog-hash.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let text = s(&v, "envelope_text");
        r.check(
            name,
            "material",
            catalog_material(text).as_str(),
            s(&v, "expected_material"),
        );
        r.check(
            name,
            "catalog_hash",
            canonical::catalog_hash_text(text).ok().as_deref(),
            Some(s(&v, "expected_hash")),
        );
        // The same hash from the catalog's canonical text (a stored copy), read in place.
        let stored = canonical::write_canonical(
            &canonical::parse(text).expect("envelope parses"),
            NumberMode::Literal,
        );
        r.check(
            name,
            "catalog_hash_of_canonical",
            canonical::catalog_hash_of_canonical(&stored)
                .ok()
                .as_deref(),
            Some(s(&v, "expected_hash")),
        );
        let structure_ok = match serde_json::from_str::<Catalog>(text) {
            Ok(c) => c.check_structure().is_empty(),
            Err(_) => false,
        };
        r.check(
            name,
            "structure_ok",
            structure_ok,
            v["structure_ok"] == json!(true),
        );
        r.ran += 1;
    }
    r.finish();
}

#[test]
fn safety_resolution() {
    let catalogs = load("catalog-hash.json");
    let mut r = Report::new("safety-resolution.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let source = catalogs
            .iter()
            .find(|c| c["name"] == v["catalog"])
            .unwrap_or_else(|| panic!("[{name}] names an unknown catalog vector"));
        let cat: Catalog =
            serde_json::from_str(s(source, "envelope_text")).expect("catalog decodes");
        let tool = cat.tool(s(&v, "tool")).expect("tool exists");
        let params = v["params"].as_object().expect("params object").clone();
        let got = match resolve_safety(tool, v["action"].as_str(), &params) {
            Ok(safety) => (
                serde_json::to_value(safety).expect("safety serializes"),
                Value::Null,
            ),
            Err(SafetyError::AmbiguousRules(_)) => (Value::Null, json!("ambiguous")),
            Err(e) => (Value::Null, json!(e.to_string())),
        };
        r.check(
            name,
            "resolved safety / error",
            got,
            (v["expected_safety"].clone(), v["expected_error"].clone()),
        );
        r.ran += 1;
    }
    r.finish();
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn approval_sign() {
    let mut r = Report::new("approval-sign.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let claims: ApprovalClaims =
            serde_json::from_value(v["claims"].clone()).expect("claims decode");
        r.check(
            name,
            "payload json",
            claims.payload_json().as_str(),
            s(&v, "expected_payload_json"),
        );
        r.check(
            name,
            "token",
            approval::sign(&hex(s(&v, "secret_hex")), &claims).as_str(),
            s(&v, "expected_token"),
        );
        r.ran += 1;
    }
    r.finish();
}

fn token_outcome(result: Result<ApprovalClaims, TokenError>) -> Value {
    match result {
        Ok(c) => json!({"ok": true, "claims": c}),
        Err(e) => {
            let kind = match e {
                TokenError::Envelope => "envelope",
                TokenError::Signature => "signature",
                TokenError::Payload => "payload",
                TokenError::Unsupported => "unsupported",
            };
            json!({"ok": false, "error": kind, "message": e.to_string()})
        }
    }
}

fn expected_outcome(want: &Value) -> Value {
    if want["ok"] == json!(true) {
        json!({"ok": true, "claims": want["claims"]})
    } else {
        json!({"ok": false, "error": want["error"]})
    }
}

#[test]
fn approval_verify_and_inspect() {
    let mut r = Report::new("approval-verify.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let token = s(&v, "token");
        for (what, got, want) in [
            (
                "verify",
                approval::verify(&hex(s(&v, "secret_hex")), token),
                &v["expected_verify"],
            ),
            ("inspect", approval::inspect(token), &v["expected_inspect"]),
        ] {
            let mut got = token_outcome(got);
            if let (Some(msg), Some(fragment)) = (got["message"].as_str(), want["message"].as_str())
                && !msg.contains(fragment)
            {
                r.failures.push(format!(
                    "[{name}] {what} message {msg:?} lacks {fragment:?}"
                ));
            }
            got.as_object_mut().expect("object").remove("message");
            r.check(name, what, got, expected_outcome(want));
        }
        r.ran += 1;
    }
    r.finish();
}

#[test]
fn task_id_encode() {
    let mut r = Report::new("task-id-encode.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let rec: DurableTaskId =
            serde_json::from_value(v["record"].clone()).expect("record decodes");
        r.check(
            name,
            "encoded id",
            rec.encode().as_str(),
            s(&v, "expected_task_id"),
        );
        r.ran += 1;
    }
    r.finish();
}

#[test]
fn task_id_decode() {
    let mut r = Report::new("task-id-decode.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let got = match DurableTaskId::decode(s(&v, "task_id")) {
            Ok(t) => (serde_json::to_value(t).expect("serializes"), Value::Null),
            Err(e) => {
                let (kind, field) = match e {
                    TaskIdError::Prefix => ("prefix", None),
                    TaskIdError::TooLong => ("too_long", None),
                    TaskIdError::Encoding => ("encoding", None),
                    TaskIdError::Field(f) => ("field", Some(f)),
                };
                (Value::Null, json!({"kind": kind, "field": field}))
            }
        };
        r.check(
            name,
            "decoded record / error",
            got,
            (v["expected_record"].clone(), v["expected_error"].clone()),
        );
        r.ran += 1;
    }
    r.finish();
}

#[test]
fn operation_ids() {
    let mut r = Report::new("operation-ids.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let id = s(&v, "operation_id");
        r.check(
            name,
            "utf-16 length",
            id.encode_utf16().count() as u64,
            v["utf16_length"].as_u64().expect("length"),
        );
        let got = match OperationId::parse(id) {
            Ok(_) => Value::Null,
            Err(OperationIdError::Length) => json!("length"),
            Err(OperationIdError::Character) => json!("character"),
        };
        r.check(name, "parse error", got, v["expected_error"].clone());
        r.ran += 1;
    }
    r.finish();
}

/// Every schema under `schemas/`, keyed by file stem, each registered under its `$id` so the
/// cross-file `$ref`s resolve in memory (the ids do not resolve on any network, by design).
fn schemas() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root().join("schemas")).expect("schemas dir") {
        let path = entry.expect("dir entry").path();
        let file = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 name")
            .to_string();
        let stem = file
            .strip_suffix(".schema.json")
            .unwrap_or_else(|| panic!("{file}: not <name>.schema.json"))
            .to_string();
        let text = std::fs::read_to_string(&path).expect("schema readable");
        let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            schema["$schema"],
            json!("https://json-schema.org/draft/2020-12/schema"),
            "{file}: draft"
        );
        assert_eq!(
            schema["$id"],
            json!(format!("https://hera-agent-unity.invalid/schemas/{file}")),
            "{file}: $id"
        );
        out.push((stem, schema));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn validator(schema: &Value, all: &[(String, Value)]) -> jsonschema::Validator {
    let registry = jsonschema::Registry::new()
        .extend(
            all.iter()
                .map(|(_, other)| (other["$id"].as_str().expect("$id"), other)),
        )
        .and_then(|b| b.prepare())
        .expect("the contract schemas form a registry");
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .with_registry(&registry)
        .build(schema)
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", schema["$id"]))
}

fn decodes_as(type_name: &str, instance: &Value) -> Result<(), String> {
    let v = instance.clone();
    let r = match type_name {
        "Heartbeat" => serde_json::from_value::<Heartbeat>(v).map(drop),
        "LedgerRecord" => serde_json::from_value::<LedgerRecord>(v).map(drop),
        "TestPending" => serde_json::from_value::<TestPending>(v).map(drop),
        "PackagePending" => serde_json::from_value::<PackagePending>(v).map(drop),
        "ApprovalClaims" => serde_json::from_value::<ApprovalClaims>(v).map(drop),
        "Catalog" => {
            let c = serde_json::from_value::<Catalog>(v).map_err(|e| e.to_string())?;
            let problems = c.check_structure();
            return if problems.is_empty() {
                Ok(())
            } else {
                Err(problems.join("; "))
            };
        }
        other => panic!("unknown decode_as {other}"),
    };
    r.map_err(|e| e.to_string())
}

#[test]
fn schema_examples() {
    let all = schemas();
    for (stem, schema) in &all {
        if let Err(e) = jsonschema::meta::validate(schema) {
            panic!("{stem}.schema.json is not a valid JSON Schema: {e}");
        }
    }
    let validators: Vec<(String, jsonschema::Validator)> = all
        .iter()
        .map(|(stem, schema)| (stem.clone(), validator(schema, &all)))
        .collect();
    let mut seen: BTreeSet<(String, bool)> = BTreeSet::new();
    let mut r = Report::new("schema-examples.json");
    for v in load(r.file) {
        let name = s(&v, "name");
        let stem = s(&v, "schema");
        let (_, val) = validators
            .iter()
            .find(|(s, _)| s == stem)
            .unwrap_or_else(|| panic!("[{name}] unknown schema {stem}"));
        let want = v["expected_valid"] == json!(true);
        let errors: Vec<String> = val
            .iter_errors(&v["instance"])
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        if errors.is_empty() != want {
            r.failures.push(format!(
                "[{name}] expected valid={want}, errors: {errors:?}"
            ));
        }
        if let Some(t) = v["decode_as"].as_str()
            && let Err(e) = decodes_as(t, &v["instance"])
        {
            r.failures
                .push(format!("[{name}] does not decode as {t}: {e}"));
        }
        seen.insert((stem.to_string(), want));
        r.ran += 1;
    }
    // Every schema is exercised by at least one valid and one invalid instance.
    for (stem, _) in &all {
        for want in [true, false] {
            if !seen.contains(&(stem.clone(), want)) {
                r.failures.push(format!(
                    "{stem}.schema.json has no {} example",
                    if want { "valid" } else { "invalid" }
                ));
            }
        }
    }
    // The catalog vectors double as catalog schema examples.
    let (_, catalog_schema) = validators
        .iter()
        .find(|(s, _)| s == "tool-catalog")
        .expect("catalog schema");
    for c in load("catalog-hash.json") {
        let env: Value = serde_json::from_str(s(&c, "envelope_text")).expect("envelope is JSON");
        r.check(
            s(&c, "name"),
            "catalog schema validity",
            catalog_schema.is_valid(&env),
            c["schema_valid"] == json!(true),
        );
    }
    r.finish();
}
