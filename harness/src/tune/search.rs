//! The tuning loop: which trial runs next, on which seeds, and when it stops early.
//!
//! Workers (one per thread of the run) take a trial each: an unfinished one of a resumed
//! tuning first, else a new one from the sampler (trial 0 is the declared defaults). A trial
//! plays the tuning seeds in their given order, one at a time; at each rung (after
//! [`Pruner::first`] seeds, then twice as many, and so on) it is compared, seed by seed, with
//! the best finished trial on the same seeds, and stopped ("pruned") when it is clearly
//! worse (see [`Pruner`]).
//!
//! Generic over how a (values, seed) pair is played and where results go, so that the
//! tests drive it with a known function; `super` plugs in the runner and the files. The
//! only waiting is on the caller's `play`; an interrupt (`os::interrupted`) stops it.

use std::sync::Mutex;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::params::{Param, Value};
use super::tpe::{Observation, Tpe};
use super::yardstick::Yardstick;
use crate::compare::stats;
use crate::verdict::Verdict;

/// The result of one trial on one seed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SeedScore {
    pub verdict: Verdict,
    pub score: f64,
    pub think_ms: u64,
}

/// Where a trial stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Not finished (running, or interrupted before it finished).
    Running,
    /// Played every tuning seed.
    Complete,
    /// Stopped early: clearly worse than the best trial.
    Pruned,
    /// A test ended `ERR` (the harness's fault or the machine's): `--resume` plays it again.
    Error,
}

impl State {
    pub fn word(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Complete => "complete",
            State::Pruned => "pruned",
            State::Error => "error",
        }
    }

    pub fn parse(word: &str) -> Option<State> {
        [State::Running, State::Complete, State::Pruned, State::Error]
            .into_iter()
            .find(|s| s.word() == word)
    }
}

/// One set of parameter values and what it scored.
#[derive(Clone, Debug)]
pub(crate) struct Trial {
    pub id: usize,
    pub values: Vec<Value>,
    /// Per tuning seed (in the order of the seeds), once played.
    pub scores: Vec<Option<SeedScore>>,
    pub state: State,
}

impl Trial {
    /// The mean raw score of the seeds it played.
    pub fn mean(&self) -> Option<f64> {
        let played: Vec<f64> = self.scores.iter().flatten().map(|s| s.score).collect();
        (!played.is_empty()).then(|| played.iter().sum::<f64>() / played.len() as f64)
    }

    /// Tests that were not OK.
    pub fn failures(&self) -> usize {
        self.scores
            .iter()
            .flatten()
            .filter(|s| s.verdict != Verdict::Ok)
            .count()
    }

    /// Whether it may be the best: every tuning seed played, and every test OK.
    pub(crate) fn eligible(&self) -> bool {
        self.state == State::Complete && self.failures() == 0
    }
}

/// Early stopping of a clearly worse trial: a paired test against the best finished trial.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pruner {
    /// Seeds played before the first check (0: never prune).
    pub first: usize,
    /// A trial whose one-sided Wilcoxon signed-rank p-value (it is worse than the best, on
    /// the seeds both played) is below this is pruned.
    pub p: f64,
}

impl Pruner {
    /// Whether a trial that has played `played` of `total` seeds is checked now: at
    /// `first`, `2 first`, `4 first`, ... seeds, never at the last (then it is complete).
    pub(crate) fn is_rung(&self, played: usize, total: usize) -> bool {
        if self.first == 0 || played >= total || played < self.first {
            return false;
        }
        played.is_multiple_of(self.first) && (played / self.first).is_power_of_two()
    }

    /// The one-sided p-value when `trial` is clearly worse than `best` (both larger is
    /// better, paired by seed: the first `trial.len()` seeds), `None` when it is not.
    pub(crate) fn clearly_worse(&self, trial: &[f64], best: &[f64]) -> Option<f64> {
        let diffs: Vec<f64> = trial.iter().zip(best).map(|(t, b)| t - b).collect();
        let mean = diffs.iter().sum::<f64>() / diffs.len().max(1) as f64;
        if diffs.is_empty() || mean >= 0.0 {
            return None;
        }
        let p = stats::wilcoxon(&diffs).p / 2.0;
        (p < self.p).then_some(p)
    }
}

