//! Running a wave plan (`waves`): per context, the prior state is captured, the change runs
//! with that context's own confirmation (the same path as a single `--write` run: the proxy
//! grant, the sandbox), then the gates run on that context. A wave starts only when every
//! context of the one before it validated; the first failure stops the run, and nothing past
//! that wave is changed. After a wave, gates with `{soak=5m abort_if="<PromQL>"}` are
//! evaluated every `every=` (30 s by default) until the soak ends; a breach stops the run the
//! same way. `--on-failure` then restores the failed contexts or the whole wave from the
//! captured prior state. Every context's runs and a `wave` note go into one evidence session.
//! Part of the CLI edge.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};

use crate::evidence::{Note, Record};
use crate::mitigate::waves::{eta, Policy, State};
use crate::query::{ProbeResult, Status};
use crate::tsg::{Lang, Probe, SafetyClass};

use super::waves::{Input, OnFailure, Plan};
use super::write::WriteMode;
use super::RunArgs;

type Steps = Vec<(ProbeResult, bool, Vec<Record>)>;

/// One context's pass through its wave.
struct Outcome {
    context: String,
    state: State,
    steps: Steps,
}

fn failure(steps: &Steps) -> Option<String> {
    steps.iter().find_map(|(r, _, _)| match &r.status {
        Status::Ok { .. } => None,
        Status::Failed(crate::query::ProbeError::Refused { class, .. })
            if *class == SafetyClass::LongRunning =>
        {
            None
        }
        s => Some(format!("{}: {}", r.id, s.describe())),
    })
}

fn for_context(args: &RunArgs, ctx: &str, policies: &[Policy]) -> (RunArgs, WriteMode) {
    let mut a = args.clone();
    a.context = Some(ctx.to_string());
    a.contexts = None;
    a.waves = None;
    a.confirm_target = Some(ctx.to_string());
    let mode = WriteMode {
        enabled: true,
        confirm_target: Some(ctx.to_string()),
        session: format!("waves-{}-{ctx}", std::process::id()),
        policies: policies.to_vec(),
        in_waves: true,
    };
    (a, mode)
}

/// The change, then the gates, on one context.
async fn one(args: &RunArgs, input: &Input<'_>, plan: &Plan, node: &str, ctx: String) -> Outcome {
    let (a, mode) = for_context(args, &ctx, &plan.policies);
    let vars = input.vars.clone();
    let ex = input.executors.clone();
    let mut steps = a
        .run_probes(
            node,
            &plan.change,
            vars.clone(),
            ex.clone(),
            (&mode, input.pre, input.node_shell),
        )
        .await;
    if let Some(why) = failure(&steps) {
        return Outcome {
            context: ctx,
            state: State::Failed(format!("change failed: {why}")),
            steps,
        };
    }
    let read_only = WriteMode {
        enabled: false,
        confirm_target: None,
        session: mode.session.clone(),
        policies: Vec::new(),
        in_waves: true,
    };
    let gates = a
        .run_probes(
            node,
            &plan.gates,
            vars,
            ex,
            (&read_only, &[], input.node_shell),
        )
        .await;
    let state = match failure(&gates) {
        Some(why) => State::Failed(format!("validation failed: {why}")),
        None => State::Ok,
    };
    steps.extend(gates);
    Outcome {
        context: ctx,
        state,
        steps,
    }
}

/// The restore of one context: a `kubectl scale` back to each replica count captured before
/// the change (other captured state is named, not restored: there is no safe generic undo).
async fn restore(
    args: &RunArgs,
    input: &Input<'_>,
    plan: &Plan,
    node: &str,
    o: &Outcome,
) -> (State, Steps) {
    let mut code = String::new();
    for (_, _, recs) in &o.steps {
        for r in recs {
            if let Record::PriorState(p) = r {
                if p.field == "spec.replicas"
                    && p.value.chars().all(|c| c.is_ascii_digit())
                    && !p.value.is_empty()
                {
                    code.push_str(&format!(
                        "kubectl scale {} --replicas={}\n",
                        p.resource, p.value
                    ));
                }
            }
        }
    }
    if code.is_empty() {
        let why = "no replica count was captured before the change: restore it by hand";
        return (State::Failed(why.into()), Vec::new());
    }
    let (a, mode) = for_context(args, &o.context, &plan.policies);
    let probe = Probe::from_code(Lang::Shell, &code);
    let steps = a
        .run_probes(
            node,
            &[probe],
            input.vars.clone(),
            input.executors.clone(),
            (&mode, &[], input.node_shell),
        )
        .await;
    let state = match failure(&steps) {
        None => State::Restored(code.trim_end().replace('\n', "; ")),
        Some(why) => State::Failed(format!("restore failed: {why}")),
    };
    (state, steps)
}

