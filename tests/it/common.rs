//! Shared helpers for the integration tests: where the corpus and bundled guides live,
//! and how to run the built binary.

#![allow(dead_code)]

use std::path::PathBuf;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The ARO-HCP corpus (`../shared/corpus/aro-hcp` beside the checkout, or `TSGNAV_CORPUS`).
/// Returns `None` (and prints why) when it is absent, unless `TSGNAV_REQUIRE_SERVERS=1`,
/// in which case a missing corpus fails the test.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("TSGNAV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus/aro-hcp"));
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("TSGNAV_REQUIRE_SERVERS").as_deref() != Ok("1"),
        "corpus not found at {} and TSGNAV_REQUIRE_SERVERS=1",
        dir.display()
    );
    eprintln!(
        "SKIP: corpus not found at {} (set TSGNAV_CORPUS)",
        dir.display()
    );
    None
}

/// The built `tsgnav` binary.
pub fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
}

/// Nanoseconds of the wall clock, for markers unique to one test run (with the process id).
pub fn nanos() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default()
}