/// What the loop tells the caller as it goes (the files of the tuning).
pub(crate) trait Sink: Send {
    /// A trial played a seed.
    fn on_score(&mut self, trial: &Trial, seed: u64, score: &SeedScore);
    /// A trial began, finished or was pruned: `trials` is every trial so far.
    fn on_trials(&mut self, trials: &[Trial], note: Option<String>);
}

/// The settings of a tuning.
pub(crate) struct Plan<'a> {
    pub params: &'a [Param],
    pub seeds: &'a [u64],
    pub trials: usize,
    pub threads: usize,
    pub sampler: Tpe,
    pub pruner: Pruner,
    /// The sampler's generator for trial `t` is seeded from `(sampler_seed, t)`.
    pub sampler_seed: u64,
    /// What trials are judged by.
    pub yardstick: Yardstick,
}

/// The shared state of the workers.
struct Book<'s> {
    trials: Vec<Trial>,
    /// Trials a worker has taken.
    taken: Vec<bool>,
    sink: &'s mut dyn Sink,
}

/// Runs the tuning: trials up to `plan.trials` (including the unfinished `prior` ones, which
/// are finished first), `play` for each (values, seed). `play` returns `None` when the run
/// was interrupted. Returns every trial, and whether the tuning finished (not interrupted).
pub(crate) fn run<F>(
    plan: &Plan,
    prior: Vec<Trial>,
    sink: &mut dyn Sink,
    play: F,
) -> (Vec<Trial>, bool)
where
    F: Fn(&[Value], u64) -> Option<SeedScore> + Sync,
{
    let taken = vec![false; prior.len()];
    let book = Mutex::new(Book {
        trials: prior,
        taken,
        sink,
    });
    let interrupted = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..plan.threads.max(1) {
            scope.spawn(|| {
                if !worker(plan, &book, &play) {
                    interrupted.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            });
        }
    });
    let book = book.into_inner().expect("no worker panicked");
    let done = !interrupted.into_inner() && !crate::os::interrupted();
    (book.trials, done)
}

/// One worker: takes trials until there are enough. Returns false when interrupted.
fn worker<F>(plan: &Plan, book: &Mutex<Book>, play: &F) -> bool
where
    F: Fn(&[Value], u64) -> Option<SeedScore> + Sync,
{
    loop {
        if crate::os::interrupted() {
            return false;
        }
        let Some((id, values)) = take(plan, &mut book.lock().expect("book")) else {
            return true;
        };
        for (i, &seed) in plan.seeds.iter().enumerate() {
            let played = book.lock().expect("book").trials[id].scores[i].is_some();
            if played {
                continue;
            }
            let Some(score) = play(&values, seed) else {
                return false;
            };
            let mut book = book.lock().expect("book");
            let book = &mut *book;
            let trial = &mut book.trials[id];
            trial.scores[i] = Some(score.clone());
            book.sink.on_score(trial, seed, &score);
            if score.verdict == Verdict::HarnessError {
                trial.state = State::Error;
                let note = format!("trial {id}: seed {seed} ended ERR; --resume plays it again");
                book.sink.on_trials(&book.trials, Some(note));
                break;
            }
            let done = trial.scores.iter().filter(|s| s.is_some()).count();
            if done == plan.seeds.len() {
                trial.state = State::Complete;
                book.sink.on_trials(&book.trials, None);
                break;
            }
            if plan.pruner.is_rung(done, plan.seeds.len()) && prefix(&book.trials[id]) {
                if let Some(note) = check(plan, &mut book.trials, id, done) {
                    book.sink.on_trials(&book.trials, Some(note));
                    break;
                }
            }
        }
        // A resumed trial whose every seed was already played (it was stopped between its
        // last test and its record).
        let mut book = book.lock().expect("book");
        let book = &mut *book;
        let trial = &mut book.trials[id];
        if trial.state == State::Running && trial.scores.iter().all(|s| s.is_some()) {
            trial.state = State::Complete;
            book.sink.on_trials(&book.trials, None);
        }
    }
}

/// Whether a trial has played exactly its first seeds (what the pruner compares).
fn prefix(trial: &Trial) -> bool {
    let played = trial.scores.iter().take_while(|s| s.is_some()).count();
    played == trial.scores.iter().flatten().count()
}

