//! Whom the adapter trusts, end to end: the real binary, real heartbeat files, a simulated
//! Editor over real HTTP. Heartbeats another user wrote, or dated in the future, are ignored and
//! `doctor` says why; a port held by another user is reported as a stranger.
//!
//! Tests that need a second uid run as root (the file is given to `nobody`, the listener is
//! opened by a child that became `nobody`); elsewhere they print why they were skipped.

use crate::support::cli::*;
use serde_json::{Value, json};

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report}"))
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Writes an impostor heartbeat claiming `project` on `port`, dated `ahead_ms` in the future.
fn impostor(
    home: &Home,
    name: &str,
    project: &str,
    port: u16,
    ahead_ms: i64,
) -> std::path::PathBuf {
    let file = home.instances_dir().join(name);
    let hb = json!({"state": "ready", "projectPath": project, "port": port,
        "pid": std::process::id(), "timestamp": now_ms() + ahead_ms,
        "features": ["approval_v1","domain_epoch_v1","execution_protocol_v1",
                     "operation_ledger_v1","task_bridge_v1","tool_catalog_v1"]});
    std::fs::write(&file, hb.to_string()).unwrap();
    file
}

#[test]
fn a_healthy_editor_holds_its_own_port_and_every_heartbeat_is_trusted() {
    let home = Home::new();
    let _sim = home.editor("Game");
    let report = home.run(&["doctor", "--json"]).json();
    assert_eq!(check(&report, "heartbeat_trust")["status"], "ok");
    let listener = check(&report, "listener");
    assert_eq!(listener["status"], "ok", "{listener}");
    assert!(
        listener["detail"]
            .as_str()
            .unwrap()
            .contains("held by the Editor process that wrote the heartbeat"),
        "{listener}"
    );
}

#[test]
fn a_future_dated_heartbeat_does_not_win_an_exact_project() {
    let home = Home::new();
    let sim = home.editor("Game");
    let closed = closed_port();
    impostor(
        &home,
        "ffffffffffffffff.json",
        sim.project_path(),
        closed.port,
        3_600_000,
    );
    let r = home.run(&["status", "--json", "--project", sim.project_path()]);
    let status = r.expect(0).json();
    assert_eq!(status["selected"]["port"], sim.port(), "{status}");
    let report = home
        .run(&["doctor", "--json", "--project", sim.project_path()])
        .json();
    let trust = check(&report, "heartbeat_trust");
    assert_eq!(trust["status"], "warn");
    assert!(
        trust["detail"]
            .as_str()
            .unwrap()
            .contains("future_timestamp"),
        "{trust}"
    );
    assert_eq!(check(&report, "selection")["status"], "ok");
}

#[test]
fn a_heartbeat_owned_by_another_user_is_ignored_and_doctor_says_why() {
    if !is_root() {
        eprintln!("SKIPPED: needs root to give a heartbeat file to another uid");
        return;
    }
    let home = Home::new();
    let sim = home.editor("Game");
    let closed = closed_port();
    let file = impostor(
        &home,
        "0000000000000000.json",
        sim.project_path(),
        closed.port,
        0,
    );
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    // Even with the exact project, and although the impostor is the newest, ours is chosen.
    let r = home.run(&["status", "--json", "--project", sim.project_path()]);
    assert_eq!(r.expect(0).json()["selected"]["port"], sim.port());
    let report = home
        .run(&["doctor", "--json", "--project", sim.project_path()])
        .json();
    let trust = check(&report, "heartbeat_trust");
    assert_eq!(trust["status"], "warn");
    let detail = trust["detail"].as_str().unwrap();
    assert!(
        detail.contains("foreign_owner") && detail.contains("uid 65534"),
        "{trust}"
    );
    // Alone, it explains itself instead of being chosen, and is left in place.
    sim.shutdown();
    let _ = std::fs::remove_file(sim.heartbeat_path());
    let r = home.run(&["status", "--json", "--project", sim.project_path()]);
    let text = format!("{}{}", r.stdout, r.stderr);
    assert!(text.contains("no trusted Unity heartbeat"), "{text}");
    assert!(file.exists());
}

#[test]
fn a_port_held_by_another_user_is_a_stranger() {
    if !is_root() {
        eprintln!("SKIPPED: needs root to open a listener as another uid");
        return;
    }
    let home = Home::new();
    let sim = home.editor("Game");
    let stranger = ForeignListener::start(65534);
    // The heartbeat still names our Editor's pid, but the port is the stranger's: exactly the
    // domain-reload window in which another user binds the old port.
    sim.set_heartbeat_port(Some(stranger.port)).unwrap();
    let report = home.run(&["doctor", "--json"]).json();
    let listener = check(&report, "listener");
    assert_eq!(listener["status"], "fail", "{listener}");
    assert!(
        listener["detail"]
            .as_str()
            .unwrap()
            .contains("another user (uid 65534)"),
        "{listener}"
    );
    assert!(listener["fix"].as_str().is_some_and(|f| !f.is_empty()));
}

/// A child process that drops to `uid`, listens on a free loopback port and waits to be killed.
struct ForeignListener {
    pid: libc::pid_t,
    port: u16,
}

impl ForeignListener {
    fn start(uid: u32) -> ForeignListener {
        let mut fds = [0; 2];
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child only calls async-signal-safe libc functions, then _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            unsafe {
                let mut port: u16 = 0;
                let ok = libc::setgroups(0, std::ptr::null()) == 0
                    && libc::setgid(uid) == 0
                    && libc::setuid(uid) == 0;
                let sock = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
                let mut addr: libc::sockaddr_in = std::mem::zeroed();
                addr.sin_family = libc::AF_INET as libc::sa_family_t;
                addr.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
                let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
                if ok
                    && sock >= 0
                    && libc::bind(sock, &addr as *const _ as *const libc::sockaddr, len) == 0
                    && libc::listen(sock, 1) == 0
                {
                    let mut got = len;
                    libc::getsockname(sock, &mut addr as *mut _ as *mut libc::sockaddr, &mut got);
                    port = u16::from_be(addr.sin_port);
                }
                libc::write(fds[1], &port as *const u16 as *const libc::c_void, 2);
                libc::sleep(60);
                libc::_exit(0);
            }
        }
        let mut port: u16 = 0;
        let n = unsafe { libc::read(fds[0], &mut port as *mut u16 as *mut libc::c_void, 2) };
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
        assert!(
            n == 2 && port != 0,
            "the child could not listen as uid {uid}"
        );
        ForeignListener { pid, port }
    }
}

impl Drop for ForeignListener {
    fn drop(&mut self) {
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}
