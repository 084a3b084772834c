//! Native `kubectl exec [-n NS] [-c C] [--context X] POD -- CMD…` through kube-rs's exec API
//! (WebSocket), so a command a guide types inside a pod runs there without kubectl: stdout and
//! stderr are shown, the exit status comes from the API's status channel. Interactive forms
//! (`-i`, `-t`) and other flags are [`Reject::NotNative`]. The inner command was classified
//! before this runs (the runner's gate sees the whole `kubectl exec … -- …`).
//!
//! Part of `query`'s kube backend; never imports `cli`, `tui`, `nav` or `sim`.

use std::collections::BTreeMap;

use chrono::Utc;
use k8s_openapi::api::core::v1::Pod;
use kube::api::AttachParams;
use tokio::io::AsyncReadExt;

use super::client::KubeClient;
use super::expand::expand_all;
use super::kubeconfigs::shared as read_kubeconfig;
use super::parse::Reject;
use super::run::DEFAULT_TIMEOUT;
use super::KubeExecutor;
use crate::query::{
    interruptible, Backend, Cancel, OutputSink, ProbeError, ProbeRequest, ProbeResult, Status,
};
use crate::tsg::invocation::{self, Role};
use crate::tsg::shell;

/// A parsed `kubectl exec`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exec {
    pub pod: String,
    pub namespace: Option<String>,
    pub container: Option<String>,
    pub context: Option<String>,
    pub command: Vec<String>,
}

/// `None` unless `code` is one `kubectl exec … -- …` (plus the commands the parser found
/// inside it); then the parsed form, [`Reject::NotNative`], or the missing variable.
pub fn parse_probe(
    code: &str,
    bindings: &BTreeMap<String, String>,
) -> Option<Result<Exec, Reject>> {
    let parsed = shell::parse(code);
    let mut outer = parsed.commands.iter().filter(|c| c.nested_in.is_none());
    let c = outer.next()?;
    let plain = c.redirects.is_empty() && c.assigns.is_empty() && !c.piped;
    let exec_at = c.words.iter().position(|w| w == "exec")?;
    if outer.next().is_some()
        || !parsed.problems.is_empty()
        || !plain
        || !matches!(c.name(), Some("kubectl" | "oc"))
        || !c.words[exec_at..].iter().any(|w| w == "--")
    {
        return None;
    }
    let mut missing = Vec::new();
    let words = match expand_all(&c.words, bindings, &mut missing) {
        Ok(w) => w,
        Err(e) => return Some(Err(e)),
    };
    Some(match (parse_words(&words), missing.into_iter().next()) {
        (Err(e), _) => Err(Reject::NotNative(e)),
        (Ok(_), Some(name)) => Err(Reject::MissingVar(name)),
        (Ok(x), None) => Ok(x),
    })
}

/// Parses the words of `kubectl [--context X] exec FLAGS POD -- CMD…`.
pub fn parse_words(words: &[String]) -> Result<Exec, String> {
    let inv = invocation::of_words(words).ok_or("not a kubectl command")?;
    let command = inv.tail.clone().ok_or("no `--` before the command")?;
    if command.is_empty() {
        return Err("no command after `--`".into());
    }
    for f in &inv.flags {
        match f.role {
            Some(Role::Namespace | Role::Container | Role::Context) if f.value.is_some() => {}
            Some(Role::Namespace | Role::Container | Role::Context) => {
                return Err(format!("{} needs a value", f.name))
            }
            Some(Role::Stdin | Role::Tty) => {
                return Err(format!("{} asks for an interactive session", f.name))
            }
            _ => return Err(format!("flag {} is not handled natively", f.name)),
        }
    }
    let (ns, ct, ctx) = (
        inv.namespace.clone(),
        inv.value(Role::Container).map(String::from),
        inv.context.clone(),
    );
    let pos = &inv.positionals;
    let [verb, target] = pos.as_slice() else {
        return Err("kubectl exec needs exactly one pod".into());
    };
    if verb != "exec" {
        return Err("not a kubectl exec".into());
    }
    let pod = match target.split_once('/') {
        None => target.clone(),
        Some(("pod" | "pods" | "po", n)) => n.to_string(),
        Some((t, _)) => return Err(format!("exec into {t}/… is left to kubectl")),
    };
    Ok(Exec {
        pod,
        namespace: ns,
        container: ct,
        context: ctx,
        command,
    })
}

