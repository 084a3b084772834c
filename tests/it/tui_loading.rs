//! The navigator draws before the library is read: guides arrive in the background with a
//! "loading N/M" count, and a start-up alert waits for the guide that routes it.

use crate::tui_common::{render, screen, Tmux};
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::App;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsgnav")
}

fn guide(i: usize) -> String {
    format!(
        "# Guide {i:03}: node pool {i}\n\n## Step 1: Look at pool {i}\n\n```bash\nkubectl get nodes -l pool=p{i}\n```\n\nIf it is empty, see [the other guide](guide-{next:03}.md).\n",
        next = i + 1
    )
}

#[test]
fn the_library_screen_fills_in_as_batches_arrive() {
    let mut app = App::new(Default::default(), Keymap::bundled(), Theme::bundled(true));
    let parse = |i: usize| tsgnav::tsg::parse_guide(&format!("guide-{i:03}.md"), &guide(i));
    tsgnav::tui::loading::absorb(&mut app, Vec::new(), 0, 5);
    let s = screen(&render(&mut app, 100, 20));
    assert!(s.contains("0 guides") && s.contains("loading 0/5"), "{s}");

    tsgnav::tui::loading::absorb(&mut app, vec![parse(0), parse(1)], 2, 5);
    let s = screen(&render(&mut app, 100, 20));
    assert!(s.contains("2 guides") && s.contains("loading 2/5"), "{s}");
    assert!(s.contains("Guide 000") && s.contains("Guide 001"), "{s}");
    // guide-000 links to guide-001 without an anchor: resolved to its first step now.
    let edge = &app.lib.guides[0].nodes[1].edges;
    assert!(
        edge.iter()
            .any(|e| e.to == "guide-001.md#guide-001-node-pool-1"),
        "{edge:?}"
    );
    // The link to guide-002 waits for it.
    assert!(app.lib.guides[1].nodes[1]
        .edges
        .iter()
        .any(|e| e.to == "guide-002.md"));

    tsgnav::tui::loading::absorb(&mut app, vec![parse(2), parse(3), parse(4)], 5, 5);
    tsgnav::tui::loading::finish(&mut app, false);
    let s = screen(&render(&mut app, 100, 20));
    assert!(s.contains("5 guides") && !s.contains("loading"), "{s}");
    assert!(app.lib.guides[1].nodes[1]
        .edges
        .iter()
        .any(|e| e.to == "guide-002.md#guide-002-node-pool-2"));
    assert!(app
        .nav
        .index
        .node(&app.lib, "guide-004.md#step-1-look-at-pool-4")
        .is_some());
}

#[test]
fn before_the_walk_is_over_the_count_has_no_total() {
    let mut app = App::new(Default::default(), Keymap::bundled(), Theme::bundled(true));
    let parse = |i: usize| tsgnav::tsg::parse_guide(&format!("guide-{i:03}.md"), &guide(i));
    tsgnav::tui::loading::absorb(&mut app, Vec::new(), 0, 0);
    let s = screen(&render(&mut app, 100, 20));
    assert!(s.contains("0 guides · 0 alerts routed · loading…"), "{s}");
    tsgnav::tui::loading::absorb(&mut app, vec![parse(0), parse(1), parse(2)], 3, 0);
    let s = screen(&render(&mut app, 100, 20));
    assert!(s.contains("3 guides") && s.contains("loading 3…"), "{s}");
    assert!(!s.contains("loading 3/"), "{s}");
    tsgnav::tui::loading::absorb(&mut app, vec![parse(3)], 4, 9);
    let s = screen(&render(&mut app, 100, 20));
    assert!(s.contains("loading 4/9…"), "{s}");
}

#[test]
fn first_frame_comes_before_the_last_guide_and_the_alert_waits_for_it() {
    let Some(t) = Tmux::start("loading") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..40 {
        std::fs::write(dir.path().join(format!("guide-{i:03}.md")), guide(i)).expect("write");
    }
    // The guide that routes the alert is a FIFO: reading it blocks until the test writes it,
    // like a file on a slow network share. Given by name after the folder (a pipe met inside
    // a folder is refused, not waited on), so 40 of 41 files are read before it.
    let fifos = tempfile::tempdir().expect("tempdir");
    let slow = fifos.path().join("zz-routes.md");
    let ok = std::process::Command::new("mkfifo")
        .arg(&slow)
        .status()
        .expect("mkfifo");
    assert!(ok.success());
    t.send_line(&format!(
        "{} '{}' '{}' --alert LateAlert --no-evidence",
        bin(),
        dir.path().display(),
        slow.display()
    ));
    let s = t.wait_for("the first frame, still loading", |s| {
        s.contains("loading 40/41")
    });
    assert!(s.contains("40 guides"), "{s}");
    assert!(!s.contains("Step 2: Late step"), "{s}");
    std::fs::write(
        &slow,
        "# Routes\n\n| Alert | Step |\n|---|---|\n| LateAlert | [Step 2](#step-2-late-step) |\n\n## Step 1: Early step\n\nNothing.\n\n## Step 2: Late step\n\nThe alert lands here.\n",
    )
    .expect("write the FIFO");
    let s = t.wait_for("the step the alert routes to", |s| {
        s.contains("Step 2: Late step") && s.contains("The alert lands here.")
    });
    assert!(!s.contains("loading"), "{s}");
    t.keys(&["q"]);
    let s = t.wait_for("the prompt or a question", |s| {
        s.lines().filter(|l| l.starts_with("READY$")).count() >= 2 || s.contains("q again")
    });
    if !s.lines().any(|l| l.starts_with("READY$")) || s.contains("q again") {
        t.keys(&["q"]);
    }
    t.restored();
}

#[test]
fn config_guides_load_in_the_background_and_their_errors_print_on_quit() {
    let Some(t) = Tmux::start("loadcfg") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..5 {
        std::fs::write(dir.path().join(format!("guide-{i:03}.md")), guide(i)).expect("write");
    }
    std::fs::write(dir.path().join("latin1.md"), b"# Caf\xe9\n").expect("write");
    std::fs::write(
        t.dir.join("config.toml"),
        format!("guides = ['{}']\n", dir.path().display()),
    )
    .expect("write config");
    t.send_line(&format!("{} --no-evidence; echo EXIT=$?", bin()));
    // The 3 bundled guides and the 5 readable ones from the config's folder.
    // One frame draws the header and the status line; a capture can fall between the two
    // writes, so wait for both.
    let s = t.wait_for("every guide and the load error", |s| {
        s.contains("tsgnav · 8 guides")
            && !s.contains("loading")
            && s.contains("Some guides could not be loaded")
    });
    assert!(s.contains("Guide 004"), "{s}");
    t.keys(&["q"]);
    let s = t.wait_for("the exit status", |s| {
        s.lines().any(|l| l.starts_with("EXIT=")) || s.contains("q again")
    });
    if !s.lines().any(|l| l.starts_with("EXIT=")) {
        t.keys(&["q"]);
    }
    let s = t.wait_for("the exit status", |s| {
        s.lines().any(|l| l.starts_with("EXIT="))
    });
    assert!(
        s.contains("latin1.md:1:6: is not UTF-8 (invalid byte 0xe9)"),
        "{s}"
    );
    assert!(s.contains("EXIT=2"), "{s}");
}
