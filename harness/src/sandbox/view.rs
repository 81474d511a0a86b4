//! The file system a sandboxed player sees, built inside the test's own mount namespace: a
//! fresh tmpfs root holding read-only views of the system folders and of the player's own
//! files, a private /proc (masked as container runtimes mask it), a minimal /dev of
//! read-only device nodes, and one size-capped tmpfs for everything the
//! player may write (its working folder, HOME, /tmp, /var/tmp, /dev/shm). Runs in the
//! test's init process, which holds every capability of the test's user namespace until the
//! player is started; nothing here runs in the harness.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::spec::Spec;
use super::sys;

/// Read-only system folders (a symlink, as on merged-/usr systems, is recreated as such).
pub(crate) const SYSTEM: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/opt",
];

/// Entries of /etc a program may need (the loader's cache, `alternatives` behind `java`,
/// time zone, host names); the rest of the host's /etc stays hidden.
const ETC: [&str; 10] = [
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "nsswitch.conf",
    "hosts",
    "host.conf",
    "mime.types",
];

/// /etc entries kept by prefix (language runtimes' own configuration).
const ETC_PREFIXES: [&str; 3] = ["java", "python", "perl"];

/// The player's writable space, and where it is seen.
pub(crate) const BOX: &str = "/box";
pub(crate) const WORK: &str = "/box/work";
pub const HOME: &str = "/box/home";

/// Inside uid and gid of the player.
pub(crate) const PLAYER_ID: u32 = 1000;

/// Makes the run's /etc for its sandboxes, once, in `dir`: copies of the few host entries a
/// program may need (links kept as links) and a `passwd`/`group` naming only the player.
/// Each test then shows it read-only with one bind instead of one per entry.
pub(crate) fn prepare_etc(dir: &Path) -> io::Result<()> {
    prepare_etc_from(Path::new("/etc"), dir)
}

/// [`prepare_etc`] from the host's /etc seen at `etc`.
pub(crate) fn prepare_etc_from(etc: &Path, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    if let Ok(entries) = std::fs::read_dir(etc) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if ETC.contains(&name.as_str()) || ETC_PREFIXES.iter().any(|p| name.starts_with(p)) {
                // An entry that cannot be read (a root-only file) is left out.
                let _ = copy_tree(&entry.path(), &dir.join(&name));
            }
        }
    }
    std::fs::write(
        dir.join("passwd"),
        format!("player:x:{PLAYER_ID}:{PLAYER_ID}:player:{HOME}:/bin/sh\n"),
    )?;
    std::fs::write(dir.join("group"), format!("player:x:{PLAYER_ID}:\n"))?;
    std::fs::write(dir.join("hostname"), "sandbox\n")
}

/// Copies a file, a link (as a link) or a folder (recursively).
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
    } else if meta.is_dir() {
        std::fs::create_dir(to)?;
        for entry in std::fs::read_dir(from)?.flatten() {
            let _ = copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
        Ok(())
    } else {
        std::fs::copy(from, to).map(|_| ())
    }
}

/// The system folders a path may already be visible through.
pub(crate) fn visible_without_bind(path: &Path) -> bool {
    SYSTEM.iter().any(|s| path.starts_with(s))
}

/// Whether a view may run what it shows: only system folders and the player's own files.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Exec {
    Allowed,
    Denied,
}

/// The `sys::ATTR_*` a read-only view adds to its mounts (and to every mount under them).
fn ro_attrs(exec: Exec) -> u64 {
    let noexec = if exec == Exec::Denied {
        sys::ATTR_NOEXEC
    } else {
        0
    };
    sys::ATTR_RDONLY | sys::ATTR_NOSUID | sys::ATTR_NODEV | noexec
}

/// Makes the bind at `target` (of `source`) read-only as `exec` says: with one
/// `mount_setattr` for it and every mount under it, or where the kernel has none, with a
/// remount that keeps the flags the original mount locked.
fn make_read_only(source: &Path, target: &Path, exec: Exec) -> io::Result<()> {
    if sys::add_mount_attrs(target, ro_attrs(exec))? {
        return Ok(());
    }
    sys::mount(None, target, None, ro_flags(source, exec), None)
}

