//! `tsgnav sim serve`: runs the simulated management clusters on 127.0.0.1 until Ctrl-C and
//! writes a kubeconfig with one context per cluster.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::sim::{Scenario, Sim};

#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(subcommand)]
    pub command: SimCommand,
}

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// Serve simulated clusters (Kubernetes API subset + Maestro API) until Ctrl-C.
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A bundled scenario (`swift`, `maestro`) or a scenario YAML file.
    #[arg(long, default_value = "swift")]
    pub scenario: String,
    /// Where to write the kubeconfig (default: a file in the system temp directory).
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
    /// Serve this many clusters (contexts mc-eastus-1, mc-westus3-1, …) instead of the
    /// scenario's list.
    #[arg(long)]
    pub clusters: Option<usize>,
    /// Make the clusters matching GLOB fail validations (repeatable): their deployments
    /// never settle after a scale or restart, so a check of the rollout fails there. For
    /// rehearsing wave plans (`tsgnav run … --waves`).
    #[arg(long = "fail-validation", value_name = "GLOB")]
    pub fail_validation: Vec<String>,
}

impl SimArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let SimCommand::Serve(a) = self.command;
        a.run()
    }
}

fn load_scenario(name: &str) -> anyhow::Result<Scenario> {
    let path = PathBuf::from(name);
    if path.is_file() {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read scenario file {}", path.display()))?;
        return Scenario::from_yaml(&text)
            .with_context(|| format!("in scenario file {}", path.display()));
    }
    Ok(Scenario::builtin(name)?)
}

/// The clusters each `--fail-validation` glob names; a glob that names none is an error.
fn fail_validation(clusters: &[String], globs: &[String]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for g in globs {
        let hit: Vec<String> = clusters
            .iter()
            .filter(|c| crate::mitigate::glob::glob(g, c))
            .cloned()
            .collect();
        anyhow::ensure!(
            !hit.is_empty(),
            "--fail-validation {g}: no simulated cluster matches; the clusters are {}",
            clusters.join(", ")
        );
        out.extend(hit);
    }
    Ok(out)
}

impl ServeArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let mut scenario = load_scenario(&self.scenario)?;
        if let Some(n) = self.clusters {
            anyhow::ensure!(n > 0, "--clusters must be at least 1 (got 0)");
            scenario = scenario.with_clusters(n);
        }
        let failing = fail_validation(&scenario.clusters, &self.fail_validation)?;
        scenario.fail_validation.extend(failing);
        let kubeconfig = self.kubeconfig.unwrap_or_else(|| {
            std::env::temp_dir().join(format!("tsgnav-sim-{}.kubeconfig", std::process::id()))
        });
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        let failing = scenario.fail_validation.clone();
        rt.block_on(async move {
            let handle = Sim::start(scenario).await?;
            handle.write_kubeconfig(&kubeconfig)?;
            let mut out = std::io::stdout().lock();
            writeln!(
                out,
                "simulated clusters: {} ({} contexts, current {})",
                handle.url,
                handle.clusters.len(),
                handle.clusters.first().map(String::as_str).unwrap_or("-")
            )?;
            writeln!(out, "maestro API: {}/api/maestro/v1", handle.maestro_url())?;
            if !failing.is_empty() {
                writeln!(
                    out,
                    "failing validations (deployments never settle): {}",
                    failing.join(", ")
                )?;
            }
            writeln!(out, "kubeconfig: {}", kubeconfig.display())?;
            writeln!(
                out,
                "try: KUBECONFIG={} kubectl get pods -A",
                kubeconfig.display()
            )?;
            writeln!(out, "press Ctrl-C to stop")?;
            out.flush()?;
            drop(out);
            tokio::signal::ctrl_c()
                .await
                .context("cannot wait for Ctrl-C")?;
            handle.shutdown().await;
            Ok::<_, anyhow::Error>(())
        })?;
        Ok(ExitCode::SUCCESS)
    }
}
