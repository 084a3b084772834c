//! What a write command changes, in words for the confirmation screen: its namespace and the
//! object (`deployment/x`, `pod/y`, `node/z`) read from a `kubectl`/`oc` command line. Pure;
//! no IO.

use crate::tsg::invocation::{self, Invocation, Object};

/// The namespace (`-n x`) and the object (`deployment/x`, `pod y`) a command changes, read
/// through `tsg::invocation`.
pub fn scope(command: &str) -> (Option<String>, Option<String>) {
    const VERBS: &[&str] = &[
        "scale", "delete", "patch", "annotate", "label", "restart", "cordon", "uncordon", "drain",
        "edit", "apply", "set", "create",
    ];
    let kube: Vec<Invocation> = invocation::of_script(command)
        .into_iter()
        .filter(|i| i.tool.is_kube())
        .collect();
    let ns = kube.iter().rev().find_map(|i| i.namespace.clone());
    let object = kube
        .iter()
        .find(|i| VERBS.contains(&i.action()))
        .and_then(|i| i.objects.first())
        .filter(|o| o.resource.is_some() && o.name.is_some())
        .map(Object::label);
    (ns, object)
}

#[cfg(test)]
mod tests {
    use super::scope;

    #[test]
    fn reads_the_namespace_and_the_object() {
        assert_eq!(
            scope("kubectl scale deployment maestro-agent -n maestro --replicas=0"),
            (
                Some("maestro".into()),
                Some("deployment/maestro-agent".into())
            )
        );
        assert_eq!(
            scope("kubectl delete pod/router-1 --namespace=ocm-x --force"),
            (Some("ocm-x".into()), Some("pod/router-1".into()))
        );
        assert_eq!(
            scope("oc adm drain aks-1"),
            (None, Some("node/aks-1".into()))
        );
        assert_eq!(scope("curl -X POST https://x"), (None, None));
    }
}
