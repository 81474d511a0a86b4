//! Everything the user sees of a run: the progress bar, the leaderboard table and the CSV
//! files. Reporters consume the runner's events; none of them runs players or judges.

pub mod files;
pub mod html;
pub mod json;
pub mod progress;
pub mod summary;
pub mod table;

pub use summary::{Standing, Summary};
