//! Unit tests of the wave plans: sizes, splits, policies, the typed phrase, the journal notes.

use super::*;

fn names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("mc-{i}")).collect()
}

fn sizes(waves: &[Vec<String>]) -> Vec<usize> {
    waves.iter().map(Vec::len).collect()
}

#[test]
fn canary_then_percentages_then_the_rest() {
    let spec = WaveSpec::parse("1,5%,20%,rest").expect("spec");
    let waves = plan(&names(300), &spec, None);
    assert_eq!(sizes(&waves), vec![1, 15, 60, 224]);
    assert_eq!(waves[0], vec!["mc-1".to_string()]);
    let all: Vec<String> = waves.concat();
    assert_eq!(all, names(300), "every context once, in order");
}

#[test]
fn small_fleets_round_up_and_never_make_empty_waves() {
    let spec = WaveSpec::parse("1,5%,20%,rest").expect("spec");
    assert_eq!(sizes(&plan(&names(3), &spec, None)), vec![1, 1, 1]);
    assert_eq!(sizes(&plan(&names(1), &spec, None)), vec![1]);
    assert!(plan(&[], &spec, None).is_empty());
}

#[test]
fn without_rest_the_last_size_repeats() {
    let spec = WaveSpec::parse("1,2").expect("spec");
    assert_eq!(sizes(&plan(&names(7), &spec, None)), vec![1, 2, 2, 2]);
}

#[test]
fn a_maximum_wave_size_cuts_big_waves() {
    let spec = WaveSpec::parse("1,rest").expect("spec");
    assert_eq!(sizes(&plan(&names(10), &spec, Some(4))), vec![1, 4, 4, 1]);
}

#[test]
fn bad_specs_name_the_part() {
    for bad in ["0", "1,,2", "abc", "150%", "0%", "rest,1", "-1"] {
        let e = WaveSpec::parse(bad).expect_err(bad).to_string();
        assert!(e.contains(bad) || e.contains("rest"), "{bad}: {e}");
    }
}

fn policy(glob: &str) -> Policy {
    Policy {
        glob: glob.into(),
        ..Policy::default()
    }
}

#[test]
fn policies_refuse_read_only_contexts_and_single_runs_where_waves_are_required() {
    let ro = Policy {
        read_only: true,
        ..policy("mc-prod-*")
    };
    let waves = Policy {
        require_waves: true,
        max_wave: Some(10),
        ..policy("mc-*")
    };
    let ps = vec![ro, waves];
    let e = apply(&ps, &["mc-dev-1".into(), "mc-prod-2".into()], true).expect_err("ro");
    assert!(e.to_string().contains("mc-prod-2"), "{e}");
    let e = apply(&ps, &["mc-dev-1".into()], false).expect_err("waves");
    assert!(e.to_string().contains("requires waves"), "{e}");
    let ok = apply(&ps, &["mc-dev-1".into()], true).expect("in waves");
    assert_eq!(ok.max_wave, Some(10));
    assert!(apply(&ps, &["other".into()], false).is_ok());
}

#[test]
fn the_phrase_names_the_glob_the_count_and_each_policy_phrase() {
    let p = phrase("mc-brazilsouth-*", 50, &[]);
    assert_eq!(p, "mc-brazilsouth-* · 50 contexts");
    assert!(check_phrase("mc-brazilsouth-*  ·  50 contexts", &p).is_ok());
    assert!(check_phrase("mc-brazilsouth-* . 50 contexts", &p).is_ok());
    assert!(check_phrase("mc-brazilsouth-* · 49 contexts", &p).is_err());
    assert!(check_phrase("mc-* · 50 contexts", &p).is_err());
    let with = phrase("mc-*", 1, &["change CHG-1 approved".into()]);
    assert_eq!(with, "mc-* · 1 context · change CHG-1 approved");
}

#[test]
fn eta_is_the_mean_wave_time_times_the_waves_left() {
    assert_eq!(eta(&[], 3), None);
    assert_eq!(eta(&[2.0, 4.0], 3), Some(9.0));
}

#[test]
fn notes_read_back_and_the_last_word_on_a_context_wins() {
    let a = note_text(1, 4, "mc-a", &State::Ok);
    assert_eq!(a, "wave 1/4 · mc-a · ok");
    let b = note_text(
        2,
        4,
        "mc-b",
        &State::Failed("validation failed: x · y".into()),
    );
    assert_eq!(
        parse_note(&b).map(|(c, s)| (c, s.word())),
        Some(("mc-b".into(), "failed"))
    );
    let b2 = note_text(2, 4, "mc-b", &State::Ok);
    let c = note_text(2, 4, "mc-c", &State::Ok);
    let c2 = note_text(2, 4, "mc-c", &State::Restored("kubectl scale …".into()));
    let done = done_contexts([
        a.as_str(),
        b.as_str(),
        b2.as_str(),
        c.as_str(),
        c2.as_str(),
        "a note",
    ]);
    assert_eq!(done, vec!["mc-a".to_string(), "mc-b".to_string()]);
}
