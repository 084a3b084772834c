//! The session's one kube context, resolved in one place: `--context`, else the context the
//! alert the session is on picked through `[alerts]` (a firing alert from Alertmanager, an
//! `--alert-payload`, `--alert NAME --label k=v`), else the session's default (`[query]
//! context`, the demo's simulated cluster), else the kubeconfig's current context, which
//! kubectl would use. The status line (in every mode), write mode's typed-back name and the
//! probe requests (so each probe header, the confirmation and the journal record) all read
//! [`App::context`]. Pure: part of `update()`; must not import IO.

use super::app::App;
use super::effect::Effect;
use crate::nav::ContextMap;

/// Where the context can come from; the runtime and the CLI fill it at start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aim {
    /// `--context NAME`: wins over everything.
    pub flag: Option<String>,
    /// The session's default: `[query] context`, or the simulated cluster of a demo.
    pub default: Option<String>,
    /// The kubeconfig's `current-context`, read at start.
    pub current: Option<String>,
    /// `[alerts]`: the label that names an alert's cluster, and the value → context table.
    pub map: ContextMap,
    /// The context the alert the session is on picked through `map` ([`alert`]).
    pub alert: Option<Chosen>,
}

/// The context probes run on, and why that one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub context: String,
    pub because: String,
}

impl App {
    /// The kube context probes of this session run on now, and why.
    pub fn chosen_context(&self) -> Option<Chosen> {
        let aim = &self.session.aim;
        let pick = |c: &Option<String>, why: &str| {
            c.clone().map(|context| Chosen {
                context,
                because: why.to_string(),
            })
        };
        // The navigator's own flag, named as kubectl names it.
        pick(&aim.flag, crate::tsg::invocation::table::KUBE_CONTEXT)
            .or_else(|| aim.alert.clone())
            .or_else(|| pick(&aim.default, "the session's default context"))
            .or_else(|| pick(&aim.current, "the kubeconfig's current context"))
    }

    /// The kube context probes of this session run on now.
    pub fn context(&self) -> Option<String> {
        self.chosen_context().map(|c| c.context)
    }
}

/// The session is now on alert `name` with these labels: its context (through `[alerts]`)
/// is the one probes run on unless `--context` says otherwise. Returns what to add to the
/// message and the effects (write mode off, see [`retarget`]).
pub fn alert(
    app: &mut App,
    name: &str,
    labels: &std::collections::BTreeMap<String, String>,
) -> (Option<String>, Vec<Effect>) {
    let before = app.context();
    app.session.aim.alert = app.session.aim.map.context_of(labels).map(|t| Chosen {
        context: t.context,
        because: format!("{} of alert {name}", t.because),
    });
    retarget(app, before)
}

/// After the context may have changed (`before` was the one until then): says which context
/// the probes now run on, and leaves write mode when it was on for another context (its typed
/// name no longer names where a write would go).
pub fn retarget(app: &mut App, before: Option<String>) -> (Option<String>, Vec<Effect>) {
    let now = app.chosen_context();
    if now.as_ref().map(|c| &c.context) == before.as_ref() {
        return (None, Vec::new());
    }
    let Some(now) = now else {
        return (None, Vec::new());
    };
    let said = format!(
        " Probes now run on context {} ({}).",
        now.context, now.because
    );
    if !app.session.write {
        return (Some(said), Vec::new());
    }
    app.session.write = false;
    let said = format!(
        "{said} Write mode is OFF: it was on for {}; press W and type {} to write there.",
        before.unwrap_or_default(),
        now.context
    );
    (Some(said), vec![Effect::WriteMode(false)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::{keymap::Keymap, theme::Theme};

    fn app() -> App {
        App::new(
            crate::tsg::Library::default(),
            Keymap::bundled(),
            Theme::bundled(true),
        )
    }

    fn labels(kv: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_flag_beats_the_alert_which_beats_the_default_which_beats_the_kubeconfig() {
        let mut a = app();
        assert_eq!(a.context(), None);
        a.session.aim.current = Some("mc-eastus-1".into());
        assert_eq!(a.context().as_deref(), Some("mc-eastus-1"));
        a.session.aim.default = Some("mc-config".into());
        assert_eq!(a.context().as_deref(), Some("mc-config"));
        let (said, fx) = alert(&mut a, "Gw", &labels(&[("cluster", "mc-westus3-1")]));
        assert!(fx.is_empty());
        let said = said.expect("the change is said");
        assert!(
            said.contains("mc-westus3-1 (alert label cluster=mc-westus3-1 of alert Gw)"),
            "{said}"
        );
        assert_eq!(a.context().as_deref(), Some("mc-westus3-1"));
        a.session.aim.flag = Some("mc-flag".into());
        assert_eq!(a.context().as_deref(), Some("mc-flag"));
        let (said, _) = alert(&mut a, "Other", &labels(&[("cluster", "mc-x")]));
        assert_eq!(said, None, "the flag still wins: nothing changed");
    }

    #[test]
    fn an_alert_on_another_context_turns_write_mode_off() {
        let mut a = app();
        a.session.aim.default = Some("mc-eastus-1".into());
        a.session.write = true;
        let (said, fx) = alert(&mut a, "Gw", &labels(&[("cluster", "mc-eastus-1")]));
        assert_eq!(
            (said, fx.len()),
            (None, 0),
            "same context: write mode stays"
        );
        assert!(a.session.write);
        let (said, fx) = alert(&mut a, "Gw", &labels(&[("cluster", "mc-westus3-1")]));
        assert!(!a.session.write);
        assert_eq!(fx, vec![Effect::WriteMode(false)]);
        let said = said.expect("said");
        assert!(
            said.contains("Write mode is OFF: it was on for mc-eastus-1")
                && said.contains("type mc-westus3-1"),
            "{said}"
        );
    }
}
