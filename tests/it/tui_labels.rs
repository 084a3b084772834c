//! Decision labels say what decides: the bold label or the sentence of an if/then bullet,
//! never the link text and never a bare number; the Next panel reads
//! "if agents are disconnected → Scenario: …".

use tsgnav::nav::{self, Cmd};
use tsgnav::tsg::{link_library, parse_guide, Library};
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::App;

use crate::tui_common::{render, screen};

const GUIDE: &str = "# Tunnel down\n\n\
## Step 1: Check the tunnel agents\n\n\
List the agents first.\n\n\
- **If agents are disconnected:** go to [the restart](#scenario-restart-the-tunnel-server).\n\
- If the agent pods are Pending, go to [4](#step-4-look-at-the-pods).\n\
- Otherwise the tunnel is fine.\n\n\
## Step 4: Look at the pods\n\n\
Read the events.\n\n\
## Scenario: Restart the tunnel server\n\n\
Restart it.\n";

fn at_step_1() -> App {
    let mut lib = Library::default();
    lib.guides.push(parse_guide("tunnel.md", GUIDE));
    link_library(&mut lib);
    let mut a = App::new(lib, Keymap::bundled(), Theme::bundled(true));
    nav_cmd(
        &mut a,
        Cmd::Goto("tunnel.md#step-1-check-the-tunnel-agents".into()),
    );
    a
}

#[test]
fn branch_labels_come_from_the_bold_label_or_the_sentence() {
    let a = at_step_1();
    let choices = nav::choices(&a.lib, &a.nav.index, a.current_id().expect("node"));
    let labels: Vec<(&str, &str)> = choices
        .iter()
        .filter(|c| c.kind == nav::ChoiceKind::Branch)
        .map(|c| (c.label.as_str(), c.to.as_str()))
        .collect();
    assert!(
        labels.contains(&(
            "If agents are disconnected",
            "tunnel.md#scenario-restart-the-tunnel-server"
        )),
        "{labels:?}"
    );
    assert!(
        labels.contains(&(
            "If the agent pods are Pending",
            "tunnel.md#step-4-look-at-the-pods"
        )),
        "{labels:?}"
    );
    assert!(
        choices
            .iter()
            .all(|c| c.label.chars().any(char::is_alphabetic) || c.label.is_empty()),
        "no bare number: {choices:?}"
    );
}

#[test]
fn the_next_panel_reads_the_condition_then_the_target() {
    let mut a = at_step_1();
    let s = screen(&render(&mut a, 140, 45));
    assert!(
        s.contains("1 if agents are disconnected → Scenario: Restart the tunnel server"),
        "{s}"
    );
    assert!(
        s.contains("if the agent pods are Pending → Step 4: Look at the pods"),
        "{s}"
    );
    assert!(!s.contains("if: 4") && !s.contains("if: →"), "{s}");
}
