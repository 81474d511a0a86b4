//! The network namespaces tests run in. Making and destroying a network namespace is most of
//! what a sandboxed test costs the machine beyond a plain process (the kernel sets up and
//! later tears down, on a worker thread, every protocol's per-namespace state), so tests do
//! not make their own: a small pool of namespaces, each with only its loopback interface up,
//! is made once per run and each test borrows one for its whole life. No two tests ever hold
//! the same namespace at once, and a namespace goes back to the pool only when every process
//! of the test that held it is known to be gone and nothing of the test is left in it
//! ([`left_empty`]).
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

/// The tables of /proc/net that list what a test can leave in its network namespace once its
/// processes are gone: a flow label (`IPV6_FLOWLABEL_MGR`, which lingers up to 150 s after
/// its socket closes, for anyone to see and take) and a Unix socket kept alive by a message in
/// flight that holds it (an abstract name in use; any other socket can be held the same way,
/// through such a Unix socket). Both tables are the namespace's own and cost microseconds.
const LEFT_BEHIND: [&str; 2] = ["ip6_flowlabel", "unix"];

/// Whether the network namespace of the calling thread holds nothing a test left: no socket
/// at all (`sockets: used 0` of /proc/net/sockstat, the namespace's own count of every socket
/// made in it, of any family, a TCP connection still closing included), no TCP socket nor one
/// in TIME-WAIT (`TCP: inuse 0 ... tw 0`, `TCP6: inuse 0`), and none of [`LEFT_BEHIND`]. What
/// a test's supervisor asks once every process of its test is gone, so that only an empty
/// namespace goes back to the pool (a table the kernel does not have counts as empty; one
/// that cannot be read, as not). /proc/net/tcp and tcp6 are not read: each walks the whole
/// machine's TCP hash table, about 4 ms per read on a 24 GB machine, per test.
pub(crate) fn left_empty() -> bool {
    let counts_zero = |table: &str, lines: &[(&str, &[&str])]| match sys::read_text(format!(
        "/proc/thread-self/net/{table}"
    )) {
        Ok(text) => lines
            .iter()
            .all(|(head, keys)| counters_zero(&text, head, keys)),
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    };
    counts_zero(
        "sockstat",
        &[("sockets:", &["used"]), ("TCP:", &["inuse", "tw"])],
    ) && counts_zero("sockstat6", &[("TCP6:", &["inuse"])])
        && LEFT_BEHIND.iter().all(|table| {
            match std::fs::File::open(format!("/proc/thread-self/net/{table}")) {
                Ok(file) => only_header(file),
                Err(e) => e.kind() == io::ErrorKind::NotFound,
            }
        })
}

/// Whether the line of `text` starting with `head` (`TCP: inuse 0 orphan 0 tw 0 ...`) gives 0
/// for every one of `keys`; a missing line or key is not zero.
fn counters_zero(text: &str, head: &str, keys: &[&str]) -> bool {
    let Some(line) = text.lines().find(|l| l.starts_with(head)) else {
        return false;
    };
    let words: Vec<&str> = line[head.len()..].split_whitespace().collect();
    keys.iter().all(|key| {
        words
            .windows(2)
            .any(|pair| pair[0] == *key && pair[1] == "0")
    })
}

/// Whether a /proc/net table has nothing but its header line (read no further than needed).
fn only_header(mut file: std::fs::File) -> bool {
    let mut buf = [0u8; 1024];
    let mut lines = 0;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) => {
                lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
                if lines > 1 {
                    return false;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::counters_zero;

    #[test]
    fn sockstat_counters_are_read_by_name() {
        let idle =
            "sockets: used 0\nTCP: inuse 0 orphan 3 tw 0 alloc 9 mem 376\nUDP: inuse 0 mem 0\n";
        assert!(counters_zero(idle, "sockets:", &["used"]));
        assert!(counters_zero(idle, "TCP:", &["inuse", "tw"]));
        let closing = "sockets: used 1\nTCP: inuse 1 orphan 0 tw 0 alloc 1 mem 1\n";
        assert!(!counters_zero(closing, "sockets:", &["used"]));
        assert!(!counters_zero(closing, "TCP:", &["inuse", "tw"]));
        let waiting = "TCP: inuse 0 orphan 0 tw 2 alloc 1 mem 1\n";
        assert!(!counters_zero(waiting, "TCP:", &["inuse", "tw"]));
        // A line or a key the kernel does not give is not taken for zero.
        assert!(!counters_zero(idle, "TCP6:", &["inuse"]));
        assert!(!counters_zero(idle, "UDP:", &["tw"]));
    }
}
