//! Who is listening on the heartbeat's port? (`connector-contract/README.md`: the Connector has
//! no authentication, so the port number is the only thing that names the Editor.)
//!
//! During a domain reload the Connector closes its listener and the heartbeat keeps the old
//! port; any local user can bind it in that window and receive our retried `/command`, with its
//! arguments and approval token. Before a request goes out, the caller asks
//! [`verify_listener`] whether the socket listening on `127.0.0.1:<port>` belongs to the Editor
//! process that wrote the heartbeat, or at least to a process of our own user.
//!
//! - Linux: the LISTEN sockets that accept `127.0.0.1:<port>` are read from `/proc/net/tcp` and
//!   `/proc/net/tcp6` (each row carries the socket's owner uid and inode); the inode is then
//!   looked for among `/proc/<pid>/fd/*` of the heartbeat's pid.
//! - Elsewhere there is no check yet, and the answer says so ([`ListenerCheck::Unverifiable`]).

/// How a listener was found to be ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifiedBy {
    /// The listening socket is an open descriptor of the heartbeat's process.
    HeartbeatPid,
    /// The socket belongs to our uid, but the heartbeat's pid does not hold it (or its
    /// descriptors could not be read). Another process of ours: not a stranger, perhaps not the
    /// Editor.
    OurUid,
}

/// The answer of [`verify_listener`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenerCheck {
    /// Every socket that would accept our connection is ours.
    Verified { how: VerifiedBy },
    /// A socket of another user listens where the Editor should: never send it anything.
    Stranger { owner_uid: u32, inode: u64 },
    /// Nothing listens on the port now (the Editor is reloading); a connection would be refused.
    NotListening,
    /// This platform (or this process) cannot tell who owns the listener.
    Unverifiable { why: String },
}

impl ListenerCheck {
    #[cfg(test)]
    /// Safe to send a mutation or a token: only a verified listener.
    pub fn is_verified(&self) -> bool {
        matches!(self, ListenerCheck::Verified { .. })
    }
    /// One line for `doctor` and for error messages.
    pub fn describe(&self, port: u16) -> String {
        match self {
            ListenerCheck::Verified {
                how: VerifiedBy::HeartbeatPid,
            } => format!("127.0.0.1:{port} is held by the Editor process that wrote the heartbeat"),
            ListenerCheck::Verified {
                how: VerifiedBy::OurUid,
            } => format!(
                "127.0.0.1:{port} is held by a process of this user (not confirmed to be the heartbeat's pid)"
            ),
            ListenerCheck::Stranger { owner_uid, .. } => format!(
                "127.0.0.1:{port} is held by another user (uid {owner_uid}), not by the Unity Editor; \
                 nothing is sent there. Close whatever holds the port, then restart the Editor"
            ),
            ListenerCheck::NotListening => format!("nothing listens on 127.0.0.1:{port}"),
            ListenerCheck::Unverifiable { why } => {
                format!("who listens on 127.0.0.1:{port} cannot be checked: {why}")
            }
        }
    }
}

/// Checks the listener on `127.0.0.1:port` against the heartbeat's pid. Blocking (reads a few
/// `/proc` files); cheap enough to run before every request.
pub fn verify_listener(port: u16, heartbeat_pid: Option<i64>) -> ListenerCheck {
    platform::verify(port, heartbeat_pid)
}

#[cfg(target_os = "linux")]
mod platform {
    use super::*;
    use std::path::Path;

