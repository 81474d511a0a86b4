//! Everything the user sees of a run: the progress bar, the leaderboard table, the CSV files,
//! the comparison with earlier runs, replays and the HTML report. Each is a [`Reporter`]: it
//! consumes the run's [`Event`]s, in order, and the [`RunState`] they build; none of them
//! runs players or judges.
//!
//! The executor ([`crate::execute`]) updates the state before each event reaches the
//! reporters, and calls the reporters in the order it was given them: the comparison comes
//! before the files and the table, which print and keep the relative scores it sets.

pub mod files;
pub mod html;
pub mod json;
pub(crate) mod number;
pub mod progress;
pub mod summary;
pub mod table;

pub use summary::{Standing, Summary};

use std::path::PathBuf;

use crate::problem::CaseKey;
use crate::rundir::ScoreRow;
use crate::runner::TestResult;

/// What happens in a run, in order.
#[derive(Debug)]
pub enum Event<'a> {
    /// The run is about to play its first test (the state holds the rows of a resumed run).
    RunStarted,
    /// A test is about to start.
    TestStarted {
        problem: &'static str,
        player: &'a str,
        case: &'a CaseKey,
    },
    /// A test finished, whatever its verdict; its row is the last of [`RunState::rows`].
    TestFinished(&'a TestResult),
    /// No more tests will run: every one did, or the run was interrupted
    /// ([`RunState::complete`]).
    RunFinished,
}

/// What the run knows so far, shared by every reporter.
#[derive(Debug)]
pub struct RunState {
    /// The run's id and folder (`results/<id>/`).
    pub id: String,
    pub dir: PathBuf,
    /// The rows of every finished test, in the order they finished (a resumed run's first).
    pub rows: Vec<ScoreRow>,
    /// The leaderboard so far (relative scores are set once the run ends).
    pub summary: Summary,
    /// Tests of the plan left to play when the run started.
    pub to_play: u64,
    /// Whether every planned test ran (meaningful once the run has finished).
    pub complete: bool,
    /// Lines to show before the first test (skipped players, isolation, resumed tests).
    pub notes: Vec<String>,
    /// Lines to show under the leaderboard (players that changed during the run, the
    /// comparison with earlier runs).
    pub footer: Vec<String>,
}

impl RunState {
    /// The state of a run that has played nothing yet, with `summary` its empty leaderboard
    /// and `to_play` tests ahead.
    pub fn new(id: &str, dir: &std::path::Path, summary: Summary, to_play: u64) -> RunState {
        RunState {
            id: id.to_string(),
            dir: dir.to_path_buf(),
            rows: Vec::new(),
            summary,
            to_play,
            complete: false,
            notes: Vec::new(),
            footer: Vec::new(),
        }
    }

    /// Counts a finished test: its row joins the rows and the leaderboard.
    pub fn add(&mut self, row: ScoreRow) {
        self.summary.add(&row);
        self.rows.push(row);
    }
}

/// One consumer of a run's events. An error is the harness's: results that cannot be kept
/// stop the run (exit 1); a reporter whose output is optional (replays) says so itself and
/// returns `Ok`.
pub trait Reporter {
    fn on_event(&mut self, event: &Event<'_>, state: &mut RunState) -> Result<(), String>;
}
