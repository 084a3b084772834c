//! The navigator's interior. Decisions come from typed values, never from words of text it
//! formatted itself: an output is painted stale from its stamp's flag (a value named
//! `STALE-x` is not stale), and an evidence session is recorded as simulated from the data
//! label's kind (a replayed session whose id says DEMO is not simulated). The mouse and the
//! `:` palette hand commands back to `update` instead of calling it; the clock and guide
//! batches arrive as actions. `nav::Effect` has only what `nav` makes. Pure TestBackend and a
//! journal in a temporary folder: fast, no servers.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::style::Style;
use tsgnav::evidence::{Note, Record, SessionLog};
use tsgnav::nav::{Cmd, Var, VarSource};
use tsgnav::tsg::{Outcome, ProbeRef};
use tsgnav::tui::app::{DataLabel, ProbeResult};
use tsgnav::tui::command::Command;
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::loading::GuideBatch;
use tsgnav::tui::mouse::mouse;
use tsgnav::tui::navigate::nav_cmd;
use tsgnav::tui::pager::Ran;
use tsgnav::tui::palette::palette;
use tsgnav::tui::runtime::record::Recorder;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::update::Then;
use tsgnav::tui::{update, Action, App};

use crate::tui_common::{app, id, keys, render};

/// An app in colour on Step 2d, whose first probe ran with `NODE_NAME=ran_with` and whose
/// value is now `now`.
fn ran_on_step(ran_with: &str, now: &str) -> App {
    let (lib, errors) = tsgnav::load::load_library(&[crate::common::root().join("tsg")]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(false));
    let step = id("Step 2d:");
    nav_cmd(&mut app, Cmd::Goto(step.clone()));
    let key = ProbeRef::new(step.as_str(), 0);
    app.probes.results.insert(
        key.clone(),
        ProbeResult {
            outcome: Outcome::Exited(0),
            ok: true,
            text: "NAME   STATUS\nnode-1 Ready\n".into(),
            series: Vec::new(),
        },
    );
    app.probes.generation += 1;
    app.reading.ran.insert(
        key,
        Ran {
            at: "03:12:09".into(),
            vars: vec![("NODE_NAME".into(), ran_with.into())],
        },
    );
    app.nav.vars.insert(
        "NODE_NAME".into(),
        Var {
            value: now.into(),
            source: VarSource::Typed,
        },
    );
    app
}

/// The style of the first cell of the first row that contains `needle`.
fn style_of(app: &mut App, needle: &str) -> Style {
    let term = render(app, 140, 45);
    let buf = term.backend().buffer();
    let width = usize::from(buf.area.width);
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        if let Some(at) = row.find(needle) {
            let col = row[..at].chars().count().min(width - 1);
            let x = u16::try_from(col).expect("a column");
            return buf[(x, y)].style();
        }
    }
    panic!("`{needle}` is not on screen");
}

#[test]
fn a_value_named_stale_does_not_paint_the_output_red() {
    let error = Theme::bundled(false).get("ui.error").fg;
    assert!(error.is_some(), "the bundled theme colours errors");
    // In the step's probe frame.
    let mut app = ran_on_step("STALE-x", "STALE-x");
    let fresh = style_of(&mut app, "ran 03:12:09 with NODE_NAME=STALE-x");
    assert_ne!(
        fresh.fg, error,
        "an output that is not stale is not painted as an error"
    );
    // In the pager.
    keys(&mut app, "o");
    let fresh = style_of(&mut app, "ran 03:12:09 with NODE_NAME=STALE-x");
    assert_ne!(fresh.fg, error, "the pager's stamp either");
}

#[test]
fn a_changed_value_paints_the_output_stale() {
    let error = Theme::bundled(false).get("ui.error").fg;
    let mut app = ran_on_step("node-1", "node-2");
    let stale = style_of(&mut app, "STALE: NODE_NAME is now node-2");
    assert_eq!(stale.fg, error, "the step's stamp is painted as an error");
    keys(&mut app, "o");
    let stale = style_of(&mut app, "STALE: NODE_NAME is now node-2");
    assert_eq!(stale.fg, error, "the pager's stamp too");
}

