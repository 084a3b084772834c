//! Forgery with a twin key: a key made to carry the operator's minisign key number (which
//! whoever makes a key chooses) but with other key bytes. Each forgery (an edited note, an
//! append, a truncation plus an append, an edited blob, a whole substituted session, an
//! append after a shared head) is re-chained and re-signed with the twin, as a forger who
//! knows the format would, and must fail every check that names the operator's key: `verify
//! --key ID`, `--key FILE`, `--key FINGERPRINT`, `--head H --key F` and `import --key`. With
//! no `--key`, verify cannot know who should have signed, but it must name the twin's
//! fingerprint, never print the operator's alone.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use serde_json::Value;
use tsgnav::evidence::{self, Note, OperatorKey, Options, Record, Session, SigLine};

use crate::evidence_journal::lines;
use crate::evidence_script::start;
use crate::evidence_sign::{rechain, records, signed_session};

/// A key with `of`'s minisign key number and fresh Ed25519 bytes, made in `dir`.
pub(crate) fn twin_key(of: &OperatorKey, dir: &Path) -> OperatorKey {
    let fresh = OperatorKey::load_or_create(dir).expect("fresh key");
    let path = dir.join("operator.key");
    let text = std::fs::read_to_string(&path).expect("read key");
    let line = text
        .lines()
        .find(|l| !l.starts_with("untrusted comment:"))
        .expect("key line");
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut b = b64.decode(line.trim()).expect("base64");
    // minisign secret key: … key number at 54..62, checksum at 126..158 (zero is accepted).
    b[54..62].copy_from_slice(&of.public().keynum);
    b[126..158].fill(0);
    std::fs::write(
        &path,
        format!("untrusted comment: twin\n{}\n", b64.encode(&b)),
    )
    .expect("write twin");
    let twin = OperatorKey::load(&path).expect("twin loads");
    assert_eq!(twin.public().minisign_id(), of.public().minisign_id());
    assert_ne!(twin.public().key, of.public().key);
    assert_ne!(twin.public().fingerprint(), of.public().fingerprint());
    assert_eq!(twin.public().key, fresh.public().key, "fresh's key bytes…");
    assert_ne!(
        twin.public().keynum,
        fresh.public().keynum,
        "…with the copied number"
    );
    twin
}

/// Re-signs records `from..` of `dir`'s journal with `key`, keeping the signatures before.
fn resign(dir: &Path, from: u64, key: &OperatorKey) {
    let journal = std::fs::read(dir.join("journal.jsonl")).expect("journal");
    let sig_path = dir.join(evidence::SIG_FILE);
    let old = std::fs::read_to_string(&sig_path).expect("sigs");
    let mut out: String = old
        .lines()
        .take(from as usize - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    let mut end = 0;
    for (i, line) in lines(dir).iter().enumerate() {
        end += line.len() + 1;
        let seq = i as u64 + 1;
        if seq < from {
            continue;
        }
        let v: Value = serde_json::from_str(line).expect("json");
        let head = v["hash"].as_str().expect("hash");
        let comment = format!("tsgnav journal.jsonl records={seq} head={head} operator=alice");
        let s = key.sign(&evidence::prehash(&journal[..end]), &comment);
        let l = SigLine {
            seq,
            key: key.public().to_base64(),
            sig: s.sig_base64(),
            comment,
            global: s.global_base64(),
        };
        out.push_str(&serde_json::to_string(&l).expect("sig line"));
        out.push('\n');
    }
    std::fs::write(&sig_path, out).expect("write sigs");
}

/// A note record shaped as the journal writes them (a copy of record 6, a note).
fn note(records: &[Value], text: &str) -> Value {
    let mut v = records[5].clone();
    assert_eq!(v["type"], "note", "{v}");
    v["text"] = Value::from(text);
    v
}

/// The forgeries of the genuine session in `dir`, each in a folder of its own under `work`.
fn forgeries(dir: &Path, twin: &OperatorKey, work: &Path) -> Vec<(&'static str, PathBuf)> {
    let copy = |name: &str| {
        let to = work.join(name).join(dir.file_name().expect("id"));
        std::fs::create_dir_all(to.join("blobs")).expect("mkdir");
        for f in ["journal.jsonl", evidence::SIG_FILE] {
            std::fs::copy(dir.join(f), to.join(f)).expect("copy");
        }
        for b in std::fs::read_dir(dir.join("blobs")).expect("blobs") {
            let b = b.expect("entry").path();
            std::fs::copy(&b, to.join("blobs").join(b.file_name().expect("name"))).expect("copy");
        }
        to
    };
    let mut out = Vec::new();

    let d = copy("edited-note");
    let mut r = records(&d);
    r[4]["text"] = Value::from("router pods healthy; nothing to escalate");
    rechain(&d, r);
    resign(&d, 5, twin);
    out.push(("an edited note", d));

    let d = copy("append");
    let mut r = records(&d);
    let n = note(&r, "mitigated by the operator");
    r.push(n);
    rechain(&d, r);
    resign(&d, 7, twin);
    out.push(("an append", d));

    let d = copy("truncate-append");
    let mut r = records(&d);
    let n = note(&r, "no escalation needed");
    r.truncate(4);
    r.push(n);
    rechain(&d, r);
    resign(&d, 5, twin);
    out.push(("a truncation plus an append", d));

    let d = copy("blob-edit");
    let mut r = records(&d);
    let old = r[3]["blob"]
        .as_str()
        .expect("record 4 has a blob")
        .to_owned();
    let body = "I1130 dnc-rc: NC request succeeded\n".repeat(3000);
    let new = evidence::sha256_hex(body.as_bytes());
    std::fs::remove_file(d.join("blobs").join(&old)).expect("rm");
    std::fs::write(d.join("blobs").join(&new), &body).expect("blob");
    r[3]["blob"] = Value::from(new.clone());
    r[3]["output_sha256"] = Value::from(new);
    r[3]["output_size"] = Value::from(body.len() as u64);
    rechain(&d, r);
    resign(&d, 4, twin);
    out.push(("an edited blob", d));

    let twin = Arc::new(OperatorKey::load(&twin.path).expect("twin"));
    let opts = Options {
        key: Ok(twin),
        ..Options::default()
    };
    let mut s = Session::create_with(&work.join("substituted"), start(), opts).expect("create");
    s.append(Record::Note(Note {
        text: "router pods stuck on two nodes".into(),
        ..Default::default()
    }))
    .expect("append");
    out.push(("a whole substituted session", s.dir().to_owned()));
    out
}

fn verify(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = crate::common::bin()
        .args(["sessions", "verify"])
        .arg(dir)
        .args(args)
        .output()
        .expect("run");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

#[test]
fn a_twin_key_forgery_fails_every_pinned_verify_and_is_named_without_a_pin() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, key) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let twin = twin_key(&key, &tmp.path().join("twin"));
    let pubf = tmp.path().join("operator.pub");
    std::fs::write(&pubf, key.public().to_minisign()).expect("pub");
    let (fpr, id) = (key.public().fingerprint(), key.public().id());
    let twin_fpr = twin.public().fingerprint();
    let head = records(&dir)[5]["hash"].as_str().expect("head").to_owned();
    let file = pubf.to_str().expect("utf-8");
    let pinned: [Vec<&str>; 4] = [
        vec!["--key", &id],
        vec!["--key", file],
        vec!["--key", &fpr],
        vec!["--head", &head, "--key", &fpr],
    ];
    // The genuine session passes every mode and gives the line to paste.
    for args in &pinned {
        let (code, text) = verify(&dir, args);
        assert_eq!(code, Some(0), "genuine, {args:?}: {text}");
    }
    let (_, text) = verify(&dir, &[]);
    assert!(text.contains(&format!("head {head} · key {fpr}")), "{text}");
    for (what, forged) in forgeries(&dir, &twin, &tmp.path().join("forged")) {
        for args in &pinned {
            let (code, text) = verify(&forged, args);
            assert_eq!(code, Some(1), "{what} passed verify {args:?}: {text}");
            assert!(text.contains("FAILED"), "{what}, {args:?}: {text}");
        }
        let (_, text) = verify(&forged, &[]);
        assert!(
            text.contains(&twin_fpr),
            "{what}: verify without --key must name the twin's fingerprint: {text}"
        );
        assert!(
            !text.contains(&format!("· key {fpr}")),
            "{what}: verify without --key offered the operator's line: {text}"
        );
    }
}

