//! Write mode of `tsgnav run`: `--write --confirm-target CONTEXT` acknowledges the node's
//! preconditions by the flags and asks `mitigate` for a confirmation bound to each mutating
//! probe's exact inputs (issued only when CONTEXT is the probe's real target); before a known
//! mutation it runs the read-only capture `mitigate::prior` plans, through the same runner,
//! and returns the `prior_state` records. Part of the CLI edge.

use crate::evidence::{self, Record};
use crate::mitigate;
use crate::query::runner::effective_class;
use crate::query::{target_name, ProbeError, ProbeRequest};

/// What the operator allowed on the command line.
pub struct WriteMode {
    pub enabled: bool,
    pub confirm_target: Option<String>,
    /// Confirmations are bound to this run.
    pub session: String,
    /// `[[policy]]` of the config file: checked for each probe's target before a
    /// confirmation is issued.
    pub policies: Vec<mitigate::waves::Policy>,
    /// This run is one context of a wave plan (policies that require waves allow it).
    pub in_waves: bool,
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
        if let Err(e) =
            mitigate::waves::apply(&self.policies, std::slice::from_ref(&real), self.in_waves)
        {
            return Err(refuse(e.to_string()));
        }
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
        match crate::query::issue(req, preconditions, &acks, typed, &self.session) {
            Ok(c) => {
                req.confirmation = Some(c);
                Ok(Some(crate::tui::runtime::convert::confirmation(
                    req,
                    preconditions,
                )))
            }
            Err(e) => Err(refuse(format!("{e} (--confirm-target)"))),
        }
    }
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
    let open = crate::evidence::open_mitigations(records);
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
