//! Linez replays. The judge itself is played one move at a time
//! ([`super::LinezGame::try_turn`]), so every landing and every point is the judge's own.
//!
//! [`page_data`] is what a replay page holds: the starting position and, per move, the move
//! and where the judge landed numbers after it, a few bytes a move whatever the game's
//! length; the page's script (`expand` in `view.js`) applies them with the rules to draw
//! every frame. [`frames`] computes the same frames here, from the judge's boards (comparing
//! boards before and after a move to say what moved, what was removed and what landed): the
//! reference the tests hold the page's frames to.

use std::collections::VecDeque;
use std::fmt::Write as _;

use serde_json::{json, Value};

use super::{parse_move, Board, Cell, LinezGame, CELLS, SIDE};

/// A board as 81 digits, row by row (0 for an empty cell).
fn digits(board: &Board) -> String {
    (0..CELLS)
        .map(|i| char::from(b'0' + board.get(Cell::from_index(i))))
        .collect()
}

/// The record of a game for the replay page: `cells` (81 digits) and `next` (3 digits) of
/// the start, then `moves`, one string per accepted move in the judge's notation: `I8F6`,
/// followed by one ` CELLS=NEXT` per landing after it (`I8F6 A1B2C3=254`: the numbers of
/// `nextThree` landed on A1, B2, C3 in order, then 254 was drawn; fewer cells when the board
/// filled; a second landing when a removal emptied the board). A refused move ends the
/// record with `error` (`move`: the moves accepted before it, `reason`: the judge's,
/// `allowed`: the cells it could have used).
pub(super) fn page_data(mut game: LinezGame, answers: &[String]) -> Value {
    let start = json!({"cells": digits(&game.board), "next": next_digits(game.next_three)});
    let mut moves = Vec::with_capacity(answers.len());
    let mut error = Value::Null;
    for (i, answer) in answers.iter().enumerate() {
        let before = game.board;
        match game.try_turn_landings(answer) {
            Ok((_, landings)) => {
                let (from, to) = parse_move(answer).expect("the judge accepted it");
                let mut record = format!("{from}{to}");
                for (landing, next) in landings {
                    record.push(' ');
                    for cell in landing.cells() {
                        let _ = write!(record, "{cell}");
                    }
                    record.push('=');
                    record.push_str(&next_digits(next));
                }
                moves.push(record);
            }
            Err(reason) => {
                let allowed = allowed(&before, answer);
                error = json!({"move": i, "reason": reason, "allowed": allowed});
                break;
            }
        }
    }
    json!({"cells": start["cells"], "next": start["next"], "moves": moves, "error": error})
}

fn next_digits(next: [u8; 3]) -> String {
    next.iter().map(|&n| char::from(b'0' + n)).collect()
}

fn cells(board: &Board) -> Vec<u8> {
    (0..CELLS).map(|i| board.get(Cell::from_index(i))).collect()
}

/// A shortest path of empty cells from `from` to `to` (both included), for drawing the move.
fn path(board: &Board, from: Cell, to: Cell) -> Vec<usize> {
    let mut prev = [usize::MAX; CELLS];
    let mut queue = VecDeque::from([from.index()]);
    prev[from.index()] = from.index();
    while let Some(i) = queue.pop_front() {
        if i == to.index() {
            break;
        }
        let (r, c) = (i / SIDE, i % SIDE);
        let mut next = Vec::with_capacity(4);
        if r > 0 {
            next.push(i - SIDE);
        }
        if r + 1 < SIDE {
            next.push(i + SIDE);
        }
        if c > 0 {
            next.push(i - 1);
        }
        if c + 1 < SIDE {
            next.push(i + 1);
        }
        for n in next {
            if prev[n] == usize::MAX && board.get(Cell::from_index(n)) == 0 {
                prev[n] = i;
                queue.push_back(n);
            }
        }
    }
    if prev[to.index()] == usize::MAX {
        return vec![from.index(), to.index()];
    }
    let mut out = vec![to.index()];
    while *out.last().expect("not empty") != from.index() {
        out.push(prev[*out.last().expect("not empty")]);
    }
    out.reverse();
    out
}

/// The cells a refused move could have used: the empty cells its number could reach, or,
/// when it names no number to move (or cannot be read), every number that can move.
fn allowed(board: &Board, answer: &str) -> Vec<usize> {
    let from = parse_move(answer).ok().map(|(from, _)| from);
    match from.filter(|&f| board.get(f) != 0) {
        Some(from) => {
            let reach = board.reachable_from(from);
            (0..CELLS).filter(|&i| reach >> i & 1 == 1).collect()
        }
        None => (0..CELLS)
            .filter(|&i| {
                let cell = Cell::from_index(i);
                board.get(cell) != 0 && board.reachable_from(cell) != 0
            })
            .collect(),
    }
}

/// One frame per move, after a first frame of the starting position. Each frame has the 81
/// cells (0 empty), `nextThree`, the running score, and for a move: `from`, `to`, the
/// `path`, the cells `removed` (with the number each held) and the cells `placed` by landing.
/// A refused move ends the frames with one that says why and which cells were `allowed`.
pub(super) fn frames(mut game: LinezGame, answers: &[String]) -> Vec<Value> {
    let mut score = 0.0;
    let mut out = vec![json!({
        "move": 0, "score": 0.0, "cells": cells(&game.board), "next": game.next_three,
        "note": "start",
    })];
    for (i, answer) in answers.iter().enumerate() {
        let turn = i + 1;
        let before = game.board;
        match game.try_turn(answer) {
            Ok(points) => score += points as f64,
            Err(reason) => {
                let mut frame = json!({"move": i, "score": score, "error": reason});
                frame["allowed"] = json!(allowed(&before, answer));
                out.push(frame);
                break;
            }
        }
        let (from, to) = parse_move(answer).expect("the judge accepted it");
        let mut moved = before;
        moved.set(to, before.get(from));
        moved.set(from, 0);
        let (mut removed, mut placed) = (Vec::new(), Vec::new());
        for i in 0..CELLS {
            let cell = Cell::from_index(i);
            match (moved.get(cell), game.board.get(cell)) {
                (n, 0) if n != 0 => removed.push([i, n as usize]),
                (0, n) if n != 0 => placed.push(i),
                _ => {}
            }
        }
        let note = match (removed.is_empty(), placed.is_empty()) {
            (false, _) => format!("move {turn}: {from}{to}, removed {}", removed.len()),
            (true, false) => format!("move {turn}: {from}{to}, {} landed", placed.len()),
            (true, true) => format!("move {turn}: {from}{to}"),
        };
        out.push(json!({
            "move": turn, "score": score, "cells": cells(&game.board), "next": game.next_three,
            "from": from.index(), "to": to.index(), "path": path(&before, from, to),
            "removed": removed, "placed": placed, "note": note,
        }));
    }
    out
}
