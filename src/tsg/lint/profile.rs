//! Lint profiles: which convention a guide follows, so its sections are checked against the
//! right one. `tsg` is the ARO-HCP TSG template (the H1 sections of `TEMPLATE.md`, scenarios
//! with Goal and Preconditions); `runbook` is the alert runbook shape used across the
//! Kubernetes and OpenShift ecosystem (one file per alert: Meaning, Impact, Diagnosis,
//! Mitigation); `sop` is a standard operating procedure (steps to carry out, no triage
//! template) and `reference` a page with nothing to run: neither is held to a template.
//! Pure; imports only `tsg` model types.

use super::rules::finding;
use super::{Finding, Severity};
use crate::tsg::model::{Guide, Role};

/// A convention a guide follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Tsg,
    Runbook,
    Sop,
    Reference,
}

impl Profile {
    /// `tsg` or `runbook` (case-insensitive).
    pub fn parse(s: &str) -> Option<Profile> {
        match s.trim().to_ascii_lowercase().as_str() {
            "tsg" | "aro-hcp" | "template" => Some(Profile::Tsg),
            "runbook" | "alert-runbook" => Some(Profile::Runbook),
            "sop" | "procedure" => Some(Profile::Sop),
            "reference" | "doc" => Some(Profile::Reference),
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

/// The roles of the TSG template's H1 sections.
const TSG_ROLES: &[Role] = &[
    Role::WhenToUse,
    Role::Triage,
    Role::Access,
    Role::Severity,
    Role::Symptoms,
    Role::Diagnostic,
    Role::Mitigation,
    Role::Escalation,
    Role::Validation,
    Role::Postmortem,
];

/// Whether a guide says it is a TSG: its title names one (and it has a section of the
/// template), a heading speaks of "this TSG",
/// its front matter names a template, or its mitigation is written as the template's
/// scenarios (a "Scenario N" or "Strategy N" heading under a "Mitigation" heading).
fn claims_tsg(g: &Guide) -> bool {
    let names = |t: &str| {
        t.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w == "TSG")
    };
    let template = g
        .front_matter
        .as_ref()
        .and_then(|f| f.template.as_deref())
        .is_some_and(|t| !t.eq_ignore_ascii_case("none"));
    let scenario = |n: &crate::tsg::model::Node| {
        let t = n.title.trim_start().to_ascii_lowercase();
        let under_mitigation = n
            .parent
            .as_deref()
            .and_then(|p| g.nodes.iter().find(|m| m.id == p))
            .is_some_and(|m| m.title.to_ascii_lowercase().contains("mitigat"));
        (t.starts_with("scenario ") || t.starts_with("strategy ")) && under_mitigation
    };
    // A title that names a TSG counts when the guide has a section of the template too
    // ("TSG Output Contract", a page about TSGs, has none).
    let sections = g
        .nodes
        .iter()
        .any(|n| n.level <= 2 && TSG_ROLES.contains(&n.role));
    template
        || names(&g.title) && sections
        || g.nodes
            .iter()
            .any(|n| n.title.to_ascii_lowercase().contains("this tsg") || scenario(n))
}

/// The profile a guide follows: an alert runbook when at least two of Meaning, Impact,
/// Diagnosis and Mitigation are headings of their own; a TSG when it says so or has three
/// of the template's sections as H1s; else a procedure when it has something to run, and a
/// reference page when it has not (or when a heading holds a placeholder: a template).
pub fn detect(g: &Guide) -> Profile {
    let hits = RUNBOOK_SECTIONS
        .iter()
        .filter(|(w, _)| has_heading(g, w))
        .count();
    if hits >= 2 {
        return Profile::Runbook;
    }
    // A heading with a placeholder (`# TSG: <short incident title>`) belongs to a template or
    // to a page that describes one.
    let placeholder = |t: &str| {
        t.find('<')
            .is_some_and(|i| t[i..].find('>').is_some_and(|j| j > 1))
    };
    if g.nodes.iter().any(|n| placeholder(&n.title)) {
        return Profile::Reference;
    }
    let mut roles: Vec<Role> = Vec::new();
    for n in g.nodes.iter().filter(|n| n.level == 1) {
        if TSG_ROLES.contains(&n.role) && !roles.contains(&n.role) {
            roles.push(n.role);
        }
    }
    if claims_tsg(g) || roles.len() >= 3 {
        Profile::Tsg
    } else if g.nodes.iter().any(|n| !n.probes.is_empty()) {
        Profile::Sop
    } else {
        Profile::Reference
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
