//! Write mode of `tsgnav run`: `--write --confirm-target CONTEXT` acknowledges the node's
//! preconditions by the flags and asks `mitigate` for a confirmation bound to each mutating
//! probe's exact inputs (issued only when CONTEXT is the probe's real target); before a known
//! mutation it runs the read-only capture `mitigate::prior` plans, through the same runner,
//! and returns the `prior_state` records. Part of the CLI edge.

use std::path::Path;

use crate::evidence::{self, PriorState, Record};
use crate::mitigate::{self, Mutation};
use crate::query::runner::{effective_class, Runner};
use crate::query::{target_name, Cancel, ProbeError, ProbeId, ProbeRequest, ProbeResult};
use crate::tsg::SafetyClass;

/// What the operator allowed on the command line.
pub struct WriteMode {
    pub enabled: bool,
    pub confirm_target: Option<String>,
    /// Confirmations are bound to this run.
    pub session: String,
}

impl WriteMode {
    /// For a probe that needs confirmation: sets `req.confirmation` and returns the evidence
    /// record, or says exactly which flags to add. `Ok(None)` when no confirmation is needed.
    pub fn confirm(
        &self,
        req: &mut ProbeRequest,
        node: &str,
        preconditions: &[String],
    ) -> Result<Option<evidence::Confirmation>, ProbeError> {
        let (class, why) = effective_class(req);
        if !class.needs_confirmation() {
            return Ok(None);
        }
        let reason = if why.is_empty() {
            "it changes the system".to_string()
        } else {
            why
        };
        let refuse = |what: String| ProbeError::Refused {
            class,
            reason: reason.clone(),
            what,
        };
        let Some(real) = target_name(&req.target).map(str::to_string) else {
            return Err(refuse(format!(
                "it names no kube context to confirm against: add `--context NAME --write \
                 --confirm-target NAME` to `tsgnav run {node}` (the mitigation flow)"
            )));
        };
        let add = match (self.enabled, &self.confirm_target) {
            (true, Some(_)) => None,
            (false, None) => Some(format!("--write --confirm-target {real}")),
            (true, None) => Some(format!("--confirm-target {real}")),
            (false, Some(_)) => Some("--write".to_string()),
        };
        if let Some(add) = add {
            return Err(refuse(format!(
                "to run it, add `{add}` to `tsgnav run {node}` ({real} is its target; the \
                 mitigation flow)"
            )));
        }
        let typed = self.confirm_target.as_deref().unwrap_or_default();
        let acks = vec![true; preconditions.len()];
        match mitigate::issue(req, preconditions, &acks, typed, &self.session) {
            Ok(c) => {
                req.confirmation = Some(c);
                Ok(Some(mitigate::confirm::record(req, preconditions)))
            }
            Err(e) => Err(refuse(format!("{e} (--confirm-target)"))),
        }
    }
}

/// Runs the captures planned for `req` (read-only, same target) and returns each run with
/// the `prior_state` record it yielded. Refuses the mutation when a replica count could not
/// be read: a scale must never be restored to a guessed number.
pub async fn capture(
    runner: &Runner,
    req: &ProbeRequest,
) -> Result<Vec<(ProbeResult, Option<PriorState>)>, ProbeError> {
    let mut out = Vec::new();
    for (i, cap) in mitigate::plan(&req.code, &req.bindings)
        .into_iter()
        .enumerate()
    {
        let read = ProbeRequest {
            id: ProbeId(format!("{}/prior-{}", req.id, i + 1)),
            code: cap.read_command(),
            bindings: Default::default(),
            assigns: Vec::new(),
            class: SafetyClass::ReadOnly,
            confirmation: None,
            ..req.clone()
        };
        let r = runner.run(read, Cancel::new()).await;
        let value = String::from_utf8_lossy(&r.output.read_all().unwrap_or_default())
            .trim()
            .to_string();
        let ok = r.status.is_ok() && !value.is_empty();
        if !ok && cap.mutation == Mutation::Scale {
            return Err(ProbeError::Refused {
                class: SafetyClass::Mutating,
                reason: format!(
                    "the replica count of {} could not be read before the scale ({})",
                    cap.resource,
                    r.status.describe()
                ),
                what: "check the object and the context, then run it again".into(),
            });
        }
        let prior = ok.then(|| PriorState {
            probe: Some(req.id.to_string()),
            resource: cap.resource.clone(),
            field: cap.field.clone(),
            value,
            command: cap.read_command(),
        });
        out.push((r, prior));
    }
    Ok(out)
}

/// The records of the earlier sessions of `guide` under `state_dir`, oldest first, for the
/// open mitigations they leave.
pub fn earlier_records(state_dir: &Path, guide: &str) -> Vec<Record> {
    let Ok(mut sessions) = evidence::list(state_dir) else {
        return Vec::new();
    };
    sessions.retain(|s| s.guide == guide);
    sessions.reverse();
    sessions
        .iter()
        .filter_map(|s| evidence::SessionLog::read(&s.dir).ok())
        .flat_map(|log| log.entries.into_iter().map(|e| e.record))
        .collect()
}

/// Values for a restore's `--replicas=${NAME}` taken from the open mitigations (the count
/// captured before the scale-down), for variables the operator did not set; each is announced.
pub fn offer_restores(
    probes: &[crate::tsg::Probe],
    flags: &[(String, String)],
    open: &[mitigate::OpenMitigation],
    vars: &crate::query::vars::Vars,
) -> Vec<(String, String)> {
    let known: std::collections::BTreeMap<String, String> = flags.iter().cloned().collect();
    let mut out: Vec<(String, String)> = Vec::new();
    for p in probes {
        for (resource, name) in mitigate::restore_vars(&p.code, &known) {
            let found = open.iter().find(|o| o.resource == resource);
            if let (Some(o), None) = (found, vars.get(&name)) {
                if !out.iter().any(|(n, _)| *n == name) {
                    eprintln!(
                        "{name}={}: the count captured before {o} (evidence log)",
                        o.was
                    );
                    out.push((name, o.was.clone()));
                }
            }
        }
    }
    out
}

/// Prints the mitigations `records` leave open (to stderr, beside the results).
pub fn print_open(records: &[Record]) -> std::io::Result<()> {
    use std::io::Write as _;
    let open = mitigate::open_mitigations(records);
    let mut err = std::io::stderr().lock();
    if open.is_empty() {
        writeln!(err, "open mitigations: none")?;
    } else {
        writeln!(err, "open mitigations:")?;
    }
    for o in &open {
        writeln!(err, "  - {o}")?;
    }
    Ok(())
}
