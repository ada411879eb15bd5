//! Is a process still running? Used to tell a crashed Editor's leftover heartbeat from a live
//! one (`connector-contract/README.md`, liveness).
//!
//! We answer "gone" only when the OS positively says so; anything uncertain is `None`, because
//! treating a live Editor as dead would hide it until its next heartbeat.
//!
//! - Unix: `kill(pid, 0)`; `ESRCH` means gone, `EPERM` (someone else's process) means running.
//! - Windows: `OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION)`; failing for any reason but
//!   `ERROR_ACCESS_DENIED` means gone; otherwise gone when the exit code is not `STILL_ACTIVE`,
//!   running when it is, unknown when it cannot be read. This is the Go client's rule.
//! - Elsewhere: no check (`None`); callers fall back to the heartbeat's age.
//!
//! Also this process's own allocator setting: [`limit_malloc_arenas`].

/// Caps glibc's malloc at two arenas, one per async runtime worker (its default is eight per
/// core). Every thread that first allocates while the others hold their arenas gets a new one,
/// and an arena keeps the memory freed into it; the runtime's blocking pool starts threads when
/// work overlaps, so a long session's resident memory stepped up with each new thread. Call it
/// first, before any thread starts. Does nothing off glibc.
pub fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a setting of the allocator; no other thread exists yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// `Some(false)` when the OS confirms the process is gone, `Some(true)` when it exists,
/// `None` when we cannot tell (pid ≤ 0, out of range, or a platform without a check).
pub fn pid_alive(pid: i64) -> Option<bool> {
    if pid <= 0 {
        return None;
    }
    check(pid)
}

#[cfg(unix)]
fn check(pid: i64) -> Option<bool> {
    let pid = libc::pid_t::try_from(pid).ok()?;
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

#[cfg(windows)]
fn check(pid: i64) -> Option<bool> {
    use windows_sys::Win32::Foundation::{
        CloseHandle, ERROR_ACCESS_DENIED, GetLastError, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    let pid = u32::try_from(pid).ok()?;
    // SAFETY: a query-only handle; it is closed exactly once below, on the only path that has it.
    unsafe {
        let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if handle.is_null() {
            // Access denied: the process exists (another user's, or protected).
            return Some(GetLastError() == ERROR_ACCESS_DENIED);
        }
        let mut code: u32 = 0;
        let read = GetExitCodeProcess(handle, &mut code);
        CloseHandle(handle);
        if read == 0 {
            return Some(true);
        }
        Some(code == STILL_ACTIVE as u32)
    }
}

#[cfg(not(any(unix, windows)))]
fn check(_pid: i64) -> Option<bool> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    #[test]
    fn own_pid_is_alive_and_a_reaped_child_is_gone() {
        assert_eq!(pid_alive(std::process::id() as i64), Some(true));
        assert_eq!(pid_alive(0), None);
        assert_eq!(pid_alive(-5), None);
        assert_eq!(pid_alive(i64::MAX), None, "out of pid_t range: cannot tell");
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i64;
        child.wait().unwrap();
        assert_eq!(pid_alive(pid), Some(false));
    }
}
