//! The heartbeat file (§1.2–§1.4) and every knob a discovery test needs (§12.1).
//!
//! The Connector rewrites `<HOME>/.hera-agent-unity/instances/<md5(projectPath)[:16]>.json`
//! every second while its listener has a port, through a temp file and a rename. Clients find
//! Editors only through these files, so each way a real file can look (stale, stopped, dead pid,
//! port 0, half-written, missing) is a knob here. Knob setters write at once, so a test never
//! waits for the next tick to see its change.

use crate::clock::wall_ms;
use hera_connector_contract::identity::heartbeat_file_name;
use hera_connector_contract::wire::{
    ALL_FEATURES, BASE_DIR_NAME, Compiler, Heartbeat, INSTANCES_DIR,
};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the writer does on each tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeartbeatMode {
    /// Rewritten every second (while the listener has a port).
    Live,
    /// A `stopped` file was written (Editor quit); no more writes.
    Stopped,
    /// The file was deleted and is not rewritten (target lost).
    Removed,
    /// A half-written file sits there (the Connector's copy fallback); no more writes until
    /// resumed, so a reader's retry path sees it.
    Garbage,
}

/// Test-controlled values; `None` overrides mean "the real value".
#[derive(Debug, Clone)]
pub struct Knobs {
    /// `Some(s)`: advertise state `s` whatever the Editor is doing.
    pub state: Option<String>,
    pub features: Vec<String>,
    /// Legacy Connector: no `features`, no `domainEpoch` keys at all.
    pub legacy: bool,
    /// `Some(e)`: advertise `e` instead of the real epoch (`""` for an empty epoch).
    pub epoch_override: Option<String>,
    pub pid: i64,
    /// `Some(ts)`: every write carries this timestamp (a stale heartbeat).
    pub frozen_timestamp: Option<i64>,
    /// `Some(p)`: advertise port `p` (e.g. 0) instead of the listener's.
    pub port_override: Option<u16>,
    pub mode: HeartbeatMode,
}

/// Facts the Connector owns and the heartbeat reports.
#[derive(Debug, Clone)]
struct Live {
    /// The listener port, 0 while it is down.
    port: u16,
    epoch: String,
    /// What the Editor model is doing: `ready`, `playing`, `paused`, `compiling`.
    editor_state: String,
    compile_errors: bool,
    /// A forced state (`reloading`) that wins over the knob until cleared.
    forced_state: Option<String>,
}

/// Another project's heartbeat, written beside ours (a port taken over by another project).
#[derive(Debug, Clone)]
struct Foreign {
    path: PathBuf,
    heartbeat: Heartbeat,
}

struct Inner {
    knobs: Knobs,
    live: Live,
    foreign: Vec<Foreign>,
}

/// One Editor's heartbeat file.
pub struct HeartbeatFile {
    dir: PathBuf,
    path: PathBuf,
    project_path: String,
    inner: Mutex<Inner>,
}

/// `<home>/.hera-agent-unity/instances`.
pub fn instances_dir(home: &Path) -> PathBuf {
    home.join(BASE_DIR_NAME).join(INSTANCES_DIR)
}

impl HeartbeatFile {
    pub fn new(home: &Path, project_path: &str, knobs: Knobs) -> HeartbeatFile {
        let dir = instances_dir(home);
        let path = dir.join(heartbeat_file_name(project_path));
        HeartbeatFile {
            dir,
            path,
            project_path: project_path.to_string(),
            inner: Mutex::new(Inner {
                knobs,
                live: Live {
                    port: 0,
                    epoch: String::new(),
                    editor_state: "ready".into(),
                    compile_errors: false,
                    forced_state: None,
                },
                foreign: Vec::new(),
            }),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The default knobs: the Editor's own state, all six features, this process's pid.
    pub fn default_knobs(features: Option<Vec<String>>, legacy: bool, pid: Option<i64>) -> Knobs {
        Knobs {
            state: None,
            features: features
                .unwrap_or_else(|| ALL_FEATURES.iter().map(|s| s.to_string()).collect()),
            legacy,
            epoch_override: None,
            pid: pid.unwrap_or(std::process::id() as i64),
            frozen_timestamp: None,
            port_override: None,
            mode: HeartbeatMode::Live,
        }
    }

    /// The heartbeat as it would be written now.
    pub fn render(&self) -> Heartbeat {
        let g = self.inner.lock().expect("heartbeat lock");
        render(&self.project_path, &g.knobs, &g.live)
    }

    pub fn knobs(&self) -> Knobs {
        self.inner.lock().expect("heartbeat lock").knobs.clone()
    }

    /// Changes knobs and writes at once (unless the mode says not to write).
    pub fn update(&self, f: impl FnOnce(&mut Knobs)) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        f(&mut g.knobs);
        self.write_locked(&g, true)
    }

    /// The listener is up on `port` in the domain `epoch`: clears any forced state and writes
    /// at once (after a reload the Connector's next tick writes immediately).
    pub fn set_live(&self, port: u16, epoch: &str) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        g.live.port = port;
        g.live.epoch = epoch.to_string();
        g.live.forced_state = None;
        self.write_locked(&g, true)
    }

