//! Signed journals: the operator key is made in the config folder, every record is signed, an
//! independent implementation (the `minisign` tool) verifies the signatures, and a forged
//! journal (edit, delete, append, blob swap, each with a recomputed sha256 chain) or a journal
//! cut after a shared head fails `sessions verify`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::Value;
use tsgnav::evidence::{self, Note, OperatorKey, Options, Record, Session};

use crate::evidence_journal::{lines, probe};
use crate::evidence_script::start;

/// The `minisign` binary, or `None` with a SKIP line (a failure under TSGNAV_REQUIRE_SERVERS=1).
fn minisign() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("minisign"))
            .find(|f| f.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("TSGNAV_REQUIRE_SERVERS").as_deref() != Ok("1"),
            "minisign not found and TSGNAV_REQUIRE_SERVERS=1"
        );
        eprintln!("SKIP: minisign not installed (apt-get install minisign)");
    }
    found
}

/// A session of 6 records with a blob, signed by a key made in `keys`.
pub(crate) fn signed_session(state: &Path, keys: &Path) -> (PathBuf, Arc<OperatorKey>) {
    let key = Arc::new(OperatorKey::load_or_create(keys).expect("key"));
    let opts = Options {
        key: Ok(key.clone()),
        ..Options::default()
    };
    let mut s = Session::create_with(state, start(), opts).expect("create");
    s.append(Record::NodeEntered {
        node: "guide.md#step-1".into(),
    })
    .expect("append");
    let r = probe(
        &s,
        "kubectl get mtpnc -A",
        b"NAME STATUS\nmtpnc-1 Pending\n",
    );
    s.append(r).expect("append");
    let big = "E1130 dnc-rc: NC request failed: ErrorCode 4\n".repeat(3000);
    let r = probe(&s, "kubectl logs -n kube-system dnc-rc-0", big.as_bytes());
    s.append(r).expect("append");
    for text in ["router pods stuck on two nodes", "escalating to AKS"] {
        s.append(Record::Note(Note {
            text: text.into(),
            ..Default::default()
        }))
        .expect("append");
    }
    assert_eq!(s.key_id(), Some(key.public().id()));
    (s.dir().to_owned(), key)
}

