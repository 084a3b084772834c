//! Esc and the key typed right after it can reach the navigator in one read (a fast typist,
//! a slow SSH link, a loaded machine): the terminal's bytes are then those of Alt and that
//! key. Unless a keymap binds that Alt key, the navigator reads the two keys it was. Pure
//! TestBackend; no servers.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tsgnav::tui::app::App;
use tsgnav::tui::keymap::Keymap;
use tsgnav::tui::theme::Theme;
use tsgnav::tui::{update, Action};

use crate::tui_common::app;

fn alt(c: char) -> Action {
    Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
}

fn key(code: KeyCode) -> Action {
    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn esc_joined_to_the_next_key_is_read_as_both_keys() {
    let mut apart = app();
    update(&mut apart, key(KeyCode::Esc));
    update(&mut apart, key(KeyCode::Char('?')));
    assert!(apart.screen.help, "? opens the help");
    let mut joined = app();
    update(&mut joined, alt('?'));
    assert!(joined.screen.help, "Esc+? in one read opens the help too");
    // The Esc half still counts: with the help open, Esc+? closes it, then opens it again.
    update(&mut joined, alt('?'));
    assert!(joined.screen.help);
}

#[test]
fn an_alt_key_the_keymap_binds_keeps_its_binding() {
    let user = Keymap::parse(
        "keymap.toml",
        "[[global]]\non = [\"<A-x>\"]\nrun = \"help\"\ndesc = \"Help, my way\"\n",
    )
    .expect("parses");
    let (lib, errors) = tsgnav::load::load_library(&[crate::common::root().join("tsg")]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut a = App::new(
        lib,
        Keymap::bundled().with_overrides(user),
        Theme::bundled(true),
    );
    update(&mut a, alt('x'));
    assert!(a.screen.help, "the bound Alt-x runs its command");
    // `x` alone is not `help`: had Alt-x been split, the help would not be open.
    let mut b = app();
    update(&mut b, key(KeyCode::Char('x')));
    assert!(!b.screen.help);
}
