//! ChessPuzzle rule and protocol tests, driven by the files in `tests/data/chesspuzzle/`.
//!
//! - `targets/*.txt`: one click on a drawn position and the cells it allows next.
//! - `games/*.txt`: a whole conversation between the judge and a scripted player.
//!
//! The formats are described at the top of each data file. Besides those, this file checks the
//! generator (determinism, ranges, the text round trip), and replays recorded games of the
//! shipped players scored by `tests/data/chesspuzzle/recorded/count.py`.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use harness::problem::chesspuzzle::{self, Board, Cell, Tile};
use harness::problem::Channel;
use harness::testkit::{scripted, FnPlayer};
use harness::verdict::{Fault, Overtime, Verdict, Waiting};

fn data_files(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/chesspuzzle")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no data files in {}", dir.display());
    files
}

/// A case of a data file: its name, the line it starts on, and its lines (comments dropped).
struct Case {
    name: String,
    line: usize,
    lines: Vec<String>,
}

/// Splits a data file into cases, each starting with `== name`. Lines starting with `#` are
/// comments; blank lines are kept (a board's layers are separated by them).
fn cases(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).expect("data file");
    let mut out: Vec<Case> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix("== ") {
            out.push(Case {
                name: name.trim().to_string(),
                line: i + 1,
                lines: Vec::new(),
            });
        } else if let Some(case) = out.last_mut() {
            case.lines.push(line.to_string());
        } else {
            assert!(
                line.trim().is_empty(),
                "{}:{}: text before the first case",
                path.display(),
                i + 1
            );
        }
    }
    assert!(!out.is_empty(), "{}: no cases", path.display());
    out
}

/// A drawn position: the board (K = 2 on every non-empty cell, so a clicked cell keeps a tile
/// and only the rule can exclude it), the clicked cell and the cells expected next.
struct TargetCase {
    board: Board,
    click: Cell,
    tile: Tile,
    expected: BTreeSet<Cell>,
}

