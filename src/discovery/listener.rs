//! Who is listening on the heartbeat's port? (`connector-contract/README.md`: the Connector has
//! no authentication, so the port number is the only thing that names the Editor.)
//!
//! During a domain reload the Connector closes its listener and the heartbeat keeps the old
//! port; any local user can bind it in that window and receive our retried `/command`, with its
//! arguments and approval token. Before a request goes out, the caller asks
//! [`verify_listener`] whether the socket listening on `127.0.0.1:<port>` belongs to the Editor
//! process that wrote the heartbeat, or at least to a process of our own user.
//!
//! - Linux: the LISTEN sockets that accept `127.0.0.1:<port>`, with their owner uid and inode,
//!   are asked of the kernel over netlink (`NETLINK_SOCK_DIAG`, a LISTEN state filter: the cost
//!   does not grow with the connections each call leaves in TIME_WAIT), or, where that is not
//!   offered, read from `/proc/net/tcp` and `/proc/net/tcp6`; the inode is then looked for
//!   among `/proc/<pid>/fd/*` of the heartbeat's pid (the last socket found is remembered, so
//!   the walk runs once per socket). Cheap enough (tens of microseconds) to run inline before
//!   every request.
//! - macOS: the heartbeat process's descriptors are listed with libproc (`proc_pidinfo`
//!   `PROC_PIDLISTFDS`), and each socket's TCP state, local address and port are read with
//!   `proc_pidfdinfo` `PROC_PIDFDSOCKETINFO`. macOS shows a process only its own user's sockets,
//!   so the answer is "the heartbeat's process listens there" or "it does not (yet)"; the latter
//!   is treated like a port nobody holds: nothing is sent, the call waits as during a reload.
//! - Windows: the system's listener table with owning pids (`GetExtendedTcpTable`,
//!   `TCP_TABLE_OWNER_PID_LISTENER`, IPv4 and IPv6); a listener of any other pid is reported as
//!   unverifiable (the owner's account is not looked up), so only reads go there.
//! - macOS and Windows share the pure decision (`verdict_by_pid`), unit-tested on Linux; their
//!   system calls have not been compiled or run in this repository's CI (Linux only).
//! - Anywhere else there is no check, and the answer says so ([`ListenerCheck::Unverifiable`]).

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

/// Checks the listener on `127.0.0.1:port` against the heartbeat's pid. Blocking, but short (a
/// netlink exchange, or a few `/proc` files); cheap enough to run before every request.
pub fn verify_listener(port: u16, heartbeat_pid: Option<i64>) -> ListenerCheck {
    platform::verify(port, heartbeat_pid)
}

#[cfg(target_os = "linux")]
mod platform {
    use super::*;
    use std::path::Path;
    use std::sync::Mutex;

    pub fn verify(port: u16, heartbeat_pid: Option<i64>) -> ListenerCheck {
        let sockets = match sock_diag::listening(port) {
            Ok(s) => s,
            Err(e) => {
                tracing::debug!(%e, "sock_diag is not available; reading /proc/net/tcp");
                match proc_tables(port) {
                    Some(s) => s,
                    None => {
                        return ListenerCheck::Unverifiable {
                            why: format!("neither sock_diag ({e}) nor /proc/net/tcp can be read"),
                        };
                    }
                }
            }
        };
        // SAFETY: geteuid has no preconditions.
        let our_uid = unsafe { libc::geteuid() };
        verdict(&sockets, our_uid, |inode| {
            heartbeat_pid.and_then(|pid| pid_holds(pid, inode))
        })
    }

