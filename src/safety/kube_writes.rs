//! The Kubernetes writes a kubectl/oc script names, read from its words: for each object, the
//! verb, the API group and resource, the namespace and the name. The confirmation screen shows
//! the command; these are the writes it stands for, and the API proxy lets a confirmed run make
//! exactly these (see `query::proxy::policy`). What cannot be read from the words (`apply -f`,
//! `replace -f`, `edit`, a plugin) names no write, so a confirmed run of it gets none through.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{split, Args};
use crate::tsg::invocation::table::{
    KUBE_ALL_NAMESPACES, KUBE_ALL_NAMESPACES_LONG, KUBE_NS, KUBE_NS_LONG,
};
use crate::tsg::invocation::{takes_value, Tool};
use crate::tsg::shell;

/// What a write does to its object, as the API server sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteVerb {
    /// `DELETE` of one named object.
    Delete,
    /// `PATCH` or `PUT` of the object (patch, label, annotate, cordon, rollout restart, set …).
    Patch,
    /// `PATCH` or `PUT` of the object or its `scale` subresource.
    Scale,
    /// `POST` to the collection, of an object with this name.
    Create,
    /// `POST` of a pod's `eviction` subresource (what drain sends).
    Evict,
    /// The pod's `exec` or `attach` subresource, with any command.
    Exec,
}

impl WriteVerb {
    pub fn as_str(self) -> &'static str {
        match self {
            WriteVerb::Delete => "delete",
            WriteVerb::Patch => "patch",
            WriteVerb::Scale => "scale",
            WriteVerb::Create => "create",
            WriteVerb::Evict => "evict",
            WriteVerb::Exec => "exec in",
        }
    }
}

/// Where the object is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The run's default namespace (no `-n`).
    Default,
    /// No `-n`, of a kind tsgnav cannot tell is namespaced: the run's default namespace, or
    /// cluster-scoped.
    DefaultOrCluster,
    Named(String),
    NamedOrCluster(String),
    /// `-A`: any namespace.
    All,
    /// A cluster-scoped resource (nodes, namespaces …).
    Cluster,
}

/// One write a script names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeWrite {
    pub verb: WriteVerb,
    /// The API group (`""` for the core group); `None` for a kind tsgnav does not know, which
    /// then matches its resource in any group.
    pub group: Option<String>,
    /// The plural resource (`pods`, `deployments`), the word as written for an unknown kind,
    /// or `*` for a kind the script names only at run time (`kubectl patch "$obj"`).
    pub resource: String,
    pub scope: Scope,
    /// `None` when the script names objects by selector, `--all` or a word known only at run
    /// time (`"$pod"` from a loop): any name matches.
    pub name: Option<String>,
}

/// (group, plural, namespaced) of the kinds kubectl users name, by every short name.
fn known(kind: &str) -> Option<(&'static str, &'static str, bool)> {
    Some(match kind {
        "po" | "pod" | "pods" => ("", "pods", true),
        "svc" | "service" | "services" => ("", "services", true),
        "cm" | "configmap" | "configmaps" => ("", "configmaps", true),
        "secret" | "secrets" => ("", "secrets", true),
        "sa" | "serviceaccount" | "serviceaccounts" => ("", "serviceaccounts", true),
        "pvc" | "persistentvolumeclaim" | "persistentvolumeclaims" => {
            ("", "persistentvolumeclaims", true)
        }
        "ep" | "endpoints" => ("", "endpoints", true),
        "rc" | "replicationcontroller" | "replicationcontrollers" => {
            ("", "replicationcontrollers", true)
        }
        "ns" | "namespace" | "namespaces" => ("", "namespaces", false),
        "no" | "node" | "nodes" => ("", "nodes", false),
        "pv" | "persistentvolume" | "persistentvolumes" => ("", "persistentvolumes", false),
        "deploy" | "deployment" | "deployments" => ("apps", "deployments", true),
        "sts" | "statefulset" | "statefulsets" => ("apps", "statefulsets", true),
        "ds" | "daemonset" | "daemonsets" => ("apps", "daemonsets", true),
        "rs" | "replicaset" | "replicasets" => ("apps", "replicasets", true),
        "job" | "jobs" => ("batch", "jobs", true),
        "cj" | "cronjob" | "cronjobs" => ("batch", "cronjobs", true),
        "ing" | "ingress" | "ingresses" => ("networking.k8s.io", "ingresses", true),
        "netpol" | "networkpolicy" | "networkpolicies" => {
            ("networking.k8s.io", "networkpolicies", true)
        }
        "hpa" | "horizontalpodautoscaler" | "horizontalpodautoscalers" => {
            ("autoscaling", "horizontalpodautoscalers", true)
        }
        "pdb" | "poddisruptionbudget" | "poddisruptionbudgets" => {
            ("policy", "poddisruptionbudgets", true)
        }
        "role" | "roles" => ("rbac.authorization.k8s.io", "roles", true),
        "rolebinding" | "rolebindings" => ("rbac.authorization.k8s.io", "rolebindings", true),
        "clusterrole" | "clusterroles" => ("rbac.authorization.k8s.io", "clusterroles", false),
        "clusterrolebinding" | "clusterrolebindings" => {
            ("rbac.authorization.k8s.io", "clusterrolebindings", false)
        }
        "sc" | "storageclass" | "storageclasses" => ("storage.k8s.io", "storageclasses", false),
        "crd" | "crds" | "customresourcedefinition" | "customresourcedefinitions" => {
            ("apiextensions.k8s.io", "customresourcedefinitions", false)
        }
        "lease" | "leases" => ("coordination.k8s.io", "leases", true),
        _ => return None,
    })
}

