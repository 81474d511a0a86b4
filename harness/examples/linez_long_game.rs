//! Records one long Linez game for the harness's own tests and `harness bench`
//! (`testcases/linez/long-game-1.txt`, see `testcases/linez/README.md`).
//!
//! The player here is clairvoyant, not a competitor: it clones the judge's game, random
//! stream included, and tries every legal move on the copy, so it sees exactly where the
//! numbers will land and what `nextThree` comes next. It runs a beam search over that exact
//! future (`BEAM` states, default 6): each step expands every state kept by all its legal
//! moves and keeps the best by 30 x score + an evaluation of the board (free cells, lines
//! nearly made, one open region). Every move it writes is a move of the real game; the tests
//! play the file back through the judge, which checks each one.
//!
//! `BEAM=4 cargo run --release -p harness --example linez_long_game -- SEED MOVES OUT [PREFIX]`
//! (PREFIX: a file of first moves to play before searching, one a line).

use std::rc::Rc;

use harness::config::ProblemConfig;
use harness::problem::linez::{Board, Cell, Linez, LinezGame, CELLS, MIN_LINE, SIDE};
use harness::problem::{CaseKey, Env};

/// Every legal move of a board, as (from, to).
fn legal_moves(board: &Board) -> Vec<(Cell, Cell)> {
    let mut out = Vec::new();
    for from in (0..CELLS).map(Cell::from_index) {
        if board.get(from) == 0 {
            continue;
        }
        let mut reach = board.reachable_from(from);
        while reach != 0 {
            let to = reach.trailing_zeros() as usize;
            reach &= reach - 1;
            out.push((from, Cell::from_index(to)));
        }
    }
    out
}

/// The windows of 5 cells in a row, column or diagonal.
fn windows() -> Vec<[usize; MIN_LINE]> {
    let mut out = Vec::new();
    let n = SIDE as isize;
    for (dr, dc) in [(0isize, 1isize), (1, 0), (1, 1), (1, -1)] {
        for r in 0..n {
            for c in 0..n {
                let end = (r + dr * 4, c + dc * 4);
                if !(0..n).contains(&end.0) || !(0..n).contains(&end.1) {
                    continue;
                }
                out.push(std::array::from_fn(|k| {
                    ((r + dr * k as isize) * n + c + dc * k as isize) as usize
                }));
            }
        }
    }
    out
}

/// How good a board is for surviving: free cells, lines nearly made, one open region.
fn evaluate(board: &Board, windows: &[[usize; MIN_LINE]]) -> f64 {
    let cells: Vec<u8> = (0..CELLS).map(|i| board.get(Cell::from_index(i))).collect();
    let empty = cells.iter().filter(|&&n| n == 0).count() as f64;
    let mut potential = 0.0;
    for w in windows {
        let mut colour = 0u8;
        let mut count = 0;
        let mut mixed = false;
        for &i in w {
            match (cells[i], colour) {
                (0, _) => {}
                (n, 0) => {
                    colour = n;
                    count += 1;
                }
                (n, c) if n == c => count += 1,
                _ => mixed = true,
            }
        }
        if !mixed {
            potential += [0.0, 0.0, 1.0, 4.0, 10.0, 0.0][count];
        }
    }
    // Empty regions: a board cut into pockets leaves numbers with nowhere to go.
    let mut seen = 0u128;
    let mut regions = 0;
    let mask = board.empty_mask();
    for i in 0..CELLS {
        if mask >> i & 1 == 1 && seen >> i & 1 == 0 {
            regions += 1;
            let mut stack = vec![i];
            seen |= 1 << i;
            while let Some(j) = stack.pop() {
                let (r, c) = (j / SIDE, j % SIDE);
                let mut next = Vec::new();
                if r > 0 {
                    next.push(j - SIDE);
                }
                if r + 1 < SIDE {
                    next.push(j + SIDE);
                }
                if c > 0 {
                    next.push(j - 1);
                }
                if c + 1 < SIDE {
                    next.push(j + 1);
                }
                for k in next {
                    if mask >> k & 1 == 1 && seen >> k & 1 == 0 {
                        seen |= 1 << k;
                        stack.push(k);
                    }
                }
            }
        }
    }
    let crowded = if empty < 12.0 {
        (12.0 - empty) * 40.0
    } else {
        0.0
    };
    20.0 * empty + 3.0 * potential - 15.0 * (regions as f64 - 1.0).max(0.0) - crowded
}

