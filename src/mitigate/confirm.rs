//! Issuing confirmations. [`issue`] is the only way to obtain a [`Confirmation`]: it checks
//! that every precondition shown was acknowledged and that the target typed back is exactly
//! the request's real target, then seals the confirmation over the request's exact code,
//! variable values, target and session (`crate::query` checks the seal where it runs).
//! Pure; must not import `cli`, `tui` or `nav`.

use crate::evidence;
use crate::query::runner::effective_class;
use crate::query::{seal, target_name, Confirmation, ProbeRequest};
use crate::tsg::Node;

/// Why no confirmation was issued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfirmError {
    #[error(
        "{probe} names no target to confirm against: give it a kube context (--context NAME) \
         and type that name back"
    )]
    NoTarget { probe: String },
    #[error(
        "the target typed back, `{typed}`, is not the target of {probe}, `{real}`: nothing was \
         run; type `{real}` exactly to confirm"
    )]
    WrongTarget {
        probe: String,
        typed: String,
        real: String,
    },
    #[error(
        "precondition {number} of {total} of {probe} is not acknowledged: \"{text}\"; \
         acknowledge each one before confirming"
    )]
    Unacknowledged {
        probe: String,
        number: usize,
        total: usize,
        text: String,
    },
}

/// Issues a confirmation for exactly `req` in `session` when each of `preconditions` is
/// acknowledged (`acknowledged[i]` for `preconditions[i]`) and `typed_target` equals the
/// request's target name (kube context, else cluster, else URL; surrounding spaces ignored).
pub fn issue(
    req: &ProbeRequest,
    preconditions: &[String],
    acknowledged: &[bool],
    typed_target: &str,
    session: &str,
) -> Result<Confirmation, ConfirmError> {
    let probe = req.id.to_string();
    for (i, text) in preconditions.iter().enumerate() {
        if !acknowledged.get(i).copied().unwrap_or(false) {
            return Err(ConfirmError::Unacknowledged {
                probe,
                number: i + 1,
                total: preconditions.len(),
                text: text.clone(),
            });
        }
    }
    let real = target_name(&req.target).ok_or_else(|| ConfirmError::NoTarget {
        probe: probe.clone(),
    })?;
    if typed_target.trim() != real {
        return Err(ConfirmError::WrongTarget {
            probe,
            typed: typed_target.to_string(),
            real: real.to_string(),
        });
    }
    Ok(seal(req, session))
}

/// The preconditions a person acknowledges for a node: each clause of its **Preconditions:**
/// text, then each checklist item.
pub fn preconditions(node: &Node) -> Vec<String> {
    // A lead-in ("every item below is true:") is not an item of its own.
    let mut out: Vec<String> = node
        .fields
        .get("preconditions")
        .map(|t| crate::tsg::clauses::split(t).items)
        .unwrap_or_default();
    out.extend(node.checklist.iter().map(|c| c.text.trim().to_string()));
    out
}

/// The evidence record of a confirmation: the command as previewed (after substitution),
/// the target typed back, the class and the preconditions acknowledged.
pub fn record(req: &ProbeRequest, preconditions: &[String]) -> evidence::Confirmation {
    let command = crate::query::vars::substitute(req.lang, &req.code, &req.bindings)
        .map(|s| {
            let mut t = s.text.trim_end().to_string();
            for (k, v) in s.env {
                t.push_str(&format!("\n# env {k}={v}"));
            }
            t
        })
        .unwrap_or_else(|_| req.code.trim_end().to_string());
    evidence::Confirmation {
        probe: Some(req.id.to_string()),
        command,
        target: target_name(&req.target).unwrap_or_default().to_string(),
        safety: effective_class(req).0.as_str().to_string(),
        preconditions: preconditions.to_vec(),
    }
}