/// Prunes trial `id` (after `done` seeds) when it is clearly worse than the best eligible
/// trial by the yardstick, on the seeds both have a value for; returns the note to show.
fn check(plan: &Plan, trials: &mut [Trial], id: usize, done: usize) -> Option<String> {
    let values = plan.yardstick.values(trials);
    let best = best_of(trials, &values)?;
    if best == id {
        return None;
    }
    let (mine, theirs): (Vec<f64>, Vec<f64>) = values[id][..done]
        .iter()
        .zip(&values[best][..done])
        .filter_map(|(m, t)| Some(((*m)?, (*t)?)))
        .unzip();
    let p = plan.pruner.clearly_worse(&mine, &theirs)?;
    trials[id].state = State::Pruned;
    Some(format!(
        "trial {id} pruned after {done} seeds: worse than trial {best} by {} (one-sided \
         Wilcoxon p = {})",
        plan.yardstick.describe(),
        crate::compare::report::p_value(p)
    ))
}

/// The best eligible trial by the yardstick over the tuning seeds (as the leaderboard would
/// rank the trials as players); the earlier of equals.
pub(crate) fn best(trials: &[Trial], yardstick: Yardstick) -> Option<usize> {
    best_of(trials, &yardstick.values(trials))
}

/// [`best`] with the trials' values already made.
fn best_of(trials: &[Trial], values: &[Vec<Option<f64>>]) -> Option<usize> {
    trials
        .iter()
        .filter(|t| t.eligible())
        .map(|t| (t.id, Yardstick::mark(&values[t.id])))
        .fold(None, |acc: Option<(usize, _)>, (id, m)| match acc {
            Some((_, best)) if !Yardstick::better(&m, &best) => acc,
            _ => Some((id, m)),
        })
        .map(|(id, _)| id)
}

