//! Shared setup for the CLI integration tests: a temporary HOME per test, simulated Editors
//! started in-process over real HTTP on 127.0.0.1, and the real binary run as a child process.

use hera_connector_sim::{SimConfig, Simulator};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_hera-agent-unity");

/// A temporary home directory with a `Projects/` folder for simulated Unity projects.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        let dir = tempfile::tempdir().expect("temp home");
        std::fs::create_dir_all(dir.path().join("Projects")).unwrap();
        Home { dir }
    }
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
    /// `<home>/Projects/<name>`, created.
    pub fn project(&self, name: &str) -> String {
        let p = self.path().join("Projects").join(name);
        std::fs::create_dir_all(p.join("Assets")).unwrap();
        p.to_string_lossy().into_owned()
    }
    /// Starts a simulated Editor for `<home>/Projects/<name>` on an ephemeral port.
    pub fn editor(&self, name: &str) -> Simulator {
        self.editor_with(name, |_| {})
    }
    pub fn editor_with(&self, name: &str, tweak: impl FnOnce(&mut SimConfig)) -> Simulator {
        let mut cfg = SimConfig::new(self.path().to_path_buf(), self.project(name));
        tweak(&mut cfg);
        Simulator::start_background(cfg).expect("simulator starts")
    }
    pub fn instances_dir(&self) -> PathBuf {
        self.path().join(".hera-agent-unity").join("instances")
    }
    /// Runs the binary with HOME set to this home and the working directory at its root.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.run_in(self.path(), args, env)
    }
    pub fn run_in(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
        self.run_cmd(cwd, args, env, false)
    }
    /// Runs with `HOME` and `USERPROFILE` removed, as some MCP clients start servers.
    pub fn run_without_home(&self, args: &[&str]) -> Run {
        self.run_cmd(self.path(), args, &[], true)
    }
    fn run_cmd(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)], no_home: bool) -> Run {
        let mut cmd = Command::new(BIN);
        // No setting of the developer's shell (HERA_AGENT_VERBOSE, HERA_MCP_*, a result-cache
        // cap, …) leaks into a test: only what the test passes below.
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("HERA_") {
                cmd.env_remove(k);
            }
        }
        cmd.args(args)
            .current_dir(cwd)
            .env("HOME", self.path())
            .env("USERPROFILE", self.path())
            .env("HERA_AGENT_TIMEOUT_MS", "8000")
            .env("RUST_LOG", "warn")
            .env_remove("HTTP_PROXY")
            .env_remove("http_proxy")
            .env_remove("ALL_PROXY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        if no_home {
            cmd.env_remove("HOME").env_remove("USERPROFILE");
        }
        let start = Instant::now();
        let out = cmd.output().expect("binary runs");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            elapsed: start.elapsed(),
        }
    }
}

/// One finished run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    /// stdout as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
    /// The error envelope: the last stderr line that parses as a JSON object.
    pub fn error(&self) -> Value {
        self.stderr
            .lines()
            .rev()
            .find_map(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()
                    .filter(Value::is_object)
            })
            .unwrap_or_else(|| panic!("no JSON envelope on stderr:\n{}", self.stderr))
    }
    pub fn error_code(&self) -> String {
        self.error()["code"].as_str().unwrap_or("").to_string()
    }
    #[track_caller]
    pub fn expect(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "exit code {} (wanted {code})\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }
}

/// Waits (bounded) until `cond` holds.
pub fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    cond()
}

/// A pid that certainly belonged to a process that has exited.
pub fn dead_pid() -> i64 {
    let mut child = Command::new("true").spawn().expect("spawn true");
    let pid = child.id() as i64;
    child.wait().unwrap();
    pid
}

/// A loopback port nothing listens on, for as long as this value lives: the port is bound
/// but never listened on, so connections are refused and no other socket (another test's
/// simulator, say) can take it meanwhile.
pub struct ClosedPort {
    _socket: tokio::net::TcpSocket,
    pub port: u16,
}

pub fn closed_port() -> ClosedPort {
    let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
    socket
        .bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("bind 127.0.0.1:0");
    let port = socket.local_addr().expect("bound address").port();
    ClosedPort {
        _socket: socket,
        port,
    }
}
