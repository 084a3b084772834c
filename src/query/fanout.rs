//! `tsgnav run --contexts GLOB` and the navigator's `:contexts GLOB` for probes the native
//! kube backend does not answer (shell pipelines, forms handed to kubectl): the probe runs
//! once per matching kubeconfig context
//! (kubectl, oc and helm get that context), 32 at a time, and the answers come back as one
//! result: per table the probe prints, a merged table with a CONTEXT column when every
//! answer prints the same tables, else one labelled section per context; a context that
//! failed is a row with its error (or a labelled line), never the reason others are dropped. A probe that names its own context, or runs no kube
//! tool, is refused with that reason instead of running once.
//!
//! Part of `query`, the IO edge; must not import `evidence`.

use std::path::PathBuf;

use chrono::Utc;
use futures::stream::{self, StreamExt};

use crate::query::kube::fanout::{matching_contexts, DEFAULT_CONCURRENCY};
use crate::query::runner::Runner;
use crate::query::{
    Backend, Cancel, OutputSink, ProbeError, ProbeRequest, ProbeResult, Status, Table,
};
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
        ProbeResult::failed(req.id, Backend::Shell, req.target.shown(), req.code, e)
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
    assemble(&mut result, &answers);
    result.ended = Utc::now();
    result
}

/// The fan-out's answer from each context's: merged tables (failures as rows) or labelled
/// sections, the per-context answers and the status.
fn assemble(result: &mut ProbeResult, answers: &[(String, ProbeResult)]) {
    let mut out = OutputSink::detached(result.id.clone());
    let oks: Vec<(&str, String)> = answers
        .iter()
        .filter(|(_, r)| r.status.is_ok())
        .map(|(c, r)| (c.as_str(), r.output.text()))
        .collect();
    let failed: Vec<(&str, String)> = answers
        .iter()
        .filter(|(_, r)| !r.status.is_ok())
        .map(|(c, r)| (c.as_str(), r.status.describe()))
        .collect();
    match merge_tables(&oks) {
        Some(mut tables) => {
            for t in &mut tables {
                failure_rows(t, &failed);
                out.write_str(&t.render());
            }
            result.table = tables.first().cloned();
            result.tables = tables;
        }
        None => {
            for (ctx, text) in &oks {
                out.write_str(&format!("── context {ctx}\n{text}"));
                if !text.ends_with('\n') {
                    out.write_str("\n");
                }
            }
            for (ctx, why) in &failed {
                out.write_str(&format!("── context {ctx}: {why}\n"));
            }
        }
    }
    result.contexts = crate::query::ContextAnswer::collect(
        answers
            .iter()
            .map(|(c, r)| (c.as_str(), (!r.status.is_ok()).then(|| r.status.describe()))),
    );
    let cancelled = |r: &ProbeResult| matches!(r.status, Status::Failed(ProbeError::Cancelled));
    if answers.iter().any(|(_, r)| cancelled(r)) {
        // Esc stops every context: the run was cancelled, not failed.
        result.status = Status::Failed(ProbeError::Cancelled);
    } else if !failed.is_empty() {
        result.status = crate::query::kube::fanout_status(&result.contexts);
    }
    result.output = out.finish();
}

