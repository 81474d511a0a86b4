//! Threads of the harness's own that run jobs off every test's path ([`OffPath`]): the
//! removal of tools' and process-mode tests' folders ([`JANITOR`]) and the making of the
//! folders of tests to come ([`AHEAD`], [`MadeAhead`]). They run at the lowest CPU priority,
//! outside every worker's cpu group and CPU, and start no test ([`off_path_thread`]).
//! Touches only the jobs it is given.

use std::time::Duration;

/// A thread of the harness's own that runs jobs one after another, off every test's path;
/// started by its first job. It runs in the harness's own cpu group, on any CPU (never in the
/// group or on the CPU of the worker that started it) at the lowest CPU priority
/// (`SCHED_IDLE`): a test's processes always go first, and a CPU with only this thread on it
/// counts as free for them.
pub struct OffPath {
    name: &'static str,
    sender: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<Job>>>,
    /// Jobs given and not yet run.
    queued: std::sync::atomic::AtomicUsize,
}

/// Most jobs [`OffPath::run_bounded`] leaves queued: on a machine whose CPUs the tests keep
/// busy, the thread may get little time, and what it removes (folders a player may have
/// filled to its disk limit) must not pile up.
const MOST_QUEUED: usize = 8;

type Job = Box<dyn FnOnce() + Send>;

/// Removes the tools' folders ([`ToolDir::dispose`]).
pub static JANITOR: OffPath = OffPath::new("harness-tool-janitor");

/// Makes the folders of tests to come (a batch judge's, a process-mode player's), so that a
/// test need not wait for new inodes before its launch: [`MadeAhead`].
pub static AHEAD: OffPath = OffPath::new("harness-ahead");

thread_local! {
    /// This thread is one of [`OffPath`]'s.
    static OFF_PATH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread is one of [`OffPath`]'s: at the lowest CPU priority, which
/// whatever it started would inherit and could never leave, so it must start no test.
pub(crate) fn off_path_thread() -> bool {
    OFF_PATH.try_with(|o| o.get()).unwrap_or(false)
}

/// Things made on [`AHEAD`] for the tests to come: those ready, and how many are being made.
/// Each is used by one test only.
#[derive(Debug)]
pub struct MadeAhead<T> {
    pub ready: Vec<T>,
    pub making: usize,
}

impl<T> Default for MadeAhead<T> {
    fn default() -> Self {
        MadeAhead {
            ready: Vec::new(),
            making: 0,
        }
    }
}

impl<T> MadeAhead<T> {
    /// Takes a ready one, if any, and says whether one more is to be made ahead (counted as
    /// being made from now): at most `most` ready or being made at once.
    pub fn take(&mut self, most: usize) -> (Option<T>, bool) {
        let ready = self.ready.pop();
        let order = self.ready.len() + self.making < most;
        if order {
            self.making += 1;
        }
        (ready, order)
    }

    /// One made ahead is done (kept when `made` is one).
    pub fn made(&mut self, made: Option<T>) {
        self.making = self.making.saturating_sub(1);
        self.ready.extend(made);
    }
}

impl OffPath {
    pub const fn new(name: &'static str) -> OffPath {
        OffPath {
            name,
            sender: std::sync::OnceLock::new(),
            queued: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Runs `job` on this thread, or here when [`MOST_QUEUED`] jobs already wait for it.
    pub fn run_bounded(&'static self, job: Job) {
        if self.queued.load(std::sync::atomic::Ordering::Relaxed) >= MOST_QUEUED {
            job();
        } else {
            self.run(job);
        }
    }

    /// Waits, at most `most`, until every job given so far has run: the end of a run, so
    /// that nothing of it is made or removed after (a job holds no run's isolation, whose
    /// end waits here).
    pub fn settle(&'static self, most: Duration) {
        if self.sender.get().is_none() {
            return;
        }
        let (done, ran) = std::sync::mpsc::channel::<()>();
        self.run(Box::new(move || {
            let _ = done.send(());
        }));
        let _ = ran.recv_timeout(most);
    }

    /// Runs `job` on this thread; without the thread (it could not start), here.
    pub fn run(&'static self, job: Job) {
        use std::sync::atomic::Ordering;
        let sender = self.sender.get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            let queued = &self.queued;
            // Started by a test's thread, maybe during a game: not in its worker's cpu group
            // (born there, it would stay there), not on its CPU, nor in front of any test's
            // processes.
            let _ = super::cgroup::outside_worker_cpu(|| {
                std::thread::Builder::new()
                    .name(self.name.into())
                    .spawn(move || {
                        OFF_PATH.with(|o| o.set(true));
                        super::sys::unpin();
                        super::sys::lowest_priority();
                        for job in rx {
                            job();
                            queued.fetch_sub(1, Ordering::Relaxed);
                        }
                    })
            });
            std::sync::Mutex::new(tx)
        });
        let sender = sender.lock().unwrap_or_else(|e| e.into_inner());
        self.queued.fetch_add(1, Ordering::Relaxed);
        if let Err(back) = sender.send(job) {
            self.queued.fetch_sub(1, Ordering::Relaxed);
            (back.0)();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{off_path_thread, OffPath};

    #[test]
    fn an_off_path_thread_is_at_the_lowest_priority_and_known_as_one() {
        static THREAD: OffPath = OffPath::new("harness-test-off-path");
        let (tx, rx) = std::sync::mpsc::channel();
        THREAD.run(Box::new(move || {
            // SAFETY: pid 0 is the calling thread; no memory is passed (rustix has no
            // sched_getscheduler).
            let policy = unsafe { libc::sched_getscheduler(0) };
            let _ = tx.send((off_path_thread(), policy));
        }));
        let (flagged, policy) = rx.recv().expect("the job ran");
        assert!(flagged, "the job's thread does not know it is off the path");
        assert_eq!(policy, libc::SCHED_IDLE);
        // A launch from there is refused (`launch_on`); this thread is not one of them.
        assert!(!off_path_thread());
    }
}