/// The exact result of each legal move: (points, move, game after).
fn successors(game: &LinezGame) -> Vec<(u64, (Cell, Cell), LinezGame)> {
    let mut out = Vec::new();
    for (from, to) in legal_moves(&game.board) {
        let mut next = game.clone();
        if let Ok(points) = next.try_turn(&format!("{from}{to}")) {
            out.push((points, (from, to), next));
        }
    }
    out
}

/// The moves that led to a state of the beam, newest first, shared between states.
struct Path {
    line: String,
    before: Option<Rc<Path>>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (seed, moves, out, prefix) = match &args[..] {
        [_, seed, moves, out] => (seed, moves, out, None),
        [_, seed, moves, out, prefix] => (seed, moves, out, Some(prefix)),
        _ => {
            eprintln!("usage: linez_long_game SEED MOVES OUT [PREFIX]");
            std::process::exit(2);
        }
    };
    let seed: u64 = seed.parse().expect("SEED is a number");
    let wanted: u64 = moves.parse().expect("MOVES is a number");
    let env = Env {
        testcases: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
        config: ProblemConfig::default(),
        secret: None,
    };
    let mut game = Linez::game(&CaseKey::Seed(seed), &env).expect("a generated game");
    // The first moves from a file (an earlier search's, cut before its beam collapsed).
    let mut root: Option<Rc<Path>> = None;
    let mut start = 0u64;
    if let Some(prefix) = prefix {
        for line in std::fs::read_to_string(prefix)
            .expect("read PREFIX")
            .lines()
        {
            start += game.try_turn(line).expect("a legal move");
            root = Some(Rc::new(Path {
                line: line.to_string(),
                before: root,
            }));
        }
    }
    let game = game;
    let windows = windows();
    let width: usize = std::env::var("BEAM")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(6);
    // A beam search over the exact future: each state has its score and its moves so far,
    // and is ranked by 30 x score + the evaluation of its board.
    type State = (f64, u64, Option<Rc<Path>>, LinezGame);
    let mut depth = root.as_ref().map_or(0, |_| {
        let mut n = 0;
        let mut p = root.clone();
        while let Some(q) = p {
            n += 1;
            p = q.before.clone();
        }
        n
    });
    let mut beam: Vec<State> = vec![(0.0, start, root, game)];
    while depth < wanted {
        let mut next: Vec<State> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (_, score, path, state) in &beam {
            for (points, (from, to), after) in successors(state) {
                if !seen.insert((after.board, after.next_three)) {
                    continue;
                }
                let total = score + points;
                let value = 30.0 * total as f64 + evaluate(&after.board, &windows);
                let path = Some(Rc::new(Path {
                    line: format!("{from}{to}"),
                    before: path.clone(),
                }));
                next.push((value, total, path, after));
            }
        }
        if next.is_empty() {
            break;
        }
        next.sort_by(|a, b| b.0.total_cmp(&a.0));
        next.truncate(width);
        beam = next;
        depth += 1;
        if depth.is_multiple_of(500) {
            eprintln!(
                "{depth} moves, score {}, {} empty",
                beam[0].1,
                beam[0].3.board.empty_count()
            );
        }
    }
    let (_, score, mut path, _) = beam.swap_remove(0);
    let mut played = Vec::new();
    while let Some(p) = path {
        played.push(p.line.clone());
        path = p.before.clone();
    }
    played.reverse();
    eprintln!("{} moves, score {score}", played.len());
    std::fs::write(out, played.join("\n") + "\n").expect("write OUT");
}
