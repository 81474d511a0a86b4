//! A seccomp filter for process mode, where the player shares the host's network and IPC
//! namespaces: it may make Unix sockets only (every other family is refused with
//! `EAFNOSUPPORT`: no UDP, no raw or packet sockets, no netlink), and it may not touch System
//! V IPC (shared memory, message queues, semaphores), POSIX message queues or the kernel's
//! keyrings (`add_key`, `request_key`, `keyctl`) at all (`EPERM`): those are the host's, its
//! user keyring shared by every test of the run and by every program of its id, and they
//! outlive the test. No player needs a key. The harness joins the player's fresh session
//! keyring before the filter is installed (init.rs), so that call is never filtered.
//! `io_uring_setup` is refused too (`ENOSYS`), since io_uring makes sockets without the
//! `socket` call. A player's filter (not a build's, whose linker sets its output's mode, nor
//! a contest tool's) also refuses with `EPERM` the calls that change a file's mode, owner or
//! ACL by its path ([`MODE_CHANGES`]): landlock does not cover them, and a player of an
//! ordinary user's harness is the same user as the run's tools and other tests, whose
//! folders' paths it can find (a relay socket's in /proc/net/unix). The calls on a
//! descriptor (`fchmod`, `fchown`, `fsetxattr`) stay: they need a file the player could open,
//! which landlock decides. A system call of another ABI than the harness's own (32-bit calls on a 64-bit
//! kernel, x32) kills the player: the filter could not judge it.
//!
//! The filter is classic BPF written out here (a dozen instructions, no dependency), installed
//! in the player's process just before its exec, after `no_new_privs`; it is inherited by
//! everything the player starts and cannot be removed. Architectures other than x86_64 and
//! aarch64 get no filter ([`supported`] says so, and the start-of-run note with it).

use std::io;

/// `AUDIT_ARCH_*` of the harness's own ABI (linux/audit.h).
#[cfg(target_arch = "x86_64")]
const ARCH: Option<u32> = Some(0xC000_003E);
#[cfg(target_arch = "aarch64")]
const ARCH: Option<u32> = Some(0xC000_00B7);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const ARCH: Option<u32> = None;

/// x32 system calls on x86_64 carry this bit in their number.
const X32_BIT: u32 = 0x4000_0000;

/// Offsets in `struct seccomp_data`: nr, arch, then args[0] (its low 32 bits).
const NR: u32 = 0;
const ARCH_AT: u32 = 4;
#[cfg(target_endian = "little")]
const ARG0_LOW: u32 = 16;
#[cfg(target_endian = "big")]
const ARG0_LOW: u32 = 20;

/// System calls refused with `EPERM`: every System V IPC call, the POSIX queues' entries and
/// the three keyring calls.
const REFUSED: [libc::c_long; 17] = [
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmdt,
    libc::SYS_shmctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_keyctl,
];

/// System calls that change a file's mode, owner or extended attributes (a POSIX ACL is one,
/// and sets mode bits) by its path, refused with `EPERM` to a player: `chmod`, `chown` and
/// `lchown` (x86_64 only; aarch64 has the `*at` forms alone), `fchmodat`, `fchmodat2`,
/// `fchownat`, `setxattr`, `lsetxattr`, `removexattr`, `lremovexattr`, `setxattrat` and
/// `removexattrat`. The last three's numbers are the same on every architecture (the table
/// shared since Linux 5.1); a kernel without them answers `ENOSYS` anyway.
const MODE_CHANGES: &[libc::c_long] = &[
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chmod,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_chown,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_lchown,
    libc::SYS_fchmodat,
    FCHMODAT2,
    libc::SYS_fchownat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    SETXATTRAT,
    REMOVEXATTRAT,
];

/// `fchmodat2` (Linux 6.6), `setxattrat` and `removexattrat` (Linux 6.13).
const FCHMODAT2: libc::c_long = 452;
const SETXATTRAT: libc::c_long = 463;
const REMOVEXATTRAT: libc::c_long = 466;

