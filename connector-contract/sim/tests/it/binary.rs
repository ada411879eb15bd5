//! The standalone `hera-connector-sim` binary: it announces its port and heartbeat on stderr,
//! writes a valid heartbeat, serves the catalog, obeys its control endpoint, and writes
//! `stopped` when it quits (control `shutdown` or Ctrl-C).

use crate::common::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

struct Running {
    child: Child,
    port: u16,
    control: u16,
    heartbeat: PathBuf,
    /// Everything the process wrote to stdout, delivered when stdout closes.
    stdout: mpsc::Receiver<Vec<u8>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary and reads its announcement lines (bounded: 30 s).
fn spawn(home: &std::path::Path) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hera-connector-sim"))
        .args([
            "--project",
            PROJECT,
            "--port",
            "0",
            "--control-port",
            "0",
            "--home",
        ])
        .arg(home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let (mut port, mut control, mut heartbeat) = (None, None, None);
    while port.is_none() || control.is_none() || heartbeat.is_none() {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("announcement on stderr");
        if let Some(rest) = line.strip_prefix("hera-connector-sim: listening on 127.0.0.1:") {
            port = rest.trim().parse().ok();
        } else if let Some(rest) = line.strip_prefix("hera-connector-sim: control on 127.0.0.1:") {
            control = rest.split_whitespace().next().and_then(|p| p.parse().ok());
        } else if let Some(rest) = line.strip_prefix("hera-connector-sim: heartbeat ") {
            heartbeat = Some(PathBuf::from(rest.trim()));
        }
    }
    let mut stdout = child.stdout.take().unwrap();
    let (otx, orx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        let _ = otx.send(buf);
    });
    Running {
        child,
        port: port.unwrap(),
        control: control.unwrap(),
        heartbeat: heartbeat.unwrap(),
        stdout: orx,
    }
}

fn read_heartbeat(path: &std::path::Path) -> Value {
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_schema("heartbeat.schema.json", &v);
    v
}

fn wait_exit(child: &mut Child) -> Option<std::process::ExitStatus> {
    wait_for(Duration::from_secs(30), || child.try_wait().ok().flatten())
}

#[test]
fn serves_heartbeat_and_catalog_then_stops_on_control() {
    let home = tempfile::tempdir().unwrap();
    let mut run = spawn(home.path());
    assert_eq!(
        run.heartbeat,
        home.path()
            .join(".hera-agent-unity/instances/0f8a4cd2094360e3.json")
    );
    let hb = read_heartbeat(&run.heartbeat);
    assert_eq!(hb["port"], run.port);
    assert_eq!(hb["state"], "ready");
    assert_eq!(hb["projectPath"], PROJECT);
    let r = post(
        run.port,
        "/command",
        &json!({"command":"list","params":{"catalog":true,"schema_version":"hera.tool-catalog/1"}})
            .to_string(),
    );
    let v = r.json();
    assert_eq!(v["success"], true);
    assert_schema("tool-catalog.schema.json", &v["data"]);
    assert_eq!(v["data"]["domain_epoch"], hb["domainEpoch"]);
    let r = request(
        run.control,
        "POST",
        "/control",
        &[],
        br#"{"op":"shutdown"}"#,
    )
    .unwrap();
    assert_eq!(r.status, 200);
    let status = wait_exit(&mut run.child).expect("exits after shutdown");
    assert!(status.success());
    assert_eq!(read_heartbeat(&run.heartbeat)["state"], "stopped");
    let stdout = run.stdout.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(
        stdout.is_empty(),
        "logs go to stderr only: {}",
        String::from_utf8_lossy(&stdout)
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_stopped() {
    let home = tempfile::tempdir().unwrap();
    let mut run = spawn(home.path());
    assert_eq!(read_heartbeat(&run.heartbeat)["state"], "ready");
    // SAFETY: sending SIGINT to our own child process.
    unsafe {
        libc::kill(run.child.id() as libc::pid_t, libc::SIGINT);
    }
    let status = wait_exit(&mut run.child).expect("exits on SIGINT");
    assert!(status.success());
    assert_eq!(read_heartbeat(&run.heartbeat)["state"], "stopped");
}

#[test]
fn help_teaches() {
    let out = Command::new(env!("CARGO_BIN_EXE_hera-connector-sim"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for word in [
        "--project",
        "--port",
        "--features",
        "--legacy",
        "--home",
        "--control-port",
        "heartbeat",
        "/control",
    ] {
        assert!(text.contains(word), "--help mentions {word}:\n{text}");
    }
}
