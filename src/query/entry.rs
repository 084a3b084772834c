//! Probes that run inside another shell (`runs_in`): a pod command is run through the
//! Kubernetes exec API of its pod (`kubectl exec POD -- sh -c '…'`, classified by the inner
//! command); a node or host command is never run on the operator's machine: a node command
//! goes through the way `[runbooks] node_shell` names (`oc debug node/N -- chroot /host …`,
//! a write because it creates a pod) or is refused with how to enable that. Pure request
//! building; imports `tsg` only.

use super::ProbeError;
use crate::tsg::invocation::{self, table, Role};
use crate::tsg::{shell, Probe, RunsIn, SafetyClass, ShellKind};

/// Quotes `s` as one single-quoted shell word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The namespace, container and context flags of an entering `oc rsh` / `kubectl exec`
/// command, read through `tsg::invocation`.
fn pod_flags(via: &str) -> Vec<String> {
    let entry = shell::commands(via)
        .iter()
        .filter_map(invocation::of_command)
        .find(|i| i.tool.is_kube());
    let Some(inv) = entry else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (flag, value) in [
        (table::KUBE_NS, &inv.namespace),
        (
            table::KUBE_CONTAINER,
            &inv.value(Role::Container).map(String::from),
        ),
        (table::KUBE_CONTEXT, &inv.context),
    ] {
        if let Some(v) = value {
            out.extend([flag.to_string(), v.clone()]);
        }
    }
    out
}

/// The config key that turns node commands on.
pub const NODE_SHELL_KEY: &str = "[runbooks] node_shell";

/// How a command a guide types on a node reaches it (`[runbooks] node_shell`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeShell {
    /// `oc debug node/N -- chroot /host sh -c '…'`.
    OcDebug,
    /// `kubectl debug node/N --image=IMAGE --profile=sysadmin --attach --quiet -- chroot /host sh -c '…'`.
    KubectlDebug { image: String },
}

/// The image `kubectl debug` runs when the config names none.
pub const DEFAULT_DEBUG_IMAGE: &str = "registry.access.redhat.com/ubi9/ubi-minimal";

impl NodeShell {
    /// Reads `node_shell = "oc debug" | "kubectl debug"` (and `node_shell_image`).
    pub fn parse(value: &str, image: Option<&str>) -> Result<Self, String> {
        match value.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["oc", "debug"] => Ok(NodeShell::OcDebug),
            ["kubectl", "debug"] => Ok(NodeShell::KubectlDebug {
                image: image.unwrap_or(DEFAULT_DEBUG_IMAGE).to_string(),
            }),
            _ => Err(format!(
                "{NODE_SHELL_KEY} = {value:?} is not a way into a node: write \"oc debug\" or \"kubectl debug\""
            )),
        }
    }

    /// The command that runs `code` on `node` through a debug pod.
    pub fn command(&self, node: &str, code: &str) -> String {
        let inner = format!("chroot /host sh -c {}", quote(code.trim()));
        match self {
            NodeShell::OcDebug => format!("oc debug node/{node} -- {inner}"),
            NodeShell::KubectlDebug { image } => format!(
                "kubectl debug node/{node} --image={} --profile=sysadmin --attach --quiet -- {inner}",
                quote(image)
            ),
        }
    }
}

/// The code to run for `probe`: itself when it runs locally, the exec call of its pod when
/// it runs in one, or a refusal for a node or host shell.
pub fn local_code(probe: &Probe, bindings: &super::Bindings) -> Result<String, ProbeError> {
    local_code_with(probe, bindings, None)
}

/// [`local_code`], with node commands run through `node_shell` when the config names one.
pub fn local_code_with(
    probe: &Probe,
    bindings: &super::Bindings,
    node_shell: Option<&NodeShell>,
) -> Result<String, ProbeError> {
    let Some(r) = probe.runs_in.as_ref() else {
        return Ok(probe.code.clone());
    };
    // Name the pod or node by its value when the operator gave one.
    let mut r = r.clone();
    for (k, v) in bindings {
        for form in [format!("${{{k}}}"), format!("${k}"), format!("<{k}>")] {
            r.target = r.target.replace(&form, v);
            r.via = r.via.replace(&form, v);
        }
    }
    let r = &r;
    if r.console.is_some() {
        // Console input (SQL, redis, Ruby) is not a shell script: never run through `sh -c`.
        return Err(refusal(r));
    }
    match r.kind {
        ShellKind::Pod => Ok(pod_exec(r, &probe.code)),
        ShellKind::Node => match node_shell {
            Some(ns) if !r.target.contains(['$', '<', ' ']) && !r.target.is_empty() => {
                Ok(ns.command(&r.target, &probe.code))
            }
            Some(_) => Err(ProbeError::MissingVar {
                name: super::vars::canonical(r.target.trim_matches(['$', '{', '}', '<', '>'])),
            }),
            None => Err(refusal(r)),
        },
        ShellKind::Host => Err(refusal(r)),
    }
}