    /// Reports the Editor model's state; writes at once when it changed (play mode entered,
    /// compile started), as the Connector's forced writes do.
    pub fn set_editor_state(&self, state: &str, compile_errors: bool) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        if g.live.editor_state == state && g.live.compile_errors == compile_errors {
            return Ok(());
        }
        g.live.editor_state = state.to_string();
        g.live.compile_errors = compile_errors;
        self.write_locked(&g, true)
    }

    /// Forces a state (`reloading`) and writes it even without a port, as the Connector does.
    pub fn force_state(&self, state: Option<&str>) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        g.live.forced_state = state.map(str::to_string);
        self.write_locked(&g, true)
    }

    /// The periodic write: only in `Live` mode, only while the listener has a port (§1.3), and
    /// not while a forced state (a reload in progress) holds: the domain is not ticking then.
    pub fn tick(&self) -> io::Result<()> {
        let g = self.inner.lock().expect("heartbeat lock");
        for f in &g.foreign {
            let mut hb = f.heartbeat.clone();
            hb.timestamp = Some(wall_ms());
            write_atomic(&self.dir, &f.path, &to_text(&hb))?;
        }
        self.write_locked(&g, false)
    }

    fn write_locked(&self, g: &Inner, always: bool) -> io::Result<()> {
        if g.knobs.mode != HeartbeatMode::Live {
            return Ok(());
        }
        if !always && (g.live.port == 0 || g.live.forced_state.is_some()) {
            return Ok(());
        }
        let hb = render(&self.project_path, &g.knobs, &g.live);
        write_atomic(&self.dir, &self.path, &to_text(&hb))
    }

    /// Forgets the listener's port (it stopped): forced writes from now on say `port: 0`.
    pub fn clear_port(&self) {
        self.inner.lock().expect("heartbeat lock").live.port = 0;
    }

    /// Stops every write and leaves the file as it is (a quit that never wrote `stopped`).
    pub fn stop_writing(&self) {
        self.inner.lock().expect("heartbeat lock").knobs.mode = HeartbeatMode::Stopped;
    }

    /// Writes `stopped` (Editor quit) and stops the periodic writes.
    pub fn write_stopped(&self) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        g.live.forced_state = Some("stopped".into());
        let hb = render(&self.project_path, &g.knobs, &g.live);
        g.live.forced_state = None;
        g.knobs.mode = HeartbeatMode::Stopped;
        write_atomic(&self.dir, &self.path, &to_text(&hb))
    }

    /// Deletes the file and stops rewriting it.
    pub fn remove(&self) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        g.knobs.mode = HeartbeatMode::Removed;
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Writes the first half of a heartbeat, in place and without the rename (the Connector's
    /// `File.Copy` fallback), and pauses writes until [`HeartbeatFile::resume`].
    pub fn write_garbage(&self) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        let text = to_text(&render(&self.project_path, &g.knobs, &g.live));
        g.knobs.mode = HeartbeatMode::Garbage;
        std::fs::create_dir_all(&self.dir)?;
        std::fs::write(&self.path, &text.as_bytes()[..text.len() / 2])
    }

    /// Back to `Live` after remove/garbage/stopped; writes at once.
    pub fn resume(&self) -> io::Result<()> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        g.knobs.mode = HeartbeatMode::Live;
        self.write_locked(&g, true)
    }

    /// Writes another project's heartbeat claiming `port`, refreshed on every tick.
    pub fn add_foreign(&self, project_path: &str, port: u16) -> io::Result<PathBuf> {
        let mut g = self.inner.lock().expect("heartbeat lock");
        let mut live = g.live.clone();
        live.port = port;
        live.forced_state = None;
        live.editor_state = "ready".into();
        let mut knobs = g.knobs.clone();
        knobs.state = None;
        knobs.port_override = None;
        knobs.frozen_timestamp = None;
        knobs.mode = HeartbeatMode::Live;
        let hb = render(project_path, &knobs, &live);
        let path = self.dir.join(heartbeat_file_name(project_path));
        write_atomic(&self.dir, &path, &to_text(&hb))?;
        g.foreign.push(Foreign {
            path: path.clone(),
            heartbeat: hb,
        });
        Ok(path)
    }

    /// Deletes the foreign heartbeats (on shutdown).
    pub fn remove_foreign(&self) {
        let mut g = self.inner.lock().expect("heartbeat lock");
        for f in g.foreign.drain(..) {
            let _ = std::fs::remove_file(&f.path);
        }
    }
}