/// Reads rows `LEFT RIGHT`: LEFT the top tiles (`-` an empty cell), RIGHT `o` for the clicked
/// cell, `x` for a cell that may be clicked next, `.` for any other cell.
fn target_case(case: &Case) -> Result<TargetCase, String> {
    let mut left: Vec<Vec<char>> = Vec::new();
    let mut right: Vec<Vec<char>> = Vec::new();
    for line in case.lines.iter().filter(|l| !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let [l, r] = parts[..] else {
            return Err(format!("row {line:?} is not `TILES MARKS`"));
        };
        if l.chars().count() != r.chars().count() {
            return Err(format!("row {line:?}: the two grids differ in width"));
        }
        left.push(l.chars().collect());
        right.push(r.chars().collect());
    }
    let height = left.len();
    let width = left.first().map_or(0, Vec::len);
    if height == 0 || left.iter().any(|row| row.len() != width) {
        return Err("the grid is empty or not rectangular".into());
    }
    // An empty cell is drawn as `-`: it gets any tile, and both are clicked away below.
    let layer: Vec<Vec<Tile>> = left
        .iter()
        .map(|row| {
            row.iter()
                .map(|&ch| match ch {
                    '-' => Ok(Tile::Step(1)),
                    _ => Tile::from_char(ch).ok_or(format!("bad tile {ch:?}")),
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let mut board = Board::from_layers(&[layer.clone(), layer])?;
    let mut click = None;
    let mut expected = BTreeSet::new();
    for r in 0..height {
        for c in 0..width {
            if left[r][c] == '-' {
                board.click((r, c));
                board.click((r, c));
            }
            match right[r][c] {
                'o' if click.is_none() => click = Some((r, c)),
                'o' => return Err("more than one clicked cell `o`".into()),
                'x' => {
                    expected.insert((r, c));
                }
                '.' => {}
                ch => return Err(format!("bad mark {ch:?} (expected `o`, `x` or `.`)")),
            }
        }
    }
    let click = click.ok_or("no clicked cell `o`")?;
    let tile = Tile::from_char(left[click.0][click.1]).ok_or("the clicked cell is empty")?;
    Ok(TargetCase {
        board,
        click,
        tile,
        expected,
    })
}

fn draw(height: usize, width: usize, click: Cell, cells: &BTreeSet<Cell>) -> String {
    let mut s = String::new();
    for r in 0..height {
        for c in 0..width {
            s.push(match (r, c) {
                cell if cell == click => 'o',
                cell if cells.contains(&cell) => 'x',
                _ => '.',
            });
        }
        s.push('\n');
    }
    s
}

#[test]
fn targets_from_data_files() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in data_files("targets") {
        for case in cases(&path) {
            let at = format!("{}:{} ({})", path.display(), case.line, case.name);
            let mut t = match target_case(&case) {
                Ok(t) => t,
                Err(why) => panic!("{at}: {why}"),
            };
            assert_eq!(t.board.click(t.click), Some(t.tile), "{at}: clicked tile");
            let got: BTreeSet<Cell> = t
                .board
                .targets(t.click, t.tile)
                .as_slice()
                .iter()
                .copied()
                .collect();
            if got != t.expected {
                let (h, w) = (t.board.height, t.board.width);
                failures.push(format!(
                    "{at}: {:?} from {:?}\nexpected:\n{}got:\n{}",
                    t.tile,
                    t.click,
                    draw(h, w, t.click, &t.expected),
                    draw(h, w, t.click, &got)
                ));
            }
            checked += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 40, "only {checked} target cases found");
}

/// A scripted game: the board, what the player sends, and what must come of it.
struct GameCase {
    board: Board,
    player: Vec<String>,
    sent: Option<String>,
    verdict: Verdict,
    clicks: u64,
    reason: Vec<String>,
}

/// Sections, each a keyword line followed by its lines: `board` (the board's text form),
/// `player` (its lines verbatim; `<empty>` is an empty line; after the last it closes its
/// output), `sent` (everything the judge sends, exactly), `outcome VERDICT CLICKS` and
/// `reason TEXT` (a part of the reason; may repeat).
fn game_case(case: &Case) -> Result<GameCase, String> {
    let mut section = "";
    let (mut board, mut player, mut sent) = (String::new(), Vec::new(), None::<String>);
    let (mut outcome, mut reason) = (None, Vec::new());
    for line in &case.lines {
        match line.split_once(' ').map_or(line.as_str(), |(k, _)| k) {
            "board" | "player" | "sent" => {
                section = line.trim();
                if section == "sent" {
                    sent = Some(String::new());
                }
                continue;
            }
            "outcome" => {
                let parts: Vec<&str> = line.split_whitespace().collect();
                let [_, verdict, clicks] = parts[..] else {
                    return Err(format!("{line:?} is not `outcome VERDICT CLICKS`"));
                };
                let verdict = Verdict::from_code(verdict).ok_or("bad verdict")?;
                let clicks: u64 = clicks.parse().map_err(|_| "bad clicks")?;
                outcome = Some((verdict, clicks));
                section = "";
                continue;
            }
            "reason" => {
                reason.push(line["reason ".len()..].to_string());
                section = "";
                continue;
            }
            _ => {}
        }
        match section {
            "board" => {
                board.push_str(line);
                board.push('\n');
            }
            "player" if line.trim().is_empty() => {}
            "player" if line == "<empty>" => player.push(String::new()),
            "player" => player.push(line.clone()),
            "sent" if line.trim().is_empty() => {}
            "sent" => {
                let s = sent.as_mut().expect("sent section");
                s.push_str(line);
                s.push('\n');
            }
            _ if line.trim().is_empty() => {}
            _ => return Err(format!("line {line:?} outside a section")),
        }
    }
    let (verdict, clicks) = outcome.ok_or("no `outcome` line")?;
    Ok(GameCase {
        board: board.parse()?,
        player,
        sent,
        verdict,
        clicks,
        reason,
    })
}

#[test]
fn games_from_data_files() {
    let mut checked = 0;
    for path in data_files("games") {
        for case in cases(&path) {
            let at = format!("{}:{} ({})", path.display(), case.line, case.name);
            let mut g = game_case(&case).unwrap_or_else(|why| panic!("{at}: {why}"));
            let lines: Vec<&str> = g.player.iter().map(String::as_str).collect();
            let mut player = scripted(&lines);
            let total = g.board.total_tiles() as f64;
            let outcome = chesspuzzle::play(&mut g.board, &mut player);
            assert_eq!(outcome.verdict, g.verdict, "{at}: verdict of {outcome:?}");
            assert_eq!(outcome.moves, g.clicks, "{at}: clicks of {outcome:?}");
            let score = match g.verdict {
                Verdict::Ok => g.clicks as f64 / total,
                _ => 0.0,
            };
            assert_eq!(outcome.score, score, "{at}: score of {outcome:?}");
            for part in &g.reason {
                assert!(
                    outcome.reason.contains(part.as_str()),
                    "{at}: reason {:?} does not say {part:?}",
                    outcome.reason
                );
            }
            if g.verdict != Verdict::Ok {
                assert!(!outcome.reason.is_empty(), "{at}: a failure needs a reason");
            }
            if let Some(sent) = &g.sent {
                assert_eq!(&player.transcript, sent, "{at}: what the judge sent");
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} game cases found");
}

#[test]
fn the_same_seed_gives_the_same_board() {
    for seed in [0, 1, 2, 42, u64::MAX] {
        assert_eq!(board_of(seed), board_of(seed), "seed {seed}");
    }
    let distinct: BTreeSet<String> = (1..=20).map(|s| board_of(s).to_string()).collect();
    assert_eq!(
        distinct.len(),
        20,
        "20 seeds should give 20 different boards"
    );
}

#[test]
fn generated_sizes_cover_the_statement_ranges() {
    let (mut heights, mut widths, mut ks) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let mut counts = [0usize; 8];
    for seed in 1..=1000 {
        let board = board_of(seed);
        heights.insert(board.height);
        widths.insert(board.width);
        ks.insert(board.k);
        // Tile frequencies from the full text form: every tile of every layer.
        for ch in board.to_string().lines().skip(1).flat_map(str::chars) {
            let i = Tile::ALL
                .iter()
                .position(|&t| Tile::from_char(ch) == Some(t));
            counts[i.expect("only tiles after the header")] += 1;
        }
    }
    let sides: BTreeSet<usize> = (6..=15).collect();
    assert_eq!(heights, sides);
    assert_eq!(widths, sides);
    assert_eq!(ks, (1..=10).collect());
    let total: usize = counts.iter().sum();
    for (tile, &n) in Tile::ALL.iter().zip(&counts) {
        let share = n as f64 / total as f64;
        assert!(
            (share - 0.125).abs() < 0.005,
            "{tile:?}: {share:.4} of tiles"
        );
    }
}

#[test]
fn text_form_round_trips() {
    for seed in 1..=50 {
        let board = board_of(seed);
        let text = board.to_string();
        let back: Board = text.parse().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(back, board, "seed {seed}");
        assert_eq!(back.to_string(), text, "seed {seed}");
        // The player sees the header and the first layer.
        let view = board.player_view();
        let first_layer: Vec<&str> = text.lines().skip(2).take(board.height).collect();
        let expected = format!(
            "{} {} {}\n{}\n",
            board.height,
            board.width,
            board.k,
            first_layer.join("\n")
        );
        assert_eq!(view, expected, "seed {seed}");
    }
}

#[test]
fn malformed_board_text_is_an_error() {
    for (text, why) in [
        ("", "empty"),
        ("2 2", "header"),
        ("2 2 1\n12\n3", "row"),
        ("2 2 1\n12\n3Z", "tile"),
        ("2 2 1\n12\n34\n11", "unexpected"),
        ("2 2 99999999999\n12\n34", "layer"),
        ("0 2 1", "at least"),
    ] {
        let err = text.parse::<Board>().expect_err(text);
        assert!(err.contains(why), "{text:?}: {err:?} should say {why:?}");
    }
}

/// A recorded game of a shipped player (`tests/data/chesspuzzle/recorded/`): what the judge
/// sent before each click, the clicks, and the clicks and score `count.py` counted from the
/// rules alone.
struct Recorded {
    name: String,
    seed: u64,
    sent: Vec<String>,
    clicks: Vec<String>,
    expected_clicks: u64,
    score: f64,
}

fn recorded_games() -> Vec<Recorded> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chesspuzzle/recorded");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "expected"))
        .collect();
    paths.sort();
    paths.iter().map(|p| read_recorded(p)).collect()
}

fn read_recorded(expected: &Path) -> Recorded {
    let name = expected.file_stem().unwrap().to_str().unwrap().to_string();
    let seed = name.rsplit("-seed").next().unwrap().parse().unwrap();
    let transcript = std::fs::read_to_string(expected.with_extension("transcript")).unwrap();
    let (mut sent, mut clicks, mut message) = (Vec::new(), Vec::new(), String::new());
    for line in transcript.lines() {
        if let Some(text) = line.strip_prefix("> ") {
            message.push_str(text);
            message.push('\n');
        } else {
            sent.push(std::mem::take(&mut message));
            clicks.push(
                line.strip_prefix("< ")
                    .expect("a transcript line")
                    .to_string(),
            );
        }
    }
    assert!(
        message.is_empty(),
        "{name}: the judge sent nothing after the last click"
    );
    let text = std::fs::read_to_string(expected).unwrap();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("{name}: no {key}"))
            .to_string()
    };
    Recorded {
        expected_clicks: field("clicks: ").parse().unwrap(),
        score: field("score: ").parse().unwrap(),
        name,
        seed,
        sent,
        clicks,
    }
}

/// Games of the shipped players, recorded, replayed to the judge: it must send the recorded
/// messages, accept every click, end the game after the last one and score clicks / tiles as
/// `count.py` counted them (see `tests/data/chesspuzzle/recorded/README.md`).
#[test]
fn recorded_games_score_as_counted_independently() {
    let games = recorded_games();
    assert!(games.len() >= 3, "recorded games: {}", games.len());
    for game in &games {
        let mut board = board_of(game.seed);
        let mut turn = 0;
        let mut player = FnPlayer::new(|inbox: &str| {
            assert_eq!(
                inbox,
                game.sent[turn],
                "{}: before click {}",
                game.name,
                turn + 1
            );
            turn += 1;
            game.clicks.get(turn - 1).cloned()
        });
        let outcome = chesspuzzle::play(&mut board, &mut player);
        assert_eq!(outcome.verdict, Verdict::Ok, "{}: {outcome:?}", game.name);
        assert_eq!(outcome.moves, game.expected_clicks, "{}", game.name);
        assert_eq!(
            game.clicks.len() as u64,
            game.expected_clicks,
            "{}",
            game.name
        );
        assert_eq!(outcome.score, game.score, "{}", game.name);
    }
}

/// The answers of a scripted player, boxed so one type serves every script.
type Script = Box<dyn FnMut(&str) -> Option<String>>;

/// A channel whose player commits a fault on its n-th answer and otherwise answers from a
/// script.
struct FaultyPlayer {
    script: FnPlayer<Script>,
    answers: usize,
    fault_at: usize,
    fault: Fault,
}

impl Channel for FaultyPlayer {
    fn send(&mut self, text: &str) -> Result<(), Fault> {
        self.script.send(text)
    }
    fn recv(&mut self) -> Result<&str, Fault> {
        self.answers += 1;
        if self.answers == self.fault_at {
            return Err(self.fault.clone());
        }
        self.script.recv()
    }
    fn recv_to_end(&mut self) -> Result<&str, Fault> {
        self.script.recv_to_end()
    }
}

#[test]
fn wire_faults_score_zero_with_their_verdict() {
    let board: Board = "3 3 2\n111\n111\n111\n\n111\n111\n111".parse().unwrap();
    for (fault, verdict) in [
        (
            Fault::TimeLimit(Overtime {
                limit: std::time::Duration::from_secs(10),
                waiting: Waiting::Line {
                    line: 1,
                    partial: 0,
                    earlier: false,
                },
            }),
            Verdict::TimeLimit,
        ),
        (Fault::Eof, Verdict::WrongAnswer),
        (Fault::LineTooLong(4096), Verdict::ProtocolError),
        (Fault::NotText { byte: 0, at: 0 }, Verdict::ProtocolError),
        (Fault::Unterminated("1 1".into()), Verdict::ProtocolError),
    ] {
        for fault_at in [1, 3] {
            let mut moves = ["0 0", "1 1", "0 0", "1 1"].into_iter();
            let script: Script = Box::new(move |_| moves.next().map(str::to_string));
            let mut player = FaultyPlayer {
                script: FnPlayer::new(script),
                answers: 0,
                fault_at,
                fault: fault.clone(),
            };
            let outcome = chesspuzzle::play(&mut board.clone(), &mut player);
            assert_eq!(outcome.verdict, verdict, "{fault:?} at {fault_at}");
            assert_eq!(outcome.score, 0.0, "{fault:?} at {fault_at}");
            assert_eq!(
                outcome.moves,
                fault_at as u64 - 1,
                "{fault:?} at {fault_at}"
            );
            assert_eq!(outcome.reason, fault.to_string());
        }
    }
}

/// The generated test of a seed, made without a secret key.
fn board_of(seed: u64) -> Board {
    Board::generate(harness::secret::stream(None, "chesspuzzle", seed))
}

/// The `.expected` files are what `count.py` makes of the transcripts today: re-counted from
/// a copy, so a hand edit or a change of the script shows.
#[test]
fn expected_files_are_the_independent_count_of_the_transcripts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chesspuzzle/recorded");
    support::recount(&dir);
}

/// The protocol page's example (docs/protocols.md) is a real game: its lines are those of the data case.
#[test]
fn the_readme_example_game_is_a_case_here() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/protocols.md"))
            .expect("docs/protocols.md");
    let start = readme
        .find("```\n> 3 4 2")
        .expect("the ChessPuzzle example in docs/protocols.md");
    let block = readme[start + 4..].split("```").next().expect("its end");
    // A line's message is what comes before the comment (two or more spaces).
    let message = |line: &str| line[2..].split("  ").next().unwrap_or("").to_string();
    let sent: String = block
        .lines()
        .filter(|l| l.starts_with("> "))
        .map(|l| message(l) + "\n")
        .collect();
    let clicks: Vec<String> = block
        .lines()
        .filter(|l| l.starts_with("< "))
        .map(message)
        .collect();
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chesspuzzle/games/protocol.txt");
    let case = cases(&path)
        .into_iter()
        .find(|c| c.name == "the README's example game")
        .expect("the case");
    let g = game_case(&case).expect("a game case");
    assert_eq!(g.sent.as_deref(), Some(sent.as_str()));
    assert_eq!(g.player, clicks);
    assert_eq!((g.verdict, g.clicks), (Verdict::Ok, clicks.len() as u64));
}
