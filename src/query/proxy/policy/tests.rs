//! The policy's rules, request by request.

use super::*;

const RO: Run<'static> = Run {
    context: "mc-1",
    confirmed: None,
    writes: None,
};
const CONFIRMED: Run<'static> = Run {
    context: "mc-1",
    confirmed: Some("mc-1"),
    writes: None,
};
const OTHER: Run<'static> = Run {
    context: "mc-2",
    confirmed: Some("mc-1"),
    writes: None,
};

fn fwd(run: &Run<'_>, m: &str, p: &str, q: &str) -> bool {
    decide(run, m, p, q) == Decision::Forward
}

#[test]
fn reads_pass_writes_are_403_in_a_read_only_run() {
    assert!(fwd(&RO, "GET", "/api/v1/namespaces/m/pods", "watch=true"));
    assert!(fwd(&RO, "GET", "/apis", ""));
    assert!(fwd(
        &RO,
        "GET",
        "/api/v1/namespaces/m/pods/p/log",
        "follow=true"
    ));
    assert!(fwd(
        &RO,
        "POST",
        "/api/v1/namespaces/m/pods/p/portforward",
        ""
    ));
    assert!(fwd(
        &RO,
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        ""
    ));
    assert!(fwd(
        &RO,
        "DELETE",
        "/api/v1/namespaces/m/pods/p",
        "dryRun=All"
    ));
    for (m, p) in [
        ("DELETE", "/api/v1/namespaces/m/pods/p"),
        ("PATCH", "/apis/apps/v1/namespaces/m/deployments/d/scale"),
        ("POST", "/api/v1/namespaces"),
        ("PUT", "/api/v1/nodes/n"),
        ("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews"),
        ("POST", "/api/v1/namespaces/m/pods/p/proxy/x"),
    ] {
        match decide(&RO, m, p, "dryRun=None") {
            Decision::Deny(s) => {
                assert_eq!(s["code"], 403);
                assert_eq!(s["kind"], "Status");
                let msg = s["message"].as_str().unwrap_or_default();
                assert!(
                    msg.starts_with(
                        "tsgnav: read-only run; confirm this mitigation to change mc-1"
                    ),
                    "{msg}"
                );
            }
            Decision::Forward => panic!("{m} {p} was forwarded"),
        }
    }
}

