//! PURE parser of `kubectl port-forward [-n NS] [--context C] (pod/NAME|svc/NAME|
//! deployment/NAME|NAME) LOCAL:REMOTE… [--address 127.0.0.1]`: one command, nothing around
//! it; other flags and forms are [`Reject::NotNative`] so the runner leaves them to kubectl.
//! Variables are expanded word by word (`kube::expand`).
//!
//! No IO; imports only `crate::tsg::shell` and the pure `kube::{expand, parse}`.

use std::collections::BTreeMap;

use super::super::expand::expand_all;
use super::super::parse::Reject;
use crate::tsg::invocation::{self, Role};
use crate::tsg::shell;

/// What is forwarded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pod,
    Service,
    Deployment,
}

/// A parsed `kubectl port-forward`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortForward {
    pub kind: Kind,
    pub name: String,
    pub namespace: Option<String>,
    pub context: Option<String>,
    /// `(local, remote)`; local 0 picks a free port (`:8000`).
    pub ports: Vec<(u16, u16)>,
}

/// `None` unless `code` is exactly one `kubectl port-forward` command; then the parsed form,
/// [`Reject::NotNative`] for a flag or form handled only by kubectl, or the missing variable.
pub fn parse_probe(
    code: &str,
    bindings: &BTreeMap<String, String>,
) -> Option<Result<PortForward, Reject>> {
    let parsed = shell::parse(code);
    let [c] = parsed.commands.as_slice() else {
        return None;
    };
    let plain = c.nested_in.is_none() && c.redirects.is_empty() && c.assigns.is_empty() && !c.piped;
    if !parsed.problems.is_empty()
        || !plain
        || c.name() != Some("kubectl")
        || !c.words.iter().any(|w| w == "port-forward")
    {
        return None;
    }
    let mut missing = Vec::new();
    let words = match expand_all(&c.words, bindings, &mut missing) {
        Ok(w) => w,
        Err(e) => return Some(Err(e)),
    };
    let pf = parse_words(&words).map_err(Reject::NotNative);
    Some(match (pf, missing.into_iter().next()) {
        (Err(e), _) => Err(e),
        (Ok(_), Some(name)) => Err(Reject::MissingVar(name)),
        (Ok(pf), None) => Ok(pf),
    })
}

fn port(p: &str) -> Result<u16, String> {
    p.parse::<u16>().map_err(|_| {
        format!("port {p:?} is not a number from 0 to 65535 (named ports run in kubectl)")
    })
}

/// Parses the words of `kubectl … port-forward TARGET PORTS…`.
pub fn parse_words(words: &[String]) -> Result<PortForward, String> {
    let inv = invocation::of_words(words).ok_or("not a kubectl command")?;
    if inv.tail.is_some() {
        return Err("flag -- is not handled natively".into());
    }
    for f in &inv.flags {
        let value = || f.value.clone().ok_or(format!("{} needs a value", f.name));
        match f.role {
            Some(Role::Namespace | Role::Context | Role::PodRunningTimeout) => drop(value()?),
            Some(Role::Address) => match value()?.as_str() {
                "127.0.0.1" | "localhost" => {}
                a => {
                    return Err(format!(
                        "--address {a}: only 127.0.0.1 (localhost) is forwarded natively"
                    ))
                }
            },
            _ => return Err(format!("flag {} is not handled natively", f.name)),
        }
    }
    let (namespace, context, pos) = (inv.namespace, inv.context, inv.positionals);
    if pos.first().map(String::as_str) != Some("port-forward") {
        return Err("not a kubectl port-forward".into());
    }
    let target = pos
        .get(1)
        .ok_or("port-forward needs a pod, svc/NAME or deployment/NAME")?;
    let (kind, name) = match target.split_once('/') {
        None => (Kind::Pod, target.as_str()),
        Some((t, n)) => match t.to_lowercase().as_str() {
            "pod" | "pods" | "po" => (Kind::Pod, n),
            "svc" | "service" | "services" => (Kind::Service, n),
            "deploy" | "deployment" | "deployments" | "deployment.apps" => (Kind::Deployment, n),
            other => return Err(format!("port-forward to {other}/… is not handled natively")),
        },
    };
    let ports = pos[2..]
        .iter()
        .map(|p| match p.split_once(':') {
            Some((l, r)) => Ok((if l.is_empty() { 0 } else { port(l)? }, port(r)?)),
            None => port(p).map(|n| (n, n)),
        })
        .collect::<Result<Vec<_>, String>>()?;
    if name.is_empty() || ports.is_empty() || ports.iter().any(|(_, r)| *r == 0) {
        return Err("port-forward needs a target and at least one LOCAL:REMOTE port".into());
    }
    Ok(PortForward {
        kind,
        name: name.to_string(),
        namespace,
        context,
        ports,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(code: &str) -> Option<Result<PortForward, Reject>> {
        parse_probe(code, &BTreeMap::new())
    }

    #[test]
    fn forms() {
        let svc = pf("kubectl port-forward -n maestro svc/maestro 8002:8000");
        assert_eq!(
            svc,
            Some(Ok(PortForward {
                kind: Kind::Service,
                name: "maestro".into(),
                namespace: Some("maestro".into()),
                context: None,
                ports: vec![(8002, 8000)],
            }))
        );
        let p = pf("kubectl --context=mc-1 port-forward maestro-0 :8000 9000 --address localhost")
            .unwrap()
            .unwrap();
        assert_eq!((p.kind, p.context.as_deref()), (Kind::Pod, Some("mc-1")));
        assert_eq!(p.ports, [(0, 8000), (9000, 9000)]);
        let d = pf("kubectl port-forward -nmaestro deployment.apps/maestro 8000").unwrap();
        assert_eq!(
            d.map(|d| (d.kind, d.namespace)),
            Ok((Kind::Deployment, Some("maestro".into())))
        );
    }

    #[test]
    fn other_forms_are_left_to_kubectl() {
        for code in [
            "kubectl port-forward svc/x 8000:8000 & ./probe.sh",
            "kubectl get pods",
            "x=1 kubectl port-forward svc/x 80",
        ] {
            assert_eq!(pf(code), None, "{code}");
        }
        for code in [
            "kubectl port-forward --address 0.0.0.0 svc/x 8000",
            "kubectl port-forward statefulset/x 8000",
            "kubectl port-forward svc/x http",
            "kubectl port-forward svc/x",
            "kubectl port-forward svc/x 8000 --kubeconfig other",
        ] {
            assert!(
                matches!(pf(code), Some(Err(Reject::NotNative(_)))),
                "{code}"
            );
        }
        let missing = pf("kubectl port-forward -n \"${NS}\" svc/maestro 8002:8000");
        assert_eq!(missing, Some(Err(Reject::MissingVar("NS".into()))));
        let b = BTreeMap::from([("NS".to_string(), "maestro; rm -rf /".to_string())]);
        let inert = parse_probe("kubectl port-forward -n \"${NS}\" svc/m 80", &b);
        assert_eq!(
            inert.unwrap().unwrap().namespace.as_deref(),
            Some("maestro; rm -rf /")
        );
    }
}
