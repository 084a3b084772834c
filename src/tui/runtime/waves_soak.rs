//! The soak after a wave validated: each gate with `{soak=5m abort_if="<PromQL>"}` has its
//! query evaluated every `every=` (30 s by default) against Prometheus until the soak ends;
//! any series returned is a breach. Part of the wave engine ([`super::waves_engine`]), the
//! IO edge; must not import `cli`.

use std::time::{Duration, Instant};

use super::waves_engine::{Engine, Observer, SOAK_EVERY};
use super::waves_plan::Plan;
use crate::mitigate::waves::State;
use crate::query::Status;
use crate::tsg::{Lang, Probe};

/// Evaluates each soak gate's `abort_if` until its soak ends; the breach, if any. The
/// contexts of wave `wave` show as soaking meanwhile.
pub async fn soak<O: Observer>(
    engine: &Engine<'_>,
    plan: &Plan,
    wave: usize,
    contexts: &[&str],
    obs: &mut O,
) -> Option<String> {
    let soaks: Vec<(&Probe, Duration, Duration, &String)> = plan
        .gates
        .iter()
        .filter_map(|g| {
            let d = crate::query::parse_duration(g.attrs.get("soak")?)?;
            let every = g
                .attrs
                .get("every")
                .and_then(|e| crate::query::parse_duration(e))
                .unwrap_or(SOAK_EVERY);
            Some((g, d, every, g.attrs.get("abort_if")?))
        })
        .collect();
    if soaks.is_empty() {
        return None;
    }
    for c in contexts {
        (engine.progress)(wave, c, &State::Soaking);
    }
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let runner =
        crate::query::runner::Runner::new(Default::default(), engine.executors.clone(), tx);
    for (gate, length, every, query) in soaks {
        let from = chrono::Utc::now().timestamp_millis() as f64 / 1000.0;
        obs.line(&format!(
            "soaking {length:?} from {from:.3}: abort if {query} (every {every:?})"
        ));
        let end = Instant::now() + length;
        loop {
            if let Some(breach) = check(engine, &runner, gate, query).await {
                return Some(breach);
            }
            if Instant::now() + every > end {
                break;
            }
            tokio::time::sleep(every).await;
        }
    }
    for c in contexts {
        (engine.progress)(wave, c, &State::Ok);
    }
    None
}

/// One evaluation of `query`: the breach or the failure, if any.
async fn check(
    engine: &Engine<'_>,
    runner: &crate::query::runner::Runner,
    gate: &Probe,
    query: &str,
) -> Option<String> {
    let probe = Probe::from_code(Lang::Promql, query);
    let values = engine.vars.resolve(Lang::Promql, query).unwrap_or_default();
    let req = match crate::query::ProbeRequest::from_probe_with(engine.node, &probe, values, None) {
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
            Some(format!(
                "soak breached at {at}: {query} returned {series} series"
            ))
        }
        Status::Ok { .. } => None,
        s => Some(format!("soak check failed: {query}: {}", s.describe())),
    }
}