    pub fn verify(port: u16, heartbeat_pid: Option<i64>) -> ListenerCheck {
        let mut sockets = Vec::new();
        let mut read_any = false;
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Bounded: a socket table is a few KiB per hundred sockets; 16 MiB is far beyond any.
            if let Some(text) = read_listening(Path::new(table), 16 << 20) {
                read_any = true;
                sockets.extend(listeners_for(&text, port));
            }
        }
        if !read_any {
            return ListenerCheck::Unverifiable {
                why: "/proc/net/tcp is not readable".into(),
            };
        }
        // SAFETY: geteuid has no preconditions.
        let our_uid = unsafe { libc::geteuid() };
        verdict(&sockets, our_uid, |inode| {
            heartbeat_pid.and_then(|pid| pid_holds(pid, inode))
        })
    }

    /// The header and the LISTEN rows of a socket table. The kernel prints every listening
    /// socket first (its listening hash), then walks the whole established hash, TIME_WAIT
    /// entries included; reading stops at the first row of that second part, in small reads so
    /// the kernel formats little of it. Reading the whole table made this check the largest
    /// cost of a call once a few thousand recent connections were in TIME_WAIT.
    fn read_listening(path: &Path, limit: u64) -> Option<String> {
        use std::io::{BufRead, BufReader, Read};
        const LISTEN_STATE: &str = "0A";
        let file = std::fs::File::open(path).ok()?;
        let mut rows = BufReader::with_capacity(512, file.take(limit));
        let mut text = String::new();
        let mut line = String::new();
        let mut header = true;
        // Bounded by `limit` bytes.
        while rows.read_line(&mut line).ok()? > 0 {
            let state = line.split_whitespace().nth(3);
            if !header && state.is_some_and(|s| s != LISTEN_STATE) {
                break;
            }
            header = false;
            text.push_str(&line);
            line.clear();
        }
        Some(text)
    }

    /// Whether `/proc/<pid>/fd` holds the socket; `None` when the descriptors cannot be read.
    fn pid_holds(pid: i64, inode: u64) -> Option<bool> {
        if pid <= 0 {
            return None;
        }
        let want = format!("socket:[{inode}]");
        let dir = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        // Bounded by the process's descriptor table, which the kernel caps.
        for entry in dir.flatten() {
            if std::fs::read_link(entry.path()).is_ok_and(|t| t.as_os_str() == want.as_str()) {
                return Some(true);
            }
        }
        Some(false)
    }
}

#[cfg(not(target_os = "linux"))]
mod platform {
    use super::*;

    pub fn verify(_port: u16, _heartbeat_pid: Option<i64>) -> ListenerCheck {
        ListenerCheck::Unverifiable {
            why: format!(
                "listener ownership is checked on Linux only; on {} the port is trusted as the heartbeat names it",
                std::env::consts::OS
            ),
        }
    }
}

/// One LISTEN row of `/proc/net/tcp{,6}` that accepts connections to `127.0.0.1:port`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListeningSocket {
    pub owner_uid: u32,
    pub inode: u64,
}

/// The LISTEN rows of a `/proc/net/tcp` or `/proc/net/tcp6` table that a connection to
/// `127.0.0.1:port` could reach: bound to 127.0.0.1, to any IPv4 address, to the IPv4-mapped
/// 127.0.0.1, or to any IPv6 address (a dual-stack socket). Malformed rows are skipped.
pub fn listeners_for(table: &str, port: u16) -> Vec<ListeningSocket> {
    const LISTEN: &str = "0A";
    // Addresses as the kernel prints them: each 32-bit word in host (little-endian) order.
    const ACCEPTS_LOOPBACK: [&str; 4] = [
        "0100007F",
        "00000000",
        "0000000000000000FFFF00000100007F",
        "00000000000000000000000000000000",
    ];
    let mut out = Vec::new();
    for line in table.lines().skip(1) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() < 10 || cols[3] != LISTEN {
            continue;
        }
        let Some((addr, port_hex)) = cols[1].split_once(':') else {
            continue;
        };
        if u16::from_str_radix(port_hex, 16) != Ok(port) || !ACCEPTS_LOOPBACK.contains(&addr) {
            continue;
        }
        let (Ok(owner_uid), Ok(inode)) = (cols[7].parse::<u32>(), cols[9].parse::<u64>()) else {
            continue;
        };
        out.push(ListeningSocket { owner_uid, inode });
    }
    out
}