/// Whether this build can filter (x86_64 and aarch64).
pub(crate) fn supported() -> bool {
    ARCH.is_some()
}

fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jeq(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

fn ret(action: u32) -> libc::sock_filter {
    stmt(libc::BPF_RET | libc::BPF_K, action)
}

fn load(offset: u32) -> libc::sock_filter {
    stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset)
}

/// The filter's program; `modes`: it refuses [`MODE_CHANGES`] too (a player's). Jumps are
/// relative: `jt`/`jf` skip that many instructions.
fn program(arch: u32, modes: bool) -> Vec<libc::sock_filter> {
    let errno = |e: i32| ret(libc::SECCOMP_RET_ERRNO | e as u32);
    let mut p = vec![
        load(ARCH_AT),
        jeq(arch, 1, 0),
        ret(libc::SECCOMP_RET_KILL_PROCESS),
        load(NR),
    ];
    if cfg!(target_arch = "x86_64") {
        p.push(libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: X32_BIT,
        });
        p.push(ret(libc::SECCOMP_RET_KILL_PROCESS));
    }
    // The socket calls jump to the family check at the end; refused calls to EPERM just after
    // the list; io_uring to ENOSYS after that.
    let sockets = [libc::SYS_socket, libc::SYS_socketpair];
    let modes: &[libc::c_long] = if modes { MODE_CHANGES } else { &[] };
    let refused: Vec<libc::c_long> = REFUSED.iter().chain(modes).copied().collect();
    let n = u8::try_from(sockets.len() + refused.len() + 1).expect("a short list");
    // After the list: [ALLOW, EPERM, ENOSYS, load arg0, jeq AF_UNIX, ALLOW, EAFNOSUPPORT].
    for (i, nr) in sockets.iter().enumerate() {
        // Distance from the instruction after this one to `load arg0` (list end + 3).
        let to_check = n - i as u8 - 1 + 3;
        p.push(jeq(*nr as u32, to_check, 0));
    }
    for (i, nr) in refused.iter().enumerate() {
        let k = i + sockets.len();
        let to_eperm = n - k as u8 - 1 + 1;
        p.push(jeq(*nr as u32, to_eperm, 0));
    }
    p.push(jeq(libc::SYS_io_uring_setup as u32, 2, 0));
    p.push(ret(libc::SECCOMP_RET_ALLOW));
    p.push(errno(libc::EPERM));
    p.push(errno(libc::ENOSYS));
    p.push(load(ARG0_LOW));
    p.push(jeq(libc::AF_UNIX as u32, 0, 1));
    p.push(ret(libc::SECCOMP_RET_ALLOW));
    p.push(errno(libc::EAFNOSUPPORT));
    p
}

