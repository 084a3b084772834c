//! Running the read-only captures of prior state that `crate::mitigate::plan` asks for before
//! a known mutation ([`capture`]), through the runner (which applies the safety gate); it
//! spawns nothing itself. Must not import `evidence`, `cli`, `tui` or `nav`.

use super::runner::Runner;
use super::{Cancel, ProbeError, ProbeId, ProbeRequest, ProbeResult};
use crate::mitigate::{Captured, Mutation};
use crate::tsg::SafetyClass;

/// Runs the captures planned for `req` (read-only, same target) and returns each run with
/// the prior state it captured. Refuses the mutation when any prior state could not be read:
/// a change must never be restored to a guessed state.
pub async fn capture(
    runner: &Runner,
    req: &ProbeRequest,
) -> Result<Vec<(ProbeResult, Option<Captured>)>, ProbeError> {
    let mut out = Vec::new();
    for (i, cap) in crate::mitigate::plan(&req.code, &req.bindings)
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
        if !ok {
            let what = match cap.mutation {
                Mutation::Scale => "the replica count",
                _ => "the prior state",
            };
            let status = if r.status.is_ok() {
                "it printed nothing".to_string()
            } else {
                r.status.describe()
            };
            return Err(ProbeError::Refused {
                class: SafetyClass::Mutating,
                reason: format!(
                    "{what} of {} could not be read before the change ({status}), so the \
                     change did not run: tsgnav does not change what it could not record",
                    cap.resource,
                ),
                what: "check the object and the context, then run it again".into(),
            });
        }
        let prior = ok.then(|| Captured {
            probe: req.id.to_string(),
            resource: cap.resource.clone(),
            field: cap.field.clone(),
            value,
            command: cap.read_command(),
        });
        out.push((r, prior));
    }
    Ok(out)
}
