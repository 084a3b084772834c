//! The signer an operator was told to expect: `sessions verify --key` and `sessions import
//! --key` fail unless every signature is by that key (a key id or a minisign public key
//! file), and `:export` offers the chain head and key id on the clipboard (OSC 52, which
//! tmux turns into a paste buffer).

use std::path::Path;

use tsgnav::evidence::{self, OperatorKey};

use crate::evidence_sign::signed_session;
use crate::tui_common::Tmux;

fn verify(dir: &Path, keys: &[&str]) -> (Option<i32>, String) {
    let mut c = crate::common::bin();
    c.args(["sessions", "verify"]).arg(dir);
    for k in keys {
        c.args(["--key", k]);
    }
    let o = c.output().expect("run");
    (
        o.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn verify_key_accepts_the_signer_and_refuses_any_other_key() {
    let tmp = tempfile::tempdir().expect("tmp");
    let keys = tmp.path().join("keys");
    let (dir, key) = signed_session(&tmp.path().join("state"), &keys);
    let id = key.public().id();
    let other = OperatorKey::load_or_create(&tmp.path().join("other")).expect("other key");
    let other_pub = tmp.path().join("other.pub");
    std::fs::write(&other_pub, other.public().to_minisign()).expect("write");
    let own_pub = tmp.path().join("own.pub");
    std::fs::write(&own_pub, key.public().to_minisign()).expect("write");

    let (code, text) = verify(&dir, &[&id.to_ascii_lowercase()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(&format!("signed by key {id}")), "{text}");
    let (code, text) = verify(&dir, &[own_pub.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "the signer's public key file: {text}");

    let (code, text) = verify(&dir, &[&other.public().id()]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("FAILED") && text.contains(&format!("signed by key {id}")),
        "{text}"
    );
    let (code, text) = verify(&dir, &[other_pub.to_str().expect("utf-8")]);
    assert_eq!(code, Some(1), "another public key file: {text}");
    // Several keys: any of them may sign.
    let (code, text) = verify(&dir, &[&other.public().id(), &id]);
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = verify(&dir, &["no-such-key"]);
    assert_eq!(code, Some(2), "a usage error: {text}");
    assert!(text.contains("16 hex digits"), "{text}");
}

#[test]
fn import_key_refuses_an_archive_signed_by_another_key_and_imports_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, key) = signed_session(&tmp.path().join("state"), &tmp.path().join("keys"));
    let archive = evidence::export_handoff(&dir, &tmp.path().join("out")).expect("handoff");
    let other = OperatorKey::load_or_create(&tmp.path().join("other")).expect("other key");
    let import = |state: &Path, key: &str| {
        crate::common::bin()
            .env("TSGNAV_STATE_DIR", state)
            .args(["sessions", "import"])
            .arg(&archive)
            .args(["--key", key])
            .output()
            .expect("run")
    };
    let refused = tmp.path().join("refused");
    let o = import(&refused, &other.public().id());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "another key is refused: {err}");
    assert!(
        err.contains("import --key") && err.contains(&key.public().id()),
        "{err}"
    );
    let left = std::fs::read_dir(&refused)
        .map(|d| {
            d.flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(left, 0, "nothing was imported");

    let accepted = tmp.path().join("accepted");
    let o = import(&accepted, &key.public().id());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("every signature is by the key given with --key"),
        "{out}"
    );
    assert!(accepted
        .join(dir.file_name().expect("id"))
        .join("journal.jsonl")
        .is_file());
}

#[test]
fn export_offers_the_chain_head_and_key_id_on_the_clipboard() {
    let Some(t) = Tmux::start("copyhead") else {
        return;
    };
    t.allow_clipboard();
    let guide = t.dir.join("g.md");
    std::fs::write(
        &guide,
        "# Steps\n\n## Step 1: Look\n\nRead the pods.\n\n```bash\necho pods-are-fine\n```\n",
    )
    .expect("guide");
    t.send_line(&format!(
        "{} '{}' --node g.md#step-1-look",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| s.contains("Recording evidence in "));
    t.keys(&[":"]);
    t.send_line("export");
    t.wait_for("the export message with its offer", |s| {
        s.contains("Evidence exported (y copies head + key id) to ")
    });
    t.keys(&["y"]);
    t.wait_for("the copy", |s| {
        s.contains("Copied the chain head and key id")
    });
    let clip = t.clipboard();
    let session = t.only_session();
    let journal = std::fs::read_to_string(session.join("journal.jsonl")).expect("journal");
    let last: serde_json::Value =
        serde_json::from_str(journal.lines().last().expect("a record")).expect("json");
    let first: serde_json::Value =
        serde_json::from_str(journal.lines().next().expect("a record")).expect("json");
    let head = last["hash"].as_str().expect("hash");
    let key = first["key_fingerprint"].as_str().expect("key fingerprint");
    assert_eq!(key.len(), 64, "the whole fingerprint: {key}");
    assert!(
        clip.contains(&format!("head {head} · key {key}")),
        "OSC 52 carried the head {head} and key {key}: {clip:?}"
    );
    assert!(
        clip.contains(&format!("record #{}", journal.lines().count())),
        "{clip:?}"
    );
    t.quit_unexported();
    t.restored();
}
