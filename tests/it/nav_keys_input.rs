//! Key-script tests of the pure `update()`, part two: the `:` palette, `/` search, the
//! library screen, help, quitting, scrolling, mouse clicks, redraw decisions and the
//! variables panel.

use tsgnav::tui::app::Screen;

use crate::tui_common::{app, at_alert, current, id, keys, render, type_text};

#[test]
fn palette_goto_set_alert_and_errors() {
    let mut a = app();
    keys(&mut a, ":");
    type_text(&mut a, "alert SwiftPendingProgramming");
    keys(&mut a, "<Enter>");
    assert_eq!(current(&a), id("Step 3:"));
    keys(&mut a, ":");
    type_text(&mut a, "set NODE_NAME=aks-1");
    keys(&mut a, "<Enter>");
    assert_eq!(a.nav.vars["NODE_NAME"].value, "aks-1");
    keys(&mut a, ":");
    type_text(&mut a, "goto step-2b");
    keys(&mut a, "<Enter>");
    assert_eq!(current(&a), id("Step 2b:"));
    keys(&mut a, ":");
    type_text(&mut a, "frobnicate");
    keys(&mut a, "<Enter>");
    let (msg, err) = a.message.clone().expect("message");
    assert!(
        err && msg.contains(":frobnicate") && msg.contains(":goto ID"),
        "{msg}"
    );
    keys(&mut a, ":");
    type_text(&mut a, "export");
    keys(&mut a, "<Enter>");
    assert!(a
        .message
        .as_ref()
        .is_some_and(|(m, _)| m.contains("nothing to export")));
}

#[test]
fn search_in_the_guide_opens_the_best_match() {
    let mut a = at_alert();
    keys(&mut a, "/");
    type_text(&mut a, "konnectivity tunnel");
    assert!(!a.hits.is_empty());
    keys(&mut a, "<Enter>");
    assert_eq!(current(&a), id("Step 5:"));
    assert!(a.input.is_none());
}

#[test]
fn library_fuzzy_search_finds_an_alert_and_lands_on_its_step() {
    let mut a = app();
    assert_eq!(a.screen, Screen::Library);
    keys(&mut a, "/");
    type_text(&mut a, "SwftPndgProg");
    keys(&mut a, "<Enter>");
    assert_eq!(current(&a), id("Step 3:"));
    assert_eq!(
        a.nav.alert.as_ref().map(|x| x.name.as_str()),
        Some("SwiftPendingProgramming")
    );
}

#[test]
fn library_j_k_enter_opens_a_guide() {
    let mut a = app();
    keys(&mut a, "j j k <Enter>");
    let g = &a.lib.guides[1];
    assert_eq!(current(&a), g.nodes[0].id);
}

#[test]
fn help_opens_and_closes_and_q_quits() {
    let mut a = at_alert();
    keys(&mut a, "?");
    assert!(a.help);
    keys(&mut a, "j q");
    assert!(!a.help && !a.quit, "q closes the help first");
    keys(&mut a, "q");
    assert!(a.quit);
}

#[test]
fn q_warns_once_when_evidence_is_not_exported() {
    let mut a = at_alert();
    a.recording = true;
    a.evidence = Some(false);
    // Only viewing: nothing would be lost, q quits at once.
    keys(&mut a, "n q");
    assert!(a.quit, "q quits at once after only viewing a step");
    a.quit = false;
    // A step marked done is a note the bundle would miss: q asks once.
    keys(&mut a, "d q");
    assert!(!a.quit);
    assert!(a
        .message
        .as_ref()
        .is_some_and(|(m, e)| *e && m.contains("not been exported")));
    keys(&mut a, "q");
    assert!(a.quit);
}

#[test]
fn scrolling_is_clamped_to_the_node_after_a_draw() {
    let mut a = at_alert();
    render(&mut a, 80, 24);
    keys(&mut a, "G");
    let max = a.cache.lines.len() - usize::from(a.areas.node.height);
    assert_eq!(a.scroll, max);
    keys(&mut a, "j j");
    assert_eq!(a.scroll, max, "no scrolling past the end");
    keys(&mut a, "g k");
    assert_eq!(a.scroll, 0);
    keys(&mut a, "<C-d>");
    assert_eq!(a.scroll, usize::from(a.areas.node.height.saturating_sub(2)));
}

#[test]
fn clicking_an_outline_row_opens_that_step() {
    let mut a = at_alert();
    render(&mut a, 120, 40);
    let row = a
        .current_guide()
        .expect("guide")
        .nodes
        .iter()
        .position(|n| n.slug == "glossary")
        .expect("glossary");
    let area = a.areas.outline;
    let y = area.y + u16::try_from(row - a.areas.outline_top).expect("row");
    let click = crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
        column: area.x + 2,
        row: y,
        modifiers: crossterm::event::KeyModifiers::NONE,
    };
    tsgnav::tui::update(&mut a, tsgnav::tui::Action::Mouse(click));
    assert_eq!(current(&a), id("Glossary"));
}

#[test]
fn an_unbound_key_does_not_redraw() {
    let mut a = at_alert();
    keys(&mut a, "Z");
    assert!(!a.dirty);
    keys(&mut a, "j");
    assert!(a.dirty);
}

#[test]
fn variables_panel_edits_a_value() {
    let mut a = at_alert();
    keys(&mut a, "v");
    let vars = a.vars();
    let i = vars
        .iter()
        .position(|(n, _)| n == "NODE_NAME")
        .expect("guide uses NODE_NAME");
    keys(&mut a, &vec!["<Tab>"; i].join(" "));
    keys(&mut a, "<Enter>");
    type_text(&mut a, "aks-7");
    keys(&mut a, "<Enter>");
    assert_eq!(a.nav.vars["NODE_NAME"].value, "aks-7");
    assert_eq!(a.nav.vars["NODE_NAME"].source.describe(), "typed");
}

#[test]
fn a_resize_redraws_and_rewraps_once_for_the_new_width() {
    let mut a = at_alert();
    render(&mut a, 80, 24);
    let narrow = a.cache.lines.len();
    let key80 = a.cache.key.clone().expect("cache filled");
    tsgnav::tui::update(&mut a, tsgnav::tui::Action::Resize(160, 48));
    assert!(a.dirty, "a resize asks for a redraw");
    render(&mut a, 160, 48);
    let key160 = a.cache.key.clone().expect("cache filled");
    assert_ne!(key80.1, key160.1, "wrapped again for the new width");
    assert!(a.cache.lines.len() < narrow, "wider lines wrap less");
    keys(&mut a, "j");
    render(&mut a, 160, 48);
    assert_eq!(
        a.cache.key,
        Some(key160),
        "scrolling reuses the wrapped lines"
    );
}
