//! Bad runbook input at scale: a console block of 10,000 prompted commands, each with a line
//! of output, is read whole (every command kept as code, every output line as the sample),
//! and `lint` reports nothing about it.

use serde_json::Value;

#[test]
fn ten_thousand_prompted_lines_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut md = String::from(
        "# KubeManyNamespaces\n\n## Meaning\n\nMany namespaces.\n\n## Diagnosis\n\n```console\n",
    );
    for i in 0..10_000 {
        md.push_str(&format!(
            "$ kubectl get pods -n ns-{i}\nNo resources found in ns-{i} namespace.\n"
        ));
    }
    md.push_str("```\n");
    let path = dir.path().join("KubeManyNamespaces.md");
    std::fs::write(&path, &md).unwrap();
    let out = crate::common::bin()
        .args(["tree", "--json"])
        .arg(&path)
        .output()
        .expect("run tsgnav");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let nodes = v["guides"][0]["nodes"].as_array().expect("nodes");
    let diag = nodes
        .iter()
        .find(|n| n["title"] == "Diagnosis")
        .expect("Diagnosis");
    let p = &diag["probes"][0];
    let code: Vec<&str> = p["code"].as_str().unwrap_or("").lines().collect();
    let output: Vec<&str> = p["expected_output"]
        .as_str()
        .unwrap_or("")
        .lines()
        .collect();
    assert_eq!((code.len(), output.len()), (10_000, 10_000));
    assert_eq!(code[9_999], "kubectl get pods -n ns-9999");
    assert_eq!(output[0], "No resources found in ns-0 namespace.");
    assert_eq!(p["safety"], "read-only");
    let lint = crate::common::bin()
        .args(["lint", "--format", "json"])
        .arg(&path)
        .output()
        .expect("run tsgnav lint");
    let l: Value = serde_json::from_slice(&lint.stdout).expect("json");
    let transcript = l["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["rule"] == "transcript")
        .count();
    assert_eq!(transcript, 0, "{l}");
}

/// A console block of bare prompts is shown and linted, but offers nothing to run.
#[test]
fn prompts_without_commands_offer_nothing_to_run() {
    let t = crate::runbooks_transcripts::tree();
    let p = crate::runbooks_transcripts::probes(&t, "bad/EmptyConsole.md#diagnosis");
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(
        (p[0]["lang"].as_str(), p[0]["code"].as_str()),
        (Some("text"), Some(""))
    );
    assert_eq!(p[0]["source"], "$\n$ \n");
    let out = crate::common::bin()
        .args(["lint", "tests/fixtures/runbooks/bad/EmptyConsole.md"])
        .current_dir(crate::common::root())
        .output()
        .expect("run tsgnav lint");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.matches("warning[transcript]: `$` is a prompt with no command")
            .count(),
        2,
        "{text}"
    );
}
