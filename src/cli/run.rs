//! `tsgnav run FILE#NODE [--var K=V]... [--json]`: runs a node's read-only probes without the
//! TUI and prints each result. Probes that would change something, need a terminal or run
//! until stopped are not run here; the runner itself refuses the ones needing confirmation.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, Context as _};
use clap::Args;
use serde_json::{json, Value};

mod record;

use crate::query::runner::{Runner, RunnerConfig};
use crate::query::vars::{canonical, parse_assignment, Source, Vars};
use crate::query::{setup, Cancel, Executor, ProbeRequest, ProbeResult, Status};
use crate::tsg::{Lang, SafetyClass};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The node: `FILE#slug` (e.g. tsg/swift-networking.md#step-1-establish-the-blast-radius).
    pub node: String,
    /// A variable value, NAME=VALUE (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Print JSON: one object per probe (probe, backend, command, status, duration, output).
    #[arg(long)]
    pub json: bool,
    /// Prometheus base URL for promql probes.
    #[arg(long, value_name = "URL")]
    pub prometheus_url: Option<String>,
    /// A command whose stdout is the Prometheus bearer token.
    #[arg(long, value_name = "COMMAND")]
    pub prometheus_token_cmd: Option<String>,
    /// Kusto base URL for kql probes.
    #[arg(long, value_name = "URL")]
    pub kusto_url: Option<String>,
    /// Where a Kusto cluster named in the queries is served, NAME=URL (repeatable); NAME is
    /// the `cluster('…')` name or its first label.
    #[arg(long = "kusto-cluster", value_name = "NAME=URL")]
    pub kusto_clusters: Vec<String>,
    /// A command whose stdout is the Kusto bearer token.
    #[arg(long, value_name = "COMMAND")]
    pub kusto_token_cmd: Option<String>,
    /// Maestro base URL: the guides' Maestro `curl` calls go there, run natively.
    #[arg(long, value_name = "URL")]
    pub maestro_url: Option<String>,
    /// Kubeconfig for kubectl in shell probes.
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// Do not record the runs in an evidence session.
    #[arg(long)]
    pub no_evidence: bool,
    /// Kube context for kubectl in shell probes.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
}

