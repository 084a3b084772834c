//! Records appended together (`Session::append_all`, one fsync of the signatures and one of
//! the journal for all of them) are records like any other: each has its own signature over
//! the journal up to it, the chain runs through them, verify passes, a resumed session goes
//! on after them, and a forgery inside a batch (an edited record with the chain recomputed,
//! two records swapped, a signature dropped) fails verify as it does elsewhere.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tsgnav::evidence::{self, Note, OperatorKey, Options, Record, Session, SessionLog};

use crate::evidence_journal::{lines, probe};
use crate::evidence_script::start;
use crate::evidence_sign::{rechain, records};

/// A signed session: a node, then a batch of a probe, a variable and a note (as a wave
/// context journals them), then one record alone.
fn batched(state: &Path, keys: &Path) -> PathBuf {
    let key = Arc::new(OperatorKey::load_or_create(keys).expect("key"));
    let opts = Options {
        key: Ok(key),
        ..Options::default()
    };
    let mut s = Session::create_with(state, start(), opts).expect("create");
    s.append(Record::NodeEntered {
        node: "pause-agent.md#strategy-scale-the-agent-down".into(),
    })
    .expect("append");
    let before = s.records();
    let run = probe(
        &s,
        "kubectl scale deployment/maestro-agent --replicas=0",
        b"scaled\n",
    );
    let done = s
        .append_all(vec![
            run,
            Record::VariableSet {
                name: "REPLICAS_BEFORE".into(),
                value: "2".into(),
                source: "probe:capture".into(),
            },
            Record::Note(Note {
                text: "wave 1/4 · mc-eastus-1 ok".into(),
                topic: Some("wave".into()),
                ..Default::default()
            }),
        ])
        .expect("append_all");
    let seqs: Vec<u64> = done.iter().map(|a| a.seq).collect();
    assert_eq!(seqs, vec![before + 1, before + 2, before + 3]);
    assert_eq!(s.records(), before + 3);
    assert_eq!(
        s.head(),
        done[2].hash,
        "the head is the batch's last record"
    );
    s.append(Record::Note(Note {
        text: "after the batch".into(),
        ..Default::default()
    }))
    .expect("append");
    s.dir().to_owned()
}

#[test]
fn a_batch_is_signed_record_by_record_and_verifies_and_resumes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = batched(&tmp.path().join("state"), &tmp.path().join("keys"));
    let r = evidence::verify(&dir).expect("verify");
    assert!(r.ok(), "{:?}", r.problem);
    let n = lines(&dir).len();
    let sigs = std::fs::read_to_string(dir.join(evidence::SIG_FILE)).expect("sigs");
    assert_eq!(sigs.lines().count(), n, "one signature per record");
    for (i, line) in sigs.lines().enumerate() {
        let sig: evidence::SigLine = serde_json::from_str(line).expect("sig line");
        assert_eq!(sig.seq, i as u64 + 1, "{line}");
    }
    let log = SessionLog::read(&dir).expect("read");
    for w in log.entries.windows(2) {
        assert_eq!(w[1].prev, w[0].hash);
    }
    let mut s = Session::open(&dir).expect("resume");
    let a = s
        .append(Record::NodeEntered {
            node: "x.md#y".into(),
        })
        .expect("append");
    assert_eq!(a.seq, n as u64 + 1);
    drop(s);
    assert!(evidence::verify(&dir).expect("verify").ok());
}

#[test]
fn a_forgery_inside_a_batch_fails_verify() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = batched(&tmp.path().join("state"), &tmp.path().join("keys"));
    let journal = std::fs::read(dir.join("journal.jsonl")).expect("journal");
    let sigs = std::fs::read(dir.join(evidence::SIG_FILE)).expect("sigs");
    let restore = |_: &str| {
        std::fs::write(dir.join("journal.jsonl"), &journal).expect("restore");
        std::fs::write(dir.join(evidence::SIG_FILE), &sigs).expect("restore");
    };
    // The variable of the batch's middle record changed, the chain recomputed.
    let mut recs = records(&dir);
    let i = recs
        .iter()
        .position(|r| r["type"] == "variable_set")
        .expect("the batch's variable");
    recs[i]["value"] = "0".into();
    rechain(&dir, recs);
    let r = evidence::verify(&dir).expect("verify");
    assert!(!r.ok(), "an edited record of a batch passed verify");
    restore("edited");
    // Two records of the batch swapped, the chain recomputed.
    let mut recs = records(&dir);
    recs.swap(i, i + 1);
    rechain(&dir, recs);
    let r = evidence::verify(&dir).expect("verify");
    assert!(!r.ok(), "a reordered batch passed verify");
    restore("swapped");
    // The signature of the batch's middle record dropped.
    let text = String::from_utf8(sigs.clone()).expect("utf-8");
    let dropped: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(n, _)| *n != i)
        .map(|(_, l)| l)
        .collect();
    std::fs::write(
        dir.join(evidence::SIG_FILE),
        format!("{}\n", dropped.join("\n")),
    )
    .expect("drop");
    let r = evidence::verify(&dir).expect("verify");
    assert!(!r.ok(), "a batch with a signature missing passed verify");
    restore("dropped");
    assert!(evidence::verify(&dir).expect("verify").ok(), "restored");
}

#[test]
fn an_empty_batch_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut s = Session::create(tmp.path(), start()).expect("create");
    let before = std::fs::read(s.dir().join("journal.jsonl")).expect("journal");
    assert!(s.append_all(Vec::new()).expect("append_all").is_empty());
    assert_eq!(
        std::fs::read(s.dir().join("journal.jsonl")).expect("journal"),
        before
    );
}
