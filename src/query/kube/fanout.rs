//! Fan-out: the same native command across every kubeconfig context matching a glob
//! (`mc-*`), at most `concurrency` at a time, with a progress callback and one combined table
//! that starts with a CONTEXT column — the blast radius across management clusters; a
//! context that fails is a row of that table with its error, the others' rows all kept.

use std::path::Path;
use std::time::Duration;

use futures::stream::{self, StreamExt};

use super::super::Table;
use super::client::KubeClient;
use super::error::KubeError;
use super::kubeconfigs::shared as read_kubeconfig;
use super::parse::KubeCommand;
use super::run::{run_on, KubeOutput, DEFAULT_TIMEOUT};

/// The default number of contexts queried at once.
pub const DEFAULT_CONCURRENCY: usize = 32;

/// How to fan out.
#[derive(Debug, Clone)]
pub struct FanOutOptions {
    pub concurrency: usize,
    pub timeout: Duration,
    /// Namespace for commands without `-n`.
    pub namespace: Option<String>,
}

impl Default for FanOutOptions {
    fn default() -> Self {
        FanOutOptions {
            concurrency: DEFAULT_CONCURRENCY,
            timeout: DEFAULT_TIMEOUT,
            namespace: None,
        }
    }
}

/// One context finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub context: String,
    pub ok: bool,
    pub done: usize,
    pub total: usize,
}

/// Every context's outcome (in kubeconfig order) and the combined table.
#[derive(Debug)]
pub struct FanOut {
    pub table: Table,
    pub outputs: Vec<(String, Result<KubeOutput, KubeError>)>,
}

impl FanOut {
    /// The contexts that failed, with why.
    pub fn failures(&self) -> impl Iterator<Item = (&str, &KubeError)> {
        self.outputs
            .iter()
            .filter_map(|(c, r)| r.as_ref().err().map(|e| (c.as_str(), e)))
    }
}

pub use crate::mitigate::glob::glob;

/// The contexts of `kubeconfig` matching `pattern`, in file order.
pub fn matching_contexts(kubeconfig: &Path, pattern: &str) -> Result<Vec<String>, KubeError> {
    let kc = read_kubeconfig(kubeconfig)?;
    Ok(kc
        .contexts
        .iter()
        .map(|c| c.name.clone())
        .filter(|n| glob(pattern, n))
        .collect())
}

/// Checks a context named on the command line against the kubeconfig (`explicit`, else
/// `KUBECONFIG`, else `~/.kube/config`): an unknown one is refused with the file and the
/// contexts it has. A kubeconfig that cannot be read is left to the backends to report.
pub fn check_context(explicit: Option<std::path::PathBuf>, context: &str) -> Result<(), String> {
    let Some(path) = super::default_kubeconfig(explicit) else {
        return Ok(());
    };
    let Ok(kc) = read_kubeconfig(&path) else {
        return Ok(());
    };
    let names: Vec<&str> = kc.contexts.iter().map(|c| c.name.as_str()).collect();
    if names.contains(&context) {
        return Ok(());
    }
    let known = if names.is_empty() {
        String::from("none")
    } else {
        names.join(", ")
    };
    Err(format!(
        "--context {context}: the kubeconfig {} has no such context (its contexts: {known}); \
         pass one of them with --context, or add it to the kubeconfig",
        path.display()
    ))
}

/// Runs `cmd` on every context matching `pattern`; `progress` is called as each finishes.
pub async fn fan_out(
    cmd: &KubeCommand,
    kubeconfig: &Path,
    pattern: &str,
    opts: &FanOutOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<FanOut, KubeError> {
    let kc = read_kubeconfig(kubeconfig)?;
    let contexts: Vec<String> = kc
        .contexts
        .iter()
        .map(|c| c.name.clone())
        .filter(|n| glob(pattern, n))
        .collect();
    if contexts.is_empty() {
        let known: Vec<&str> = kc
            .contexts
            .iter()
            .map(|c| c.name.as_str())
            .take(10)
            .collect();
        return Err(KubeError::Usage(format!(
            "no context in {} matches {pattern:?} (contexts there: {})",
            kubeconfig.display(),
            known.join(", ")
        )));
    }
    let total = contexts.len();
    let kc = &kc;
    let jobs: Vec<_> = contexts
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, ctx)| async move {
            let res = async {
                let client = KubeClient::new(kc, kubeconfig, Some(&ctx), opts.timeout).await?;
                run_on(&client, cmd, opts.namespace.as_deref()).await
            }
            .await;
            (i, res)
        })
        .collect();
    let mut results: Vec<Option<Result<KubeOutput, KubeError>>> =
        (0..total).map(|_| None).collect();
    let mut stream = stream::iter(jobs).buffer_unordered(opts.concurrency.max(1));
    let mut done = 0;
    while let Some((i, res)) = stream.next().await {
        done += 1;
        progress(&Progress {
            context: contexts[i].clone(),
            ok: res.is_ok(),
            done,
            total,
        });
        results[i] = Some(res);
    }
    drop(stream);
    let outputs: Vec<(String, Result<KubeOutput, KubeError>)> = contexts
        .into_iter()
        .zip(results)
        .map(|(c, r)| {
            (
                c,
                r.unwrap_or_else(|| Err(KubeError::Usage("context was not queried".into()))),
            )
        })
        .collect();
    Ok(FanOut {
        table: combine(&outputs),
        outputs,
    })
}

