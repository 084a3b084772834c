//! Tests of edges and plain-text references.

use super::*;
use crate::tsg::refs::{may_refer, refs_in};

#[test]
fn joins_and_resolves() {
    assert_eq!(join("docs/drafts/a.md", "../ops/b.md"), "docs/ops/b.md");
    assert_eq!(resolve_dest("a/b.md", "#x").as_deref(), Some("a/b.md#x"));
    assert_eq!(
        resolve_dest("a/b.md", "c.md#y").as_deref(),
        Some("a/c.md#y")
    );
    assert_eq!(resolve_dest("a/b.md", "https://x"), None);
}

#[test]
fn finds_plain_text_refs() {
    assert_eq!(
        text_refs("Fix → Strategy 3", false),
        vec![("strategy".into(), "3".into())]
    );
    assert_eq!(
        text_refs("see Strategy 4, step 0", false),
        vec![("strategy".into(), "4".into())]
    );
    assert_eq!(text_refs("Step 3.5 then Step 4", true).len(), 2);
    assert!(text_refs("The commands in Steps 2f and 4", false).is_empty());
    assert_eq!(
        text_refs("Step 2a", true),
        vec![("step".into(), "2a".into())]
    );
}

#[test]
fn numbered_heading_lookup() {
    let mk = |t: &str| Node {
        title: t.into(),
        id: t.into(),
        ..Node::default()
    };
    let nodes = vec![
        mk("Step 3: Read CNS logs"),
        mk("Step 3.5: AKS Kusto"),
        mk("Step 2: Check"),
    ];
    let refs = RefIndex::new(&nodes);
    assert_eq!(refs.resolve("step", "3"), Some(0));
    assert_eq!(refs.resolve("step", "3.5"), Some(1));
    assert_eq!(refs.resolve("step", "2a"), Some(2));
    assert_eq!(refs.resolve("step", "7"), None);
}

#[test]
fn the_quick_test_lets_every_reference_through() {
    for t in [
        "see Step 3",
        "STRATEGY 12 applies",
        "(Scenario 2)",
        "go to phase 1.5.",
        "option 3, then step 4",
        "steps 3",
        "Kelvin \u{212a} stEp 2",
    ] {
        assert_eq!(text_refs(t, true), refs_in(t, true), "{t:?}");
    }
    assert!(!may_refer("no number here") && !may_refer("step3") && !may_refer("7 steps"));
}

proptest::proptest! {
    /// Whatever the full reading finds, the quick test lets through.
    #[test]
    fn the_quick_test_misses_no_reference(
        t in "((step|StEp|strategy|SCENARIO|option|phase|İ|\u{212a}|é|[a-z]| |[0-9]|\\.|,|\\()){0,16}"
    ) {
        if !refs_in(&t, true).is_empty() {
            proptest::prop_assert!(may_refer(&t), "{:?}", t);
        }
    }
}
