//! The `:` palette as an operator uses it at 3 a.m.: `:goto` looks in the open guide first
//! and says when it jumps to another guide; Tab completes command names, step slugs (the open
//! guide's first), escalation teams and variable names, and cycles; ↑/↓ recall the lines run;
//! an error longer than the status line opens in a popup that Esc closes. Pure `update`
//! (no rendering) except where the screen itself is the point; one tmux test on the demo.

use tsgnav::nav::Cmd;
use tsgnav::tsg::{link_library, parse_guide, Library, ProbeRef};
use tsgnav::tui::app::Viewport;
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::Effect;
use tsgnav::tui::{update, Action, App};

use crate::tui_common::{keys, render, screen, type_text, Tmux};

const RESOLVER: &str = "# Resolver lookups fail\n\n\
| Alert | Sev | What it tells you | Start here |\n\
|-------|-----|-------------------|------------|\n\
| `ResolverLookupErrors` | 2 | Pods cannot resolve names | [Step 1](#step-1-check-the-resolver-pods) |\n\n\
## Step 1: Check the resolver pods\n\n\
```bash\n\
kubectl get pods -n ${RESOLVER_NS} -l app=resolver --context ${CLUSTER_CTX}\n\
```\n\n\
## Scenario 1: Restart the resolver\n\n\
Restart it once the pods are known bad.\n\n\
# Escalation\n\n\
| Symptom | Escalate to | Channel | Evidence to attach |\n\
|---------|-------------|---------|--------------------|\n\
| Upstream resolvers time out | **Edge DNS team** | IcM | resolver logs, time window |\n\
| Nodes cannot reach the host resolver | **Host Networking** | IcM | node name |\n";

const INGRESS: &str = "# Ingress answers 502\n\n\
## Scenario 1\n\n\
Drain the gateway that answers 502.\n\n\
## Step 9: Read the gateway logs\n\n\
```bash\n\
kubectl logs -n ${GATEWAY_NS} deploy/gateway --tail=50\n\
```\n";

/// The resolver guide's first step open, the ingress guide loaded beside it.
fn at_resolver() -> App {
    let mut lib = Library::default();
    lib.guides.push(parse_guide("ingress.md", INGRESS));
    lib.guides.push(parse_guide("resolver.md", RESOLVER));
    link_library(&mut lib);
    let mut a = App::new(lib, Keymap::bundled(), Theme::bundled(true));
    nav_cmd(
        &mut a,
        Cmd::Goto("resolver.md#step-1-check-the-resolver-pods".into()),
    );
    a
}

fn palette_line(a: &App) -> String {
    match &a.input {
        Some(tsgnav::tui::app::Input::Palette { buf }) => buf.clone(),
        other => panic!("the palette is not open: {other:?}"),
    }
}

fn message(a: &App) -> String {
    a.notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default()
}

#[test]
fn goto_looks_in_the_open_guide_first_and_says_when_it_jumps() {
    let mut a = at_resolver();
    // `scenario-1` is a whole slug of the ingress guide and the start of the resolver's own.
    keys(&mut a, ":");
    type_text(&mut a, "goto scenario-1");
    keys(&mut a, "<Enter>");
    assert_eq!(
        a.current_id(),
        Some("resolver.md#scenario-1-restart-the-resolver")
    );
    assert!(!message(&a).contains("jumped"), "{}", message(&a));
    // A step only the other guide has: it opens, and the status line says where we went.
    keys(&mut a, ":");
    type_text(&mut a, "goto step-9");
    keys(&mut a, "<Enter>");
    assert_eq!(
        a.current_id(),
        Some("ingress.md#step-9-read-the-gateway-logs")
    );
    assert_eq!(
        message(&a),
        "jumped to Ingress answers 502 (ingress.md): Step 9: Read the gateway logs; h goes back"
    );
    // Inside the same guide nothing is said about jumping.
    keys(&mut a, ":");
    type_text(&mut a, "goto scenario-1");
    keys(&mut a, "<Enter>");
    assert_eq!(a.current_id(), Some("ingress.md#scenario-1"));
    assert!(!message(&a).contains("jumped"), "{}", message(&a));
}

