//! Evidence hand-off and reading back: export --handoff and import (verified before it is
//! accepted), replay data, list/show/latest, and the published record schema.

use std::path::Path;

use tsgnav::evidence::{self, Record, Replay, Session, SessionLog};

use crate::evidence_script::{scripted, T0};

#[test]
fn a_handoff_imports_elsewhere_only_when_it_verifies() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = scripted(&tmp.path().join("mine"), T0);
    let archive = evidence::export_handoff(&dir, tmp.path()).expect("handoff");
    let theirs = tmp.path().join("theirs");
    let out = crate::common::bin()
        .args(["sessions", "import"])
        .arg(&archive)
        .env("TSGNAV_STATE_DIR", &theirs)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("(16 records, verified; had 0)"));
    let id = dir.file_name().expect("id");
    let mut s = Session::open(&theirs.join(id)).expect("the other engineer continues it");
    assert_eq!(
        s.append(Record::NodeEntered {
            node: "guide.md#escalation".into()
        })
        .expect("append")
        .seq,
        17
    );
    drop(s);
    // Back to the first engineer: the continued session replaces the shorter copy.
    let back =
        evidence::export_handoff(&theirs.join(id), &tmp.path().join("back")).expect("handoff");
    let i = evidence::import_handoff(&back, &tmp.path().join("mine"))
        .expect("import continues the local copy");
    assert_eq!((i.records, i.had), (17, 16));

    // An archive whose journal was edited is refused and leaves nothing behind.
    let edited = tmp.path().join("edited.tar.gz");
    let journal = std::fs::read_to_string(dir.join("journal.jsonl"))
        .expect("journal")
        .replacen("ocm-2f9a", "ocm-2f9b", 1);
    write_tar(
        &edited,
        &[(
            &format!("{}/journal.jsonl", id.to_string_lossy()),
            journal.as_bytes(),
        )],
    );
    let fresh = tmp.path().join("fresh");
    let e = evidence::import_handoff(&edited, &fresh)
        .expect_err("edited archive refused")
        .to_string();
    assert!(
        e.contains("journal.jsonl line 4 (variable_set): hash does not match its content"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_dir(&fresh).expect("state dir").count(),
        0,
        "nothing left behind"
    );
    // An entry that climbs out of the session folder is refused.
    let evil = tmp.path().join("evil.tar.gz");
    write_tar(&evil, &[("s/../../x", b"boom".as_slice())]);
    let e = evidence::import_handoff(&evil, &fresh)
        .expect_err("path traversal refused")
        .to_string();
    assert!(e.contains("leaves the session folder"), "{e}");
}

fn write_tar(path: &Path, entries: &[(&str, &[u8])]) {
    let f = std::fs::File::create(path).expect("create");
    let mut b = tar::Builder::new(flate2::write::GzEncoder::new(
        f,
        flate2::Compression::fast(),
    ));
    for (name, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        // Raw name bytes: the tar crate's `append_data` refuses `..`, a hostile archive does not.
        let raw = &mut h.as_old_mut().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        h.set_cksum();
        b.append(&h, *data).expect("append");
    }
    b.into_inner().expect("tar").finish().expect("gz");
}

#[test]
fn replay_answers_with_the_recorded_output_marked_as_replayed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = scripted(tmp.path(), T0);
    let r = Replay::load(&SessionLog::read(&dir).expect("log"));
    assert_eq!(r.len(), 5);
    let hit = r
        .lookup(
            "guide.md#step-1-check-mtpnc/8",
            "kubectl  describe mtpnc -n ocm-2f9a",
        )
        .expect("recorded");
    assert!(hit.exact);
    assert!(String::from_utf8(hit.output().expect("output"))
        .expect("utf8")
        .contains("mtpnc is not ready"));
    assert!(
        hit.banner()
            .starts_with("REPLAYED — recorded output from session")
            && hit.banner().contains("record #5"),
        "{}",
        hit.banner()
    );
    let blob = r
        .lookup(
            "other.md#x/1",
            "kubectl logs -n kube-system cns-7x --since=1h",
        )
        .expect("same command, other probe");
    assert!(!blob.exact);
    let text = String::from_utf8(blob.output().expect("blob output")).expect("utf8");
    assert_eq!(text.lines().count(), 2000);
    assert!(text.contains("(Authorization: [REDACTED:authorization]") && !text.contains("abc1999"));
    assert!(r
        .lookup("guide.md#step-1-check-mtpnc/8", "kubectl get pods")
        .is_none());
}

#[test]
fn list_is_newest_first_and_sessions_resolve_by_prefix_or_latest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let old = scripted(tmp.path(), T0);
    let new = scripted(tmp.path(), T0 + 3600);
    let all = evidence::list(tmp.path()).expect("list");
    assert_eq!(
        all.iter().map(|s| s.dir.clone()).collect::<Vec<_>>(),
        [new.clone(), old.clone()]
    );
    assert_eq!(
        (all[0].records, all[0].alert.as_deref()),
        (16, Some("SwiftPendingProgramming"))
    );
    assert_eq!(
        evidence::resolve(tmp.path(), "latest").expect("latest"),
        new
    );
    assert_eq!(
        evidence::resolve(tmp.path(), "20260314T0926").expect("prefix"),
        old
    );
    let e = evidence::resolve(tmp.path(), "2026")
        .expect_err("ambiguous")
        .to_string();
    assert!(
        e.contains("matches several sessions") && e.contains("type more of the id"),
        "{e}"
    );
    let out = crate::common::bin()
        .args(["sessions", "show", "latest"])
        .env("TSGNAV_STATE_DIR", tmp.path())
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  #13  2026-03-14T10:27:24Z  confirmation      confirmed `kubectl scale"),
        "{text}"
    );
}

/// Required fields of `schema` for `line` (its envelope and its record type's `then` clause).
fn required<'a>(schema: &'a serde_json::Value, kind: &str) -> Vec<&'a str> {
    let mut out: Vec<&str> = schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    for clause in schema["allOf"].as_array().expect("allOf") {
        if clause["if"]["properties"]["type"]["const"] == kind {
            out.extend(
                clause["then"]["required"]
                    .as_array()
                    .expect("then.required")
                    .iter()
                    .filter_map(|v| v.as_str()),
            );
        }
    }
    out
}

#[test]
fn every_journal_line_has_the_fields_the_published_schema_requires() {
    let text = std::fs::read_to_string(
        crate::common::root().join("assets/schemas/evidence-record.schema.json"),
    )
    .expect("schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
    let kinds: Vec<&str> = schema["properties"]["type"]["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = scripted(tmp.path(), T0);
    let mut s = Session::open(&dir).expect("open");
    let x = evidence::ExportRecord {
        team: None,
        format: "md".into(),
        manifest_sha256: "0".repeat(64),
    };
    s.append(Record::Export(x)).expect("append");
    drop(s);
    let mut seen = std::collections::BTreeSet::new();
    for line in std::fs::read_to_string(dir.join("journal.jsonl"))
        .expect("journal")
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).expect("line is JSON");
        let kind = v["type"].as_str().expect("type");
        assert!(kinds.contains(&kind), "type {kind} is not in the schema");
        for field in required(&schema, kind) {
            assert!(
                v.get(field).is_some(),
                "{kind} line lacks `{field}` the schema requires: {line}"
            );
        }
        seen.insert(kind.to_owned());
    }
    assert_eq!(
        seen.len(),
        kinds.len(),
        "the scripted session covers every record type: {seen:?}"
    );
}
