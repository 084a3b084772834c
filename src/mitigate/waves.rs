//! Fleet mitigation in waves, the pure planning part: the wave sizes an operator asks for
//! (`1,5%,20%,rest`), the split of the matching contexts into waves (canary first), the
//! phrase typed back to confirm (`mc-brazilsouth-* · 50 contexts`), the `[[policy]]` entries
//! that apply to each context (read-only, waves required, a maximum wave size, a phrase), and
//! the per-context states a progress table shows. Running the waves is the CLI's and the
//! runtime's; this module decides nothing that needs IO.
//!
//! Pure: must not import IO, `query`, `evidence`, `cli`, `tui` or `nav`.

use std::fmt;

use serde::Deserialize;

use super::glob::glob;

/// One wave's size as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveSize {
    /// `1`, `10`: that many contexts.
    Count(usize),
    /// `5%`: that share of all contexts, rounded up, at least one.
    Percent(u32),
    /// `rest`: every context not yet in a wave.
    Rest,
}

/// The waves asked for, in order. After the last size, if contexts remain and no `rest` was
/// written, the last size repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveSpec(pub Vec<WaveSize>);

/// Why a wave spec, a plan or a confirmation is refused (the message names the fix).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WaveError {
    #[error("--waves `{spec}`: `{part}` is not a wave size; write counts, percentages and `rest`, e.g. `1,5%,20%,rest`")]
    BadSize { spec: String, part: String },
    #[error("--waves `{0}`: `rest` must be the last wave")]
    RestNotLast(String),
    #[error("no kube context matches `{0}`: check the glob against `kubectl config get-contexts`")]
    NoContexts(String),
    #[error("{context} is read-only by the policy `{policy}` in the config file: no mitigation may run there")]
    ReadOnly { context: String, policy: String },
    #[error("{context} requires waves by the policy `{policy}`: run it with --contexts and --waves (the wave plan)")]
    WavesRequired { context: String, policy: String },
    #[error("the typed confirmation `{typed}` is not `{expected}`: type the glob and the count back exactly")]
    Phrase { typed: String, expected: String },
}

impl WaveSpec {
    /// Parses `1,5%,20%,rest`.
    pub fn parse(spec: &str) -> Result<Self, WaveError> {
        let mut sizes = Vec::new();
        for part in spec.split(',').map(str::trim) {
            let bad = || WaveError::BadSize {
                spec: spec.to_string(),
                part: part.to_string(),
            };
            if sizes.last() == Some(&WaveSize::Rest) {
                return Err(WaveError::RestNotLast(spec.to_string()));
            }
            let size = if part.eq_ignore_ascii_case("rest") {
                WaveSize::Rest
            } else if let Some(p) = part.strip_suffix('%') {
                match p.trim().parse::<u32>() {
                    Ok(n) if (1..=100).contains(&n) => WaveSize::Percent(n),
                    _ => return Err(bad()),
                }
            } else {
                match part.parse::<usize>() {
                    Ok(n) if n > 0 => WaveSize::Count(n),
                    _ => return Err(bad()),
                }
            };
            sizes.push(size);
        }
        Ok(WaveSpec(sizes))
    }

    fn count(size: WaveSize, total: usize, left: usize) -> usize {
        match size {
            WaveSize::Count(n) => n,
            WaveSize::Percent(p) => (total * p as usize).div_ceil(100).max(1),
            WaveSize::Rest => left,
        }
    }
}

/// Splits `contexts` (in the order given, the canary first) into waves; a wave larger than
/// `max_wave` is cut into waves of at most that size.
pub fn plan(contexts: &[String], spec: &WaveSpec, max_wave: Option<usize>) -> Vec<Vec<String>> {
    let total = contexts.len();
    let cap = max_wave.filter(|m| *m > 0).unwrap_or(usize::MAX);
    let mut waves = Vec::new();
    let mut at = 0;
    let mut sizes = spec.0.iter().copied();
    let mut last = WaveSize::Rest;
    while at < total {
        let size = sizes.next().unwrap_or(last);
        last = size;
        let n = WaveSpec::count(size, total, total - at).clamp(1, total - at);
        for chunk in contexts[at..at + n].chunks(cap) {
            waves.push(chunk.to_vec());
        }
        at += n;
    }
    waves
}

/// One `[[policy]]` entry of the config file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The contexts it covers (`mc-prod-*`).
    #[serde(rename = "match")]
    pub glob: String,
    /// No mitigation may run on these contexts.
    #[serde(default)]
    pub read_only: bool,
    /// A mitigation may run here only as part of a wave plan.
    #[serde(default)]
    pub require_waves: bool,
    /// The largest wave allowed.
    #[serde(default)]
    pub max_wave: Option<usize>,
    /// Words the operator must type after the glob and the count.
    #[serde(default)]
    pub phrase: Option<String>,
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.glob)?;
        if self.read_only {
            write!(f, " read-only")?;
        }
        if self.require_waves {
            write!(f, " waves required")?;
        }
        if let Some(m) = self.max_wave {
            write!(f, " at most {m} per wave")?;
        }
        if let Some(p) = &self.phrase {
            write!(f, " phrase \"{p}\"")?;
        }
        Ok(())
    }
}

/// The policies that cover `context`, in config order.
pub fn policies_for<'a>(policies: &'a [Policy], context: &str) -> Vec<&'a Policy> {
    policies.iter().filter(|p| glob(&p.glob, context)).collect()
}

/// What the policies make of a set of contexts: refused outright (a read-only one), or the
/// smallest maximum wave size and the phrases to type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied<'a> {
    pub max_wave: Option<usize>,
    pub phrases: Vec<String>,
    /// Every policy that covers at least one of the contexts.
    pub policies: Vec<&'a Policy>,
}