fn ro_flags(source: &Path, exec: Exec) -> libc::c_ulong {
    // A remount in a user namespace must keep the flags the original mount locked.
    let noexec = if exec == Exec::Denied {
        libc::MS_NOEXEC
    } else {
        0
    };
    libc::MS_BIND
        | libc::MS_REMOUNT
        | libc::MS_RDONLY
        | libc::MS_NOSUID
        | libc::MS_NODEV
        | noexec
        | sys::mount_flags(source).unwrap_or(0)
}

/// Shows `source` read-only at `target` (made as an empty file or folder first).
fn bind_ro(source: &Path, target: &Path, exec: Exec) -> io::Result<()> {
    let meta = std::fs::metadata(source)?;
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if meta.is_dir() {
        std::fs::create_dir_all(target)?;
    } else if !target.exists() {
        std::fs::write(target, b"")?;
    }
    sys::mount(
        Some(source),
        target,
        None,
        libc::MS_BIND | libc::MS_REC,
        None,
    )?;
    make_read_only(source, target, exec)
}

/// Shows the folder `source` writable at `target` (a build's own folders), without setuid
/// or device files.
fn bind_rw(source: &Path, target: &Path) -> io::Result<()> {
    std::fs::create_dir_all(target)?;
    sys::mount(Some(source), target, None, libc::MS_BIND, None)?;
    let flags = libc::MS_BIND
        | libc::MS_REMOUNT
        | libc::MS_NOSUID
        | libc::MS_NODEV
        | sys::mount_flags(source).unwrap_or(0);
    sys::mount(None, target, None, flags, None)
}

/// Makes `path` and everything under it the player's (links themselves, never followed).
fn give_to_player(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.uid() != PLAYER_ID || meta.gid() != PLAYER_ID {
        std::os::unix::fs::lchown(path, Some(PLAYER_ID), Some(PLAYER_ID))
            .map_err(|e| io::Error::new(e.kind(), format!("chown {}: {e}", path.display())))?;
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            give_to_player(&entry?.path())?;
        }
    }
    Ok(())
}

/// Recreates a symlink, or shows the target read-only.
fn mirror(source: &Path, target: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(source) {
        Err(_) => Ok(()),
        Ok(m) if m.file_type().is_symlink() => {
            let link = std::fs::read_link(source)?;
            std::os::unix::fs::symlink(link, target)
        }
        Ok(_) => bind_ro(source, target, Exec::Allowed),
    }
}

fn inside(root: &Path, path: &Path) -> PathBuf {
    root.join(path.strip_prefix("/").unwrap_or(path))
}

fn chown_player(path: &Path) -> io::Result<()> {
    std::os::unix::fs::chown(path, Some(PLAYER_ID), Some(PLAYER_ID))
}

/// Builds the view on `spec.root` and makes it the root. Must run in fresh user, mount and
/// PID namespaces, as their first process.
pub fn build(spec: &Spec) -> io::Result<()> {
    in_steps(|step| build_steps(spec, step))
}

