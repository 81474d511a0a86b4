//! Problems judged by a contest's own tools (issue 27).
//!
//! - `relayed.rs`: a test whose tool starts the player itself, through the relay.

pub mod relayed;
