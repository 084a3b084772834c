//! `tsgnav lint PATH... [--format text|json|sarif] [--template FILE]`.
//! Exit codes: 0 clean (warnings allowed), 1 findings at error severity, 2 usage or IO error.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::json;

use crate::tsg::lint::{self, Finding, LintConfig, Severity, RULES};

#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub enum Format {
    /// One line per finding, like a compiler: `path:line: severity[rule]: message`.
    #[default]
    Text,
    /// `{"findings":[{"rule","severity","path","line","message"}]}`.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Guides or folders of guides (default: the bundled guides).
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Template whose H1 sections every guide must have (default: the bundled tsg/TEMPLATE.md).
    #[arg(long, value_name = "FILE")]
    pub template: Option<PathBuf>,
    /// The convention to check sections against: `tsg` (the ARO-HCP TSG template),
    /// `runbook` (one file per alert: Meaning, Impact, Diagnosis, Mitigation), `sop` (a
    /// procedure) or `reference`; the last two are held to no sections. Default: each
    /// guide's own, detected from its headings.
    #[arg(long, value_name = "tsg|runbook|sop|reference")]
    pub profile: Option<String>,
    /// Report links to missing files in a folder that is not a git checkout too. By default
    /// they are counted in a note only: a copy of the guides alone lacks the files they link
    /// to, and lint cannot tell a file left out of the copy from a broken link.
    #[arg(long)]
    pub all_links: bool,
}

impl LintArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let template = match &self.template {
            Some(p) => {
                let text =
                    crate::load::read_text(p).map_err(|e| anyhow::anyhow!("template {e}"))?;
                let mut t = crate::tsg::parse_guide(&p.display().to_string(), &text);
                t.file = p.display().to_string();
                t
            }
            None => super::embedded::template(),
        };
        let (lib, failed) = super::load(&self.paths);
        let exists =
            |g: &crate::tsg::Guide, dest: &str| crate::load::link_target_exists(&g.file, dest);
        let cfg = LintConfig {
            template: Some(&template),
            classify: &super::classify,
            file_exists: &exists,
            text: &|n| n.body.fetch(),
        };
        let profile = match self.profile.as_deref() {
            None => None,
            Some(p) => Some(lint::profile::Profile::parse(p).ok_or_else(|| {
                anyhow::anyhow!("--profile {p}: not a profile; use `tsg` (the ARO-HCP TSG template), `runbook` (Meaning, Impact, Diagnosis, Mitigation), `sop` (a procedure) or `reference` (these two need no sections)")
            })?),
        };
        let (findings, unchecked) =
            split_links(lint::lint_with(&lib, &cfg, profile), self.all_links);
        let mut out = std::io::stdout().lock();
        match self.format {
            Format::Text => write!(
                out,
                "{}{}",
                unchecked_note(&unchecked),
                text(&findings, lib.guides.len())
            )?,
            Format::Json => writeln!(
                out,
                "{}",
                json!({ "findings": findings, "unchecked_links": unchecked })
            )?,
            Format::Sarif => writeln!(out, "{}", sarif(&findings))?,
        }
        out.flush()?;
        super::leave_to_exit(lib);
        let errors = findings.iter().any(|f| f.severity == Severity::Error);
        Ok(ExitCode::from(if failed {
            2
        } else if errors {
            1
        } else {
            0
        }))
    }
}

/// Sets apart the `broken-link` findings of guides outside any git checkout (unless `all`):
/// there a missing file may only have been left out of the copy.
/// (`Finding::path` is the guide's file.)
fn split_links(findings: Vec<Finding>, all: bool) -> (Vec<Finding>, Vec<Finding>) {
    if all {
        return (findings, Vec::new());
    }
    let mut checkout: std::collections::HashMap<String, bool> = Default::default();
    findings.into_iter().partition(|f| {
        f.rule != "broken-link"
            || *checkout
                .entry(f.path.clone())
                .or_insert_with(|| crate::load::in_git_checkout(&f.path))
    })
}

/// The note about links lint did not judge (empty when there are none).
fn unchecked_note(unchecked: &[Finding]) -> String {
    if unchecked.is_empty() {
        return String::new();
    }
    let guides: std::collections::BTreeSet<&str> =
        unchecked.iter().map(|f| f.path.as_str()).collect();
    format!(
        "note: {} link(s) in {} guide(s) point at files this folder does not have, and it is not a git checkout: a copy of the guides alone lacks the files they link to, so these are not reported as broken. Lint the repository's checkout, or pass --all-links to list them.\n",
        unchecked.len(),
        guides.len()
    )
}

/// Compiler-style text with a closing count.
pub fn text(findings: &[Finding], guides: usize) -> String {
    let mut s = String::new();
    for f in findings {
        s.push_str(&format!(
            "{}:{}: {}[{}]: {}\n",
            f.path,
            f.line,
            f.severity.as_str(),
            f.rule,
            f.message
        ));
    }
    let count = |sev| findings.iter().filter(|f| f.severity == sev).count();
    s.push_str(&format!(
        "{} guide{} checked: {} error(s), {} warning(s), {} info\n",
        guides,
        if guides == 1 { "" } else { "s" },
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info)
    ));
    s
}

/// SARIF 2.1.0 with one rule descriptor per rule id.
pub fn sarif(findings: &[Finding]) -> serde_json::Value {
    let level = |s: Severity| match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    };
    let rules: Vec<_> = RULES
        .iter()
        .map(|(id, sev, desc)| json!({"id": id, "shortDescription": {"text": desc}, "defaultConfiguration": {"level": level(*sev)}}))
        .collect();
    let results: Vec<_> = findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|r| r.0 == f.rule).unwrap_or(0),
                "level": level(f.severity),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": f.path.trim_start_matches("./")},
                    "region": {"startLine": f.line.max(1)}
                }}]
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "tsgnav", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "results": results
        }]
    })
}
