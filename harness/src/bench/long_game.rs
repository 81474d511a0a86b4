//! The harness's own time per move (the judge and the run's transcript recorder, the player
//! in memory) over the first 1,000 moves of a problem's recorded long game and over all of
//! it, side by side, with the disk its transcript takes and the size of its replay page.
//! Reads the recorded game; starts no process.

use std::time::Instant;

use super::figures::per_move;
use crate::problem::{self, CaseKey, Channel, Env};

/// The moves of one window: the short game's length, and the step of the long game's clock.
const WINDOW: usize = 1_000;

/// The lines of a problem's long games, `None` for a problem without a recorded long game.
pub(super) fn long_game_cost(
    problem: &dyn problem::Problem,
    testcases: &std::path::Path,
) -> Option<Result<Vec<String>, String>> {
    let mut env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
        secret: None,
    };
    let (key, moves) = match problem.long_game(&env)? {
        Ok(game) => game,
        Err(e) => return Some(Err(e.to_string())),
    };
    let mut lines = vec![format!(
        "\nlong games of {} (recorded: {} moves of {}; judge + transcript, player in memory):",
        problem.id(),
        moves.len(),
        key.label()
    )];
    // Each game is played 9 times; every window of 1,000 moves keeps its best time, so that
    // a pause of the machine (a long game is more often interrupted) is not taken for the
    // harness's cost.
    let mut windows: Vec<Vec<f64>> = Vec::new();
    for length in [WINDOW, moves.len()] {
        if length > moves.len() {
            continue;
        }
        // The game ends at its last recorded move, as a run with this move cap would.
        env.config.move_cap = length as u64;
        let (best, stored) = match best_windows(problem, &key, &env, &moves[..length], WINDOW) {
            Ok(found) => found,
            Err(e) => return Some(Err(e)),
        };
        lines.push(game_line(length, &best, stored));
        windows.push(best);
    }
    if let [short, long] = &windows[..] {
        lines.push(growth_line(moves.len(), short, long));
    }
    if let Some(line) = long_page(problem, &key, &env, &moves) {
        lines.push(line);
    }
    Some(Ok(lines))
}

/// The line of a game of `length` moves: the mean of its windows' best times, and the bytes
/// of its transcript (`stored`) per move.
fn game_line(length: usize, best: &[f64], stored: usize) -> String {
    let mean = best.iter().sum::<f64>() / best.len() as f64;
    format!(
        "  {length:>6}-move game   {mean:8.3} us/move   transcript {:.1} bytes/move",
        stored as f64 / length as f64
    )
}

/// The line comparing the long game's last window with the short game of `total` moves.
fn growth_line(total: usize, short: &[f64], long: &[f64]) -> String {
    let last = long[long.len() - 1];
    format!(
        "  moves {}..{} of the long game {last:8.3} us/move; / the {WINDOW}-move game: {:.2}x   (target ~1.00x: no growth with length)",
        total - WINDOW + 1,
        total,
        last / short[0]
    )
}

/// Plays the recorded game (`moves`) 9 times; each window of `window` moves keeps its best
/// time per move. Returns those, and the bytes of the transcript stored.
fn best_windows(
    problem: &dyn problem::Problem,
    key: &CaseKey,
    env: &Env,
    moves: &[String],
    window: usize,
) -> Result<(Vec<f64>, usize), String> {
    let length = moves.len();
    let mut best = vec![f64::MAX; length / window];
    let mut stored = 0;
    for _ in 0..9 {
        let mut game = match problem.case(key, env) {
            Ok(game) => game,
            Err(e) => return Err(e.to_string()),
        };
        let mut player = crate::transcript::Replayed::new(moves.to_vec());
        let mut recorder = crate::transcript::Recorder::for_problem(problem, &mut player);
        let mut clocked = Clocked {
            inner: &mut recorder,
            answers: 0,
            every: window,
            times: Vec::with_capacity(length / window + 1),
        };
        clocked.times.push(Instant::now());
        let outcome = game.play(&mut clocked);
        clocked.times.push(Instant::now());
        if outcome.moves != length as u64 {
            return Err(format!(
                "the recorded game ended after {} of {length} moves: {}",
                outcome.moves, outcome.reason
            ));
        }
        keep_best(&mut best, &clocked.times, window);
        drop(clocked);
        stored = recorder.text.len();
    }
    Ok((best, stored))
}