/// A kind as written (`deploy`, `deployments.apps`, `deployment.v1.apps`, `widgets.example.io`)
/// as (group, resource, namespaced); `None` for a kind whose scope tsgnav does not know.
fn resource_of(kind: &str) -> (Option<String>, String, Option<bool>) {
    if unresolved(kind) {
        return (None, "*".into(), None);
    }
    let kind = kind.to_ascii_lowercase();
    let (base, group) = match kind.split_once('.') {
        Some((b, g)) => {
            // `deployment.v1.apps`: the version comes first.
            let g = match g.split_once('.') {
                Some((v, rest)) if v.starts_with('v') && v[1..].starts_with(char::is_numeric) => {
                    rest
                }
                _ => g,
            };
            (b.to_string(), Some(g.to_string()))
        }
        None => (kind.clone(), None),
    };
    match (known(&base), group) {
        (Some((g, r, ns)), None) => (Some(g.into()), r.into(), Some(ns)),
        (Some((g, r, ns)), Some(asked)) if asked == g => (Some(g.into()), r.into(), Some(ns)),
        (_, group) => (group, base, None),
    }
}

/// Whether a word still holds an expansion after the probe's values are put in (a loop
/// variable, a command substitution): its value is known only at run time.
fn unresolved(word: &str) -> bool {
    word.contains('$') || word.contains('`')
}

/// `$NAME` and `${NAME}` replaced by their values in `env` (the values a probe is given).
fn expand(word: &str, env: &[(String, String)]) -> String {
    let mut out = word.to_string();
    for (k, v) in env {
        out = out
            .replace(&format!("${{{k}}}"), v)
            .replace(&format!("${k}"), v);
    }
    out
}

/// Every write the kubectl/oc commands of `script` name, with `env` giving the values of the
/// variables the probe is passed.
pub fn kube_writes(script: &str, env: &[(String, String)]) -> Vec<KubeWrite> {
    let mut out = Vec::new();
    for c in shell::commands(script) {
        if !matches!(c.name(), Some("kubectl" | "oc")) {
            continue;
        }
        let args: Vec<String> = c.words[1..].iter().map(|w| expand(w, env)).collect();
        out.extend(command_writes(&args));
    }
    out
}

/// The writes of one `kubectl ARGS`.
fn command_writes(args: &[String]) -> Vec<KubeWrite> {
    // The one flag table (`tsg::invocation`) says which flags take a value.
    let a = split(args, &|f| takes_value(Tool::Kubectl, "", f));
    let mut pos: Vec<&str> = a.pos.clone();
    if pos.first() == Some(&"adm") {
        pos.remove(0);
    }
    if a.value(&["--dry-run"]).is_some_and(|v| v != "none") {
        return Vec::new();
    }
    let verb = pos.first().copied().unwrap_or("");
    let objects = |from: usize, verb: WriteVerb| objects(&a, pos.get(from..).unwrap_or(&[]), verb);
    match verb {
        "delete" => objects(1, WriteVerb::Delete),
        "patch" | "annotate" | "label" | "taint" => objects(1, WriteVerb::Patch),
        "scale" => objects(1, WriteVerb::Scale),
        "set" | "rollout" => objects(2, WriteVerb::Patch),
        "cordon" | "uncordon" => nodes(&pos[1..], false),
        "drain" => nodes(&pos[1..], true),
        "exec" => {
            let pod = pos.get(1).copied().unwrap_or("");
            match pod.split_once('/') {
                Some((kind, _)) if !matches!(kind, "pod" | "pods" | "po") => {
                    vec![write(WriteVerb::Exec, "pods", scope(&a, true), None)]
                }
                Some((_, name)) => {
                    vec![write(WriteVerb::Exec, "pods", scope(&a, true), Some(name))]
                }
                None => vec![write(WriteVerb::Exec, "pods", scope(&a, true), Some(pod))],
            }
        }
        "run" => pos
            .get(1)
            .map(|n| vec![write(WriteVerb::Create, "pods", scope(&a, true), Some(n))])
            .unwrap_or_default(),
        "create" => create(&a, &pos),
        _ => Vec::new(),
    }
}

