//! The arithmetic of the bench's figures: a time per round trip, the median of a block, a
//! duration in milliseconds, and the timing of `n` round trips. Touches nothing but the
//! clock.

use std::time::{Duration, Instant};

use crate::error::{Classify, Error};

/// Times `n` round trips, after 1000 to warm up.
pub(super) fn timed<E: std::fmt::Display>(
    n: u64,
    mut round: impl FnMut() -> Result<(), E>,
) -> Result<Duration, Error> {
    for _ in 0..1000 {
        round().fault()?;
    }
    let start = Instant::now();
    for _ in 0..n {
        round().fault()?;
    }
    Ok(start.elapsed())
}

/// Microseconds per round trip (or move): `t` over `n`.
pub(super) fn per_move(t: Duration, n: u64) -> f64 {
    t.as_secs_f64() * 1e6 / n as f64
}

/// The median of `times` (the upper one of an even count); `times` must not be empty.
pub(super) fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// `d` in milliseconds.
pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_move_is_microseconds_per_round_trip() {
        assert_eq!(per_move(Duration::from_millis(3), 1000), 3.0);
        assert_eq!(per_move(Duration::from_secs(1), 4), 250_000.0);
    }

    #[test]
    fn median_is_the_middle_of_the_sorted_times() {
        let odd = [5, 1, 3].map(Duration::from_millis).to_vec();
        assert_eq!(median(odd), Duration::from_millis(3));
        let even = [4, 1, 3, 2].map(Duration::from_millis).to_vec();
        assert_eq!(median(even), Duration::from_millis(3));
        assert_eq!(median(vec![Duration::ZERO]), Duration::ZERO);
    }

    #[test]
    fn ms_is_milliseconds() {
        assert_eq!(ms(Duration::from_micros(1500)), 1.5);
    }

    #[test]
    fn timed_warms_up_then_counts_only_the_timed_rounds() {
        let mut rounds = 0u64;
        let t = timed(7, || -> Result<(), String> {
            rounds += 1;
            Ok(())
        });
        assert!(t.is_ok());
        assert_eq!(rounds, 1007);
        let failed = timed(7, || -> Result<(), String> { Err("broken pipe".into()) });
        assert_eq!(failed.unwrap_err().message(), "broken pipe");
    }
}
