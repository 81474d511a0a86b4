//! A player's view kept from test to test: the part of the file system view that is the same
//! for every test of a player (the tmpfs root, the system folders, /etc, /dev, the player's
//! own files, all read-only) is built once per pooled network namespace and player, in a user
//! and a mount namespace the harness keeps open by descriptor ([`KeptView`], held with the
//! pooled namespace it was made from: [`Kept`]). Each test's init then starts
//! from a copy of that mount namespace and adds only what is the test's own
//! ([`super::view::finish_shared`]): its box, its /proc with its masks, its host name. It
//! still gets fresh PID, mount, IPC, UTS and cgroup namespaces and, once its own mounts are
//! made, a fresh user namespace (a child of the kept one), so that nothing a player can
//! change outlives its test: the kept parts are read-only mounts it has no capability over.
//!
//! The steps, with who does them:
//! - the harness, at a test of a player it has no kept view for in the borrowed namespace:
//!   starts a helper (`harness-sandbox __sandbox view`), which joins the pool's namespaces
//!   as a test's supervisor would, forks a holder in fresh user, mount and PID namespaces
//!   (the ids mapped as a test's), which builds the shared view ([`super::view::build_shared`])
//!   and waits; the harness opens the holder's user and mount namespaces, then lets both go;
//! - the test's supervisor joins the pool's namespaces, then the kept user namespace, and
//!   forks the test's init in fresh PID, IPC, UTS and cgroup namespaces ([`join`]);
//! - the init joins the kept mount namespace, takes a private copy of it, adds the test's own
//!   parts, enters a fresh user namespace, and waits until the supervisor has mapped its ids
//!   ([`init`], [`map_test_ids`]).
//!
//! A spec the kept view cannot serve (a build's or a contest tool's writable folders, no
//! pooled network namespace, a player's file where a test's own mount would cover it) is
//! built whole in each test, as before ([`key`]).
//!
//! May start the helper, make namespaces and mounts (in the helper's holder and the test's
//! init), and open namespace descriptors.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;

use super::spec::{Mode, Spec, StartError};
use super::{attribution, sys, view};

/// Most kept views a pooled namespace holds (the oldest goes first).
const MOST: usize = 8;

/// The supervisor's descriptors of a test with a kept view: the pool's user and network
/// namespaces (5, 6), the kept mount namespace (7), the kept user namespace (8).
pub(super) const KEPT_MNT: RawFd = 7;
const KEPT_USER: RawFd = 8;

/// A player's kept view.
#[derive(Debug)]
pub(crate) struct KeptView {
    key: String,
    held: Held,
}

/// What the harness holds of a kept view: where its holder stays as the player's kept init
/// ([`super::kept_init`]), that init (whose namespaces it never opens: the init is not
/// dumpable, which a harness without `CAP_SYS_PTRACE` could then no longer open them for);
/// else the user namespace it was made in and its mount namespace.
#[derive(Debug)]
enum Held {
    Init(KeptInit),
    View { user: OwnedFd, mnt: OwnedFd },
}

impl KeptView {
    fn init(&self) -> Option<&KeptInit> {
        match &self.held {
            Held::Init(init) => Some(init),
            Held::View { .. } => None,
        }
    }
}

/// A kept init: the socket its tests are handed over on, and the helper it is the child of,
/// whose input (`lifetime`) the harness holds: closed, the helper and the init end.
#[derive(Debug)]
struct KeptInit {
    socket: OwnedFd,
    /// Held for its end of file alone.
    _lifetime: std::fs::File,
    helper: libc::pid_t,
    /// The init's pid on the host (read by the attribution build only).
    #[cfg_attr(not(feature = "attribution"), allow(dead_code))]
    holder: libc::pid_t,
}

impl KeptInit {
    /// Whether the init is still there: it never writes to the harness's end of the socket,
    /// which reads (end of file) once the init's end is closed.
    fn alive(&self) -> bool {
        sys::poll_read(&[self.socket.as_raw_fd()], 0) == 0
    }
}

