//! The network namespaces tests run in. Making and destroying a network namespace is most of
//! what a sandboxed test costs the machine beyond a plain process (the kernel sets up and
//! later tears down, on a worker thread, every protocol's per-namespace state), so tests do
//! not make their own: a small pool of namespaces, each with only its loopback interface up,
//! is made once per run and each test borrows one for its whole life. No two tests ever hold
//! the same namespace at once, and a namespace goes back to the pool only when every process
//! of the test that held it is known to be gone and nothing of the test is left in it
//! ([`super::net_left::left_empty`]).
//!
//! Each namespace belongs to a user namespace of its own (the pool's), made by a helper
//! process (`harness __sandbox net`) that maps the harness's user to root there, brings
//! loopback up, turns off what the kernel keeps of closed connections ([`forget_between_tests`]),
//! makes the mount namespace tests are made from ([`own_etc`]) and exits; the harness keeps
//! the three namespaces open by descriptor. A test's supervisor joins them before it makes
//! the test's user namespace, which is then a child of the pool's (a root harness joins the
//! network and mount namespaces only: its test's user namespace is a child of the host's, so
//! that it may map the player to an unprivileged id of its own). A player therefore has no
//! capability over the network namespace it is in: it cannot configure it, and nothing it
//! does leaves state in it but what dies with its sockets, and the namespace's counters
//! (packets and bytes per protocol and on the loopback), which it can move but not reset.
//!
//! This module may start the helper process and open namespace descriptors; nothing else.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;

use super::sys;

/// A borrowed network namespace with the user namespace that owns it, and the mount
/// namespace the tests that borrow it are made from (see [`own_etc`]), where it could be made.
#[derive(Debug)]
pub(crate) struct NetNs {
    pub user: OwnedFd,
    pub net: OwnedFd,
    pub mnt: Option<OwnedFd>,
    /// The players' views kept in this namespace ([`super::kept_view`]).
    pub kept: super::kept_view::Kept,
}

static POOL: Mutex<Vec<NetNs>> = Mutex::new(Vec::new());

/// A namespace for one test: a free one from the pool, else a new one.
pub(crate) fn take() -> io::Result<NetNs> {
    let free = POOL.lock().unwrap_or_else(|e| e.into_inner()).pop();
    match free {
        Some(ns) => Ok(ns),
        None => make(),
    }
}

/// The CPU time (µs) used so far by the kept inits of the namespaces in the pool (and the
/// players they reaped): for the bench's attribution, between tests.
#[cfg(feature = "attribution")]
pub(crate) fn kept_inits_cpu_us() -> u64 {
    let pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    pool.iter().map(|ns| ns.kept.inits_cpu_us()).sum()
}

/// Hands a namespace back once every process of the test that held it is gone.
pub(crate) fn give_back(ns: NetNs) {
    POOL.lock().unwrap_or_else(|e| e.into_inner()).push(ns);
}

/// Makes a namespace: starts the helper, opens its two namespaces, lets it go.
fn make() -> io::Result<NetNs> {
    let (in_r, in_w) = sys::pipe()?;
    let (out_r, out_w) = sys::pipe()?;
    let pid = super::spawn_self(
        &[in_r.as_raw_fd(), out_w.as_raw_fd()],
        &[c"harness", c"__sandbox", c"net"],
    )?;
    drop((in_r, out_w));
    let mut ready = [0u8; 1];
    let opened = match std::fs::File::from(out_r).read_exact(&mut ready) {
        Ok(()) if ready[0] == b'!' => open_namespaces(pid, true),
        Ok(()) if ready[0] == b'?' => open_namespaces(pid, false),
        Ok(()) => Err(io::Error::other("the helper answered something else")),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            Err(io::Error::other("the helper ended without making them"))
        }
        Err(e) => Err(e),
    };
    drop(in_w);
    let _ = sys::wait(pid, true);
    opened.map_err(|e| io::Error::new(e.kind(), format!("the tests' network namespace: {e}")))
}

fn open_namespaces(pid: libc::pid_t, with_mnt: bool) -> io::Result<NetNs> {
    let open = |what: &str| -> io::Result<OwnedFd> {
        Ok(std::fs::File::open(format!("/proc/{pid}/ns/{what}"))?.into())
    };
    Ok(NetNs {
        user: open("user")?,
        net: open("net")?,
        mnt: if with_mnt { Some(open("mnt")?) } else { None },
        kept: Default::default(),
    })
}

