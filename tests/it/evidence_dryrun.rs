//! A dry run is called a dry run everywhere: the timeline (`sessions show`), the IcM summary
//! (findings and evidence table) and summary.json; and it opens no mitigation.

use tsgnav::evidence::{self, ExportFormat, ExportRequest, Options, ProbeRun, Record, Session};

#[test]
fn a_dry_run_reads_as_a_dry_run_in_every_export() {
    let tmp = tempfile::tempdir().expect("tmp");
    let opts = Options {
        key: Ok(crate::evidence_script::test_key()),
        ..Options::default()
    };
    let mut s = Session::create_with(
        &tmp.path().join("state"),
        crate::evidence_script::start(),
        opts,
    )
    .expect("create");
    let cmd = "kubectl scale deployment/cns -n kube-system --replicas=0 --dry-run=server";
    let mut run = ProbeRun {
        probe: "guide.md#strategy-1/40/dry-run".into(),
        command: cmd.into(),
        backend: "shell".into(),
        exit: Some(0),
        started: "2026-12-01T09:00:00Z".into(),
        ended: "2026-12-01T09:00:01Z".into(),
        dry_run: true,
        ..Default::default()
    };
    s.store_output(b"deployment.apps/cns scaled (server dry run)\n")
        .expect("store")
        .apply_to(&mut run);
    s.append(Record::ProbeRun(run)).expect("append");
    let dir = s.dir().to_owned();
    drop(s);
    let log = evidence::SessionLog::read(&dir).expect("log");
    let timeline = evidence::render_timeline(&log);
    assert!(
        timeline.contains("dry run (changes nothing) of `kubectl scale"),
        "{timeline}"
    );
    assert!(!timeline.contains("ran `kubectl scale"), "{timeline}");
    let records: Vec<Record> = log.entries.iter().map(|e| e.record.clone()).collect();
    assert!(
        evidence::open_mitigations(&records).is_empty(),
        "a dry run opens nothing"
    );
    for (i, format) in [ExportFormat::Md, ExportFormat::Json]
        .into_iter()
        .enumerate()
    {
        let req = ExportRequest {
            escalation: None,
            format,
            out: tmp.path().join(format!("out{i}")),
        };
        evidence::export(&dir, &req, &Default::default()).expect("export");
    }
    let mut files = Vec::new();
    crate::evidence_redact::files(tmp.path(), &mut files);
    let text = |name: &str| {
        files
            .iter()
            .find(|(n, _)| n.ends_with(name))
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let md = text("summary.md");
    assert!(
        md.contains("dry run (changes nothing)") && md.contains("| dry run shell |"),
        "{md}"
    );
    let json: serde_json::Value = serde_json::from_str(&text("summary.json")).expect("json");
    let last = json["timeline"]
        .as_array()
        .and_then(|t| t.last())
        .expect("timeline");
    assert_eq!(last["dry_run"], true, "{last}");
    assert!(
        last["event"]
            .as_str()
            .is_some_and(|e| e.starts_with("dry run")),
        "{last}"
    );
}
