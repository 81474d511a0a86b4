//! Starting a player's process without a copy of its starter's address space: `clone` with
//! `CLONE_VM | CLONE_VFORK`, as `posix_spawn` does, for a child that only prepares itself
//! (ids, limits, confinement) and then execs or ends. A fork copies the page tables of the
//! supervisor (or the test's init) and takes a copy-on-write fault for each page the child
//! then writes, only for the exec to throw it all away; on a virtual machine that copy costs
//! more than the rest of the child's preparation.
//!
//! The child runs on a stack of its own (a mapping made here, with a guard page below it)
//! while the caller's thread waits in `clone` until the child has execed or ended, so
//! nothing else runs in the shared memory meanwhile. The child has its own descriptor
//! table, signal dispositions, ids and limits (no `CLONE_FILES`, `CLONE_SIGHAND`, ...), so
//! what it changes there is its own; what it allocates stays allocated (unreachable) in the
//! caller's heap.
//!
//! Touches nothing but the child's stack mapping.

use std::convert::Infallible;
use std::io;

/// The child's stack, and the guard below it that a deeper stack would fault on.
const STACK: usize = 1 << 20;
const GUARD: usize = 64 << 10;

/// A stack mapping with its guard, unmapped when dropped.
struct Stack {
    base: *mut libc::c_void,
}

impl Stack {
    fn new() -> io::Result<Stack> {
        use rustix::mm::{mmap_anonymous, mprotect, MapFlags, MprotectFlags, ProtFlags};
        // SAFETY: a fresh anonymous mapping at an address of the kernel's choice: it
        // overlaps nothing of ours.
        let base = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                STACK + GUARD,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::STACK,
            )
        }
        .map_err(|e| super::sys::named(e, "mmap"))?;
        let stack = Stack { base };
        // SAFETY: the lowest GUARD bytes of the mapping just made, which nothing uses.
        unsafe { mprotect(base, GUARD, MprotectFlags::empty()) }
            .map_err(|e| super::sys::named(e, "mprotect"))?;
        Ok(stack)
    }

    /// The top of the stack (it grows down), 16-byte aligned as the ABI wants.
    fn top(&self) -> *mut libc::c_void {
        (self.base as usize + GUARD + STACK) as *mut libc::c_void
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`; its child has execed or ended (CLONE_VFORK), so
        // nothing runs on it.
        let _ = unsafe { rustix::mm::munmap(self.base, STACK + GUARD) };
    }
}

/// Runs `child` in a new process that shares the caller's memory until it execs or ends
/// (see the module's documentation); returns its pid once it has done either. `child` must
/// end in an exec or `_exit` and must not drop, move or change what belongs to the caller
/// (it may read it). Only for single-threaded callers (the supervisor, a test's init): the
/// caller's other threads, were there any, would run beside the child.
pub(crate) fn spawn(child: &mut dyn FnMut() -> Infallible) -> io::Result<libc::pid_t> {
    let stack = Stack::new()?;
    let mut child = child;
    let arg: *mut &mut dyn FnMut() -> Infallible = &mut child;
    // SAFETY: the child runs `start` on its own stack, with `arg` pointing at `child`, which
    // outlives it: with CLONE_VFORK the call returns only once the child has execed or
    // ended, and the stack is unmapped only after that. The caller is single-threaded, so
    // nothing else touches the shared memory while the child runs. Neither std nor rustix
    // offers a clone that shares memory.
    let pid = unsafe {
        libc::clone(
            start,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            arg.cast(),
        )
    };
    if pid < 0 {
        return Err(super::sys::named(io::Error::last_os_error(), "clone"));
    }
    Ok(pid)
}

/// The child's first function: runs the caller's closure, and ends the child if it
/// returns by a panic.
extern "C" fn start(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `&mut &mut dyn FnMut` that `spawn` passed, alive while the
    // caller waits in `clone`.
    let child = unsafe { &mut *arg.cast::<&mut dyn FnMut() -> Infallible>() };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(child));
    super::init::exit_now(127)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    /// The child's exec runs the program with the child's own descriptors: what it writes
    /// reaches the pipe it was given, and its exit status the caller's wait.
    #[test]
    fn a_child_that_shares_memory_runs_its_program_with_its_own_descriptors() {
        let (r, w) = super::super::sys::pipe().unwrap();
        let (program, argv) = (
            CString::new("/bin/sh").unwrap(),
            vec![
                CString::new("sh").unwrap(),
                CString::new("-c").unwrap(),
                CString::new("echo shared; exit 3").unwrap(),
            ],
        );
        let pid = spawn(&mut || {
            // The child's own descriptor table (no CLONE_FILES): the caller's 1 stays.
            let _ = rustix::stdio::dup2_stdout(&w);
            let _ = super::super::sys::exec(&program, &argv, &[]);
            super::super::init::exit_now(126)
        })
        .unwrap();
        drop(w);
        let mut out = String::new();
        use std::io::Read;
        std::fs::File::from(r).read_to_string(&mut out).unwrap();
        assert_eq!(out, "shared\n");
        let ended = super::super::sys::wait(pid, true).unwrap().unwrap();
        assert_eq!(ended.exit, crate::os::Exit::Code(3));
    }

    /// A child that ends without an exec ends alone: the caller goes on, and sees it end
    /// with the code it chose.
    #[test]
    fn a_child_that_ends_without_an_exec_leaves_the_caller_running() {
        let pid = spawn(&mut || super::super::init::exit_now(7)).unwrap();
        let ended = super::super::sys::wait(pid, true).unwrap().unwrap();
        assert_eq!(ended.exit, crate::os::Exit::Code(7));
    }
}
