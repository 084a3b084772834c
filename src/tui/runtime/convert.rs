//! Conversions where the layers meet: a query result, a confirmation and a captured prior
//! state into the evidence records the journal stores. `query` and `evidence` never use each
//! other, so these live in the runtime (the CLI uses them too). Pure; must not import `cli`.

use crate::evidence;
use crate::mitigate::Captured;
use crate::query::{
    preview_command, runner::effective_class, target_name, ProbeError, ProbeRequest, ProbeResult,
    Status,
};

/// The evidence record of a run, without its output (the session stores that, redacted).
pub fn probe_run(r: &ProbeResult) -> evidence::ProbeRun {
    let (exit, error) = match &r.status {
        Status::Ok { exit } => (Some(*exit), None),
        Status::Failed(e @ ProbeError::Exit { code }) => (Some(*code), Some(e.to_string())),
        Status::Failed(e) => (None, Some(e.to_string())),
    };
    evidence::ProbeRun {
        probe: r.id.to_string(),
        command: r.command_as_run.clone(),
        ran: r.ran.clone(),
        backend: r.backend.to_string(),
        target: r.target.clone(),
        started: r.started.to_rfc3339(),
        ended: r.ended.to_rfc3339(),
        exit,
        error,
        sandbox: r.sandbox.clone(),
        api: r.api.clone(),
        outcome: Some(r.outcome()),
        dry_run: r.id.to_string().ends_with("/dry-run"),
        ..Default::default()
    }
}

/// The evidence record of a confirmation: the command as previewed (after substitution),
/// the target typed back, the class and the preconditions acknowledged.
pub fn confirmation(req: &ProbeRequest, preconditions: &[String]) -> evidence::Confirmation {
    evidence::Confirmation {
        probe: Some(req.id.to_string()),
        command: preview_command(req),
        target: target_name(&req.target).unwrap_or_default().to_string(),
        safety: effective_class(req).0.as_str().to_string(),
        preconditions: preconditions.to_vec(),
    }
}

/// The evidence record of a prior state captured before a mutation.
pub fn prior_state(c: Captured) -> evidence::PriorState {
    evidence::PriorState {
        probe: Some(c.probe),
        resource: c.resource,
        field: c.field,
        value: c.value,
        command: c.command,
    }
}