fn write(verb: WriteVerb, pods_or_nodes: &str, scope: Scope, name: Option<&str>) -> KubeWrite {
    KubeWrite {
        verb,
        group: Some(String::new()),
        resource: pods_or_nodes.to_string(),
        scope,
        name: name.filter(|n| !unresolved(n)).map(String::from),
    }
}

fn scope(a: &Args<'_>, namespaced: impl Into<Option<bool>>) -> Scope {
    let namespaced = namespaced.into();
    if namespaced == Some(false) {
        Scope::Cluster
    } else if a.has(&[KUBE_ALL_NAMESPACES, KUBE_ALL_NAMESPACES_LONG]) {
        Scope::All
    } else {
        // `-n` on a kind tsgnav does not know says the author means a namespaced one.
        match (a.value(&[KUBE_NS, KUBE_NS_LONG]), namespaced) {
            (Some(ns), _) => Scope::Named(ns.to_string()),
            (None, Some(true)) => Scope::Default,
            (None, _) => Scope::DefaultOrCluster,
        }
    }
}

/// `cordon N…`, `drain N…` (each node patched; drain also evicts its pods, in any namespace).
fn nodes(names: &[&str], drain: bool) -> Vec<KubeWrite> {
    let mut out: Vec<KubeWrite> = names
        .iter()
        .map(|n| write(WriteVerb::Patch, "nodes", Scope::Cluster, Some(n)))
        .collect();
    if drain && !out.is_empty() {
        // kubectl deletes the pods itself where the eviction API is not served (or with
        // `--disable-eviction`); which pods are on the node is known only at run time.
        out.push(write(WriteVerb::Evict, "pods", Scope::All, None));
        out.push(write(WriteVerb::Delete, "pods", Scope::All, None));
    }
    out
}

/// `KIND NAME…`, `KIND/NAME…` or `KIND -l SEL` / `KIND --all`.
fn objects(a: &Args<'_>, words: &[&str], verb: WriteVerb) -> Vec<KubeWrite> {
    let make = |kind: &str, name: Option<&str>| {
        let (group, resource, namespaced) = resource_of(kind);
        KubeWrite {
            verb,
            group,
            resource,
            scope: scope(a, namespaced),
            name: name.filter(|n| !unresolved(n)).map(String::from),
        }
    };
    let Some(first) = words.first() else {
        return Vec::new();
    };
    if first.contains('/') {
        return words
            .iter()
            .filter_map(|w| w.split_once('/'))
            .map(|(k, n)| make(k, Some(n)))
            .collect();
    }
    let kinds: Vec<&str> = first.split(',').filter(|k| !k.is_empty()).collect();
    // A word known only at run time may itself be `KIND/NAME`.
    let any = a.has(&["-l", "--selector", "--all", "--field-selector"]) || unresolved(first);
    // `label`/`annotate` take `key=value` and `key-` words after the names.
    let names: Vec<&str> = words[1..]
        .iter()
        .copied()
        .filter(|w| !(verb == WriteVerb::Patch && (w.contains('=') || w.ends_with('-'))))
        .collect();
    let mut out = Vec::new();
    for k in kinds {
        if names.is_empty() && any {
            out.push(make(k, None));
        }
        out.extend(names.iter().map(|n| make(k, Some(n))));
    }
    out
}

/// `create KIND NAME` (`create secret TYPE NAME`).
fn create(a: &Args<'_>, pos: &[&str]) -> Vec<KubeWrite> {
    let kind = pos.get(1).copied().unwrap_or("");
    let at = if matches!(kind, "secret" | "service" | "svc") {
        3
    } else {
        2
    };
    let Some(name) = pos.get(at) else {
        return Vec::new();
    };
    let (group, resource, namespaced) = resource_of(kind);
    vec![KubeWrite {
        verb: WriteVerb::Create,
        group,
        resource,
        scope: scope(a, namespaced),
        name: Some((*name).to_string()).filter(|n| !unresolved(n)),
    }]
}
