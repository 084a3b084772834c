//! A probe that prints megabytes, end to end in tmux: the whole output goes into the evidence
//! as one redacted blob, while the screen keeps a bounded part of it (its start, its end, and
//! a line naming the size and that blob), which the pager reads. Real binary, real shell probe
//! in the jail; skips with a SKIP line when tmux is missing, unless TSGNAV_REQUIRE_SERVERS=1.

use crate::tui_common::Tmux;

/// 150,000 numbered lines (3.9 MB), then a line with a secret.
const PROBE: &str =
    "seq -f 'row %07g of the output' 1 150000; echo 'db_password=not-real-but-secret-4711'";

#[test]
fn megabytes_of_output_are_stored_whole_and_shown_bounded() {
    let Some(t) = Tmux::start("large-output") else {
        return;
    };
    let guide = t.dir.join("g.md");
    std::fs::write(
        &guide,
        format!("# Steps\n\n## Step 1: Print a lot\n\n```bash\n{PROBE}\n```\n"),
    )
    .expect("guide");
    t.send_line(&format!(
        "{} '{}' --node g.md#step-1-print-a-lot",
        env!("CARGO_BIN_EXE_tsgnav"),
        guide.display()
    ));
    t.wait_for("the step", |s| {
        s.contains("Recording evidence in ") && s.contains("Step 1: Print a lot ·")
    });
    t.keys(&["Tab"]);
    t.keys(&["Enter"]);
    t.wait_for("the probe to finish", |s| s.contains("Probe 1 finished"));
    t.keys(&["o"]);
    t.keys(&["G"]);
    t.wait_for("the output's last lines in the pager", |s| {
        s.contains("row 0150000 of the output") && !s.contains("row 0000001 of")
    });
    t.keys(&["/"]);
    t.send_line("bytes in all");
    let s = t.wait_for("the line that names the size and the blob", |s| {
        s.contains("bytes in all")
    });
    assert!(
        !s.contains("row 0075000 of"),
        "the middle is left out:\n{s}"
    );
    t.keys(&["q"]);
    t.quit_unexported();
    t.restored();

    let session = t.only_session();
    let journal = std::fs::read_to_string(session.join("journal.jsonl")).expect("journal");
    let run: serde_json::Value = journal
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .find(|v| v["type"] == "probe_run")
        .expect("the run was recorded");
    let blob = run["blob"].as_str().expect("stored as a blob");
    let stored = std::fs::read_to_string(session.join("blobs").join(blob)).expect("blob");
    assert_eq!(run["output_size"], stored.len() as u64, "{run}");
    assert_eq!(stored.lines().count(), 150_001, "every line is in the blob");
    assert!(stored.starts_with("row 0000001 of the output\n"));
    assert!(
        stored.contains("row 0075000 of the output\n"),
        "the middle too"
    );
    assert!(
        !stored.contains("not-real-but-secret-4711") && !journal.contains("not-real-but"),
        "the secret at the end is redacted"
    );
}