/// What the sampler ranks a finished trial by (its `values`, larger is better): a complete
/// one by their mean; a pruned one by its mean difference to the best trial (`incumbent`) on
/// the seeds it played (seeds differ in difficulty, and pruned trials played different
/// numbers of them); `None` (never "good") for a trial with a failed test.
fn rank_score(
    trial: &Trial,
    mine: &[Option<f64>],
    incumbent: Option<&[Option<f64>]>,
) -> Option<f64> {
    if trial.failures() > 0 || trial.state == State::Error {
        return None;
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    match (trial.state, incumbent) {
        (State::Pruned, Some(best)) => {
            let diffs: Vec<f64> = mine
                .iter()
                .zip(best)
                .filter_map(|(m, b)| Some((*m)? - (*b)?))
                .collect();
            Some(mean(&diffs))
        }
        _ => Some(mean(&mine.iter().flatten().copied().collect::<Vec<f64>>())),
    }
}

/// The next trial for a worker: an untaken unfinished one, else a new one (the defaults
/// first), else none when there are enough.
fn take(plan: &Plan, book: &mut Book) -> Option<(usize, Vec<Value>)> {
    let open = book
        .trials
        .iter()
        .position(|t| t.state == State::Running && !book.taken[t.id]);
    if let Some(id) = open {
        book.taken[id] = true;
        return Some((id, book.trials[id].values.clone()));
    }
    if book.trials.len() >= plan.trials {
        return None;
    }
    let id = book.trials.len();
    let values = if id == 0 {
        super::params::defaults(plan.params)
    } else {
        let values = plan.yardstick.values(&book.trials);
        let incumbent = best_of(&book.trials, &values).map(|b| values[b].as_slice());
        let history: Vec<Observation> = book
            .trials
            .iter()
            .filter(|t| t.state != State::Running)
            .map(|t| Observation {
                values: t.values.clone(),
                score: rank_score(t, &values[t.id], incumbent),
                complete: t.state == State::Complete,
            })
            .collect();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(
            plan.sampler_seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ id as u64,
        );
        plan.sampler.sample(plan.params, &history, &mut rng)
    };
    book.trials.push(Trial {
        id,
        values: values.clone(),
        scores: vec![None; plan.seeds.len()],
        state: State::Running,
    });
    book.taken.push(true);
    book.sink.on_trials(&book.trials, None);
    Some((id, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Kept {
        scores: Vec<(usize, u64)>,
        notes: Vec<String>,
    }

    impl Sink for Kept {
        fn on_score(&mut self, trial: &Trial, seed: u64, _: &SeedScore) {
            self.scores.push((trial.id, seed));
        }
        fn on_trials(&mut self, _: &[Trial], note: Option<String>) {
            self.notes.extend(note);
        }
    }

    fn one_param() -> Vec<Param> {
        let table: toml::Table = "x = { kind = \"float\", range = [0.0, 10.0], default = 5.0 }"
            .parse()
            .unwrap();
        super::super::params::parse(&table, std::path::Path::new("t.toml"), "params").unwrap()
    }

    fn x(values: &[Value]) -> f64 {
        match values[0] {
            Value::Float(x) => x,
            _ => panic!(),
        }
    }

    /// A noisy objective: best at x = 7; a seed adds the same noise to every trial.
    fn play(values: &[Value], seed: u64) -> Option<SeedScore> {
        let noise = ((seed * 7919) % 13) as f64;
        Some(SeedScore {
            verdict: Verdict::Ok,
            score: 100.0 - (x(values) - 7.0).powi(2) + noise,
            think_ms: 1,
        })
    }

    fn plan<'a>(params: &'a [Param], seeds: &'a [u64], trials: usize, first: usize) -> Plan<'a> {
        Plan {
            params,
            seeds,
            trials,
            threads: 2,
            sampler: Tpe::default(),
            pruner: Pruner { first, p: 0.1 },
            sampler_seed: 1,
            yardstick: RAW,
        }
    }

    /// The raw score of a maximised problem, as these tests' objective is written.
    const RAW: Yardstick = Yardstick {
        objective: crate::problem::Objective::Maximize,
        rank_by: crate::config::RankBy::Raw,
    };

    #[test]
    fn the_best_trial_is_the_best_by_the_yardstick() {
        use crate::config::RankBy;
        use crate::problem::Objective;
        let ok = |score| {
            Some(SeedScore {
                verdict: Verdict::Ok,
                score,
                think_ms: 0,
            })
        };
        let trial = |id, scores: [f64; 2]| Trial {
            id,
            values: Vec::new(),
            scores: scores.iter().map(|&s| ok(s)).collect(),
            state: State::Complete,
        };
        // Minimised, seeds of very different sizes: trial 0 is best on the small seed by
        // half, trial 1 on the large one by 1/37.
        let trials = [trial(0, [3651.0, 37e6]), trial(1, [7302.0, 36e6])];
        let by = |rank_by| {
            best(
                &trials,
                Yardstick {
                    objective: Objective::Minimize,
                    rank_by,
                },
            )
        };
        assert_eq!(by(RankBy::Relative), Some(0));
        assert_eq!(by(RankBy::Log), Some(0));
        // The raw mean is decided by the large seed; rank scores tie (one win each): the
        // earlier trial.
        assert_eq!(by(RankBy::Raw), Some(1));
        assert_eq!(by(RankBy::Rank), Some(0));
        let mut failing = trials.clone();
        failing[0].scores[1] = Some(SeedScore {
            verdict: Verdict::TimeLimit,
            score: 0.0,
            think_ms: 0,
        });
        // A trial with a failed test is never the best, whatever it scored elsewhere.
        assert_eq!(
            best(
                &failing,
                Yardstick {
                    objective: Objective::Minimize,
                    rank_by: RankBy::Raw
                }
            ),
            Some(1)
        );
    }

    #[test]
    fn rungs_double_and_never_fall_on_the_last_seed() {
        let p = Pruner { first: 4, p: 0.1 };
        let rungs: Vec<usize> = (1..=40).filter(|&n| p.is_rung(n, 40)).collect();
        assert_eq!(rungs, [4, 8, 16, 32]);
        assert!(!p.is_rung(8, 8));
        assert!(!Pruner { first: 0, p: 0.1 }.is_rung(4, 40));
    }

    #[test]
    fn a_clearly_worse_trial_is_pruned_and_a_close_one_is_not() {
        let p = Pruner { first: 8, p: 0.1 };
        let best: Vec<f64> = (0..8).map(|i| 100.0 + f64::from(i)).collect();
        let worse: Vec<f64> = best
            .iter()
            .zip(1..)
            .map(|(b, i)| b - f64::from(i))
            .collect();
        // Eight losses out of eight: one-sided exact p = 1/256.
        assert_eq!(p.clearly_worse(&worse, &best), Some(1.0 / 256.0));
        let mixed: Vec<f64> = best
            .iter()
            .enumerate()
            .map(|(i, b)| if i % 2 == 0 { b - 3.0 } else { b + 2.0 })
            .collect();
        assert_eq!(p.clearly_worse(&mixed, &best), None);
        let better: Vec<f64> = best.iter().map(|b| b + 1.0).collect();
        assert_eq!(p.clearly_worse(&better, &best), None);
    }

    #[test]
    fn the_loop_prunes_bad_trials_early_and_keeps_every_seed_of_the_others() {
        let params = one_param();
        let seeds: Vec<u64> = (1..=32).collect();
        let plan = plan(&params, &seeds, 40, 4);
        let mut kept = Kept::default();
        let (trials, done) = run(&plan, Vec::new(), &mut kept, play);
        assert!(done);
        assert_eq!(trials.len(), 40);
        assert_eq!(trials[0].values, vec![Value::Float(5.0)], "defaults first");
        let pruned: Vec<&Trial> = trials.iter().filter(|t| t.state == State::Pruned).collect();
        assert!(pruned.len() >= 10, "{} pruned", pruned.len());
        for t in &pruned {
            let played = t.scores.iter().flatten().count();
            assert!(
                [4, 8, 16].contains(&played),
                "trial {} played {played}",
                t.id
            );
        }
        for t in trials.iter().filter(|t| t.state == State::Complete) {
            assert_eq!(t.scores.iter().flatten().count(), 32);
        }
        assert_eq!(kept.notes.len(), pruned.len());
        // Fewer tests than without pruning, and the best is near x = 7.
        assert!(kept.scores.len() < 40 * 32 * 3 / 4, "{}", kept.scores.len());
        let b = best(&trials, RAW).unwrap();
        assert!((x(&trials[b].values) - 7.0).abs() < 0.5, "{:?}", trials[b]);
        // Without pruning, every trial plays every seed.
        let plan = Plan {
            pruner: Pruner { first: 0, p: 0.1 },
            ..plan
        };
        let (trials, _) = run(&plan, Vec::new(), &mut Kept::default(), play);
        assert!(trials.iter().all(|t| t.state == State::Complete));
    }

    #[test]
    fn a_resumed_search_finishes_unfinished_trials_without_replaying_seeds() {
        let params = one_param();
        let seeds: Vec<u64> = (1..=8).collect();
        let plan = plan(&params, &seeds, 3, 0);
        let mut first = Trial {
            id: 0,
            values: vec![Value::Float(5.0)],
            scores: vec![None; 8],
            state: State::Running,
        };
        first.scores[..5]
            .iter_mut()
            .zip(1..)
            .for_each(|(s, seed)| *s = play(&first.values.clone(), seed));
        let mut kept = Kept::default();
        let (trials, done) = run(&plan, vec![first], &mut kept, play);
        assert!(done);
        assert_eq!(trials.len(), 3);
        assert!(trials.iter().all(|t| t.state == State::Complete));
        let replayed: Vec<u64> = kept
            .scores
            .iter()
            .filter(|(t, _)| *t == 0)
            .map(|(_, s)| *s)
            .collect();
        assert_eq!(replayed, [6, 7, 8]);
        assert_eq!(kept.scores.len(), 3 + 8 + 8);
    }

    #[test]
    fn a_harness_error_stops_a_trial_and_leaves_it_to_resume() {
        let params = one_param();
        let seeds: Vec<u64> = (1..=4).collect();
        let plan = plan(&params, &seeds, 2, 0);
        let failing = |values: &[Value], seed: u64| {
            let mut s = play(values, seed)?;
            if seed == 2 && x(values) == 5.0 {
                s.verdict = Verdict::HarnessError;
            }
            Some(s)
        };
        let (trials, _) = run(&plan, Vec::new(), &mut Kept::default(), failing);
        assert_eq!(trials[0].state, State::Error);
        assert_eq!(trials[0].scores.iter().flatten().count(), 2);
        assert_eq!(best(&trials, RAW), Some(1));
    }
}
