//! Nothing missing, at 80×24: in `tsgnav demo maestro` the port-forward of Step 2 starts as
//! background task #1 and a dry run of Strategy 2's scale-down runs from its confirmation
//! screen (cancelled there, so nothing is confirmed). The journal holds the task when it
//! started and how it ended at quit, and the dry run marked as one; the IcM summary calls
//! the task a background task and the dry run a dry run, never "ran … → exit 0", and holds
//! no confirmation. Skips with a SKIP line when tmux is missing, unless
//! TSGNAV_REQUIRE_SERVERS=1.

use crate::demo_maestro_tmux::{layout, run};
use crate::tui_common::Tmux;

const STEP2: &str = "step-2-inspect-the-resource-bundles-in-maestro";
const STRATEGY: &str = "strategy-2-scale-the-maestro-agent-down-clean-up-scale-it-back";

/// The journal's records, parsed.
fn journal(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

/// The Markdown summary `sessions export --format md` writes for session `dir`.
fn summary(t: &Tmux, dir: &std::path::Path) -> String {
    let out = crate::common::bin()
        .args(["sessions", "export"])
        .arg(dir)
        .args(["--format", "md", "--out"])
        .arg(t.dir.join("out"))
        .output()
        .expect("export");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files = Vec::new();
    crate::evidence_redact::files(&t.dir.join("out"), &mut files);
    files
        .iter()
        .find(|(n, _)| n.ends_with("summary.md"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .expect("summary.md")
}

#[test]
fn the_port_forward_task_and_a_dry_run_read_as_what_they_were_at_80x24() {
    // Declared first, dropped last: the navigator is gone before the port is handed on.
    let _port = super::tui_common::demo_port_8002();
    let Some(t) = Tmux::start_sized("demo-evidence", 80, 24) else {
        return;
    };
    t.send_line(&format!("{} demo maestro", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the first step", |s| s.contains("Recording evidence in "));
    run(&t, STEP2, "Step 2: Inspect the resource", 0);
    t.wait_for("the task in the status line", |s| {
        s.contains("runs in the background as task #1") && s.contains(" 1 task")
    });

    let ctx = t.write_mode_on();
    run(&t, STRATEGY, "Strategy 2: Scale the Maestro", 0);
    t.wait_for("the count captured", |s| s.contains("Probe 1 finished"));
    // The selection is on probe 1: the scale-down is the next item.
    let (tabs, _) = layout(STRATEGY, 1);
    let (first, _) = layout(STRATEGY, 0);
    for _ in first..tabs {
        t.keys(&["Tab"]);
    }
    t.keys(&["r"]);
    t.wait_for("the confirmation screen", |s| {
        s.contains("Mitigation: confirm before it runs")
    });
    t.keys(&["d"]);
    t.wait_for("the dry run's answer", |s| s.contains("(server dry run)"));
    t.keys(&["Escape"]);
    t.wait_for("the confirmation screen closed", |s| {
        !s.contains("Mitigation: confirm before it runs")
    });
    assert!(!ctx.is_empty());
    t.quit_unexported();
    t.restored();

    let dir = t.only_session();
    let records = journal(&dir);
    let runs: Vec<&serde_json::Value> = records
        .iter()
        .filter(|v| v["type"] == "probe_run")
        .collect();
    let forward: Vec<&&serde_json::Value> = runs
        .iter()
        .filter(|v| {
            v["command"]
                .as_str()
                .is_some_and(|c| c.contains("port-forward"))
        })
        .collect();
    assert_eq!(forward.len(), 2, "the task's start and its end: {runs:?}");
    assert_eq!(forward[0]["task"], 1, "{}", forward[0]);
    assert!(
        forward[0].get("ended").is_none_or(|e| e == ""),
        "recorded when it started, before it ended: {}",
        forward[0]
    );
    assert!(
        forward[1]["ended"].as_str().is_some_and(|e| !e.is_empty()),
        "quitting recorded how it ended: {}",
        forward[1]
    );
    let dry: Vec<&&serde_json::Value> = runs
        .iter()
        .filter(|v| {
            v["command"]
                .as_str()
                .is_some_and(|c| c.contains("--dry-run"))
        })
        .collect();
    assert_eq!(dry.len(), 1, "one dry run: {runs:?}");
    assert_eq!(dry[0]["dry_run"], true, "{}", dry[0]);
    assert!(
        !records.iter().any(|v| v["type"] == "confirmation"),
        "nothing was confirmed"
    );

    let md = summary(&t, &dir);
    assert!(
        md.contains("as background task #1"),
        "the summary names the task: {md}"
    );
    let dry_lines: Vec<&str> = md.lines().filter(|l| l.contains("--dry-run")).collect();
    assert!(!dry_lines.is_empty(), "the dry run is in the summary: {md}");
    for l in &dry_lines {
        assert!(
            !l.contains("ran `") && !l.contains("→ exit 0") || l.contains("dry run"),
            "a dry run never reads as a run: {l}"
        );
    }
    let timeline = md
        .lines()
        .find(|l| l.contains("dry run (changes nothing) of `kubectl scale"));
    assert!(timeline.is_some(), "the timeline calls it a dry run: {md}");
    assert!(
        md.lines()
            .any(|l| l.contains("dry run (changes nothing)") && l.contains("#")),
        "the findings call it a dry run: {md}"
    );
}
