//! `tsgnav sessions` on bad input: a clear message naming what is wrong, exit 2, no panic, and
//! nothing of the session lost.

use crate::evidence_script::{scripted, T0};

fn sessions(state: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = crate::common::bin()
        .env("TSGNAV_STATE_DIR", state)
        .arg("sessions")
        .args(args)
        .output()
        .expect("run tsgnav");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn bad_session_names_files_and_archives_get_clear_errors() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state = tmp.path().join("state");
    let (code, out, _) = sessions(&state, &["list"]);
    assert_eq!(
        (code, out.starts_with("no sessions in ")),
        (Some(0), true),
        "{out}"
    );
    let dir = scripted(&state, T0);
    let before = std::fs::read(dir.join("journal.jsonl")).expect("journal");

    let (code, _, err) = sessions(&state, &["show", "nope"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no session matches `nope` in")
            && err.contains("`tsgnav sessions list` shows them"),
        "{err}"
    );

    let (code, _, err) = sessions(&state, &["verify", &tmp.path().to_string_lossy()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no session matches"), "{err}");

    let missing = tmp.path().join("missing.log");
    let (code, _, err) = sessions(&state, &["attach", "latest", &missing.to_string_lossy()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("missing.log") && err.contains("No such file"),
        "{err}"
    );

    let junk = tmp.path().join("junk.tar.gz");
    std::fs::write(&junk, b"this is not an archive").expect("write");
    let (code, _, err) = sessions(&state, &["import", &junk.to_string_lossy()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("junk.tar.gz")
            && (err.contains("is damaged") || err.contains("not a .tar.gz")),
        "{err}"
    );

    let (code, _, err) = sessions(&state, &["export", "latest", "--format", "pdf"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("unknown export format `pdf`; use md, json or tar.gz"),
        "{err}"
    );

    let (code, _, err) = sessions(
        &state,
        &[
            "tick",
            "latest",
            "--team",
            "azure aks",
            "flux capacitor readings",
        ],
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("Azure AKS team asks for none of `flux capacitor readings`; its items:"),
        "{err}"
    );

    let (code, _, err) = sessions(
        &state,
        &[
            "tick",
            "latest",
            "--team",
            "azure aks",
            "CNS logs",
            "--evidence",
            "99",
        ],
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--evidence 99: the session has records #1 to #16"),
        "{err}"
    );

    assert_eq!(
        std::fs::read(dir.join("journal.jsonl")).expect("journal"),
        before,
        "nothing was written or lost"
    );
    let (code, out, _) = sessions(&state, &["verify", "latest"]);
    assert_eq!(code, Some(0), "{out}");
}
