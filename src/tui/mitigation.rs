//! The confirmation screen's state and keys: the node's Goal, Preconditions (each acknowledged
//! on its own), Risk, the exact command after substitution, the target, the dry run, and the
//! target typed back. Submitting only asks the runtime to confirm: the runtime checks every
//! acknowledgement and the typed target again and runs nothing when they are wrong. Enter is
//! refused until the command has been drawn whole; only the target field takes typed text,
//! and only once the operator moved there. Pure; must not import IO, `crate::query` or
//! `crate::evidence`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::App;
use super::effect::Effect;
use crate::tsg::{ProbeRef, SafetyClass};

/// What the runtime prepared for the screen (plain text, after substitution).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MitigationView {
    pub probe: ProbeRef,
    pub class: SafetyClass,
    pub title: String,
    pub goal: Option<String>,
    pub risk: Option<String>,
    pub preconditions: Vec<String>,
    /// The sentence that introduces the preconditions ("every item below is true"): shown
    /// above them, not acknowledged on its own.
    pub lead_in: Option<String>,
    /// The values the command runs with (environment name, value): shown in place of
    /// `${NAME}` everywhere on the screen.
    pub vars: Vec<(String, String)>,
    /// The command exactly as it will run (variables shown as their values).
    pub command: String,
    /// Context, namespace, cluster or URL, in words.
    pub target: String,
    /// The target's namespace (as in `target`), so the screen names the command's own
    /// namespace when it is another one.
    pub namespace: Option<String>,
    /// The name to type back; `None` when the probe names no target (it cannot be confirmed).
    pub confirm_name: Option<String>,
    /// Where the command runs (`local`, `jail`, `pod router-7`), after the target.
    pub place: Option<String>,
    pub dry_run: DryRunView,
    /// What is read and recorded before the change (`spec.replicas of deployment/x -n y`).
    pub captures: Vec<String>,
    /// A silence on Alertmanager rather than a probe: Enter creates it (see `silence`).
    pub silence: Option<super::firing::SilenceDraft>,
}

/// The dry run the screen offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DryRunView {
    /// `d` runs this read-only command.
    Runnable(String),
    /// The request a write would send, shown as is.
    Preview(String),
    /// No dry run, and why.
    None(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Preconditions,
    Target,
}

/// The open confirmation screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mitigation {
    pub(in crate::tui) view: MitigationView,
    pub(in crate::tui) acks: Vec<bool>,
    pub(in crate::tui) sel: usize,
    pub(in crate::tui) focus: Focus,
    pub(in crate::tui) typed: String,
    /// The last refusal (wrong target, precondition missing), shown in red.
    pub(in crate::tui) error: Option<String>,
    /// The dry run's output once it ran: (ok, text).
    pub(in crate::tui) dry_output: Option<(bool, String)>,
    /// Waiting for the runtime (dry run or confirmation).
    pub(in crate::tui) busy: bool,
    pub(in crate::tui) scroll: u16,
    /// The command, the target and the field were all drawn whole (set by the widget).
    pub(in crate::tui) command_seen: bool,
    /// The selection moved: the next frame scrolls it into sight.
    pub(in crate::tui) follow: bool,
}

impl Mitigation {
    pub fn new(view: MitigationView) -> Mitigation {
        let n = view.preconditions.len();
        Mitigation {
            acks: vec![false; n],
            sel: 0,
            focus: if n == 0 {
                Focus::Target
            } else {
                Focus::Preconditions
            },
            typed: String::new(),
            error: None,
            dry_output: None,
            busy: false,
            scroll: 0,
            command_seen: false,
            follow: false,
            view,
        }
    }

