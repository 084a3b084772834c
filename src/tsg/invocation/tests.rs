//! Tests of the typed parse: the forms guides write, each read the one way.

use super::*;

fn inv(line: &str) -> Invocation {
    let cmds = shell::commands(line);
    of_command(&cmds[0]).expect("a tool with a table")
}

fn objs(line: &str) -> Vec<String> {
    inv(line).objects.iter().map(Object::label).collect()
}

#[test]
fn a_valued_flag_before_the_verb_does_not_become_the_verb() {
    let i =
        inv("kubectl --request-timeout 30s scale deployment/maestro-agent -n maestro --replicas=0");
    assert_eq!(i.verbs, ["scale"]);
    assert_eq!(i.namespace.as_deref(), Some("maestro"));
    assert_eq!(i.value(Role::Replicas), Some("0"));
    assert_eq!(
        objs("kubectl --request-timeout 30s scale deployment/maestro-agent -n maestro"),
        ["deployment/maestro-agent"]
    );
}

#[test]
fn every_way_of_writing_a_namespace_reads_the_same() {
    for line in [
        "kubectl -n ns get pods",
        "kubectl -nns get pods",
        "kubectl -n=ns get pods",
        "kubectl --namespace ns get pods",
        "kubectl --namespace=ns get pods",
        "kubectl get pods --namespace=other -n ns",
    ] {
        assert_eq!(inv(line).namespace.as_deref(), Some("ns"), "{line}");
        assert_eq!(inv(line).verbs, ["get"], "{line}");
    }
}

#[test]
fn type_and_names_give_one_object_each() {
    assert_eq!(
        objs("kubectl delete deploy x y -n a"),
        ["deploy/x", "deploy/y"]
    );
    assert_eq!(objs("kubectl get pods,svc"), ["pods", "svc"]);
    assert_eq!(
        objs("oc get deployment.apps/web pod/db"),
        ["deployment.apps/web", "pod/db"]
    );
    assert_eq!(
        objs("kubectl cordon aks-1 aks-2"),
        ["node/aks-1", "node/aks-2"]
    );
    assert_eq!(
        objs("kubectl drain node/aks-3 --ignore-daemonsets"),
        ["node/aks-3"]
    );
    assert_eq!(objs("kubectl label pod web tier=front old-"), ["pod/web"]);
    assert_eq!(
        objs("kubectl rollout restart deployment/web"),
        ["deployment/web"]
    );
}

#[test]
fn files_are_objects_tsgnav_cannot_see_into() {
    let i = inv("kubectl apply -f manifest.yaml -n x");
    assert_eq!(i.objects.len(), 1);
    assert_eq!(i.objects[0].file.as_deref(), Some("manifest.yaml"));
    assert_eq!(i.objects[0].resource, None);
    assert_eq!(i.objects[0].namespace.as_deref(), Some("x"));
}

#[test]
fn logs_f_follows_and_takes_no_value() {
    let i = inv("kubectl logs -f web -n x");
    assert!(i.has(Role::Follow));
    assert_eq!(objs("kubectl logs -f web -n x"), ["pod/web"]);
    assert_eq!(
        inv("kubectl delete -f web.yaml").value(Role::Filename),
        Some("web.yaml")
    );
}

#[test]
fn overrides_and_the_tail_are_kept() {
    let i = inv(
        "kubectl --context mc-1 --kubeconfig /k --server https://a:6443 exec -ti web -- sh -c 'ls'",
    );
    assert_eq!(i.context.as_deref(), Some("mc-1"));
    assert_eq!(i.kubeconfig.as_deref(), Some("/k"));
    assert_eq!(i.server.as_deref(), Some("https://a:6443"));
    assert!(i.has(Role::Tty) && i.has(Role::Stdin));
    assert_eq!(
        i.tail.as_deref(),
        Some(&["sh".to_string(), "-c".into(), "ls".into()][..])
    );
    assert_eq!(objs("kubectl exec web -c app -- ls /"), ["pod/web"]);
}

#[test]
fn an_unknown_flag_before_the_verb_is_reported() {
    assert_eq!(
        inv("kubectl --frobnicate 3 get pods")
            .unknown_before_verb
            .as_deref(),
        Some("--frobnicate")
    );
    assert_eq!(
        inv("kubectl --frobnicate=3 get pods").unknown_before_verb,
        None
    );
    assert_eq!(
        inv("kubectl get pods --frobnicate 3").unknown_before_verb,
        None
    );
    assert_eq!(inv("kubectl -nfoo get pods").unknown_before_verb, None);
}

#[test]
fn helm_az_and_curl_read_their_own_tables() {
    let h = inv("helm --kube-context mc-2 -n maestro upgrade rel chart --set a=b");
    assert_eq!(
        (
            h.verbs.clone(),
            h.context.as_deref(),
            h.namespace.as_deref()
        ),
        (vec!["upgrade".to_string()], Some("mc-2"), Some("maestro"))
    );
    let a =
        inv("az aks nodepool scale --resource-group rg --name np --node-count 3 --subscription s1");
    assert_eq!(a.verbs, ["aks", "nodepool", "scale"]);
    assert_eq!(a.namespace.as_deref(), Some("rg"));
    assert_eq!(a.context.as_deref(), Some("s1"));
    let c = inv("curl -sS -H 'Accept: x' -XPOST https://h/p");
    assert_eq!(c.positionals, ["https://h/p"]);
    assert!(c
        .flags
        .iter()
        .any(|f| f.name == "-X" && f.value.as_deref() == Some("POST")));
}

#[test]
fn other_programs_have_no_invocation() {
    assert!(of_words(&["sed".to_string(), "-n".into(), "1p".into()]).is_none());
    assert_eq!(
        of_script("echo a | kubectl get pods -n x && helm list").len(),
        2
    );
}
