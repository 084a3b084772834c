//! `tsgnav run FILE#NODE [--var K=V]... [--context NAME] [-n NAMESPACE] [--kubeconfig FILE]
//! [--json] [--write --confirm-target CONTEXT]`: runs a
//! node's probes without the TUI and prints each result. Read-only by default; with both write
//! flags, probes that change something run too, each with a confirmation bound to its exact
//! inputs (see `write`), after their prior state is captured, and the open mitigations are
//! listed. Probes that need a terminal or run until stopped are not run here.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, Context as _};
use clap::Args;

mod config;
mod given;
mod record;
mod show;
mod waves;
mod waves_run;
mod write;

use crate::query::vars::Source;
use crate::query::{setup, Executor, ProbeResult};
use crate::tsg::SafetyClass;

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// The node: `FILE#slug` (e.g. tsg/swift-networking.md#step-1-establish-the-blast-radius).
    pub node: String,
    /// A variable value, NAME=VALUE (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// A variable whose value is a secret, NAME=VALUE (repeatable): used like --var, and
    /// redacted from the journal and from everything printed.
    #[arg(long = "secret-var", value_name = "NAME=VALUE")]
    pub secret_vars: Vec<String>,
    /// Print results without redaction. Only to a terminal (never into a pipe or file);
    /// recorded in the evidence journal.
    #[arg(long)]
    pub no_redact: bool,
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
    /// The namespace kubectl, oc and helm probes run in when they name none (as kubectl's
    /// `-n`); also the `NAMESPACE` variable unless --var sets it.
    #[arg(short = 'n', long, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Fan `kubectl get|describe` probes out across every kubeconfig context matching GLOB
    /// (`'mc-*'`), 32 at a time, into one table with a CONTEXT column: the blast radius across
    /// management clusters.
    #[arg(long, value_name = "GLOB")]
    pub contexts: Option<String>,
    /// Also run probes that change something (each needs --confirm-target).
    #[arg(long)]
    pub write: bool,
    /// The target typed back to confirm the changes: must be the probes' kube context (for
    /// a wave plan: the glob and the count, `'mc-* · 50 contexts'`).
    #[arg(long, value_name = "CONTEXT")]
    pub confirm_target: Option<String>,
    /// Run a mitigation across the --contexts in waves (`1,5%,20%,rest`: a canary first):
    /// each context's prior state is captured, the change runs, then the step's validation
    /// probes; a wave starts only when every context of the one before it validated. Without
    /// --write it prints the plan.
    #[arg(long, value_name = "SIZES", requires = "contexts")]
    pub waves: Option<String>,
    /// How many contexts of a wave change at once.
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub parallel: usize,
    /// Go on with the wave run of an earlier session (id, prefix, `latest` or folder), e.g.
    /// after a crash: the contexts its journal shows validated are not changed again.
    #[arg(long, value_name = "SESSION", requires = "waves")]
    pub resume: Option<String>,
    /// What a failed validation (or a soak breach) does after stopping the run.
    #[arg(long, value_enum, default_value = "stop")]
    pub on_failure: waves::OnFailure,
}