#[test]
fn tab_completes_commands_steps_teams_and_variables_and_cycles() {
    let mut a = at_resolver();
    keys(&mut a, ":");
    type_text(&mut a, "go");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "goto ");
    // Steps: the open guide's slugs first, then the other guide's as path#slug.
    type_text(&mut a, "scen");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "goto scenario-1-restart-the-resolver");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "goto ingress.md#scenario-1");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "goto scenario-1-restart-the-resolver");
    keys(&mut a, "<S-Tab>");
    assert_eq!(palette_line(&a), "goto ingress.md#scenario-1");
    // The completed line runs.
    keys(&mut a, "<Enter>");
    assert_eq!(a.current_id(), Some("ingress.md#scenario-1"));
    nav_cmd(
        &mut a,
        Cmd::Goto("resolver.md#step-1-check-the-resolver-pods".into()),
    );
    // Teams of the open guide's escalation table, for :export.
    keys(&mut a, ":");
    type_text(&mut a, "export ");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "export Edge DNS team");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "export Host Networking");
    keys(&mut a, "<Esc>");
    // Variables of this step's probe, for :set; the value is left to type.
    keys(&mut a, ":");
    type_text(&mut a, "set cl");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "set CLUSTER_CTX=");
    type_text(&mut a, "ctx-eastus-1");
    keys(&mut a, "<Tab>");
    assert_eq!(
        palette_line(&a),
        "set CLUSTER_CTX=ctx-eastus-1",
        "nothing to add"
    );
    keys(&mut a, "<Enter>");
    assert_eq!(a.nav.vars["CLUSTER_CTX"].value, "ctx-eastus-1");
    // Nothing fits: the line stays as typed.
    keys(&mut a, ":");
    type_text(&mut a, "goto zzz");
    keys(&mut a, "<Tab>");
    assert_eq!(palette_line(&a), "goto zzz");
}

#[test]
fn the_status_line_lists_what_tab_would_complete() {
    let mut a = at_resolver();
    keys(&mut a, ":");
    type_text(&mut a, "goto s");
    let s = screen(&render(&mut a, 140, 12));
    let status = s.lines().last().unwrap_or_default().to_string();
    assert!(
        status.contains(
            "Tab: step-1-check-the-resolver-pods · scenario-1-restart-the-resolver · ingress.md#scenario-1"
        ),
        "{status}"
    );
}

#[test]
fn up_and_down_recall_the_lines_run_this_session() {
    let mut a = at_resolver();
    for line in [
        "set RESOLVER_NS=dns",
        "goto scenario-1",
        "set RESOLVER_NS=dns2",
    ] {
        keys(&mut a, ":");
        type_text(&mut a, line);
        keys(&mut a, "<Enter>");
    }
    // Running the same line twice in a row keeps one entry.
    keys(&mut a, ":");
    type_text(&mut a, "set RESOLVER_NS=dns2");
    keys(&mut a, "<Enter>");
    assert_eq!(a.palette.history().len(), 3, "{:?}", a.palette.history());
    keys(&mut a, ":");
    type_text(&mut a, "exp");
    keys(&mut a, "<Up>");
    assert_eq!(palette_line(&a), "set RESOLVER_NS=dns2");
    keys(&mut a, "<Up>");
    assert_eq!(palette_line(&a), "goto scenario-1");
    keys(&mut a, "<Up>");
    keys(&mut a, "<Up>");
    assert_eq!(
        palette_line(&a),
        "set RESOLVER_NS=dns",
        "stops at the oldest"
    );
    keys(&mut a, "<Down>");
    assert_eq!(palette_line(&a), "goto scenario-1");
    keys(&mut a, "<Down>");
    keys(&mut a, "<Down>");
    assert_eq!(
        palette_line(&a),
        "exp",
        "past the newest: the line being typed"
    );
    // A recalled line runs as typed.
    keys(&mut a, "<Up>");
    keys(&mut a, "<Up>");
    keys(&mut a, "<Enter>");
    assert_eq!(
        a.current_id(),
        Some("resolver.md#scenario-1-restart-the-resolver")
    );
}

/// What the view would report after drawing with `room` columns for a message.
fn drawn(a: &mut App, room: usize) {
    let v = Viewport {
        status_room: room,
        ..a.screen.viewport
    };
    update(a, Action::Drawn(v));
}

