//! Key-script tests of the pure `update()`, part two: the `:` palette, `/` search, the
//! library screen, help, quitting, scrolling, mouse clicks, redraw decisions and the
//! variables panel.

use tsgnav::tui::app::Screen;

use crate::tui_common::{app, at_alert, current, id, keys, render, render_with, type_text, SWIFT};
use tsgnav::tui::frame::FrameState;

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
    let n = a.notice.clone().expect("message");
    let (msg, err) = (n.text.clone(), n.is_error());
    assert!(
        err && msg.contains(":frobnicate") && msg.contains(":goto ID"),
        "{msg}"
    );
    keys(&mut a, ":");
    type_text(&mut a, "export");
    keys(&mut a, "<Enter>");
    assert!(a
        .notice
        .as_ref()
        .is_some_and(|n| n.text.contains("nothing to export")));
}

#[test]
fn search_in_the_guide_opens_the_best_match() {
    let mut a = at_alert();
    keys(&mut a, "/");
    type_text(&mut a, "konnectivity tunnel");
    assert!(!a.search.hits.is_empty());
    keys(&mut a, "<Enter>");
    assert_eq!(current(&a), id("Step 5:"));
    assert!(a.input.is_none());
}

#[test]
fn library_fuzzy_search_finds_an_alert_and_lands_on_its_step() {
    let mut a = app();
    assert_eq!(a.screen.current, Screen::Library);
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
    assert!(a.screen.help);
    keys(&mut a, "j q");
    assert!(!a.screen.help && !a.session.quit, "q closes the help first");
    keys(&mut a, "q");
    assert!(a.session.quit);
}

#[test]
fn q_warns_once_when_evidence_is_not_exported() {
    let mut a = at_alert();
    a.session.recording = true;
    a.session.evidence = tsgnav::tui::app::Evidence::Unexported;
    // Only viewing: nothing would be lost, q quits at once.
    keys(&mut a, "n q");
    assert!(a.session.quit, "q quits at once after only viewing a step");
    a.session.quit = false;
    // A step marked done is a note the bundle would miss: q asks once.
    keys(&mut a, "d q");
    assert!(!a.session.quit);
    assert!(a
        .notice
        .as_ref()
        .is_some_and(|n| n.is_error() && n.text.contains("not been exported")));
    keys(&mut a, "q");
    assert!(a.session.quit);
}

#[test]
fn scrolling_is_clamped_to_the_node_after_a_draw() {
    let mut a = at_alert();
    render(&mut a, 80, 24);
    keys(&mut a, "G");
    let v = a.screen.viewport;
    let max = v.node_lines.expect("node drawn") - usize::from(v.areas.node.height);
    assert_eq!(a.screen.scroll, max);
    keys(&mut a, "j j");
    assert_eq!(a.screen.scroll, max, "no scrolling past the end");
    keys(&mut a, "g k");
    assert_eq!(a.screen.scroll, 0);
    keys(&mut a, "<C-d>");
    assert_eq!(
        a.screen.scroll,
        usize::from(v.areas.node.height.saturating_sub(2))
    );
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
        .position(|n| n.slug() == "glossary")
        .expect("glossary");
    let area = a.screen.viewport.areas.outline;
    let y = area.y + u16::try_from(row - a.screen.viewport.areas.outline_top).expect("row");
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
    let mut fs = FrameState::default();
    render_with(&mut a, &mut fs, 80, 24);
    let narrow = fs.cache.lines.len();
    let key80 = fs.cache.key.clone().expect("cache filled");
    tsgnav::tui::update(&mut a, tsgnav::tui::Action::Resize(160, 48));
    assert!(a.dirty, "a resize asks for a redraw");
    render_with(&mut a, &mut fs, 160, 48);
    let key160 = fs.cache.key.clone().expect("cache filled");
    assert_ne!(key80.1, key160.1, "wrapped again for the new width");
    assert!(fs.cache.lines.len() < narrow, "wider lines wrap less");
    keys(&mut a, "j");
    render_with(&mut a, &mut fs, 160, 48);
    assert_eq!(
        fs.cache.key,
        Some(key160),
        "scrolling reuses the wrapped lines"
    );
}

