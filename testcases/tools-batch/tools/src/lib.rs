//! "Coin Route": the example batch problem of the harness, with AtCoder-shaped local tools.
//!
//! A courier starts at the depot (500, 500) of a 1000 x 1000 plane. N coins lie at integer
//! points; coin i is worth v_i. The courier visits some coins in an order of its choice and
//! comes back to the depot; the whole route (straight segments, Euclidean length) may be at
//! most L long. The score is the total worth of the visited coins (higher is better).
//!
//! Input: `N L`, then N lines `x y v`. Output: `K`, then K distinct coin indices (0-based, any
//! whitespace between them): the visiting order.

use std::fmt;

/// The depot, where every route starts and ends.
pub const DEPOT: (i64, i64) = (500, 500);
/// Coordinates are 0..=SIDE.
pub const SIDE: i64 = 1000;

/// SplitMix64: a small, well-mixed generator; the same seed gives the same test everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_c01e_0000_0001)
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
    /// The route's length budget.
    pub l: i64,
    /// The coins: (x, y, worth).
    pub coins: Vec<(i64, i64, i64)>,
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.coins.len(), self.l)?;
        for &(x, y, v) in &self.coins {
            writeln!(f, "{x} {y} {v}")?;
        }
        Ok(())
    }
}

/// The test of a seed: 20..=50 coins at distinct points other than the depot, worth 1..=100
/// each, and a budget of 2000..=5000.
pub fn gen(seed: u64) -> Input {
    let mut rng = Rng::new(seed);
    let n = rng.range(20, 50) as usize;
    let l = rng.range(2000, 5000);
    let mut coins: Vec<(i64, i64, i64)> = Vec::with_capacity(n);
    while coins.len() < n {
        let (x, y) = (rng.range(0, SIDE), rng.range(0, SIDE));
        if (x, y) == DEPOT || coins.iter().any(|c| (c.0, c.1) == (x, y)) {
            continue;
        }
        let v = rng.range(1, 100);
        coins.push((x, y, v));
    }
    Input { l, coins }
}

/// Reads and range-checks token `what` of a file.
fn read<T: std::str::FromStr + PartialOrd + fmt::Display>(
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
    let n: usize = read(tokens.next(), "N", 1, 1000)?;
    let l: i64 = read(tokens.next(), "L", 0, 1_000_000)?;
    let mut coins = Vec::with_capacity(n);
    for i in 0..n {
        let x = read(tokens.next(), &format!("x of coin {i}"), 0, SIDE)?;
        let y = read(tokens.next(), &format!("y of coin {i}"), 0, SIDE)?;
        let v = read(tokens.next(), &format!("v of coin {i}"), 0, 1_000_000)?;
        coins.push((x, y, v));
    }
    Ok(Input { l, coins })
}

/// Parses an answer: the visiting order, checked for format (not for length).
pub fn parse_output(input: &Input, text: &str) -> Result<Vec<usize>, String> {
    let n = input.coins.len();
    let mut tokens = text.split_whitespace();
    let k: usize = read(tokens.next(), "K", 0, n)?;
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(k);
    for j in 0..k {
        let i: usize = read(tokens.next(), &format!("coin {j} of the route"), 0, n - 1)?;
        if seen[i] {
            return Err(format!("Duplicate coin: {i} is visited twice"));
        }
        seen[i] = true;
        order.push(i);
    }
    if let Some(extra) = tokens.next() {
        return Err(format!("Extra output after the route: {extra:?}"));
    }
    Ok(order)
}

fn dist(a: (i64, i64), b: (i64, i64)) -> f64 {
    (((a.0 - b.0).pow(2) + (a.1 - b.1).pow(2)) as f64).sqrt()
}

/// The route's length, depot to depot.
pub fn route_length(input: &Input, order: &[usize]) -> f64 {
    let mut at = DEPOT;
    let mut total = 0.0;
    for &i in order {
        let next = (input.coins[i].0, input.coins[i].1);
        total += dist(at, next);
        at = next;
    }
    total + dist(at, DEPOT)
}

/// The score of a parsed answer, or why it is invalid.
pub fn compute_score(input: &Input, order: &[usize]) -> Result<i64, String> {
    let length = route_length(input, order);
    if length > input.l as f64 + 1e-9 {
        return Err(format!("Route too long: {length:.3} > L = {}", input.l));
    }
    Ok(order.iter().map(|&i| input.coins[i].2).sum())
}

/// A picture of the test and the route (None: only the coins).
pub fn svg(input: &Input, order: Option<&[usize]>) -> String {
    let mut s = String::new();
    s.push_str(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-20 -20 1040 1040\" width=\"600\" height=\"600\">\n",
    );
    s.push_str(
        "<rect x=\"0\" y=\"0\" width=\"1000\" height=\"1000\" fill=\"white\" stroke=\"gray\"/>\n",
    );
    if let Some(order) = order {
        let mut points = format!("{},{}", DEPOT.0, DEPOT.1);
        for &i in order {
            points.push_str(&format!(" {},{}", input.coins[i].0, input.coins[i].1));
        }
        points.push_str(&format!(" {},{}", DEPOT.0, DEPOT.1));
        s.push_str(&format!(
            "<polyline points=\"{points}\" fill=\"none\" stroke=\"steelblue\" stroke-width=\"3\"/>\n"
        ));
    }
    for (i, &(x, y, v)) in input.coins.iter().enumerate() {
        let r = 4 + v / 10;
        s.push_str(&format!(
            "<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" fill=\"goldenrod\"><title>coin {i}: worth {v}</title></circle>\n"
        ));
    }
    s.push_str(&format!(
        "<rect x=\"{}\" y=\"{}\" width=\"16\" height=\"16\" fill=\"crimson\"><title>depot</title></rect>\n",
        DEPOT.0 - 8,
        DEPOT.1 - 8
    ));
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_test_reads_back_and_an_empty_route_scores_zero() {
        let input = gen(7);
        assert_eq!(parse_input(&input.to_string()), Ok(input.clone()));
        let order = parse_output(&input, "0\n").unwrap();
        assert_eq!(compute_score(&input, &order), Ok(0));
    }
}
