//! Write mode of `tsgnav run`: `--write --confirm-target CONTEXT` acknowledges the node's
//! preconditions by the flags and asks `mitigate` for a confirmation bound to each mutating
//! probe's exact inputs (issued only when CONTEXT is the probe's real target); before a known
//! mutation it runs the read-only capture `mitigate::prior` plans, through the same runner,
//! and returns the `prior_state` records. Part of the CLI edge.

use crate::evidence::Record;
use crate::mitigate;

pub use crate::tui::runtime::waves_probes::WriteMode;

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