/// Runs `steps`, which name the step they are at in the cell they are given; an error says
/// at which (`proc: mount ...`).
fn in_steps<T>(
    steps: impl FnOnce(&std::cell::Cell<&'static str>) -> io::Result<T>,
) -> io::Result<T> {
    let step = std::cell::Cell::new("start");
    steps(&step).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", step.get())))
}

fn build_steps(spec: &Spec, step: &std::cell::Cell<&'static str>) -> io::Result<()> {
    let root = spec.root.as_path();
    shared_parts(spec, step, true)?;
    step.set("writable binds");
    for path in &spec.writable_binds {
        if spec.player_ids.is_some() {
            // A root harness's player is not the owner of what the harness made: its writable
            // folders (a build's private copy, its output folder) become its own.
            give_to_player(path)?;
        }
        bind_rw(path, &inside(root, path))?;
    }
    if let Some(overlay) = &spec.overlay {
        step.set("tools overlay");
        super::tool_view::mount(overlay, &inside(root, &overlay.upper))?;
    }
    step.set("proc");
    proc_of_the_test(root, &spec.etc)?;
    step.set("pivot");
    pivot_read_only(root)?;
    sys::set_hostname("sandbox")?;
    if !spec.shared_net {
        // A namespace of the pool has loopback up already (and the test has no right to).
        sys::loopback_up()?;
    }
    Ok(())
}

/// The view on `spec.root` up to the player's own files: the tmpfs root, the system folders,
/// /etc, the box (`with_box`; else only its mount points, and those of what is bound from
/// it), /dev, and the player's own files, read-only.
fn shared_parts(
    spec: &Spec,
    step: &std::cell::Cell<&'static str>,
    with_box: bool,
) -> io::Result<()> {
    let root = spec.root.as_path();
    // The folders made here (mount points on the path to a bind) are passable whatever the
    // user's umask: under a 077 the player could not reach its own folders.
    sys::set_umask(0o022);
    sys::mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    sys::mount(
        Some(Path::new("tmpfs")),
        root,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some("size=4m,mode=755"),
    )?;
    step.set("system folders");
    for dir in SYSTEM {
        mirror(Path::new(dir), &inside(root, Path::new(dir)))?;
    }
    step.set("etc");
    bind_ro(&spec.etc, &root.join("etc"), Exec::Denied)?;
    step.set("box");
    let boxed = if with_box {
        Some(writable_box(root, spec.disk)?)
    } else {
        for dir in [BOX, "/tmp", "/var/tmp"] {
            std::fs::create_dir_all(inside(root, Path::new(dir)))?;
        }
        None
    };
    step.set("dev");
    devices(root)?;
    if let Some(boxed) = &boxed {
        bind_shm(root, boxed)?;
    }
    step.set("binds");
    // The player's own files, read-only, at their host paths (a shared view's below the
    // box's places are bound by each test: [`build_shared`]).
    for bind in &spec.binds {
        if !visible_without_bind(&bind.path) && (with_box || !bound_again(&bind.path)) {
            bind_ro(&bind.path, &inside(root, &bind.path), Exec::Allowed)?;
        }
    }
    Ok(())
}

/// Makes `root` the root, read-only.
fn pivot_read_only(root: &Path) -> io::Result<()> {
    std::env::set_current_dir(root)?;
    sys::pivot_here()?;
    sys::mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
        None,
    )
}

/// Builds the part of a view every test of the same player shares ([`super::kept_view`]) on
/// `spec.root` and makes it the root, read-only: [`shared_parts`], with the masks of /proc
/// at the box's mount point (see [`mask`]), the player's files that each test shows again
/// below the box's places ([`bound_again`]) at their own paths (where each test's box covers
/// them, and whence it takes them: a covered mount still shows in mountinfo, and this way it
/// names no other path than its visible copy), and a /proc of the builder's own PID
/// namespace (empty once it has ended), which lets each test mount its own /proc over it
/// (the kernel lets a user namespace mount a /proc only where one is already fully visible).
/// Must run in fresh user, mount and PID namespaces.
pub(super) fn build_shared(spec: &Spec) -> io::Result<()> {
    in_steps(|step| {
        shared_parts(spec, step, false)?;
        step.set("masks");
        let root = spec.root.as_path();
        make_masks(&inside(root, Path::new(BOX)))?;
        step.set("binds");
        let again = again_binds(spec);
        let shm = inside(root, Path::new("/dev/shm"));
        let below_shm = again.iter().any(|p| p.starts_with("/dev/shm"));
        if below_shm {
            // /dev is read-only already: the mount points go in a tmpfs of their own.
            sys::mount(
                Some(Path::new("tmpfs")),
                &shm,
                Some("tmpfs"),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                Some("size=64k,mode=755"),
            )?;
        }
        for path in &again {
            bind_ro(path, &inside(root, path), Exec::Allowed)?;
        }
        if below_shm {
            let flags = libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV;
            sys::mount(None, &shm, None, flags | libc::MS_NOEXEC, None)?;
        }
        step.set("proc");
        let proc_dir = root.join("proc");
        std::fs::create_dir(&proc_dir)?;
        mount_proc(&proc_dir)?;
        step.set("pivot");
        pivot_read_only(root)
    })
}