/// `kubectl exec [-n NS] [-c C] POD -- sh -c '<code>'`.
pub fn pod_exec(r: &RunsIn, code: &str) -> String {
    let mut parts = vec!["kubectl".to_string(), "exec".to_string()];
    parts.extend(pod_flags(&r.via));
    parts.push(r.target.clone());
    parts.extend(["--".into(), "sh".into(), "-c".into(), quote(code.trim())]);
    parts.join(" ")
}

fn refusal(r: &RunsIn) -> ProbeError {
    let (place, class) = match (r.console, r.kind) {
        (Some(c), _) => (
            format!("in a {} console on {}", c.as_str(), r.target),
            SafetyClass::Interactive,
        ),
        (None, ShellKind::Node) => (format!("on node {}", r.target), SafetyClass::Interactive),
        _ => (format!("on host {}", r.target), SafetyClass::Interactive),
    };
    ProbeError::Refused {
        class,
        reason: format!(
            "the guide types it {place}, in the shell entered by `{}`, and tsgnav never runs such a command on your machine",
            r.via
        ),
        what: match r.kind {
            ShellKind::Node => format!(
                "open that shell yourself (`{}`) and type it there, or set {NODE_SHELL_KEY} = \"oc debug\" (or \"kubectl debug\") in the config file so tsgnav runs it through a debug pod, which needs --write",
                r.via
            ),
            _ => format!(
                "open that shell yourself (`{}`) and type it there; tsgnav has no way into host shells, so it never runs them",
                r.via
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsg::Lang;

    #[test]
    fn pod_commands_go_through_exec_and_node_commands_are_refused() {
        let mut p = Probe::from_code(Lang::Shell, "etcdctl member list -w table");
        p.runs_in = Some(RunsIn {
            kind: ShellKind::Pod,
            via: "oc rsh -n openshift-etcd etcd-0".into(),
            target: "etcd-0".into(),
            console: None,
        });
        assert_eq!(
            local_code(&p, &Default::default()).expect("pod"),
            "kubectl exec -n openshift-etcd etcd-0 -- sh -c 'etcdctl member list -w table'"
        );
        p.runs_in = Some(RunsIn {
            kind: ShellKind::Node,
            via: "oc debug node/w-1".into(),
            target: "w-1".into(),
            console: None,
        });
        let e = local_code(&p, &Default::default())
            .expect_err("node")
            .to_string();
        assert!(
            e.contains("on node w-1") && e.contains("`oc debug node/w-1`"),
            "{e}"
        );
        assert!(e.contains("[runbooks] node_shell"), "{e}");
        let oc = NodeShell::parse("oc  debug", None).expect("oc debug");
        assert_eq!(
            local_code_with(&p, &Default::default(), Some(&oc)).expect("through oc debug"),
            "oc debug node/w-1 -- chroot /host sh -c 'etcdctl member list -w table'"
        );
        let k = NodeShell::parse("kubectl debug", Some("busybox:1.36")).expect("kubectl debug");
        assert_eq!(
            k.command("w-1", "uptime"),
            "kubectl debug node/w-1 --image='busybox:1.36' --profile=sysadmin --attach --quiet -- chroot /host sh -c 'uptime'"
        );
        p.runs_in = Some(RunsIn {
            kind: ShellKind::Node,
            via: "oc debug node/<node-name>".into(),
            target: "<node-name>".into(),
            console: None,
        });
        assert_eq!(
            local_code_with(&p, &Default::default(), Some(&oc)),
            Err(ProbeError::MissingVar {
                name: "NODE_NAME".into()
            })
        );
        assert!(NodeShell::parse("ssh", None)
            .unwrap_err()
            .contains("[runbooks] node_shell = \"ssh\""));
    }
}
