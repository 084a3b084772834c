//! Unit tests of the native kubectl parser: the guides' forms, fallbacks to the shell,
//! inert values and missing variables.

use std::collections::BTreeMap;

use super::*;

fn b(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn one(code: &str) -> KubeCommand {
    let mut v = parse_script(
        code,
        &b(&[
            ("NODE_NAME", "n1"),
            ("OCM_NAMESPACE", "ocm-x"),
            ("ROUTER_POD", "router-0"),
        ]),
    )
    .expect("parses");
    assert_eq!(v.len(), 1);
    v.remove(0)
}

#[test]
fn guide_forms() {
    let c = one("kubectl get pods -A -l kubernetes.azure.com/pod-network-instance \\\n  --field-selector=status.phase=Pending -o wide");
    assert!(c.all_namespaces);
    assert_eq!(
        c.labels.as_deref(),
        Some("kubernetes.azure.com/pod-network-instance")
    );
    assert_eq!(c.fields.as_deref(), Some("status.phase=Pending"));
    assert_eq!(c.format, Format::Wide);
    assert_eq!(
        c.targets,
        vec![Target {
            resource: "pods".into(),
            name: None
        }]
    );

    let c = one("kubectl describe mtpnc \"${ROUTER_POD}\" -n \"${OCM_NAMESPACE}\"");
    assert_eq!(c.verb, Verb::Describe);
    assert_eq!(
        c.targets,
        vec![Target {
            resource: "mtpnc".into(),
            name: Some("router-0".into())
        }]
    );
    assert_eq!(c.namespace.as_deref(), Some("ocm-x"));

    let c = one("kubectl get node \"${NODE_NAME}\" -o jsonpath='{.status.capacity.aro\\.openshift\\.io/swift-nic}'");
    assert_eq!(
        c.format,
        Format::JsonPath("{.status.capacity.aro\\.openshift\\.io/swift-nic}".into())
    );

    let c = one("kubectl get deployment,service -n maestro --context mc-eastus-1");
    assert_eq!(c.targets.len(), 2);
    assert_eq!(c.context.as_deref(), Some("mc-eastus-1"));

    let c = one("kubectl get nodes -o wide -L agentpool --no-headers");
    assert_eq!(c.label_columns, vec!["agentpool"]);
    assert!(c.no_headers);

    let c = one("kubectl get pod/a pod/b -nkube-system -oyaml");
    assert_eq!(
        c.targets[1],
        Target {
            resource: "pod".into(),
            name: Some("b".into())
        }
    );
    assert_eq!(c.namespace.as_deref(), Some("kube-system"));
    assert_eq!(c.format, Format::Yaml);
}

#[test]
fn two_lines_are_two_commands() {
    let v = parse_script(
        "kubectl get nodes -o wide -L agentpool\nkubectl get pods -A\n",
        &b(&[]),
    )
    .expect("parses");
    assert_eq!(v.len(), 2);
}

#[test]
fn shell_only_forms_fall_back() {
    let bind = b(&[("CLUSTER_ID", "x")]);
    for code in [
        "kubectl get pods | grep x",
        "kubectl get nodes -o go-template={{.kind}}",
        "kubectl get nodes -o jsonpath='{.items[?(@.a=~/x/)]}'",
        "kubectl get nodes -o custom-columns=NAME",
        "kubectl get pods --sort-by='{.a}{.b}'",
        "kubectl logs -n x pod",
        "kubectl scale deployment x --replicas=0",
        "X=$(kubectl get pods -o name)",
        "kubectl get pods > out.txt",
        "kubectl get pods -n \"$(whoami)\"",
        "kubectl get pods -n ${NS:-default}",
        "echo hi",
    ] {
        assert!(
            matches!(parse_script(code, &bind), Err(Reject::NotNative(_))),
            "{code}"
        );
    }
}

#[test]
fn values_stay_words() {
    let evil = "x'; touch /tmp/pwned; echo '";
    let c = parse_script("kubectl get pods -n \"${NS}\"", &b(&[("NS", evil)])).expect("parses");
    assert_eq!(c[0].namespace.as_deref(), Some(evil));
    let c = parse_script(
        "kubectl get pod <pod-name> -n $NS",
        &b(&[("pod-name", "$(touch /tmp/pwned)"), ("NS", "a b")]),
    )
    .expect("parses");
    assert_eq!(c[0].targets[0].name.as_deref(), Some("$(touch /tmp/pwned)"));
    assert_eq!(c[0].namespace.as_deref(), Some("a b"));
}

#[test]
fn missing_values_are_named() {
    assert_eq!(
        parse_script("kubectl get pods -n \"${OCM_NAMESPACE}\"", &b(&[])),
        Err(Reject::MissingVar("OCM_NAMESPACE".into()))
    );
}

#[test]
fn missing_values_in_other_commands_do_not_make_them_native() {
    let code = "az feature show --subscription \"${MGMT_SUBSCRIPTION_ID}\"";
    assert!(matches!(
        parse_script(code, &b(&[])),
        Err(Reject::NotNative(_))
    ));
    let code = "kubectl get pods -n \"${NS}\" | grep x";
    assert!(matches!(
        parse_script(code, &b(&[])),
        Err(Reject::NotNative(_))
    ));
}

#[test]
fn jq_after_json_output() {
    let v = parse_script(
        "kubectl get manifestwork -n local-cluster -o json \\\n  | jq -r --arg id \"${CLUSTER_ID}\" '.items[] | select(.metadata.name | contains($id)) | .metadata.name'",
        &b(&[("CLUSTER_ID", "x'; touch /tmp/p")]),
    )
    .expect("native");
    let jq = v[0].jq.as_ref().expect("jq");
    assert!(jq.raw);
    assert_eq!(
        jq.args,
        vec![("id".to_string(), "x'; touch /tmp/p".to_string())]
    );
    assert!(jq.filter.starts_with(".items[]"));
    for code in [
        "kubectl get pods | jq .",
        "kubectl get pods -o json | jq . | head",
        "kubectl get pods -o json | jq . > f",
    ] {
        assert!(
            matches!(parse_script(code, &b(&[])), Err(Reject::NotNative(_))),
            "{code}"
        );
    }
}
