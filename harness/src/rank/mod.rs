//! How players are ranked: TopCoder relative scores ([`relative`]) and the yardsticks of
//! `rank-by` with the one order of players each gives ([`yardstick`]). Pure arithmetic on
//! scores, below everything that ranks: the leaderboard and report pages (`report`),
//! `compare` and `tune`. It touches no file and no process.

pub mod relative;
pub mod yardstick;