/// Evaluates each soak gate's `abort_if` until its soak ends; the breach, if any.
async fn soak(input: &Input<'_>, plan: &Plan, node: &str) -> Option<String> {
    let soaks: Vec<(&Probe, Duration, Duration, &String)> = plan
        .gates
        .iter()
        .filter_map(|g| {
            let d = crate::query::parse_duration(g.attrs.get("soak")?)?;
            let every = g
                .attrs
                .get("every")
                .and_then(|e| crate::query::parse_duration(e))
                .unwrap_or(Duration::from_secs(30));
            Some((g, d, every, g.attrs.get("abort_if")?))
        })
        .collect();
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let runner = crate::query::runner::Runner::new(Default::default(), input.executors.clone(), tx);
    for (gate, length, every, query) in soaks {
        let from = chrono::Utc::now().timestamp_millis() as f64 / 1000.0;
        eprintln!("soaking {length:?} from {from:.3}: abort if {query} (every {every:?})");
        let end = Instant::now() + length;
        loop {
            let probe = Probe::from_code(Lang::Promql, query);
            let values = input.vars.resolve(Lang::Promql, query).unwrap_or_default();
            let req = match crate::query::ProbeRequest::from_probe_with(node, &probe, values, None)
            {
                Ok(r) => r,
                Err(e) => return Some(format!("abort_if of gate line {}: {e}", gate.line)),
            };
            let r = runner.run(req, crate::query::Cancel::new()).await;
            let series = r
                .raw
                .as_ref()
                .and_then(|v| v["data"]["result"].as_array())
                .map_or(0, Vec::len);
            match &r.status {
                Status::Ok { .. } if series > 0 => {
                    let at = r
                        .raw
                        .as_ref()
                        .and_then(|v| v["data"]["result"][0]["value"][0].as_f64());
                    let at = at.map_or_else(|| "now".to_string(), |t| format!("{t:.3}"));
                    return Some(format!(
                        "soak breached at {at}: {query} returned {series} series"
                    ));
                }
                Status::Ok { .. } => {}
                s => return Some(format!("soak check failed: {query}: {}", s.describe())),
            }
            if Instant::now() + every > end {
                break;
            }
            tokio::time::sleep(every).await;
        }
    }
    None
}

fn note(wave: usize, of: usize, o: &Outcome) -> Record {
    Record::Note(Note {
        text: crate::mitigate::waves::note_text(wave, of, &o.context, &o.state),
        topic: Some("wave".into()),
        ..Default::default()
    })
}