/// Applies `policies` to a change aimed at `contexts`; `in_waves` says whether it is a wave
/// plan (a single confirmed run is not).
pub fn apply<'a>(
    policies: &'a [Policy],
    contexts: &[String],
    in_waves: bool,
) -> Result<Applied<'a>, WaveError> {
    let mut out = Applied::default();
    for c in contexts {
        for p in policies_for(policies, c) {
            if p.read_only {
                return Err(WaveError::ReadOnly {
                    context: c.clone(),
                    policy: p.glob.clone(),
                });
            }
            if p.require_waves && !in_waves {
                return Err(WaveError::WavesRequired {
                    context: c.clone(),
                    policy: p.glob.clone(),
                });
            }
            if let Some(m) = p.max_wave {
                out.max_wave = Some(out.max_wave.map_or(m, |o| o.min(m)));
            }
            if let Some(ph) = &p.phrase {
                if !out.phrases.contains(ph) {
                    out.phrases.push(ph.clone());
                }
            }
            if !out.policies.contains(&p) {
                out.policies.push(p);
            }
        }
    }
    Ok(out)
}

/// The text typed back to confirm a wave plan: `GLOB · N contexts`, then each policy phrase.
pub fn phrase(glob: &str, count: usize, phrases: &[String]) -> String {
    let noun = if count == 1 { "context" } else { "contexts" };
    let mut s = format!("{glob} · {count} {noun}");
    for p in phrases {
        s.push_str(" · ");
        s.push_str(p);
    }
    s
}

/// The text typed back to confirm one change on `context`: the context's name, then each
/// phrase its policies ask for (`mc-prod-1 · window open`).
pub fn single_phrase(context: &str, phrases: &[String]) -> String {
    let mut s = context.to_string();
    for p in phrases {
        s.push_str(" · ");
        s.push_str(p);
    }
    s
}

/// Checks the typed confirmation against [`phrase`]; runs of spaces count as one, and `.`
/// may stand for the middle dot (it is hard to type).
pub fn check_phrase(typed: &str, expected: &str) -> Result<(), WaveError> {
    let norm = |s: &str| {
        s.split_whitespace()
            .map(|w| if w == "." { "·" } else { w })
            .collect::<Vec<_>>()
            .join(" ")
    };
    if norm(typed) == norm(expected) {
        Ok(())
    } else {
        Err(WaveError::Phrase {
            typed: typed.to_string(),
            expected: expected.to_string(),
        })
    }
}

/// What a wave run does once a failed validation (or a soak breach) stopped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Nothing more: the mitigations stay open.
    Stop,
    /// Restore the contexts of the failing wave that failed.
    RestoreFailed,
    /// Restore every context of the failing wave.
    RestoreWave,
    /// Restore every context the run changed, in every wave.
    RestoreAll,
}

/// Where one context stands in a wave run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Pending,
    Mutating,
    Validating,
    Soaking,
    Ok,
    Failed(String),
    Restored(String),
    /// Not run: an earlier wave failed or the run was stopped.
    Skipped,
}

impl State {
    /// The word the progress table shows.
    pub fn word(&self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Mutating => "mutating",
            State::Validating => "validating",
            State::Soaking => "soaking",
            State::Ok => "ok",
            State::Failed(_) => "failed",
            State::Restored(_) => "restored",
            State::Skipped => "skipped",
        }
    }

    /// Parses [`State::word`] back (the journal's wave records), without the detail.
    pub fn from_word(w: &str) -> Option<State> {
        Some(match w {
            "pending" => State::Pending,
            "ok" => State::Ok,
            "failed" => State::Failed(String::new()),
            "restored" => State::Restored(String::new()),
            "skipped" => State::Skipped,
            _ => return None,
        })
    }
}

/// The journal note for one context's state in a wave: `wave 2/4 · mc-westus3-1 · ok`
/// (then ` · detail` for a failure or a restore). [`parse_note`] reads it back.
pub fn note_text(wave: usize, of: usize, context: &str, state: &State) -> String {
    let detail = match state {
        State::Failed(d) | State::Restored(d) => format!(" · {d}"),
        _ => String::new(),
    };
    format!("wave {wave}/{of} · {context} · {}{detail}", state.word())
}

/// The context and state of a [`note_text`] (the detail left out).
pub fn parse_note(text: &str) -> Option<(String, State)> {
    let mut parts = text.split(" · ");
    parts.next()?.strip_prefix("wave ")?;
    let context = parts.next()?.to_string();
    let state = State::from_word(parts.next()?)?;
    Some((context, state))
}

/// The contexts a journal's wave notes (in order) leave done: the last word on each is `ok`.
pub fn done_contexts<'a>(notes: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut last: Vec<(String, State)> = Vec::new();
    for (ctx, state) in notes.into_iter().filter_map(parse_note) {
        last.retain(|(c, _)| *c != ctx);
        last.push((ctx, state));
    }
    last.into_iter()
        .filter(|(_, s)| *s == State::Ok)
        .map(|(c, _)| c)
        .collect()
}

/// The time left, from the contexts done so far: the mean time per wave of the waves done
/// times the waves left (seconds; `None` before the first wave ends).
pub fn eta(done_waves: &[f64], waves_left: usize) -> Option<f64> {
    if done_waves.is_empty() {
        return None;
    }
    let mean = done_waves.iter().sum::<f64>() / done_waves.len() as f64;
    Some(mean * waves_left as f64)
}

#[cfg(test)]
#[path = "waves_tests.rs"]
mod tests;