/// Whether the evidence session a recorder opens for `app` is marked simulated.
fn recorded_simulated(label: Option<DataLabel>) -> bool {
    let state = tempfile::tempdir().expect("a temporary folder");
    let (lib, _) = tsgnav::load::load_library(&[crate::common::root().join("tsg")]);
    let mut app = App::new(lib, Keymap::bundled(), Theme::bundled(true));
    nav_cmd(&mut app, Cmd::Goto(id("Step 2d:")));
    app.session.data_label = label;
    let mut rec = Recorder::new(state.path().to_path_buf(), &[]);
    let said = rec.record(
        &app,
        Record::Note(Note {
            text: "a note".into(),
            ..Note::default()
        }),
    );
    let dir = said
        .iter()
        .find_map(|a| match a {
            Action::EvidenceStarted(d) => Some(d.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a session opened: {said:?}"));
    let log = SessionLog::read(std::path::Path::new(&dir)).expect("the journal reads");
    log.start().expect("a session start").simulated
}

#[test]
fn only_the_demo_is_recorded_simulated_whatever_a_label_says() {
    assert!(recorded_simulated(Some(DataLabel::Demo)));
    assert!(!recorded_simulated(None));
    // A replayed session whose id has DEMO in it shows "REPLAY of DEMO DATA …": not simulated.
    let replay = DataLabel::Replay {
        id: "DEMO DATA".into(),
    };
    assert!(replay.text().contains("DEMO"));
    assert!(!recorded_simulated(Some(replay)));
}

#[test]
fn the_palette_hands_a_command_back_and_update_runs_it() {
    let mut a = app();
    // A line naming a key's command comes back as that command; nothing ran yet.
    let t = palette(&mut a, "q");
    assert!(matches!(t, Then::Run(Command::Quit)), "{t:?}");
    assert!(!a.session.quit && !a.session.quit_armed);
    // Commands with an argument and `:help` are carried out by the palette itself.
    assert!(matches!(palette(&mut a, "help"), Then::Done(_)));
    assert!(a.screen.help);
    let t = palette(&mut a, "nope-at-all");
    assert!(matches!(t, Then::Done(ref e) if e.is_empty()), "{t:?}");
    assert!(a.notice.as_ref().is_some_and(|n| n.is_error()));
    // Through `update`, `:q` is the quit key: nothing ran, so it quits at once.
    let mut b = app();
    keys(&mut b, ":");
    update(&mut b, Action::Key(KeyEvent::from(KeyCode::Char('q'))));
    update(&mut b, Action::Key(KeyEvent::from(KeyCode::Enter)));
    assert!(b.session.quit, "`:q` quit");
}

#[test]
fn the_wheel_on_the_library_is_the_next_item_command() {
    let mut a = app();
    let wheel = |kind| MouseEvent {
        kind,
        column: 1,
        row: 3,
        modifiers: KeyModifiers::NONE,
    };
    let t = mouse(&mut a, wheel(MouseEventKind::ScrollDown));
    assert!(matches!(t, Then::Run(Command::NextItem)), "{t:?}");
    assert_eq!(a.search.sel, 0, "the handler moved nothing itself");
    update(&mut a, Action::Mouse(wheel(MouseEventKind::ScrollDown)));
    update(&mut a, Action::Mouse(wheel(MouseEventKind::ScrollDown)));
    assert_eq!(a.search.sel, 2);
    update(&mut a, Action::Mouse(wheel(MouseEventKind::ScrollUp)));
    assert_eq!(a.search.sel, 1);
}

/// The variants of `nav::Effect`, read from its definition.
fn nav_effect_variants(src: &str) -> Vec<String> {
    let start = src
        .find("pub enum Effect {")
        .expect("nav::Effect is defined");
    let body = &src[start..];
    let end = body.find("\n}").expect("its end");
    body[..end]
        .lines()
        .skip(1)
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|l| {
            l.chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect::<String>()
        })
        .collect()
}

#[test]
fn nav_effects_are_only_those_nav_makes() {
    let dir = crate::common::root().join("src/nav");
    let defs = std::fs::read_to_string(dir.join("mod.rs")).unwrap();
    let variants = nav_effect_variants(&defs);
    assert!(variants.len() >= 5, "{variants:?}");
    let mut made = String::new();
    for f in std::fs::read_dir(&dir).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("mod.rs") {
            made.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
    for v in &variants {
        assert!(
            made.contains(&format!("Effect::{v}")),
            "nav::Effect::{v} is never made by nav: it belongs to tui::Effect"
        );
    }
}

#[test]
fn guide_batches_arrive_as_actions_and_the_last_applies_what_waited() {
    let (lib, _) = tsgnav::load::load_library(&[crate::common::root().join("tsg")]);
    let mut app = App::new(Default::default(), Keymap::bundled(), Theme::bundled(true));
    let (first, rest) = lib.guides.split_at(1);
    let batch = |guides: &[tsgnav::tsg::Guide], loaded, done, pending| {
        Action::Guides(Box::new(GuideBatch {
            guides: guides.to_vec(),
            loaded,
            total: lib.guides.len(),
            done,
            pending,
        }))
    };
    let fx = update(&mut app, batch(first, 1, None, Vec::new()));
    assert!(fx.is_empty());
    assert_eq!(app.lib.guides.len(), 1);
    assert_eq!(app.session.loading, Some((1, lib.guides.len())));
    // The alert waits for the last batch, then lands where the whole library routes it.
    let land = Cmd::Alert(tsgnav::nav::AlertContext {
        name: crate::tui_common::ALERT.into(),
        ..Default::default()
    });
    update(
        &mut app,
        batch(rest, lib.guides.len(), Some(false), vec![land]),
    );
    assert_eq!(app.lib.guides.len(), lib.guides.len());
    assert_eq!(app.session.loading, None);
    let at = app.current_id().expect("landed on the alert's step");
    assert!(at.starts_with(crate::tui_common::SWIFT), "{at}");
}

#[test]
fn the_clock_is_an_action_that_draws_nothing_and_stamps_the_next_run() {
    let mut a = app();
    a.dirty = false;
    let fx = update(&mut a, Action::Tick("03:12:09".into()));
    assert!(fx.is_empty() && !a.dirty, "a tick redraws nothing");
    assert_eq!(a.reading.now, "03:12:09");
    let key = ProbeRef::new("x.md#y", 0);
    tsgnav::tui::stamp::started(&mut a, key.clone(), Vec::new());
    assert_eq!(a.reading.ran[&key].at, "03:12:09");
}
