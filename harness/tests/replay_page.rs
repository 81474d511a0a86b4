//! A replay page holds whatever a player sent without being bent by it: games whose moves are
//! `</script>`, `<!--<script>`, `<script>` or U+2028 are drawn into pages that an HTML5
//! tokenizer (html5ever, the WHATWG algorithm browsers follow) reads as exactly the page's
//! own two scripts, the first of which is the game's data as JSON.

use std::cell::RefCell;
use std::path::Path;

use harness::config::ProblemConfig;
use harness::problem::chesspuzzle::{self, Board, Cell, Tile};
use harness::problem::{by_id, Env};
use harness::replay::{self, page};
use harness::rundir::ScoreRow as Row;
use harness::testkit::FnPlayer;
use harness::transcript::Recorder;
use harness::verdict::Verdict;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

const HOSTILE: [&str; 5] = [
    "</script>",
    "<!--<script>",
    "<script>",
    "\u{2028}",
    "</SCRIPT ><!-- & \u{2029} -->",
];

/// A script element: its attributes (name, value) and its text.
type Script = (Vec<(String, String)>, String);

/// The scripts of a page as a browser's tokenizer finds them.
#[derive(Default)]
struct Scripts {
    found: RefCell<Vec<Script>>,
    inside: RefCell<bool>,
}

impl TokenSink for Scripts {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => {
                // What the tree builder tells the tokenizer for these elements.
                match &*tag.name {
                    "script" => {
                        let attrs = tag
                            .attrs
                            .iter()
                            .map(|a| (a.name.local.to_string(), a.value.to_string()))
                            .collect();
                        self.found.borrow_mut().push((attrs, String::new()));
                        *self.inside.borrow_mut() = true;
                        return TokenSinkResult::RawData(RawKind::ScriptData);
                    }
                    "title" | "textarea" => return TokenSinkResult::RawData(RawKind::Rcdata),
                    "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                        return TokenSinkResult::RawData(RawKind::Rawtext)
                    }
                    _ => {}
                }
            }
            Token::TagToken(tag) if &*tag.name == "script" => *self.inside.borrow_mut() = false,
            Token::CharacterTokens(text) if *self.inside.borrow() => {
                let mut found = self.found.borrow_mut();
                found.last_mut().expect("a script").1.push_str(&text);
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

fn scripts(html: &str) -> Vec<Script> {
    let tokenizer = Tokenizer::new(Scripts::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.found.take()
}

fn env() -> Env {
    Env {
        testcases: Path::new(env!("CARGO_MANIFEST_DIR")).join("../testcases"),
        config: ProblemConfig::default(),
        secret: None,
    }
}

/// The transcript of a ChessPuzzle game on `seed`: `legal` allowed clicks, then `last`.
fn chess_transcript(seed: u64, legal: usize, last: &str) -> String {
    let mut board = Board::generate(harness::secret::stream(None, "chesspuzzle", seed));
    let mut shadow = board.clone();
    let mut previous: Option<(Cell, Tile)> = None;
    let mut said = 0;
    let last = last.to_string();
    let mut player = FnPlayer::new(move |_: &str| {
        said += 1;
        if said > legal {
            return (said == legal + 1).then(|| last.clone());
        }
        let cell = match previous {
            None => (0, 0),
            Some((from, tile)) => *shadow.targets(from, tile).as_slice().first()?,
        };
        previous = Some((cell, shadow.click(cell)?));
        Some(format!("{} {}", cell.0, cell.1))
    });
    let mut recorder = Recorder::new(&mut player);
    chesspuzzle::play(&mut board, &mut recorder);
    recorder.text
}

fn row(problem: &str, hostile: &str) -> Row {
    Row {
        // A reason as it may stand in a hand-edited or older scores.csv: the move verbatim.
        reason: format!("the last move was {hostile}"),
        ..Row::new(problem, "hostile", "1", 0.0, Verdict::WrongAnswer)
    }
}

fn assert_page_holds(html: &str, replay: &replay::Replay, what: &str) {
    let found = scripts(html);
    assert_eq!(found.len(), 2, "{what}: scripts {found:?}");
    let (data_attrs, data) = &found[0];
    assert!(
        data_attrs.contains(&("id".to_string(), "data".to_string())),
        "{what}: {data_attrs:?}"
    );
    let parsed: serde_json::Value = serde_json::from_str(data).expect("the data is JSON");
    assert_eq!(parsed, serde_json::to_value(replay).unwrap(), "{what}");
    let (code_attrs, code) = &found[1];
    assert!(code_attrs.is_empty(), "{what}: {code_attrs:?}");
    assert!(
        code.contains("JSON.parse") && code.trim_end().ends_with("length);"),
        "{what}: the page's own script is whole"
    );
    for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
        assert!(!data.contains(c), "{what}: {c:?} in the data");
    }
}

#[test]
fn hostile_chesspuzzle_moves_leave_the_page_its_own_two_scripts() {
    let problem = by_id("chesspuzzle").unwrap();
    for hostile in HOSTILE {
        let transcript = chess_transcript(1, 20, hostile);
        assert!(
            transcript.contains(&format!("< {hostile}\n")),
            "the game reached the move"
        );
        let replay = replay::build(
            problem.as_ref(),
            &env(),
            &row("chesspuzzle", hostile),
            &transcript,
        )
        .unwrap();
        assert_eq!(
            replay.data.as_array().unwrap().len(),
            22,
            "start, 20 clicks, the refused one"
        );
        assert!(replay.reason.contains(hostile));
        assert_page_holds(&page::render(&replay), &replay, hostile);
    }
}

#[test]
fn hostile_linez_moves_leave_the_page_its_own_two_scripts() {
    let problem = by_id("linez").unwrap();
    for hostile in HOSTILE {
        let transcript = format!("> (the position)\n< {hostile}\n");
        let replay = replay::build(
            problem.as_ref(),
            &env(),
            &row("linez", hostile),
            &transcript,
        )
        .unwrap();
        assert!(replay.reason.contains(hostile));
        assert_page_holds(&page::render(&replay), &replay, hostile);
    }
}

#[test]
fn the_tokenizer_sees_what_the_old_escape_let_through() {
    // The check above can fail: `</` escaped alone leaves `<!--<script>`, which swallows the
    // page's own script into the data.
    let problem = by_id("chesspuzzle").unwrap();
    let transcript = chess_transcript(1, 20, "<!--<script>");
    let replay = replay::build(
        problem.as_ref(),
        &env(),
        &row("chesspuzzle", "<!--<script>"),
        &transcript,
    )
    .unwrap();
    let safe = page::render(&replay);
    let data = serde_json::to_string(&replay).unwrap();
    let start = safe
        .find(r#"<script id="data" type="application/json">"#)
        .unwrap()
        + r#"<script id="data" type="application/json">"#.len();
    let end = start + safe[start..].find("</script>").unwrap();
    let old = format!(
        "{}{}{}",
        &safe[..start],
        data.replace("</", "<\\/"),
        &safe[end..]
    );
    assert_ne!(scripts(&old).len(), 2, "the old page is broken");
}
