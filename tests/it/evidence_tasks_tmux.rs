//! Nothing missing: in `tsgnav demo maestro` the port-forward of Step 2 starts as background
//! task #1 and is recorded when it starts; quitting while it still runs records how it ended;
//! the summary says it was a background task. Skips with a SKIP line when tmux is missing,
//! unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

#[test]
fn a_background_task_is_recorded_when_it_starts_and_when_quit_stops_it() {
    // Declared first, dropped last: the navigator is gone before the port is handed on.
    let _port = super::tui_common::demo_port_8002();
    let Some(t) = Tmux::start("task-record") else {
        return;
    };
    t.send_line(&format!("{} demo maestro", env!("CARGO_BIN_EXE_tsgnav")));
    t.wait_for("the first step", |s| s.contains("Recording evidence in "));
    t.keys(&[":"]);
    t.send_line("goto step-2-inspect-the-resource-bundles-in-maestro");
    t.wait_for("step 2", |s| {
        s.contains("Step 2: Inspect the resource bundles")
    });
    t.keys(&["Tab"]);
    t.keys(&["r"]);
    t.wait_for("the port-forward as task #1", |s| {
        s.contains("runs in the background as task #1")
    });
    t.quit_unexported();
    t.restored();
    let dir = t.only_session();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).expect("journal");
    let runs: Vec<serde_json::Value> = journal
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .filter(|v| {
            v["type"] == "probe_run"
                && v["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("port-forward"))
        })
        .collect();
    assert_eq!(runs.len(), 2, "the start and the end: {journal}");
    assert_eq!(runs[0]["task"], 1, "{}", runs[0]);
    assert!(runs[0].get("ended").is_none_or(|e| e == ""), "{}", runs[0]);
    assert!(
        runs[1]["ended"].as_str().is_some_and(|e| !e.is_empty()),
        "quit recorded how it ended: {}",
        runs[1]
    );
    let out = crate::common::bin()
        .args(["sessions", "export"])
        .arg(&dir)
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
    let md = files
        .iter()
        .find(|(n, _)| n.ends_with("summary.md"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .expect("summary.md");
    assert!(
        md.contains("as background task #1"),
        "the summary names the task: {md}"
    );
}