/// A row for each context that failed, its error in an ERROR column added for them, so the
/// table says which clusters did not answer beside the rows of those that did.
fn failure_rows(t: &mut Table, failed: &[(&str, String)]) {
    if failed.is_empty() {
        return;
    }
    let width = t.columns.len();
    t.columns.push("ERROR".into());
    for r in &mut t.rows {
        r.push(String::new());
    }
    for (ctx, why) in failed {
        let mut r = vec![ctx.to_string()];
        r.resize(width, String::new());
        r.push(why.clone());
        t.rows.push(r);
    }
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

/// One table of an answer: its header line and its rows.
type Section<'a> = (&'a str, Vec<&'a str>);

/// An answer cut into its tables: each starts at a header line. `None` when something else
/// comes before the first header (a count, a message), which is no table.
fn sections(text: &str) -> Option<Vec<Section<'_>>> {
    let mut out: Vec<Section<'_>> = Vec::new();
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        match out.last_mut() {
            _ if is_header(l) => out.push((l, Vec::new())),
            Some((_, rows)) => rows.push(l),
            None => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// One table per table the probe prints (a probe of two `kubectl get`s prints two), each
/// with a CONTEXT column, when every answer prints tables with the same headers in the
/// same order.
pub fn merge_tables(answers: &[(&str, String)]) -> Option<Vec<Table>> {
    let names = |h: &str| -> Vec<String> {
        let chars: Vec<char> = h.chars().collect();
        cells(&chars, &column_starts(h))
    };
    let cut: Vec<(&str, Vec<Section<'_>>)> = answers
        .iter()
        .map(|(ctx, text)| sections(text).map(|s| (*ctx, s)))
        .collect::<Option<_>>()?;
    let (_, first) = cut.first()?;
    let headers: Vec<Vec<String>> = first.iter().map(|(h, _)| names(h)).collect();
    let mut tables: Vec<Table> = headers
        .iter()
        .map(|cols| {
            let mut columns = vec!["CONTEXT".to_string()];
            columns.extend(cols.iter().cloned());
            Table {
                columns,
                rows: Vec::new(),
            }
        })
        .collect();
    for (ctx, secs) in &cut {
        if secs.len() != headers.len() {
            return None;
        }
        for (k, (h, lines)) in secs.iter().enumerate() {
            if names(h) != headers[k] {
                return None;
            }
            let starts = column_starts(h);
            for l in lines {
                let chars: Vec<char> = l.chars().collect();
                let mut row = vec![ctx.to_string()];
                row.extend(cells(&chars, &starts));
                tables[k].rows.push(row);
            }
        }
    }
    Some(tables)
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
        let t = merge_tables(&[("mc-1", a), ("mc-2", b)])
            .expect("table")
            .remove(0);
        assert_eq!(t.columns, vec!["CONTEXT", "NAME", "LAST SEEN", "STATUS"]);
        assert_eq!(t.rows[1], vec!["mc-2", "pod-longer", "2d", "Pending"]);
        let n = merge_tables(&[("mc-1", "3\n".to_string())]);
        assert!(n.is_none(), "a count is not a table");
    }

    #[test]
    fn two_tables_of_one_probe_stay_two_tables() {
        let answer = |node: &str, pod: &str| {
            format!("NAME  POOL\n{node}   user\n\nLAST SEEN  REASON\n4m         FailedScheduling {pod}\n")
        };
        let t = merge_tables(&[
            ("mc-1", answer("n-1", "p-1")),
            ("mc-2", answer("n-2", "p-2")),
        ])
        .expect("tables");
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!(t[0].columns, vec!["CONTEXT", "NAME", "POOL"]);
        assert_eq!(
            t[0].rows,
            vec![vec!["mc-1", "n-1", "user"], vec!["mc-2", "n-2", "user"]]
        );
        assert_eq!(t[1].columns, vec!["CONTEXT", "LAST SEEN", "REASON"]);
        assert_eq!(t[1].rows.len(), 2);
        assert!(t[1].rows[1][2].starts_with("FailedScheduling"), "{t:?}");
        // A context that prints only one of the two: not one table any more.
        let short = ("mc-3", "NAME  POOL\nn-3   user\n".to_string());
        let three = [("mc-1", answer("n-1", "p-1")), short];
        assert!(merge_tables(&three).is_none());
    }

    #[test]
    fn a_failed_context_is_a_row_with_its_error() {
        let mut t = Table {
            columns: vec!["CONTEXT".into(), "NAME".into()],
            rows: vec![vec!["mc-1".into(), "n-1".into()]],
        };
        failure_rows(&mut t, &[("mc-9", "connection refused".into())]);
        assert_eq!(t.columns, vec!["CONTEXT", "NAME", "ERROR"]);
        assert_eq!(
            t.rows,
            vec![
                vec!["mc-1", "n-1", ""],
                vec!["mc-9", "", "connection refused"]
            ]
        );
    }
}
