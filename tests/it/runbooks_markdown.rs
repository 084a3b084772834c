//! Real-world markdown in alert runbooks: Hugo and Jekyll front matter, `{{< ref >}}` links,
//! and lint checking each guide against the convention it follows (the ARO-HCP template or
//! the alert-runbook shape), without the false positives of console transcripts.

use serde_json::Value;

use crate::runbooks_transcripts::tree;

const DIR: &str = "tests/fixtures/runbooks";

fn lint(args: &[&str]) -> Vec<Value> {
    let out = crate::common::bin()
        .args(["lint", "--format", "json"])
        .args(args)
        .current_dir(crate::common::root())
        .output()
        .expect("run tsgnav");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["findings"].as_array().cloned().unwrap_or_default()
}

fn of<'a>(f: &'a [Value], rule: &str, path_end: &str) -> Vec<&'a Value> {
    f.iter()
        .filter(|x| x["rule"] == rule && x["path"].as_str().unwrap_or("").ends_with(path_end))
        .collect()
}

#[test]
fn lint_checks_runbooks_against_the_runbook_shape() {
    let f = lint(&[DIR]);
    assert!(
        of(&f, "front-matter", "").is_empty(),
        "Hugo/Jekyll keys are fine: {f:#?}"
    );
    let template: Vec<&Value> = f
        .iter()
        .filter(|x| {
            x["message"]
                .as_str()
                .unwrap_or("")
                .contains("of the template")
        })
        .collect();
    assert!(
        template.is_empty(),
        "no ARO-HCP template sections asked of runbooks: {template:#?}"
    );
    let impact = of(&f, "missing-section", "etcd/etcdNoLeader.md");
    assert_eq!(impact.len(), 1, "{impact:#?}");
    assert!(impact[0]["message"]
        .as_str()
        .unwrap()
        .contains("\"Impact\" of the alert runbook shape"));
    assert!(of(&f, "missing-section", "kubernetes/KubePodCrashLooping.md").is_empty());
    // `$ export NS=…` assigns NS; `oc adm upgrade` alone is read-only.
    let vars = of(&f, "undefined-variable", "kubernetes/KubeCPUOvercommit.md");
    assert!(vars.is_empty(), "{vars:#?}");
    assert!(of(
        &f,
        "mutation-without-risk",
        "kubernetes/KubeCPUOvercommit.md"
    )
    .is_empty());
    // Forcing the template profile brings its sections back.
    let forced = lint(&["--profile", "tsg", DIR]);
    assert!(forced.iter().any(|x| x["message"]
        .as_str()
        .unwrap_or("")
        .contains("of the template")));
    let bad = crate::common::bin()
        .args(["lint", "--profile", "nope", DIR])
        .current_dir(crate::common::root())
        .output()
        .expect("run tsgnav");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--profile nope: not a profile"));
}

#[test]
fn hugo_ref_shortcodes_are_links() {
    let t = tree();
    let edges: Vec<(String, String)> = t["guides"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["nodes"].as_array().into_iter().flatten())
        .flat_map(|n| {
            let id = n["id"].as_str().unwrap_or("").to_string();
            n["edges"]
                .as_array()
                .into_iter()
                .flatten()
                .map(move |e| (id.clone(), e["to"].as_str().unwrap_or("").to_string()))
        })
        .collect();
    assert!(edges.contains(&(
        "cluster/cluster-operator-degraded.md#diagnosis".into(),
        "cluster/cluster-operator-down.md#clusteroperatordown".into()
    )));
    assert!(edges.contains(&(
        "monitoring/TargetDown.md#diagnosis".into(),
        "monitoring/PrometheusRuleFailures.md#prometheusrulefailures".into()
    )));
}
