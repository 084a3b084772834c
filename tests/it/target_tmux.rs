//! The target in sight (tmux): the status line names the kube context in read-only mode as
//! well as in write mode (`tsgnav demo maestro`). Skips with a SKIP line when tmux is missing,
//! unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

#[test]
fn the_status_line_names_the_context_in_read_only_and_write_mode() {
    let Some(t) = Tmux::start("target") else {
        return;
    };
    t.send_line(&format!("{} demo maestro", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the first step", |s| {
        s.contains("Step 1: Confirm the deletion is stuck")
    });
    t.keys(&["Escape"]);
    let s = t.wait_for("the read-only badge with its context", |s| {
        s.contains(" READ-ONLY mc-")
    });
    let ctx = s
        .split(" READ-ONLY ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("a context after READ-ONLY")
        .to_string();
    let written = t.write_mode_on();
    assert_eq!(
        written, ctx,
        "read-only and write mode name the same context"
    );
    t.keys(&["W"]);
    t.wait_for("read-only again, the context still shown", |s| {
        s.contains(&format!(" READ-ONLY {ctx} "))
    });
    t.quit_unexported();
}
