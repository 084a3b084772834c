//! How `tsgnav run` shows a result: JSON (one object per probe) or text. Part of the CLI edge.

use serde_json::{json, Value};

use crate::query::{Backend, ProbeResult, Status};

pub fn to_json(r: &ProbeResult) -> Value {
    let (status, error, exit) = match &r.status {
        Status::Ok { exit } => ("ok", Value::Null, json!(exit)),
        Status::Failed(crate::query::ProbeError::Refused { .. }) => {
            ("refused", json!(r.status.describe()), Value::Null)
        }
        Status::Failed(e @ crate::query::ProbeError::Exit { code }) => {
            ("failed", json!(e.to_string()), json!(code))
        }
        Status::Failed(e) => ("failed", json!(e.to_string()), Value::Null),
    };
    let mut v = json!({
        "probe": r.id, "backend": r.backend, "target": r.target, "command": r.command_as_run,
        "ran": r.ran,
        "status": status, "error": error, "exit": exit,
        "started": r.started.to_rfc3339(), "duration_ms": r.duration().as_millis() as u64,
        "output": r.output.text(), "table": r.table, "sandbox": r.sandbox,
    });
    // A read-only shell probe whose requests travel inside TLS (az, curl to https://): only
    // the classifier vouches for it. Present only where it applies.
    if r.backend == Backend::Shell
        && crate::safety::classify(&r.command_as_run).class == crate::tsg::SafetyClass::ReadOnly
    {
        if let Some(why) = crate::safety::classifier_only(&r.command_as_run) {
            v["read_only_by_classifier_only"] = json!(why);
        }
    }
    // Every table of a probe of several commands, and a fan-out's answer per context.
    if r.tables.len() > 1 {
        v["tables"] = json!(r.tables);
    }
    if !r.contexts.is_empty() {
        v["contexts"] = json!(r.contexts);
    }
    // The Kubernetes requests the read-only proxy decided, when the probe made any.
    if !r.api.is_empty() {
        v["api"] = json!(r.api);
    }
    v
}

pub fn render(r: &ProbeResult) -> String {
    let mut s = format!("── {} [{}] {}\n", r.id, r.backend, r.target);
    for line in r.command_as_run.lines() {
        s.push_str(&format!("$ {line}\n"));
    }
    match &r.table {
        // Shell and kube output is already what kubectl printed (`--no-headers` included).
        Some(t) if !matches!(r.backend, Backend::Shell | Backend::Kube) => s.push_str(&t.render()),
        _ => s.push_str(&r.output.text()),
    }
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&format!(
        "=> {} ({} ms)\n\n",
        r.status.describe(),
        r.duration().as_millis()
    ));
    s
}

/// How a run's results are printed.
pub struct Print<'a> {
    /// `FILE#slug`.
    pub node: &'a str,
    pub json: bool,
    /// Redacts what is printed; `None` with `--no-redact`.
    pub redactor: Option<&'a crate::evidence::Redactor>,
}

impl Print<'_> {
    /// Prints every result: one JSON object for the node, or each result as text. Output is
    /// data: on a terminal, what would act on it (titles, OSC 52, cursor moves, a bare CR,
    /// bidi controls) is written as visible tokens.
    pub fn results(
        &self,
        out: &mut impl std::io::Write,
        results: &[(ProbeResult, bool)],
    ) -> std::io::Result<()> {
        if self.json {
            let all: Vec<Value> = results.iter().map(|(r, _)| to_json(r)).collect();
            let mut v = json!({ "node": self.node, "results": all });
            if let Some(redactor) = self.redactor {
                crate::evidence::redact_value(redactor, &mut v);
            }
            return writeln!(out, "{v}");
        }
        if results.is_empty() {
            writeln!(out, "{} has no probes to run.", self.node)?;
        }
        use std::io::IsTerminal as _;
        let tty = std::io::stdout().is_terminal();
        for (r, _) in results {
            let text = render(r);
            let text = match self.redactor {
                Some(redactor) => redactor.redact_str(&text).0,
                None => text,
            };
            match tty {
                true => write!(out, "{}", crate::human::visible::visible(&text))?,
                false => write!(out, "{text}")?,
            }
        }
        Ok(())
    }
}
