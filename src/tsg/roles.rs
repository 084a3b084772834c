//! Role inference from heading text, ancestors and (through a caller's classifier) what a
//! step's commands do. Pure; imports only `super::model`.
//!
//! The synonym table is data (`Synonyms`), so callers can extend it from configuration.

use super::model::{Guide, Probe, Role};

/// Heading words that name each role, checked in order; the first match wins.
#[derive(Debug, Clone)]
pub struct Synonyms {
    pub table: Vec<(Role, Vec<String>)>,
}

impl Default for Synonyms {
    fn default() -> Self {
        let t: &[(Role, &[&str])] = &[
            (
                Role::Triage,
                &[
                    "alert triage",
                    "triage",
                    "alerts routing",
                    "alert routing",
                    "meaning",
                ],
            ),
            (
                Role::BlastRadius,
                &["blast radius", "scope of impact", "impact assessment"],
            ),
            (
                Role::WhenToUse,
                &["when to use", "when to apply", "applies when", "scope"],
            ),
            (
                Role::Rollback,
                &["rollback", "roll back", "restore", "revert", "undo"],
            ),
            (Role::Escalation, &["escalat", "who to engage", "contacts"]),
            (
                Role::Validation,
                &[
                    "validation",
                    "validate",
                    "verify",
                    "verification",
                    "confirmation",
                ],
            ),
            (
                Role::Postmortem,
                &[
                    "postmortem",
                    "post-mortem",
                    "after incident",
                    "after the incident",
                    "post-incident",
                    "retrospective",
                ],
            ),
            (
                Role::Mitigation,
                &[
                    "mitigat",
                    "scenario",
                    "strategy",
                    "strategies",
                    "remediat",
                    "workaround",
                    "fix ",
                ],
            ),
            (
                Role::Access,
                &[
                    "cluster access",
                    "access",
                    "breakglass",
                    "break-glass",
                    "credentials",
                    "login",
                ],
            ),
            (
                Role::Glossary,
                &["glossary", "terminology", "definitions", "terms"],
            ),
            (Role::Severity, &["severity", "impact"]),
            (Role::Symptoms, &["symptom"]),
            (
                Role::Prerequisites,
                &[
                    "prerequisite",
                    "before you begin",
                    "requirements",
                    "pre-requisite",
                ],
            ),
            (
                Role::Reference,
                &[
                    "appendix",
                    "reference",
                    "table of contents",
                    "contents",
                    "purpose",
                    "background",
                    "overview",
                    "see also",
                    "related",
                    "architecture",
                    "components",
                ],
            ),
            (
                Role::Diagnostic,
                &[
                    "diagnos",
                    "identify",
                    "investigat",
                    "troubleshoot",
                    "step",
                    "check",
                    "dashboards",
                    "logging",
                    "queries",
                    "logs",
                    "inspect",
                    "find the",
                ],
            ),
        ];
        Synonyms {
            table: t
                .iter()
                .map(|(r, words)| (*r, words.iter().map(|w| w.to_string()).collect()))
                .collect(),
        }
    }
}

impl Synonyms {
    /// The role a heading names by itself, if any.
    pub fn own(&self, title: &str) -> Option<Role> {
        // An alert name as a title ("KeyVaultSecretAccessDenied") names no phase: the words
        // inside the identifier are not headings.
        let id = title.trim();
        if id.len() > 1
            && id.chars().all(|c| c.is_ascii_alphanumeric())
            && id.chars().skip(1).any(|c| c.is_ascii_uppercase())
            && id.chars().any(|c| c.is_ascii_lowercase())
        {
            return None;
        }
        let t = format!("{} ", title.to_lowercase());
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
        // "Step N: …" is a diagnostic step unless it names another phase.
        let is_step = t.starts_with("step ");
        self.table
            .iter()
            .find(|(role, words)| {
                let hit = words.iter().any(|w| t.contains(w.as_str()));
                hit && !(is_step
                    && matches!(role, Role::Prerequisites | Role::Access | Role::Reference))
            })
            .map(|(r, _)| match r {
                // "Step 5: Classify the scenario" is a step, not a scenario.
                Role::Mitigation if is_step => Role::Diagnostic,
                r => *r,
            })
    }

    /// Whether the heading names diagnosis itself ("Diagnosis", "Investigate …"), not merely
    /// a step.
    pub fn strongly_diagnostic(&self, title: &str) -> bool {
        let t = title.to_lowercase();
        ["diagnos", "investigat", "troubleshoot"]
            .iter()
            .any(|w| t.contains(w))
    }

    /// Whether a heading names no role of its own ("Procedure", "Step 3", "Steps"), so what
    /// its commands do may decide.
    pub fn neutral(&self, title: &str) -> bool {
        match self.own(title) {
            None => true,
            Some(Role::Diagnostic) => {
                !self.strongly_diagnostic(title) && {
                    let t = title.to_lowercase();
                    ![
                        "check", "identify", "inspect", "logs", "queries", "find the",
                    ]
                    .iter()
                    .any(|w| t.contains(w))
                }
            }
            Some(_) => false,
        }
    }

