//! The safety gate every run passes: the class the runner goes by (never lower than what
//! `crate::safety` finds in the code itself) and the refusal of probes that need a person's
//! confirmation (mutating, unknown) or a terminal (interactive). Pure; imports `tsg`, `safety`
//! and sibling `query` types only.

use super::{ProbeError, ProbeRequest};
use crate::tsg::{Probe, SafetyClass};

/// The class the runner goes by: the request's, or what `crate::safety` finds in the code
/// itself when that is more dangerous (a caller cannot label a mutation read-only), with why.
pub fn effective_class(req: &ProbeRequest) -> (SafetyClass, String) {
    let probe = Probe {
        lang: req.lang,
        info: String::new(),
        attrs: Default::default(),
        code: req.code.clone(),
        line: 1,
        vars: Vec::new(),
        assigns: Vec::new(),
        hints: Default::default(),
    };
    let verdict = crate::safety::explain_probe(&probe);
    let why = verdict
        .reasons()
        .next()
        .map(|h| match h.command.is_empty() {
            true => h.reason.clone(),
            false => format!("`{}`: {}", h.command, h.reason),
        })
        .unwrap_or_default();
    if verdict.class >= req.class {
        (verdict.class, why)
    } else {
        (req.class, why)
    }
}

/// Why a probe may not run without a person's confirmation, or `None` when it may.
pub fn gate(req: &ProbeRequest) -> Option<ProbeError> {
    let later = "the confirmation flow for changes comes with the mitigation feature; until then \
                 run it yourself if you are sure";
    let (class, why) = effective_class(req);
    let because = |default: &str| {
        if why.is_empty() {
            default.to_string()
        } else {
            why.clone()
        }
    };
    match class {
        c if c.needs_confirmation() && req.confirmation.is_none() => Some(ProbeError::Refused {
            class: c,
            reason: because(if c == SafetyClass::Unknown {
                "tsgnav cannot tell what it changes, so it is treated as mutating"
            } else {
                "it changes the system"
            }),
            what: later.into(),
        }),
        SafetyClass::Interactive => Some(ProbeError::Refused {
            class: SafetyClass::Interactive,
            reason: because("it needs a terminal"),
            what: "the TUI hands the terminal over for it; tsgnav does not run it here".into(),
        }),
        _ => None,
    }
}
