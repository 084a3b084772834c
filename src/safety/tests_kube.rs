//! Unit tests of the kubectl/oc/helm rules.

use super::classify;
use crate::tsg::SafetyClass::{self, Interactive, LongRunning, Mutating, ReadOnly, Unknown};

pub(super) fn check(cases: &[(&str, SafetyClass)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(script, want)| {
            let got = classify(script);
            (got.class != *want).then(|| {
                format!(
                    "{script:?}: want {want:?}, got {:?} {:?}",
                    got.class, got.hits
                )
            })
        })
        .collect();
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}

#[test]
fn every_mutating_kubectl_verb() {
    let verbs = [
        "scale deploy/x --replicas=0",
        "patch deploy x -p '{}'",
        "delete pod x",
        "drain node-1",
        "cordon node-1",
        "uncordon node-1",
        "rollout restart deployment/x",
        "rollout undo deploy/x",
        "rollout pause deploy/x",
        "rollout resume deploy/x",
        "annotate pod x a=b",
        "label pod x a=b",
        "apply -f x.yaml",
        "edit deploy x",
        "create ns x",
        "replace -f x.yaml",
        "run tmp --image=busybox",
        "set image deploy/x c=img",
        "taint node n k=v:NoSchedule",
        "expose deploy x --port=80",
        "autoscale deploy x --max=3",
        "certificate approve csr-1",
        "cp pod:/a ./a",
        "config use-context prod",
        "auth reconcile -f r.yaml",
    ];
    for cli in ["kubectl", "oc", "/usr/local/bin/kubectl"] {
        let cases: Vec<(String, SafetyClass)> = verbs
            .iter()
            .map(|v| (format!("{cli} {v}"), Mutating))
            .collect();
        let refs: Vec<(&str, SafetyClass)> = cases.iter().map(|(s, c)| (s.as_str(), *c)).collect();
        check(&refs);
    }
}

#[test]
fn read_only_kubectl_verbs() {
    check(&[
        ("kubectl get pods -A", ReadOnly),
        ("kubectl -n maestro get manifestwork -o yaml", ReadOnly),
        ("kubectl describe node n1", ReadOnly),
        ("kubectl logs -n x deploy/y -c c --previous", ReadOnly),
        ("kubectl logs -p pod", ReadOnly),
        ("kubectl top pods", ReadOnly),
        ("kubectl explain pod.spec", ReadOnly),
        ("kubectl api-resources", ReadOnly),
        ("kubectl version", ReadOnly),
        ("kubectl config view --minify", ReadOnly),
        ("kubectl config current-context", ReadOnly),
        ("kubectl auth can-i delete pods", ReadOnly),
        ("kubectl rollout status deploy/x", ReadOnly),
        ("kubectl rollout history deploy/x", ReadOnly),
        ("oc whoami", ReadOnly),
        ("oc project", ReadOnly),
        ("oc adm top nodes", ReadOnly),
        ("kubectl", ReadOnly),
    ]);
}

#[test]
fn dry_run_only_previews() {
    check(&[
        ("kubectl delete pod x --dry-run=client", ReadOnly),
        ("kubectl apply -f x.yaml --dry-run=server", ReadOnly),
        (
            "kubectl scale deploy x --replicas=0 --dry-run=none",
            Mutating,
        ),
        (
            "kubectl rollout restart deploy/x --dry-run=client",
            ReadOnly,
        ),
        ("helm upgrade r chart --dry-run", ReadOnly),
        ("oc adm upgrade", ReadOnly),
        ("oc --context c adm upgrade", ReadOnly),
    ]);
}

#[test]
fn interactive_and_long_running_kubectl() {
    check(&[
        ("kubectl exec -ti pod -- bash", Interactive),
        ("kubectl exec -it pod -- ls", Interactive),
        ("kubectl exec -i -t pod -- ls", Interactive),
        ("kubectl exec pod -- ls /tmp", ReadOnly),
        ("kubectl exec pod -- rm /tmp/x", Mutating),
        ("kubectl exec pod -c c -- /usr/bin/custom-tool", Unknown),
        ("kubectl exec pod ls", Unknown),
        ("kubectl attach pod -i", Interactive),
        ("kubectl debug node/n -it --image=busybox", Interactive),
        ("oc rsh pod", Interactive),
        ("oc login https://api.example:6443", Interactive),
        (
            "kubectl port-forward -n maestro svc/maestro 8002:8000",
            LongRunning,
        ),
        ("kubectl proxy", LongRunning),
        ("kubectl get pods -w", LongRunning),
        ("kubectl get pods --watch", LongRunning),
        (
            "kubectl wait --for=delete pod -l app=x --timeout=60s",
            LongRunning,
        ),
        ("kubectl logs -f pod", LongRunning),
        ("kubectl logs --follow=true pod", LongRunning),
        ("kubectl logs --follow=false pod", ReadOnly),
    ]);
}

#[test]
fn oc_specific_verbs() {
    check(&[
        ("oc project my-ns", Mutating),
        ("oc adm drain node-1 --ignore-daemonsets", Mutating),
        ("oc adm must-gather", Mutating),
        ("oc adm frobnicate", Unknown),
        ("oc rollout latest dc/x", Mutating),
        ("oc new-project x", Mutating),
        ("kubectl neat get pod x", Unknown),
    ]);
}

#[test]
fn helm_verbs() {
    check(&[
        ("helm list -A", ReadOnly),
        ("helm status r -n ns", ReadOnly),
        ("helm get values r", ReadOnly),
        ("helm template chart", ReadOnly),
        ("helm repo list", ReadOnly),
        ("helm install r chart -n ns", Mutating),
        ("helm upgrade --install r chart", Mutating),
        ("oc adm upgrade --to-latest", Mutating),
        ("oc adm upgrade --to 4.16.4", Mutating),
        ("helm uninstall r", Mutating),
        ("helm rollback r 3", Mutating),
        ("helm repo add x https://x", Mutating),
        ("helm frob", Unknown),
    ]);
}

#[test]
fn reasons_are_specific() {
    let v = classify("kubectl scale deployment -n maestro maestro-agent --replicas=0");
    assert_eq!(
        v.hits[0].reason,
        "`kubectl scale` changes the replica count"
    );
    let v = classify("oc delete pod x");
    assert_eq!(v.hits[0].reason, "`oc delete` deletes objects");
    let v = classify("kubectl rollout restart deployment -n mgmt-agent");
    assert!(
        v.hits[0].reason.contains("restarts every pod"),
        "{:?}",
        v.hits
    );
}
