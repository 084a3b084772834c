//! Reading long output in a real terminal (tmux) at 80×24 and 140×45, in `tsgnav demo`: the
//! MTPNC's events are cut at the pane edge in the step, `o` shows the whole
//! `ErrorCode 4: no free reservation in set` line full screen, `/` finds it, `y` copies the
//! output through OSC 52 (tmux turns it into a paste buffer), the output says when it ran and
//! with which values, and after `:set ROUTER_POD=…` it is marked stale. Skips with a SKIP line
//! when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use tsgnav::nav::Cmd;
use tsgnav::tui::app::Item;
use tsgnav::tui::navigate::nav_cmd;

use crate::tui_common::{app, id, item_index, Tmux};

const LINE: &str = "failed to reserve IP: ErrorCode 4: no free reservation in set";

/// The pager's lines as written: rows after the `N│` gutter, continuation rows (`  │`)
/// joined to the row before.
fn logical_lines(screen: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for row in screen.lines() {
        let Some((gutter, text)) = row.split_once('│') else {
            continue;
        };
        if gutter.trim().is_empty() {
            if let Some(last) = out.last_mut() {
                last.push_str(text);
                continue;
            }
        }
        if gutter.trim().chars().all(|c| c.is_ascii_digit()) {
            out.push(text.to_string());
        }
    }
    out
}

fn read_the_whole_line(w: u16, h: u16) {
    let Some(t) = Tmux::start_sized(&format!("pager-{w}x{h}"), w, h) else {
        return;
    };
    t.allow_clipboard();
    t.send_line(&format!("{} demo", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the landing step", |s| s.contains("Trail:"));
    t.keys(&[":"]);
    t.send_line("goto step-2d");
    t.wait_for("Step 2d", |s| s.contains("Step 2d: MTPNCs reach"));
    let mut a = app();
    nav_cmd(&mut a, Cmd::Goto(id("Step 2d:")));
    for _ in 0..item_index(&a, |i| matches!(i, Item::Probe(1))) {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    t.wait_for("probe 2's output", |s| s.contains("Probe 2 finished"));
    t.keys(&["o"]);
    let s = t.wait_for("the pager", |s| {
        s.contains("Output · probe 2 mtpnc-describe")
    });
    assert!(
        s.contains("ran ") && s.contains("with NODE_NAME=aks-userswft-31562873-vmss000001"),
        "when it ran and with which values:\n{s}"
    );
    t.keys(&["/"]);
    t.keys(&["-l", "ErrorCode 4"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("the match", |s| s.contains("`ErrorCode 4` 1/1"));
    let lines = logical_lines(&s);
    assert!(
        lines.iter().any(|l| l.contains(LINE)),
        "the whole line is on screen:\n{s}\n{lines:#?}"
    );
    if w >= 140 {
        assert!(
            s.lines().any(|r| r.contains(LINE)),
            "one row at {w} columns:\n{s}"
        );
    }
    t.keys(&["y"]);
    t.wait_for("the copy", |s| s.contains("Copied the output"));
    let clip = t.clipboard();
    assert!(clip.contains(LINE), "OSC 52 reached tmux: {clip:?}");
    t.keys(&["q"]);
    t.wait_for("the step again", |s| !s.contains("Output · probe 2"));
    t.keys(&[":"]);
    t.send_line("set ROUTER_POD=router-other");
    t.wait_for("the value set", |s| s.contains("ROUTER_POD = router-other"));
    t.keys(&["o"]);
    t.wait_for("the output marked stale", |s| {
        s.contains("Output · probe 2") && s.contains("STALE: ROUTER_POD is now router-other")
    });
    t.keys(&["q"]);
    t.wait_for("the pager closed", |s| !s.contains("Output · probe 2"));
    t.quit_unexported();
    t.restored();
}

#[test]
fn o_shows_the_whole_error_line_at_80x24() {
    read_the_whole_line(80, 24);
}

#[test]
fn o_shows_the_whole_error_line_at_140x45() {
    read_the_whole_line(140, 45);
}
