//! Lint rules: each rule has a fixture folder under tests/fixtures/lint/<rule>/ with a
//! `bad.md` that must trigger it and a `good.md` that must not. Also the CLI's formats and
//! exit codes, and that the bundled guides lint clean.

use tsgnav::tsg::lint::{self, Finding, LintConfig, RULES};
use tsgnav::tsg::Guide;

fn findings(rule: &str) -> Vec<Finding> {
    let dir = crate::common::root().join("tests/fixtures/lint").join(rule);
    let (lib, errors) = tsgnav::load::load_library(&[dir]);
    assert!(errors.is_empty(), "{errors:?}");
    let tpath = crate::common::root().join("tsg/TEMPLATE.md");
    let mut template = tsgnav::tsg::parse_guide(
        "TEMPLATE.md",
        &std::fs::read_to_string(&tpath).expect("template"),
    );
    template.file = tpath.display().to_string();
    let exists = |g: &Guide, d: &str| tsgnav::load::link_target_exists(&g.file, d);
    let cfg = LintConfig {
        template: Some(&template),
        classify: &tsgnav::safety::classify_probe,
        file_exists: &exists,
        text: &|n| n.body.fetch(),
    };
    lint::lint(&lib, &cfg)
}

fn check(rule: &str) {
    let all = findings(rule);
    let of = |file: &str| -> Vec<&Finding> {
        all.iter()
            .filter(|f| f.path.ends_with(file) && f.rule == rule)
            .collect()
    };
    let bad = of("bad.md");
    assert!(
        !bad.is_empty(),
        "{rule}: bad.md should trigger it; got {all:#?}"
    );
    for f in &bad {
        assert!(f.line >= 1, "{rule}: a line number");
        assert!(
            f.message.len() > 40,
            "{rule}: the message says what and how to fix: {}",
            f.message
        );
    }
    assert!(
        of("good.md").is_empty(),
        "{rule}: good.md should not trigger it: {:#?}",
        of("good.md")
    );
}

