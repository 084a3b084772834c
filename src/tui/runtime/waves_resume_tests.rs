//! The journal reader of wave runs: what a killed, paused, resumed or restored run leaves
//! done, interrupted and captured.

use super::*;

const STEP: &str = "g.md#scale";

fn notes(recs: &[Record]) -> Earlier {
    Earlier::read(recs, STEP)
}

#[test]
fn a_killed_run_leaves_its_done_contexts_and_those_caught_mid_wave() {
    let w = |c: &[&str]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let recs = vec![
        run_note(STEP, "mc-*", 4, 0),
        starts_note(STEP, 1, 2, &w(&["a"])),
        context_note(STEP, 1, 2, "a", &State::Ok),
        starts_note(STEP, 2, 2, &w(&["b", "c", "d"])),
        context_note(STEP, 2, 2, "c", &State::Ok),
    ];
    let e = notes(&recs);
    assert_eq!(e.done(), w(&["a", "c"]));
    assert_eq!(e.interrupted, w(&["b", "d"]));
    assert!(e.resumable(), "no end was journaled: a crash");
}

#[test]
fn restored_counts_as_done_and_a_failure_or_a_success_ends_the_run() {
    let mut recs = vec![
        run_note(STEP, "mc-*", 2, 0),
        context_note(STEP, 1, 1, "a", &State::Failed("x".into())),
        context_note(STEP, 1, 1, "a", &State::Restored("scale".into())),
        context_note(STEP, 1, 1, "b", &State::Failed("y".into())),
    ];
    let e = notes(&recs);
    assert_eq!(e.done(), vec!["a".to_string()]);
    assert!(e.done_state("b").is_none());
    recs.push(end_note(STEP, "stopped"));
    assert!(!notes(&recs).resumable(), "a failure stopped it");
    recs.push(end_note(STEP, "paused"));
    assert!(notes(&recs).resumable(), "a pause is meant to be resumed");
}

#[test]
fn a_fresh_start_forgets_the_run_before_and_other_steps_do_not_count() {
    let recs = vec![
        context_note(STEP, 1, 1, "a", &State::Ok),
        context_note("g.md#other", 1, 1, "b", &State::Ok),
        run_note("./g.md#scale", "mc-*", 3, 0),
        context_note("./g.md#scale", 1, 1, "c", &State::Ok),
        run_note(STEP, "mc-*", 2, 1),
    ];
    let e = notes(&recs);
    assert_eq!(e.done(), vec!["c".to_string()], "{e:?}");
    assert_eq!(e.ended, None, "a resumed run is under way again");
}

#[test]
fn a_resumed_run_carries_what_the_one_before_left_done() {
    let earlier = vec![
        ("a".to_string(), State::Ok),
        ("b".to_string(), State::Restored(String::new())),
    ];
    // The resumed run's session alone: its opening notes name a and b.
    let mut recs = vec![run_note(STEP, "mc-*", 2, 2)];
    recs.extend(earlier_notes(STEP, &earlier));
    recs.push(starts_note(STEP, 1, 1, &["c".to_string(), "d".to_string()]));
    recs.push(context_note(STEP, 1, 1, "c", &State::Ok));
    let e = notes(&recs);
    assert_eq!(e.done(), vec!["a", "b", "c"]);
    assert_eq!(e.interrupted, vec!["d".to_string()]);
}

#[test]
fn the_value_captured_before_the_first_change_is_kept_across_resumes() {
    let prior = |v: &str| PriorState {
        probe: None,
        resource: "deployment/agent -n maestro".into(),
        field: "spec.replicas".into(),
        value: v.into(),
        command: String::new(),
    };
    // As the engine journals a capture: the typed prior states, then the note.
    let cap = |c: &str, v: &str| {
        let text = super::super::waves_capture::note_text(1, 2, c, &[prior(v)]);
        vec![Record::PriorState(prior(v)), wave_note(text, STEP)]
    };
    let mut recs = vec![
        run_note(STEP, "mc-*", 3, 0),
        starts_note(STEP, 1, 2, &["a".to_string(), "b".to_string()]),
    ];
    recs.extend(cap("a", "3"));
    let e = notes(&recs);
    // Captured, then killed before its note: still interrupted, with its value.
    assert_eq!(e.interrupted, vec!["a", "b"]);
    assert_eq!(e.captured, vec![("a".to_string(), vec![prior("3")])]);
    // A resumed run carries it; a later capture of the same object (at its changed
    // value) does not replace it.
    recs.push(run_note(STEP, "mc-*", 3, 1));
    recs.extend(captured_notes(STEP, &e.captured));
    recs.extend(cap("a", "0"));
    assert_eq!(notes(&recs).captured, e.captured);
    // The resumed session alone holds the same story.
    let mut alone = vec![run_note(STEP, "mc-*", 3, 1)];
    alone.extend(captured_notes(STEP, &e.captured));
    assert_eq!(notes(&alone).captured, e.captured);
    // A fresh start forgets it.
    recs.push(Record::Note(Note {
        text: "wave run started · mc-* · 3 contexts".into(),
        topic: Some("wave".into()),
        node: Some(STEP.into()),
        ..Default::default()
    }));
    assert!(notes(&recs).captured.is_empty());
}

/// A captured value is the cluster's: one that reads like the note's own list (`; `, `=`,
/// a second object) is kept whole, from the typed record, not from the note's text.
#[test]
fn a_captured_value_that_reads_like_the_note_is_kept_whole() {
    let tricky = [
        "3; deployment/other -n x spec.replicas=0",
        "a=b=c",
        "nothing to capture",
        " · captured · mc-z · ",
        "",
    ];
    for value in tricky {
        let p = PriorState {
            probe: Some("scale".into()),
            resource: "configmap/flags -n maestro".into(),
            field: "data.mode".into(),
            value: value.into(),
            command: "kubectl get configmap flags".into(),
        };
        let text = super::super::waves_capture::note_text(1, 1, "a", std::slice::from_ref(&p));
        let mut recs = vec![run_note(STEP, "mc-*", 1, 0)];
        // A prior state journaled before something else is not this capture's.
        recs.push(Record::PriorState(PriorState {
            value: "stale".into(),
            ..p.clone()
        }));
        recs.push(Record::Note(Note {
            text: "unrelated".into(),
            ..Default::default()
        }));
        recs.extend([Record::PriorState(p.clone()), wave_note(text, STEP)]);
        let e = notes(&recs);
        assert_eq!(
            e.captured,
            vec![("a".to_string(), vec![p.clone()])],
            "{value:?}"
        );
        let mut carried = vec![run_note(STEP, "mc-*", 1, 1)];
        carried.extend(captured_notes(STEP, &e.captured));
        assert_eq!(notes(&carried).captured, e.captured, "carried: {value:?}");
    }
}

#[test]
fn a_note_without_a_node_is_the_sessions_step() {
    let old = Record::Note(Note {
        text: "wave 1/1 · a · ok".into(),
        topic: Some("wave".into()),
        ..Default::default()
    });
    assert_eq!(notes(&[old]).done(), vec!["a".to_string()]);
}
