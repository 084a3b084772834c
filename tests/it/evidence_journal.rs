//! Evidence journal: append and resume, a torn last line, and a process killed with SIGKILL
//! while appending (nothing it reported as recorded is lost).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tsgnav::evidence::{self, Note, ProbeRun, Record, Session, SessionLog};

use crate::evidence_script::start;

pub fn probe(s: &Session, cmd: &str, output: &[u8]) -> Record {
    let mut p = ProbeRun {
        probe: "guide.md#step-1-check-mtpnc/8".into(),
        command: cmd.into(),
        backend: "shell".into(),
        exit: Some(0),
        ..Default::default()
    };
    s.store_output(output).expect("store").apply_to(&mut p);
    Record::ProbeRun(p)
}

/// A session with a node, a probe with inline output, one with a blob, and a note.
pub fn sample(state: &Path) -> PathBuf {
    let mut s = Session::create(state, start()).expect("create");
    s.append(Record::NodeEntered {
        node: "guide.md#step-1-check-mtpnc".into(),
    })
    .expect("append");
    let r = probe(
        &s,
        "kubectl describe mtpnc -n ocm-abc",
        b"Name: mtpnc-1\nStatus: Pending\n",
    );
    s.append(r).expect("append");
    let big = "I1130 cns: pending ip 10.0.0.7\n".repeat(4000);
    let r = probe(&s, "kubectl logs -n kube-system cns-abc", big.as_bytes());
    s.append(r).expect("append");
    s.append(Record::Note(Note {
        text: "MTPNC stuck".into(),
        ..Default::default()
    }))
    .expect("append");
    s.dir().to_owned()
}

pub fn lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .expect("read")
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn appended_records_chain_and_resume_continues_the_chain() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = sample(tmp.path());
    let log = SessionLog::read(&dir).expect("read");
    assert_eq!(log.entries.len(), 5);
    assert_eq!(log.entries[0].prev, evidence::GENESIS);
    for w in log.entries.windows(2) {
        assert_eq!(w[1].prev, w[0].hash);
        assert_eq!(w[1].seq, w[0].seq + 1);
    }
    let Record::ProbeRun(big) = &log.entries[3].record else {
        panic!("probe_run expected")
    };
    assert!(big.output.is_none(), "a 124 KB output goes to a blob");
    let blob = big.blob.clone().expect("blob");
    assert_eq!(
        std::fs::metadata(dir.join("blobs").join(&blob))
            .expect("blob file")
            .len(),
        big.output_size
    );
    let mut s = Session::open(&dir).expect("resume");
    assert!(s.recovered().is_none());
    assert_eq!(
        s.state().node.as_deref(),
        Some("guide.md#step-1-check-mtpnc")
    );
    let a = s
        .append(Record::NodeEntered {
            node: "guide.md#step-2-cns-metrics".into(),
        })
        .expect("append");
    assert_eq!(a.seq, 6);
    assert_eq!(
        SessionLog::read(&dir).expect("read").entries[5].prev,
        log.entries[4].hash
    );
    drop(s);
    let r = evidence::verify(&dir).expect("verify");
    assert!(r.ok(), "{:?}", r.problem);
    assert_eq!((r.records, r.blobs), (6, 1));
}

