//! Scores as tables show them: a problem whose every score is a whole number shows whole
//! numbers (its means with two decimals), others keep their decimals. Pure formatting.

/// A score (a test's, a sum, a min or max): whole numbers without decimals when `integral`,
/// else with `decimals`.
pub(crate) fn score(x: f64, integral: bool, decimals: usize) -> String {
    if integral && x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.decimals$}")
    }
}

/// A mean of scores: two decimals when every score is whole, else `decimals`.
pub(crate) fn mean(x: f64, integral: bool, decimals: usize) -> String {
    if integral {
        format!("{x:.2}")
    } else {
        format!("{x:.decimals$}")
    }
}

/// The width of a column holding `cells` under `header`, at least `min`.
pub(crate) fn width<'a>(cells: impl IntoIterator<Item = &'a String>, min: usize) -> usize {
    cells
        .into_iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(0)
        .max(min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_scores_show_as_integers_and_their_means_with_two_decimals() {
        assert_eq!(score(28400.0, true, 6), "28400");
        assert_eq!(score(28400.0, false, 6), "28400.000000");
        assert_eq!(score(0.25, false, 4), "0.2500");
        assert_eq!(mean(4043084.16, true, 6), "4043084.16");
        assert_eq!(mean(0.3921984, false, 6), "0.392198");
        let cells = ["37000000.00".to_string(), "3651.00".to_string()];
        assert_eq!(width(&cells, 10), 11);
        assert_eq!(width(&[], 10), 10);
    }
}
