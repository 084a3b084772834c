//! The degraded mode in the navigator: when the session is not isolated (the jail could not
//! be built, or is turned off), a shell probe runs only after a second press of its key, once
//! the status line has named the risk; every shell probe's header says NOT ISOLATED.
//!
//! Pure (state only). Must not import `tui::runtime`, `query` or `evidence`.

use super::app::App;
use super::state::{Level, Notice};
use crate::tsg::Lang;

/// Whether the session's probes run without the jail (as the runtime found when it started).
pub fn not_isolated(app: &App) -> bool {
    app.session.sandbox.as_ref().is_some_and(|s| !s.isolated)
}

/// Whether probe `p` of the current node may start now: always, unless the session is not
/// isolated and it is a shell probe; then the first press names the risk and the second,
/// on the same probe, runs it.
pub fn acknowledged(app: &mut App, p: usize) -> bool {
    if !not_isolated(app) {
        return true;
    }
    let Some(node) = app.current_node() else {
        return true;
    };
    if node
        .probes
        .get(p)
        .is_none_or(|probe| probe.lang != Lang::Shell)
    {
        return true;
    }
    let key = format!("{}#{p}", node.id);
    if app.session.risk_ack.as_deref() == Some(key.as_str()) {
        app.session.risk_ack = None;
        return true;
    }
    app.session.risk_ack = Some(key);
    app.notice = Some(Notice {
        text: format!(
            "NOT ISOLATED: probe {} would run with your own access (your home and kubeconfigs, \
             the network, the terminal, your other processes), because the jail could not be \
             built. Press the key again to run it anyway.",
            p + 1
        ),
        level: Level::Error,
        kind: Default::default(),
    });
    false
}
