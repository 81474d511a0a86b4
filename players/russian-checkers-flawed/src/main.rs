//! RussianCheckers, a deliberately flawed player, written independently of the harness.
//!
//! It knows every rule but one: after a jump, a king may stop on any empty square beyond the
//! captured piece, even when some of those squares would let it capture again (the statement
//! says it must then stop on one of those). Where that choice arises it lists moves that are
//! not legal (a king stopping short and ending its move early), so it passes many tests and
//! fails some with a wrong answer. Its input handling is careful and it always terminates.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};

/// `board[row][col]`, row 0 = row 1 of the board; b'.' for an empty square.
type Board = [[u8; 8]; 8];

const DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn read_test() -> Result<(Board, bool), String> {
    let stdin = std::io::stdin();
    let mut lines = Vec::new();
    for _ in 0..10 {
        let mut line = String::new();
        if stdin
            .lock()
            .read_line(&mut line)
            .map_err(|e| e.to_string())?
            == 0
        {
            return Err(format!("input ends after {} lines", lines.len()));
        }
        lines.push(line.trim_end().to_string());
    }
    if lines[0].trim() != "8" {
        return Err(format!("expected 8 rows, got {:?}", lines[0]));
    }
    let mut board = [[b'.'; 8]; 8];
    for (i, text) in lines[1..9].iter().enumerate() {
        let bytes = text.as_bytes();
        if bytes.len() != 8 || !bytes.iter().all(|c| b".wWbB".contains(c)) {
            return Err(format!("bad row {text:?}"));
        }
        board[7 - i].copy_from_slice(bytes);
    }
    match lines[9].as_str() {
        "WHITE" => Ok((board, true)),
        "BLACK" => Ok((board, false)),
        other => Err(format!("bad turn {other:?}")),
    }
}

fn at(r: i32, c: i32) -> Option<(usize, usize)> {
    ((0..8).contains(&r) && (0..8).contains(&c)).then_some((r as usize, c as usize))
}

fn name((r, c): (usize, usize)) -> String {
    format!("{}{}", (b'a' + c as u8) as char, r + 1)
}

struct Mover<'a> {
    board: &'a Board,
    white: bool,
    found: BTreeSet<String>,
}

impl Mover<'_> {
    fn enemy(&self, p: u8) -> bool {
        if self.white {
            p == b'b' || p == b'B'
        } else {
            p == b'w' || p == b'W'
        }
    }

    /// Continues a capture from `(r, c)`; `taken` marks the pieces already jumped.
    fn capture(
        &mut self,
        r: usize,
        c: usize,
        king: bool,
        taken: &mut [[bool; 8]; 8],
        path: &mut Vec<String>,
    ) {
        let mut more = false;
        for (dr, dc) in DIRS {
            let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
            if king {
                while at(rr, cc).is_some_and(|(a, b)| self.board[a][b] == b'.') {
                    rr += dr;
                    cc += dc;
                }
            }
            let Some((vr, vc)) = at(rr, cc) else { continue };
            if !self.enemy(self.board[vr][vc]) || taken[vr][vc] {
                continue;
            }
            let (mut lr, mut lc) = (rr + dr, cc + dc);
            while let Some((a, b)) = at(lr, lc).filter(|&(a, b)| self.board[a][b] == b'.') {
                more = true;
                taken[vr][vc] = true;
                path.push(name((a, b)));
                let crowned = king || a == if self.white { 7 } else { 0 };
                self.capture(a, b, crowned, taken, path);
                path.pop();
                taken[vr][vc] = false;
                if !king {
                    break;
                }
                lr += dr;
                lc += dc;
            }
        }
        if !more && path.len() > 1 {
            self.found.insert(path.join(":"));
        }
    }
}

fn moves(board: &Board, white: bool) -> Vec<String> {
    let own: &[u8] = if white { b"wW" } else { b"bB" };
    let mut mover = Mover {
        board,
        white,
        found: BTreeSet::new(),
    };
    for r in 0..8 {
        for c in 0..8 {
            let piece = board[r][c];
            if !own.contains(&piece) {
                continue;
            }
            let mut lifted = *board;
            lifted[r][c] = b'.';
            let mut sub = Mover {
                board: &lifted,
                white,
                found: BTreeSet::new(),
            };
            sub.capture(
                r,
                c,
                piece.is_ascii_uppercase(),
                &mut [[false; 8]; 8],
                &mut vec![name((r, c))],
            );
            mover.found.extend(sub.found);
        }
    }
    if !mover.found.is_empty() {
        return mover.found.into_iter().collect();
    }
    let forward = if white { 1 } else { -1 };
    for r in 0..8 {
        for c in 0..8 {
            let piece = board[r][c];
            if !own.contains(&piece) {
                continue;
            }
            let king = piece.is_ascii_uppercase();
            for (dr, dc) in DIRS {
                if !king && dr != forward {
                    continue;
                }
                let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
                while let Some(to) = at(rr, cc).filter(|&(a, b)| board[a][b] == b'.') {
                    mover.found.insert(format!("{}-{}", name((r, c)), name(to)));
                    if !king {
                        break;
                    }
                    rr += dr;
                    cc += dc;
                }
            }
        }
    }
    mover.found.into_iter().collect()
}

fn main() {
    let list = match read_test() {
        Ok((board, white)) => moves(&board, white),
        Err(why) => {
            eprintln!("cannot read the test: {why}");
            Vec::new()
        }
    };
    let mut text = format!("{}\n", list.len());
    for m in &list {
        text.push_str(m);
        text.push('\n');
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}
