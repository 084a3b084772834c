//! `:waves` in the navigator at 80×24 (tmux), after things go wrong, against `tsgnav::sim`
//! with the real kubectl (writes counted per cluster by the simulator): tsgnav killed with
//! SIGKILL in the middle of a wave, then started again, goes on with the contexts its journal
//! does not show done and never writes to a done one again; "restore all" after a failure
//! brings every context the run changed back to its captured count, after a question that
//! names the count; `q` while a wave runs asks, pauses after that wave and quits with every
//! changed context journaled and the terminal restored, and `tsgnav --resume` then offers
//! the rest only. Waits on the screen's content, never on a fixed sleep. Skips with a SKIP
//! line when tmux or kubectl is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::waves_tmux::{wave_notes, Fleet};

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a journal's wave notes end `name` in `word` (`ok`, `restored` …).
fn noted(notes: &[String], name: &str, word: &str) -> bool {
    notes
        .iter()
        .any(|n| n.contains(&format!(" · {name} · {word}")))
}

impl Fleet {
    /// The step open in a navigator started with `rest`, `:waves mc-* SIZES`, the
    /// precondition ticked and the phrase (`mc-* · N contexts`) typed back.
    pub(crate) fn run_waves(&self, launch: &str, sizes: &str, count: usize) -> String {
        let t = &self.t;
        t.send_line(launch);
        t.wait_for("the step", |s| s.contains("Strategy: scale the agent down"));
        t.send_line(&format!(":waves mc-* {sizes}"));
        let plan = t.wait_for("the plan", |s| s.contains("wave 1 (canary): 1"));
        t.keys(&["Space"]);
        t.wait_for("the tick", |s| s.contains("[x] the maintenance window"));
        t.send_line(&format!("mc-* . {count} contexts"));
        plan
    }
}

#[test]
fn a_run_killed_mid_wave_goes_on_with_the_rest_and_never_writes_a_done_context_again() {
    let test = "a_run_killed_mid_wave_goes_on_with_the_rest_and_never_writes_a_done_context_again";
    let Some(f) = Fleet::start(test, "waveskill", 6, &[]) else {
        return;
    };
    let (t, names) = (&f.t, &f.names);
    // The navigator's own pid, for the kill.
    let pid = t.dir.join("tsgnav.pid");
    let script = t.dir.join("launch.sh");
    let body = format!(
        "echo $$ > '{}'\nexec {}\n",
        pid.display(),
        f.command(&names[0], &f.on_the_step())
    );
    std::fs::write(&script, body).expect("launch script");
    // Waves of 1, 1 and 4, one context at a time: the third wave takes a while.
    f.run_waves(&format!("sh '{}'", script.display()), "1,1,rest 1", 6);
    // A row turns mutating after its wave's note is journaled: the kill lands mid-wave.
    t.wait_for("two contexts done, the third wave under way", |s| {
        s.contains("ok 2 ·") && s.contains("mutating 1")
    });
    let pid = std::fs::read_to_string(&pid).expect("pid");
    let killed = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .expect("kill");
    assert!(killed.success(), "kill -9 {pid}");
    // A killed program leaves the terminal as it had it: the shell puts it back.
    t.send_line("printf '\\033[?1049l\\033[?1000l\\033[?1002l\\033[?1006l'; stty sane; clear");
    t.wait_for("the shell", |s| s.trim_start().starts_with("READY$"));
    let notes = wave_notes(&t.dir.join("state"));
    let done: Vec<&String> = names.iter().filter(|n| noted(&notes, n, "ok")).collect();
    assert!(
        done.len() >= 2 && done.len() < names.len(),
        "the kill landed mid-run: {notes:?}"
    );
    for n in &done {
        assert_eq!(f.sim.handle.writes_to(n), 1, "{n} was done before the kill");
    }
    // A new navigator on the same step: the plan holds the rest only.
    let rest = names.len() - done.len();
    let plan = f.run_waves(
        &format!("clear; {}", f.command(&names[0], &f.on_the_step())),
        "1,1,rest 4",
        rest,
    );
    assert!(
        flat(&plan).contains(&format!(
            "resuming: {} contexts done in the earlier run are left as they are; {rest} remain",
            done.len()
        )),
        "{plan}"
    );
    assert!(
        plan.contains(&format!("mc-* · {rest} contexts")),
        "the count typed back is the rest:\n{plan}"
    );
    // Every context left was in the wave the kill cut short: named as such, those whose
    // capture the journal holds apart (they are not captured again).
    let said = |what: &str| {
        let f = flat(&plan);
        f.split(what)
            .next()
            .filter(|before| before.len() < f.len())
            .and_then(|before| {
                let word = before.split_whitespace().last()?;
                word.trim_start_matches('│').parse::<usize>().ok()
            })
            .unwrap_or(0)
    };
    let fresh = said(" were in the wave under way when it was cut short");
    let again = said(" run again with the value captured before their first change");
    assert_eq!(fresh + again, rest, "{plan}");
    let s = t.wait_for("the rest validated", |s| {
        flat(s).contains(&format!("All {rest} contexts validated"))
    });
    assert!(
        s.contains(&format!("done earlier {}", done.len())),
        "the done ones are shown apart:\n{s}"
    );
    for (i, n) in names.iter().enumerate() {
        let w = f.sim.handle.writes_to(n);
        match done.contains(&n) {
            true => assert_eq!(w, 1, "{n} (index {i}) was done: written again"),
            false => assert!(w >= 1, "{n} (index {i}) was left unchanged"),
        }
        assert_eq!(f.replicas(n), 0, "{n} is changed in the end");
    }
    f.leave();
    let notes = wave_notes(&t.dir.join("state"));
    for n in names {
        assert!(noted(&notes, n, "ok"), "{n} validated in the journal");
    }
}

