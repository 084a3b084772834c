//! `tsgnav sessions replay SESSION`: walk a recorded session read-only in the navigator, on
//! the step it ended on, with every probe answered from its recorded output (marked as
//! replayed). Nothing live is contacted and nothing is recorded.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context};

use crate::evidence::{self, Replay, SessionLog};
use crate::query::setup::{Replaying, Settings};
use crate::tui::app::Live;
use crate::tui::runtime::probes::LiveSettings;

pub fn run(session: &str) -> anyhow::Result<ExitCode> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        bail!("replay opens the navigator and needs a terminal; for a printout use `tsgnav sessions show {session}`");
    }
    let dir = evidence::resolve(&evidence::state_dir(), session)?;
    let log = SessionLog::read(&dir)
        .with_context(|| format!("{}: cannot read the session", dir.display()))?;
    let replay = Replay::load(&log);
    let state = evidence::Session::open(&dir)
        .with_context(|| format!("{}: cannot open the session", dir.display()))?
        .state()
        .clone();
    let mut args = super::tui::TuiArgs {
        node: state.node.clone(),
        alert: state.start.alert.clone().filter(|_| state.node.is_none()),
        vars: state.vars.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        no_evidence: true,
        ..Default::default()
    };
    let guide = PathBuf::from(&state.start.guide);
    if !state.start.guide.starts_with("tsg/") && guide.exists() {
        args.paths.push(guide);
    }
    let mut built = args.build()?;
    built.live = Some(LiveSettings {
        backends: Settings {
            replay: Some(Replaying(crate::tui::runtime::replay::executors(Arc::new(
                replay,
            )))),
            ..Settings::default()
        },
        ..LiveSettings::default()
    });
    built.app.session.live = Live::Available;
    built.app.session.data_label = Some(crate::tui::app::DataLabel::Replay { id: log.id });
    super::tui::launch_with(built, None)
}