    /// The role of a heading given its parent's role: a step under a mitigation stays a
    /// mitigation step; otherwise the heading's own words win, then the parent's role.
    pub fn infer(&self, title: &str, parent: Option<Role>) -> Role {
        let own = self.own(title);
        match (own, parent) {
            // "Step 3: Scale down" under a mitigation is a mitigation step; an explicit
            // "Diagnosis" keeps its own role whatever its parent's title says.
            (
                Some(Role::Diagnostic),
                Some(p @ (Role::Mitigation | Role::Rollback | Role::Validation | Role::Escalation)),
            ) if !self.strongly_diagnostic(title) => p,
            (Some(Role::Symptoms), Some(Role::Diagnostic)) => Role::Symptoms,
            // "Strategy 1: Roll back the image" is one of the mitigation's strategies.
            (Some(Role::Rollback), Some(Role::Mitigation)) if numbered_option(title) => {
                Role::Mitigation
            }
            (Some(r), _) => r,
            (None, Some(p)) if p != Role::Triage && p != Role::WhenToUse => p,
            _ => Role::Other,
        }
    }
}

/// "Strategy 2: …", "Scenario 3 – …", "Option A: …".
fn numbered_option(title: &str) -> bool {
    let t = title.trim_start().to_lowercase();
    ["strategy ", "scenario ", "option "]
        .iter()
        .any(|k| t.starts_with(k))
}

/// Steps under a neutral heading ("Procedure", "Step 3") whose commands change a system are
/// mitigation steps. `mutates` says whether a probe changes a system (from `crate::safety`,
/// which `tsg` may not import).
pub fn refine(guide: &mut Guide, synonyms: &Synonyms, mutates: &dyn Fn(&Probe) -> bool) {
    // A step under a heading that names its phase ("Diagnostics") keeps that phase's role.
    let titles: std::collections::HashMap<String, String> = guide
        .nodes
        .iter()
        .map(|n| (n.id.clone(), n.title.clone()))
        .collect();
    for n in &mut guide.nodes {
        let open = matches!(n.role, Role::Diagnostic | Role::Other);
        let parent_neutral = n
            .parent
            .as_ref()
            .and_then(|p| titles.get(p))
            .is_none_or(|t| synonyms.neutral(t));
        if open && parent_neutral && synonyms.neutral(&n.title) && n.probes.iter().any(mutates) {
            n.role = Role::Mitigation;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infers_roles_from_real_headings() {
        let s = Synonyms::default();
        assert_eq!(s.infer("Alert Triage", None), Role::Triage);
        assert_eq!(s.infer("KeyVaultSecretAccessDenied", None), Role::Other);
        assert_eq!(s.infer("ClusterOperatorDown", None), Role::Other);
        assert_eq!(s.infer("Mitigation", None), Role::Mitigation);
        assert_eq!(s.infer("When to Use This TSG", None), Role::WhenToUse);
        assert_eq!(
            s.infer("Step 1: Establish blast radius", Some(Role::Diagnostic)),
            Role::BlastRadius
        );
        assert_eq!(
            s.infer(
                "Step 2: Check HCP-side prerequisites",
                Some(Role::Diagnostic)
            ),
            Role::Diagnostic
        );
        assert_eq!(
            s.infer("Scenario: Stuck MTPNC deletion", Some(Role::Mitigation)),
            Role::Mitigation
        );
        assert_eq!(
            s.infer("Option A", Some(Role::Mitigation)),
            Role::Mitigation
        );
        assert_eq!(
            s.infer("Step 3: Scale down", Some(Role::Mitigation)),
            Role::Mitigation
        );
        assert_eq!(
            s.infer("Validation and Confirmation", None),
            Role::Validation
        );
        assert_eq!(s.infer("After Incident", None), Role::Postmortem);
        assert_eq!(
            s.infer("Appendix: CNS Prometheus Metrics Reference", None),
            Role::Reference
        );
        assert_eq!(s.infer("Customer-Visible Symptoms", None), Role::Symptoms);
        assert_eq!(s.infer("4. Escalation", None), Role::Escalation);
        assert_eq!(
            s.infer("Restore the agent", Some(Role::Mitigation)),
            Role::Rollback
        );
        assert_eq!(s.infer("Random heading", None), Role::Other);
        assert_eq!(s.infer("Meaning", Some(Role::Mitigation)), Role::Triage);
        assert_eq!(s.infer("Impact", None), Role::Severity);
        assert_eq!(
            s.infer("Diagnosis", Some(Role::Mitigation)),
            Role::Diagnostic
        );
        assert_eq!(s.infer("Diagnosis", Some(Role::Rollback)), Role::Diagnostic);
        assert!(s.neutral("Step 3") && s.neutral("Procedure") && !s.neutral("Diagnosis"));
        assert_eq!(
            s.infer("Step 5: Classify the scenario", Some(Role::Diagnostic)),
            Role::Diagnostic
        );
    }
}
