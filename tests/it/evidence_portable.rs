//! Exports that work anywhere: a session finds its guide (a user file by its absolute path, a
//! bundled guide by name) from any folder and says when the guide changed; `sessions export`
//! writes under the session's folder by default, one archive per team; a demo session says
//! SIMULATED first; the operator falls back to the uid's account name.

use std::path::Path;
use std::process::Output;

use tsgnav::evidence::{self, Options, Session};

fn cli(state: &Path, cwd: &Path, args: &[&str]) -> Output {
    crate::common::bin()
        .current_dir(cwd)
        .env("TSGNAV_STATE_DIR", state)
        .env("TSGNAV_CONFIG", state.join("cfg/config.toml"))
        .args(args)
        .output()
        .expect("run")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The `.tar.gz` path an export printed.
fn tarball(stdout: &str) -> String {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("wrote "))
        .find(|p| p.ends_with(".tar.gz"))
        .unwrap_or_else(|| panic!("no archive in {stdout}"))
        .to_owned()
}

#[test]
fn a_user_guide_session_exports_from_another_folder_one_archive_per_team() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state = tmp.path().join("state");
    let guides = tmp.path().join("guides");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&guides).expect("dir");
    std::fs::create_dir_all(&elsewhere).expect("dir");
    let fixture = crate::common::root().join("tests/fixtures/evidence/guide.md");
    std::fs::copy(&fixture, guides.join("guide.md")).expect("copy");
    ok(&cli(&state, &guides, &["sessions", "start", "guide.md"]));
    let aks = ok(&cli(
        &state,
        &elsewhere,
        &["sessions", "export", "latest", "--team", "azure aks team"],
    ));
    let nrp = ok(&cli(
        &state,
        &elsewhere,
        &["sessions", "export", "latest", "--team", "Cloudnet/NRP"],
    ));
    let (a, n) = (tarball(&aks), tarball(&nrp));
    assert!(a.ends_with("-azure-aks-team.tar.gz"), "{a}");
    assert!(n.ends_with("-cloudnet-nrp.tar.gz"), "{n}");
    for p in [&a, &n] {
        assert!(
            Path::new(p).starts_with(&state),
            "under the state folder: {p}"
        );
        assert!(Path::new(p).is_file(), "{p}");
    }
    assert!(
        std::fs::read_dir(&elsewhere).expect("dir").next().is_none(),
        "nothing written into the current folder"
    );
    // The guide changed since: the export still works and says so.
    let mut text = std::fs::read_to_string(guides.join("guide.md")).expect("guide");
    text.push_str("\nAn extra line written after the session started.\n");
    std::fs::write(guides.join("guide.md"), text).expect("write");
    let o = cli(
        &state,
        &elsewhere,
        &[
            "sessions",
            "export",
            "latest",
            "--team",
            "azure aks team",
            "--format",
            "md",
        ],
    );
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("changed since the session started"), "{err}");
    assert!(
        err.contains(
            &guides
                .join("guide.md")
                .canonicalize()
                .expect("abs")
                .display()
                .to_string()
        ),
        "{err}"
    );
    // --out chooses the folder.
    let chosen = tmp.path().join("chosen");
    let o = ok(&cli(
        &state,
        &elsewhere,
        &[
            "sessions",
            "export",
            "latest",
            "--out",
            &chosen.to_string_lossy(),
        ],
    ));
    assert!(Path::new(&tarball(&o)).starts_with(&chosen), "{o}");
}

#[test]
fn a_bundled_guide_session_exports_from_any_folder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state = tmp.path().join("state");
    ok(&cli(
        &state,
        tmp.path(),
        &["sessions", "start", "swift-networking.md"],
    ));
    let o = ok(&cli(
        &state,
        tmp.path(),
        &[
            "sessions",
            "export",
            "latest",
            "--team",
            "Azure AKS team",
            "--format",
            "md",
        ],
    ));
    assert!(o.contains("summary.md"), "{o}");
    let log = evidence::SessionLog::read(&evidence::resolve(&state, "latest").expect("session"))
        .expect("log");
    let start = log.start().expect("start");
    assert!(start.bundled, "{start:?}");
    assert_eq!(start.guide, "bundled:swift-networking.md");
}

#[test]
fn the_operator_falls_back_to_the_account_name_of_the_uid() {
    let tmp = tempfile::tempdir().expect("tmp");
    let state = tmp.path().join("state");
    let guide = crate::common::root().join("tests/fixtures/evidence/guide.md");
    let o = crate::common::bin()
        .env("TSGNAV_STATE_DIR", &state)
        .env("TSGNAV_CONFIG", state.join("cfg/config.toml"))
        .env_remove("USER")
        .env_remove("USERNAME")
        .args(["sessions", "start"])
        .arg(&guide)
        .output()
        .expect("run");
    ok(&o);
    let who = std::process::Command::new("id")
        .arg("-un")
        .output()
        .expect("id");
    let who = String::from_utf8_lossy(&who.stdout).trim().to_owned();
    let log = evidence::SessionLog::read(&evidence::resolve(&state, "latest").expect("session"))
        .expect("log");
    let start = log.start().expect("start");
    assert_eq!(start.operator, who);
    assert_ne!(start.operator, "unknown");
    assert!(
        start
            .guide_path
            .as_deref()
            .is_some_and(|p| Path::new(p).is_absolute()),
        "{start:?}"
    );
}

#[test]
fn a_simulated_session_says_so_first_in_summary_and_manifest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut start = crate::evidence_script::start();
    start.simulated = true;
    let opts = Options {
        key: Ok(crate::evidence_script::test_key()),
        ..Options::default()
    };
    let s = Session::create_with(&tmp.path().join("state"), start, opts).expect("create");
    let out = tmp.path().join("out");
    let req = evidence::ExportRequest {
        escalation: None,
        format: evidence::ExportFormat::TarGz,
        out: out.clone(),
    };
    evidence::export(s.dir(), &req, &Default::default()).expect("export");
    let md = std::fs::read_to_string(out.join("summary.md")).expect("md");
    assert!(
        md.lines()
            .next()
            .is_some_and(|l| l.starts_with("**SIMULATED**")),
        "{md}"
    );
    let manifest = std::fs::read_to_string(out.join("manifest.json")).expect("manifest");
    let first_member = manifest.lines().nth(1).unwrap_or_default();
    assert!(
        first_member.trim_start().starts_with("\"SIMULATED\""),
        "{manifest}"
    );
}
