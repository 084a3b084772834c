//! Silences as a gated write. `S` on a firing alert proposes a silence (every label an exact
//! matcher, 2 hours, a comment naming the evidence session) and, like any mutation, needs
//! write mode and goes through the mitigation confirmation screen with the Alertmanager's
//! name typed back. The silences this session created are remembered; expiring them is
//! offered when the operator quits and when a mitigation that was open when the silence was
//! made is closed (`x` expires, any other key keeps them). Pure: part of `update()`; must
//! not import IO nor `crate::query` / `crate::evidence`.

use crossterm::event::{KeyCode, KeyEvent};

use super::app::App;
use super::effect::Effect;
use super::firing::SilenceDraft;
use super::mitigation::{DryRunView, Mitigation, MitigationView};
use crate::mitigate::OpenMitigation;
use crate::tsg::SafetyClass;

/// A silence this session created and has not expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Created {
    pub source: String,
    pub id: String,
    pub alert: String,
    /// The mitigations open when it was made: closing one of them offers to expire it.
    pub during: Vec<OpenMitigation>,
}

/// `S` with a draft: refused in read-only mode (saying how to turn write mode on), else the
/// confirmation screen opens.
pub fn propose(app: &mut App, draft: SilenceDraft) -> Vec<Effect> {
    if !app.session.write {
        app.set_message(
            format!(
                "A silence writes to Alertmanager `{}`: this session is read-only. Press W and \
                 type the kube context to turn write mode on, then S again; nothing was silenced.",
                draft.source
            ),
            true,
        );
        return Vec::new();
    }
    app.notice = None;
    app.mitigation = Some(Mitigation::new(view(&draft)));
    Vec::new()
}

/// The confirmation screen of a silence.
pub fn view(d: &SilenceDraft) -> MitigationView {
    let matchers: Vec<String> = d
        .labels
        .iter()
        .map(|(k, v)| format!("  {k}=\"{v}\""))
        .collect();
    let command = format!(
        "POST /api/v2/silences on Alertmanager {}\nmatchers (each exact):\n{}\nduration: {} h from now (+ / - change it before you type)\ncomment: names this evidence session",
        d.source,
        matchers.join("\n"),
        d.hours
    );
    MitigationView {
        // Not a probe of a guide: the screen is reused, and Enter sends the silence instead.
        probe: crate::tsg::ProbeRef::new(format!("alertmanager:{}", d.source), 0),
        class: SafetyClass::Mutating,
        title: format!("Silence `{}` on {}", d.alert, d.source),
        goal: Some(format!(
            "Stop `{}` from paging while it is worked on. The silence ends by itself after {} h; \
             expiring it is offered when you quit and when the open mitigation is closed.",
            d.alert, d.hours
        )),
        risk: Some(
            "While the silence is active, every alert with exactly these labels is muted: a new \
             occurrence pages no one."
                .into(),
        ),
        preconditions: Vec::new(),
        lead_in: None,
        vars: Vec::new(),
        command,
        target: format!("Alertmanager `{}`", d.source),
        namespace: None,
        confirm_name: Some(d.source.clone()),
        place: None,
        dry_run: DryRunView::None("Alertmanager has no dry run for silences".into()),
        captures: Vec::new(),
        silence: Some(d.clone()),
    }
}

/// `+` / `-` on a silence's screen before anything is typed: doubles or halves the duration.
pub fn adjust(m: &mut Mitigation, longer: bool) {
    let Some(mut d) = m.view.silence.clone() else {
        return;
    };
    d.hours = if longer {
        (d.hours * 2).min(48)
    } else {
        (d.hours / 2).max(1)
    };
    m.view = view(&d);
}

/// Enter on a silence's screen with everything checked: the screen closes and the runtime
/// (which checks write mode and the typed name again) creates it.
pub fn submit(app: &mut App, d: SilenceDraft, typed: String) -> Vec<Effect> {
    app.mitigation = None;
    app.set_message(format!("Silencing `{}` on {}…", d.alert, d.source), false);
    vec![Effect::Silence {
        source: d.source,
        alert: d.alert,
        labels: d.labels,
        hours: d.hours,
        typed,
    }]
}

/// The runtime created silence `id`.
pub fn created(app: &mut App, source: String, id: String, alert: String) {
    let during = app.session.open.clone();
    app.firing.created.push(Created {
        source,
        id,
        alert,
        during,
    });
}

/// The runtime expired silence `id`.
pub fn expired(app: &mut App, id: &str) {
    app.firing.created.retain(|c| c.id != id);
    app.firing.expire_offer.retain(|c| c.id != id);
}

fn list(silences: &[Created]) -> String {
    silences
        .iter()
        .map(|c| format!("{} on {} (`{}`)", c.id, c.source, c.alert))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `q` while silences this session made are still active: offers to expire them (the next
/// `x`); `None` when there are none.
pub fn quit_warning(app: &mut App) -> Option<String> {
    if app.firing.created.is_empty() {
        return None;
    }
    let n = app.firing.created.len();
    app.firing.expire_offer = app.firing.created.clone();
    Some(format!(
        "Press x to expire the {n} silence(s) this session created, or q again to quit and \
         leave them active: {}.",
        list(&app.firing.created)
    ))
}

/// The open mitigations changed: offers to expire the silences made while one that is now
/// closed was open.
pub fn mitigations_changed(app: &mut App, now: &[OpenMitigation]) {
    let ended: Vec<Created> = app
        .firing
        .created
        .iter()
        .filter(|c| c.during.iter().any(|d| !now.contains(d)))
        .cloned()
        .collect();
    for c in app.firing.created.iter_mut() {
        c.during.retain(|d| now.contains(d));
    }
    if ended.is_empty() {
        return;
    }
    app.set_message(
        format!(
            "Press x to expire the silence(s) made while the mitigation just closed was open, \
             any other key keeps them: {}.",
            list(&ended)
        ),
        false,
    );
    app.firing.expire_offer = ended;
}

/// The key after an expiry offer: `x` expires the offered silences; any other key drops the
/// offer and does what it always does (`None`).
pub fn offer_key(app: &mut App, ev: &KeyEvent) -> Option<Vec<Effect>> {
    if app.firing.expire_offer.is_empty() {
        return None;
    }
    let offered = std::mem::take(&mut app.firing.expire_offer);
    if ev.code != KeyCode::Char('x') || !ev.modifiers.is_empty() {
        return None;
    }
    app.session.quit_armed = false;
    app.set_message(format!("Expiring {}…", list(&offered)), false);
    Some(
        offered
            .into_iter()
            .map(|c| Effect::ExpireSilence {
                source: c.source,
                id: c.id,
            })
            .collect(),
    )
}