/// Where a test's own mounts cover the shared view ([`finish_shared`]): the box's places,
/// below which a player's file is bound again by each test, and the other places, below which
/// it could not be.
const BOUND_AGAIN: [&str; 3] = ["/tmp", "/var/tmp", "/dev/shm"];
const COVERED: [&str; 3] = [BOX, "/dev", "/proc"];

/// Whether a player's file at `path` is below one of the box's places ([`BOUND_AGAIN`]).
fn bound_again(path: &Path) -> bool {
    BOUND_AGAIN.iter().any(|place| path.starts_with(place))
}

/// The player's files a test binds again ([`bound_again`]), in the spec's order.
fn again_binds(spec: &Spec) -> Vec<&Path> {
    spec.binds
        .iter()
        .map(|b| b.path.as_path())
        .filter(|p| !visible_without_bind(p) && bound_again(p))
        .collect()
}

/// Whether every read-only bind of `spec` can be shown in a view whose shared parts are
/// kept ([`build_shared`]): none is below /box, /dev or /proc but for the box's places.
pub(super) fn shareable(spec: &Spec) -> bool {
    spec.binds
        .iter()
        .all(|b| bound_again(&b.path) || !COVERED.iter().any(|place| b.path.starts_with(place)))
}

/// A test's own parts of a view whose shared parts are its root already ([`build_shared`]):
/// the box over the masks and the player's files kept with them (taken first), /dev/shm, the
/// test's /proc with its read-only knobs and masks, those player's files at their paths
/// below the box's places ([`bound_again`]), the host name. In the test's mount namespace (a
/// copy of the shared one) and UTS namespace, before the test's user namespace. Returns the
/// test's /proc/sys, held open (by path) from before it was made read-only:
/// [`forbid_user_namespaces_in`] once in that namespace.
pub(super) fn finish_shared(spec: &Spec) -> io::Result<std::fs::File> {
    in_steps(|step| {
        step.set("masks");
        let root = Path::new("/");
        sys::set_umask(0o022);
        let masks = Masks::open(Path::new(BOX))?;
        let again = held_again(spec)?;
        step.set("box");
        let boxed = writable_box(root, spec.disk)?;
        step.set("dev");
        bind_shm(root, &boxed)?;
        step.set("proc");
        let proc_dir = Path::new("/proc");
        mount_proc(proc_dir)?;
        step.set("binds");
        for (path, held) in &again {
            bind_again(proc_dir, held, path)?;
        }
        step.set("proc");
        let knobs = path_only(&proc_dir.join("sys"))?;
        protect_proc(proc_dir, &masks)?;
        sys::set_hostname("sandbox")?;
        Ok(knobs)
    })
}

/// The player's files each test binds again ([`again_binds`]), held open (as paths only)
/// from their own paths in a shared view ([`build_shared`]) before a box covers them, to be
/// bound again over it.
pub(super) fn held_again(spec: &Spec) -> io::Result<Vec<(&Path, std::fs::File)>> {
    again_binds(spec)
        .into_iter()
        .map(|path| Ok((path, path_only(path)?)))
        .collect()
}

/// The kernel's knobs of the /proc at `proc_dir` read-only and its [`PROC_MASKED`] covered
/// by `masks` (both left out by the attribution build's `proc`).
pub(super) fn protect_proc(proc_dir: &Path, masks: &Masks) -> io::Result<()> {
    if super::attribution::skips("proc") {
        return Ok(());
    }
    read_only_knobs(proc_dir)?;
    masks.cover(proc_dir)
}

/// Binds `held` (a read-only bind of the shared view, held open by path) at `path` again,
/// through the /proc at `proc_dir`, its mount point made as a file or folder like it.
pub(super) fn bind_again(proc_dir: &Path, held: &std::fs::File, path: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if held.metadata()?.is_dir() {
        std::fs::create_dir_all(path)?;
    } else if !path.exists() {
        std::fs::write(path, b"")?;
    }
    let source = proc_dir.join(format!("self/fd/{}", held.as_raw_fd()));
    // Recursive: the bind's own read-only, nosuid and nodev come with it (and what is under).
    sys::mount(
        Some(&source),
        path,
        None,
        libc::MS_BIND | libc::MS_REC,
        None,
    )
}