impl RunArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let (file, slug) = self
            .node
            .split_once('#')
            .ok_or_else(|| anyhow!("`{}` names no node: write FILE#node-slug", self.node))?;
        let (lib, errors) = crate::load::load_library(&[PathBuf::from(file)]);
        if let Some(e) = errors.iter().find(|e| !e.is_warning()) {
            return Err(anyhow!("{e}"));
        }
        let node = lib
            .guides
            .iter()
            .flat_map(|g| &g.nodes)
            .find(|n| n.slug == slug)
            .ok_or_else(|| {
                anyhow!("{file} has no heading with the slug `{slug}` (see `tsgnav tree {file}`)")
            })?
            .clone();
        let mut vars = Vars::new();
        let mut flags = Vec::new();
        for v in &self.vars {
            let (k, val) = parse_assignment(v).map_err(|e| anyhow!(e))?;
            vars.set(&k, &val, Source::Flag);
            flags.push((k, val));
        }
        for (k, val) in config_vars()? {
            vars.set(&k, &val, Source::Config);
        }
        let executors = self.executors()?;
        crate::query::net::install_crypto();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("starting the async runtime")?;
        let results =
            rt.block_on(self.run_probes(&format!("{file}#{slug}"), &node.probes, vars, executors));
        let failed = results
            .iter()
            .any(|(r, skipped)| !skipped && !r.status.is_ok());
        if !self.no_evidence {
            let mut rec = record::Recorder::start(
                &crate::evidence::state_dir(),
                std::path::Path::new(file),
                &format!("{file}#{slug}"),
                &flags,
            )?;
            for (r, _) in &results {
                rec.probe(r)?;
            }
            eprintln!("recorded in evidence session {}", rec.dir().display());
        }
        let mut out = std::io::stdout().lock();
        if self.json {
            let all: Vec<Value> = results.iter().map(|(r, _)| to_json(r)).collect();
            writeln!(
                out,
                "{}",
                json!({ "node": format!("{file}#{slug}"), "results": all })
            )?;
        } else {
            if results.is_empty() {
                writeln!(out, "{file}#{slug} has no probes to run.")?;
            }
            for (r, _) in &results {
                write!(out, "{}", render(r))?;
            }
        }
        out.flush()?;
        Ok(if failed {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }

    fn executors(&self) -> anyhow::Result<Vec<Arc<dyn Executor>>> {
        let mut settings = setup::Settings {
            prometheus_url: self.prometheus_url.clone(),
            prometheus_token_cmd: self.prometheus_token_cmd.clone(),
            kusto_url: self.kusto_url.clone(),
            kusto_token_cmd: self.kusto_token_cmd.clone(),
            maestro_url: self.maestro_url.clone(),
            kubeconfig: self.kubeconfig.clone(),
            ..setup::Settings::default()
        };
        for c in &self.kusto_clusters {
            let (k, url) = setup::parse_cluster(c).map_err(|e| anyhow!(e))?;
            settings.kusto_clusters.insert(k, url);
        }
        Ok(setup::executors(&settings))
    }

    /// Each runnable probe in order; the bool says "not run on purpose" (refused, long-running).
    async fn run_probes(
        &self,
        node_id: &str,
        probes: &[crate::tsg::Probe],
        mut vars: Vars,
        executors: Vec<Arc<dyn Executor>>,
    ) -> Vec<(ProbeResult, bool)> {
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let runner = Runner::new(RunnerConfig::default(), executors, tx);
        let mut out = Vec::new();
        for p in probes.iter().filter(|p| p.lang != Lang::Text) {
            // A value the operator exported in their shell counts, below every other source.
            for name in crate::query::vars::needed(p.lang, &p.code) {
                if vars.get(&name).is_none() {
                    let env = std::env::var(canonical(&name)).or_else(|_| std::env::var(&name));
                    if let Ok(v) = env {
                        vars.set(&name, &v, Source::Environment);
                    }
                }
            }
            let bindings = vars.resolve(p.lang, &p.code);
            let mut req =
                match ProbeRequest::from_probe(node_id, p, bindings.clone().unwrap_or_default()) {
                    Ok(r) => r,
                    Err(e) => {
                        out.push((failed(node_id, p, e), false));
                        continue;
                    }
                };
            req.target.kubeconfig = self.kubeconfig.clone();
            if req.target.kube_context.is_none() {
                req.target.kube_context = self.context.clone();
            }
            if req.class == SafetyClass::LongRunning {
                let e = crate::query::ProbeError::Refused {
                    class: req.class,
                    reason: "it runs until stopped".into(),
                    what: "the TUI runs it as a background task; tsgnav run does not".into(),
                };
                out.push((failed(node_id, p, e), true));
                continue;
            }
            let refused = crate::query::runner::gate(&req).is_some();
            if let (Err(e), false) = (bindings, refused) {
                out.push((failed(node_id, p, e), false));
                continue;
            }
            let r = runner.run(req, Cancel::new()).await;
            vars.absorb(&r.captured);
            out.push((r, refused));
        }
        out
    }
}

/// `[vars]` of the config file (`TSGNAV_CONFIG`, else `<config dir>/tsgnav/config.toml`).
fn config_vars() -> anyhow::Result<BTreeMap<String, String>> {
    let (file, explicit) = match std::env::var_os("TSGNAV_CONFIG") {
        Some(f) => (Some(PathBuf::from(f)), true),
        None => (
            dirs::config_dir().map(|d| d.join("tsgnav").join("config.toml")),
            false,
        ),
    };
    let Some(file) = file.filter(|f| explicit || f.is_file()) else {
        return Ok(BTreeMap::new());
    };
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("{}: cannot read the config file", file.display()))?;
    Ok(crate::tui::config::parse(&file.display().to_string(), &text)?.vars)
}

fn failed(node_id: &str, p: &crate::tsg::Probe, e: crate::query::ProbeError) -> ProbeResult {
    let backend = match p.lang {
        Lang::Promql => crate::query::Backend::Prometheus,
        Lang::Kql => crate::query::Backend::Kusto,
        Lang::Http => crate::query::Backend::Http,
        _ => crate::query::Backend::Shell,
    };
    ProbeResult::failed(
        crate::query::ProbeId::new(node_id, p.line),
        backend,
        String::new(),
        p.code.trim().to_string(),
        e,
    )
}

fn to_json(r: &ProbeResult) -> Value {
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
    json!({
        "probe": r.id, "backend": r.backend, "target": r.target, "command": r.command_as_run,
        "status": status, "error": error, "exit": exit,
        "started": r.started.to_rfc3339(), "duration_ms": r.duration().as_millis() as u64,
        "output": r.output.text(), "table": r.table,
    })
}

fn render(r: &ProbeResult) -> String {
    let mut s = format!("── {} [{}] {}\n", r.id, r.backend, r.target);
    for line in r.command_as_run.lines() {
        s.push_str(&format!("$ {line}\n"));
    }
    match &r.table {
        Some(t) if r.backend != crate::query::Backend::Shell => s.push_str(&t.render()),
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
