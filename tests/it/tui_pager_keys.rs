//! The output pager's keys in the pure `update()` and the TestBackend: `o` opens the selected
//! probe's output, a table starts unwrapped with its columns, `w` wraps, `/` finds and `n`
//! cycles, `G` stops at the last page, `y`/`Y` ask the runtime to copy, `q` closes, and `o`
//! on a step without output says what to do.

use tsgnav::tui::app::{Item, ProbeResult};
use tsgnav::tui::Effect;
use tsgnav::tui::{update, Action};

use crate::tui_common::{at_alert, item_index, keys, render, screen, type_text};

fn table(rows: usize) -> String {
    let mut t = String::from("NAME                READY   STATUS    MESSAGE\n");
    for i in 0..rows {
        t.push_str(&format!(
            "router-{i:<12} 0/1     Pending   failed to reserve IP: ErrorCode 4: no free reservation in set #{i}\n"
        ));
    }
    t
}

#[test]
fn the_pager_reads_searches_wraps_and_copies() {
    let mut a = at_alert();
    assert!(keys(&mut a, "o").is_empty());
    assert!(
        a.notice
            .as_ref()
            .is_some_and(|n| n.text.contains("No output on this step yet")),
        "{:?}",
        a.notice
    );
    let node = a.current_id().expect("node").to_string();
    a.screen.item_sel = item_index(&a, |i| matches!(i, Item::Probe(0)));
    a.probes.results.insert(
        tsgnav::tsg::ProbeRef::new(node, 0),
        ProbeResult {
            outcome: tsgnav::tsg::Outcome::Exited(0),
            ok: true,
            text: table(60),
            series: Vec::new(),
        },
    );
    keys(&mut a, "o");
    let p = a.reading.pager.as_ref().expect("pager open");
    assert!(!p.wrap(), "a table starts unwrapped");
    let s = screen(&render(&mut a, 80, 24));
    assert!(s.contains(" 1│NAME                READY   STATUS"), "{s}");
    keys(&mut a, "/");
    type_text(&mut a, "#42");
    keys(&mut a, "<Enter>");
    let p = a.reading.pager.as_ref().expect("pager");
    assert_eq!(p.hits(), [43]);
    let s = screen(&render(&mut a, 80, 24));
    assert!(s.contains("`#42` 1/1"), "{s}");
    assert!(
        s.contains("44│ in set #42"),
        "scrolled sideways to the match:\n{s}"
    );
    keys(&mut a, "w");
    let s = screen(&render(&mut a, 80, 24));
    assert!(
        s.contains("44│router-42") && s.contains("  │"),
        "wrapped:\n{s}"
    );
    keys(&mut a, "G");
    let s = screen(&render(&mut a, 80, 24));
    assert!(
        s.contains("61│router-59") && s.contains("/61 "),
        "G reaches the last line with wrap on:\n{s}"
    );
    let fx = keys(&mut a, "y");
    assert!(
        matches!(fx.as_slice(), [Effect::Copy(t)] if t.contains("router-59")),
        "{fx:?}"
    );
    let fx = keys(&mut a, "Y");
    assert!(matches!(fx.as_slice(), [Effect::Copy(t)] if !t.contains("router-59")));
    keys(&mut a, "q");
    assert!(a.reading.pager.is_none());
    update(&mut a, Action::Resize(80, 24));
}
