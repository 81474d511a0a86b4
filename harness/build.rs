//! Gives the crate a build identity, `HARNESS_BUILD_ID`: a hash of its sources, of the
//! workspace's lock file and of the features it is built with. The harness starts a test's
//! supervisor from the small `harness-sandbox` program beside it only when that program
//! answers the same identity (a `cargo run` builds the harness alone and would otherwise
//! leave an older one there, running older containment code); see
//! `sandbox::supervisor_program`.

use std::hash::{Hash, Hasher};
use std::path::Path;

fn main() {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for input in ["src", "Cargo.toml", "build.rs", "../Cargo.lock"] {
        println!("cargo:rerun-if-changed={input}");
        add(Path::new(input), &mut hasher);
    }
    // The features too: an `attribution` build's supervisor must be one.
    let mut features: Vec<String> = std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| name.starts_with("CARGO_FEATURE_"))
        .collect();
    features.sort();
    features.hash(&mut hasher);
    println!("cargo:rustc-env=HARNESS_BUILD_ID={:016x}", hasher.finish());
}

/// Hashes the path and contents of a file, or of every file under a folder (in name order).
fn add(path: &Path, hasher: &mut impl Hasher) {
    path.hash(hasher);
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .map(|dir| dir.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for entry in entries {
            add(&entry, hasher);
        }
    } else if let Ok(bytes) = std::fs::read(path) {
        bytes.hash(hasher);
    }
}