impl RunArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        super::target::Flags {
            context: self.context.as_deref(),
            namespace: self.namespace.as_deref(),
            kubeconfig: self.kubeconfig.as_deref(),
        }
        .check()?;
        let t = given::target(&self.node)?;
        use std::io::IsTerminal as _;
        if self.no_redact && !std::io::stdout().is_terminal() {
            return Err(anyhow!("--no-redact prints secrets, so only to a terminal; stdout is a pipe or a file here: drop --no-redact"));
        }
        let redactor = crate::evidence::Redactor::default();
        let mut g = given::given(&self, &redactor)?;
        let mut history =
            crate::evidence::guide_records(&crate::evidence::state_dir(), t.file, None);
        let open_before = crate::evidence::open_mitigations(&history);
        for (name, value) in write::offer_restores(&t.node.probes, &g.flags, &open_before, &g.vars)
        {
            g.vars.set(&name, &value, Source::Probe);
            g.flags.push((name, value));
        }
        let pre = crate::mitigate::preconditions(&t.node);
        let node_shell = config::node_shell()?;
        let executors = self.executors()?;
        crate::query::net::install_crypto();
        // A wave run is many small tasks (each context's probes, the proxy's connections, the
        // doors) that mostly wait: on one thread they cost no wake-ups across threads (13 % of
        // tsgnav's own CPU outside the jail's launchers, at 300 contexts); the probes
        // themselves run in other processes.
        let rt = match self.waves.is_some() {
            true => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build(),
            false => tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build(),
        }
        .context("starting the async runtime")?;
        if self.waves.is_some() {
            let input = self.waves_input(&t, &g, &pre, node_shell.as_ref())?;
            return rt.block_on(waves::run(&self, input));
        }
        let mode = self.write_mode()?;
        let steps = rt.block_on(crate::tui::runtime::waves_probes::run_probes(
            &self.aim(),
            &t.id(),
            &t.node.probes,
            g.vars.clone(),
            executors,
            (&mode, &pre, node_shell.as_ref()),
        ));
        let results: Vec<(ProbeResult, bool)> =
            steps.iter().map(|(r, s, _)| (r.clone(), *s)).collect();
        if !self.no_evidence {
            let dir = record::record_run(&t, &g, self.no_redact, &steps)?;
            eprintln!("recorded in evidence session {}", dir.display());
        }
        let mut out = std::io::stdout().lock();
        let print = show::Print {
            node: &t.id(),
            json: self.json,
            redactor: (!self.no_redact).then_some(&redactor),
        };
        print.results(&mut out, &results)?;
        history.extend(steps.iter().flat_map(|(r, _, b)| {
            b.iter()
                .cloned()
                .chain(std::iter::once(record::run_record(r)))
        }));
        if self.write || !open_before.is_empty() {
            write::print_open(&history)?;
        }
        out.flush()?;
        Ok(ExitCode::from(exit_code(&results)))
    }

    /// What the wave run of `t` starts from (`--waves`).
    fn waves_input<'a>(
        &self,
        t: &'a given::NodeArg<'a>,
        g: &'a given::Given,
        pre: &'a [String],
        node_shell: Option<&'a crate::query::entry::NodeShell>,
    ) -> anyhow::Result<waves::Input<'a>> {
        // Each context of a wave runs on its own: the backends must not fan out.
        let single = RunArgs {
            contexts: None,
            ..self.clone()
        };
        Ok(waves::Input {
            file: t.file,
            slug: t.slug,
            lib: &t.lib,
            node: &t.node,
            vars: g.vars.clone(),
            flags: &g.flags,
            secrets: &g.secrets,
            pre,
            node_shell,
            executors: single.executors()?,
        })
    }

    /// `--write` and `--confirm-target` as the runner reads them, for a session of its own.
    fn write_mode(&self) -> anyhow::Result<write::WriteMode> {
        Ok(write::WriteMode {
            enabled: self.write,
            confirm_target: self.confirm_target.clone(),
            session: format!(
                "run-{}-{}",
                std::process::id(),
                chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
            ),
            policies: config::config()?.policy,
            in_waves: false,
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
            contexts: self.contexts.clone(),
            allow_hosts: config::config()?.sandbox.allow_hosts,
            sandbox: {
                let c = config::config()?.sandbox;
                crate::query::sandbox::SandboxPolicy::from_config(c.enabled, &c.allow_connect_ports)
                    .with_jail(c.jail, &c.read_only)
                    .with_pass_env(&c.pass_env)
            },
            ..setup::Settings::default()
        };
        for c in &self.kusto_clusters {
            let (k, url) = setup::parse_cluster(c).map_err(|e| anyhow!(e))?;
            settings.kusto_clusters.insert(k, url);
        }
        Ok(setup::executors(&settings))
    }

    /// Where this run aims its probes.
    fn aim(&self) -> crate::tui::runtime::waves_probes::Aim {
        crate::tui::runtime::waves_probes::Aim {
            context: self.context.clone(),
            namespace: self.namespace.clone(),
            kubeconfig: self.kubeconfig.clone(),
            contexts: self.contexts.clone(),
        }
    }
}

/// `run`'s exit code: 3 when a probe was refused (so a script can tell a refusal from
/// success), else 1 when one failed, else 0. Probes skipped because they run until stopped
/// count as neither.
pub fn exit_code(results: &[(ProbeResult, bool)]) -> u8 {
    use crate::query::{ProbeError, Status};
    let refused = |r: &ProbeResult| matches!(&r.status, Status::Failed(ProbeError::Refused { class, .. }) if *class != SafetyClass::LongRunning);
    if results.iter().any(|(r, _)| refused(r)) {
        3
    } else if results
        .iter()
        .any(|(r, skipped)| !skipped && !r.status.is_ok())
    {
        1
    } else {
        0
    }
}