fn render(project_path: &str, k: &Knobs, live: &Live) -> Heartbeat {
    let state = live
        .forced_state
        .clone()
        .or_else(|| k.state.clone())
        .unwrap_or_else(|| live.editor_state.clone());
    let epoch = k
        .epoch_override
        .clone()
        .unwrap_or_else(|| live.epoch.clone());
    Heartbeat {
        state: Some(state),
        project_path: Some(project_path.to_string()),
        port: k.port_override.unwrap_or(live.port),
        pid: Some(k.pid),
        unity_version: Some("6000.3.5f2".into()),
        docs_version: Some("6000.3".into()),
        compiler: Some(Compiler {
            csc_path: Some("/opt/unity/6000.3.5f2/Editor/Data/DotNetSdkRoslyn/csc.dll".into()),
            csc_kind: Some("unity_dotnet_sdk_roslyn".into()),
            csc_found: Some(true),
            dotnet_path: Some("/opt/unity/6000.3.5f2/Editor/Data/NetCoreRuntime/dotnet".into()),
            dotnet_kind: Some("unity_netcore_runtime".into()),
            dotnet_found: Some(true),
            error: None,
        }),
        domain_epoch: (!k.legacy).then_some(epoch),
        features: (!k.legacy).then(|| k.features.clone()),
        timestamp: Some(k.frozen_timestamp.unwrap_or_else(wall_ms)),
        compile_errors: Some(live.compile_errors),
    }
}

fn to_text(hb: &Heartbeat) -> String {
    serde_json::to_string(hb).expect("a heartbeat always serializes")
}

/// Writes `<path>.<32 hex>.tmp` and renames it over `path`: a reader sees the old file or the
/// new one, never a mix. The temp name ends in `.tmp`, so a `*.json` scan skips it.
pub fn write_atomic(dir: &Path, path: &Path, text: &str) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let suffix: [u8; 16] = rand::random();
    let hex: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{hex}.tmp"));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text.as_bytes())?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_field_and_knobs_apply() {
        let home = tempfile::tempdir().unwrap();
        let hb = HeartbeatFile::new(
            home.path(),
            "/Users/me/Unity/MyGame",
            HeartbeatFile::default_knobs(None, false, Some(41234)),
        );
        assert!(hb.path().ends_with("instances/0f8a4cd2094360e3.json"));
        hb.set_live(8090, "3f2b6c0d9a4e4b5f8c1d2e3f4a5b6c7d")
            .unwrap();
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(hb.path()).unwrap()).unwrap();
        for key in [
            "state",
            "projectPath",
            "port",
            "pid",
            "unityVersion",
            "docsVersion",
            "compiler",
            "domainEpoch",
            "features",
            "timestamp",
            "compileErrors",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert_eq!(v["compiler"]["error"], serde_json::Value::Null);
        hb.update(|k| k.port_override = Some(0)).unwrap();
        let v: Heartbeat = serde_json::from_slice(&std::fs::read(hb.path()).unwrap()).unwrap();
        assert_eq!(v.port, 0);
        hb.write_garbage().unwrap();
        assert!(serde_json::from_slice::<Heartbeat>(&std::fs::read(hb.path()).unwrap()).is_err());
        hb.resume().unwrap();
        hb.remove().unwrap();
        assert!(!hb.path().exists());
        hb.tick().unwrap();
        assert!(!hb.path().exists(), "a removed heartbeat stays removed");
    }
}