macro_rules! rule_tests {
    ($($name:ident => $rule:literal),* $(,)?) => {
        $( #[test] fn $name() { check($rule); } )*

        #[test]
        fn every_rule_has_a_fixture_test() {
            let tested = [$($rule),*];
            for (id, _, _) in RULES {
                assert!(tested.contains(id), "rule {id} has no fixture test");
            }
        }
    };
}

rule_tests! {
    missing_section => "missing-section",
    scenario_missing_goal => "scenario-missing-goal",
    scenario_missing_preconditions => "scenario-missing-preconditions",
    mutation_without_risk => "mutation-without-risk",
    broken_anchor => "broken-anchor",
    broken_link => "broken-link",
    rollout_restart_all => "rollout-restart-all",
    grep_regex_id => "grep-regex-id",
    hardcoded_restore => "hardcoded-restore",
    undefined_variable => "undefined-variable",
    escalation_missing_evidence => "escalation-missing-evidence",
    mixed_cli => "mixed-cli",
    transcript => "transcript",
    front_matter => "front-matter",
}

#[test]
fn broken_anchor_suggests_the_slug() {
    let all = findings("broken-anchor");
    let f = all
        .iter()
        .find(|f| f.rule == "broken-anchor" && f.message.contains("akskusto"))
        .expect("finding");
    assert!(
        f.message
            .contains("did you mean `#step-35-aks-kusto-dnc-rc-logs`"),
        "{}",
        f.message
    );
    assert!(
        all.iter()
            .any(|f| f.rule == "broken-anchor" && f.message.contains("good.md#no-such-heading")),
        "cross-document anchors are checked"
    );
}

fn lint_cli(args: &[&str]) -> std::process::Output {
    crate::common::bin()
        .arg("lint")
        .args(args)
        .current_dir(crate::common::root())
        .output()
        .expect("run tsgnav")
}

#[test]
fn bundled_guides_lint_clean() {
    let out = lint_cli(&["tsg/"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 error(s), 0 warning(s)"), "{text}");
}

#[test]
fn text_format_reads_like_a_compiler() {
    let out = lint_cli(&["tests/fixtures/lint/rollout-restart-all/bad.md"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "tests/fixtures/lint/rollout-restart-all/bad.md:6: error[rollout-restart-all]:"
        ),
        "{text}"
    );
}

#[test]
fn json_format() {
    let out = lint_cli(&[
        "--format",
        "json",
        "tests/fixtures/lint/grep-regex-id/bad.md",
    ]);
    assert_eq!(out.status.code(), Some(0), "warnings alone exit 0");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let findings = v["findings"].as_array().expect("findings");
    let f = findings
        .iter()
        .find(|f| f["rule"] == "grep-regex-id")
        .expect("a grep-regex-id finding");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["line"], 8, "the line of the grep, not of the fence");
    assert!(f["path"]
        .as_str()
        .is_some_and(|p| p.ends_with("grep-regex-id/bad.md")));
}

#[test]
fn sarif_format() {
    let out = lint_cli(&[
        "--format",
        "sarif",
        "tests/fixtures/lint/broken-link/bad.md",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sarif json");
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "tsgnav");
    let results = run["results"].as_array().expect("results");
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "broken-link")
        .expect("a broken-link result");
    assert_eq!(r["level"], "error");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    let idx = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    assert_eq!(run["tool"]["driver"]["rules"][idx]["id"], "broken-link");
}

#[test]
fn missing_path_is_a_usage_error() {
    let out = lint_cli(&["no/such/guide.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no/such/guide.md: no such file or folder")
    );
}

#[test]
fn a_git_push_needs_a_risk_statement_and_local_git_work_does_not() {
    let all = findings("mutation-without-risk");
    let push: Vec<&Finding> = all
        .iter()
        .filter(|f| f.path.ends_with("git-push.md") && f.rule == "mutation-without-risk")
        .collect();
    assert_eq!(push.len(), 1, "{all:#?}");
    assert!(
        push[0]
            .message
            .contains("`git push origin bump-agent-image`"),
        "the finding names the push, not the local add or commit: {}",
        push[0].message
    );
}

/// A copy of the guides outside any git checkout: a link to a file the copy lacks is counted
/// in a note, not reported as broken; `--all-links` reports it; in a checkout it is an error.
#[test]
fn links_into_files_a_copy_lacks_are_a_note_outside_a_git_checkout() {
    let dir = tempfile::Builder::new()
        .prefix("tsgnav-lint-copy")
        .tempdir_in(std::env::temp_dir())
        .expect("tempdir");
    let guide = dir.path().join("docs/ops/restart.md");
    std::fs::create_dir_all(guide.parent().expect("folder")).expect("mkdir");
    std::fs::write(
        &guide,
        "# Restart\n\nSee [the configuration](../configuration.md) first.\n",
    )
    .expect("guide");
    let copy = dir.path().display().to_string();
    if tsgnav::load::in_git_checkout(&guide.display().to_string()) {
        eprintln!("SKIPPED: the temporary folder is inside a git checkout");
        return;
    }
    let out = lint_cli(&[&copy]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("error[broken-link]"), "{text}");
    assert!(
        text.contains("note: 1 link(s) in 1 guide(s) point at files this folder does not have")
            && text.contains("--all-links"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&lint_cli(&["--format", "json", &copy]).stdout).expect("json");
    assert_eq!(json["findings"].as_array().map(Vec::len), Some(0), "{json}");
    assert_eq!(json["unchecked_links"][0]["rule"], "broken-link", "{json}");
    let all = lint_cli(&["--all-links", &copy]);
    assert_eq!(all.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&all.stdout)
        .contains("restart.md:3: error[broken-link]: link to `../configuration.md`"));
    // In a checkout the same link is broken.
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .expect("git init");
    let out = lint_cli(&[&copy]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("error[broken-link]"));
}
