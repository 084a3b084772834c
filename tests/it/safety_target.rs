//! Target integrity: a probe that names its own cluster or identity (`--server`,
//! `--kubeconfig`, `KUBECONFIG=`, `--token`, `--as`, `--as-group`, also through `command
//! kubectl`, `env` and prefix assignments, or a variable value) is refused in read-only and
//! confirmed runs alike, with a message naming the flag; a call that skips the context
//! pinning (`command kubectl`, `/usr/bin/kubectl`) is refused when it would change something.

use tsgnav::query::runner::gate;
use tsgnav::query::ProbeError;

use super::mitigate_support::{confirm, request};

/// The refusal's text for `code` (with `V=value`), unconfirmed and confirmed; panics when
/// either is let through.
fn refusals(code: &str, value: &str) -> [String; 2] {
    let req = request(code, "V", value, "mc-test", None);
    let mut confirmed = req.clone();
    confirmed.confirmation = Some(confirm(&req, "mc-test"));
    [req, confirmed].map(|r| match gate(&r) {
        Some(e @ ProbeError::Refused { .. }) => e.to_string(),
        other => panic!("{code:?} was not refused: {other:?}"),
    })
}

#[test]
fn own_server_kubeconfig_token_or_identity_is_refused_in_both_modes() {
    let cases = [
        (
            "kubectl --server http://other:6443 delete pod x",
            "--server",
        ),
        ("kubectl -s http://other get pods", "-s"),
        ("kubectl -shttp://other get pods", "-s"),
        ("kubectl get pods --server=http://other", "--server"),
        ("KUBECONFIG=other kubectl delete pod x", "KUBECONFIG="),
        (
            "export KUBECONFIG=/tmp/other; kubectl get pods",
            "KUBECONFIG=",
        ),
        ("env KUBECONFIG=other kubectl get pods", "KUBECONFIG="),
        (
            "command kubectl --kubeconfig other delete pod x",
            "--kubeconfig",
        ),
        ("kubectl --kubeconfig=other get pods", "--kubeconfig"),
        ("kubectl --token abc get secrets", "--token"),
        ("oc --as system:admin get nodes", "--as"),
        ("kubectl --as-group system:masters get nodes", "--as-group"),
        ("kubectl --cluster prod get pods", "--cluster"),
        ("sudo kubectl --user admin get pods", "--user"),
        (
            "helm --kube-apiserver http://other list",
            "--kube-apiserver",
        ),
        ("helm --kube-token t uninstall foo", "--kube-token"),
        (
            "x=$(kubectl --server http://o get pods); echo $x",
            "--server",
        ),
        ("bash -c 'kubectl --token t get pods'", "--token"),
        (
            "kubectl exec p -- kubectl --server http://o get pods",
            "--server",
        ),
    ];
    for (code, flag) in cases {
        for text in refusals(code, "v") {
            assert!(
                text.contains(&format!("`{flag}`")),
                "{code:?}: the refusal does not name `{flag}`: {text}"
            );
        }
    }
}

#[test]
fn a_value_that_holds_a_target_flag_is_refused() {
    for text in refusals("kubectl get pod \"$V\"", "--server=http://other:6443") {
        assert!(
            text.contains("`V`") && text.contains("`--server`"),
            "{text}"
        );
    }
}

#[test]
fn bypassing_the_context_pinning_is_refused_for_changes_only() {
    for code in [
        "command kubectl delete pod x",
        "/usr/bin/kubectl delete pod x",
        "sudo kubectl scale deploy/a --replicas=0",
    ] {
        for text in refusals(code, "v") {
            assert!(
                text.contains("pinning of the kube context"),
                "{code:?}: {text}"
            );
        }
    }
    let read = request("command kubectl get pods", "V", "v", "mc-test", None);
    assert!(
        gate(&read).is_none(),
        "a read through `command kubectl` runs"
    );
}

#[test]
fn the_name_of_a_tool_as_an_argument_is_not_a_call() {
    for code in [
        "echo kubectl --server is refused",
        "grep -- --token notes.txt",
    ] {
        let req = request(code, "V", "v", "mc-test", None);
        assert!(gate(&req).is_none(), "{code:?} was refused");
    }
}
