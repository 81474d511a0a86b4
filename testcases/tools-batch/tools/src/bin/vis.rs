//! `vis <input> <output>`: prints `Score = N` on standard output and draws the route into
//! `out.svg` (in the current folder). An invalid answer prints what is wrong, then `Score = 0`.

use tools::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("Usage: {} <input> <output>", args[0]);
        return;
    }
    let read = |path: &str| {
        std::fs::read_to_string(path).unwrap_or_else(|_| {
            eprintln!("no such file: {path}");
            std::process::exit(1)
        })
    };
    let input = parse_input(&read(&args[1])).unwrap_or_else(|e| {
        eprintln!("bad input file {}: {e}", args[1]);
        std::process::exit(1)
    });
    let output = read(&args[2]);
    let (score, picture) = match parse_output(&input, &output)
        .and_then(|o| compute_score(&input, &o).map(|s| (s, o)))
    {
        Ok((score, order)) => (score, svg(&input, Some(&order))),
        Err(message) => {
            println!("{message}");
            (0, svg(&input, None))
        }
    };
    println!("Score = {score}");
    if let Err(e) = std::fs::write("out.svg", picture) {
        eprintln!("cannot write out.svg: {e}");
    }
}
