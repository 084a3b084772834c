//! tsgnav refuses transparent huge pages for itself (`PR_SET_THP_DISABLE`, which children
//! inherit across exec); a probe gets the system's own setting back, jailed or under Landlock
//! alone, through the real binary.

fn run_probe(jail: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let g = dir.path().join("thp.md");
    std::fs::write(
        &g,
        "# Huge pages\n\n## Read the setting\n\n```bash\ngrep THP_enabled /proc/self/status\n```\n",
    )
    .expect("guide");
    std::fs::write(dir.path().join("config.toml"), "").expect("config");
    let target = format!("{}#read-the-setting", g.display());
    super::jail_env::run_json(dir.path(), &target, jail, &[], &[])
}

#[test]
fn a_jailed_probe_gets_the_systems_huge_page_setting_back() {
    if !super::jail_escapes::jail_or_skip("a_jailed_probe_gets_the_systems_huge_page_setting_back")
    {
        return;
    }
    let out = run_probe("on");
    assert!(out.contains("jail (namespaces + seccomp)"), "{out}");
    assert!(out.contains("THP_enabled:\\t1"), "{out}");
    assert!(!out.contains("THP_enabled:\\t0"), "{out}");
}

#[test]
fn a_probe_under_landlock_alone_gets_it_back_too() {
    let out = run_probe("off");
    assert!(out.contains("not isolated"), "{out}");
    if !out.contains("landlock v") {
        // Without Landlock the probe is spawned with nothing between fork and exec.
        eprintln!("SKIP a_probe_under_landlock_alone_gets_it_back_too: no Landlock here");
        return;
    }
    assert!(out.contains("THP_enabled:\\t1"), "{out}");
}
