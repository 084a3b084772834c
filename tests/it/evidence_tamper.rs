//! Evidence verify: any byte changed in a record or a blob, or a removed record, is found and
//! named; one writer per session; the evidence modules that must do no IO do none.

use tsgnav::evidence::{self, Session};

use crate::evidence_journal::{lines, sample};

#[test]
fn changing_any_byte_of_a_record_is_found_and_named() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = sample(tmp.path());
    let journal = dir.join("journal.jsonl");
    let original = std::fs::read(&journal).expect("read");
    let ls = lines(&dir);
    let start = ls[0].len() + 1 + ls[1].len() + 1; // line 3: the first probe_run
    for i in start..start + ls[2].len() {
        let mut bytes = original.clone();
        bytes[i] = if bytes[i] == b'a' {
            b'b'
        } else if bytes[i].is_ascii_digit() {
            b'0' + (bytes[i] - b'0' + 1) % 10
        } else {
            bytes[i] ^ 0x01
        };
        std::fs::write(&journal, &bytes).expect("write");
        let p = evidence::verify(&dir)
            .expect("verify")
            .problem
            .unwrap_or_else(|| panic!("byte {} changed, verify passed", i - start));
        assert!(
            p.location.starts_with("journal.jsonl line 3"),
            "byte {}: {p}",
            i - start
        );
    }
    // The message for an edited value, as the CLI prints it.
    let edited = String::from_utf8(original.clone())
        .expect("utf8")
        .replacen("ocm-abc", "ocm-abd", 1);
    std::fs::write(&journal, edited).expect("write");
    let out = crate::common::bin()
        .args(["sessions", "verify"])
        .arg(&dir)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAILED: journal.jsonl line 3 (probe_run): hash does not match its content — the record was edited"), "{text}");
    // A removed record.
    let mut ls2 = ls.clone();
    ls2.remove(2);
    std::fs::write(&journal, ls2.join("\n") + "\n").expect("write");
    let p = evidence::verify(&dir)
        .expect("verify")
        .problem
        .expect("removed record found");
    assert_eq!(p.to_string(), "journal.jsonl line 3 (probe_run): seq is 4, expected 3 — records were removed, inserted or reordered");
}

#[test]
fn changing_one_byte_of_a_blob_is_found_and_named() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = sample(tmp.path());
    assert!(evidence::verify(&dir).expect("verify").ok());
    let name = std::fs::read_dir(dir.join("blobs"))
        .expect("blobs")
        .flatten()
        .next()
        .expect("a blob")
        .file_name();
    let path = dir.join("blobs").join(&name);
    let mut bytes = std::fs::read(&path).expect("read");
    bytes[1000] ^= 0x20;
    std::fs::write(&path, bytes).expect("write");
    let out = crate::common::bin()
        .args(["sessions", "verify"])
        .arg(&dir)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "FAILED: blobs/{} (named by journal.jsonl line 4 (probe_run)): content has sha256",
        name.to_string_lossy()
    );
    assert!(
        text.contains(&want) && text.contains("the blob was edited"),
        "{text}"
    );
    std::fs::remove_file(&path).expect("rm");
    let p = evidence::verify(&dir)
        .expect("verify")
        .problem
        .expect("missing blob found");
    assert!(p.message.contains("is missing"), "{p}");
}

#[test]
fn one_writer_per_session() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = sample(tmp.path());
    let s = Session::open(&dir).expect("first writer");
    let e = Session::open(&dir)
        .expect_err("second writer refused")
        .to_string();
    assert!(
        e.contains("is open in another tsgnav (process") && e.contains("journal.lock"),
        "{e}"
    );
    drop(s);
    Session::open(&dir).expect("free again after the first closed");
}

#[test]
fn the_pure_evidence_modules_do_no_io() {
    let forbidden = [
        "std::fs",
        "std::process",
        "std::env",
        "std::net",
        "tokio",
        "reqwest",
        "crate::cli",
        "crate::tui",
        "crate::query",
        "crate::nav",
    ];
    for f in [
        "chain",
        "record",
        "redact",
        "checklist",
        "describe",
        "summary",
        "summary_json",
    ] {
        let path = crate::common::root().join(format!("src/evidence/{f}.rs"));
        let text = std::fs::read_to_string(&path).expect("read");
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for word in forbidden {
            assert!(!code.contains(word), "src/evidence/{f}.rs uses `{word}`");
        }
    }
}
