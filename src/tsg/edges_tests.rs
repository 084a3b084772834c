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

/// The keys one title gives, as first read: the title lower-cased as `str::to_lowercase`
/// does, then each kind followed by a space and a number.
fn keys_of(title: &str) -> Vec<(String, String)> {
    let t = title.to_lowercase();
    let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
    ["step", "strategy", "scenario", "option", "phase"]
        .iter()
        .filter_map(|kind| {
            let rest = t.strip_prefix(kind)?.strip_prefix(' ')?;
            let num: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect();
            let num = num.trim_end_matches('.');
            num.starts_with(|c: char| c.is_ascii_digit())
                .then(|| (kind.to_string(), num.to_string()))
        })
        .collect()
}

/// Every key the first reading finds resolves to the first node that gives it; returns how
/// many keys there were.
fn resolves_as_lower_cased_titles_do(nodes: &[Node]) -> usize {
    let refs = RefIndex::new(nodes);
    let mut n = 0;
    for node in nodes {
        for (kind, num) in keys_of(&node.title) {
            let first = nodes
                .iter()
                .position(|m| keys_of(&m.title).contains(&(kind.clone(), num.clone())));
            assert_eq!(refs.resolve(&kind, &num), first, "{kind} {num}");
            n += 1;
        }
    }
    n
}

/// Titles in any case and script resolve as the lower-cased reading has them.
#[test]
fn numbered_titles_are_keyed_as_lower_cased_titles_are() {
    let mk = |t: &str| Node {
        title: t.into(),
        ..Node::default()
    };
    let titles = [
        "STEP 3: Read logs",
        "(Strategy 4b.)",
        "Étape 2",
        "İStep 5",
        "\u{212a}ey Step 9",
        "Scenario 7 — é",
        "step 3",
        "Phase 1.5: Apply",
        "Options 2",
        "Option x2",
        "Step 3: again",
    ];
    let nodes: Vec<Node> = titles.iter().map(|t| mk(t)).collect();
    assert!(resolves_as_lower_cased_titles_do(&nodes) >= 5);
    let refs = RefIndex::new(&nodes);
    assert_eq!(refs.resolve("step", "3"), Some(0));
    assert_eq!(refs.resolve("strategy", "4b"), Some(1));
    assert_eq!(refs.resolve("scenario", "7"), Some(5));
    assert_eq!(refs.resolve("phase", "1.5"), Some(7));
    assert_eq!(refs.resolve("option", "2"), None);
}

proptest::proptest! {
    #[test]
    fn numbered_titles_resolve_as_the_lower_cased_reading_does(
        titles in proptest::collection::vec("(STEP|Step|strategy|Scenario|option|phase|İ|\u{212a}|é|[#.:( -]|[0-9]|[a-c]){0,8}", 0..6)
    ) {
        let nodes: Vec<Node> = titles
            .iter()
            .map(|t| Node { title: t.clone(), ..Node::default() })
            .collect();
        resolves_as_lower_cased_titles_do(&nodes);
    }
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