/// `path` opened as a path only (`O_PATH`): to be bound after it is covered.
pub(super) fn path_only(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH)
        .open(path)
}

/// The writable space: one tmpfs of the test's disk size (`disk` bytes) holding the working
/// folder, HOME, /tmp, /var/tmp and /dev/shm; /tmp and /var/tmp bound in place (their
/// mount points are made where missing). Returns it.
pub(super) fn writable_box(root: &Path, disk: u64) -> io::Result<std::path::PathBuf> {
    let boxed = inside(root, Path::new(BOX));
    std::fs::create_dir_all(&boxed)?;
    let disk = disk.max(1 << 20);
    sys::mount(
        Some(Path::new("tmpfs")),
        &boxed,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&format!(
            "size={disk},nr_inodes={},mode=755",
            (disk / 4096).clamp(1024, 1 << 20)
        )),
    )?;
    chown_player(&boxed)?;
    for (name, mode) in [
        ("work", 0o755),
        ("home", 0o755),
        ("tmp", 0o1777),
        ("vartmp", 0o1777),
        ("shm", 0o1777),
    ] {
        let dir = boxed.join(name);
        std::fs::create_dir(&dir)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode))?;
        chown_player(&dir)?;
    }
    for (from, to) in [("tmp", "tmp"), ("vartmp", "var/tmp")] {
        let target = root.join(to);
        std::fs::create_dir_all(&target)?;
        sys::mount(Some(&boxed.join(from)), &target, None, libc::MS_BIND, None)?;
    }

    Ok(boxed)
}

/// /dev: the harmless devices only (read-only views of the host's), and the mount point of
/// the private /dev/shm ([`bind_shm`]).
fn devices(root: &Path) -> io::Result<()> {
    let dev = root.join("dev");
    std::fs::create_dir(&dev)?;
    sys::mount(
        Some(Path::new("tmpfs")),
        &dev,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some("size=64k,mode=755"),
    )?;
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(target, dev.join(name))?;
    }
    let shm = dev.join("shm");
    std::fs::create_dir(&shm)?;
    const DEVICES: [&str; 5] = ["null", "zero", "full", "random", "urandom"];
    for name in DEVICES {
        let target = dev.join(name);
        std::fs::write(&target, b"")?;
        sys::mount(
            Some(&Path::new("/dev").join(name)),
            &target,
            None,
            libc::MS_BIND,
            None,
        )?;
    }
    // Read-only, the folder and the device binds in it: a device node is still read and
    // written through a read-only mount, but its mode, owner and times can no longer be
    // changed (they are the host's inode's). Never nodev, which would make them unusable.
    // One call for all of them; /dev/shm (writable) is bound after.
    let attrs = sys::ATTR_RDONLY | sys::ATTR_NOSUID | sys::ATTR_NOEXEC;
    if super::attribution::skips("dev") {
    } else if !sys::add_mount_attrs(&dev, attrs)? {
        for name in DEVICES {
            let source = Path::new("/dev").join(name);
            let flags = libc::MS_BIND
                | libc::MS_REMOUNT
                | libc::MS_RDONLY
                | libc::MS_NOSUID
                | libc::MS_NOEXEC
                | sys::mount_flags(&source).unwrap_or(0);
            sys::mount(None, &dev.join(name), None, flags, None)?;
        }
        sys::mount(
            None,
            &dev,
            None,
            libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NOEXEC,
            None,
        )?;
    }
    Ok(())
}

/// The private /dev/shm: the box's `shm` folder, bound on the mount point [`devices`] made.
pub(super) fn bind_shm(root: &Path, boxed: &Path) -> io::Result<()> {
    let shm = root.join("dev/shm");
    sys::mount(Some(&boxed.join("shm")), &shm, None, libc::MS_BIND, None)
}