impl Drop for KeptInit {
    fn drop(&mut self) {
        // The init ends at the end of file of `lifetime` (or the socket's), then its helper.
        let _ = rustix::net::shutdown(&self.socket, rustix::net::Shutdown::Both);
        super::reap_later(self.helper);
    }
}

/// How a test is served by a kept view ([`Kept::find_or_make`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Served {
    /// By its kept init: the socket to it, and its helper's pid (the init dies with it).
    Init(RawFd, libc::pid_t),
    /// By an init of the test's own, from its mount and user namespaces.
    View(RawFd, RawFd),
}

/// The views a pooled namespace keeps, and those it could not make (not tried again).
#[derive(Debug, Default)]
pub(crate) struct Kept {
    views: Vec<KeptView>,
    failed: Vec<String>,
}

/// Why the last kept view that could not be made was not (for the run's notes).
static WHY_NOT: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Why a kept view could not be made, if one could not: its tests build their whole view.
pub(crate) fn why_not_kept() -> Option<String> {
    WHY_NOT.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// What makes two specs' views the same, when a kept view can serve `spec`: the files the
/// player sees (each bind by path, file, size and time, so that a program rebuilt since is
/// shown anew), /etc, the ids, and the attribution build's part left out.
pub(crate) fn key(spec: &Spec) -> Option<String> {
    let servable = spec.mode == Mode::Namespaces
        && spec.shared_net
        && spec.writable_binds.is_empty()
        && spec.overlay.is_none()
        && view::shareable(spec)
        && !attribution::env().is_some_and(|e| e.to_bytes().ends_with(b"=view"));
    if !servable {
        return None;
    }
    let mut key = format!(
        "{}|{}|{:?}|{}:{}|{:?}|",
        spec.cgroups.is_some(),
        spec.etc.display(),
        spec.player_ids,
        spec.outer_uid,
        spec.outer_gid,
        attribution::env()
    );
    for bind in &spec.binds {
        let meta = std::fs::metadata(&bind.path).ok()?;
        key.push_str(&format!(
            "{}:{}:{}:{}:{}.{}|",
            bind.path.display(),
            meta.dev(),
            meta.ino(),
            meta.size(),
            meta.mtime(),
            meta.mtime_nsec()
        ));
    }
    Some(key)
}

impl Kept {
    #[cfg(feature = "attribution")]
    /// The CPU time (µs) its kept inits have used so far, with that of the players they
    /// reaped (for the bench's attribution: none of it is the harness's children's).
    pub(crate) fn inits_cpu_us(&self) -> u64 {
        let holders: Vec<libc::pid_t> = self
            .views
            .iter()
            .filter_map(|v| Some(v.init()?.holder))
            .collect();
        super::tree_cpu::cpu_us_of(&holders)
    }

    /// Drops the views whose kept init has ended (killed by anyone): made again when needed.
    fn drop_ended(&mut self) {
        self.views.retain(|v| v.init().is_none_or(KeptInit::alive));
    }

    /// The kept view of `key` (for `spec`), made now from the pooled namespaces `pool` (their
    /// user, network and, where there is one, mount namespace) if there is none: its kept
    /// init's socket, else its mount and user namespaces. `None` where one cannot be made (the
    /// test then builds its whole view).
    pub(crate) fn find_or_make(
        &mut self,
        pool: &[RawFd],
        spec: &Spec,
        key: &str,
    ) -> Option<Served> {
        if self.failed.iter().any(|k| k == key) {
            return None;
        }
        self.drop_ended();
        if !self.views.iter().any(|v| v.key == key) {
            match make(pool, spec, key) {
                Ok(view) => {
                    if self.views.len() >= MOST {
                        self.views.remove(0);
                    }
                    self.views.push(view);
                }
                Err(e) => {
                    *WHY_NOT.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
                    self.failed.push(key.to_string());
                    return None;
                }
            }
        }
        let view = self.views.iter().find(|v| v.key == key)?;
        Some(match &view.held {
            Held::Init(init) => Served::Init(init.socket.as_raw_fd(), init.helper),
            Held::View { user, mnt } => Served::View(mnt.as_raw_fd(), user.as_raw_fd()),
        })
    }
}

/// Makes the kept view of `spec` from the pooled namespaces `pool`: starts the helper, hands
/// it the spec, opens its holder's namespaces, lets both go.
fn make(pool: &[RawFd], spec: &Spec, key: &str) -> io::Result<KeptView> {
    let (in_r, in_w) = sys::pipe()?;
    let (out_r, out_w) = sys::pipe()?;
    let (socket, init_end) = rustix::net::socketpair(
        rustix::net::AddressFamily::UNIX,
        rustix::net::SocketType::SEQPACKET,
        rustix::net::SocketFlags::CLOEXEC,
        None,
    )?;
    let mut fds = vec![in_r.as_raw_fd(), out_w.as_raw_fd(), init_end.as_raw_fd()];
    fds.extend(pool);
    let pid = super::spawn_self(&fds, &[c"harness", c"__sandbox", c"view"])?;
    drop((in_r, out_w, init_end));
    let mut input = std::fs::File::from(in_w);
    let opened = (|| {
        let mut line = serde_json::to_vec(spec).map_err(io::Error::other)?;
        line.push(b'\n');
        input.write_all(&line)?;
        let answer = String::from_utf8_lossy(&sys::read_line(&out_r)?).into_owned();
        let (holder, init) = answer.trim().split_once(' ').unwrap_or((answer.trim(), ""));
        let holder: libc::pid_t = match holder.parse() {
            Ok(pid) => pid,
            Err(_) => return Err(io::Error::other(format!("the view's helper: {answer}"))),
        };
        if init == "k" {
            return Ok((holder, None));
        }
        let open = |what: &str| -> io::Result<OwnedFd> {
            Ok(std::fs::File::open(format!("/proc/{holder}/ns/{what}"))?.into())
        };
        Ok((holder, Some((open("user")?, open("mnt")?))))
    })();
    // Where the holder does not stay, the end of file of `input` ends it and the helper.
    let let_go = |input: std::fs::File, socket: OwnedFd| {
        drop((input, socket));
        let _ = sys::wait(pid, true);
    };
    let held = match opened {
        Ok((holder, None)) => Held::Init(KeptInit {
            socket,
            _lifetime: input,
            helper: pid,
            holder,
        }),
        Ok((_, Some((user, mnt)))) => {
            let_go(input, socket);
            Held::View { user, mnt }
        }
        Err(e) => {
            let_go(input, socket);
            return Err(e);
        }
    };
    Ok(KeptView {
        key: key.to_string(),
        held,
    })
}

/// The helper (`harness __sandbox view`): descriptor 0 gives the spec (one JSON line), then
/// end of file when the harness has what it needs, or, where the holder stays as a kept
/// init, no longer needs it; 1 gets the holder's pid (followed by ` k` when it stays), or `?`
/// and why not; 2 is the kept init's socket; 3, 4 and 5 are the pooled user, network and
/// (where there is one) mount namespaces. Never returns.
pub(crate) fn helper_main() -> ! {
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    // SAFETY: descriptors 0 and 1 are ours by the contract above.
    let (input, mut output) = unsafe { (OwnedFd::from_raw_fd(0), std::fs::File::from_raw_fd(1)) };
    let held = sys::read_line(&input)
        .and_then(|line| serde_json::from_slice(&line).map_err(io::Error::other))
        .and_then(|spec| hold(&spec));
    let answer = match &held {
        Ok((pid, true)) => format!("{pid} k\n"),
        Ok((pid, false)) => format!("{pid}\n"),
        Err(e) => format!("?{e}\n"),
    };
    if matches!(held, Ok((_, true))) {
        // A kept init outlives the harness thread that made it (the death signal is the
        // thread's): it ends with the harness's pipe, `input`, whoever holds the view then.
        let _ = rustix::process::set_parent_process_death_signal(None);
    }
    let _ = output.write_all(answer.as_bytes());
    drop(output);
    wait_for_end(input);
    if let Ok((pid, _)) = held {
        let _ = sys::wait(pid, true);
    }
    std::process::exit(0)
}

/// Reads `input` to its end.
fn wait_for_end(input: OwnedFd) {
    let _ = io::copy(&mut std::fs::File::from(input), &mut io::sink());
}

/// In the helper: joins the pool's namespaces as a test's supervisor does, forks the holder
/// in fresh user, mount and PID namespaces, maps its ids as a test's, and returns its pid
/// once its view is built, with whether it stays as a kept init.
fn hold(spec: &Spec) -> io::Result<(libc::pid_t, bool)> {
    let user = spec.player_ids.is_none().then_some(3);
    sys::join_net(user, 4)?;
    let own_etc = sys::set_ns(5, libc::CLONE_NEWNS).is_ok();
    let spec = Spec {
        etc: if own_etc {
            "/etc".into()
        } else {
            spec.etc.clone()
        },
        ..spec.clone()
    };
    let (ready_r, ready_w) = sys::pipe()?;
    let (go_r, go_w) = sys::pipe()?;
    let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    let pid = sys::fork_with(flags)?;
    if pid == 0 {
        drop((ready_r, go_w));
        holder(&spec, go_r, ready_w);
    }
    drop((ready_w, go_r));
    // The kept init's socket is the holder's alone.
    sys::close_numbered(&[2]);
    let mapped = super::ids::write_id_maps(pid, &spec);
    let _ = std::fs::File::from(go_w).write_all(if mapped.is_ok() { b"!" } else { b"?" });
    let mut answer = String::new();
    let _ = std::fs::File::from(ready_r).read_to_string(&mut answer);
    match (mapped, answer.strip_prefix('!')) {
        (Ok(()), Some(init)) => Ok((pid, init == "k")),
        (mapped, _) => {
            sys::kill(pid, libc::SIGKILL);
            let _ = sys::wait(pid, true);
            mapped?;
            Err(io::Error::other(answer.trim_start_matches('?').to_string()))
        }
    }
}

/// The holder: once its ids are mapped, builds the shared view, says so, and keeps its
/// namespaces alive until the harness has opened them (end of file on descriptor 0); where
/// it can, it stays as the player's kept init instead ([`super::kept_init`]): `!k` said.
fn holder(spec: &Spec, go: OwnedFd, ready: OwnedFd) -> ! {
    // The helper's answer (1) must end with the helper; the pool's namespaces are not ours.
    sys::close_numbered(&[1, 3, 4, 5]);
    // Ends with the helper (killed by anyone: a kept init's test then ends too).
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let mut byte = [0u8; 1];
    if std::fs::File::from(go).read(&mut byte).ok() != Some(1) || byte[0] != b'!' {
        super::init::exit_now(1);
    }
    let (answer, made) = match view::build_shared(spec) {
        Ok(()) => match super::kept_init::setup(spec) {
            Ok(made) => ("!k".to_string(), Some(made)),
            Err(_) => ("!".to_string(), None),
        },
        Err(e) => (format!("?{e}"), None),
    };
    let _ = std::fs::File::from(ready).write_all(answer.as_bytes());
    // SAFETY: descriptors 0 and 2 are the helper's input and the kept init's socket,
    // inherited and owned by nothing else here; this process never returns.
    let (lifetime, socket) = unsafe { (OwnedFd::from_raw_fd(0), OwnedFd::from_raw_fd(2)) };
    match made {
        Some(made) => super::kept_init::serve(made, socket, lifetime),
        None => {
            drop(socket);
            wait_for_end(lifetime);
            super::init::exit_now(0)
        }
    }
}

/// In the supervisor of a test with a kept view: joins the pool's network namespace (with
/// its user namespace, as [`sys::join_net`] says), then the kept user namespace, in which
/// the test's init is then forked (its PID namespace owned there, so that the init may mount
/// the test's /proc). Keeps only descriptor [`KEPT_MNT`], for the init.
pub(super) fn join(spec: &Spec) -> io::Result<()> {
    let user = spec.player_ids.is_none().then_some(5);
    let joined = sys::join_net(user, 6).and_then(|()| {
        sys::set_ns(KEPT_USER, libc::CLONE_NEWUSER)
            .map_err(|e| io::Error::new(e.kind(), format!("setns kept user: {e}")))
    });
    sys::close_numbered(&[5, 6, KEPT_USER]);
    joined
}

/// In the test's init (forked by a supervisor that has [`join`]ed): enters a private copy of
/// the kept mount namespace, adds the test's own parts ([`view::finish_shared`]), enters a
/// fresh user namespace, says so on `ready` and waits for `go` (its ids mapped).
pub(super) fn init(spec: &Spec, ready: OwnedFd, go: OwnedFd) -> Result<(), StartError> {
    let setup = |e: io::Error, what: &str| StartError::Setup(format!("sandbox: {what}: {e}"));
    let entered = sys::set_ns(KEPT_MNT, libc::CLONE_NEWNS);
    sys::close_numbered(&[KEPT_MNT]);
    entered.map_err(|e| setup(e, "setns kept mount"))?;
    sys::unshare(libc::CLONE_NEWNS).map_err(|e| setup(e, "unshare mount"))?;
    std::env::set_current_dir("/").map_err(|e| setup(e, "chdir /"))?;
    let knobs = view::finish_shared(spec).map_err(|e| setup(e, "view"))?;
    sys::unshare(libc::CLONE_NEWUSER).map_err(|e| setup(e, "unshare user"))?;
    let _ = std::fs::File::from(ready).write_all(b"!");
    let mut byte = [0u8; 1];
    if std::fs::File::from(go).read(&mut byte).ok() != Some(1) {
        return Err(StartError::Setup(
            "sandbox: the test's ids were not mapped".into(),
        ));
    }
    view::forbid_user_namespaces_in(&knobs).map_err(|e| setup(e, "the test's user namespace"))
}

/// In the supervisor, in the kept user namespace: maps the ids of the test's user namespace
/// (the init's, `pid`) as they are in the kept one: the player's id, and root for a root
/// harness's init.
pub(super) fn map_test_ids(pid: libc::pid_t, spec: &Spec) -> io::Result<()> {
    let inner = view::PLAYER_ID;
    let map = match spec.player_ids {
        Some(_) => format!("0 0 1\n{inner} {inner} 1\n"),
        None => format!("{inner} {inner} 1\n"),
    };
    sys::write_file(&format!("/proc/{pid}/uid_map"), &map)?;
    sys::write_file(&format!("/proc/{pid}/gid_map"), &map)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view with a kept init at the other end of `peer`'s socket pair (or of none, where
    /// `peer` is false: that init has ended); its helper a child that has exited.
    fn view(key: &str, peer: bool) -> (KeptView, Option<OwnedFd>) {
        // Started first: until its exec, a child holds a copy of every descriptor.
        let helper = std::process::Command::new("true").spawn().unwrap().id() as libc::pid_t;
        let (socket, init_end) = rustix::net::socketpair(
            rustix::net::AddressFamily::UNIX,
            rustix::net::SocketType::SEQPACKET,
            rustix::net::SocketFlags::CLOEXEC,
            None,
        )
        .unwrap();
        let lifetime = std::fs::File::open("/dev/null").unwrap();
        let init = KeptInit {
            socket,
            _lifetime: lifetime,
            helper,
            holder: helper,
        };
        let view = KeptView {
            key: key.into(),
            held: Held::Init(init),
        };
        (view, peer.then_some(init_end))
    }

    #[test]
    fn a_view_whose_kept_init_has_ended_is_dropped_and_one_whose_init_is_there_kept() {
        let (alive, _init) = view("alive", true);
        let (ended, none) = view("ended", false);
        assert!(none.is_none());
        // A child another test started meanwhile holds a copy of the ended init's end until
        // its own exec: wait (bounded) until no process holds it.
        let socket = ended.init().unwrap().socket.as_raw_fd();
        assert_eq!(
            sys::poll_read(&[socket], 10_000),
            1,
            "the ended init's end is held"
        );
        let mut kept = Kept {
            views: vec![alive, ended],
            failed: vec![],
        };
        kept.drop_ended();
        let keys: Vec<&str> = kept.views.iter().map(|v| v.key.as_str()).collect();
        assert_eq!(keys, ["alive"]);
    }
}
