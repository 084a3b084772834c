//! Lint: rules over a loaded library. Pure.
//!
//! Must not import IO (std::fs, std::process, tokio, network crates) nor `crate::safety`:
//! the caller passes a classifier and a file-existence check in `LintConfig`.

pub mod profile;
mod rules;
pub mod scratch;
pub mod shell_rules;

use serde::Serialize;

use crate::tsg::model::{Guide, Library, Node, Probe, SafetyClass};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One lint finding. `message` says what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// What lint needs from outside the pure core.
pub struct LintConfig<'a> {
    /// The template whose H1 sections every guide must have (`None` skips `missing-section`).
    pub template: Option<&'a Guide>,
    /// The safety class of a probe (from `crate::safety`).
    pub classify: &'a dyn Fn(&Probe) -> SafetyClass,
    /// Whether a relative link of a guide points at an existing file.
    pub file_exists: &'a dyn Fn(&Guide, &str) -> bool,
    /// A section's text, read from its guide's file if the load left it there (from `load`:
    /// the caller's edge does the reading; a rule never reads a file itself).
    pub text: &'a dyn Fn(&Node) -> &str,
}

/// Every rule id with its default severity and a one-line description.
pub const RULES: &[(&str, Severity, &str)] = &[
    (
        "missing-section",
        Severity::Warning,
        "A section of the template is absent",
    ),
    (
        "scenario-missing-goal",
        Severity::Error,
        "A mitigation scenario or strategy has no Goal",
    ),
    (
        "scenario-missing-preconditions",
        Severity::Error,
        "A mitigation scenario or strategy has no Preconditions",
    ),
    (
        "mutation-without-risk",
        Severity::Error,
        "A step runs a mutating command but states no Risk",
    ),
    (
        "broken-anchor",
        Severity::Error,
        "A link names a heading anchor that does not exist",
    ),
    (
        "broken-link",
        Severity::Error,
        "A relative link points at a file that does not exist",
    ),
    (
        "rollout-restart-all",
        Severity::Error,
        "`rollout restart deployment` without a name restarts every deployment",
    ),
    (
        "grep-regex-id",
        Severity::Warning,
        "An ID variable is grepped as a regex (use grep -F)",
    ),
    (
        "hardcoded-restore",
        Severity::Warning,
        "A scale-to-zero is restored to a literal count instead of the captured one",
    ),
    (
        "undefined-variable",
        Severity::Warning,
        "A shell variable is used but never set nor declared as an input",
    ),
    (
        "escalation-missing-evidence",
        Severity::Warning,
        "An escalation target lists no evidence to attach",
    ),
    (
        "mixed-cli",
        Severity::Info,
        "The guide mixes `oc` and `kubectl`",
    ),
    (
        "front-matter",
        Severity::Error,
        "The YAML front matter does not parse",
    ),
    (
        "transcript",
        Severity::Warning,
        "A console block has a prompt with no command, an open heredoc or a shell never left",
    ),
];

fn uses_template(g: &Guide, template: &Guide) -> bool {
    let opted_out = g
        .front_matter
        .as_ref()
        .and_then(|f| f.template.as_deref())
        .is_some_and(|t| t.eq_ignore_ascii_case("none"));
    !opted_out && g.path != template.path && !g.is_template()
}

/// Lints every guide of `lib`, each against the convention it follows; findings sorted by
/// file, line, rule.
pub fn lint(lib: &Library, cfg: &LintConfig) -> Vec<Finding> {
    lint_with(lib, cfg, None)
}

/// `lint` with every guide checked against `profile` (`None`: detected per guide).
pub fn lint_with(
    lib: &Library,
    cfg: &LintConfig,
    profile: Option<profile::Profile>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    // Built once for the whole library, not once per guide.
    let by_path: std::collections::HashMap<&str, &Guide> =
        lib.guides.iter().map(|x| (x.path.as_str(), x)).collect();
    let runbooks = lib
        .guides
        .iter()
        .filter(|g| profile::detect(g) == profile::Profile::Runbook)
        .count();
    let library = if runbooks * 2 > lib.guides.len() {
        profile::Profile::Runbook
    } else {
        profile::Profile::Tsg
    };
    for g in &lib.guides {
        rules::front_matter(g, &mut out);
        // A guide's own shape, else the library's: most guides of a runbook collection are
        // alert runbooks, and the odd one out is checked as one too.
        let own = profile::detect(g);
        let chosen = profile.unwrap_or(match (own, library) {
            (profile::Profile::Runbook | profile::Profile::Tsg, _) => own,
            (_, profile::Profile::Runbook) => library,
            _ => own,
        });
        match chosen {
            profile::Profile::Tsg => {
                if let Some(t) = cfg.template.filter(|t| uses_template(g, t)) {
                    rules::missing_section(g, t, &mut out);
                }
                rules::scenario_fields(g, &mut out);
            }
            profile::Profile::Runbook => {
                if cfg.template.is_some_and(|t| uses_template(g, t)) {
                    profile::runbook_sections(g, &mut out);
                }
            }
            // Procedures and reference pages follow no section template.
            profile::Profile::Sop | profile::Profile::Reference => {}
        }
        rules::mutation_risk(g, cfg, &mut out);
        rules::links(g, &by_path, cfg, &mut out);
        rules::undefined_vars(g, &mut out);
        rules::escalation_evidence(g, &mut out);
        shell_rules::check(g, &mut out);
        rules::transcript(g, &mut out);
    }
    out.sort_by(|a, b| (&a.path, a.line, a.rule).cmp(&(&b.path, b.line, b.rule)));
    out
}