    /// What the runtime prepared for the screen.
    pub fn view(&self) -> &MitigationView {
        &self.view
    }
    /// Each precondition, acknowledged or not.
    pub fn acks(&self) -> &[bool] {
        &self.acks
    }
    pub fn focus(&self) -> Focus {
        self.focus
    }
    /// The target typed back so far.
    pub fn typed(&self) -> &str {
        &self.typed
    }
    /// The last refusal, shown in red.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
    /// Waiting for the runtime (dry run or confirmation).
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// The runtime refused to confirm: nothing ran, and the screen says why.
    pub fn refused(&mut self, why: String) {
        self.busy = false;
        self.error = Some(why);
    }

    /// The dry run finished with this output.
    pub fn dry_run_finished(&mut self, ok: bool, text: String) {
        self.busy = false;
        self.dry_output = Some((ok, text));
    }

    pub fn all_acknowledged(&self) -> bool {
        self.acks.iter().all(|a| *a)
    }
}

/// A key on the confirmation screen.
pub fn key(app: &mut App, ev: KeyEvent) -> Vec<Effect> {
    let Some(m) = app.mitigation.as_mut() else {
        return Vec::new();
    };
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    let cancel = ev.code == KeyCode::Esc || (ctrl && ev.code == KeyCode::Char('c'));
    if cancel {
        app.mitigation = None;
        app.set_message("Mitigation cancelled: nothing was run.", false);
        return Vec::new();
    }
    if let (Some(_), true, KeyCode::Char(c @ ('+' | '-'))) =
        (&m.view.silence, m.typed.is_empty(), ev.code)
    {
        super::silence::adjust(m, c == '+');
        return Vec::new();
    }
    if m.focus == Focus::Target && meant_for_the_list(m, ev.code) {
        // Never typed into the field: the cursor goes back to the item left to tick.
        let i = m.acks.iter().position(|a| !a).unwrap_or(0);
        to_unticked(m, i);
        return Vec::new();
    }
    match (ev.code, m.focus) {
        (KeyCode::Tab | KeyCode::BackTab, _) => {
            m.focus = match m.focus {
                Focus::Preconditions => Focus::Target,
                Focus::Target if !m.acks.is_empty() => Focus::Preconditions,
                Focus::Target => Focus::Target,
            };
        }
        (KeyCode::PageDown, _) => m.scroll = m.scroll.saturating_add(5),
        (KeyCode::PageUp, _) => m.scroll = m.scroll.saturating_sub(5),
        (KeyCode::Down | KeyCode::Char('j'), Focus::Preconditions) => {
            m.sel = (m.sel + 1).min(m.acks.len().saturating_sub(1));
            m.follow = true;
        }
        (KeyCode::Up | KeyCode::Char('k'), Focus::Preconditions) => {
            m.sel = m.sel.saturating_sub(1);
            m.follow = true;
        }
        // Enter once everything is ticked moves to the field; the focus never moves there on
        // its own, so a key meant as a command (`d`) never lands in the field.
        (KeyCode::Enter, Focus::Preconditions) if m.all_acknowledged() => {
            m.focus = Focus::Target;
        }
        (KeyCode::Char(' ') | KeyCode::Enter | KeyCode::Char('x'), Focus::Preconditions) => {
            if let Some(a) = m.acks.get_mut(m.sel) {
                *a = !*a;
                m.error = None;
            }
            if let Some(next) = m.acks.iter().position(|a| !a) {
                m.sel = next;
            }
            m.follow = true;
        }
        (KeyCode::Char('d'), Focus::Preconditions) => return dry_run(app),
        (KeyCode::Backspace, Focus::Target) => {
            m.typed.pop();
        }
        (KeyCode::Char('d'), Focus::Target) if ctrl => return dry_run(app),
        (KeyCode::Char('u'), Focus::Target) if ctrl => m.typed.clear(),
        (KeyCode::Char(c), Focus::Target) if !ctrl => m.typed.push(c),
        (KeyCode::Enter, Focus::Target) => return submit(app),
        _ => app.dirty = false,
    }
    Vec::new()
}

