//! Fuzz target: arbitrary bytes (lossy UTF-8) through `tsgnav::tsg::parse_guide`.
//!
//! `parse_guide` is pure and must never panic, overflow or hang on any input. Beyond "no
//! panic" it checks the model invariants DESIGN.md states: node ids are unique, a parent is
//! an earlier node of the same guide, levels are H1–H6 and lines are 1-based.
//! Uses only the public `tsg` API; no IO.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let guide = tsgnav::tsg::parse_guide("fuzz/guide.md", &source);
    let mut seen = HashSet::new();
    for node in &guide.nodes {
        assert!(
            (1..=6).contains(&node.level),
            "level {} of {}",
            node.level,
            node.id
        );
        assert!(node.line >= 1, "line 0 for {}", node.id);
        if let Some(parent) = &node.parent {
            assert!(
                seen.contains(parent.as_str()),
                "parent {parent} of {} is not an earlier node",
                node.id
            );
        }
        assert!(
            seen.insert(node.id.as_str()),
            "duplicate node id {}",
            node.id
        );
    }
});
