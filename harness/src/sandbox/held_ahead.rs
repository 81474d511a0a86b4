//! What a test made ready for the next test of its thread: a batch judge's sandbox, launched
//! while the test's own judge runs and held before its exec ([`super::tool::Held`]), so that
//! the next test's judge is ready by the time that test's player answers (its sandbox takes
//! longer to set up than a quick player takes to answer). Kept per thread, only on a
//! thread that runs a run's tests one after another ([`enable_here`]), at most [`MOST`] per
//! thread; taken by the next test that can use one ([`take`]); the rest are ended at the
//! end of the run ([`end_all`], from `reap_all`), so that nothing of a run is left.
//!
//! Holds what it is given; it starts nothing and judges nothing.

use std::any::Any;
use std::cell::Cell;
use std::sync::Mutex;
use std::thread::ThreadId;

/// Most things kept for one thread: one per problem and run a thread alternates between
/// (`harness bench` times two runs' tests in turn), the oldest ended first.
pub const MOST: usize = 4;

type Kept = (ThreadId, Box<dyn Any + Send>);

/// Everything kept, oldest first.
static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread runs a run's tests one after another, and its run ends with `reap_all`.
    static ENABLED: Cell<bool> = const { Cell::new(false) };
}

/// The calling thread runs the tests of a run one after another (a run's worker): what a
/// test makes ready for the next is kept for it.
pub fn enable_here() {
    ENABLED.with(|e| e.set(true));
}

/// Whether what a test makes ready for the next is kept on this thread ([`enable_here`]).
pub fn enabled() -> bool {
    ENABLED.with(|e| e.get())
}

/// Keeps `thing` for the calling thread's next test; the thread's oldest is ended when it
/// has [`MOST`]. Nothing is kept on a thread not [`enabled`]: `thing` is ended now.
pub fn keep<T: Any + Send>(thing: T) {
    if !enabled() {
        return;
    }
    let me = std::thread::current().id();
    let ended = {
        let mut kept = lock();
        kept.push((me, Box::new(thing)));
        let mine = kept.iter().filter(|(t, _)| *t == me).count();
        match mine > MOST {
            true => kept
                .iter()
                .position(|(t, _)| *t == me)
                .map(|i| kept.remove(i)),
            false => None,
        }
    };
    // Its end (a held tool's sandbox ended) outside the lock.
    drop(ended);
}

/// The calling thread's newest kept `T` that `fits`, taken.
pub fn take<T: Any + Send>(fits: impl Fn(&T) -> bool) -> Option<T> {
    let me = std::thread::current().id();
    let mut kept = lock();
    let at = kept
        .iter()
        .rposition(|(t, b)| *t == me && b.downcast_ref::<T>().is_some_and(&fits))?;
    let (_, thing) = kept.remove(at);
    thing.downcast::<T>().ok().map(|b| *b)
}

/// Ends everything kept, of every thread: the end of a run.
pub fn end_all() {
    let all = std::mem::take(&mut *lock());
    drop(all);
}

fn lock() -> std::sync::MutexGuard<'static, Vec<Kept>> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Counts its drops: what is ended.
    struct Thing(u32, Arc<AtomicUsize>);

    impl Drop for Thing {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_thread_takes_only_its_own_and_only_when_enabled() {
        // One test: KEPT is shared by every test of this binary's process, so each thread
        // here is one of its own.
        let ended = Arc::new(AtomicUsize::new(0));
        let e = ended.clone();
        std::thread::spawn(move || {
            keep(Thing(1, e.clone()));
            // Not enabled: ended at once, never kept.
            assert_eq!(e.load(Ordering::SeqCst), 1);
            assert!(take::<Thing>(|_| true).is_none());
            enable_here();
            for n in 2..=(2 + MOST as u32) {
                keep(Thing(n, e.clone()));
            }
            // MOST + 1 kept: the oldest (2) ended.
            assert_eq!(e.load(Ordering::SeqCst), 2);
            let e2 = e.clone();
            std::thread::spawn(move || {
                enable_here();
                assert!(take::<Thing>(|_| true).is_none(), "another thread's");
                keep(Thing(100, e2));
            })
            .join()
            .unwrap();
            // The newest that fits.
            let odd = take::<Thing>(|t| t.0 % 2 == 1).expect("kept");
            assert_eq!(odd.0, 5);
            assert!(take::<u32>(|_| true).is_none(), "another type");
            drop(odd);
            assert_eq!(e.load(Ordering::SeqCst), 3);
        })
        .join()
        .unwrap();
        // 3, 4, 6 of the first thread and 100 of the second are ended with the run.
        end_all();
        assert_eq!(ended.load(Ordering::SeqCst), 7);
    }
}
