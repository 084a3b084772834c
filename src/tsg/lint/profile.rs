//! Lint profiles: which convention a guide follows, so its sections are checked against the
//! right one. `tsg` is the ARO-HCP TSG template (the H1 sections of `TEMPLATE.md`, scenarios
//! with Goal and Preconditions); `runbook` is the alert runbook shape used across the
//! Kubernetes and OpenShift ecosystem (one file per alert: Meaning, Impact, Diagnosis,
//! Mitigation). Pure; imports only `tsg` model types.

use super::rules::finding;
use super::{Finding, Severity};
use crate::tsg::model::{Guide, Role};

/// A convention a guide follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Tsg,
    Runbook,
}

impl Profile {
    /// `tsg` or `runbook` (case-insensitive).
    pub fn parse(s: &str) -> Option<Profile> {
        match s.trim().to_ascii_lowercase().as_str() {
            "tsg" | "aro-hcp" | "template" => Some(Profile::Tsg),
            "runbook" | "alert-runbook" => Some(Profile::Runbook),
            _ => None,
        }
    }
}

/// The sections of an alert runbook: the heading word and the role it carries.
const RUNBOOK_SECTIONS: &[(&str, Role)] = &[
    ("Meaning", Role::Triage),
    ("Impact", Role::Severity),
    ("Diagnosis", Role::Diagnostic),
    ("Mitigation", Role::Mitigation),
];

fn has_heading(g: &Guide, word: &str) -> bool {
    g.nodes
        .iter()
        .any(|n| n.level >= 2 && n.title.trim().eq_ignore_ascii_case(word))
}

/// The profile a guide follows: an alert runbook when at least two of Meaning, Impact,
/// Diagnosis and Mitigation are headings of their own, else the TSG template.
pub fn detect(g: &Guide) -> Profile {
    let hits = RUNBOOK_SECTIONS
        .iter()
        .filter(|(w, _)| has_heading(g, w))
        .count();
    if hits >= 2 {
        Profile::Runbook
    } else {
        Profile::Tsg
    }
}

/// `missing-section` for an alert runbook: each of Meaning, Impact, Diagnosis, Mitigation
/// (or a heading with the same role).
pub fn runbook_sections(g: &Guide, out: &mut Vec<Finding>) {
    for (word, role) in RUNBOOK_SECTIONS {
        let found = has_heading(g, word) || g.nodes.iter().any(|n| n.level >= 2 && n.role == *role);
        if !found {
            let m = format!(
                "section \"{word}\" of the alert runbook shape (Meaning, Impact, Diagnosis, Mitigation) is missing; add a \"## {word}\" section"
            );
            out.push(finding("missing-section", Severity::Warning, g, 1, m));
        }
    }
}
