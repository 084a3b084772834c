//! End to end in tmux: an interactive probe gets the terminal. In write mode the probe opens
//! its confirmation screen; once the target is typed back the navigator leaves the screen,
//! `less` runs with the real terminal (its text is on screen), and after `q` the navigator is
//! back with the run recorded as finished. Without write mode nothing runs. Skips with a SKIP
//! line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

#[test]
fn a_confirmed_interactive_probe_gets_the_terminal_and_the_navigator_comes_back() {
    let Some(t) = Tmux::start("handover") else {
        return;
    };
    let page = t.dir.join("page.txt");
    std::fs::write(&page, "HANDOVER-MARKER line one\nline two\n").expect("page");
    let guide = t.dir.join("look.md");
    std::fs::write(
        &guide,
        format!(
            "# Look\n\n## Step 1: Read the page\n\n**Goal:** read it in a pager.\n\n\
             ```bash\nless {}\n```\n",
            page.display()
        ),
    )
    .expect("guide");
    t.send_line(&format!(
        "{} {} --node step-1-read-the-page --context ctx-a",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step, read-only", |s| {
        s.contains("Step 1: Read the page") && s.contains("READ-ONLY")
    });
    t.keys(&["r"]);
    t.wait_for("the read-only refusal", |s| {
        s.contains("this session is read-only")
    });
    assert!(!t.capture().contains("HANDOVER-MARKER line one\nline two"));

    t.keys(&["W"]);
    t.wait_for("the write-mode prompt", |s| {
        s.contains("write mode: type the kube context `ctx-a`")
    });
    t.send_line("ctx-a");
    t.wait_for("write mode on", |s| s.contains("WRITE ctx-a"));
    t.keys(&["r"]);
    t.wait_for("the confirmation screen", |s| {
        s.contains("Mitigation: confirm before it runs") && s.contains("interactive")
    });
    t.keys(&["-l", "ctx-a"]);
    t.keys(&["Enter"]);
    t.wait_for("less with the terminal", |s| {
        s.contains("HANDOVER-MARKER line one") && !s.contains("Mitigation: confirm")
    });
    assert_eq!(t.flag("alternate_on"), "1", "less draws on its own screen");
    t.keys(&["q"]);
    t.wait_for("the navigator back, the run finished", |s| {
        s.contains("Probe 1 finished") && s.contains("WRITE ctx-a")
    });
    t.keys(&["q"]);
    t.wait_for("the export warning", |s| {
        s.contains("Evidence has not been exported")
    });
    t.keys(&["q"]);
    t.restored();
    let journal = std::fs::read_to_string(t.only_session().join("journal.jsonl")).expect("journal");
    assert!(journal.contains("\"type\":\"confirmation\""), "{journal}");
    assert!(journal.contains("\"type\":\"probe_run\""), "{journal}");
}
