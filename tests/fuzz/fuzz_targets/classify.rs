//! Fuzz target: arbitrary bytes (lossy UTF-8) through `tsgnav::safety::classify`.
//!
//! The classifier parses untrusted shell text from guides; it must never panic, overflow or
//! hang. Beyond "no panic" it checks that a script's class is the most dangerous class of its
//! hits (read-only when there are none) and that hit lines are 1-based.
//! Uses only the public `safety` API; no IO.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsgnav::tsg::SafetyClass;

fuzz_target!(|data: &[u8]| {
    let script = String::from_utf8_lossy(data);
    let verdict = tsgnav::safety::classify(&script);
    let max = verdict
        .hits
        .iter()
        .map(|h| h.class)
        .max()
        .unwrap_or(SafetyClass::ReadOnly);
    assert_eq!(verdict.class, max, "class is not the max of the hits");
    for hit in &verdict.hits {
        assert!(hit.line >= 1, "hit on line 0: {hit:?}");
    }
});