#[test]
fn scrolling_is_clamped_to_the_reported_viewport_without_rendering() {
    use ratatui::layout::Rect;
    use tsgnav::tui::app::Viewport;
    let mut a = at_alert();
    let mut v = Viewport::default();
    v.areas.node = Rect::new(0, 0, 60, 10);
    v.node_lines = Some(25);
    tsgnav::tui::update(&mut a, tsgnav::tui::Action::Drawn(v));
    assert!(!a.dirty, "a drawn frame asks for no redraw");
    keys(&mut a, "G");
    assert_eq!(a.screen.scroll, 15, "25 lines in a 10-row pane");
    keys(&mut a, "j <C-d>");
    assert_eq!(a.screen.scroll, 15, "no scrolling past the end");
    keys(&mut a, "g <C-d>");
    assert_eq!(a.screen.scroll, 8, "a page is the pane less two rows");
    // A wider frame wraps the text into fewer lines: the model follows what was shown.
    v.node_lines = Some(12);
    tsgnav::tui::update(&mut a, tsgnav::tui::Action::Drawn(v));
    assert_eq!(a.screen.scroll, 2);
}

#[test]
fn help_scrolling_is_clamped_once_the_help_was_drawn() {
    use ratatui::layout::Rect;
    use tsgnav::tui::app::Viewport;
    let mut a = app();
    keys(&mut a, "?");
    let mut v = Viewport::default();
    v.areas.help = Rect::new(0, 0, 80, 20);
    v.help_lines = 23;
    tsgnav::tui::update(&mut a, tsgnav::tui::Action::Drawn(v));
    keys(&mut a, "j j j j j");
    assert_eq!(a.screen.help_scroll, 3);
    keys(&mut a, "k");
    assert_eq!(a.screen.help_scroll, 2);
}

#[test]
fn the_palette_completes_command_names_and_lists_what_fits() {
    let mut a = at_alert();
    keys(&mut a, ":");
    type_text(&mut a, "go");
    let text = crate::tui_common::screen(&render(&mut a, 100, 24));
    assert!(text.contains(":go▏  Tab: goto"), "{text}");
    keys(&mut a, "<Tab>");
    assert_eq!(
        a.input,
        Some(tsgnav::tui::app::Input::Palette {
            buf: "goto ".into()
        })
    );
    type_text(&mut a, "glossary");
    keys(&mut a, "<Enter>");
    assert_eq!(current(&a), id("Glossary"));
    // Every command of the keymap works in the palette too.
    keys(&mut a, ":");
    type_text(&mut a, "next_step");
    keys(&mut a, "<Enter>");
    assert_ne!(current(&a), id("Glossary"));
}

#[test]
fn library_search_ranks_word_matches_first_and_highlights_the_matched_letters() {
    use ratatui::style::Modifier;
    use tsgnav::tui::search::Hit;
    let mut a = app();
    let g = a
        .lib
        .guides
        .iter()
        .position(|g| g.path == SWIFT)
        .expect("guide");
    let n = a.lib.guides[g]
        .nodes
        .iter()
        .position(|n| n.title.starts_with("Scenario 1:"))
        .expect("scenario 1");
    keys(&mut a, "/");
    type_text(&mut a, "stuck mtpnc");
    assert_eq!(
        a.search.hits.first(),
        Some(&Hit::Node(g, n)),
        "{:?}",
        a.search.hits
    );
    let term = render(&mut a, 100, 20);
    let buf = term.backend().buffer();
    let cells = |y: u16| -> Vec<String> {
        (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect()
    };
    let y = (0..buf.area.height)
        .find(|&y| cells(y).concat().contains("Scenario 1: Stuck MTPNC"))
        .expect("row shown");
    let row = cells(y);
    // The cell where `word` starts on that row.
    let at = |word: &str| {
        (0..row.len())
            .find(|&x| row[x..].concat().starts_with(word))
            .expect("word on the row")
    };
    let marked = |x: usize| {
        let x = u16::try_from(x).expect("x");
        buf[(x, y)].modifier.contains(Modifier::UNDERLINED)
    };
    let stuck = at("Stuck");
    assert!((stuck..stuck + 5).all(marked), "`Stuck` is highlighted");
    let mtpnc = at("MTPNC");
    assert!((mtpnc..mtpnc + 5).all(marked), "`MTPNC` is highlighted");
    assert!(!marked(at("Scenario")), "`Scenario` is not");
    assert!(!marked(at("deletion")), "`deletion` is not");
}
