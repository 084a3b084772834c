//! Links across guides and `--node`/`:goto` resolution, on a small library parsed in memory.

use tsgnav::nav::{apply, choices, ChoiceKind, Cmd, Effect, NavState};
use tsgnav::tsg::{link_library, parse_guide, Library};

fn lib() -> Library {
    let a =
        "# Guide A\n\n## Step 1: Look\n\nBackground: [the disk guide](sub/b.md#step-2-clean-up) \
             and [an old page](sub/b.md#gone).\n\n## Step 2: Next in A\n\nText.\n";
    let b = "# Guide B\n\n## Step 1: Intro\n\nText.\n\n## Step 2: Clean up\n\nDelete old files.\n";
    let mut lib = Library::default();
    lib.guides.push(parse_guide("a.md", a));
    lib.guides.push(parse_guide("sub/b.md", b));
    link_library(&mut lib);
    lib
}

#[test]
fn a_link_to_another_guide_is_a_choice_that_lands_there_and_back_returns() {
    let lib = lib();
    let mut st = NavState::new(&lib);
    apply(&mut st, &lib, Cmd::Goto("a.md#step-1-look".into()));
    let list = choices(&lib, &st.index, "a.md#step-1-look");
    let i = list
        .iter()
        .position(|c| c.kind == ChoiceKind::Link && c.to == "sub/b.md#step-2-clean-up")
        .expect("link choice");
    assert!(list[i].resolved);
    assert!(list
        .iter()
        .any(|c| c.kind == ChoiceKind::Next && c.to == "a.md#step-2-next-in-a"));
    apply(&mut st, &lib, Cmd::Follow(i));
    assert_eq!(st.current.as_deref(), Some("sub/b.md#step-2-clean-up"));
    apply(&mut st, &lib, Cmd::Back);
    assert_eq!(st.current.as_deref(), Some("a.md#step-1-look"));
}

#[test]
fn a_link_to_a_missing_heading_is_shown_broken_and_not_followed() {
    let lib = lib();
    let mut st = NavState::new(&lib);
    apply(&mut st, &lib, Cmd::Goto("a.md#step-1-look".into()));
    let list = choices(&lib, &st.index, "a.md#step-1-look");
    let i = list
        .iter()
        .position(|c| c.to == "sub/b.md#gone")
        .expect("broken link choice");
    assert!(!list[i].resolved);
    let fx = apply(&mut st, &lib, Cmd::Follow(i));
    assert_eq!(st.current.as_deref(), Some("a.md#step-1-look"));
    assert!(fx.iter().any(
        |e| matches!(e, Effect::Notice(m) if m.contains("`sub/b.md#gone` is not a heading of any loaded guide"))
    ));
}

#[test]
fn node_ids_resolve_from_full_ids_repo_paths_slugs_and_prefixes() {
    let lib = lib();
    let st = NavState::new(&lib);
    let r = |t: &str| st.index.resolve(&lib, None, t);
    assert_eq!(
        r("sub/b.md#step-2-clean-up").as_deref(),
        Some("sub/b.md#step-2-clean-up")
    );
    assert_eq!(
        r("docs/tsg/sub/b.md#step-2-clean-up").as_deref(),
        Some("sub/b.md#step-2-clean-up")
    );
    assert_eq!(
        r("step-2-clean").as_deref(),
        Some("sub/b.md#step-2-clean-up")
    );
    assert_eq!(
        st.index
            .resolve(&lib, Some("sub/b.md#step-1-intro"), "step-1-intro")
            .as_deref(),
        Some("sub/b.md#step-1-intro")
    );
    assert_eq!(r("nope"), None);
    assert_eq!(r("a.md#nope"), None);
}

#[test]
fn goto_an_unknown_step_changes_nothing() {
    let lib = lib();
    let mut st = NavState::new(&lib);
    let fx = apply(&mut st, &lib, Cmd::Goto("zzz.md#x".into()));
    assert!(st.current.is_none() && st.trail.is_empty());
    assert!(matches!(&fx[..], [Effect::Notice(m)] if m.contains("zzz.md#x")));
}
