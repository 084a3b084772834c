//! Command-line interface: clap definitions and dispatch. One file per subcommand, each with
//! `run(self) -> Result<ExitCode>`. This is the edge that wires IO (`load`) to the pure core.

mod alerts;
mod alerts_firing;
mod complete;
mod demo;
mod embedded;
mod extras;
mod lint;
mod replay;
mod run;
mod sessions;
mod sim;
mod target;
mod tree;
mod tui;
mod tui_build;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::tsg::{Library, Probe, SafetyClass};

/// tsgnav: walk troubleshooting guides (TSGs) as a decision tree.
///
/// tsgnav reads plain-markdown TSGs — the ones that already render on GitHub — and finds their
/// structure: alert routes, diagnostic steps, mitigation scenarios with Goal / Preconditions /
/// Risk, validation checklists and escalation targets with the evidence each team needs.
/// Run with no command to open the navigator (in a terminal) or print the bundled decision tree.
#[derive(Debug, Parser)]
#[command(
    name = "tsgnav",
    version,
    propagate_version = true,
    max_term_width = 100,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(flatten)]
    pub tui: tui::TuiArgs,
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
    /// Evidence sessions: list, show, verify, export for IcM (or hand-off), import, attach.
    Sessions(sessions::SessionsArgs),
    /// Simulated management clusters (Kubernetes + Maestro APIs) for demos and tests.
    Sim(sim::SimArgs),
    /// The navigator on a simulated incident (SWIFT or Maestro): no cluster or account needed.
    Demo(demo::DemoArgs),
    /// Print shell completions (`--context` completes the kubeconfig's contexts):
    /// `tsgnav completions bash > /etc/bash_completion.d/tsgnav`.
    Completions(extras::CompletionsArgs),
    /// Print the man page (roff): `tsgnav man > tsgnav.1`.
    Man,
    /// Check the config file, or print an example of it.
    Config(extras::ConfigArgs),
    /// Run a node's probes (FILE#node-slug) and print each result: read-only ones, and mutating
    /// ones only with --write --confirm-target CONTEXT; --json for scripts.
    Run(Box<run::RunArgs>),
    /// The kube contexts of the kubeconfig, one a line (for the completion scripts).
    #[command(name = complete::SUBCOMMAND, hide = true)]
    CompleteContexts(complete::ContextsArgs),
}

impl Cli {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self.command {
            Some(Command::Tree(a)) => a.run(),
            Some(Command::Lint(a)) => a.run(),
            Some(Command::Alerts(a)) => a.run(),
            Some(Command::Sessions(a)) => a.run(),
            Some(Command::Sim(a)) => a.run(),
            Some(Command::Run(a)) => a.run(),
            Some(Command::Demo(a)) => a.run(),
            Some(Command::Completions(a)) => a.run(),
            Some(Command::Man) => extras::man(),
            Some(Command::Config(a)) => a.run(),
            Some(Command::CompleteContexts(a)) => a.run(),
            None => self.tui.run(),
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
    load_with(paths, false)
}

/// [`load`] that also fills in every probe's safety class (`Probe::safety`) of the bundled
/// guides; guides read from files always have theirs ([`SETTLED`]).
pub fn load_classified(paths: &[PathBuf]) -> (Library, bool) {
    load_with(paths, true)
}

/// What each guide read from a file has done once, on the thread that parsed it: its probes'
/// safety classes filled in and its roles refined. The parse cache keeps the result, so a
/// warm start neither classifies nor lexes a probe again.
pub const SETTLED: crate::load::Finish = crate::load::Finish {
    name: "safety classes and refined roles",
    work: crate::safety::settle,
};

fn load_with(paths: &[PathBuf], classified: bool) -> (Library, bool) {
    if paths.is_empty() {
        let mut lib = embedded::library();
        if classified {
            each_guide(&mut lib, &classify_guide);
        }
        return (lib, false);
    }
    let (lib, errors, _) =
        crate::load::load_library_cached_with(paths, guide_cache().as_ref(), SETTLED);
    let mut failed = false;
    for e in &errors {
        let level = if e.is_warning() { "warning" } else { "error" };
        failed |= !e.is_warning();
        eprintln!("{level}: {e}");
    }
    (lib, failed)
}

/// Leaves a loaded library to the process's exit, which hands all its memory back at once. A
/// command that ends after its output would otherwise free every guide piece by piece, on one
/// thread, after the output: 93 ms (7.6 % of the CPU) of `alerts` on a warm start of 20,000
/// guides.
pub fn leave_to_exit(lib: Library) {
    std::mem::forget(lib);
}

/// Steps under a neutral heading whose commands mutate become mitigation steps.
pub fn refine_roles(lib: &mut Library) {
    each_guide(lib, &crate::safety::refine_roles);
}

/// Fills in the safety class of each probe of `g`.
fn classify_guide(g: &mut crate::tsg::Guide) {
    for p in g.nodes.iter_mut().flat_map(|n| n.probes.iter_mut()) {
        p.safety = Some(classify(p));
    }
}

/// Runs `work` on every guide, the guides shared out over the cores in contiguous runs.
fn each_guide(lib: &mut Library, work: &(dyn Fn(&mut crate::tsg::Guide) + Sync)) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    if workers == 1 || lib.guides.len() < 2 {
        lib.guides.iter_mut().for_each(work);
        return;
    }
    let per = lib.guides.len().div_ceil(workers);
    std::thread::scope(|s| {
        for run in lib.guides.chunks_mut(per) {
            s.spawn(move || run.iter_mut().for_each(work));
        }
    });
}

/// The parse cache: `$TSGNAV_CACHE_DIR` when set, else the platform cache folder's
/// `tsgnav/guides` (Linux: `~/.cache/tsgnav/guides`). Never inside the evidence state folder.
pub fn guide_cache() -> Option<crate::load::Cache> {
    let dir = match std::env::var_os("TSGNAV_CACHE_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => dirs::cache_dir()?.join("tsgnav").join("guides"),
    };
    Some(crate::load::Cache::new(dir))
}