#[test]
fn a_torn_last_line_is_dropped_on_resume_and_everything_before_it_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = sample(tmp.path());
    let journal = dir.join("journal.jsonl");
    let before = std::fs::read(&journal).expect("read");
    let last = lines(&dir).pop().expect("a line");
    // A crash mid-write: the first 40 bytes of a record, no newline.
    let mut torn = before.clone();
    torn.extend_from_slice(&last.as_bytes()[..40]);
    std::fs::write(&journal, &torn).expect("write");

    let log = SessionLog::read(&dir).expect("read");
    assert_eq!(log.entries.len(), 5);
    let t = log.torn.clone().expect("torn line reported");
    assert_eq!((t.line, t.offset, t.bytes), (6, before.len() as u64, 40));
    let r = evidence::verify(&dir).expect("verify");
    assert_eq!(
        r.problem.expect("verify reports it").location,
        "journal.jsonl line 6"
    );

    let mut s = Session::open(&dir).expect("resume");
    let rec = s
        .recovered()
        .expect("resume says what it dropped")
        .to_string();
    assert!(
        rec.contains("journal.jsonl line 6 is incomplete (40 bytes")
            && rec.contains("every record before it is kept"),
        "{rec}"
    );
    assert_eq!(
        std::fs::read(&journal).expect("read"),
        before,
        "cut back to the last whole record"
    );
    let aside = std::fs::read(dir.join(format!("journal.jsonl.torn-{}", before.len())))
        .expect("torn bytes kept aside");
    assert_eq!(aside, &last.as_bytes()[..40]);
    assert_eq!(
        s.append(Record::NodeEntered { node: "n".into() })
            .expect("append")
            .seq,
        6
    );
    drop(s);
    assert!(evidence::verify(&dir).expect("verify").ok());
}

#[test]
fn a_whole_last_record_without_its_newline_is_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = sample(tmp.path());
    let journal = dir.join("journal.jsonl");
    let mut bytes = std::fs::read(&journal).expect("read");
    bytes.pop();
    std::fs::write(&journal, &bytes).expect("write");
    let mut s = Session::open(&dir).expect("resume");
    assert!(s.recovered().is_none());
    assert_eq!(
        s.append(Record::NodeEntered { node: "n".into() })
            .expect("append")
            .seq,
        6
    );
    drop(s);
    assert!(evidence::verify(&dir).expect("verify").ok());
}

/// Runs `tsgnav sessions stress DIR` and kills it with SIGKILL after `after` records were
/// reported; returns every seq it printed as recorded.
fn kill_while_appending(state: &Path, dir: &Path, after: usize) -> Vec<u64> {
    let mut child = crate::common::bin()
        .args(["sessions", "stress"])
        .arg(dir)
        .args(["--records", "1000000"])
        .env("TSGNAV_STATE_DIR", state)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tsgnav");
    let stdout = child.stdout.take().expect("stdout");
    let mut reader = BufReader::new(stdout);
    let mut seqs = Vec::new();
    let mut line = String::new();
    while seqs.len() < after {
        line.clear();
        if reader.read_line(&mut line).expect("read") == 0 {
            let mut err = String::new();
            let _ =
                std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err);
            panic!("stress ended early: {err}");
        }
        seqs.push(
            line.trim()
                .strip_prefix("recorded ")
                .expect("`recorded <seq>`")
                .parse()
                .expect("seq"),
        );
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reap");
    // Lines printed before the kill and still in the pipe were reported too.
    for l in reader.lines() {
        let Ok(l) = l else { break };
        if let Some(n) = l
            .trim()
            .strip_prefix("recorded ")
            .and_then(|n| n.parse().ok())
        {
            seqs.push(n);
        }
    }
    seqs
}

#[test]
fn killing_the_writer_loses_nothing_it_reported_as_recorded() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = sample(tmp.path());
    let mut torn_seen = 0;
    for round in 0..3 {
        let reported = kill_while_appending(tmp.path(), &dir, 200 + 150 * round);
        let s = Session::open(&dir).expect("resume after SIGKILL");
        torn_seen += usize::from(s.recovered().is_some());
        let records = s.records();
        drop(s);
        let log = SessionLog::read(&dir).expect("read");
        for seq in &reported {
            let e = log.get(*seq).unwrap_or_else(|| panic!("round {round}: #{seq} was reported recorded but is missing ({records} records)"));
            assert!(matches!(e.record, Record::ProbeRun(_)));
        }
        let r = evidence::verify(&dir).expect("verify");
        assert!(r.ok(), "round {round}: {:?}", r.problem);
    }
    eprintln!("crash test: {torn_seen} of 3 kills left a torn line");
}