/// Lowers each window's best time per move to this play's, from its clock `marks` (the
/// start, every `window`-th answer, the end). The first window runs from the start to the
/// first move of the second window; a window without a mark of its own ends at the end.
fn keep_best(best: &mut [f64], marks: &[Instant], window: usize) {
    for (w, slot) in best.iter_mut().enumerate() {
        let end = marks.get(w + 1).copied().unwrap_or(marks[marks.len() - 1]);
        *slot = slot.min(per_move(end - marks[w], window as u64));
    }
}

/// The size of the replay page of the recorded game, and the time to build it.
fn long_page(
    problem: &dyn problem::Problem,
    key: &CaseKey,
    env: &Env,
    moves: &[String],
) -> Option<String> {
    let views = problem.views()?;
    let start = Instant::now();
    match views.page_data(key, env, moves) {
        Ok(data) => {
            let page = crate::replay::page::render(&crate::replay::Replay {
                problem: problem.id().to_string(),
                player: "recorded".into(),
                seed: key.to_string(),
                score: 0.0,
                recorded_score: 0.0,
                verdict: "OK".into(),
                reason: String::new(),
                data,
                script: views.page_script(),
            });
            Some(format!(
                "  replay page of the {}-move game: {:.2} MB, built in {:.0} ms",
                moves.len(),
                page.len() as f64 / 1e6,
                start.elapsed().as_secs_f64() * 1e3
            ))
        }
        Err(e) => Some(format!("  replay page: {e}")),
    }
}

/// A channel that notes the time at every `every`-th answer it passes on (after the first).
struct Clocked<'a> {
    inner: &'a mut dyn Channel,
    answers: usize,
    every: usize,
    times: Vec<Instant>,
}

impl Channel for Clocked<'_> {
    fn send(&mut self, text: &str) -> Result<(), crate::verdict::Fault> {
        self.inner.send(text)
    }

    fn recv(&mut self) -> Result<&str, crate::verdict::Fault> {
        if self.answers > 0 && self.answers.is_multiple_of(self.every) {
            self.times.push(Instant::now());
        }
        self.answers += 1;
        self.inner.recv()
    }

    fn recv_to_end(&mut self) -> Result<&str, crate::verdict::Fault> {
        self.inner.recv_to_end()
    }

    fn understood(&mut self, canonical: &str) {
        self.inner.understood(canonical);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_games_line_gives_the_mean_of_its_windows() {
        assert_eq!(
            game_line(2000, &[1.0, 2.0], 9000),
            "    2000-move game      1.500 us/move   transcript 4.5 bytes/move"
        );
    }

    #[test]
    fn the_growth_line_sets_the_last_window_against_the_short_game() {
        assert_eq!(
            growth_line(5000, &[2.0], &[2.0, 2.2, 2.4, 2.6, 3.0]),
            "  moves 4001..5000 of the long game    3.000 us/move; / the 1000-move game: 1.50x   (target ~1.00x: no growth with length)"
        );
    }

    #[test]
    fn each_window_keeps_its_best_time_per_move() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut best = [f64::MAX, 500.0];
        // Windows of 10 moves: 0..20 ms, then 20..21 ms (the end).
        keep_best(&mut best, &[at(0), at(20), at(21)], 10);
        assert_eq!(best, [2000.0, 100.0]);
        // A slower play lowers nothing.
        keep_best(&mut best, &[at(0), at(30), at(32)], 10);
        assert_eq!(best, [2000.0, 100.0]);
    }
}
