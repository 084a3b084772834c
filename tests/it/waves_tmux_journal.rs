//! `:waves` in the navigator at 80×24 (tmux) when its evidence cannot be written: the state
//! folder is a plain file, so no session can be opened (a real fault, which holds when the
//! tests run as root, where a read-only folder would still be written). The run waits for
//! the journal's answer before anything changes, so it stops with the reason and the
//! simulator counts no write.

use crate::waves_tmux::Fleet;

#[test]
fn a_wave_run_whose_journal_cannot_be_written_changes_nothing() {
    let test = "a_wave_run_whose_journal_cannot_be_written_changes_nothing";
    let Some(f) = Fleet::start(test, "wavesnojournal", 3, &[]) else {
        return;
    };
    let t = &f.t;
    let not_a_folder = t.dir.join("state-file");
    std::fs::write(&not_a_folder, "not a folder\n").expect("state file");
    let launch = format!(
        "TSGNAV_STATE_DIR='{}' {}",
        not_a_folder.display(),
        f.command(&f.names[0], &f.on_the_step())
    );
    f.run_waves(&launch, "1,rest 4", 3);
    let s = t.wait_for("the run's end", |s| s.contains("The wave run stopped"));
    // The screen's text, borders left out, as one line (the reason wraps).
    let flat = (s.replace('│', " ").split_whitespace())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains(&format!(
            "no evidence session could be opened under {}",
            not_a_folder.display()
        )),
        "the reason is on screen:\n{s}"
    );
    assert_eq!(
        f.writes(),
        vec![0, 0, 0],
        "a context changed without its record"
    );
    f.leave();
}
