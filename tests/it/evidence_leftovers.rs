//! Leftovers of a killed writer and values that could be misread: stray `blobs/.tmp-*` files
//! are reported by verify and removed on reopen; a multi-line variable value is recorded
//! quoted on one line, so no line of a recorded command is a command of its own.

use tsgnav::evidence::{self, Options, Record, Session, SessionLog};

#[test]
fn stray_temporary_blobs_are_reported_and_removed_on_reopen() {
    let tmp = tempfile::tempdir().expect("tmp");
    let opts = Options {
        key: Ok(crate::evidence_script::test_key()),
        ..Options::default()
    };
    let s = Session::create_with(
        &tmp.path().join("state"),
        crate::evidence_script::start(),
        opts.clone(),
    )
    .expect("create");
    let dir = s.dir().to_owned();
    drop(s);
    let stray = dir.join("blobs/.tmp-4242-0");
    std::fs::write(&stray, b"half a blob from a killed writer").expect("write");
    let out = crate::common::bin()
        .args(["sessions", "verify"])
        .arg(&dir)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("note: blobs/.tmp-4242-0 is a temporary file of a writer that was stopped"),
        "{text}"
    );
    let s = Session::open_with(&dir, opts).expect("reopen");
    assert_eq!(s.removed_stray(), [".tmp-4242-0"]);
    assert!(!stray.exists());
    assert!(evidence::verify(&dir).expect("verify").stray.is_empty());
}

#[test]
fn a_multi_line_variable_value_is_recorded_quoted_on_one_line() {
    let tmp = tempfile::tempdir().expect("tmp");
    let guide = tmp.path().join("echo.md");
    std::fs::write(
        &guide,
        "# Echo\n\n## Step 1: echo the message\n\n```bash\necho \"$MESSAGE\"\n```\n",
    )
    .expect("guide");
    std::fs::create_dir_all(tmp.path().join("cfg")).expect("cfg");
    std::fs::write(tmp.path().join("cfg/config.toml"), "").expect("config");
    let out = crate::common::bin()
        .env("TSGNAV_STATE_DIR", tmp.path().join("state"))
        .env("TSGNAV_CONFIG", tmp.path().join("cfg/config.toml"))
        .args([
            "run",
            &format!("{}#step-1-echo-the-message", guide.display()),
        ])
        .args(["--var", "MESSAGE=first line\nrm -rf /tmp/not-a-command"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = evidence::resolve(&tmp.path().join("state"), "latest").expect("session");
    let log = SessionLog::read(&dir).expect("log");
    let run = log
        .entries
        .iter()
        .find_map(|e| match &e.record {
            Record::ProbeRun(p) => Some(p.clone()),
            _ => None,
        })
        .expect("probe run");
    assert!(
        run.command
            .contains("# env MESSAGE=$'first line\\nrm -rf /tmp/not-a-command'"),
        "{}",
        run.command
    );
    assert!(
        run.command.lines().all(|l| !l.starts_with("rm ")),
        "{}",
        run.command
    );
    assert_eq!(
        run.output.as_deref(),
        Some("first line\nrm -rf /tmp/not-a-command\n")
    );
}
