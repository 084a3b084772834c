//! Unit tests of the writes a kubectl/oc script names (`kube_writes`).

use super::kube_writes::{kube_writes, Scope, WriteVerb};

type Row = (WriteVerb, String, String, Scope, Option<String>);

fn one(script: &str) -> Vec<Row> {
    kube_writes(script, &[("POD".into(), "web-1".into())])
        .into_iter()
        .map(|w| {
            let g = w.group.unwrap_or_else(|| "?".into());
            (w.verb, g, w.resource, w.scope, w.name)
        })
        .collect()
}

fn named(ns: &str) -> Scope {
    Scope::Named(ns.into())
}

#[test]
fn kubectl_objects_become_writes() {
    use WriteVerb::*;
    let s = |x: &str| x.to_string();
    let n = |x: &str| Some(x.to_string());
    let rows: Vec<(&str, Vec<Row>)> = vec![
        (
            "kubectl delete pod web-1",
            vec![(Delete, s(""), s("pods"), Scope::Default, n("web-1"))],
        ),
        (
            "kubectl delete pod \"$POD\" -n m",
            vec![(Delete, s(""), s("pods"), named("m"), n("web-1"))],
        ),
        (
            "oc delete po/a deploy/b --namespace=m",
            vec![
                (Delete, s(""), s("pods"), named("m"), n("a")),
                (Delete, s("apps"), s("deployments"), named("m"), n("b")),
            ],
        ),
        (
            "kubectl -n m scale deployment.v1.apps/x --replicas=0",
            vec![(Scale, s("apps"), s("deployments"), named("m"), n("x"))],
        ),
        (
            "kubectl delete pods,svc -l app=x -n m",
            vec![
                (Delete, s(""), s("pods"), named("m"), None),
                (Delete, s(""), s("services"), named("m"), None),
            ],
        ),
        (
            "kubectl label node n1 role=x gpu-",
            vec![(Patch, s(""), s("nodes"), Scope::Cluster, n("n1"))],
        ),
        (
            "kubectl rollout restart deploy/web -n m",
            vec![(Patch, s("apps"), s("deployments"), named("m"), n("web"))],
        ),
        (
            "kubectl set image deploy/web c=img:2 -n m",
            vec![(Patch, s("apps"), s("deployments"), named("m"), n("web"))],
        ),
        (
            "kubectl delete ns web-1",
            vec![(Delete, s(""), s("namespaces"), Scope::Cluster, n("web-1"))],
        ),
        (
            "kubectl delete widget w1 -n m",
            vec![(Delete, s("?"), s("widget"), named("m"), n("w1"))],
        ),
        (
            "kubectl delete appliedmanifestwork a1",
            vec![(
                Delete,
                s("?"),
                s("appliedmanifestwork"),
                Scope::DefaultOrCluster,
                n("a1"),
            )],
        ),
        (
            "kubectl exec -n m web-1 -- rm /x",
            vec![(Exec, s(""), s("pods"), named("m"), n("web-1"))],
        ),
        (
            "kubectl create configmap c1 -n m --from-literal=a=b",
            vec![(Create, s(""), s("configmaps"), named("m"), n("c1"))],
        ),
        (
            "kubectl create secret generic s1 -n m",
            vec![(Create, s(""), s("secrets"), named("m"), n("s1"))],
        ),
        ("kubectl delete pod web-1 --dry-run=server", vec![]),
        ("kubectl apply -f x.yaml", vec![]),
        ("kubectl get pods -A", vec![]),
        (
            "kubectl delete \"$(kubectl get pod -o name | head -1)\"",
            vec![(Delete, s("?"), s("*"), Scope::DefaultOrCluster, None)],
        ),
    ];
    for (script, want) in rows {
        assert_eq!(one(script), want, "{script}");
    }
    let drain = one("kubectl drain n1 --ignore-daemonsets");
    assert_eq!(
        drain[0],
        (Patch, s(""), s("nodes"), Scope::Cluster, n("n1"))
    );
    assert!(drain[1..]
        .iter()
        .all(|w| w.2 == "pods" && w.3 == Scope::All && w.4.is_none()));
}
