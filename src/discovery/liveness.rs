//! Is the Editor process behind a heartbeat still alive? (§1.5)
//!
//! A heartbeat outlives a crashed Editor, so the pid is the only reliable signal. We only ever
//! answer "dead" when the OS positively says so; anything uncertain counts as alive, because
//! deleting a live Editor's heartbeat would hide it until its next write.

/// `Some(false)` when the OS confirms the process is gone, `Some(true)` when it exists,
/// `None` when we cannot tell (pid ≤ 0, or a platform without a check).
pub fn pid_alive(pid: i64) -> Option<bool> {
    if pid <= 0 {
        return None;
    }
    check(pid)
}

#[cfg(unix)]
fn check(pid: i64) -> Option<bool> {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return None;
    };
    // SAFETY: signal 0 performs only the existence and permission checks; nothing is delivered.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc == 0 {
        return Some(true);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ESRCH) => Some(false),
        // EPERM: it exists but belongs to someone else. Anything else: unsure, so alive.
        _ => Some(true),
    }
}

#[cfg(not(unix))]
fn check(_pid: i64) -> Option<bool> {
    // Without a Windows API dependency we cannot call OpenProcess; treat as alive (never delete).
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    #[test]
    fn own_pid_is_alive_and_a_reaped_child_is_dead() {
        assert_eq!(pid_alive(std::process::id() as i64), Some(true));
        assert_eq!(pid_alive(0), None);
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i64;
        child.wait().unwrap();
        assert_eq!(pid_alive(pid), Some(false));
    }
}
