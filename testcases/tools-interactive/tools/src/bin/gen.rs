//! `gen <seeds file> [--dir DIR]`: one test per non-empty line of the seeds file (a u64 seed),
//! written to DIR/0000.txt, DIR/0001.txt, ... in the order of the lines (DIR defaults to `in`).

use std::io::{BufRead, Write};
use std::path::PathBuf;

fn usage(program: &str) -> ! {
    eprintln!("Usage: {program} <seeds file> [--dir DIR]");
    std::process::exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let program = args.first().map(String::as_str).unwrap_or("gen");
    let mut seeds_file = None;
    let mut dir = PathBuf::from("in");
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        if let Some(value) = arg.strip_prefix("--dir=") {
            dir = PathBuf::from(value);
        } else if arg == "--dir" || arg == "-d" {
            match rest.next() {
                Some(value) => dir = PathBuf::from(value),
                None => usage(program),
            }
        } else if arg.starts_with('-') {
            eprintln!("unknown option: {arg}");
            usage(program);
        } else if seeds_file.is_none() {
            seeds_file = Some(arg.clone());
        } else {
            usage(program);
        }
    }
    let Some(seeds_file) = seeds_file else {
        usage(program)
    };
    let file = std::fs::File::open(&seeds_file).unwrap_or_else(|_| {
        eprintln!("no such file: {seeds_file}");
        std::process::exit(1)
    });
    if !dir.exists() {
        if let Err(e) = std::fs::create_dir(&dir) {
            eprintln!("cannot create {}: {e}", dir.display());
            std::process::exit(1)
        }
    }
    let mut id = 0;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.unwrap_or_else(|e| {
            eprintln!("cannot read {seeds_file}: {e}");
            std::process::exit(1)
        });
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let seed: u64 = line.parse().unwrap_or_else(|_| {
            eprintln!("parse failed: {line}");
            std::process::exit(1)
        });
        let path = dir.join(format!("{id:04}.txt"));
        let written = std::fs::File::create(&path).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            write!(w, "{}", tools::gen(seed))?;
            w.flush()
        });
        if let Err(e) = written {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1)
        }
        id += 1;
    }
}
