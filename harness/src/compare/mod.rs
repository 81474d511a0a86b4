//! Comparing heuristic versions: relative scores, the history of runs, and paired
//! significance tests between players or runs.
//!
//! Reads runs back from `results/<id>/scores.csv` (the source of truth) and `run.toml`,
//! keeps `results/best.csv`, and renders comparison tables. It never runs players; the run
//! command calls it after a run, the `compare` and `runs` commands call it on stored runs.

pub mod stats;