#[test]
fn an_error_longer_than_the_status_line_opens_a_popup_that_esc_closes() {
    let mut a = at_resolver();
    let long = "team `cloudnet` is not in resolver.md's escalation table (line 14); \
                valid teams: Edge DNS team, Host Networking; write :export NAME with one of them";
    update(&mut a, Action::Exported(Err(long.into())));
    let node = a.current_id().expect("node").to_string();
    a.probes.running.push(ProbeRef::new(&node, 0));
    // It fits a wide status line: no popup, and Esc does what it always does.
    drawn(&mut a, 300);
    assert!(!tsgnav::tui::popup::open(&a));
    let fx = keys(&mut a, "<Esc>");
    assert!(
        matches!(fx.as_slice(), [Effect::CancelProbes { .. }]),
        "{fx:?}"
    );
    // It does not fit: the popup is open; Esc closes it and cancels nothing.
    update(&mut a, Action::Exported(Err(long.into())));
    drawn(&mut a, 60);
    assert!(tsgnav::tui::popup::open(&a));
    let fx = keys(&mut a, "<Esc>");
    assert!(fx.is_empty(), "{fx:?}");
    assert!(a.notice.is_none() && !tsgnav::tui::popup::open(&a));
    // A message that is not an error never opens it.
    update(&mut a, Action::Notice(long.into()));
    drawn(&mut a, 60);
    assert!(!tsgnav::tui::popup::open(&a));
}

#[test]
fn the_popup_shows_the_whole_error_at_80x24() {
    let mut a = at_resolver();
    keys(&mut a, ":");
    type_text(&mut a, "frobnicate now");
    keys(&mut a, "<Enter>");
    let s = screen(&render(&mut a, 80, 24));
    assert!(
        s.contains("Error") && s.contains("Esc closes"),
        "a popup:\n{s}"
    );
    let joined: String = s
        .lines()
        .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        joined.contains(":set VAR=value, :export, :q"),
        "the end of the error is on screen:\n{s}"
    );
    keys(&mut a, "<Esc>");
    let s = screen(&render(&mut a, 80, 24));
    assert!(!s.contains("Esc closes"), "closed:\n{s}");
}

/// In the demo (SWIFT guide): `:goto scenario-1` stays in the guide (not TEMPLATE.md), Tab
/// completes a slug, ↑ recalls, and `:export cloudnet`'s list of teams is readable whole.
#[test]
fn demo_palette_goto_tab_history_and_error_popup_at_80x24() {
    let Some(t) = Tmux::start_sized("palette", 80, 24) else {
        return;
    };
    t.send_line(&format!("{} demo", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the demo", |s| s.contains("DEMO DATA"));
    t.keys(&[":"]);
    t.keys(&["-l", "goto scenario-1"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("Scenario 1 of the SWIFT guide", |s| {
        s.contains("Scenario 1: Stuck MTPNC deletion")
    });
    assert!(!s.contains("jumped to"), "{s}");
    t.keys(&[":"]);
    t.keys(&["-l", "goto step-2"]);
    // At 80 columns the badges shorten so that the offers are in sight.
    t.wait_for("the offers", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.contains("Tab: step-2-check-hcp-side-prerequisites"))
    });
    t.keys(&["Tab"]);
    t.wait_for("a completed slug", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.contains(":goto step-2-check-hcp-side-prerequisites"))
    });
    t.keys(&["Tab"]);
    t.wait_for("the next slug", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.contains(":goto step-2a-"))
    });
    t.keys(&["C-u"]);
    t.keys(&["Up"]);
    t.wait_for("the recalled line", |s| {
        s.lines()
            .last()
            .is_some_and(|l| l.contains(":goto scenario-1"))
    });
    t.keys(&["C-u"]);
    t.keys(&["-l", "export cloudnet"]);
    t.keys(&["Enter"]);
    let s = t.wait_for("the error popup", |s| s.contains("Esc closes"));
    assert!(
        s.contains("Cloudnet/NRP"),
        "the valid teams are listed:\n{s}"
    );
    t.keys(&["Escape"]);
    t.wait_for("the popup closed", |s| !s.contains("Esc closes"));
    t.quit_unexported();
}
