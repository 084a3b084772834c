//! `:contexts GLOB`: the selected probe once per kube context matching GLOB (the navigator's
//! `tsgnav run --contexts`). Read-only probes only; a probe missing a value asks for it
//! first. The runtime refuses what cannot fan out (no kube tool, a context of its own) with
//! that reason. Pure: part of `update()`; must not import IO.

use super::app::{App, Item, Live};
use super::effect::Effect;
use crate::nav::{self, Cmd, Effect as NavEffect};

/// Asks the runtime to fan the selected probe out over the contexts matching `pattern`.
pub fn fan_out(app: &mut App, pattern: &str) -> Vec<Effect> {
    let Some(Item::Probe(p)) = app.items().get(app.screen.item_sel).copied() else {
        app.set_message(
            format!("Select a probe first (Tab): :contexts {pattern} runs it once per matching kube context."),
            true,
        );
        return Vec::new();
    };
    if let Live::Unavailable(why) = &app.session.live {
        let msg = format!("Live queries are unavailable: {why}. Nothing was run.");
        app.set_message(msg, true);
        return Vec::new();
    }
    let class = app
        .classes()
        .get(p)
        .copied()
        .unwrap_or(crate::tsg::SafetyClass::Unknown);
    let mut out = Vec::new();
    for e in nav::apply(&mut app.nav, &app.lib, Cmd::RunProbe { probe: p, class }) {
        match e {
            NavEffect::RunProbe {
                probe: key,
                bindings,
            } => {
                let vars = bindings.iter().map(|(k, v)| (k.clone(), v.clone()));
                super::pager::started(app, key.clone(), vars.collect());
                out.push(Effect::FanOut {
                    probe: key,
                    bindings,
                    pattern: pattern.to_string(),
                });
            }
            NavEffect::NeedVar { var, .. } => app.set_message(
                format!(
                    "Probe {} needs {var}: :set {var}=value, then :contexts {pattern} again. Nothing was run.",
                    p + 1
                ),
                true,
            ),
            NavEffect::NeedsMitigationFlow { class, .. } => app.set_message(
                format!(
                    "Probe {} is {}: :contexts runs read-only probes only. Nothing was run.",
                    p + 1,
                    class.as_str()
                ),
                true,
            ),
            NavEffect::Notice(s) => app.set_message(s, true),
            other => out.push(Effect::Nav(other)),
        }
    }
    out
}