/// The helper (`harness __sandbox net`): descriptor 0 is read to its end before it exits, 1
/// gets one `!` once the namespaces are ready (`?` when all but the mount namespace are).
/// Never returns.
pub(crate) fn helper_main() -> ! {
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let made = make_here();
    let ok = made.is_ok();
    let answer: &[u8] = if made.is_ok_and(|()| own_etc().is_ok()) {
        b"!"
    } else {
        b"?"
    };
    // SAFETY: descriptors 0 and 1 are ours by the contract above.
    let (mut input, mut output) =
        unsafe { (std::fs::File::from_raw_fd(0), std::fs::File::from_raw_fd(1)) };
    if ok && output.write_all(answer).is_ok() {
        drop(output);
        let _ = io::copy(&mut input, &mut io::sink());
    }
    std::process::exit(if ok { 0 } else { 1 })
}

/// Moves the calling (single-threaded) process into a new user namespace, where the caller's
/// user is root, and a new network namespace with loopback up.
fn make_here() -> io::Result<()> {
    let uid = rustix::process::geteuid().as_raw();
    let gid = rustix::process::getegid().as_raw();
    sys::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET | libc::CLONE_NEWNS)?;
    // Even root has no capability outside a namespace it made: mapping its own group
    // requires `setgroups` denied (inherited by every test's user namespace; a root harness's
    // supervisor drops the supplementary groups before it joins, see `supervisor`).
    sys::write_file("/proc/self/setgroups", "deny")?;
    sys::write_file("/proc/self/uid_map", &format!("0 {uid} 1\n"))?;
    sys::write_file("/proc/self/gid_map", &format!("0 {gid} 1\n"))?;
    sys::loopback_up()?;
    forget_between_tests()
}

/// What the kernel would otherwise keep of one test's connections for the next test in the
/// same namespace, turned off (these knobs are the namespace's own: /proc/sys/net is the
/// caller's network namespace's):
/// - `tcp_no_metrics_save`: no TCP metrics (RTT, window, MSS per peer address, `ip
///   tcp_metrics`) saved when a connection closes;
/// - `tcp_fastopen` 0: no Fast Open, whose client cache (cookie and MSS per peer) is saved
///   in the same table whatever the knob above says;
/// - `tcp_max_tw_buckets` 0: a closed connection leaves no TIME_WAIT socket (whose ports a
///   later test would read in /proc/net/tcp).
fn forget_between_tests() -> io::Result<()> {
    for (knob, value) in [
        ("tcp_no_metrics_save", "1"),
        ("tcp_fastopen", "0"),
        ("tcp_max_tw_buckets", "0"),
    ] {
        sys::write_file(&format!("/proc/sys/net/ipv4/{knob}"), value)?;
    }
    Ok(())
}

/// Makes the helper's mount namespace the one the tests are made from: the host's mounts, but
/// /etc a tmpfs holding the copy every test shows (`view::prepare_etc`), read-only. A test's
/// view binds it from there, so its mountinfo shows `/` of a tmpfs at /etc instead of the
/// path of a run folder on the host.
fn own_etc() -> io::Result<()> {
    let slash = std::path::Path::new("/");
    let etc = std::path::Path::new("/etc");
    sys::mount(None, slash, None, libc::MS_REC | libc::MS_PRIVATE, None)?;
    // The host's /etc, still read through this descriptor once it is covered.
    let host = std::fs::File::open(etc)?;
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    sys::mount(
        Some(std::path::Path::new("tmpfs")),
        etc,
        Some("tmpfs"),
        flags,
        Some("size=16m,mode=755"),
    )?;
    let seen = std::path::PathBuf::from(format!("/proc/self/fd/{}", host.as_raw_fd()));
    super::view::prepare_etc_from(&seen, etc)?;
    sys::mount(
        None,
        etc,
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | flags,
        None,
    )
}

/// Enters the mount namespace of a pooled namespace ([`own_etc`]); false when the descriptor
/// is not there (the pool's helper could not make it) or the namespace cannot be entered.
pub(crate) fn join_mount(mnt: RawFd) -> bool {
    sys::set_ns(mnt, libc::CLONE_NEWNS).is_ok()
}

impl NetNs {
    /// The descriptors, user, network, then mount (when there is one), for handing to a
    /// supervisor.
    pub(crate) fn fds(&self) -> Vec<RawFd> {
        let mut fds = vec![self.user.as_raw_fd(), self.net.as_raw_fd()];
        fds.extend(self.mnt.as_ref().map(|m| m.as_raw_fd()));
        fds
    }
}
