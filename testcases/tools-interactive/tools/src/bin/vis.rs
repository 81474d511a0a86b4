//! `vis <input> <output>`: draws a game of Treasure Radar into `out.svg` from the input file
//! and the tester's output file (the player's lines): the grid, the treasures (red), the
//! queried cells (grey, with the distance answered) and the cells the answer named (blue
//! rings). Shaped like the `vis` an AtCoder interactive problem ships beside its `tester`;
//! it draws only: the score is the tester's. An output it cannot read is drawn as far as it
//! goes, and the reason printed on stderr.

use tools::{distance, parse_input, Input};

/// Pixels a cell.
const CELL: usize = 24;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("Usage: vis <input> <output>");
        std::process::exit(0);
    }
    let read = |path: &str| {
        std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(1)
        })
    };
    let input = parse_input(&read(&args[1])).unwrap_or_else(|e| {
        eprintln!("{}: {e}", args[1]);
        std::process::exit(1)
    });
    let (queries, named) = game(&input, &read(&args[2]));
    let svg = draw(&input, &queries, &named);
    if let Err(e) = std::fs::write("out.svg", svg) {
        eprintln!("cannot write out.svg: {e}");
        std::process::exit(1);
    }
}

/// The cells queried and the cells the answer named, read from the player's lines (`#`
/// comments skipped) as far as they read.
fn game(input: &Input, output: &str) -> (Vec<(usize, usize)>, Vec<(usize, usize)>) {
    let (mut queries, mut named) = (Vec::new(), Vec::new());
    let cell = |r: Option<&str>, c: Option<&str>| {
        let r: usize = r?.parse().ok().filter(|&r| r < input.n)?;
        let c: usize = c?.parse().ok().filter(|&c| c < input.n)?;
        Some((r, c))
    };
    for line in output.lines().filter(|l| !l.starts_with('#')) {
        let mut tokens = line.split_whitespace();
        match tokens.next() {
            Some("?") => match cell(tokens.next(), tokens.next()) {
                Some(q) => queries.push(q),
                None => {
                    eprintln!("an unreadable query: {line:?}");
                    break;
                }
            },
            Some("!") => {
                while let Some(c) = cell(tokens.next(), tokens.next()) {
                    named.push(c);
                }
                break;
            }
            _ => {
                eprintln!("an unreadable line: {line:?}");
                break;
            }
        }
    }
    (queries, named)
}

fn draw(input: &Input, queries: &[(usize, usize)], named: &[(usize, usize)]) -> String {
    let side = input.n * CELL;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{side}\" height=\"{side}\" viewBox=\"0 0 {side} {side}\">\n<rect width=\"{side}\" height=\"{side}\" fill=\"white\" stroke=\"black\"/>\n"
    );
    let at = |v: usize| v * CELL;
    for &(r, c) in queries {
        let d = distance(input, r, c);
        svg.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"#ccc\" stroke=\"white\"/><text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{d}</text>\n",
            at(c),
            at(r),
            at(c) + CELL / 2,
            at(r) + CELL * 2 / 3
        ));
    }
    for &(r, c) in &input.treasures {
        svg.push_str(&format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#d55e00\"/>\n",
            at(c) + CELL / 2,
            at(r) + CELL / 2,
            CELL / 4
        ));
    }
    for &(r, c) in named {
        svg.push_str(&format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"#0072b2\" stroke-width=\"3\"/>\n",
            at(c) + CELL / 2,
            at(r) + CELL / 2,
            CELL * 2 / 5
        ));
    }
    svg.push_str("</svg>\n");
    svg
}
