//! The host user and group a player, and a contest's tool, runs as: the one place that
//! decides it, for every mode.
//!
//! A harness started by an ordinary user runs its players as that user (in the namespace
//! mode mapped to uid 1000 inside, see `view::PLAYER_ID`): it has no other id to give. A
//! harness started as root never runs a player as root, not even as a root without
//! capabilities (which still owns every root-owned inode it can reach: `chmod` on a device
//! node bound into its view would change the host's). It runs it as [`PLAYER_UID`] /
//! [`PLAYER_GID`] instead: a fixed id that no account, file or process of a usual host has.
//!
//! Why one fixed id and not `nobody` (65534): host daemons run as `nobody`, and a player of
//! that id could signal or trace them wherever nothing else stops it (process mode without
//! landlock). Why this number: above every range a distribution or systemd hands out to
//! accounts (system users, regular users up to 60000, systemd-homed 60001-60513, dynamic
//! users 61184-65519, container ranges from 524288 up to 1879048191, the "foreign" range
//! from 2147352576), below 2^31 (some tools treat larger ids as negative).
//!
//! Whatever a player must read (its program, its folder, the run's copies) must be readable
//! by this id under a root harness; what it writes is made and owned by it.
//!
//! A contest's tools (generators, judges, testers) run as [`TOOL_UID`] / [`TOOL_GID`] under a
//! root harness, the next id: other people's code too, and never a player's, so that a
//! player cannot reach what a tool owns (its folder, its relay's socket, its processes) even
//! in process mode. Under an ordinary user both are that user.

/// The host uid of every player under a root harness.
pub const PLAYER_UID: u32 = 2_000_000_000;
/// The host gid of every player under a root harness.
pub const PLAYER_GID: u32 = 2_000_000_000;

/// The host uid of a contest's tools (generators, judges, testers) under a root harness, in
/// every mode (in the namespace mode it is what the tool's uid 1000 is on the host): not the
/// players', so that no player, of this run or another one on the machine, process mode
/// included, can change a tool's folder, connect to its relay's socket or signal it.
pub const TOOL_UID: u32 = PLAYER_UID + 1;
/// The host gid of the tools under a root harness.
pub const TOOL_GID: u32 = PLAYER_GID + 1;

/// The host (uid, gid) of the tools when the harness is root; `None` when it is an ordinary
/// user (its tools run as that user, as its players do).
pub fn tool_ids() -> Option<(u32, u32)> {
    player_ids().map(|_| (TOOL_UID, TOOL_GID))
}

/// The host (uid, gid) players run as when the harness is root; `None` when the harness is an
/// ordinary user (its players then run as that user, the only id it has).
pub fn player_ids() -> Option<(u32, u32)> {
    rustix::process::geteuid()
        .is_root()
        .then_some((PLAYER_UID, PLAYER_GID))
}

/// Maps the player's id inside (1000) of the user namespace of process `pid` (a test's init,
/// or the holder of a kept view) to its host id outside: the harness's own user, or under a
/// root harness the player's own unprivileged id ([`player_ids`]), with root inside
/// mapped to root outside for the test's init alone (it builds the view as root inside and
/// must own what it makes there; the player can never become it: no capability survives its
/// exec, every mount is nosuid, and it runs with no_new_privs). Capabilities end at the
/// player's exec; a root harness keeps the right to drop the player's supplementary groups,
/// an unprivileged one must deny `setgroups`.
pub(super) fn write_id_maps(pid: libc::pid_t, spec: &super::spec::Spec) -> std::io::Result<()> {
    let proc_dir = format!("/proc/{pid}");
    let inner = super::view::PLAYER_ID;
    let (uid_map, gid_map) = match spec.player_ids {
        Some((uid, gid)) => (
            format!("0 0 1\n{inner} {uid} 1\n"),
            format!("0 0 1\n{inner} {gid} 1\n"),
        ),
        None => {
            if !spec.shared_net {
                super::sys::write_file(&format!("{proc_dir}/setgroups"), "deny")?;
            }
            // In the pool's user namespace (shared_net), the harness's user and group are root.
            let (uid, gid) = if spec.shared_net {
                (0, 0)
            } else {
                (spec.outer_uid, spec.outer_gid)
            };
            (format!("{inner} {uid} 1\n"), format!("{inner} {gid} 1\n"))
        }
    };
    super::sys::write_file(&format!("{proc_dir}/uid_map"), &uid_map)?;
    super::sys::write_file(&format!("{proc_dir}/gid_map"), &gid_map)
}