/// The focus to precondition `i`, left to tick, and the message that says so.
fn to_unticked(m: &mut Mitigation, i: usize) {
    m.focus = Focus::Preconditions;
    m.sel = i;
    m.follow = true;
    m.error = Some(format!(
        "Precondition {} of {} is not acknowledged: the cursor is on it, Space ticks it.",
        i + 1,
        m.acks.len()
    ));
}

/// In the target field with a precondition left to tick: a key that moves or ticks in the list
/// (arrows, Space, or `j`/`k`/`x` that would not continue the target's name).
fn meant_for_the_list(m: &Mitigation, code: KeyCode) -> bool {
    if m.all_acknowledged() {
        return false;
    }
    let name = m.view.confirm_name.as_deref().unwrap_or("");
    match code {
        KeyCode::Up | KeyCode::Down | KeyCode::Char(' ') => true,
        KeyCode::Char(c @ ('j' | 'k' | 'x')) => !name.starts_with(&format!("{}{c}", m.typed)),
        _ => false,
    }
}

/// `text` with each `${NAME}` / `$NAME` of `vars` shown as its value.
pub fn show_values(text: &str, vars: &[(String, String)]) -> String {
    let mut out = text.to_string();
    // Longest names first, so `$CLUSTER_ID` is not taken for `$CLUSTER`.
    let mut vars: Vec<&(String, String)> = vars.iter().collect();
    vars.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
    for (k, v) in vars {
        out = out.replace(&format!("${{{k}}}"), v);
        let bare = format!("${k}");
        let mut rest = out.as_str();
        let mut done = String::with_capacity(out.len());
        while let Some(i) = rest.find(&bare) {
            let after = rest[i + bare.len()..].chars().next();
            done.push_str(&rest[..i]);
            if after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                done.push_str(&bare);
            } else {
                done.push_str(v);
            }
            rest = &rest[i + bare.len()..];
        }
        done.push_str(rest);
        out = done;
    }
    out
}

fn dry_run(app: &mut App) -> Vec<Effect> {
    let Some(m) = app.mitigation.as_mut() else {
        return Vec::new();
    };
    match &m.view.dry_run {
        DryRunView::Runnable(_) if !m.busy => {
            m.busy = true;
            m.dry_output = Some((true, "Dry run running…".into()));
            vec![Effect::DryRun {
                probe: m.view.probe.clone(),
            }]
        }
        DryRunView::Runnable(_) => Vec::new(),
        DryRunView::Preview(_) => {
            m.error =
                Some("This write has no server-side dry run: its request is shown above.".into());
            Vec::new()
        }
        DryRunView::None(why) => {
            m.error = Some(format!("No dry run: {why}."));
            Vec::new()
        }
    }
}

fn submit(app: &mut App) -> Vec<Effect> {
    let Some(m) = app.mitigation.as_mut() else {
        return Vec::new();
    };
    if m.busy {
        return Vec::new();
    }
    if !m.command_seen {
        m.error = Some(
            "The command is not whole on screen yet: make the terminal at least 80×24, read it, \
             then press Enter again. Nothing was run."
                .into(),
        );
        return Vec::new();
    }
    if let Some(i) = m.acks.iter().position(|a| !a) {
        to_unticked(m, i);
        return Vec::new();
    }
    if let Some(d) = m.view.silence.clone() {
        let typed = m.typed.clone();
        if m.view.confirm_name.as_deref() != Some(typed.as_str()) {
            m.error = Some(format!(
                "`{typed}` is not `{}`: nothing was silenced; type the Alertmanager's name exactly, or Esc.",
                d.source
            ));
            m.typed.clear();
            return Vec::new();
        }
        return super::silence::submit(app, d, typed);
    }
    m.busy = true;
    m.error = None;
    vec![Effect::ConfirmMitigation {
        probe: m.view.probe.clone(),
        acknowledged: m.acks.clone(),
        typed: m.typed.clone(),
    }]
}
