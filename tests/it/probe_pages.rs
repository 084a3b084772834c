//! A probe's process is not bent by the memory tuning of tsgnav's own: `tree`, `lint` and
//! `alerts` refuse transparent huge pages for themselves (`PR_SET_THP_DISABLE`, which every
//! child inherits), commands that start probes do not, so a probe sees the huge-page setting
//! any process started on this machine sees (here, this test's own).

fn thp_enabled(status: &str) -> Option<String> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("THP_enabled:"))
        .map(|v| v.trim().to_string())
}

#[test]
fn a_probe_started_by_run_sees_the_machines_huge_page_setting() {
    let own = std::fs::read_to_string("/proc/self/status").expect("status");
    let Some(own) = thp_enabled(&own) else {
        eprintln!("skipped: this kernel's /proc/PID/status has no THP_enabled line");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let guide = dir.path().join("pages.md");
    std::fs::write(
        &guide,
        "# Pages\n\n## Read the flag\n\n```bash\ngrep -h THP_enabled /proc/self/status\n```\n",
    )
    .expect("write guide");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsgnav"))
        .arg("run")
        .arg(format!("{}#read-the-flag", guide.display()))
        .args(["--json", "--no-evidence"])
        .env("TSGNAV_CONFIG", "/dev/null")
        .env("TSGNAV_STATE_DIR", dir.path().join("state"))
        .output()
        .expect("tsgnav run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let printed = v["results"][0]["output"].as_str().unwrap_or_default();
    assert_eq!(thp_enabled(printed), Some(own), "{stdout}");
}