fn verify_cli(dir: &Path, head: Option<&str>) -> (Option<i32>, String) {
    let mut c = crate::common::bin();
    c.args(["sessions", "verify"]).arg(dir);
    if let Some(h) = head {
        c.args(["--head", h]);
    }
    let out = c.output().expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Rewrites the journal from `records` (JSON values without `hash`): renumbers `seq`, links
/// `prev` and recomputes every sha256, as a forger with the format description would.
pub(crate) fn rechain(dir: &Path, records: Vec<Value>) {
    let mut prev = evidence::GENESIS.to_owned();
    let mut out = String::new();
    for (i, mut v) in records.into_iter().enumerate() {
        let m = v.as_object_mut().expect("object");
        m.remove("hash");
        m.insert("seq".into(), Value::from(i as u64 + 1));
        m.insert("prev".into(), Value::from(prev.clone()));
        let hash = evidence::sha256_hex(format!("{prev}{}", evidence::canonical(&v)).as_bytes());
        v["hash"] = Value::from(hash.clone());
        out.push_str(&evidence::canonical(&v));
        out.push('\n');
        prev = hash;
    }
    std::fs::write(dir.join("journal.jsonl"), out).expect("write");
}

pub(crate) fn records(dir: &Path) -> Vec<Value> {
    lines(dir)
        .iter()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

#[test]
fn the_key_is_made_once_in_the_config_folder_and_verify_names_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = tmp.path().join("cfg");
    let state = tmp.path().join("state");
    let guide = crate::common::root().join("tests/fixtures/evidence/guide.md");
    let run = |args: &[&str]| {
        let out = crate::common::bin()
            .env("TSGNAV_CONFIG", cfg.join("config.toml"))
            .env("TSGNAV_STATE_DIR", &state)
            .args(args)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&["sessions", "start", &guide.to_string_lossy()]);
    let key = std::fs::read_to_string(cfg.join("operator.key")).expect("key in the config folder");
    run(&["sessions", "note", "latest", "second record"]);
    assert_eq!(
        std::fs::read_to_string(cfg.join("operator.key")).expect("key"),
        key,
        "the key is made once"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(cfg.join("operator.key"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "operator.key is private: {mode:o}");
    }
    let public = evidence::PublicKey::parse(
        &std::fs::read_to_string(cfg.join("operator.pub")).expect("pub"),
    )
    .expect("public key");
    let found = walk(&state);
    assert!(
        found.iter().all(|p| !p.ends_with("operator.key")),
        "no key in the state folder: {found:?}"
    );
    let out = run(&["sessions", "verify", "latest"]);
    assert!(out.starts_with("ok: 2 records"), "{out}");
    assert!(
        out.contains(&format!("signed by key {}", public.id())),
        "{out}"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

#[test]
fn minisign_verifies_every_record_signature_and_the_exported_journal() {
    let Some(minisign) = minisign() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, key) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let journal = std::fs::read(dir.join("journal.jsonl")).expect("journal");
    let sigs = std::fs::read_to_string(dir.join(evidence::SIG_FILE)).expect("sigs");
    let pubf = tmp.path().join("keys/operator.pub");
    let hashes: Vec<String> = records(&dir)
        .iter()
        .map(|r| r["hash"].as_str().expect("hash").to_owned())
        .collect();
    let mut end = 0;
    for (i, line) in sigs.lines().enumerate() {
        end += journal[end..]
            .iter()
            .position(|&b| b == b'\n')
            .expect("newline")
            + 1;
        let sig: evidence::SigLine = serde_json::from_str(line).expect("sig line");
        let prefix = tmp.path().join(format!("prefix-{}", i + 1));
        std::fs::write(&prefix, &journal[..end]).expect("write");
        let minisig = tmp.path().join(format!("prefix-{}.minisig", i + 1));
        let s = sig.signature().expect("signature");
        std::fs::write(&minisig, s.to_minisign()).expect("write");
        let out = Command::new(&minisign)
            .arg("-V")
            .arg("-p")
            .arg(&pubf)
            .arg("-m")
            .arg(&prefix)
            .arg("-x")
            .arg(&minisig)
            .output()
            .expect("minisign");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "record {}: {text}{}",
            i + 1,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains(&format!("records={} head={}", i + 1, hashes[i])),
            "{text}"
        );
        // The same signature does not cover one byte more.
        let mut longer = journal[..end].to_vec();
        longer.push(b'x');
        std::fs::write(&prefix, longer).expect("write");
        let bad = Command::new(&minisign)
            .args(["-V", "-q", "-p"])
            .arg(&pubf)
            .arg("-m")
            .arg(&prefix)
            .arg("-x")
            .arg(&minisig)
            .output()
            .expect("minisign");
        assert!(
            !bad.status.success(),
            "record {}: a changed file verified",
            i + 1
        );
    }
    assert_eq!(
        sigs.lines().count(),
        hashes.len(),
        "one signature per record"
    );
    // The export carries the journal, its .minisig and the public key: minisign checks the
    // bundle as handed over, with nothing but the bundle.
    let out = tmp.path().join("bundle");
    let req = evidence::ExportRequest {
        escalation: None,
        format: evidence::ExportFormat::TarGz,
        out: out.clone(),
    };
    evidence::export(&dir, &req, &Default::default()).expect("export");
    let v = Command::new(&minisign)
        .arg("-V")
        .arg("-p")
        .arg(out.join("operator.pub"))
        .arg("-m")
        .arg(out.join("journal.jsonl"))
        .output()
        .expect("minisign");
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).expect("manifest"))
            .expect("json");
    assert_eq!(manifest["records"], 6);
    assert_eq!(
        manifest["chain_head"].as_str(),
        hashes.last().map(String::as_str)
    );
    assert_eq!(
        manifest["key_id"].as_str(),
        Some(key.public().id().as_str())
    );
    assert_eq!(
        manifest["public_key"].as_str(),
        Some(key.public().to_base64().as_str())
    );
    assert!(manifest["signature"]
        .as_str()
        .is_some_and(|s| s.contains(&format!("records=6 head={}", hashes[5]))));
}

