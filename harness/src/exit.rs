//! The harness's exit codes, documented in the README and `--help`.

/// Every test ran, whatever the verdicts (players left out of a run of several because a
/// program they need is missing have no tests).
pub const OK: u8 = 0;
/// Some tests ended with the harness's own error (ERR), or results could not be written.
pub const HARNESS_ERROR: u8 = 1;
/// Usage or configuration error (the one player given, or every player given, needs a
/// program this machine lacks, among others): nothing was run.
pub const USAGE: u8 = 2;
/// Interrupted by SIGINT or SIGTERM: finished tests are kept, the leaderboard is partial.
pub const INTERRUPTED: u8 = 130;
