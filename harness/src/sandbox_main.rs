//! `harness-sandbox`: a test's supervisor, started by the harness as `harness-sandbox
//! __sandbox` (see `harness::sandbox::supervisor`). It does what `harness __sandbox` does, but
//! as a much smaller program it costs less to start once per test.
//!
//! It has no Rust `main`: the C `main` below skips what the standard library's start does for
//! a program (the main thread's stack guard, found by reading `/proc/self/maps`, and a signal
//! stack for stack overflows; `SIGPIPE` ignored; descriptors 0-2 checked), none of which a
//! supervisor needs: it ignores `SIGPIPE` itself, and its descriptors 0-2 are the test's pipes.
// (A test build of this program keeps the test runner's `main`.)
#![cfg_attr(not(test), no_main)]

/// The program's entry, called by the C runtime (the standard library still sees the
/// arguments: glibc hands them to it before `main`).
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    if std::env::args_os().nth(1).as_deref() == Some(harness::sandbox::SUPERVISOR_ARG.as_ref()) {
        harness::sandbox::supervisor::main();
    }
    eprintln!("harness-sandbox is started by the harness for each test; run `harness` instead");
    harness::exit::USAGE.into()
}
