//! `tsgnav run FILE#step --contexts GLOB --waves 1,5%,20%,rest`: a mitigation across a fleet of
//! kube contexts, in waves. This file builds and shows the plan (the contexts, the waves with
//! the canary first, the concurrency, the validation probes that gate each wave, the
//! `[[policy]]` entries that apply) and checks the typed confirmation (`GLOB · N contexts`);
//! `waves_run` runs it. Without `--write` the plan is printed and nothing runs. Part of the
//! CLI edge.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::anyhow;

use crate::mitigate::waves::{self as plan, WaveSpec};
use crate::query::vars::Vars;
use crate::query::Executor;
use crate::tsg::{Library, Node};

use super::RunArgs;

/// What a failed validation or a soak breach does once the run has stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnFailure {
    /// Stop: nothing past the failing wave is changed; the mitigations stay open.
    Stop,
    /// Stop, then restore the contexts that failed to their captured prior state.
    RestoreContext,
    /// Stop, then restore every context of the failing wave.
    RestoreWave,
    /// Stop, then restore every context this run changed, in every wave.
    RestoreAll,
}

/// Everything `RunArgs::run` has prepared that the waves need.
pub struct Input<'a> {
    pub file: &'a str,
    pub slug: &'a str,
    pub lib: &'a Library,
    pub node: &'a Node,
    pub vars: Vars,
    pub flags: &'a [(String, String)],
    pub secrets: &'a [String],
    pub pre: &'a [String],
    pub node_shell: Option<&'a crate::query::entry::NodeShell>,
    pub executors: Vec<Arc<dyn Executor>>,
}

pub use crate::tui::runtime::waves_plan::Plan;
use crate::tui::runtime::waves_resume::{carry_over, split, Earlier};

/// Where an earlier wave run of this same step left each context, from its journal (the
/// reader the navigator's `:waves` uses too).
fn earlier(query: &str, input: &Input<'_>) -> anyhow::Result<Earlier> {
    use crate::evidence::{Record, SessionLog};
    let dir = crate::evidence::resolve(&crate::evidence::state_dir(), query)?;
    let log = SessionLog::read(&dir)?;
    let node = format!("{}#{}", input.file, input.slug);
    let same = log
        .entries
        .iter()
        .any(|e| matches!(&e.record, Record::NodeEntered { node: n } if *n == node));
    if !same {
        return Err(anyhow!(
            "session {} is not a wave run of {node}: resume it with the step it ran",
            dir.display()
        ));
    }
    Ok(Earlier::read(log.entries.iter().map(|e| &e.record), &node))
}

/// Builds the plan, or says what is missing.
pub fn build(args: &RunArgs, input: &Input<'_>) -> anyhow::Result<Plan> {
    use crate::tui::runtime::waves_plan;
    let glob = args.contexts.clone().unwrap_or_default();
    let spec = WaveSpec::parse(args.waves.as_deref().unwrap_or_default())?;
    let contexts = waves_plan::contexts(args.kubeconfig.clone(), &glob).map_err(|e| anyhow!(e))?;
    let before = match &args.resume {
        Some(q) => earlier(q, input)?,
        None => Earlier::default(),
    };
    let (left, done) = split(contexts, &before);
    let contexts = left;
    if !done.is_empty() {
        let restored = done.iter().filter(|(_, s)| *s != plan::State::Ok).count();
        let also = match restored {
            0 => String::new(),
            r => format!(" (and {r} restored)"),
        };
        eprintln!(
            "resuming: {} contexts validated in that session{also} are left as they are; {} remain",
            done.len() - restored,
            contexts.len()
        );
    }
    if contexts.is_empty() {
        return Err(anyhow!(
            "every context matching `{glob}` validated in that session: nothing is left to run"
        ));
    }
    let policies = super::config::config()?.policy;
    let name = format!("{}#{}", input.file, input.slug);
    let mut plan = waves_plan::build(waves_plan::Ask {
        lib: input.lib,
        node: input.node,
        name: &name,
        glob: &glob,
        spec: &spec,
        parallel: args.parallel,
        contexts,
        policies: &policies,
    })
    .map_err(|e| anyhow!(e))?;
    carry_over(&mut plan, &before, done);
    Ok(plan)
}

/// The plan screen, as text.
pub fn show(p: &Plan, node: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let n = p.waves.len();
    let _ = writeln!(
        s,
        "wave plan for {node}\n  {} · {} contexts · {n} waves · {} at a time",
        p.glob,
        p.count(),
        p.parallel
    );
    for (i, w) in p.waves.iter().enumerate() {
        let label = if i == 0 { " (canary)" } else { "" };
        let names = if w.len() > 6 {
            format!("{} … {}", w[..3].join(", "), w[w.len() - 2..].join(", "))
        } else {
            w.join(", ")
        };
        let _ = writeln!(s, "  wave {}{label}: {} · {names}", i + 1, w.len());
    }
    let _ = writeln!(s, "  gates ({}):", p.gates_from);
    for g in &p.gates {
        let _ = writeln!(s, "    {}", crate::tui::runtime::waves_plan::gate_line(g));
    }
    for pol in &p.policies {
        let _ = writeln!(s, "  policy {pol}");
    }
    let fresh: Vec<&str> = (p.interrupted.iter())
        .filter(|c| p.captured_before(c).is_none())
        .map(String::as_str)
        .collect();
    if !fresh.is_empty() {
        let _ = writeln!(
            s,
            "  {} were in the wave under way when that run was cut short, with no capture in \
             its journal ({}): they run again, and the capture reads them as they are now",
            fresh.len(),
            fresh.join(", ")
        );
    }
    let lines = p.captured_lines();
    let (again, done): (Vec<_>, Vec<_>) =
        (lines.iter()).partition(|(c, _)| p.waves.iter().flatten().any(|w| w == c));
    if !again.is_empty() {
        let _ = writeln!(
            s,
            "  {} to run again were captured by that run before their first change: not \
             captured again; a restore brings each back to that value",
            again.len()
        );
        for (c, what) in again.iter().take(SHOWN) {
            let _ = writeln!(s, "    {c}: {what}");
        }
        if again.len() > SHOWN {
            let _ = writeln!(s, "    … and {} more", again.len() - SHOWN);
        }
    }
    if !done.is_empty() {
        let _ = writeln!(
            s,
            "  {} done earlier keep the values captured before their first change, for \
             --on-failure restore-all",
            done.len()
        );
    }
    s
}

/// How many captured values the plan lists by name.
const SHOWN: usize = 6;

/// Runs the wave plan (or shows it, without `--write`).
pub async fn run(args: &RunArgs, input: Input<'_>) -> anyhow::Result<ExitCode> {
    let plan = build(args, &input)?;
    let node_id = format!("{}#{}", input.file, input.slug);
    eprint!("{}", show(&plan, &node_id));
    if !args.write {
        eprintln!(
            "nothing ran. To run it, add: --write --confirm-target '{}'",
            plan.phrase
        );
        return Ok(ExitCode::SUCCESS);
    }
    let typed = args.confirm_target.as_deref().unwrap_or_default();
    if let Err(e) = plan::check_phrase(typed, &plan.phrase) {
        eprintln!("refused: {e}");
        return Ok(ExitCode::from(3));
    }
    super::waves_run::execute(args, input, plan, &node_id).await
}
