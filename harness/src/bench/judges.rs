//! The judges' own cost, in process and without a player: time per move and transcript
//! bytes of each interactive problem's judge, its long games ([`super::long_game`]), and each
//! reference solver's time over its fixed tests. Reads the test cases; starts no process.

use std::path::Path;
use std::time::{Duration, Instant};

use super::figures::per_move;
use super::long_game::long_game_cost;
use crate::problem::{self, CaseKey, Env};

/// The judges' own cost per move and transcript bytes, long games, reference solvers.
pub(super) fn judges(testcases: &Path) {
    for problem in problem::all() {
        if let Some(judged) = judge_cost(problem.as_ref(), testcases) {
            println!("{}", judged_line(problem.id(), &judged));
        }
    }

    for problem in problem::all() {
        match long_game_cost(problem.as_ref(), testcases) {
            None => {}
            Some(Err(e)) => println!("  long games of {}: {e}", problem.id()),
            Some(Ok(lines)) => lines.iter().for_each(|l| println!("{l}")),
        }
    }

    for problem in problem::all() {
        if let Some((cases, per_pass)) = solver_cost(problem.as_ref(), testcases) {
            println!(
                "  reference solver of {:<16} {:8.3} ms per pass over its {cases} fixed tests",
                problem.id(),
                per_pass * 1e3
            );
        }
    }
}

/// What the judge of an interactive problem costs over some games of its bench player.
struct Judged {
    us_per_move: f64,
    moves: u64,
    tests: u64,
    /// Bytes of the games' transcripts.
    transcript_bytes: u64,
}

/// The line of the judge of problem `id`.
fn judged_line(id: &str, judged: &Judged) -> String {
    format!(
        "  judge of {:<20} {:8.3} us/move (in-process, no player); transcript {:.1} bytes/move, {:.0} bytes/test",
        id,
        judged.us_per_move,
        judged.transcript_bytes as f64 / judged.moves as f64,
        judged.transcript_bytes as f64 / judged.tests as f64,
    )
}

/// The judge's own time per move for an interactive problem: a game is played once by the
/// problem's bench player and recorded, then the recorded answers are replayed from memory
/// against a fresh copy of the game, timed. `None` for problems without a bench player.
fn judge_cost(problem: &dyn problem::Problem, testcases: &Path) -> Option<Judged> {
    let env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
        secret: None,
    };
    let mut moves = 0u64;
    let mut total = Duration::ZERO;
    let mut transcript_bytes = 0u64;
    const GAMES: u64 = 20;
    for seed in 1..=GAMES {
        let key = CaseKey::Seed(seed);
        let mut player = problem.bench_player(&key, &env)?;
        let mut recorder = crate::transcript::Recorder::for_problem(problem, player.as_mut());
        problem.case(&key, &env).ok()?.play(&mut recorder);
        transcript_bytes += recorder.text.len() as u64;
        let answers = crate::transcript::answers(&recorder.text);
        let mut replay = crate::transcript::Replayed::new(answers);
        let mut game = problem.case(&key, &env).ok()?;
        let start = Instant::now();
        let outcome = game.play(&mut replay);
        total += start.elapsed();
        moves += outcome.moves.max(1);
    }
    Some(Judged {
        us_per_move: per_move(total, moves),
        moves,
        tests: GAMES,
        transcript_bytes,
    })
}

/// The reference solver's time for one pass over a problem's fixed tests (best of 10 passes),
/// with the number of tests; `None` for problems without fixed tests or a solver.
fn solver_cost(problem: &dyn problem::Problem, testcases: &Path) -> Option<(usize, f64)> {
    let env = Env {
        testcases: testcases.to_path_buf(),
        config: Default::default(),
        secret: None,
    };
    let keys = problem.fixed_cases(&env).ok()?;
    let inputs: Vec<String> = keys
        .iter()
        .filter_map(|k| problem.case(k, &env).ok().map(|g| g.describe()))
        .collect();
    if inputs.is_empty() {
        return None;
    }
    let mut best = f64::MAX;
    for _ in 0..10 {
        let start = Instant::now();
        for input in &inputs {
            problem.solve(input)?.ok()?;
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    Some((inputs.len(), best))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judges_line_gives_its_bytes_per_move_and_per_test() {
        let judged = Judged {
            us_per_move: 1.5,
            moves: 400,
            tests: 20,
            transcript_bytes: 2000,
        };
        assert_eq!(
            judged_line("linez", &judged),
            "  judge of linez                   1.500 us/move (in-process, no player); transcript 5.0 bytes/move, 100 bytes/test"
        );
    }
}
