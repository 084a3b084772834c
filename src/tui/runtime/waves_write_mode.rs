//! What the operator allowed for one run of a mitigation step's probes ([`WriteMode`]): write
//! mode, the typed confirmation target, the run its confirmations are bound to, and the
//! `[[policy]]` entries checked for each probe's target before a confirmation is issued;
//! the same for `tsgnav run FILE#step --write` and each context of a wave plan. Part of the
//! runtime, the IO edge; must not import `cli`.

use crate::evidence;
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
