//! Issuing confirmations. [`issue`] is the only way to obtain a [`Confirmation`]: it checks
//! that every precondition shown was acknowledged and that the target typed back is exactly
//! the request's real target, then seals the confirmation over the request's exact code,
//! variable values, target and session (the gate checks the seal where it runs). Pure; must
//! not import IO, `evidence`, `cli`, `tui` or `nav`.

use super::{seal, target_name, Confirmation, ProbeRequest};

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

/// The command as a person previews and confirms it: the code after substitution, with each
/// value passed through the environment listed as a `# env NAME=VALUE` line.
pub fn preview_command(req: &ProbeRequest) -> String {
    super::vars::substitute(req.lang, &req.code, &req.bindings)
        .map(|s| {
            let mut t = s.text.trim_end().to_string();
            for (k, v) in s.env {
                t.push_str(&format!("\n# env {k}={v}"));
            }
            t
        })
        .unwrap_or_else(|_| req.code.trim_end().to_string())
}
