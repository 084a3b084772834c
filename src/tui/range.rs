//! `t`: switches the selected PromQL probe between an instant query and a range query (the
//! last hour, drawn as a chart) and runs it again that way. The choice is kept per probe for
//! the session; the runtime builds the request from it and records it with the run. Pure:
//! part of `update()`; must not import IO.

use super::app::{App, Item};
use super::effect::Effect;
use super::navigate::run;
use super::state::QueryMode;
use crate::tsg::{Lang, ProbeRef};

/// The selected probe, else the step's first PromQL probe.
fn target(app: &App) -> Option<usize> {
    if let Some(Item::Probe(p)) = app.items().get(app.screen.item_sel) {
        return Some(*p);
    }
    app.current_node()?
        .probes
        .iter()
        .position(|p| p.lang == Lang::Promql)
}

/// How the probe runs now: as switched, else as its fence says, else as it last answered
/// (a range answer carries series).
pub fn mode(app: &App, key: &ProbeRef) -> QueryMode {
    if let Some(m) = app.probes.modes.get(key) {
        return *m;
    }
    let fenced = app
        .nav
        .index
        .node(&app.lib, key.node.as_str())
        .and_then(|n| n.probes.get(key.index))
        .is_some_and(|p| p.attrs.contains_key("range"));
    let charted = app
        .probes
        .results
        .get(key)
        .is_some_and(|r| !r.series.is_empty());
    if fenced || charted {
        QueryMode::Range
    } else {
        QueryMode::Instant
    }
}

/// `t` on the guide.
pub fn toggle(app: &mut App) -> Vec<Effect> {
    let Some(node) = app.current_node() else {
        return Vec::new();
    };
    let id = node.id.clone();
    let Some(p) = target(app) else {
        app.set_message(
            "t switches a PromQL probe between an instant and a range query; this step has none.",
            false,
        );
        return Vec::new();
    };
    let lang = node.probes.get(p).map(|q| q.lang);
    if lang != Some(Lang::Promql) {
        let what = lang.map_or("not a probe".to_string(), |l| {
            format!("{l:?}").to_lowercase()
        });
        app.set_message(
            format!(
                "Probe {} is {what}: t switches only a PromQL probe between an instant and a range query.",
                p + 1
            ),
            true,
        );
        return Vec::new();
    }
    let key = ProbeRef::new(id, p);
    let next = match mode(app, &key) {
        QueryMode::Instant => QueryMode::Range,
        QueryMode::Range => QueryMode::Instant,
    };
    app.probes.modes.insert(key, next);
    run(app, p)
}