#[test]
fn forged_journals_with_a_recomputed_chain_fail_verify() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, _) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let (code, out) = verify_cli(&dir, None);
    assert_eq!(code, Some(0), "{out}");
    let original = std::fs::read(dir.join("journal.jsonl")).expect("journal");
    let restore = || std::fs::write(dir.join("journal.jsonl"), &original).expect("restore");

    // Edit: a note says something else.
    let mut recs = records(&dir);
    recs[4]["text"] = Value::from("router pods were fine");
    rechain(&dir, recs);
    let (code, out) = verify_cli(&dir, None);
    assert_eq!(code, Some(1), "edit: {out}");
    assert!(out.contains("FAILED: journal.sig line 5"), "edit: {out}");
    restore();

    // Delete: the first probe run is gone.
    let mut recs = records(&dir);
    recs.remove(2);
    rechain(&dir, recs);
    let (code, out) = verify_cli(&dir, None);
    assert_eq!(code, Some(1), "delete: {out}");
    assert!(out.contains("FAILED: journal.sig line 3"), "delete: {out}");
    restore();

    // Append: a forged note after the last record.
    let mut recs = records(&dir);
    let mut forged = recs[5].clone();
    forged["text"] = Value::from("mitigation verified by the on-call");
    recs.push(forged);
    rechain(&dir, recs);
    let (code, out) = verify_cli(&dir, None);
    assert_eq!(code, Some(1), "append: {out}");
    assert!(
        out.contains("FAILED: journal.jsonl line 7: has no signature"),
        "append: {out}"
    );
    restore();

    // Blob swap: another output stored under its own digest, the record pointed at it.
    let mut recs = records(&dir);
    let fake = "E1130 dnc-rc: all NC requests succeeded\n".repeat(3000);
    let digest = evidence::sha256_hex(fake.as_bytes());
    std::fs::write(dir.join("blobs").join(&digest), &fake).expect("blob");
    let old = recs[3]["blob"].as_str().expect("blob").to_owned();
    std::fs::remove_file(dir.join("blobs").join(&old)).expect("remove");
    recs[3]["blob"] = Value::from(digest.clone());
    recs[3]["output_sha256"] = Value::from(digest);
    recs[3]["output_size"] = Value::from(fake.len() as u64);
    rechain(&dir, recs);
    let (code, out) = verify_cli(&dir, None);
    assert_eq!(code, Some(1), "blob swap: {out}");
    assert!(
        out.contains("FAILED: journal.sig line 4"),
        "blob swap: {out}"
    );
}

#[test]
fn a_journal_cut_after_a_shared_head_fails_verify_head() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, _) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let recs = records(&dir);
    let shared = recs[5]["hash"].as_str().expect("hash").to_owned();
    let (code, out) = verify_cli(&dir, Some(&shared));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("is record #6 of 6"), "{out}");
    // Cut the last two records and their signatures: the rest still checks out …
    let keep = |file: &str, n: usize| {
        let text = std::fs::read_to_string(dir.join(file)).expect("read");
        let kept: String = text.lines().take(n).map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(file), kept).expect("write");
    };
    keep("journal.jsonl", 4);
    keep(evidence::SIG_FILE, 4);
    let (code, out) = verify_cli(&dir, None);
    assert_eq!(code, Some(0), "{out}");
    // … but not against the head shared before the cut.
    let (code, out) = verify_cli(&dir, Some(&shared));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "FAILED: no record of this journal has hash {shared}: it ends at record #4"
        )),
        "{out}"
    );
}