    /// The listeners from `/proc/net/tcp{,6}`: where the kernel offers no `sock_diag`.
    pub(super) fn proc_tables(port: u16) -> Option<Vec<ListeningSocket>> {
        let mut sockets = Vec::new();
        let mut read_any = false;
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Bounded: a socket table is a few KiB per hundred sockets; 16 MiB is far beyond any.
            if let Some(text) = read_listening(Path::new(table), 16 << 20) {
                read_any = true;
                sockets.extend(listeners_for(&text, port));
            }
        }
        read_any.then_some(sockets)
    }

    /// The header and the LISTEN rows of a socket table. The kernel prints every listening
    /// socket first (its listening hash), then walks the whole established hash, TIME_WAIT
    /// entries included; reading stops at the first row of that second part, in small reads so
    /// the kernel formats little of it. (A table with no established row, often `tcp6`, is
    /// still walked to its end: that is why `sock_diag` is asked first.)
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

    /// The last socket found among the heartbeat pid's descriptors, as `(pid, inode)`. A
    /// process keeps its listening socket for the whole domain, so every later check of the
    /// same socket skips the walk over its descriptors (thousands in a Unity Editor). A new
    /// socket (a reload, a restart) has a new inode, and another pid is another key, so both
    /// are looked up afresh; only a positive answer is kept.
    static HELD: Mutex<Option<(i64, u64)>> = Mutex::new(None);

    /// Whether `/proc/<pid>/fd` holds the socket; `None` when the descriptors cannot be read.
    fn pid_holds(pid: i64, inode: u64) -> Option<bool> {
        if pid <= 0 {
            return None;
        }
        if *HELD.lock().unwrap_or_else(|p| p.into_inner()) == Some((pid, inode)) {
            return Some(true);
        }
        let want = format!("socket:[{inode}]");
        let dir = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        // Bounded by the process's descriptor table, which the kernel caps.
        for entry in dir.flatten() {
            if std::fs::read_link(entry.path()).is_ok_and(|t| t.as_os_str() == want.as_str()) {
                *HELD.lock().unwrap_or_else(|p| p.into_inner()) = Some((pid, inode));
                return Some(true);
            }
        }
        Some(false)
    }

    /// The kernel's socket diagnostics over netlink (`NETLINK_SOCK_DIAG`): TCP sockets in
    /// LISTEN state only, by a state filter the kernel applies while it walks its listening
    /// hash, so the cost does not grow with established or TIME_WAIT connections (each call
    /// leaves one behind). Layouts from `<linux/inet_diag.h>` and `<linux/netlink.h>`.
    pub(super) mod sock_diag {
        use super::super::{ListeningSocket, accepts_loopback};
        use std::io;
        use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

        const SOCK_DIAG_BY_FAMILY: u16 = 20;
        const TCP_LISTEN: u8 = 10;
        /// Receive buffer; a dump reply arrives in parts of at most about this size.
        const BUF_BYTES: usize = 32 * 1024;
        /// Replies read per family at most (each holds many sockets).
        const MAX_READS: usize = 4096;

        #[repr(C)]
        #[derive(Clone, Copy, Default)]
        struct SockId {
            /// Network order.
            sport: u16,
            dport: u16,
            /// Network order; IPv4 in the first word.
            src: [u32; 4],
            dst: [u32; 4],
            ifindex: u32,
            cookie: [u32; 2],
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct ReqV2 {
            family: u8,
            protocol: u8,
            ext: u8,
            pad: u8,
            states: u32,
            id: SockId,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Request {
            hdr: libc::nlmsghdr,
            req: ReqV2,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct DiagMsg {
            family: u8,
            state: u8,
            timer: u8,
            retrans: u8,
            id: SockId,
            expires: u32,
            rqueue: u32,
            wqueue: u32,
            uid: u32,
            inode: u32,
        }
        const _: () = {
            use std::mem::size_of;
            assert!(size_of::<SockId>() == 48);
            assert!(size_of::<ReqV2>() == 56);
            assert!(size_of::<libc::nlmsghdr>() == 16);
            assert!(size_of::<DiagMsg>() == 72);
        };

        /// The LISTEN sockets, IPv4 and IPv6, that accept a connection to `127.0.0.1:port`.
        pub fn listening(port: u16) -> io::Result<Vec<ListeningSocket>> {
            // SAFETY: plain socket creation; the descriptor is owned right after.
            let raw = unsafe {
                libc::socket(
                    libc::AF_NETLINK,
                    libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                    libc::NETLINK_SOCK_DIAG,
                )
            };
            if raw < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `raw` is a descriptor we just opened and nothing else owns.
            let fd = unsafe { OwnedFd::from_raw_fd(raw) };
            // The kernel answers at once; a bound keeps a broken kernel from hanging a call.
            let timeout = libc::timeval {
                tv_sec: 1,
                tv_usec: 0,
            };
            // SAFETY: a valid option value of the size passed.
            unsafe {
                libc::setsockopt(
                    fd.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_RCVTIMEO,
                    &timeout as *const libc::timeval as *const libc::c_void,
                    std::mem::size_of::<libc::timeval>() as libc::socklen_t,
                )
            };
            let mut out = Vec::new();
            let mut buf = vec![0u64; BUF_BYTES / 8];
            for (seq, family) in [(1u32, libc::AF_INET), (2, libc::AF_INET6)] {
                request(&fd, seq, family as u8)?;
                read_dump(&fd, seq, port, &mut buf, &mut out)?;
            }
            Ok(out)
        }

        fn request(fd: &OwnedFd, seq: u32, family: u8) -> io::Result<()> {
            let req = Request {
                hdr: libc::nlmsghdr {
                    nlmsg_len: std::mem::size_of::<Request>() as u32,
                    nlmsg_type: SOCK_DIAG_BY_FAMILY,
                    nlmsg_flags: (libc::NLM_F_REQUEST | libc::NLM_F_DUMP) as u16,
                    nlmsg_seq: seq,
                    nlmsg_pid: 0,
                },
                req: ReqV2 {
                    family,
                    protocol: libc::IPPROTO_TCP as u8,
                    ext: 0,
                    pad: 0,
                    states: 1 << TCP_LISTEN,
                    id: SockId::default(),
                },
            };
            // SAFETY: all-zero is a valid `sockaddr_nl`; the kernel is pid 0.
            let mut kernel: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
            kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
            // SAFETY: the buffer and the address are valid for the sizes passed.
            let sent = unsafe {
                libc::sendto(
                    fd.as_raw_fd(),
                    &req as *const Request as *const libc::c_void,
                    std::mem::size_of::<Request>(),
                    0,
                    &kernel as *const libc::sockaddr_nl as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
                )
            };
            if sent < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        }

        /// Reads one dump to its end, keeping the sockets on `port` that accept loopback.
        /// Only the kernel's messages (sender pid 0) of this request (`seq`) are read.
        fn read_dump(
            fd: &OwnedFd,
            seq: u32,
            port: u16,
            buf: &mut [u64],
            out: &mut Vec<ListeningSocket>,
        ) -> io::Result<()> {
            let hdr_len = std::mem::size_of::<libc::nlmsghdr>();
            for _ in 0..MAX_READS {
                // SAFETY: all-zero is a valid `sockaddr_nl`.
                let mut from: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
                let mut from_len = std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t;
                // SAFETY: the buffer is writable for its size in bytes; `from` for `from_len`.
                let n = unsafe {
                    libc::recvfrom(
                        fd.as_raw_fd(),
                        buf.as_mut_ptr() as *mut libc::c_void,
                        std::mem::size_of_val(buf),
                        0,
                        &mut from as *mut libc::sockaddr_nl as *mut libc::sockaddr,
                        &mut from_len,
                    )
                };
                if n < 0 {
                    return Err(io::Error::last_os_error());
                }
                if from.nl_pid != 0 {
                    continue;
                }
                // SAFETY: the first `n` bytes were written by the kernel.
                let bytes =
                    unsafe { std::slice::from_raw_parts(buf.as_ptr() as *const u8, n as usize) };
                let mut at = 0;
                while at + hdr_len <= bytes.len() {
                    // SAFETY: a header fits at `at`; read unaligned, never past `bytes`.
                    let hdr: libc::nlmsghdr =
                        unsafe { std::ptr::read_unaligned(bytes[at..].as_ptr().cast()) };
                    let len = hdr.nlmsg_len as usize;
                    if len < hdr_len || at + len > bytes.len() {
                        return Err(io::Error::other("a truncated sock_diag reply"));
                    }
                    let body = &bytes[at + hdr_len..at + len];
                    at += (len + 3) & !3;
                    if hdr.nlmsg_seq != seq {
                        continue;
                    }
                    match hdr.nlmsg_type as libc::c_int {
                        libc::NLMSG_DONE => return Ok(()),
                        libc::NLMSG_ERROR => {
                            let code = body
                                .get(..4)
                                .map_or(0, |b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
                            return Err(if code < 0 {
                                io::Error::from_raw_os_error(-code)
                            } else {
                                io::Error::other("sock_diag refused the request")
                            });
                        }
                        _ if hdr.nlmsg_type == SOCK_DIAG_BY_FAMILY
                            && body.len() >= std::mem::size_of::<DiagMsg>() =>
                        {
                            // SAFETY: a whole message is in `body`; read unaligned.
                            let m: DiagMsg =
                                unsafe { std::ptr::read_unaligned(body.as_ptr().cast()) };
                            out.extend(listener_of(&m, port));
                        }
                        _ => {}
                    }
                }
            }
            Err(io::Error::other("the sock_diag dump did not end"))
        }

        /// The socket of one message, when it listens on `port` and accepts loopback.
        fn listener_of(m: &DiagMsg, port: u16) -> Option<ListeningSocket> {
            if m.state != TCP_LISTEN || u16::from_be(m.id.sport) != port {
                return None;
            }
            let local = match m.family as libc::c_int {
                libc::AF_INET => IpAddr::V4(Ipv4Addr::from(m.id.src[0].to_ne_bytes())),
                libc::AF_INET6 => {
                    let mut b = [0u8; 16];
                    for (i, w) in m.id.src.iter().enumerate() {
                        b[i * 4..i * 4 + 4].copy_from_slice(&w.to_ne_bytes());
                    }
                    IpAddr::V6(Ipv6Addr::from(b))
                }
                _ => return None,
            };
            accepts_loopback(local).then_some(ListeningSocket {
                owner_uid: m.uid,
                inode: u64::from(m.inode),
            })
        }
    }
}

/// macOS: the heartbeat process's own TCP sockets, through libproc. Not compiled in CI (Linux).
#[cfg(target_os = "macos")]
mod platform {
    use super::libproc::{PROC_PIDFDSOCKETINFO, SocketFdinfo, listener_in};
    use super::*;
    use std::ffi::c_void;

    /// A process's descriptor table is listed up to this many entries.
    const MAX_FDS: usize = 65_536;

    pub fn verify(port: u16, heartbeat_pid: Option<i64>) -> ListenerCheck {
        let Some(pid) = heartbeat_pid
            .and_then(|p| libc::c_int::try_from(p).ok())
            .filter(|p| *p > 0)
        else {
            return ListenerCheck::Unverifiable {
                why: "the heartbeat names no process to check".into(),
            };
        };
        match listeners_of(pid) {
            Ok(mine) => verdict_by_pid(&mine, port, Some(i64::from(pid))),
            Err(e) => ListenerCheck::Unverifiable {
                why: format!(
                    "the sockets of the heartbeat's process (pid {pid}) cannot be read: {e}"
                ),
            },
        }
    }

    /// The TCP LISTEN sockets among `pid`'s descriptors.
    fn listeners_of(pid: libc::c_int) -> std::io::Result<Vec<PortListener>> {
        let entry = std::mem::size_of::<libc::proc_fdinfo>();
        // SAFETY: a null buffer asks for the size the table needs.
        let need =
            unsafe { libc::proc_pidinfo(pid, libc::PROC_PIDLISTFDS, 0, std::ptr::null_mut(), 0) };
        if need <= 0 {
            return Err(std::io::Error::last_os_error());
        }
        // Room for descriptors opened since, bounded.
        let count = (need as usize / entry + 16).min(MAX_FDS);
        let blank = libc::proc_fdinfo {
            proc_fd: 0,
            proc_fdtype: 0,
        };
        let mut fds = vec![blank; count];
        // SAFETY: the buffer holds `count` entries and its size in bytes is passed.
        let got = unsafe {
            libc::proc_pidinfo(
                pid,
                libc::PROC_PIDLISTFDS,
                0,
                fds.as_mut_ptr() as *mut c_void,
                (count * entry) as libc::c_int,
            )
        };
        if got <= 0 {
            return Err(std::io::Error::last_os_error());
        }
        fds.truncate((got as usize / entry).min(count));
        let mut out = Vec::new();
        for fd in fds
            .iter()
            .filter(|f| f.proc_fdtype == libc::PROX_FDTYPE_SOCKET as u32)
        {
            // SAFETY: plain data, for which all-zero is a valid value.
            let mut info: SocketFdinfo = unsafe { std::mem::zeroed() };
            let size = std::mem::size_of::<SocketFdinfo>() as libc::c_int;
            // SAFETY: the buffer is exactly the kernel's `struct socket_fdinfo`.
            let n = unsafe {
                libc::proc_pidfdinfo(
                    pid,
                    fd.proc_fd,
                    PROC_PIDFDSOCKETINFO,
                    &mut info as *mut SocketFdinfo as *mut c_void,
                    size,
                )
            };
            // A descriptor closed meanwhile is skipped.
            if n == size {
                out.extend(listener_in(&info, pid as u32));
            }
        }
        Ok(out)
    }
}

/// The layouts of macOS's `<sys/proc_info.h>` up to the fields read, and their decoding. Pure
/// data, so it is compiled in tests on every system: the sizes and offsets below are checked
/// against the C header's at compile time, and the decoding is unit-tested on Linux.
#[cfg(any(target_os = "macos", test))]
#[allow(dead_code)] // Fields that exist only to give the C layout.
mod libproc {
    use super::PortListener;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    /// `proc_pidfdinfo` flavour for a socket (the `libc` crate does not declare it).
    pub const PROC_PIDFDSOCKETINFO: libc::c_int = 3;
    pub const SOCKINFO_TCP: libc::c_int = 2;
    pub const TSI_S_LISTEN: libc::c_int = 1;
    pub const INI_IPV4: u8 = 0x1;
    pub const INI_IPV6: u8 = 0x2;

    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct ProcFileinfo {
        fi_openflags: u32,
        fi_status: u32,
        fi_offset: i64,
        fi_type: i32,
        fi_guardflags: u32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct VinfoStat {
        vst_dev: u32,
        vst_mode: u16,
        vst_nlink: u16,
        vst_ino: u64,
        vst_uid: u32,
        vst_gid: u32,
        /// atime, mtime, ctime and birthtime, each seconds then nanoseconds.
        vst_times: [i64; 8],
        vst_size: i64,
        vst_blocks: i64,
        vst_blksize: i32,
        vst_flags: u32,
        vst_gen: u32,
        vst_rdev: u32,
        vst_qspare: [i64; 2],
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct SockbufInfo {
        sbi_cc: u32,
        sbi_hiwat: u32,
        sbi_mbcnt: u32,
        sbi_mbmax: u32,
        sbi_lowat: u32,
        sbi_flags: i16,
        sbi_timeo: i16,
    }
    /// `union { struct in4in6_addr ina_46; struct in6_addr ina_6; }`: an IPv6 address, or an
    /// IPv4 one in the last four bytes; network order either way.
    #[repr(C, align(4))]
    #[derive(Clone, Copy)]
    pub struct InAddr46 {
        pub bytes: [u8; 16],
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct InSockinfoV6 {
        in6_hlim: u8,
        in6_cksum: libc::c_int,
        in6_ifindex: u16,
        in6_hops: i16,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct InSockinfo {
        pub insi_fport: libc::c_int,
        /// A network-order port in the low 16 bits.
        pub insi_lport: libc::c_int,
        insi_gencnt: u64,
        insi_flags: u32,
        insi_flow: u32,
        pub insi_vflag: u8,
        insi_ip_ttl: u8,
        rfu_1: u32,
        insi_faddr: InAddr46,
        pub insi_laddr: InAddr46,
        insi_v4: u8,
        insi_v6: InSockinfoV6,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct TcpSockinfo {
        pub tcpsi_ini: InSockinfo,
        pub tcpsi_state: libc::c_int,
        tcpsi_timer: [libc::c_int; 4],
        tcpsi_mss: libc::c_int,
        tcpsi_flags: u32,
        rfu_1: u32,
        tcpsi_tp: u64,
    }
    /// `soi_proto`: only the TCP member is read; the largest member (`un_sockinfo`, two
    /// 255-byte addresses after two u64) sets the size, 528 bytes.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub union SoiProto {
        pub pri_tcp: TcpSockinfo,
        largest: [u64; 66],
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct SocketInfo {
        soi_stat: VinfoStat,
        soi_so: u64,
        soi_pcb: u64,
        soi_type: libc::c_int,
        soi_protocol: libc::c_int,
        soi_family: libc::c_int,
        soi_options: i16,
        soi_linger: i16,
        soi_state: i16,
        soi_qlen: i16,
        soi_incqlen: i16,
        soi_qlimit: i16,
        soi_timeo: i16,
        soi_error: u16,
        soi_oobmark: u32,
        soi_rcv: SockbufInfo,
        soi_snd: SockbufInfo,
        pub soi_kind: libc::c_int,
        rfu_1: u32,
        pub soi_proto: SoiProto,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct SocketFdinfo {
        pfi: ProcFileinfo,
        pub psi: SocketInfo,
    }

    // The C header's sizes and offsets (LP64); a mistake above fails the build.
    const _: () = {
        use std::mem::{offset_of, size_of};
        assert!(size_of::<ProcFileinfo>() == 24);
        assert!(size_of::<VinfoStat>() == 136);
        assert!(size_of::<SockbufInfo>() == 24);
        assert!(size_of::<InSockinfo>() == 80);
        assert!(offset_of!(InSockinfo, insi_laddr) == 48);
        assert!(offset_of!(InSockinfo, insi_v6) == 68);
        assert!(size_of::<TcpSockinfo>() == 120);
        assert!(offset_of!(TcpSockinfo, tcpsi_state) == 80);
        assert!(size_of::<SoiProto>() == 528);
        assert!(offset_of!(SocketInfo, soi_rcv) == 184);
        assert!(offset_of!(SocketInfo, soi_kind) == 232);
        assert!(offset_of!(SocketInfo, soi_proto) == 240);
        assert!(size_of::<SocketInfo>() == 768);
        assert!(size_of::<SocketFdinfo>() == 792);
    };

    /// The TCP listener a socket descriptor's info describes, if it is one.
    pub fn listener_in(info: &SocketFdinfo, pid: u32) -> Option<PortListener> {
        if info.psi.soi_kind != SOCKINFO_TCP {
            return None;
        }
        // SAFETY: `soi_kind == SOCKINFO_TCP` says `pri_tcp` is the member the kernel wrote,
        // and every bit pattern is a valid value of its plain integer fields.
        let tcp = unsafe { info.psi.soi_proto.pri_tcp };
        if tcp.tcpsi_state != TSI_S_LISTEN {
            return None;
        }
        let ini = tcp.tcpsi_ini;
        let b = ini.insi_laddr.bytes;
        let local = if ini.insi_vflag & INI_IPV6 != 0 {
            IpAddr::V6(Ipv6Addr::from(b))
        } else if ini.insi_vflag & INI_IPV4 != 0 {
            IpAddr::V4(Ipv4Addr::new(b[12], b[13], b[14], b[15]))
        } else {
            return None;
        };
        Some(PortListener {
            local,
            port: u16::from_be(ini.insi_lport as u16),
            pid,
        })
    }
}

/// Windows: the system's TCP listener table with owning pids. Not compiled in CI (Linux).
#[cfg(windows)]
mod platform {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    use windows_sys::Win32::Foundation::{ERROR_INSUFFICIENT_BUFFER, NO_ERROR};
    use windows_sys::Win32::NetworkManagement::IpHelper::{
        GetExtendedTcpTable, MIB_TCP6ROW_OWNER_PID, MIB_TCP6TABLE_OWNER_PID, MIB_TCPROW_OWNER_PID,
        MIB_TCPTABLE_OWNER_PID, TCP_TABLE_OWNER_PID_LISTENER,
    };
    use windows_sys::Win32::Networking::WinSock::{AF_INET, AF_INET6};

    pub fn verify(port: u16, heartbeat_pid: Option<i64>) -> ListenerCheck {
        let mut rows = Vec::new();
        for family in [AF_INET, AF_INET6] {
            match table(family as u32) {
                Ok(bytes) => rows.extend(rows_of(&bytes, family == AF_INET6)),
                Err(code) => {
                    return ListenerCheck::Unverifiable {
                        why: format!("the TCP listener table cannot be read (error {code})"),
                    };
                }
            }
        }
        verdict_by_pid(&rows, port, heartbeat_pid)
    }

    /// One `GetExtendedTcpTable` snapshot as raw bytes (`u64`-aligned), retried while the table
    /// grows between the size query and the read, a bounded number of times.
    fn table(family: u32) -> Result<Vec<u64>, u32> {
        let mut size: u32 = 0;
        // SAFETY: a null table with size 0 asks for the size needed.
        let mut rc = unsafe {
            GetExtendedTcpTable(
                std::ptr::null_mut(),
                &mut size,
                0,
                family,
                TCP_TABLE_OWNER_PID_LISTENER,
                0,
            )
        };
        for _ in 0..4 {
            if rc != ERROR_INSUFFICIENT_BUFFER {
                break;
            }
            let mut buf = vec![0u64; (size as usize).div_ceil(8) + 64];
            size = (buf.len() * 8) as u32;
            // SAFETY: `buf` is `size` bytes, aligned for the table's u32 fields.
            rc = unsafe {
                GetExtendedTcpTable(
                    buf.as_mut_ptr().cast(),
                    &mut size,
                    0,
                    family,
                    TCP_TABLE_OWNER_PID_LISTENER,
                    0,
                )
            };
            if rc == NO_ERROR {
                buf.truncate((size as usize).div_ceil(8).min(buf.len()));
                return Ok(buf);
            }
        }
        if rc == NO_ERROR {
            Ok(Vec::new())
        } else {
            Err(rc)
        }
    }

    /// The rows of one table, never reading past the bytes the call filled.
    fn rows_of(buf: &[u64], v6: bool) -> Vec<PortListener> {
        let bytes = std::mem::size_of_val(buf);
        if bytes < 4 {
            return Vec::new();
        }
        // SAFETY: `buf` holds at least the 4-byte entry count, and is u64-aligned.
        let n = unsafe { *(buf.as_ptr() as *const u32) } as usize;
        let mut out = Vec::new();
        if v6 {
            let start = std::mem::offset_of!(MIB_TCP6TABLE_OWNER_PID, table);
            let row = std::mem::size_of::<MIB_TCP6ROW_OWNER_PID>();
            let n = n.min(bytes.saturating_sub(start) / row);
            // SAFETY: `n` rows fit in `buf` after `start`, which is aligned for them.
            let rows = unsafe {
                std::slice::from_raw_parts(
                    (buf.as_ptr() as *const u8).add(start) as *const MIB_TCP6ROW_OWNER_PID,
                    n,
                )
            };
            for r in rows {
                out.push(PortListener {
                    local: IpAddr::V6(Ipv6Addr::from(r.ucLocalAddr)),
                    port: u16::from_be(r.dwLocalPort as u16),
                    pid: r.dwOwningPid,
                });
            }
        } else {
            let start = std::mem::offset_of!(MIB_TCPTABLE_OWNER_PID, table);
            let row = std::mem::size_of::<MIB_TCPROW_OWNER_PID>();
            let n = n.min(bytes.saturating_sub(start) / row);
            // SAFETY: as above.
            let rows = unsafe {
                std::slice::from_raw_parts(
                    (buf.as_ptr() as *const u8).add(start) as *const MIB_TCPROW_OWNER_PID,
                    n,
                )
            };
            for r in rows {
                out.push(PortListener {
                    // The address is in network order: its bytes in memory are the octets.
                    local: IpAddr::V4(Ipv4Addr::from(r.dwLocalAddr.to_ne_bytes())),
                    port: u16::from_be(r.dwLocalPort as u16),
                    pid: r.dwOwningPid,
                });
            }
        }
        out
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod platform {
    use super::*;

    pub fn verify(_port: u16, _heartbeat_pid: Option<i64>) -> ListenerCheck {
        ListenerCheck::Unverifiable {
            why: format!(
                "listener ownership is checked on Linux, macOS and Windows only; on {} the port is \
                 trusted as the heartbeat names it",
                std::env::consts::OS
            ),
        }
    }
}

#[cfg(any(target_os = "macos", windows, test))]
/// A TCP socket in LISTEN state with the process that holds it, as macOS (one process's
/// descriptors) and Windows (the system's listener table) report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortListener {
    pub local: std::net::IpAddr,
    pub port: u16,
    pub pid: u32,
}

#[cfg(any(target_os = "linux", target_os = "macos", windows, test))]
/// Whether a socket bound to `addr` accepts a connection to `127.0.0.1`: bound to it, to any
/// IPv4 address, to its IPv4-mapped form, or to any IPv6 address (a dual-stack socket).
pub fn accepts_loopback(addr: std::net::IpAddr) -> bool {
    use std::net::{IpAddr, Ipv4Addr};
    match addr {
        IpAddr::V4(a) => a == Ipv4Addr::LOCALHOST || a.is_unspecified(),
        IpAddr::V6(a) => a.is_unspecified() || a == Ipv4Addr::LOCALHOST.to_ipv6_mapped(),
    }
}

#[cfg(any(target_os = "macos", windows, test))]
/// The decision from listeners with pids (macOS, Windows): every listener that would accept
/// our connection to `127.0.0.1:port` must be held by the heartbeat's pid. One held by another
/// process cannot be called ours or a stranger's without its account, so it is unverifiable
/// (reads only); none at all is `NotListening` (on macOS: the heartbeat's process holds none).
pub fn verdict_by_pid(
    listeners: &[PortListener],
    port: u16,
    heartbeat_pid: Option<i64>,
) -> ListenerCheck {
    let mut reaching = listeners
        .iter()
        .filter(|l| l.port == port && accepts_loopback(l.local))
        .peekable();
    if reaching.peek().is_none() {
        return ListenerCheck::NotListening;
    }
    match reaching.find(|l| heartbeat_pid != Some(i64::from(l.pid))) {
        None => ListenerCheck::Verified {
            how: VerifiedBy::HeartbeatPid,
        },
        Some(other) => ListenerCheck::Unverifiable {
            why: match heartbeat_pid {
                Some(hb) => format!(
                    "it is held by process {}, not by the Editor that wrote the heartbeat (pid {hb})",
                    other.pid
                ),
                None => format!(
                    "it is held by process {} and the heartbeat names no process",
                    other.pid
                ),
            },
        },
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

    #[test]
    fn listeners_with_pids_are_matched_to_the_heartbeat_pid() {
        use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
        let at = |ip: IpAddr, port: u16, pid: u32| PortListener {
            local: ip,
            port,
            pid,
        };
        let lo = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let any4 = IpAddr::V4(Ipv4Addr::UNSPECIFIED);
        let any6 = IpAddr::V6(Ipv6Addr::UNSPECIFIED);
        let mapped = IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped());
        let other = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
        assert!(accepts_loopback(lo) && accepts_loopback(any4));
        assert!(accepts_loopback(any6) && accepts_loopback(mapped));
        assert!(!accepts_loopback(other));
        assert!(!accepts_loopback(IpAddr::V6(Ipv6Addr::LOCALHOST)));

        let verified = ListenerCheck::Verified {
            how: VerifiedBy::HeartbeatPid,
        };
        // The Editor's listener, beside sockets on other ports and addresses.
        let table = [at(lo, 8090, 4242), at(lo, 8091, 77), at(other, 8090, 77)];
        assert_eq!(verdict_by_pid(&table, 8090, Some(4242)), verified);
        assert_eq!(
            verdict_by_pid(&table, 8092, Some(4242)),
            ListenerCheck::NotListening
        );
        assert_eq!(
            verdict_by_pid(&[], 8090, Some(4242)),
            ListenerCheck::NotListening
        );
        // Another process on a wildcard or dual-stack bind also reaches 127.0.0.1:8090.
        for squat in [any4, any6, mapped] {
            let seen = verdict_by_pid(&[table[0], at(squat, 8090, 77)], 8090, Some(4242));
            match seen {
                ListenerCheck::Unverifiable { why } => {
                    assert!(
                        why.contains("process 77") && why.contains("pid 4242"),
                        "{why}"
                    )
                }
                other => panic!("{squat}: expected unverifiable, got {other:?}"),
            }
        }
        // Only another process holds the port, or the heartbeat names none.
        assert!(matches!(
            verdict_by_pid(&table, 8091, Some(4242)),
            ListenerCheck::Unverifiable { .. }
        ));
        assert!(matches!(
            verdict_by_pid(&table, 8090, None),
            ListenerCheck::Unverifiable { .. }
        ));
        // The Editor bound both stacks: still verified.
        assert_eq!(
            verdict_by_pid(&[at(lo, 8090, 9), at(any6, 8090, 9)], 8090, Some(9)),
            verified
        );
    }

    /// The macOS decoding on a `socket_fdinfo` laid out as the kernel writes it.
    #[test]
    fn a_macos_socket_fdinfo_is_decoded_to_its_listener() {
        use super::libproc::*;
        use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
        // SAFETY: plain data; all-zero is valid.
        let mut info: SocketFdinfo = unsafe { std::mem::zeroed() };
        assert_eq!(listener_in(&info, 7), None, "not a TCP socket");
        info.psi.soi_kind = SOCKINFO_TCP;
        let mut tcp = unsafe { info.psi.soi_proto.pri_tcp };
        tcp.tcpsi_state = TSI_S_LISTEN;
        tcp.tcpsi_ini.insi_vflag = INI_IPV4;
        tcp.tcpsi_ini.insi_lport = i32::from(8090u16.to_be());
        tcp.tcpsi_ini.insi_laddr.bytes[12..].copy_from_slice(&[127, 0, 0, 1]);
        info.psi.soi_proto.pri_tcp = tcp;
        assert_eq!(
            listener_in(&info, 7),
            Some(PortListener {
                local: IpAddr::V4(Ipv4Addr::LOCALHOST),
                port: 8090,
                pid: 7
            })
        );
        tcp.tcpsi_ini.insi_vflag = INI_IPV4 | INI_IPV6;
        tcp.tcpsi_ini.insi_laddr.bytes = [0; 16];
        info.psi.soi_proto.pri_tcp = tcp;
        assert_eq!(
            listener_in(&info, 7).map(|l| l.local),
            Some(IpAddr::V6(Ipv6Addr::UNSPECIFIED))
        );
        tcp.tcpsi_state = TSI_S_LISTEN + 3; // established
        info.psi.soi_proto.pri_tcp = tcp;
        assert_eq!(listener_in(&info, 7), None, "not listening");
    }

    /// The kernel's own listener list (netlink) and the `/proc` tables name the same sockets.
    #[cfg(target_os = "linux")]
    #[test]
    fn sock_diag_and_proc_agree_on_our_listeners() {
        let v4 = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port4 = v4.local_addr().unwrap().port();
        let mut ports = vec![port4];
        // A dual-stack bind also accepts 127.0.0.1 (skipped where IPv6 is off).
        let v6 = std::net::TcpListener::bind("[::]:0").ok();
        if let Some(l) = &v6 {
            ports.push(l.local_addr().unwrap().port());
        }
        for port in ports {
            let diag = platform::sock_diag::listening(port).expect("sock_diag answers");
            let proc = platform::proc_tables(port).expect("/proc/net/tcp is readable");
            assert_eq!(diag.len(), 1, "port {port}: {diag:?}");
            assert_eq!(diag, proc, "port {port}");
            assert_eq!(diag[0].owner_uid, unsafe { libc::geteuid() });
        }
        // A port nobody listens on (ours, closed) has no listener in either.
        drop(v4);
        assert!(platform::sock_diag::listening(port4).unwrap().is_empty());
        assert!(platform::proc_tables(port4).unwrap().is_empty());
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