#[test]
fn restore_all_after_a_failure_brings_every_changed_context_back_to_its_captured_count() {
    let test =
        "restore_all_after_a_failure_brings_every_changed_context_back_to_its_captured_count";
    // Waves of 1, 1 and 4: index 3 fails in the third.
    let Some(f) = Fleet::start(test, "wavesall", 6, &[3]) else {
        return;
    };
    let (t, names) = (&f.t, &f.names);
    let before: Vec<i32> = names.iter().map(|n| f.replicas(n)).collect();
    assert!(before.iter().all(|r| *r > 0), "{before:?}");
    f.run_waves(&f.command(&names[0], &f.on_the_step()), "1,1,rest 4", 6);
    let s = t.wait_for("the failed wave", |s| s.contains("wave 3 failed"));
    assert!(s.contains("a all (6)"), "the key names the count:\n{s}");
    assert_eq!(f.writes(), vec![1; 6], "every context was changed once");
    t.keys(&["a"]);
    t.wait_for("the question", |s| {
        flat(s).contains("Restore all 6 contexts this run changed to their captured values?")
    });
    assert_eq!(
        f.writes(),
        vec![1; 6],
        "the question alone restores nothing"
    );
    t.keys(&["y"]);
    let s = t.wait_for("the end", |s| s.contains("Stopped at wave 3/3"));
    assert!(s.contains("restored 6"), "every row restored:\n{s}");
    assert_eq!(f.writes(), vec![2; 6], "one change and one restore each");
    for (i, n) in names.iter().enumerate() {
        assert_eq!(
            f.replicas(n),
            before[i],
            "{n} is back at its captured count"
        );
    }
    f.leave();
    let notes = wave_notes(&t.dir.join("state"));
    for n in names {
        assert!(noted(&notes, n, "restored"), "{n}'s restore is journaled");
    }
}