#[test]
fn an_append_after_the_shared_head_by_another_key_fails_head_and_key() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, key) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let twin = twin_key(&key, &tmp.path().join("twin"));
    let fpr = key.public().fingerprint();
    let head = records(&dir)[5]["hash"].as_str().expect("head").to_owned();
    // The operator's own key may go on after the head.
    let opts = Options {
        key: Ok(key.clone()),
        ..Options::default()
    };
    let mut s = Session::open_with(&dir, opts).expect("open");
    s.append(Record::Note(Note {
        text: "restored replicas".into(),
        ..Default::default()
    }))
    .expect("append");
    drop(s);
    let (code, text) = verify(&dir, &["--head", &head, "--key", &fpr]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("is record #6 of 7"), "{text}");
    // The twin appends one record after that.
    let mut r = records(&dir);
    let n = note(&r, "all clear, closing");
    r.push(n);
    rechain(&dir, r);
    resign(&dir, 8, &twin);
    let (code, text) = verify(&dir, &["--head", &head, "--key", &fpr]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("from #8") && text.contains(&twin.public().fingerprint()),
        "names the record and the key that signed it: {text}"
    );
}

#[test]
fn import_with_a_pinned_key_refuses_every_twin_forgery_and_imports_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, key) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let twin = twin_key(&key, &tmp.path().join("twin"));
    let pubf = tmp.path().join("operator.pub");
    std::fs::write(&pubf, key.public().to_minisign()).expect("pub");
    let fpr = key.public().fingerprint();
    let import = |archive: &Path, state: &Path, pin: &str| {
        crate::common::bin()
            .env("TSGNAV_STATE_DIR", state)
            .args(["sessions", "import"])
            .arg(archive)
            .args(["--key", pin])
            .output()
            .expect("run")
    };
    let genuine = evidence::export_handoff(&dir, &tmp.path().join("out")).expect("handoff");
    let o = import(&genuine, &tmp.path().join("ok"), &fpr);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&fpr),
        "import names the full fingerprint"
    );
    for (i, (what, forged)) in forgeries(&dir, &twin, &tmp.path().join("forged"))
        .into_iter()
        .enumerate()
    {
        let archive =
            evidence::export_handoff(&forged, &tmp.path().join(format!("a{i}"))).expect("pack");
        for pin in [fpr.as_str(), pubf.to_str().expect("utf-8")] {
            let state = tmp.path().join(format!("in{i}-{}", pin.len()));
            let o = import(&archive, &state, pin);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{what} imported with --key {pin}");
            assert!(err.contains("import --key"), "{what}: {err}");
            let left: Vec<_> = std::fs::read_dir(&state)
                .map(|rd| rd.filter_map(Result::ok).map(|e| e.file_name()).collect())
                .unwrap_or_default();
            assert!(left.is_empty(), "{what}: imported {left:?}");
        }
    }
}
