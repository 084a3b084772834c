//! The navigator when the session is not isolated (the jail could not be built): each shell
//! probe's header says NOT ISOLATED, and its key runs it only on the second press, after the
//! status line named the risk; with the jail, one press runs it.

use tsgnav::nav::Effect as NavEffect;
use tsgnav::tui::app::{Live, Sandbox};
use tsgnav::tui::Effect;

use super::tui_common::{at_alert, keys, node_lines};

fn runs(effects: &[Effect]) -> bool {
    effects
        .iter()
        .any(|e| matches!(e, Effect::Nav(NavEffect::RunProbe { .. })))
}

#[test]
fn a_shell_probe_needs_a_second_press_that_follows_the_named_risk() {
    let mut a = at_alert();
    a.session.live = Live::Available;
    a.session.sandbox = Some(Sandbox {
        text: "not isolated: the jail is turned off by TSGNAV_JAIL=off; landlock v7 fs+net".into(),
        isolated: false,
    });
    let lines = node_lines(&mut a, 120, 60).join("\n");
    assert!(lines.contains("NOT ISOLATED"), "{lines}");
    assert!(!runs(&keys(&mut a, "r")), "the first press only warns");
    let n = a.notice.clone().expect("a message");
    assert!(
        n.is_error()
            && n.text
                .starts_with("NOT ISOLATED: probe 1 would run with your own access"),
        "{}",
        n.text
    );
    assert!(n.text.contains("Press the key again"), "{}", n.text);
    assert!(runs(&keys(&mut a, "r")), "the second press runs it");
}

#[test]
fn in_the_jail_one_press_runs_and_no_header_warns() {
    let mut a = at_alert();
    a.session.live = Live::Available;
    a.session.sandbox = Some(Sandbox {
        text: "jail (namespaces + seccomp); landlock v7 fs+net".into(),
        isolated: true,
    });
    let lines = node_lines(&mut a, 120, 60).join("\n");
    assert!(!lines.contains("NOT ISOLATED"), "{lines}");
    assert!(runs(&keys(&mut a, "r")));
}

#[test]
fn isolation_is_what_the_runtime_found_not_a_word_of_the_status_line() {
    // Words that do not start with "not isolated" do not make a session isolated…
    let mut a = at_alert();
    a.session.live = Live::Available;
    a.session.sandbox = Some(Sandbox {
        text: "landlock v7 fs+net".into(),
        isolated: false,
    });
    assert!(!runs(&keys(&mut a, "r")), "the first press only warns");
    // …and words that do start with it do not make a jailed session degraded.
    let mut a = at_alert();
    a.session.live = Live::Available;
    a.session.sandbox = Some(Sandbox {
        text: "not isolated from the cluster's API (proxy); jail (namespaces + seccomp)".into(),
        isolated: true,
    });
    assert!(runs(&keys(&mut a, "r")), "one press runs it in the jail");
}
