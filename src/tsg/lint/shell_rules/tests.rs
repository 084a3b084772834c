//! Unit tests of the shell lint rules.

use super::check;
use crate::tsg::lint::{Finding, Severity};
use crate::tsg::model::{Guide, Lang, Node, Probe};

/// A guide with one node per `(first code line, lang, code)`.
fn guide(probes: &[(usize, Lang, &str)]) -> Guide {
    let nodes = probes
        .iter()
        .map(|(line, lang, code)| Node {
            probes: vec![Probe {
                line: *line,
                ..Probe::from_code(*lang, code)
            }],
            ..Node::default()
        })
        .collect();
    Guide {
        path: "ops/x.md".into(),
        nodes,
        ..Guide::default()
    }
}

fn findings(rule: &str, probes: &[(usize, Lang, &str)]) -> Vec<Finding> {
    let mut out = Vec::new();
    check(&guide(probes), &mut out);
    out.retain(|f| f.rule == rule);
    out
}

fn shell(code: &str) -> Vec<(usize, Lang, &str)> {
    vec![(10, Lang::Shell, code)]
}

#[test]
fn rollout_restart_without_a_name() {
    let f = findings(
        "rollout-restart-all",
        &shell("# resync\nkubectl rollout restart deployment -n mgmt-agent"),
    );
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].line, f[0].severity, f[0].path.as_str()),
        (11, Severity::Error, "ops/x.md")
    );
    assert!(
        f[0].message
            .contains("every deployment in namespace `mgmt-agent`"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].message
            .contains("kubectl rollout restart deployment/<name> -n mgmt-agent"),
        "{}",
        f[0].message
    );
    for code in [
        "oc rollout restart deploy",
        "kubectl -n x rollout restart deployments",
        "kubectl rollout restart sts -n x",
    ] {
        assert_eq!(
            findings("rollout-restart-all", &shell(code)).len(),
            1,
            "{code}"
        );
    }
}

#[test]
fn rollout_restart_of_a_named_workload_is_fine() {
    for code in [
        "kubectl rollout restart deployment mgmt-agent -n mgmt-agent",
        "kubectl rollout restart deployment/x",
        "kubectl rollout restart deployment -l app=x -n y",
        "kubectl rollout status deployment -n x",
        "echo kubectl rollout restart deployment",
    ] {
        assert!(
            findings("rollout-restart-all", &shell(code)).is_empty(),
            "{code}"
        );
    }
}

#[test]
fn grep_of_an_id_variable() {
    let code = "for amw in $(kubectl get appliedmanifestwork -o name | grep \"${CLUSTER_ID}\"); do\n  echo $amw\ndone\nkubectl get manifestwork | grep $CLUSTER_ID";
    let f = findings("grep-regex-id", &shell(code));
    let lines: Vec<usize> = f.iter().map(|f| f.line).collect();
    assert_eq!(lines, [10, 13]);
    assert_eq!(f[0].severity, Severity::Warning);
    assert!(
        f[0].message.contains("grep -F -- \"${CLUSTER_ID}\""),
        "{}",
        f[0].message
    );
    assert_eq!(
        findings("grep-regex-id", &shell("grep -i -e \"$SUBSCRIPTION_ID\" f")).len(),
        1
    );
    assert_eq!(
        findings("grep-regex-id", &shell("egrep ${uuid} f")).len(),
        1
    );
}

#[test]
fn fixed_string_or_non_id_grep_is_fine() {
    for code in [
        "kubectl get mw | grep -F \"${CLUSTER_ID}\"",
        "kubectl get mw | grep -F -- \"${CLUSTER_ID}\"",
        "kubectl get mw | grep -iF $CLUSTER_ID",
        "kubectl get mw | grep --fixed-strings $CLUSTER_ID",
        "kubectl get mw | fgrep $CLUSTER_ID",
        "kubectl get mw | grep \"ocm-.*-${CLUSTER_ID}\"",
        "kubectl get mw | grep \"$NAMESPACE\"",
        "kubectl get mw | grep -v provisioned",
    ] {
        assert!(findings("grep-regex-id", &shell(code)).is_empty(), "{code}");
    }
}

#[test]
fn literal_restore_after_scale_to_zero() {
    let probes = vec![
        (
            5,
            Lang::Shell,
            "kubectl scale deployment -n maestro maestro-agent --replicas=0",
        ),
        (9, Lang::Shell, "kubectl get manifestwork -n local-cluster"),
        (
            14,
            Lang::Shell,
            "# 5. back up\nkubectl scale deployment -n maestro maestro-agent --replicas=1",
        ),
    ];
    let f = findings("hardcoded-restore", &probes);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].line, f[0].severity), (15, Severity::Warning));
    assert!(f[0].message.contains("line 5"), "{}", f[0].message);
    assert!(
        f[0].message.contains("ORIG=$(kubectl get deployment maestro-agent -n maestro -o jsonpath='{.spec.replicas}')"),
        "{}",
        f[0].message
    );
}

#[test]
fn captured_or_unrelated_restores_are_fine() {
    let captured = vec![
        (1, Lang::Shell, "ORIG=$(kubectl get deploy x -n m -o jsonpath='{.spec.replicas}')\nkubectl scale deploy x -n m --replicas=0"),
        (5, Lang::Shell, "kubectl scale deploy x -n m --replicas=\"${ORIG}\""),
    ];
    assert!(findings("hardcoded-restore", &captured).is_empty());
    let literal_after_capture = vec![(1, Lang::Shell, "kubectl get deploy x -o json | jq .spec.replicas\nkubectl scale deploy/x --replicas=0\nkubectl scale deploy/x --replicas=2")];
    assert!(findings("hardcoded-restore", &literal_after_capture).is_empty());
    let enable_then_disable = vec![
        (
            1,
            Lang::Shell,
            "kubectl scale deployment pg -n cs --replicas=1",
        ),
        (
            9,
            Lang::Shell,
            "kubectl scale deployment pg -n cs --replicas=0",
        ),
    ];
    assert!(findings("hardcoded-restore", &enable_then_disable).is_empty());
    let other_target = vec![(
        1,
        Lang::Shell,
        "kubectl scale deploy/a --replicas=0\nkubectl scale deploy/b --replicas=3",
    )];
    assert!(findings("hardcoded-restore", &other_target).is_empty());
}

#[test]
fn mixed_cli_once_at_the_first_oc() {
    let probes = vec![
        (3, Lang::Shell, "kubectl get pods"),
        (8, Lang::Shell, "oc get pods\noc get nodes"),
        (12, Lang::Shell, "kubectl get nodes"),
    ];
    let f = findings("mixed-cli", &probes);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].line, f[0].severity), (8, Severity::Info));
    assert!(f[0].message.contains("line 3"), "{}", f[0].message);
}

#[test]
fn one_cli_or_non_shell_probes_are_fine() {
    assert!(findings("mixed-cli", &shell("oc get pods\noc describe pod x")).is_empty());
    let probes = vec![
        (1, Lang::Shell, "kubectl get pods"),
        (5, Lang::Text, "oc get pods"),
    ];
    assert!(findings("mixed-cli", &probes).is_empty());
    let mut out = Vec::new();
    check(
        &guide(&[(1, Lang::Text, "kubectl rollout restart deployment -n x")]),
        &mut out,
    );
    assert!(out.is_empty());
}