/// Installs the filter on the calling thread (and what it execs), with [`MODE_CHANGES`]
/// refused when `modes` (a player's). Needs `no_new_privs` (or CAP_SYS_ADMIN). A build
/// without a known architecture installs nothing.
pub(crate) fn apply(modes: bool) -> io::Result<()> {
    let Some(arch) = ARCH else {
        return Ok(());
    };
    let filter = program(arch, modes);
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: a pointer to a live, well-formed program for the call's duration; the kernel
    // copies it. rustix has no seccomp call.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0u32,
            &prog as *const libc::sock_fprog,
        )
    };
    super::sys::check(ret, "seccomp").map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the program as the kernel would on (nr, arch, arg0): the action it returns.
    fn run(p: &[libc::sock_filter], nr: u32, arch: u32, arg0: u32) -> u32 {
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let i = p[pc];
            let code = u32::from(i.code);
            if code == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS {
                acc = match i.k {
                    NR => nr,
                    ARCH_AT => arch,
                    ARG0_LOW => arg0,
                    other => panic!("load of offset {other}"),
                };
                pc += 1;
            } else if code == libc::BPF_RET | libc::BPF_K {
                return i.k;
            } else if code == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K {
                pc += 1 + usize::from(if acc == i.k { i.jt } else { i.jf });
            } else if code == libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K {
                pc += 1 + usize::from(if acc >= i.k { i.jt } else { i.jf });
            } else {
                panic!("unknown instruction {code:#x}");
            }
        }
    }

    #[test]
    fn the_filter_allows_unix_sockets_and_refuses_other_families_ipc_keyrings_and_other_abis() {
        let Some(arch) = ARCH else { return };
        let p = program(arch, true);
        let allow = libc::SECCOMP_RET_ALLOW;
        let errno = |e: i32| libc::SECCOMP_RET_ERRNO | e as u32;
        let nr = |n: libc::c_long| n as u32;
        for call in [libc::SYS_socket, libc::SYS_socketpair] {
            assert_eq!(run(&p, nr(call), arch, libc::AF_UNIX as u32), allow);
            for family in [
                libc::AF_INET,
                libc::AF_INET6,
                libc::AF_NETLINK,
                libc::AF_PACKET,
            ] {
                assert_eq!(
                    run(&p, nr(call), arch, family as u32),
                    errno(libc::EAFNOSUPPORT)
                );
            }
        }
        for call in REFUSED {
            assert_eq!(run(&p, nr(call), arch, 0), errno(libc::EPERM), "{call}");
        }
        // Named again, not only through the list: the keyrings are the host id's (issue 28).
        for call in [libc::SYS_add_key, libc::SYS_request_key, libc::SYS_keyctl] {
            assert_eq!(run(&p, nr(call), arch, 0), errno(libc::EPERM), "{call}");
        }
        assert_eq!(
            run(&p, nr(libc::SYS_io_uring_setup), arch, 0),
            errno(libc::ENOSYS)
        );
        for call in [
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_execve,
            libc::SYS_clone,
        ] {
            assert_eq!(run(&p, nr(call), arch, 0), allow, "{call}");
        }
        assert_eq!(
            run(&p, nr(libc::SYS_read), 0x4000_0003, 0),
            libc::SECCOMP_RET_KILL_PROCESS
        );
        if cfg!(target_arch = "x86_64") {
            assert_eq!(
                run(&p, X32_BIT | nr(libc::SYS_socket), arch, 2),
                libc::SECCOMP_RET_KILL_PROCESS
            );
        }
    }
    #[test]
    fn a_players_filter_refuses_path_based_mode_owner_and_acl_changes_and_a_builds_does_not() {
        let Some(arch) = ARCH else { return };
        let nr = |n: libc::c_long| n as u32;
        let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
        let player = program(arch, true);
        let build = program(arch, false);
        for call in MODE_CHANGES {
            assert_eq!(run(&player, nr(*call), arch, 0), eperm, "{call}");
            assert_eq!(
                run(&build, nr(*call), arch, 0),
                libc::SECCOMP_RET_ALLOW,
                "{call}"
            );
        }
        // Named again, not only through the list: a folder made unreachable (issue 37).
        assert_eq!(run(&player, nr(libc::SYS_fchmodat), arch, 0), eperm);
        assert_eq!(run(&player, nr(libc::SYS_setxattr), arch, 0), eperm);
        // On a descriptor (a file landlock let the player open) they stay.
        for call in [libc::SYS_fchmod, libc::SYS_fchown, libc::SYS_fsetxattr] {
            assert_eq!(run(&player, nr(call), arch, 0), libc::SECCOMP_RET_ALLOW);
        }
        // The rest of the filter is the same in both.
        for p in [&player, &build] {
            assert_eq!(run(p, nr(libc::SYS_keyctl), arch, 0), eperm);
            assert_eq!(
                run(p, nr(libc::SYS_socket), arch, libc::AF_UNIX as u32),
                libc::SECCOMP_RET_ALLOW
            );
            assert_eq!(
                run(p, nr(libc::SYS_socket), arch, libc::AF_INET as u32),
                libc::SECCOMP_RET_ERRNO | libc::EAFNOSUPPORT as u32
            );
            assert_eq!(
                run(p, nr(libc::SYS_io_uring_setup), arch, 0),
                libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32
            );
        }
    }
}
