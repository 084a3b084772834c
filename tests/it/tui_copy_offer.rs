//! The export's status-line message is a typed notice worded when it is drawn: "Evidence
//! exported to …", with "(y copies head + key id)" while the copy offer stands. Nothing edits
//! a message's text afterwards, so a message that merely reads like an export is left as it
//! is. Pure TestBackend: fast, no servers.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tsgnav::tui::state::{Level, Notice, NoticeKind};
use tsgnav::tui::{update, Action, Effect};

use crate::tui_common::{app, render, screen};

const WRITTEN: &str =
    "/state/s1/export/tsgnav-s1.tar.gz · chain head 9f2c (record #7), key 4b1e: paste both";
const OFFER: &str = "tsgnav evidence s1 (record #7): head 9f2c · key 4b1e";

fn status_line(a: &mut tsgnav::tui::App) -> String {
    let shown = screen(&render(a, 220, 30));
    shown
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_export_notice_names_the_copy_offer_only_while_it_stands() {
    let mut a = app();
    update(&mut a, Action::Exported(Ok(WRITTEN.into())));
    let line = status_line(&mut a);
    assert!(
        line.contains(&format!("Evidence exported to {WRITTEN}")),
        "{line}"
    );
    update(&mut a, Action::CopyOffer(OFFER.into()));
    let line = status_line(&mut a);
    assert!(
        line.contains(&format!(
            "Evidence exported (y copies head + key id) to {WRITTEN}"
        )),
        "{line}"
    );
    let n = a.notice.clone().expect("the export's notice");
    assert_eq!((n.text.as_str(), n.kind), (WRITTEN, NoticeKind::Exported));
    let fx = update(
        &mut a,
        Action::Key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE)),
    );
    assert_eq!(fx, vec![Effect::Copy(OFFER.into())]);
    assert!(a.session.copy_offer.is_none(), "one copy per offer");
}

#[test]
fn another_key_drops_the_offer_and_the_notice_stops_naming_it() {
    let mut a = app();
    update(&mut a, Action::Exported(Ok(WRITTEN.into())));
    update(&mut a, Action::CopyOffer(OFFER.into()));
    update(
        &mut a,
        Action::Key(KeyEvent::new(KeyCode::F(9), KeyModifiers::NONE)),
    );
    assert!(a.session.copy_offer.is_none());
    let line = status_line(&mut a);
    assert!(!line.contains("y copies"), "{line}");
}

#[test]
fn a_message_that_reads_like_an_export_is_not_rewritten_by_the_offer() {
    let mut a = app();
    let words = "Evidence exported to the wiki by hand? Then note it with :set";
    a.set_message(words, false);
    update(&mut a, Action::CopyOffer(OFFER.into()));
    assert_eq!(a.notice.clone().map(|n| n.text).as_deref(), Some(words));
    let line = status_line(&mut a);
    assert!(line.contains(words) && !line.contains("y copies"), "{line}");
}

#[test]
fn a_failed_export_is_an_error_in_its_own_words() {
    let mut a = app();
    update(&mut a, Action::Exported(Err("the disk is full".into())));
    update(&mut a, Action::CopyOffer(OFFER.into()));
    let n = a.notice.clone().expect("a message");
    assert_eq!(n.kind, NoticeKind::Plain);
    assert_eq!(n.shown(true), "Export failed: the disk is full");
    assert!(n.is_error());
}

#[test]
fn notices_are_worded_from_their_kind() {
    let plain = Notice {
        text: "Probe 1 finished".into(),
        level: Level::Info,
        kind: NoticeKind::Plain,
    };
    assert_eq!(plain.shown(true), "Probe 1 finished");
    let export = Notice {
        kind: NoticeKind::Exported,
        text: "out.tar.gz".into(),
        ..plain
    };
    assert_eq!(export.shown(false), "Evidence exported to out.tar.gz");
    assert_eq!(
        export.shown(true),
        "Evidence exported (y copies head + key id) to out.tar.gz"
    );
}