/// Runs every wave of `plan`; the exit code is 0 when every context validated, 1 when a
/// failure stopped the run.
pub async fn execute(
    args: &RunArgs,
    input: Input<'_>,
    plan: Plan,
    node: &str,
) -> anyhow::Result<ExitCode> {
    let mut rec = match args.no_evidence {
        true => None,
        false => Some(super::record::Recorder::start(
            &crate::evidence::state_dir(),
            std::path::Path::new(input.file),
            node,
            input.flags,
            input.secrets,
        )?),
    };
    let of = plan.waves.len();
    let mut times = Vec::new();
    let mut history: Vec<(usize, Outcome)> = Vec::new();
    let mut stopped = None;
    // Ctrl-C pauses after the wave under way: its contexts finish (change and gates), no
    // later wave starts, and `--resume` goes on from the journal.
    let pause = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = pause.clone();
    let listener = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            eprintln!(
                "pausing after the wave under way (its contexts finish; no later wave starts)"
            );
        }
    });
    let mut paused = None;
    for (i, wave) in plan.waves.iter().enumerate() {
        if pause.load(std::sync::atomic::Ordering::SeqCst) {
            paused = Some(i);
            break;
        }
        let started = Instant::now();
        let mut done = Vec::new();
        let mut results = stream::iter(wave.iter().cloned())
            .map(|ctx| one(args, &input, &plan, node, ctx))
            .buffer_unordered(plan.parallel);
        while let Some(o) = results.next().await {
            eprintln!(
                "wave {}/{of} · {} · {}",
                i + 1,
                o.context,
                describe(&o.state)
            );
            if let Some(r) = rec.as_mut() {
                journal(r, &o.steps)?;
                r.append(note(i + 1, of, &o))?;
            }
            done.push(o);
        }
        drop(results);
        let breach = match done.iter().any(|o| matches!(o.state, State::Failed(_))) {
            true => None,
            false => soak(&input, &plan, node).await,
        };
        if let Some(b) = &breach {
            eprintln!("wave {}/{of} · {b}", i + 1);
            for o in done.iter_mut() {
                o.state = State::Failed(b.clone());
            }
        }
        let failed = done.iter().any(|o| matches!(o.state, State::Failed(_)));
        history.extend(done.into_iter().map(|o| (i, o)));
        if failed {
            stopped = Some(i);
            break;
        }
        times.push(started.elapsed().as_secs_f64());
        let left = eta(&times, of - i - 1).unwrap_or(0.0);
        eprintln!(
            "wave {}/{of} validated in {:.1} s · ETA {left:.0} s",
            i + 1,
            times[i]
        );
    }
    listener.abort();
    if let Some(i) = paused {
        let left: usize = plan.waves[i..].iter().map(Vec::len).sum();
        let session = rec
            .as_ref()
            .map(|r| r.dir().display().to_string())
            .unwrap_or_default();
        eprintln!("paused before wave {}/{of}: {left} contexts not changed; go on with --resume {session}", i + 1);
        return Ok(ExitCode::from(1));
    }
    let Some(i) = stopped else {
        if let Some(r) = &rec {
            eprintln!("recorded in evidence session {}", r.dir().display());
        }
        eprintln!("all {} contexts validated · {}", plan.count(), own_cost());
        return Ok(ExitCode::SUCCESS);
    };
    let skipped: usize = plan.waves[i + 1..].iter().map(Vec::len).sum();
    eprintln!(
        "stopped at wave {}/{of}: {skipped} contexts in later waves were not changed",
        i + 1
    );
    let wanted: Vec<usize> = (0..history.len())
        .filter(|k| {
            let (w, o) = &history[*k];
            match args.on_failure {
                OnFailure::Stop => false,
                OnFailure::RestoreContext => *w == i && matches!(o.state, State::Failed(_)),
                OnFailure::RestoreWave => *w == i,
                OnFailure::RestoreAll => true,
            }
        })
        .collect();
    let restored: Vec<(usize, (State, Steps))> = stream::iter(wanted)
        .map(|k| {
            let (input, plan, history) = (&input, &plan, &history);
            async move { (k, restore(args, input, plan, node, &history[k].1).await) }
        })
        .buffer_unordered(plan.parallel)
        .collect()
        .await;
    for (k, (state, steps)) in restored {
        let (w, o) = &mut history[k];
        o.state = state;
        eprintln!(
            "wave {}/{of} · {} · {}",
            *w + 1,
            o.context,
            describe(&o.state)
        );
        if let Some(r) = rec.as_mut() {
            journal(r, &steps)?;
            r.append(note(*w + 1, of, o))?;
        }
    }
    if let Some(r) = &rec {
        eprintln!("recorded in evidence session {}", r.dir().display());
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

/// Appends one context's runs (with the records that preceded each: confirmation, prior
/// state) to the session.
fn journal(r: &mut super::record::Recorder, steps: &Steps) -> anyhow::Result<()> {
    for (res, _, before) in steps {
        for b in before {
            r.append(b.clone())?;
        }
        r.probe(res)?;
    }
    Ok(())
}

fn describe(s: &State) -> String {
    match s {
        State::Failed(d) => format!("failed: {d}"),
        State::Restored(d) => format!("restored ({d})"),
        s => s.word().to_string(),
    }
}
