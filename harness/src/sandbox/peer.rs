//! Who is at the other end of a Unix socket (`SO_PEERCRED`), and whether a process descends
//! from another (its parents in `/proc/<pid>/stat`). The relay's socket takes only a
//! connection from the tool's own processes (`super::relay`), and the relay hands the tool's
//! pipes only to the harness: a player that finds the socket (process mode shows every
//! socket's path in `/proc/net/unix`) can neither pose as the tester nor receive its pipes.
//!
//! Reads `/proc` and asks the kernel about a socket; changes nothing.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// The process id of the peer of a connected Unix socket, as the caller's pid namespace
/// sees it (0: a process outside it). For a client's socket that is the process that made
/// the listening socket, at its `listen`.
pub fn peer_pid(socket: BorrowedFd<'_>) -> io::Result<i32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes and `len` is the size of `cred`, as
    // SO_PEERCRED requires; the descriptor is borrowed, so it is open. Not rustix's
    // socket_peercred: its pid may not be 0, which is what a peer outside our pid namespace has.
    let ret = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if ret != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cred.pid)
}

/// Whether `pid` is `ancestor` or one of its descendants (processes a contained tool starts
/// stay below its supervisor: it is their subreaper, or their pid namespace's parent).
/// False for a process that is gone.
pub fn descends_from(pid: i32, ancestor: i32) -> bool {
    let mut pid = pid;
    // A bound against a loop in what /proc says while processes come and go.
    for _ in 0..4096 {
        if pid == ancestor {
            return true;
        }
        if pid <= 1 {
            return false;
        }
        match super::init::parent_of(pid) {
            Some(parent) => pid = parent,
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_descends_from_this_process_and_not_the_other_way() {
        let mut child = std::process::Command::new("sleep")
            .arg("600")
            .spawn()
            .expect("sleep");
        let me = std::process::id() as i32;
        let pid = child.id() as i32;
        assert!(descends_from(pid, me));
        assert!(descends_from(me, me));
        assert!(!descends_from(me, pid));
        let _ = child.kill();
        let _ = child.wait();
        // Gone: nobody's descendant.
        assert!(!descends_from(pid, me));
    }

    #[test]
    fn the_peer_of_a_socket_pair_is_this_process() {
        let (a, _b) = std::os::unix::net::UnixStream::pair().expect("a pair");
        use std::os::fd::AsFd;
        assert_eq!(
            peer_pid(a.as_fd()).expect("SO_PEERCRED"),
            std::process::id() as i32
        );
    }
}
