//! `tester <command> [args...] < input > output`: starts the player (`command args...`, no
//! shell), plays one game of Treasure Radar with it over its standard input and output, copies
//! every line the player wrote to standard output (the game's transcript), and prints
//! `Score = N` on standard error.
//!
//! An invalid reply: the player is killed, the reason is printed, then `Score = 0`. A player
//! that exited with a failure status before the game ended: exit status 1 and no score line.
//! The player's standard error is not redirected (it is the tester's).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Stdio};
use std::time::{Duration, Instant};
use tools::*;

/// The reason given when the player's output ends before the game does.
const TERMINATED: &str = "Your program has terminated unexpectedly";

/// The next line the player wrote that is neither blank nor a `#` comment; every line is
/// echoed to standard output as it was read.
fn read_line(from: &mut BufReader<ChildStdout>) -> Result<String, String> {
    loop {
        let mut line = String::new();
        match from.read_line(&mut line) {
            Ok(0) | Err(_) => return Err(TERMINATED.to_string()),
            Ok(_) => {}
        }
        print!("{line}");
        if !line.ends_with('\n') {
            println!();
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        return Ok(line.to_string());
    }
}

/// Plays the game; Ok((score, queries, missed treasures)).
fn exec(child: &mut Child, input: &Input) -> Result<(usize, usize, usize), String> {
    let mut to = std::io::BufWriter::new(child.stdin.take().unwrap());
    let mut from = BufReader::new(child.stdout.take().unwrap());
    let n = input.n;
    let m = input.treasures.len();
    // Writes to a player that has gone are not errors here: its missing reply is.
    let _ = writeln!(to, "{n} {m}");
    let _ = to.flush();
    let mut queries = 0;
    let named = loop {
        let line = read_line(&mut from)?;
        let mut tokens = line.split_whitespace();
        match tokens.next() {
            Some("?") => {
                queries += 1;
                if queries > n * n {
                    return Err(format!("Too many queries (more than {}): {line}", n * n));
                }
                let r = read(tokens.next(), "the query's row", 0, n - 1)?;
                let c = read(tokens.next(), "the query's column", 0, n - 1)?;
                if tokens.next().is_some() {
                    return Err(format!("Illegal query: {line}"));
                }
                let _ = writeln!(to, "{}", distance(input, r, c));
                let _ = to.flush();
            }
            Some("!") => {
                let mut named = Vec::with_capacity(m);
                for i in 0..m {
                    let r = read(tokens.next(), &format!("row of answer cell {i}"), 0, n - 1)?;
                    let c = read(
                        tokens.next(),
                        &format!("column of answer cell {i}"),
                        0,
                        n - 1,
                    )?;
                    named.push((r, c));
                }
                if tokens.next().is_some() {
                    return Err(format!("Illegal answer (more than {m} cells): {line}"));
                }
                break named;
            }
            _ => return Err(format!("Unknown line: {line}")),
        }
    };
    drop(to);
    // The game is over: the player must say nothing more and end its output.
    if read_line(&mut from).is_ok() {
        return Err("Too many output".to_string());
    }
    let score = score(input, queries, &named);
    let missed = input
        .treasures
        .iter()
        .filter(|t| !named.contains(t))
        .count();
    Ok((score, queries, missed))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("Usage: {} <command> [<args>...]", args[0]);
        return;
    }
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("cannot read the input: {e}");
        std::process::exit(1);
    }
    let input = parse_input(&text).unwrap_or_else(|e| {
        eprintln!("bad input: {e}");
        std::process::exit(1)
    });
    let mut child = std::process::Command::new(&args[1])
        .args(&args[2..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            eprintln!("failed to execute the command");
            eprintln!("{e}");
            std::process::exit(1)
        });
    match exec(&mut child, &input) {
        Ok((score, queries, missed)) => {
            eprintln!("Score = {score}");
            eprintln!("Queries = {queries}");
            eprintln!("Missed treasures = {missed}");
        }
        Err(err) => {
            // A player whose output ended has usually exited or is about to: give it a moment
            // to report how, so a failing player is told apart from one that stopped talking.
            if err == TERMINATED {
                let until = Instant::now() + Duration::from_secs(2);
                loop {
                    match child.try_wait() {
                        Ok(Some(status)) if !status.success() => std::process::exit(1),
                        Ok(None) if Instant::now() < until => {
                            std::thread::sleep(Duration::from_millis(10))
                        }
                        _ => break,
                    }
                }
            }
            let _ = child.kill();
            let _ = child.wait();
            eprintln!("{err}");
            eprintln!("Score = 0");
        }
    }
}
