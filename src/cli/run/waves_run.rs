//! `tsgnav run --waves` where it runs: the wave engine of the runtime
//! ([`crate::tui::runtime::waves_engine`], the same one the navigator's `:waves` uses) with
//! a CLI observer: progress lines on stderr, every context's runs and `wave` notes into one
//! evidence session, Ctrl-C pausing after the wave under way, and `--on-failure` deciding
//! what is restored once a failure stopped the run. Part of the CLI edge.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::evidence::Record;
use crate::mitigate::waves::Choice;
use crate::tui::runtime::waves_engine::{self as engine, Ended, Engine, Observer};
use crate::tui::runtime::waves_probes::{Aim, Step};

use super::waves::{Input, OnFailure, Plan};
use super::RunArgs;

/// The CLI's side of a wave run.
struct Cli {
    rec: Option<super::record::Recorder>,
    pause: Arc<AtomicBool>,
    on_failure: OnFailure,
    /// How many waves the plan has.
    of: usize,
}

impl Cli {
    /// Every batch's records (each run with the records before it, then the records after
    /// them), appended as one batch, written and synced before it returns: the answer is
    /// final here.
    fn write<'a>(
        &mut self,
        batches: impl IntoIterator<Item = (&'a [Step], Vec<Record>)>,
    ) -> Result<(), String> {
        let Some(r) = self.rec.as_mut() else {
            return Ok(());
        };
        (|| -> anyhow::Result<()> {
            let mut recs = Vec::new();
            for (steps, after) in batches {
                for (res, _, before) in steps {
                    recs.extend(before.iter().cloned());
                    recs.extend(r.probe_records(res)?);
                }
                recs.extend(after);
            }
            r.append_all(recs)
        })()
        .map_err(|e| format!("{e:#}"))
    }
}

impl Observer for Cli {
    fn journal(
        &mut self,
        steps: &[Step],
        after: Vec<Record>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        std::future::ready(self.write([(steps, after)]))
    }

    fn journal_all(
        &mut self,
        batches: Vec<(Vec<Step>, Vec<Record>)>,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send {
        let each = batches.iter().map(|(s, a)| (s.as_slice(), a.clone()));
        std::future::ready(self.write(each))
    }

    fn line(&mut self, text: &str) {
        eprintln!("{text}");
    }

    fn wave_done(&mut self, wave: usize, secs: f64, eta: Option<f64>) {
        eprintln!(
            "wave {}/{} validated in {secs:.1} s · ETA {:.0} s",
            wave + 1,
            self.of,
            eta.unwrap_or(0.0)
        );
    }

    fn pause_asked(&self) -> bool {
        self.pause.load(Ordering::SeqCst)
    }

    fn decide(&mut self, _wave: usize) -> impl std::future::Future<Output = Choice> + Send {
        let choice = match self.on_failure {
            OnFailure::Stop => Choice::Stop,
            OnFailure::RestoreContext => Choice::RestoreFailed,
            OnFailure::RestoreWave => Choice::RestoreWave,
            OnFailure::RestoreAll => Choice::RestoreAll,
        };
        std::future::ready(choice)
    }
}

/// Runs every wave of `plan`; the exit code is 0 when every context validated, 1 when a
/// failure stopped the run or it was paused.
pub async fn execute(
    args: &RunArgs,
    input: Input<'_>,
    plan: Plan,
    node: &str,
) -> anyhow::Result<ExitCode> {
    let rec = match args.no_evidence {
        true => None,
        false => Some(super::record::Recorder::start(
            &crate::evidence::state_dir(),
            std::path::Path::new(input.file),
            node,
            input.flags,
            input.secrets,
        )?),
    };
    // Ctrl-C pauses after the wave under way: its contexts finish (change and gates), no
    // later wave starts, and `--resume` goes on from the journal.
    let pause = Arc::new(AtomicBool::new(false));
    let flag = pause.clone();
    let listener = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, Ordering::SeqCst);
            eprintln!(
                "pausing after the wave under way (its contexts finish; no later wave starts)"
            );
        }
    });
    let mut cli = Cli {
        rec,
        pause,
        on_failure: args.on_failure,
        of: plan.waves.len(),
    };
    let run = Engine {
        aim: Aim {
            context: None,
            namespace: args.namespace.clone(),
            kubeconfig: args.kubeconfig.clone(),
            contexts: None,
        },
        node,
        vars: input.vars.clone(),
        pre: input.pre,
        node_shell: input.node_shell,
        executors: input.executors.clone(),
        session: format!("waves-{}", std::process::id()),
        progress: Arc::new(|_, _, _| {}),
    };
    let ended = engine::execute(&run, &plan, &mut cli).await;
    listener.abort();
    let ended = ended.map_err(|e| anyhow::anyhow!(e))?;
    let of = plan.waves.len();
    let session = cli.rec.as_ref().map(|r| r.dir().display().to_string());
    match ended {
        Ended::Paused(i, left) => {
            eprintln!(
                "paused before wave {}/{of}: {left} contexts not changed; go on with --resume {}",
                i + 1,
                session.unwrap_or_default()
            );
            return Ok(ExitCode::from(1));
        }
        Ended::Validated => {
            if let Some(s) = &session {
                eprintln!("recorded in evidence session {s}");
            }
            eprintln!("all {} contexts validated · {}", plan.count(), own_cost());
            return Ok(ExitCode::SUCCESS);
        }
        Ended::Stopped(..) => {}
    }
    if let Some(s) = &session {
        eprintln!("recorded in evidence session {s}");
    }
    eprintln!("{}", own_cost());
    Ok(ExitCode::from(1))
}

/// What tsgnav itself spent (CPU, peak memory) beside what its probes spent, so the cost of
/// the orchestration can be told from the cost of the commands.
fn own_cost() -> String {
    let usage = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::getrusage(who, &mut u) } == 0;
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        ok.then(|| (secs(u.ru_utime) + secs(u.ru_stime), u.ru_maxrss / 1024))
    };
    match (usage(libc::RUSAGE_SELF), usage(libc::RUSAGE_CHILDREN)) {
        (Some((own, rss)), Some((kids, _))) => {
            format!("tsgnav's own CPU {own:.2} s, peak RSS {rss} MiB; the probes' CPU {kids:.1} s")
        }
        _ => "resource usage unavailable".into(),
    }
}
