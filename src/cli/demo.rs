//! `tsgnav demo [swift|maestro]`: the navigator on a bundled guide, entered through a firing
//! alert, against an in-process simulated management cluster and Maestro API, with PromQL and
//! KQL answered from a recorded scenario. Everything on screen is labelled as demo data.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use crate::query::{recorded::Answers, setup::Settings};
use crate::sim::{Scenario, Sim};
use crate::tui::app::Live;
use crate::tui::runtime::probes::LiveSettings;

#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub enum DemoScenario {
    /// Router pods stuck in ContainerCreating: SWIFT NIC assignment fails on one node.
    #[default]
    Swift,
    /// A cluster stuck deleting: the Maestro agent keeps recreating ManifestWorks.
    Maestro,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    #[arg(value_enum, default_value_t = DemoScenario::Swift)]
    pub scenario: DemoScenario,
    /// Do not record an evidence session.
    #[arg(long)]
    pub no_evidence: bool,
}

const SWIFT_ANSWERS: &str = include_str!("../../assets/scenarios/swift-answers.yaml");

/// What each demo starts with: scenario name, how the navigator is entered, variable values.
fn plan(s: DemoScenario) -> (&'static str, super::tui::TuiArgs) {
    let vars = |v: &[(&str, &str)]| v.iter().map(|(k, x)| format!("{k}={x}")).collect();
    match s {
        DemoScenario::Swift => (
            "swift",
            super::tui::TuiArgs {
                alert: Some("userJourneySwiftLatencyP991h5m".into()),
                vars: vars(&[
                    (
                        "OCM_NAMESPACE",
                        "ocm-prod-2lq3swift0demo0cluster0id01-demo-hcp",
                    ),
                    ("CLUSTER_ID", "2lq3swift0demo0cluster0id01"),
                    ("NODE_NAME", "aks-userswft-31562873-vmss000001"),
                    ("ROUTER_POD", "router-6f8b7c9d5-9vtx2"),
                ]),
                ..Default::default()
            },
        ),
        DemoScenario::Maestro => (
            "maestro",
            super::tui::TuiArgs {
                node: Some("maestro-stuck-deletion.md#step-1-confirm-the-deletion-is-stuck".into()),
                vars: vars(&[
                    ("CLUSTER_ID", "2lq3stuck0maestro0cluster0id1"),
                    ("MAESTRO_CONSUMER", "mc-eastus-1"),
                ]),
                ..Default::default()
            },
        ),
    }
}

impl DemoArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        use std::io::IsTerminal;
        if !std::io::stdout().is_terminal() {
            bail!("tsgnav demo opens the navigator and needs a terminal; run it in a terminal (for a printout of the guides use `tsgnav tree`)");
        }
        let (name, args) = plan(self.scenario);
        let no_evidence = self.no_evidence;
        in_the_demo(name, args, |built| {
            Ok((!no_evidence).then(|| {
                crate::tui::runtime::record::Recorder::new(
                    crate::evidence::state_dir(),
                    super::embedded::GUIDES,
                )
                .with_redact(built.redact.clone())
                .this_session_only()
            }))
        })
    }
}

/// The demo scenario a recorded session ran in, from its guide (`maestro-stuck-deletion.md`
/// is the Maestro demo's, every other the SWIFT one's).
pub fn scenario_of(guide: &str) -> &'static str {
    match guide.rsplit('/').next() {
        Some(g) if g.starts_with("maestro") => "maestro",
        _ => "swift",
    }
}

/// Runs the navigator built from `args` in the demo's world: scenario `name` simulated
/// in-process (kube API and Maestro), PromQL/KQL answered from the recording, the session's
/// context the simulated one and the DEMO DATA label on; `recorder` makes the evidence
/// recorder (a new session, or the resumed one).
pub fn in_the_demo(
    name: &str,
    args: super::tui::TuiArgs,
    recorder: impl FnOnce(
        &super::tui::Built,
    ) -> anyhow::Result<Option<crate::tui::runtime::record::Recorder>>,
) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("cannot start the simulated cluster's runtime")?;
    let scenario = Scenario::builtin(name)?;
    let sim = rt.block_on(Sim::start(scenario))?;
    let dir = std::env::temp_dir().join(format!("tsgnav-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("{}: cannot create it", dir.display()))?;
    let kubeconfig: PathBuf = sim.write_kubeconfig(&dir.join("kubeconfig"))?;
    let answers = Answers::from_yaml("assets/scenarios/swift-answers.yaml", SWIFT_ANSWERS)
        .map_err(anyhow::Error::msg)?;
    let mut built = args.build()?;
    built.live = Some(LiveSettings {
        backends: Settings {
            kubeconfig: Some(kubeconfig.clone()),
            maestro_url: Some(sim.maestro_url()),
            recorded: Some(Arc::new(answers)),
            ..Settings::default()
        },
        context: sim.clusters.first().cloned(),
        kubeconfig: Some(kubeconfig),
        namespace: None,
        kubeconfig_named: false,
        policies: Vec::new(),
    });
    // The simulation's own kubeconfig, not the config file's, and its default namespaces.
    built.app.session.kubeconfig = None;
    built.app.session.namespace = None;
    // Only the simulated clusters: never the kubeconfig's, whatever the config says.
    built.app.session.aim = crate::tui::target::Aim {
        default: sim.clusters.first().cloned(),
        ..Default::default()
    };
    built.app.session.live = Live::Available;
    built.app.session.data_label = Some(crate::tui::app::DataLabel::Demo);
    let code = recorder(&built).and_then(|r| super::tui::launch_with(built, r));
    rt.block_on(sim.shutdown());
    let _ = std::fs::remove_dir_all(&dir);
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_answers_parse_and_cover_the_swift_guides_metric_queries() {
        let answers =
            Answers::from_yaml("swift-answers.yaml", SWIFT_ANSWERS).expect("answers parse");
        let lib = super::super::embedded::library();
        let swift = lib
            .guides
            .iter()
            .find(|g| g.path == "swift-networking.md")
            .expect("guide");
        let mut missing = Vec::new();
        for p in swift.nodes.iter().flat_map(|n| &n.probes) {
            if matches!(p.lang, crate::tsg::Lang::Promql | crate::tsg::Lang::Kql)
                && answers.lookup(p.lang, &p.code).is_none()
            {
                missing.push(p.line);
            }
        }
        // The appendix's reference queries may go unanswered; the steps' queries must not.
        let steps_end = swift
            .nodes
            .iter()
            .find(|n| n.title.starts_with("Mitigation"))
            .map(|n| n.line)
            .unwrap_or(usize::MAX);
        let in_steps: Vec<usize> = missing.into_iter().filter(|l| *l < steps_end).collect();
        assert!(
            in_steps.is_empty(),
            "PromQL/KQL probes at these lines have no recorded answer: {in_steps:?}"
        );
    }

    #[test]
    fn demo_plans_land_on_existing_steps() {
        for s in [DemoScenario::Swift, DemoScenario::Maestro] {
            let (_, args) = plan(s);
            let built = args.build().expect("the demo's navigator builds");
            assert!(
                built.app.nav.current.is_some() || !built.startup.is_empty(),
                "{s:?} lands somewhere"
            );
        }
    }
}
