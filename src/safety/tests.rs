//! Unit tests of script-level classification and of `classify_probe`.

use super::tests_kube::check;
use super::*;
use crate::tsg::SafetyClass::{Interactive, LongRunning, Mutating, ReadOnly, Unknown};
use crate::tsg::{Lang, Probe};

fn probe(lang: Lang, code: &str) -> Probe {
    Probe::from_code(lang, code)
}

#[test]
fn the_most_dangerous_command_wins() {
    check(&[
        ("", ReadOnly),
        ("# only a comment", ReadOnly),
        ("kubectl get pods | grep x | wc -l", ReadOnly),
        ("kubectl get pods && kubectl delete pod x", Mutating),
        ("kubectl get pods; kubectl delete pod x", Mutating),
        (
            "kubectl get pods || kubectl scale deploy x --replicas=1",
            Mutating,
        ),
        ("kubectl logs -f x & kubectl exec -ti y -- sh", Interactive),
        ("kubectl logs -f x\nkubectl get pods", LongRunning),
        ("kubectl port-forward svc/x 8000:8000 & ./probe.sh", Unknown),
        (
            "X=$(kubectl get deploy x -o jsonpath='{.spec.replicas}')",
            ReadOnly,
        ),
    ]);
}

#[test]
fn substitutions_loops_and_nesting() {
    check(&[
        ("echo \"$(kubectl delete pod x)\"", Mutating),
        ("echo `kubectl drain n1`", Mutating),
        ("diff <(kubectl get a -o yaml) <(kubectl get b -o yaml)", ReadOnly),
        (
            "for mw in $(kubectl get manifestwork -o name); do\n  kubectl patch $mw --type=merge -p '{\"metadata\":{\"finalizers\":null}}'\ndone",
            Mutating,
        ),
        ("for p in $(kubectl get pods -o name); do kubectl logs $p | tail -5; done", ReadOnly),
        ("while read n; do kubectl cordon $n; done < nodes.txt", Mutating),
        ("if kubectl get ns x; then echo present; else kubectl create ns x; fi", Mutating),
        ("kubectl exec -n maestro deploy/maestro -- sh -c \"curl -s -X DELETE localhost:8000/api/x\"", Mutating),
        ("oc exec pod -- bash -c 'curl -s localhost:8000/healthz'", ReadOnly),
        ("kubectl get pods -o name | xargs kubectl delete", Mutating),
        ("kubectl get pods -o name | xargs -I{} kubectl describe {}", ReadOnly),
        ("kubectl get pods -o name | xargs -n1 sh -c 'kubectl delete $0'", Mutating),
        ("watch kubectl get pods", LongRunning),
        ("watch -n 5 'kubectl get pods'", LongRunning),
        ("timeout 30 kubectl logs -f x", LongRunning),
        ("sudo rm -rf /var/lib/x", Mutating),
        ("env FOO=1 kubectl get pods", ReadOnly),
        ("A=1 B=2 kubectl delete pod x", Mutating),
        ("$ kubectl delete pod x", Mutating),
        ("$ kubectl get pods", ReadOnly),
        ("sudo -i", Interactive),
        ("sudo -u admin kubectl get pods", ReadOnly),
    ]);
}

#[test]
fn heredocs_and_redirections() {
    check(&[
        (
            "kubectl apply -f - <<EOF\napiVersion: v1\nkind: Namespace\nEOF",
            Mutating,
        ),
        ("cat <<'EOF'\nrm -rf /\nkubectl delete ns x\nEOF", ReadOnly),
        ("cat <<EOF > /etc/config\nx\nEOF", Mutating),
        ("kubectl get pods -o yaml > pods.yaml", Mutating),
        ("kubectl get pods >> pods.log", Mutating),
        ("kubectl get pods 2>/dev/null", ReadOnly),
        ("kubectl get pods > /dev/null 2>&1", ReadOnly),
        ("kubectl get pods &> all.log", Mutating),
        ("jq . < in.json", ReadOnly),
        ("kubectl describe mtpnc <pod-name> -n <namespace>", ReadOnly),
    ]);
}

#[test]
fn opaque_commands_are_unknown() {
    check(&[
        ("./fix.sh", Unknown),
        ("bash script.sh", Unknown),
        ("source ./env.sh", Unknown),
        (". ./env.sh", Unknown),
        ("eval \"$CMD\"", Unknown),
        ("curl -s https://x/install.sh | sh", Unknown),
        ("$KUBECTL get pods", Unknown),
        ("${KUBECTL} get pods", Unknown),
        ("$(which kubectl) get pods", Unknown),
        ("<your-command> --flag", Unknown),
        ("frobnicate --now", Unknown),
        ("make build", Unknown),
    ]);
}

#[test]
fn broken_scripts_are_unknown_not_panics() {
    check(&[
        ("kubectl get pods -l 'app=x", Unknown),
        ("echo \"unterminated", Unknown),
        ("echo $(kubectl get pods", Unknown),
    ]);
    let deep = format!(
        "{}kubectl delete x{}",
        "$(".repeat(10_000),
        ")".repeat(10_000)
    );
    let v = classify(&deep);
    assert!(v.class >= Unknown, "{:?}", v.class);
    assert!(v.hits.iter().any(|h| h.reason.contains("nested more than")));
    let deep_exec = format!("{}rm -rf /", "kubectl exec p -- ".repeat(3_000));
    assert!(classify(&deep_exec).class >= Unknown);
    let deep_watch = format!("{}x", "watch ".repeat(50_000));
    assert!(classify(&deep_watch).class >= Unknown);
}

#[test]
fn hits_explain_each_command() {
    let v = classify("kubectl get pods\nkubectl exec p -- sh -c 'curl -X DELETE http://x'");
    let got: Vec<(usize, SafetyClass)> = v.hits.iter().map(|h| (h.line, h.class)).collect();
    assert_eq!(
        got,
        [(1, ReadOnly), (2, ReadOnly), (2, ReadOnly), (2, Mutating)]
    );
    let worst: Vec<&str> = v.reasons().map(|h| h.command.as_str()).collect();
    assert_eq!(worst, ["curl -X DELETE http://x"]);
    assert!(v.hits[3].reason.contains("DELETE"), "{}", v.hits[3].reason);
}

#[test]
fn probes_of_every_language() {
    let cases = [
        (Lang::Shell, "kubectl delete pod x", Mutating),
        (Lang::Promql, "sum(rate(x[5m]))", ReadOnly),
        (Lang::Kql, "Logs\n| where x == 1\n| take 10", ReadOnly),
        (Lang::Kql, ".show tables", ReadOnly),
        (Lang::Kql, "// cleanup\n.drop table T", Mutating),
        (Lang::Kql, ".set-or-append T <| Q", Mutating),
        (Lang::Http, "GET /admin/v1/hcp/x/kubeconfig", ReadOnly),
        (
            Lang::Http,
            "# create\nPOST /admin/v1/hcp/x/breakglass",
            Mutating,
        ),
        (Lang::Http, "delete https://x/y", Mutating),
        (Lang::Http, "https://x/y", ReadOnly),
        (Lang::Http, "BREW /pot", Unknown),
        (Lang::Text, "rm -rf /", ReadOnly),
    ];
    for (lang, code, want) in cases {
        assert_eq!(
            classify_probe(&probe(lang, code)),
            want,
            "{lang:?} {code:?}"
        );
    }
    let v = explain_probe(&probe(Lang::Kql, "T\n.delete table T records <| T"));
    assert_eq!((v.hits[0].line, v.class), (2, Mutating));
}
