//! The report against the committed baseline, through the real programs: this tool's binary,
//! which starts the simulator and the real `hera-agent-unity` server.
//!
//! Needs the server binary in the same target directory; `cargo test --workspace` builds it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tool() -> &'static str {
    env!("CARGO_BIN_EXE_catalog-payload-report")
}

fn server() -> PathBuf {
    let dir = Path::new(tool()).parent().expect("target dir");
    let bin = dir.join(format!("hera-agent-unity{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.is_file(),
        "{} is missing: run the tests with `cargo test --workspace`, which builds it",
        bin.display()
    );
    bin
}

fn baseline_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../metrics/catalog-payload-baseline.json")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn run(args: &[&str]) -> Output {
    let server = server();
    Command::new(tool())
        .arg("--binary")
        .arg(&server)
        .args(args)
        .output()
        .expect("the report tool runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const REGENERATE: &str = "cargo build --workspace && target/debug/catalog-payload-report --output metrics/catalog-payload-baseline.json";

#[test]
fn deterministic_and_the_compact_surface_matches_the_committed_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = baseline_path();
    let committed = read_json(&baseline);
    let mut texts = Vec::new();
    for name in ["first.json", "second.json"] {
        let out = dir.path().join(name);
        let o = run(&[
            "--output",
            out.to_str().unwrap(),
            "--compare",
            baseline.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "the report failed ({:?}):\n{}",
            o.status,
            stderr(&o)
        );
        assert!(
            stderr(&o).contains("compare with"),
            "no comparison was printed:\n{}",
            stderr(&o)
        );
        texts.push(std::fs::read_to_string(&out).unwrap());
    }
    assert!(
        texts[0] == texts[1],
        "two runs gave different reports; some volatile value escaped normalization"
    );

    let report: Value = serde_json::from_str(&texts[0]).unwrap();
    let ours = &report["compact"]["tools_list"];
    let theirs = &committed["compact"]["tools_list"];
    assert_eq!(ours["tools"], 3, "compact exposure lists three tools");
    assert_eq!(
        (&ours["result_bytes"], &ours["digest"]),
        (&theirs["result_bytes"], &theirs["digest"]),
        "the compact tools/list changed against metrics/catalog-payload-baseline.json; if the \
         change is intended, regenerate the baseline on purpose: {REGENERATE}"
    );
    // The figures the report exists for are all there and non-zero.
    for pointer in [
        "/compact/initialize/result_bytes",
        "/catalog/envelope_bytes",
        "/flows/create_gameobject/total/result_bytes",
        "/flows/read_scene_info/steps/2/response/result_bytes",
        "/describe/input/whole_tool/result_bytes",
        "/describe/input/actions/replay/result_bytes",
    ] {
        let v = report.pointer(pointer).and_then(Value::as_u64);
        assert!(v.is_some_and(|n| n > 0), "{pointer} is {v:?}");
    }
    assert_eq!(report["catalog"]["tools"], 34);
    assert_eq!(report["catalog"]["actions"], 133);
}

#[test]
fn fail_on_growth_exits_3_only_when_a_payload_grew() {
    let dir = tempfile::tempdir().unwrap();
    let current = dir.path().join("current.json");
    let o = run(&["--output", current.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = read_json(&current);

    // Against itself: nothing grew.
    let same = run(&[
        "--output",
        dir.path().join("same.json").to_str().unwrap(),
        "--compare",
        current.to_str().unwrap(),
        "--fail-on-growth",
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    assert!(
        stderr(&same).contains("no differences"),
        "{}",
        stderr(&same)
    );

    // A baseline in which the compact tools/list was one byte smaller: that is growth now.
    let mut smaller = report.clone();
    let bytes = smaller["compact"]["tools_list"]["result_bytes"]
        .as_u64()
        .unwrap();
    smaller["compact"]["tools_list"]["result_bytes"] = (bytes - 1).into();
    let smaller_path = dir.path().join("smaller.json");
    std::fs::write(&smaller_path, serde_json::to_string(&smaller).unwrap()).unwrap();
    let grown = run(&[
        "--output",
        dir.path().join("grown.json").to_str().unwrap(),
        "--compare",
        smaller_path.to_str().unwrap(),
        "--fail-on-growth",
    ]);
    assert_eq!(grown.status.code(), Some(3), "{}", stderr(&grown));
    let text = stderr(&grown);
    assert!(
        text.contains(&format!(
            "grown    compact.tools_list.result_bytes: {} → {bytes} (+1",
            bytes - 1
        )),
        "{text}"
    );
    assert!(text.contains("regenerate the baseline"), "{text}");
}

#[test]
fn usage_errors_and_help() {
    let o = Command::new(tool())
        .arg("--fail-on-growth")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--compare"), "{}", stderr(&o));

    let help = Command::new(tool()).arg("--help").output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for needle in [
        "EXIT CODES",
        "--fail-on-growth",
        "ceil(bytes/4)",
        "--output",
    ] {
        assert!(text.contains(needle), "--help lacks {needle}:\n{text}");
    }

    let missing = Command::new(tool())
        .args(["--binary", "/nonexistent/hera-agent-unity"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("cargo build --workspace"));

    let bad = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(bad.path(), r#"{"schema":"something/else"}"#).unwrap();
    let o = run(&["--compare", bad.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not a hera.catalog-payload-report/3 report"));
}