#[test]
fn a_session_re_signed_with_another_key_names_that_key() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, key) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    // A forger can only make a session signed by their own key, start to end: verify names
    // that key, which is not the one the operator shared.
    let forger = Arc::new(OperatorKey::load_or_create(&tmp.path().join("forger")).expect("key"));
    let forged_state = tmp.path().join("forged");
    let opts = Options {
        key: Ok(forger.clone()),
        ..Options::default()
    };
    let mut s = Session::create_with(&forged_state, start(), opts).expect("create");
    s.append(Record::Note(Note {
        text: "forged".into(),
        ..Default::default()
    }))
    .expect("append");
    let (code, out) = verify_cli(s.dir(), None);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains(&forger.public().id()), "{out}");
    assert!(!out.contains(&key.public().id()), "{out}");
    let (_, genuine) = verify_cli(&dir, None);
    assert!(genuine.contains(&key.public().id()), "{genuine}");
}

#[test]
fn a_handoff_import_verifies_the_signatures_and_says_whose_they_are() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, key) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let archive = evidence::export_handoff(&dir, &tmp.path().join("out")).expect("handoff");
    let import = |archive: &Path| {
        crate::common::bin()
            .env("TSGNAV_STATE_DIR", tmp.path().join("elsewhere"))
            .args(["sessions", "import"])
            .arg(archive)
            .output()
            .expect("run")
    };
    let o = import(&archive);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains(&format!("signed by alice with key {}", key.public().id())),
        "{text}"
    );
    // The same archive with one signature changed is refused.
    let bad = tmp.path().join("bad");
    std::fs::create_dir_all(bad.join("s")).expect("dir");
    let id = dir.file_name().expect("id").to_string_lossy().into_owned();
    let staged = bad.join("s").join(&id);
    std::fs::create_dir_all(staged.join("blobs")).expect("dir");
    std::fs::copy(dir.join("journal.jsonl"), staged.join("journal.jsonl")).expect("copy");
    for b in std::fs::read_dir(dir.join("blobs"))
        .expect("blobs")
        .flatten()
    {
        std::fs::copy(b.path(), staged.join("blobs").join(b.file_name())).expect("copy");
    }
    let sigs = std::fs::read_to_string(dir.join(evidence::SIG_FILE)).expect("sigs");
    let mut lines: Vec<evidence::SigLine> = sigs
        .lines()
        .map(|l| serde_json::from_str(l).expect("sig"))
        .collect();
    lines[2].comment = lines[2]
        .comment
        .replace("operator=alice", "operator=mallory");
    let text: String = lines
        .iter()
        .map(|l| serde_json::to_string(l).expect("json") + "\n")
        .collect();
    std::fs::write(staged.join(evidence::SIG_FILE), text).expect("write");
    let tarball = bad.join("bad.tar.gz");
    let f = std::fs::File::create(&tarball).expect("create");
    let mut t = tar::Builder::new(flate2::write::GzEncoder::new(
        f,
        flate2::Compression::fast(),
    ));
    t.append_dir_all(&id, &staged).expect("pack");
    t.into_inner().expect("tar").finish().expect("gz");
    let o = import(&tarball);
    assert!(!o.status.success(), "a changed signature is refused");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("journal.sig line 3"), "{err}");
}

/// `TSGNAV_CONFIG=/dev/null` means "no config": the key goes to the platform config folder,
/// never beside the device.
#[test]
fn no_config_keeps_the_key_in_the_platform_config_folder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let guide = crate::common::root().join("tests/fixtures/evidence/guide.md");
    let out = crate::common::bin()
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("XDG_CONFIG_HOME", tmp.path().join("xdg"))
        .env("TSGNAV_STATE_DIR", tmp.path().join("state"))
        .args(["sessions", "start", &guide.to_string_lossy()])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        tmp.path().join("xdg/tsgnav/operator.key").is_file(),
        "the key is in $XDG_CONFIG_HOME/tsgnav, not beside /dev/null"
    );
}
