//! "Treasure Radar": the example interactive problem of the harness, with AtCoder-shaped local
//! tools (gen and tester).
//!
//! M treasures are buried in distinct cells of an N x N grid. The player knows N and M only. A
//! query `? r c` (0-based row and column) is answered with the Manhattan distance from (r, c)
//! to the nearest treasure. At most N*N queries. The player ends with one line
//! `! r1 c1 r2 c2 ... rM cM` naming M cells and then exits. Score (lower is better): the
//! number of lines sent (the queries and the answer) plus N*N for every treasure the answer
//! does not name; a valid game scores at least 1, so `Score = 0` always means an invalid one.
//!
//! Input file (what gen writes; the tester reads it, the player never sees it):
//! `N M`, then M lines `r c`, the treasures.

use std::fmt;

/// SplitMix64: a small, well-mixed generator; the same seed gives the same test everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x7ea5_0e00_0000_0002)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform integer in lo..=hi.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next_u64() % span) as i64
    }
}

/// One test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub n: usize,
    /// The treasures' cells (row, column).
    pub treasures: Vec<(usize, usize)>,
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.n, self.treasures.len())?;
        for &(r, c) in &self.treasures {
            writeln!(f, "{r} {c}")?;
        }
        Ok(())
    }
}

/// The test of a seed: N in 8..=16, M in 1..=4 distinct cells.
pub fn gen(seed: u64) -> Input {
    let mut rng = Rng::new(seed);
    let n = rng.range(8, 16) as usize;
    let m = rng.range(1, 4) as usize;
    let mut treasures = Vec::with_capacity(m);
    while treasures.len() < m {
        let cell = (
            rng.range(0, n as i64 - 1) as usize,
            rng.range(0, n as i64 - 1) as usize,
        );
        if !treasures.contains(&cell) {
            treasures.push(cell);
        }
    }
    Input { n, treasures }
}

/// Reads and range-checks one token named `what`.
pub fn read<T: std::str::FromStr + PartialOrd + fmt::Display>(
    token: Option<&str>,
    what: &str,
    lo: T,
    hi: T,
) -> Result<T, String> {
    let token = token.ok_or_else(|| format!("Unexpected EOF: expected {what}"))?;
    let value: T = token
        .parse()
        .map_err(|_| format!("Parse error: {what} is {token:?}, not a number"))?;
    if value < lo || value > hi {
        return Err(format!(
            "Out of range: {what} = {value} (allowed {lo}..={hi})"
        ));
    }
    Ok(value)
}

/// Parses an input file.
pub fn parse_input(text: &str) -> Result<Input, String> {
    let mut tokens = text.split_whitespace();
    let n: usize = read(tokens.next(), "N", 1, 100)?;
    let m: usize = read(tokens.next(), "M", 1, n * n)?;
    let mut treasures = Vec::with_capacity(m);
    for i in 0..m {
        let r = read(tokens.next(), &format!("row of treasure {i}"), 0, n - 1)?;
        let c = read(tokens.next(), &format!("column of treasure {i}"), 0, n - 1)?;
        treasures.push((r, c));
    }
    Ok(Input { n, treasures })
}

/// The answer to a query at (r, c).
pub fn distance(input: &Input, r: usize, c: usize) -> usize {
    input
        .treasures
        .iter()
        .map(|&(tr, tc)| tr.abs_diff(r) + tc.abs_diff(c))
        .min()
        .unwrap_or(0)
}

/// The score of an answer after `queries` queries: queries + 1 (the answer) + N*N per
/// treasure not named.
pub fn score(input: &Input, queries: usize, named: &[(usize, usize)]) -> usize {
    let missed = input
        .treasures
        .iter()
        .filter(|t| !named.contains(t))
        .count();
    queries + 1 + input.n * input.n * missed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_test_reads_back_and_scores_as_documented() {
        let input = gen(3);
        assert_eq!(parse_input(&input.to_string()), Ok(input.clone()));
        let t = input.treasures[0];
        assert_eq!(distance(&input, t.0, t.1), 0);
        let nn = input.n * input.n;
        assert_eq!(score(&input, 5, &input.treasures), 6);
        assert_eq!(score(&input, 5, &[]), 6 + nn * input.treasures.len());
    }
}
