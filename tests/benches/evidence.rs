//! Criterion benchmarks for the evidence journal.
//!
//! - `evidence/append_fsync`: one `Session::append` of a probe run with a small inline output,
//!   redaction, hashing, the write and `sync_data` included (goal: p99 ≤ 5 ms). Before criterion
//!   runs, 2,000 appends are timed one by one and their p50/p90/p99/max printed, since criterion
//!   reports means, not tails, with the same figures for a bare write + `sync_data` of a
//!   plain file on the same disk (the floor any fsync'd append has).
//! - `evidence/export_10k_md` and `evidence/export_10k_targz`: `evidence::export` of a
//!   10,000-record session (read, verify the chain and blobs, checklist, Markdown; the tar.gz
//!   variant also copies and packs everything) (goal: ≤ 1 s).
//!
//! Bench code only: uses the public `evidence` API and writes nothing outside its temp dir.
//! Run with `cargo bench --bench evidence`.

use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use tsgnav::evidence::{
    self, ExportFormat, ExportRequest, Note, ProbeRun, Record, Session, SessionStart,
};
use tsgnav::tsg::Escalation;

const RECORDS: usize = 10_000;

fn start() -> SessionStart {
    SessionStart {
        tool_version: "bench".into(),
        guide: "guide.md".into(),
        guide_sha256: "0".repeat(64),
        operator: "bench".into(),
        host: "bench".into(),
        alert: Some("SwiftPendingProgramming".into()),
        ..SessionStart::default()
    }
}

fn probe_record(s: &Session, i: usize) -> Record {
    let mut p = ProbeRun {
        probe: format!("guide.md#step-{}/12", i % 9),
        command: format!("kubectl describe mtpnc -n ocm-{i:05}"),
        backend: "kube".into(),
        target: "aks-mgmt-westus3".into(),
        started: "2026-03-14T09:27:00Z".into(),
        ended: "2026-03-14T09:27:01Z".into(),
        exit: Some(0),
        ..Default::default()
    };
    let out = format!("Name: mtpnc-{i}\nStatus: Pending\nReason: network is not ready\n").repeat(4);
    if let Ok(o) = s.store_output(out.as_bytes()) {
        o.apply_to(&mut p);
    }
    Record::ProbeRun(p)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn append(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut s = Session::create(tmp.path(), start()).expect("create");
    let mut times: Vec<Duration> = (0..2000)
        .map(|i| {
            let rec = probe_record(&s, i);
            let t = Instant::now();
            s.append(rec).expect("append");
            t.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "evidence/append_fsync per-append over {} appends: p50 {:?}  p90 {:?}  p99 {:?}  max {:?}",
        times.len(),
        percentile(&times, 0.50),
        percentile(&times, 0.90),
        percentile(&times, 0.99),
        times[times.len() - 1]
    );
    // The floor: the same number of 400-byte appends + sync_data to a plain file, same disk.
    let raw_path = tmp.path().join("raw.jsonl");
    let mut raw = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&raw_path)
        .expect("raw file");
    let line = [b'x'; 400];
    let mut floor: Vec<Duration> = (0..2000)
        .map(|_| {
            let t = Instant::now();
            raw.write_all(&line)
                .and_then(|()| raw.sync_data())
                .expect("raw append");
            t.elapsed()
        })
        .collect();
    floor.sort();
    println!(
        "raw write+sync_data floor on the same disk: p50 {:?}  p90 {:?}  p99 {:?}  max {:?}  (append/raw p50 ratio {:.2})",
        percentile(&floor, 0.50),
        percentile(&floor, 0.90),
        percentile(&floor, 0.99),
        floor[floor.len() - 1],
        percentile(&times, 0.50).as_secs_f64() / percentile(&floor, 0.50).as_secs_f64()
    );
    let mut i = 0;
    c.bench_function("evidence/append_fsync", |b| {
        b.iter(|| {
            i += 1;
            let rec = probe_record(&s, i);
            black_box(s.append(rec).expect("append"))
        })
    });
}

/// A 10,000-record session: nodes, probe runs with inline output, notes and a few blobs.
fn big_session(state: &Path) -> std::path::PathBuf {
    let mut s = Session::create(state, start()).expect("create");
    for i in 1..RECORDS {
        let rec = match i % 10 {
            0 => Record::NodeEntered {
                node: format!("guide.md#step-{}", i % 9),
            },
            7 => Record::Note(Note {
                text: format!("finding {i}: MTPNC stuck"),
                ..Default::default()
            }),
            _ if i % 2000 == 1 => {
                let mut p = ProbeRun {
                    probe: "guide.md#logs/3".into(),
                    command: "kubectl logs cns".into(),
                    backend: "kube".into(),
                    exit: Some(0),
                    ..Default::default()
                };
                let big = format!("I0314 cns ipam: request {i} pending\n").repeat(5000);
                s.store_output(big.as_bytes())
                    .expect("blob")
                    .apply_to(&mut p);
                Record::ProbeRun(p)
            }
            _ => probe_record(&s, i),
        };
        s.append(rec).expect("append");
    }
    s.dir().to_owned()
}

fn export(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tmp");
    let t = Instant::now();
    let dir = big_session(tmp.path());
    println!(
        "evidence: wrote a {RECORDS}-record session in {:?}",
        t.elapsed()
    );
    let esc = Escalation {
        team: "Azure AKS team".into(),
        evidence: vec![
            "`kubectl describe mtpnc` output".into(),
            "CNS logs".into(),
            "DNC-RC Kusto excerpt".into(),
        ],
        ..Default::default()
    };
    let redactor = evidence::Redactor::default();
    let mut g = c.benchmark_group("evidence");
    g.sample_size(10);
    for (name, format) in [
        ("export_10k_md", ExportFormat::Md),
        ("export_10k_targz", ExportFormat::TarGz),
    ] {
        let req = ExportRequest {
            escalation: Some(esc.clone()),
            format,
            out: tmp.path().join(name),
        };
        g.bench_function(name, |b| {
            b.iter(|| black_box(evidence::export(&dir, &req, &redactor).expect("export")))
        });
    }
    g.finish();
}

criterion_group!(benches, append, export);
criterion_main!(benches);
