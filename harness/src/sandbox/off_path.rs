//! Threads of the harness's own that run jobs off every test's path ([`OffPath`]): the
//! removal of tools' and process-mode tests' folders ([`JANITOR`]) and the making of the
//! folders of tests to come ([`AHEAD`], [`MadeAhead`]). They run at the lowest CPU priority,
//! outside every worker's cpu group and CPU, and start no test ([`off_path_thread`]); at a
//! run's end what they have not begun runs on the run's own thread ([`OffPath::settle`]).
//! Touches only the jobs it is given.

use std::time::Duration;

/// A thread of the harness's own that runs jobs one after another, off every test's path;
/// started by its first job. It runs in the harness's own cpu group, on any CPU (never in the
/// group or on the CPU of the worker that started it) at the lowest CPU priority
/// (`SCHED_IDLE`): a test's processes always go first, and a CPU with only this thread on it
/// counts as free for them.
pub struct OffPath {
    name: &'static str,
    /// The jobs given and not yet begun, and whether the thread is running one; the thread
    /// waits on `wake` for more.
    queue: std::sync::Mutex<Queue>,
    wake: std::sync::Condvar,
    /// The thread is started (or could not be: jobs then run where they are given).
    started: std::sync::OnceLock<bool>,
}

/// [`OffPath`]'s jobs waiting, and whether its thread is running one now.
struct Queue {
    jobs: std::collections::VecDeque<Job>,
    running: bool,
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
            queue: std::sync::Mutex::new(Queue {
                jobs: std::collections::VecDeque::new(),
                running: false,
            }),
            wake: std::sync::Condvar::new(),
            started: std::sync::OnceLock::new(),
        }
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job` on this thread, or here when [`MOST_QUEUED`] jobs already wait for it.
    pub fn run_bounded(&'static self, job: Job) {
        if self.queue().jobs.len() >= MOST_QUEUED {
            job();
        } else {
            self.run(job);
        }
    }

    /// Runs, at most for `most`, every job given so far: the end of a run, so that nothing of
    /// it is made or removed after (a job holds no run's isolation, whose end waits here).
    /// The jobs not yet begun run here, on the caller's thread: the thread's lowest priority
    /// may get it no CPU at all on a machine that other programs keep busy (and an
    /// unprivileged process cannot raise it); then the one it is running, if any, is waited
    /// for.
    pub fn settle(&'static self, most: Duration) {
        let deadline = std::time::Instant::now() + most;
        loop {
            let next = self.queue().jobs.pop_front();
            match next {
                Some(job) => job(),
                None => break,
            }
        }
        let mut queue = self.queue();
        while queue.running {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return;
            }
            queue = match self.wake.wait_timeout(queue, left) {
                Ok((queue, _)) => queue,
                Err(e) => e.into_inner().0,
            };
        }
    }

    /// Runs `job` on this thread; without the thread (it could not start), here.
    pub fn run(&'static self, job: Job) {
        if !*self.started.get_or_init(|| self.start()) {
            return job();
        }
        self.queue().jobs.push_back(job);
        self.wake.notify_all();
    }

    /// Starts the thread; whether it could be.
    fn start(&'static self) -> bool {
        // Started by a test's thread, maybe during a game: not in its worker's cpu group
        // (born there, it would stay there), not on its CPU, nor in front of any test's
        // processes.
        let started = super::cgroup::outside_worker_cpu(|| {
            std::thread::Builder::new()
                .name(self.name.into())
                .spawn(move || {
                    OFF_PATH.with(|o| o.set(true));
                    super::sys::unpin();
                    super::sys::lowest_priority();
                    self.serve();
                })
        });
        started.is_ok()
    }

    /// The thread: runs the jobs as they come, one after another, for ever.
    fn serve(&self) {
        let mut queue = self.queue();
        loop {
            match queue.jobs.pop_front() {
                Some(job) => {
                    queue.running = true;
                    drop(queue);
                    // A job that panics ends alone: the thread goes on, and is not left
                    // "running" for a settle to wait for in vain.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    queue = self.queue();
                    queue.running = false;
                    // A settle may wait for the job it was running.
                    self.wake.notify_all();
                }
                None => {
                    queue = match self.wake.wait(queue) {
                        Ok(queue) => queue,
                        Err(e) => e.into_inner(),
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{off_path_thread, OffPath};

    /// A thread that gets no CPU (here: busy with a job that waits) does not hold up a run's
    /// end: the jobs it has not begun run on the settling thread, and the settle returns
    /// within its bound even while the job it is running goes on.
    #[test]
    fn a_settle_runs_the_jobs_the_thread_has_not_begun() {
        static THREAD: OffPath = OffPath::new("harness-test-settle");
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let (began, begun) = std::sync::mpsc::channel::<()>();
        THREAD.run(Box::new(move || {
            let _ = began.send(());
            let _ = blocked.recv();
        }));
        begun.recv().expect("the first job began");
        let (ran, runs) = std::sync::mpsc::channel();
        for i in 0..3 {
            let ran = ran.clone();
            THREAD.run(Box::new(move || {
                let _ = ran.send((i, std::thread::current().name().map(String::from)));
            }));
        }
        THREAD.settle(std::time::Duration::from_millis(50));
        let done: Vec<_> = runs.try_iter().collect();
        let here = std::thread::current().name().map(String::from);
        assert_eq!(
            done,
            (0..3).map(|i| (i, here.clone())).collect::<Vec<_>>(),
            "the queued jobs ran here, in order, before the settle returned"
        );
        release.send(()).expect("the first job still waits");
    }

    /// A job that panics does not end the thread: the next job still runs on it.
    #[test]
    fn a_job_that_panics_leaves_the_thread_running_the_next() {
        static THREAD: OffPath = OffPath::new("harness-test-panic");
        // A panic without the panic hook's message and backtrace: on a machine kept busy by
        // other programs, this lowest-priority thread gets next to no CPU, and a debug
        // build's backtrace takes it many seconds of it.
        THREAD.run(Box::new(|| {
            std::panic::resume_unwind(Box::new("a job that fails"))
        }));
        let (ran, runs) = std::sync::mpsc::channel();
        THREAD.run(Box::new(move || {
            let _ = ran.send(std::thread::current().name().map(String::from));
        }));
        let name = runs
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the job after the panic ran");
        assert_eq!(name.as_deref(), Some("harness-test-panic"));
    }

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
