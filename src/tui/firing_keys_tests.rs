//! `Firing::key` driven on its own, with no `App`: the selection through the section, what
//! is handed back to the guides list, and the alerts Enter and `S` name.

use super::FiringKey;
use crate::tui::command::Command;
use crate::tui::firing::{Alert, Firing};

fn section(names: &[&str]) -> Firing {
    let mut f = Firing::enabled();
    f.alerts = names
        .iter()
        .map(|n| Alert {
            source: "east".into(),
            name: n.to_string(),
            ..Alert::default()
        })
        .collect();
    f.sel = Some(0);
    f
}

#[test]
fn down_walks_the_alerts_then_hands_the_selection_to_the_guides() {
    let mut f = section(&["A", "B"]);
    assert_eq!(f.key(&Command::NextItem, false), FiringKey::Moved);
    assert_eq!(f.selected(), Some(1));
    assert_eq!(f.key(&Command::NextItem, false), FiringKey::ToGuides);
    assert_eq!(f.selected(), None);
    // From the guides list, Down is the list's own.
    assert_eq!(f.key(&Command::NextItem, true), FiringKey::Pass);
}

#[test]
fn up_from_the_first_guide_climbs_into_the_last_alert_and_not_from_further_down() {
    let mut f = section(&["A", "B", "C"]);
    f.sel = None;
    assert_eq!(f.key(&Command::PrevItem, false), FiringKey::Pass);
    assert_eq!(f.selected(), None);
    assert_eq!(f.key(&Command::PrevItem, true), FiringKey::Moved);
    assert_eq!(f.selected(), Some(2));
    assert_eq!(f.key(&Command::ScrollUp, true), FiringKey::Moved);
    assert_eq!(f.selected(), Some(1));
}

#[test]
fn paging_stays_inside_the_section() {
    let names: Vec<String> = (0..25).map(|i| format!("Alert{i}")).collect();
    let mut f = section(&names.iter().map(String::as_str).collect::<Vec<_>>());
    f.key(&Command::PageDown, false);
    f.key(&Command::PageDown, false);
    f.key(&Command::PageDown, false);
    assert_eq!(f.selected(), Some(24));
    f.key(&Command::PageUp, false);
    assert_eq!(f.selected(), Some(14));
    f.key(&Command::Top, false);
    assert_eq!(f.selected(), Some(0));
}

#[test]
fn enter_and_s_name_what_the_app_must_do() {
    let mut f = section(&["A", "B"]);
    f.key(&Command::NextItem, false);
    assert_eq!(f.key(&Command::Activate, false), FiringKey::Open(1));
    assert_eq!(f.key(&Command::Silence, false), FiringKey::Silence);
    f.sel = None;
    assert_eq!(f.key(&Command::Activate, true), FiringKey::Pass);
}

#[test]
fn search_bottom_and_cancel_leave_the_section_and_go_on_to_the_guides_list() {
    for c in [Command::Search, Command::Bottom, Command::Cancel] {
        let mut f = section(&["A"]);
        assert_eq!(f.key(&c, false), FiringKey::Pass, "{c:?}");
        assert_eq!(f.selected(), None, "{c:?}");
    }
}

#[test]
fn a_section_with_no_source_takes_no_key() {
    let mut f = Firing::default();
    for c in [Command::NextItem, Command::Top, Command::Silence] {
        assert_eq!(f.key(&c, true), FiringKey::Pass, "{c:?}");
    }
}