/// What container runtimes hide of /proc (runc's and Docker's masked paths), with the files
/// only root may read, so that a player sees none of them whoever runs the harness: each is
/// covered by an empty entry no one may open. With each, whether it is a folder (where the
/// kernel has it at all: a missing one is left as it is).
const PROC_MASKED: [(&str, bool); 19] = [
    ("acpi", true),
    ("asound", true),
    ("interrupts", false),
    ("kcore", false),
    ("keys", false),
    ("key-users", false),
    ("kmsg", false),
    ("kpagecgroup", false),
    ("kpagecount", false),
    ("kpageflags", false),
    ("latency_stats", false),
    ("pagetypeinfo", false),
    ("sched_debug", false),
    ("scsi", true),
    ("slabinfo", false),
    ("sysrq-trigger", false),
    ("timer_list", false),
    ("timer_stats", false),
    ("vmallocinfo", false),
];

/// The kernel's knobs, read-only (as runc leaves them).
const PROC_READ_ONLY: [&str; 4] = ["bus", "fs", "irq", "sys"];

/// A /proc of the test's own PID namespace. No user namespace can be made inside (so no
/// mounts of the player's own), the kernel's knobs are read-only and [`PROC_MASKED`] is
/// covered.
fn proc_of_the_test(root: &Path, spare: &Path) -> io::Result<()> {
    let proc_dir = root.join("proc");
    std::fs::create_dir(&proc_dir)?;
    mount_proc(&proc_dir)?;
    forbid_user_namespaces(&proc_dir)?;
    if super::attribution::skips("proc") {
        return Ok(());
    }
    read_only_knobs(&proc_dir)?;
    mask(spare, &proc_dir)
}

/// Mounts a /proc of the caller's PID namespace at `proc_dir`. A process the player cannot
/// trace (the test's init) is not even listed: hidepid=4 ("ptraceable", Linux 5.8+), else
/// hidepid=2 (which still shows it to a player in the owner's group).
fn mount_proc(proc_dir: &Path) -> io::Result<()> {
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    let proc_fs = Some(Path::new("proc"));
    sys::mount(proc_fs, proc_dir, Some("proc"), flags, Some("hidepid=4"))
        .or_else(|_| sys::mount(proc_fs, proc_dir, Some("proc"), flags, Some("hidepid=2")))
}

/// No user namespace can be made inside the caller's (through the /proc at `proc_dir`).
fn forbid_user_namespaces(proc_dir: &Path) -> io::Result<()> {
    sys::write_file(
        &proc_dir
            .join("sys/user/max_user_namespaces")
            .display()
            .to_string(),
        "0",
    )
}

/// [`forbid_user_namespaces`] for the caller's user namespace, through `knobs`: /proc/sys
/// held open from a mount that is not read-only (the user namespace's knobs are looked up
/// for the caller's namespace at the open, so the file is opened only now).
pub(super) fn forbid_user_namespaces_in(knobs: &std::fs::File) -> io::Result<()> {
    let path = std::path::Path::new("user/max_user_namespaces");
    let file = rustix::fs::openat(
        knobs,
        path,
        rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .map_err(|e| sys::named(e, "max_user_namespaces"))?;
    rustix::io::write(&file, b"0").map_err(|e| sys::named(e, "max_user_namespaces"))?;
    Ok(())
}

/// In the player's process of a kept init, its ids taken: a user namespace and an IPC
/// namespace of its own, its id mapped to itself (the player's id of the kept view), no user
/// namespace allowed inside (through `knobs`, /proc/sys held from a mount that is not
/// read-only). Its /proc files are its own only while it is dumpable (the init is not); its
/// exec makes it so anyway.
pub(super) fn own_namespaces(knobs: &std::fs::File) -> Result<(), String> {
    let fail = |e: io::Error| format!("setup the player's namespaces: {e}");
    sys::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWIPC).map_err(fail)?;
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::Dumpable);
    let id = PLAYER_ID;
    let map = format!("{id} {id} 1\n");
    sys::write_file("/proc/self/setgroups", "deny")
        .and_then(|()| sys::write_file("/proc/self/uid_map", &map))
        .and_then(|()| sys::write_file("/proc/self/gid_map", &map))
        .and_then(|()| forbid_user_namespaces_in(knobs))
        .map_err(fail)
}

