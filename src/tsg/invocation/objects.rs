//! The verb path and the objects of an [`Invocation`]: `deployment/x`, `deploy x y`,
//! `get pods,svc`, node names of `cordon`/`drain`, the pod of `exec`/`logs`, and `-f` files
//! as objects tsgnav cannot see into.
//!
//! Pure; imports only its parent.

use super::{Invocation, Object, Role, Tool};

/// How many leading positionals are the verb path.
pub(super) fn verb_depth(tool: Tool, pos: &[String]) -> usize {
    let first = pos.first().map(String::as_str).unwrap_or("");
    let depth = match tool {
        Tool::Kubectl | Tool::Oc => match first {
            "rollout" | "auth" | "config" | "adm" | "certificate" | "cluster-info" | "set"
            | "create" => 2,
            _ => 1,
        },
        Tool::Helm => match first {
            "repo" | "plugin" | "dependency" | "dep" | "get" | "show" | "registry" => 2,
            _ => 1,
        },
        // az has command groups and no positional arguments: every positional is the path.
        Tool::Az => pos.len(),
        Tool::Curl => 0,
    };
    depth.min(pos.len())
}

/// Verbs whose operands are node names.
fn node_verb(verb: &str) -> bool {
    matches!(verb, "cordon" | "uncordon" | "drain" | "taint")
}

/// Verbs whose first operand is the one object and the rest are not objects.
fn one_object_verb(verb: &str) -> bool {
    matches!(
        verb,
        "exec" | "logs" | "log" | "attach" | "port-forward" | "rsh" | "debug" | "cp"
    )
}

/// Verbs that name no objects of their own.
fn no_object_verb(verb: &str) -> bool {
    matches!(
        verb,
        "" | "config"
            | "auth"
            | "version"
            | "api-resources"
            | "api-versions"
            | "cluster-info"
            | "explain"
            | "completion"
            | "whoami"
            | "project"
            | "login"
            | "kustomize"
            | "run"
    )
}

pub(super) fn objects(inv: &Invocation, depth: usize) -> Vec<Object> {
    let mut out = Vec::new();
    for f in inv.flags.iter().filter(|f| f.role == Some(Role::Filename)) {
        out.push(Object {
            file: f.value.clone(),
            namespace: inv.namespace.clone(),
            ..Object::default()
        });
    }
    if !inv.tool.is_kube() || no_object_verb(inv.verb()) {
        return out;
    }
    let verb = inv.action();
    // `rollout restart deployment/x`, `set image deployment/x c=i`: operands after the path.
    let ops: Vec<&str> = inv
        .positionals
        .iter()
        .skip(depth)
        .map(String::as_str)
        .collect();
    let ns = inv.namespace.clone();
    let obj = |r: &str, n: Option<&str>| Object {
        resource: Some(r.to_string()),
        name: n.map(String::from),
        namespace: ns.clone(),
        file: None,
    };
    if node_verb(verb) {
        out.extend(ops.iter().take_while(|w| !w.contains(['=', ':'])).map(|n| {
            let n = n
                .strip_prefix("node/")
                .or(n.strip_prefix("nodes/"))
                .unwrap_or(n);
            obj("node", Some(n))
        }));
        return out;
    }
    let ops: Vec<&str> = if one_object_verb(verb) {
        ops.into_iter().take(1).collect()
    } else {
        ops.into_iter()
            .filter(|w| !w.contains('=') && !w.ends_with('-'))
            .collect()
    };
    let Some(first) = ops.first() else {
        return out;
    };
    // `create deployment NAME …`: the kind is the second word of the verb path.
    if let ("create", Some(kind)) = (verb, inv.verbs.get(1)) {
        out.push(obj(kind, Some(first)));
        return out;
    }
    if one_object_verb(verb) && !first.contains('/') {
        out.push(obj("pod", Some(first)));
        return out;
    }
    if first.contains('/') {
        for w in ops.iter().filter(|w| w.contains('/')) {
            if let Some((r, n)) = w.split_once('/') {
                out.push(obj(r, Some(n)));
            }
        }
        return out;
    }
    for r in first.split(',').filter(|r| !r.is_empty()) {
        if ops.len() == 1 {
            out.push(obj(r, None));
        }
        out.extend(ops[1..].iter().map(|n| obj(r, Some(n))));
    }
    out
}
