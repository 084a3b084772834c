//! Interactive probes (`kubectl exec -ti`, `kubectl edit`): run with the operator's terminal
//! attached, after the TUI has handed it over. The same gate as every run, where the process
//! starts: an interactive, mutating or unknown probe runs only with a confirmation sealed for
//! its exact inputs. Values reach the shell as environment variables, as in the shell backend.
//!
//! IO edge (a foreground process). Must not import `cli`, `tui` or `nav`.

use std::process::Command;

use chrono::Utc;

use super::gate::{confirmed, effective_class};
use super::shell::{prelude, shown};
use super::{vars, Backend, ProbeError, ProbeRequest, ProbeResult, Status};
use crate::tsg::SafetyClass;

/// Runs `req` in the foreground with this process's terminal; blocks until it exits.
pub fn run_attached(req: &ProbeRequest, shell: &str) -> ProbeResult {
    let started = Utc::now();
    let target = req.target.shown();
    let (class, why) = effective_class(req);
    let needs = class.needs_confirmation() || class == SafetyClass::Interactive;
    if needs && !confirmed(req) {
        let e = ProbeError::Refused {
            class,
            reason: if why.is_empty() {
                "it needs confirmation".into()
            } else {
                why
            },
            what: "confirm it in the mitigation flow for these exact inputs".into(),
        };
        return ProbeResult::failed(req.id.clone(), Backend::Shell, target, req.code.clone(), e);
    }
    let sub = match vars::substitute(req.lang, &req.code, &req.bindings) {
        Ok(s) => s,
        Err(e) => {
            return ProbeResult::failed(req.id.clone(), Backend::Shell, target, req.code.clone(), e)
        }
    };
    let mut result = ProbeResult::new(
        req.id.clone(),
        Backend::Shell,
        target,
        shown(&sub, req),
        started,
    );
    let script = format!(
        "{}\n{}",
        prelude(&[], req.target.kube_context.is_some()),
        sub.text
    );
    let mut cmd = Command::new(shell);
    cmd.args(["-o", "pipefail", "-c", &script, "tsgnav-probe"])
        .envs(sub.env.iter().map(|(k, v)| (k, v)));
    if let Some(c) = &req.target.kube_context {
        cmd.env("TSGNAV_KUBE_CONTEXT", c);
    }
    if let Some(k) = &req.target.kubeconfig {
        cmd.env("KUBECONFIG", k);
    }
    result.status = match cmd.status() {
        Ok(s) => Status::Ok {
            exit: s.code().unwrap_or(-1),
        },
        Err(e) => Status::Failed(ProbeError::Spawn {
            program: shell.to_string(),
            detail: e.to_string(),
        }),
    };
    result.ended = Utc::now();
    result
}