/// One table with a CONTEXT column, in kubeconfig order: every healthy context's rows, and
/// a row for each context that failed, its error in an ERROR column (present only then), so
/// that one unreachable cluster never hides what the others answered.
pub fn combine(outputs: &[(String, Result<KubeOutput, KubeError>)]) -> Table {
    let mut table = Table {
        columns: vec!["CONTEXT".into()],
        rows: Vec::new(),
    };
    if let Some(t) = outputs
        .iter()
        .find_map(|(_, r)| r.as_ref().ok().and_then(|o| o.table.as_ref()))
    {
        table.columns.extend(t.columns.iter().cloned());
    }
    let width = table.columns.len();
    let failed = outputs.iter().any(|(_, r)| r.is_err());
    if failed {
        table.columns.push("ERROR".into());
    }
    for (ctx, r) in outputs {
        match r {
            Ok(o) => {
                for row in o.table.iter().flat_map(|t| &t.rows) {
                    let mut r = vec![ctx.clone()];
                    r.extend(row.iter().cloned());
                    r.resize(width, String::new());
                    if failed {
                        r.push(String::new());
                    }
                    table.rows.push(r);
                }
            }
            Err(e) => {
                let mut r = vec![ctx.clone()];
                r.resize(width, String::new());
                r.push(e.to_string());
                table.rows.push(r);
            }
        }
    }
    table
}

/// What one command fanned out printed (the combined table), the table, the objects of the
/// healthy contexts and each context's error, if it had one.
pub struct Fanned {
    pub text: String,
    pub table: Table,
    pub raw: Vec<serde_json::Value>,
    pub contexts: Vec<(String, Option<String>)>,
}

/// [`fan_out`] of one command, shaped for a probe's result.
pub async fn fan_out_probe(
    cmd: &KubeCommand,
    kubeconfig: &Path,
    pattern: &str,
    opts: &FanOutOptions,
) -> Result<Fanned, KubeError> {
    let f = fan_out(cmd, kubeconfig, pattern, opts, |_| {}).await?;
    let contexts = f
        .outputs
        .iter()
        .map(|(c, r)| (c.clone(), r.as_ref().err().map(ToString::to_string)))
        .collect();
    let raw = f
        .outputs
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .flat_map(|o| o.raw.clone())
        .collect();
    Ok(Fanned {
        text: super::run::table_text(&f.table, cmd.no_headers),
        table: f.table,
        raw,
        contexts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combined_table_has_context_column() {
        let t = Table {
            columns: vec!["NAME".into()],
            rows: vec![vec!["p".into()]],
        };
        let ok = KubeOutput {
            table: Some(t),
            ..Default::default()
        };
        let outs = vec![
            ("a".to_string(), Ok(ok.clone())),
            ("b".to_string(), Err(KubeError::Usage("x".into()))),
            ("c".to_string(), Ok(ok)),
        ];
        let c = combine(&outs);
        assert_eq!(c.columns, vec!["CONTEXT", "NAME", "ERROR"]);
        assert_eq!(
            c.rows,
            vec![vec!["a", "p", ""], vec!["b", "", "x"], vec!["c", "p", ""]],
            "the failed context is a row in its place, the healthy ones keep theirs"
        );
        let healthy = combine(&[outs[0].clone(), outs[2].clone()]);
        assert_eq!(healthy.columns, vec!["CONTEXT", "NAME"], "no ERROR column");
        let none = combine(&outs[1..2]);
        assert_eq!(none.columns, vec!["CONTEXT", "ERROR"]);
        assert_eq!(none.rows, vec![vec!["b", "x"]]);
    }
}