/// Runs `x` and returns (stdout+stderr, exit code).
async fn run(client: kube::Client, ns: &str, x: &Exec) -> Result<(String, i32), ProbeError> {
    let api: kube::Api<Pod> = kube::Api::namespaced(client, ns);
    let mut ap = AttachParams::default()
        .stdin(false)
        .stdout(true)
        .stderr(true);
    if let Some(c) = &x.container {
        ap = ap.container(c.clone());
    }
    let fail = |e: String| ProbeError::Config {
        detail: format!("exec in pod {} (namespace {ns}): {e}", x.pod),
    };
    let mut proc = api
        .exec(&x.pod, x.command.clone(), &ap)
        .await
        .map_err(|e| fail(e.to_string()))?;
    let (mut so, mut se) = (proc.stdout(), proc.stderr());
    let status = proc.take_status();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let read_out = async {
        if let Some(s) = so.as_mut() {
            let _ = s.read_to_end(&mut out).await;
        }
    };
    let read_err = async {
        if let Some(s) = se.as_mut() {
            let _ = s.read_to_end(&mut err).await;
        }
    };
    tokio::join!(read_out, read_err);
    let st = match status {
        Some(f) => f.await,
        None => None,
    };
    let _ = proc.join().await;
    let code = match st {
        Some(s) if s.status.as_deref() == Some("Success") => 0,
        Some(s) => s
            .details
            .and_then(|d| d.causes)
            .into_iter()
            .flatten()
            .find(|c| c.reason.as_deref() == Some("ExitCode"))
            .and_then(|c| c.message.and_then(|m| m.parse().ok()))
            .ok_or_else(|| fail(s.message.unwrap_or_else(|| "failed".into())))?,
        None => 0,
    };
    let mut text = String::from_utf8_lossy(&out).into_owned();
    text.push_str(&String::from_utf8_lossy(&err));
    if code != 0 {
        text.push_str(&format!("command terminated with exit code {code}\n"));
    }
    Ok((text, code))
}

/// Runs an exec probe for the kube executor.
pub(super) async fn execute(
    exec: &KubeExecutor,
    req: ProbeRequest,
    x: Result<Exec, Reject>,
    mut out: OutputSink,
    cancel: Cancel,
) -> ProbeResult {
    let target = req.target.shown();
    let mut result = ProbeResult::new(
        req.id.clone(),
        Backend::Kube,
        target,
        req.code.clone(),
        Utc::now(),
    );
    let work = async {
        let x = match x {
            Ok(x) => x,
            Err(Reject::MissingVar(name)) => return Err(ProbeError::MissingVar { name }),
            Err(Reject::NotNative(why)) => {
                return Err(ProbeError::Unsupported {
                    detail: format!("not a native kubectl exec ({why}); run it in the shell"),
                })
            }
        };
        let kubeconfig = exec.kubeconfig_for(&req)?;
        let kc = read_kubeconfig(&kubeconfig).map_err(|e| e.to_probe_error())?;
        let context = x.context.as_deref().or(req.target.kube_context.as_deref());
        let client = KubeClient::new(&kc, &kubeconfig, context, DEFAULT_TIMEOUT)
            .await
            .map_err(|e| e.to_probe_error())?;
        let ns = (x.namespace.clone())
            .or(req.target.namespace.clone())
            .unwrap_or_else(|| client.default_ns.clone());
        let on = context.map_or(String::new(), |c| format!(", context {c}"));
        let ran = format!(
            "native Kubernetes exec API (pod {} in {ns}{on}): {}",
            x.pod,
            x.command
                .iter()
                .map(|w| if w.contains(char::is_whitespace) {
                    format!("'{}'", w.replace('\'', r"'\''"))
                } else {
                    w.clone()
                })
                .collect::<Vec<_>>()
                .join(" ")
        );
        run(client.kube().clone(), &ns, &x).await.map(|r| (r, ran))
    };
    result.status = match interruptible(work, req.timeout, &cancel).await {
        Ok(Ok(((text, code), ran))) => {
            result.ran = Some(ran);
            out.write_str(&text);
            if code == 0 {
                Status::Ok { exit: 0 }
            } else {
                Status::Failed(ProbeError::Exit { code })
            }
        }
        Ok(Err(e)) | Err(e) => {
            out.write_str(&format!("error: {e}\n"));
            Status::Failed(e)
        }
    };
    result.output = out.finish();
    result.ended = Utc::now();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_forms() {
        let b = BTreeMap::from([("POD".to_string(), "etcd-0".to_string())]);
        let x = parse_probe(
            "kubectl exec -n openshift-etcd -c etcd $POD -- sh -c 'etcdctl endpoint health'",
            &b,
        )
        .expect("an exec")
        .expect("native");
        assert_eq!(
            (
                x.pod.as_str(),
                x.namespace.as_deref(),
                x.container.as_deref()
            ),
            ("etcd-0", Some("openshift-etcd"), Some("etcd"))
        );
        assert_eq!(x.command, ["sh", "-c", "etcdctl endpoint health"]);
        assert!(matches!(
            parse_probe("kubectl exec -it p -- sh", &b),
            Some(Err(Reject::NotNative(_)))
        ));
        assert!(parse_probe("kubectl get pods", &b).is_none());
        assert!(parse_probe("kubectl exec p -- ls | grep x", &b).is_none());
        assert!(matches!(
            parse_probe("kubectl exec $NOPE -- ls", &b),
            Some(Err(Reject::MissingVar(_)))
        ));
    }
}
