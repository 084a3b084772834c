//! `tsgnav run --contexts GLOB` and the navigator's `:contexts GLOB` for probes the native
//! kube backend does not answer (shell pipelines, forms handed to kubectl): the probe runs
//! once per matching kubeconfig context
//! (kubectl, oc and helm get that context), 32 at a time, and the answers come back as one
//! result, a merged table with a CONTEXT column when every answer is the same table, else
//! one labelled section per context. A probe that names its own context, or runs no kube
//! tool, is refused with that reason instead of running once.
//!
//! Part of `query`, the IO edge; must not import `evidence`.

use std::path::PathBuf;

use chrono::Utc;
use futures::stream::{self, StreamExt};

use crate::query::kube::fanout::{matching_contexts, DEFAULT_CONCURRENCY};
use crate::query::runner::Runner;
use crate::query::{Backend, Cancel, OutputSink, ProbeError, ProbeRequest, ProbeResult, Table};
use crate::tsg::invocation::{self, Role};
use crate::tsg::shell;

/// Why `code` cannot be fanned out, if it cannot.
pub fn refusal(code: &str) -> Option<String> {
    let parsed = shell::parse(code);
    let kube = |c: &shell::SimpleCommand| {
        matches!(
            c.name().map(shell::basename),
            Some("kubectl" | "oc" | "helm")
        )
    };
    let tools: Vec<&shell::SimpleCommand> = parsed.commands.iter().filter(|c| kube(c)).collect();
    if tools.is_empty() {
        return Some("it runs no kubectl, oc or helm, so there is nothing to fan out".into());
    }
    let own = tools
        .iter()
        .filter_map(|c| invocation::of_command(c))
        .flat_map(|i| i.flags)
        .find(|f| {
            matches!(
                f.role,
                Some(Role::Context | Role::Kubeconfig | Role::Server)
            )
        })
        .map(|f| f.name);
    own.map(|w| format!("it names its own target ({w}), which would be the same for every context"))
}

/// Runs `req` once per context of `kubeconfig` matching `pattern`; `cancel` stops every
/// context's run.
pub async fn run(
    runner: &Runner,
    req: ProbeRequest,
    kubeconfig: Option<PathBuf>,
    pattern: &str,
    cancel: Cancel,
) -> ProbeResult {
    let started = Utc::now();
    let fail = |req: ProbeRequest, e: ProbeError| {
        ProbeResult::failed(req.id, Backend::Shell, req.target.describe(), req.code, e)
    };
    if let Some(why) = refusal(&req.code) {
        let e = ProbeError::Refused {
            class: req.class,
            reason: format!("--contexts {pattern:?} cannot fan this probe out: {why}"),
            what: "run it without --contexts, once per --context".into(),
        };
        return fail(req, e);
    }
    let Some(path) = crate::query::kube::default_kubeconfig(kubeconfig.clone()) else {
        let detail = "no kubeconfig to list contexts from: pass --kubeconfig or set KUBECONFIG";
        return fail(
            req,
            ProbeError::Config {
                detail: detail.into(),
            },
        );
    };
    let contexts = match matching_contexts(&path, pattern) {
        Ok(c) if c.is_empty() => {
            let detail = format!("no context in {} matches {pattern:?}", path.display());
            return fail(req, ProbeError::Config { detail });
        }
        Ok(c) => c,
        Err(e) => return fail(req, e.to_probe_error()),
    };
    let answers: Vec<(String, ProbeResult)> = stream::iter(contexts.clone())
        .map(|ctx| {
            let mut one = req.clone();
            one.target.kube_context = Some(ctx.clone());
            one.target.kubeconfig = Some(path.clone());
            let cancel = cancel.clone();
            async move { (ctx, runner.run(one, cancel).await) }
        })
        .buffered(DEFAULT_CONCURRENCY)
        .collect()
        .await;
    let mut result = ProbeResult::new(
        req.id.clone(),
        Backend::Shell,
        format!("{} contexts matching {pattern:?}", contexts.len()),
        req.code.trim_end().to_string(),
        started,
    );
    result.ran = Some(format!(
        "bash, once per context ({} at a time); fanned out over: {}",
        DEFAULT_CONCURRENCY,
        contexts.join(", ")
    ));
    let mut out = OutputSink::detached(req.id.clone());
    let oks: Vec<(&str, String)> = answers
        .iter()
        .filter(|(_, r)| r.status.is_ok())
        .map(|(c, r)| (c.as_str(), r.output.text()))
        .collect();
    match merge_tables(&oks) {
        Some(t) => {
            out.write_str(&t.render());
            result.table = Some(t);
        }
        None => {
            for (ctx, text) in &oks {
                out.write_str(&format!("── context {ctx}\n{text}"));
                if !text.ends_with('\n') {
                    out.write_str("\n");
                }
            }
        }
    }
    for (ctx, r) in answers.iter().filter(|(_, r)| !r.status.is_ok()) {
        out.write_str(&format!("── context {ctx}: {}\n", r.status.describe()));
    }
    if let Some((_, r)) = answers.iter().find(|(_, r)| !r.status.is_ok()) {
        result.status = r.status.clone();
    }
    result.output = out.finish();
    result.ended = Utc::now();
    result
}

