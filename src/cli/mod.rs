//! Command-line interface: clap definitions and dispatch. One file per subcommand, each with
//! `run(self) -> Result<ExitCode>`. This is the edge that wires IO (`load`) to the pure core.

mod alerts;
mod embedded;
mod lint;
mod tree;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::tsg::{Library, Probe, SafetyClass};

/// tsgnav: walk troubleshooting guides (TSGs) as a decision tree.
///
/// tsgnav reads plain-markdown TSGs — the ones that already render on GitHub — and finds their
/// structure: alert routes, diagnostic steps, mitigation scenarios with Goal / Preconditions /
/// Risk, validation checklists and escalation targets with the evidence each team needs.
/// Run with no command to see the decision tree of the guides bundled with tsgnav.
#[derive(Debug, Parser)]
#[command(name = "tsgnav", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the decision tree of guides (nodes, roles, probes with their safety class, edges).
    Tree(tree::TreeArgs),
    /// Check guides against the template and the safety rules; exit 1 on errors.
    Lint(lint::LintArgs),
    /// List alert → node routes; with --rules, compare them with Prometheus alerting rules.
    Alerts(alerts::AlertsArgs),
}

impl Cli {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self.command {
            Some(Command::Tree(a)) => a.run(),
            Some(Command::Lint(a)) => a.run(),
            Some(Command::Alerts(a)) => a.run(),
            None => tree::TreeArgs::default().run(),
        }
    }
}

/// The classifier the CLI hands to the pure core.
pub fn classify(p: &Probe) -> SafetyClass {
    crate::safety::classify_probe(p)
}

/// Loads `paths` (or the bundled guides when empty) and prints load problems to stderr.
/// Returns the library and whether any error (not a warning) occurred.
pub fn load(paths: &[PathBuf]) -> (Library, bool) {
    if paths.is_empty() {
        return (embedded::library(), false);
    }
    let (lib, errors) = crate::load::load_library(paths);
    let mut failed = false;
    for e in &errors {
        let level = if e.is_warning() { "warning" } else { "error" };
        failed |= !e.is_warning();
        eprintln!("{level}: {e}");
    }
    (lib, failed)
}