/// The decision over the sockets found: any stranger wins; otherwise every socket must be ours,
/// by the heartbeat's pid (`held_by_pid`: `Some(true)` when it holds the inode) or by uid.
pub fn verdict(
    sockets: &[ListeningSocket],
    our_uid: u32,
    held_by_pid: impl Fn(u64) -> Option<bool>,
) -> ListenerCheck {
    if sockets.is_empty() {
        return ListenerCheck::NotListening;
    }
    if let Some(s) = sockets.iter().find(|s| s.owner_uid != our_uid) {
        return ListenerCheck::Stranger {
            owner_uid: s.owner_uid,
            inode: s.inode,
        };
    }
    let all_by_pid = sockets.iter().all(|s| held_by_pid(s.inode) == Some(true));
    ListenerCheck::Verified {
        how: if all_by_pid {
            VerifiedBy::HeartbeatPid
        } else {
            VerifiedBy::OurUid
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F9A 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F9B 00000000:0000 0A 00000000:00000000 00:00000000 00000000 65534        0 777 1 0000000000000000 100 0 0 10 0
   2: 0100007F:1F9A 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 5151 1 0000000000000000 20 4 30 10 -1
   3: 0200007F:1F9C 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 8888 1 0000000000000000 100 0 0 10 0
   4: 00000000:1F9C 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 9999 1 0000000000000000 100 0 0 10 0
   garbage
";

    #[test]
    fn the_table_yields_only_listeners_that_accept_loopback_on_the_port() {
        assert_eq!(
            listeners_for(TCP, 8090),
            vec![ListeningSocket {
                owner_uid: 0,
                inode: 4242
            }],
            "the established row on the same port is not a listener"
        );
        assert_eq!(listeners_for(TCP, 8091)[0].owner_uid, 65534);
        // 127.0.0.2 does not accept 127.0.0.1, but the wildcard bind does.
        assert_eq!(
            listeners_for(TCP, 8092),
            vec![ListeningSocket {
                owner_uid: 1000,
                inode: 9999
            }]
        );
        assert!(listeners_for(TCP, 8093).is_empty());
        let tcp6 = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0000000000000000FFFF00000100007F:1F9A 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000    33        0 31337 1 0000000000000000 100 0 0 10 0
";
        assert_eq!(listeners_for(tcp6, 8090)[0].owner_uid, 33);
    }

    #[test]
    fn a_stranger_wins_over_our_own_sockets() {
        let ours = ListeningSocket {
            owner_uid: 1000,
            inode: 1,
        };
        let theirs = ListeningSocket {
            owner_uid: 65534,
            inode: 2,
        };
        assert_eq!(verdict(&[], 1000, |_| None), ListenerCheck::NotListening);
        assert_eq!(
            verdict(&[ours, theirs], 1000, |_| Some(true)),
            ListenerCheck::Stranger {
                owner_uid: 65534,
                inode: 2
            }
        );
        assert_eq!(
            verdict(&[ours], 1000, |i| Some(i == 1)),
            ListenerCheck::Verified {
                how: VerifiedBy::HeartbeatPid
            }
        );
        assert_eq!(
            verdict(&[ours], 1000, |_| Some(false)),
            ListenerCheck::Verified {
                how: VerifiedBy::OurUid
            }
        );
        assert_eq!(
            verdict(&[ours], 1000, |_| None),
            ListenerCheck::Verified {
                how: VerifiedBy::OurUid
            }
        );
        assert!(!ListenerCheck::NotListening.is_verified());
        assert!(
            ListenerCheck::Stranger {
                owner_uid: 5,
                inode: 1
            }
            .describe(8090)
            .contains("another user (uid 5)")
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn our_own_listener_is_verified_by_our_pid() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let me = std::process::id() as i64;
        assert_eq!(
            verify_listener(port, Some(me)),
            ListenerCheck::Verified {
                how: VerifiedBy::HeartbeatPid
            }
        );
        // A pid that does not hold it (our parent) still leaves the uid check.
        let parent = unsafe { libc::getppid() } as i64;
        assert_eq!(
            verify_listener(port, Some(parent)),
            ListenerCheck::Verified {
                how: VerifiedBy::OurUid
            }
        );
        drop(listener);
        assert_eq!(verify_listener(port, Some(me)), ListenerCheck::NotListening);
    }

    /// Needs a second uid: a listener opened by a forked child that became `nobody`.
    #[cfg(target_os = "linux")]
    #[test]
    fn another_users_listener_is_a_stranger() {
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("SKIPPED: needs root to start a listener as another uid");
            return;
        }
        let child = ForeignListener::start(65534);
        let seen = verify_listener(child.port, Some(child.pid as i64));
        drop(child);
        match seen {
            ListenerCheck::Stranger { owner_uid, .. } => assert_eq!(owner_uid, 65534),
            other => panic!("expected a stranger, got {other:?}"),
        }
    }

    /// A child process that drops to `uid`, listens on a free loopback port and waits to be killed.
    #[cfg(target_os = "linux")]
    struct ForeignListener {
        pid: libc::pid_t,
        port: u16,
    }

    #[cfg(target_os = "linux")]
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
                        let mut got_len = len;
                        libc::getsockname(
                            sock,
                            &mut addr as *mut _ as *mut libc::sockaddr,
                            &mut got_len,
                        );
                        port = u16::from_be(addr.sin_port);
                    }
                    libc::write(fds[1], &port as *const u16 as *const libc::c_void, 2);
                    libc::sleep(30);
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

    #[cfg(target_os = "linux")]
    impl Drop for ForeignListener {
        fn drop(&mut self) {
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
        }
    }
}