#[test]
fn a_delete_is_a_dry_run_by_its_body_when_it_has_one() {
    let p = "/api/v1/namespaces/m/pods/p";
    let body = br#"{"kind":"DeleteOptions","dryRun":["All"]}"#;
    let dry = |q: &str, b: &[u8]| decide_with_body(&RO, "DELETE", p, q, b) == Decision::Forward;
    assert!(dry("", body));
    assert!(dry("dryRun=All", b""));
    // The API server ignores the query when the body has options.
    assert!(!dry("dryRun=All", br#"{"kind":"DeleteOptions"}"#));
    assert!(!dry("", br#"{"dryRun":[]}"#));
    assert!(!dry("", br#"{"dryRun":["All","None"]}"#));
    assert!(!dry("", b"not json"));
    assert!(!dry("dryRun=All&dryRun=None", b""));
}

#[test]
fn writes_pass_in_a_confirmed_run_for_that_context_only() {
    assert!(fwd(&CONFIRMED, "DELETE", "/api/v1/namespaces/m/pods/p", ""));
    // Not into another cluster behind the same server's path prefix.
    for p in [
        "/../clusters/b/api/v1/namespaces/m/pods/p",
        "/api/v1/namespaces/m/pods/%2e%2e/p",
        "/api/./v1/pods",
    ] {
        assert!(!fwd(&CONFIRMED, "DELETE", p, ""), "{p}");
        assert!(!fwd(&RO, "GET", p, ""), "{p}");
    }
    assert!(!fwd(&OTHER, "DELETE", "/api/v1/namespaces/m/pods/p", ""));
}

#[test]
fn exec_passes_only_a_read_only_command() {
    let p = "/api/v1/namespaces/m/pods/p/exec";
    assert!(fwd(
        &RO,
        "POST",
        p,
        "command=cat&command=%2Fetc%2Fhostname&stdout=true"
    ));
    assert!(fwd(&RO, "GET", p, "command=ls&command=-l"));
    assert!(!fwd(
        &RO,
        "POST",
        p,
        "command=rm&command=-rf&command=%2Fdata"
    ));
    assert!(!fwd(&RO, "POST", p, "command=sh&command=-c&command=kill+1"));
    assert!(!fwd(&RO, "GET", p, "command=sh&stdin=true&tty=true"));
    assert!(fwd(&CONFIRMED, "POST", p, "command=rm&command=%2Fx"));
    // `kubectl cp` into a pod, in a confirmed change: exec with stdin.
    assert!(fwd(
        &CONFIRMED,
        "POST",
        p,
        "command=tar&command=xf&command=-&stdin=true"
    ));
    assert!(!fwd(
        &OTHER,
        "POST",
        p,
        "command=tar&command=xf&command=-&stdin=true"
    ));
    assert!(!fwd(
        &RO,
        "POST",
        "/api/v1/namespaces/m/pods/p/attach",
        "stdin=true"
    ));
}

/// The writes of `script` for context mc-1, default namespace `default`.
fn writes(script: &str) -> Vec<Write> {
    crate::query::proxy::confine::resolve(crate::safety::kube_writes(script, &[]), "default")
}

fn confined<'a>(ws: &'a [Write]) -> Run<'a> {
    Run {
        context: "mc-1",
        confirmed: Some("mc-1"),
        writes: Some(ws),
    }
}

/// The refusal's message, or `None` when forwarded.
fn refusal(run: &Run<'_>, m: &str, p: &str, q: &str, body: &[u8]) -> Option<String> {
    match decide_with_body(run, m, p, q, body) {
        Decision::Forward => None,
        Decision::Deny(s) => Some(s["message"].as_str().unwrap_or_default().to_string()),
    }
}

#[test]
fn a_confined_run_makes_exactly_its_writes() {
    let ws = writes("kubectl delete pod web-1");
    let run = confined(&ws);
    let pod = "/api/v1/namespaces/default/pods/web-1";
    assert_eq!(refusal(&run, "DELETE", pod, "", b""), None);
    assert_eq!(refusal(&run, "GET", pod, "", b""), None);
    let may =
        "tsgnav: this run may delete pods/web-1 in namespace default of context mc-1; refused";
    for (m, p, asked) in [
        ("DELETE", "/api/v1/namespaces/web-1", "namespaces/web-1"),
        (
            "DELETE",
            "/api/v1/namespaces/default/pods/web-2",
            "pods/web-2 in namespace default",
        ),
        (
            "DELETE",
            "/api/v1/namespaces/kube-system/pods/web-1",
            "pods/web-1 in namespace kube-system",
        ),
        (
            "DELETE",
            "/api/v1/namespaces/default/services/web-1",
            "services/web-1 in namespace default",
        ),
        ("PATCH", pod, "pods/web-1 in namespace default"),
        (
            "DELETE",
            "/api/v1/namespaces/default/pods",
            "pods in namespace default (the whole collection)",
        ),
        (
            "POST",
            "/api/v1/namespaces/default/pods/web-1/eviction",
            "pods/web-1/eviction in namespace default",
        ),
        (
            "DELETE",
            "/api/v1/namespaces/default/pods/exec",
            "pods/exec in namespace default",
        ),
        (
            "POST",
            "/api/v1/namespaces/default/pods/web-1/exec",
            "pods/web-1/exec in namespace default",
        ),
        (
            "DELETE",
            "/apis/apps/v1/namespaces/default/deployments/web-1",
            "deployments.apps/web-1 in namespace default",
        ),
    ] {
        let q = if m == "POST" && p.ends_with("exec") {
            "command=rm&command=-rf&command=%2F"
        } else {
            ""
        };
        let msg = refusal(&run, m, p, q, b"").unwrap_or_else(|| panic!("{m} {p} was forwarded"));
        assert_eq!(msg, format!("{may} {m} {asked}"));
    }
}

#[test]
fn subresources_are_read_from_the_path_structure() {
    // `kubectl delete pod exec` deletes a pod named exec: not an exec, not read-only.
    let p = "/api/v1/namespaces/m/pods/exec";
    assert!(!fwd(&RO, "DELETE", p, ""));
    assert!(!fwd(
        &RO,
        "DELETE",
        "/api/v1/namespaces/m/pods/portforward",
        ""
    ));
    assert!(!fwd(
        &RO,
        "DELETE",
        "/api/v1/namespaces/m/pods/p/portforward",
        ""
    ));
    assert!(!fwd(
        &RO,
        "PUT",
        "/api/v1/namespaces/m/pods/p/exec",
        "command=ls"
    ));
    assert!(!fwd(
        &RO,
        "POST",
        "/api/v1/namespaces/m/services/s/portforward",
        ""
    ));
    assert!(!fwd(
        &RO,
        "POST",
        "/api/v1/namespaces/m/pods/p/exec/x",
        "command=ls"
    ));
    assert!(fwd(
        &RO,
        "GET",
        "/api/v1/namespaces/m/pods/p/portforward",
        ""
    ));
    // A proxy subresource passes GET only, dry run or not.
    assert!(!fwd(
        &RO,
        "POST",
        "/api/v1/namespaces/m/pods/p/proxy/x",
        "dryRun=All"
    ));
    assert!(!fwd(
        &RO,
        "POST",
        "/api/v1/namespaces/m/services/s:80/proxy/",
        "dryRun=All"
    ));
    assert!(fwd(
        &RO,
        "GET",
        "/api/v1/namespaces/m/services/s:80/proxy/metrics",
        ""
    ));
    // Outside the resource API nothing but reads.
    assert!(!fwd(&RO, "POST", "/version", "dryRun=All"));
    // A review of someone else's access is not a self review.
    assert!(!fwd(
        &RO,
        "POST",
        "/apis/authorization.k8s.io/v1/namespaces/m/selfsubjectaccessreviews/x",
        ""
    ));
}

#[test]
fn a_confined_run_reads_verbs_as_kubectl_sends_them() {
    let ws = writes(
        "kubectl scale deploy/web --replicas=2 -n m\nkubectl cordon node-1\n\
         kubectl label pod web-1 tier=x -n m\nkubectl create configmap c1 -n m",
    );
    let run = confined(&ws);
    let ok = |m: &str, p: &str, body: &[u8]| refusal(&run, m, p, "", body).is_none();
    assert!(ok(
        "PATCH",
        "/apis/apps/v1/namespaces/m/deployments/web/scale",
        b""
    ));
    assert!(ok("PATCH", "/api/v1/nodes/node-1", b""));
    assert!(ok("PATCH", "/api/v1/namespaces/m/pods/web-1", b""));
    assert!(ok(
        "POST",
        "/api/v1/namespaces/m/configmaps",
        br#"{"metadata":{"name":"c1"}}"#
    ));
    assert!(!ok(
        "POST",
        "/api/v1/namespaces/m/configmaps",
        br#"{"metadata":{"name":"c2"}}"#
    ));
    assert!(!ok(
        "DELETE",
        "/apis/apps/v1/namespaces/m/deployments/web",
        b""
    ));
    assert!(!ok("PATCH", "/api/v1/nodes/node-2", b""));
    assert!(!ok("DELETE", "/api/v1/nodes/node-1", b""));
    assert!(!ok(
        "PATCH",
        "/apis/apps/v1/namespaces/m/statefulsets/web/scale",
        b""
    ));
    // Nothing to check: a confirmed `apply -f` is confined to no write.
    let none = writes("kubectl apply -f x.yaml");
    let msg = refusal(
        &confined(&none),
        "DELETE",
        "/api/v1/namespaces/m/pods/p",
        "",
        b"",
    );
    assert!(msg.is_some_and(|m| m.contains("names no write tsgnav can check on context mc-1")));
}

#[test]
fn a_confined_exec_passes_a_writing_command_in_its_pod_only() {
    let ws = writes("kubectl exec -n m web-1 -- rm /tmp/x");
    let run = confined(&ws);
    let q = "command=rm&command=%2Ftmp%2Fx";
    assert_eq!(
        refusal(&run, "POST", "/api/v1/namespaces/m/pods/web-1/exec", q, b""),
        None
    );
    assert!(refusal(&run, "POST", "/api/v1/namespaces/m/pods/web-2/exec", q, b"").is_some());
    // A read-only command passes in any pod, as in a read-only run.
    assert_eq!(
        refusal(
            &run,
            "GET",
            "/api/v1/namespaces/m/pods/web-2/exec",
            "command=ls",
            b""
        ),
        None
    );
}

#[test]
fn objects_named_at_run_time_pass_only_with_the_shown_verb_and_namespace() {
    let ws = writes(
        "for mw in $(kubectl get manifestwork -n lc -o name); do\n  \
         kubectl patch \"${mw}\" -n lc --type=merge -p '{}'\ndone\n\
         kubectl delete pod \"$p\" -n m",
    );
    let run = confined(&ws);
    let ok = |m: &str, p: &str| refusal(&run, m, p, "", b"").is_none();
    assert!(ok(
        "PATCH",
        "/apis/work.example.io/v1/namespaces/lc/manifestworks/a"
    ));
    assert!(ok("DELETE", "/api/v1/namespaces/m/pods/any"));
    assert!(!ok(
        "DELETE",
        "/apis/work.example.io/v1/namespaces/lc/manifestworks/a"
    ));
    assert!(!ok(
        "PATCH",
        "/apis/work.example.io/v1/namespaces/other/manifestworks/a"
    ));
    assert!(!ok("PATCH", "/api/v1/namespaces/lc"));
    assert!(!ok("DELETE", "/api/v1/namespaces/m/services/any"));
    let msg = refusal(&run, "DELETE", "/api/v1/namespaces/m/services/s", "", b"");
    assert_eq!(
        msg.as_deref(),
        Some(
            "tsgnav: this run may patch objects of a kind named at run time (any name) in \
             namespace lc, delete pods (any name) in namespace m of context mc-1; refused \
             DELETE services/s in namespace m"
        )
    );
}