/// Column starts of a kubectl header line: words after two or more blanks (`LAST SEEN` stays
/// one column).
fn column_starts(header: &str) -> Vec<usize> {
    let chars: Vec<char> = header.chars().collect();
    let mut starts = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        let after_gap = i == 0 || (i >= 2 && chars[i - 1] == ' ' && chars[i - 2] == ' ');
        if *c != ' ' && after_gap {
            starts.push(i);
        }
    }
    starts
}

fn is_header(line: &str) -> bool {
    line.chars().any(|c| c.is_ascii_uppercase())
        && line
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || " -_()%/.".contains(c))
}

/// One table with a CONTEXT column, when every answer is a table with the same header.
pub fn merge_tables(answers: &[(&str, String)]) -> Option<Table> {
    let (_, first) = answers.first()?;
    let header = first.lines().next().filter(|h| is_header(h))?;
    let names = |h: &str| -> Vec<String> {
        let chars: Vec<char> = h.chars().collect();
        let starts = column_starts(h);
        cells(&chars, &starts)
    };
    let columns = names(header);
    let mut rows = Vec::new();
    for (ctx, text) in answers {
        let mut lines = text.lines();
        let h = lines.next()?;
        if names(h) != columns {
            return None;
        }
        let starts = column_starts(h);
        for l in lines.filter(|l| !l.trim().is_empty()) {
            let chars: Vec<char> = l.chars().collect();
            let mut row = vec![ctx.to_string()];
            row.extend(cells(&chars, &starts));
            rows.push(row);
        }
    }
    let mut all = vec!["CONTEXT".to_string()];
    all.extend(columns);
    Some(Table { columns: all, rows })
}

fn cells(chars: &[char], starts: &[usize]) -> Vec<String> {
    starts
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let end = starts
                .get(k + 1)
                .copied()
                .unwrap_or(chars.len())
                .min(chars.len());
            let s = (*s).min(end);
            chars[s..end].iter().collect::<String>().trim().to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_cannot_fan_out() {
        assert!(refusal("echo hi | grep h").unwrap().contains("no kubectl"));
        assert!(refusal("kubectl get pods --context mc-1 | wc -l")
            .unwrap()
            .contains("--context"));
        assert!(refusal("helm list --kube-context=x").is_some());
        assert_eq!(refusal("kubectl get pods -A | grep -v Running"), None);
        assert_eq!(refusal("oc get nodes | awk '{print $1}'"), None);
    }

    #[test]
    fn merges_tables_with_their_own_widths() {
        let a = "NAME   LAST SEEN   STATUS\npod-a  5m          Running\n".to_string();
        let b = "NAME        LAST SEEN  STATUS\npod-longer  2d         Pending\n".to_string();
        let t = merge_tables(&[("mc-1", a), ("mc-2", b)]).expect("table");
        assert_eq!(t.columns, vec!["CONTEXT", "NAME", "LAST SEEN", "STATUS"]);
        assert_eq!(t.rows[1], vec!["mc-2", "pod-longer", "2d", "Pending"]);
        let n = merge_tables(&[("mc-1", "3\n".to_string())]);
        assert!(n.is_none(), "a count is not a table");
    }
}