/// The kernel's knobs of the /proc at `proc_dir` ([`PROC_READ_ONLY`]), read-only.
fn read_only_knobs(proc_dir: &Path) -> io::Result<()> {
    for name in PROC_READ_ONLY {
        let path = proc_dir.join(name);
        // Bound at once (a test's view is dozens of mounts: no look first); one the kernel
        // does not have is left out.
        match sys::mount(Some(&path), &path, None, libc::MS_BIND | libc::MS_REC, None) {
            Ok(()) => make_read_only(&path, &path, Exec::Denied)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Covers every [`PROC_MASKED`] entry of `proc_dir` with an empty file or folder of mode 0,
/// read-only, from a small tmpfs made for it (so that mountinfo names only `/file` and
/// `/folder` of a tmpfs, nothing of the host). The tmpfs is mounted over `spare`, a folder of
/// the old root already shown where it is needed: the pivot detaches it with the old root,
/// where an unmount of its own would make every test wait for an RCU grace period.
fn mask(spare: &Path, proc_dir: &Path) -> io::Result<()> {
    make_masks(spare)?;
    Masks::open(spare)?.cover(proc_dir)
}

/// Mounts the masks' tmpfs on `at`: an empty `file` and `folder` of mode 0, read-only.
fn make_masks(at: &Path) -> io::Result<()> {
    sys::mount(
        Some(Path::new("tmpfs")),
        at,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some("size=4k,nr_inodes=4,mode=0"),
    )?;
    let (file, folder) = (at.join("file"), at.join("folder"));
    std::fs::write(&file, b"")?;
    std::fs::create_dir(&folder)?;
    for path in [&file, &folder] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o000))?;
    }
    sys::mount(
        None,
        at,
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        None,
    )
}

/// The masks' file and folder ([`make_masks`]), held open (as paths only) so that they can be
/// bound after what they are on is covered.
pub(super) struct Masks {
    file: std::fs::File,
    folder: std::fs::File,
}

impl Masks {
    pub(super) fn open(at: &Path) -> io::Result<Masks> {
        Ok(Masks {
            file: path_only(&at.join("file"))?,
            folder: path_only(&at.join("folder"))?,
        })
    }

    /// Covers every [`PROC_MASKED`] entry of `proc_dir`, a /proc of the caller's PID
    /// namespace (where `self` is the caller).
    fn cover(&self, proc_dir: &Path) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let seen = |f: &std::fs::File| proc_dir.join(format!("self/fd/{}", f.as_raw_fd()));
        let (file, folder) = (seen(&self.file), seen(&self.folder));
        for (name, dir) in PROC_MASKED {
            let target = proc_dir.join(name);
            // A bind keeps the read-only, nosuid, nodev and noexec of the masks' mount. Bound
            // at once as the table has it, without a look first (a test's view is dozens of
            // mounts); the kernel's own kind is looked up only where it disagrees.
            let source = if dir { &folder } else { &file };
            match sys::mount(Some(source), &target, None, libc::MS_BIND, None) {
                Ok(()) => continue,
                Err(e) => match e.kind() {
                    io::ErrorKind::NotFound => continue,
                    io::ErrorKind::NotADirectory | io::ErrorKind::IsADirectory => {}
                    _ => return Err(e),
                },
            }
            let Ok(meta) = std::fs::symlink_metadata(&target) else {
                continue;
            };
            let source = if meta.is_dir() { &folder } else { &file };
            sys::mount(Some(source), &target, None, libc::MS_BIND, None)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each mask is bound as the table says, without a look first: the table must say what
    /// the kernel has (a folder or not) for every entry this machine's /proc holds.
    #[test]
    fn the_masks_kinds_are_those_of_the_kernels_proc() {
        let mut seen = 0;
        for (name, dir) in PROC_MASKED {
            let Ok(meta) = std::fs::symlink_metadata(Path::new("/proc").join(name)) else {
                continue;
            };
            seen += 1;
            assert_eq!(meta.is_dir(), dir, "/proc/{name}");
        }
        assert!(seen > 0, "none of the masked entries is in this /proc");
    }
}
