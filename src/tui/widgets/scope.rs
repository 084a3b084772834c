//! What a write command changes, in words for the confirmation screen: its namespace and the
//! object (`deployment/x`, `pod/y`, `node/z`) read from a `kubectl`/`oc` command line. Pure;
//! no IO.

/// The namespace (`-n x`) and the object (`deployment/x`, `pod x`) a command changes.
pub fn scope(command: &str) -> (Option<String>, Option<String>) {
    let words: Vec<&str> = command
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'']))
        .collect();
    let mut ns = None;
    for (i, w) in words.iter().enumerate() {
        if *w == "-n" || *w == "--namespace" {
            ns = words.get(i + 1).map(|s| s.to_string());
        } else if let Some(n) = w.strip_prefix("--namespace=") {
            ns = Some(n.to_string());
        }
    }
    const VERBS: &[&str] = &[
        "scale", "delete", "patch", "annotate", "label", "restart", "cordon", "uncordon", "drain",
        "edit", "apply", "set", "create",
    ];
    let verb = words
        .iter()
        .position(|w| VERBS.contains(w))
        .filter(|_| words.first().is_some_and(|w| *w == "kubectl" || *w == "oc"));
    let object = verb.and_then(|i| {
        let rest: Vec<&str> = words[i + 1..]
            .iter()
            .copied()
            .take_while(|w| !w.starts_with('-') && *w != "|" && *w != "&&")
            .collect();
        match rest.as_slice() {
            [one, ..] if one.contains('/') => Some(one.to_string()),
            [kind, name, ..] => Some(format!("{kind}/{name}")),
            [node] if ["cordon", "uncordon", "drain"].contains(&words[i]) => {
                Some(format!("node/{node}"))
            }
            _ => None,
        }
    });
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
