//! The safety gate every run passes: the class the runner goes by (never lower than what
//! `crate::safety` finds in the code itself), the refusal of probes that need a person's
//! confirmation (mutating, unknown) unless they carry a [`Confirmation`] sealed over their
//! exact code, variable values, target and session, and the refusal of probes that need a
//! terminal (interactive). Pure; imports `tsg`, `safety` and sibling `query` types only.

use sha2::{Digest as _, Sha256};

use super::{Confirmation, ProbeError, ProbeRequest, Target};
use crate::tsg::{Probe, SafetyClass};

/// The class the runner goes by: the request's, or what `crate::safety` finds in the code
/// itself when that is more dangerous (a caller cannot label a mutation read-only), with why.
pub fn effective_class(req: &ProbeRequest) -> (SafetyClass, String) {
    let probe = Probe::from_code(req.lang, &req.code);
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

/// The name a person types back to confirm a run on `target`: the kube context, else the
/// Kusto cluster, else the base URL; `None` when the probe names no target at all.
pub fn target_name(target: &Target) -> Option<&str> {
    target
        .kube_context
        .as_deref()
        .or(target.cluster.as_deref())
        .or(target.url.as_deref())
        .filter(|s| !s.is_empty())
}

/// sha256 over the code as written, the code after substitution, the sorted variable values,
/// the whole target and the session id (JSON-encoded, so no two inputs collide by
/// concatenation).
fn digest(req: &ProbeRequest, session: &str) -> [u8; 32] {
    let substituted = super::vars::substitute(req.lang, &req.code, &req.bindings)
        .map(|s| s.text)
        .unwrap_or_default();
    let doc = serde_json::json!({
        "lang": req.lang,
        "code": req.code,
        "substituted": substituted,
        "bindings": req.bindings,
        "target": req.target,
        "session": session,
    });
    Sha256::digest(doc.to_string().as_bytes()).into()
}

/// Seals a confirmation for exactly this request in `session`. Only
/// `super::confirm::issue` calls this, after checking the acknowledgements and the
/// typed-back target.
pub(crate) fn seal(req: &ProbeRequest, session: &str) -> Confirmation {
    Confirmation {
        session: session.to_string(),
        digest: digest(req, session),
    }
}

impl Confirmation {
    /// The session the confirmation was issued in.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The digest as hex (for the evidence record).
    pub fn token(&self) -> String {
        hex::encode(self.digest)
    }
}

/// Whether the request carries a confirmation sealed for its exact inputs.
pub fn confirmed(req: &ProbeRequest) -> bool {
    req.confirmation
        .as_ref()
        .is_some_and(|c| c.digest == digest(req, &c.session))
}

/// Why a shell probe escapes the chosen target (its own `--server`, `--kubeconfig`,
/// `KUBECONFIG=`, `--token`, `--as` …, directly or through a variable value), or `None`.
/// Refused in read-only and write runs alike, confirmed or not; a call that skips the
/// context pinning (`command kubectl`) is refused when the probe would change something.
pub fn target_escape(req: &ProbeRequest, class: SafetyClass) -> Option<ProbeError> {
    if req.lang != crate::tsg::Lang::Shell {
        return None;
    }
    let what = "tsgnav points kubectl, oc and helm at the context you chose; a probe may not \
                choose another cluster or identity"
        .to_string();
    let pinned = req.target.kube_context.is_some() && class.needs_confirmation();
    if let Some(e) = crate::safety::target_escapes(&req.code)
        .into_iter()
        .find(|e| e.names_target || pinned)
    {
        return Some(ProbeError::Refused {
            class,
            reason: e.message(),
            what,
        });
    }
    req.bindings.iter().find_map(|(name, value)| {
        crate::safety::value_names_target(value).map(|flag| ProbeError::Refused {
            class,
            reason: format!(
                "the value of `{name}` holds `{flag}`, which would name another cluster or \
                 identity when it reaches kubectl, oc or helm; give `{name}` a plain value"
            ),
            what: what.clone(),
        })
    })
}

/// Why a probe may not run, or `None` when it may.
pub fn gate(req: &ProbeRequest) -> Option<ProbeError> {
    let (class, why) = effective_class(req);
    if let Some(e) = target_escape(req, class) {
        return Some(e);
    }
    let because = |default: &str| {
        if why.is_empty() {
            default.to_string()
        } else {
            why.clone()
        }
    };
    let how = match target_name(&req.target) {
        Some(t) => format!(
            "confirm it in the TUI's mitigation flow, or run it with \
             `tsgnav run FILE#NODE --write --confirm-target {t}`"
        ),
        None => "confirm it in the TUI's mitigation flow, or name its target (--context) and \
                 run it with `tsgnav run FILE#NODE --write --confirm-target CONTEXT`"
            .to_string(),
    };
    match class {
        c if c.needs_confirmation() && req.confirmation.is_none() => Some(ProbeError::Refused {
            class: c,
            reason: because(if c == SafetyClass::Unknown {
                "tsgnav cannot tell what it changes, so it is treated as mutating"
            } else {
                "it changes the system"
            }),
            what: how,
        }),
        c if c.needs_confirmation() && !confirmed(req) => Some(ProbeError::Refused {
            class: c,
            reason: "its confirmation was issued for other inputs: the command, a variable \
                     value or the target changed since it was confirmed"
                .into(),
            what: format!("confirm it again for these exact inputs: {how}"),
        }),
        SafetyClass::Interactive => Some(ProbeError::Refused {
            class: SafetyClass::Interactive,
            reason: because("it needs a terminal"),
            what: "the TUI hands the terminal over for it; tsgnav does not run it here".into(),
        }),
        _ => None,
    }
}