#[test]
fn q_while_a_wave_runs_pauses_after_it_quits_journaled_and_resume_offers_the_rest() {
    let test = "q_while_a_wave_runs_pauses_after_it_quits_journaled_and_resume_offers_the_rest";
    let Some(f) = Fleet::start(test, "wavesquit", 7, &[]) else {
        return;
    };
    let (t, names) = (&f.t, &f.names);
    // Waves of 1, 4 and 2, one context at a time.
    f.run_waves(&f.command(&names[0], &f.on_the_step()), "1,4,rest 1", 7);
    t.wait_for("the second wave under way", |s| {
        s.contains("wave 2/3") && s.contains("mutating")
    });
    t.keys(&["q"]);
    t.wait_for("the question", |s| {
        flat(s).contains("Quit while wave 2 runs? p pauses after it")
    });
    t.keys(&["p"]);
    t.restored();
    let writes = f.writes();
    assert_eq!(writes, vec![1, 1, 1, 1, 1, 0, 0], "wave 3 never started");
    let notes = wave_notes(&t.dir.join("state"));
    for (i, n) in names.iter().enumerate() {
        // Never a changed context without its record.
        assert_eq!(noted(&notes, n, "ok"), i < 5, "{n} (index {i}): {notes:?}");
    }
    assert!(
        notes.iter().any(|n| n == "wave run ended · paused"),
        "{notes:?}"
    );
    // Started again on the same session: the rest only.
    t.send_line(&format!(
        "clear; {}",
        f.command(&names[0], "--resume latest")
    ));
    t.wait_for("the step", |s| s.contains("Strategy: scale the agent down"));
    t.send_line(":waves mc-* 1,4,rest 1");
    let s = t.wait_for("the plan", |s| s.contains("wave 1 (canary): 1"));
    assert!(
        flat(&s).contains(
            "resuming: 5 contexts done in the earlier run are left as they are; 2 remain"
        ),
        "{s}"
    );
    assert!(
        s.contains(&format!("wave 1 (canary): 1 · {}", names[5])),
        "{s}"
    );
    f.leave();
    assert_eq!(f.writes(), writes, "planning writes nothing");
}

#[test]
fn restore_all_in_a_resumed_run_brings_back_what_the_killed_navigator_changed_too() {
    let test = "restore_all_in_a_resumed_run_brings_back_what_the_killed_navigator_changed_too";
    // Waves of 1, 1 and 3, one at a time; killed once two validated. Index 4 fails.
    let Some(f) = Fleet::start(test, "wavesresall", 5, &[4]) else {
        return;
    };
    let (t, names) = (&f.t, &f.names);
    let before: Vec<i32> = names.iter().map(|n| f.replicas(n)).collect();
    let (pid, script) = (t.dir.join("tsgnav.pid"), t.dir.join("launch.sh"));
    let body = format!(
        "echo $$ > '{}'\nexec {}\n",
        pid.display(),
        f.command(&names[0], &f.on_the_step())
    );
    std::fs::write(&script, body).expect("launch script");
    f.run_waves(&format!("sh '{}'", script.display()), "1,1,rest 1", 5);
    // A row turns ok once its note is journaled.
    t.wait_for("two contexts validated", |s| s.contains("ok 2 ·"));
    let pid = std::fs::read_to_string(&pid).expect("pid");
    let killed = std::process::Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .expect("kill");
    assert!(killed.success(), "kill -9 {pid}");
    t.send_line("printf '\\033[?1049l\\033[?1000l\\033[?1002l\\033[?1006l'; stty sane; clear");
    t.wait_for("the shell", |s| s.trim_start().starts_with("READY$"));
    let notes = wave_notes(&t.dir.join("state"));
    let done = names.iter().filter(|n| noted(&notes, n, "ok")).count();
    assert!((2..4).contains(&done), "{notes:?}");

    // A new navigator: the rest in waves of 1 and the rest; the last context fails.
    let rest = names.len() - done;
    let launch = format!("clear; {}", f.command(&names[0], &f.on_the_step()));
    f.run_waves(&launch, "1,rest 4", rest);
    let s = t.wait_for("the failed wave", |s| s.contains("wave 2 failed"));
    assert!(s.contains(&format!("a all ({})", names.len())), "{s}");
    t.keys(&["a"]);
    t.wait_for("the question", |s| {
        flat(s).contains(&format!(
            "Restore all {} contexts the step's runs changed ({done} in the earlier run)",
            names.len()
        ))
    });
    t.keys(&["y"]);
    t.wait_for("the end", |s| s.contains("Stopped at wave 2/2"));
    for (i, n) in names.iter().enumerate() {
        assert_eq!(
            f.replicas(n),
            before[i],
            "{n} (index {i}) is not back at its count from before the first change"
        );
    }
    // The earlier run's validated contexts: changed once by it, restored once by this run.
    for n in &names[..done] {
        assert_eq!(f.sim.handle.writes_to(n), 2, "{n}");
    }
    f.leave();
    let notes = wave_notes(&t.dir.join("state"));
    for n in names {
        assert!(noted(&notes, n, "restored"), "{n}'s restore is journaled");
    }
}
