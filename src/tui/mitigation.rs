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
use super::firing::SilenceDraft;

mod view;
pub use view::{show_values, DryRunView, MitigationView};

#[cfg(test)]
mod tests;

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

/// What a key on the confirmation screen asks of the rest of the app.
#[derive(Debug, Clone, PartialEq)]
pub enum MitigationKey {
    /// Handled on the screen (it redraws).
    Done,
    /// Not a key of the screen: nothing to redraw.
    Ignored,
    /// Esc or Ctrl-C: the screen closes and nothing runs.
    Cancel,
    /// Asks the runtime for the dry run or the confirmation.
    Ask(Effect),
    /// Enter on a silence's screen with the Alertmanager's name typed back: create it.
    Silence { draft: SilenceDraft, typed: String },
}

impl Mitigation {
    /// A key on the confirmation screen: moves, ticks and types on the screen's own state;
    /// what only the rest of the app can do is returned.
    pub fn key(&mut self, ev: KeyEvent) -> MitigationKey {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        if ev.code == KeyCode::Esc || (ctrl && ev.code == KeyCode::Char('c')) {
            return MitigationKey::Cancel;
        }
        if let (Some(_), true, KeyCode::Char(c @ ('+' | '-'))) =
            (&self.view.silence, self.typed.is_empty(), ev.code)
        {
            super::silence::adjust(self, c == '+');
            return MitigationKey::Done;
        }
        if self.focus == Focus::Target && self.meant_for_the_list(ev.code) {
            // Never typed into the field: the cursor goes back to the item left to tick.
            let i = self.acks.iter().position(|a| !a).unwrap_or(0);
            self.focus_unticked(i);
            return MitigationKey::Done;
        }
        match (ev.code, self.focus) {
            (KeyCode::Tab | KeyCode::BackTab, _) => {
                self.focus = match self.focus {
                    Focus::Preconditions => Focus::Target,
                    Focus::Target if !self.acks.is_empty() => Focus::Preconditions,
                    Focus::Target => Focus::Target,
                };
            }
            (KeyCode::PageDown, _) => self.scroll = self.scroll.saturating_add(5),
            (KeyCode::PageUp, _) => self.scroll = self.scroll.saturating_sub(5),
            (KeyCode::Down | KeyCode::Char('j'), Focus::Preconditions) => {
                self.sel = (self.sel + 1).min(self.acks.len().saturating_sub(1));
                self.follow = true;
            }
            (KeyCode::Up | KeyCode::Char('k'), Focus::Preconditions) => {
                self.sel = self.sel.saturating_sub(1);
                self.follow = true;
            }
            // Enter once everything is ticked moves to the field; the focus never moves there
            // on its own, so a key meant as a command (`d`) never lands in the field.
            (KeyCode::Enter, Focus::Preconditions) if self.all_acknowledged() => {
                self.focus = Focus::Target;
            }
            (KeyCode::Char(' ') | KeyCode::Enter | KeyCode::Char('x'), Focus::Preconditions) => {
                self.tick()
            }
            (KeyCode::Char('d'), Focus::Preconditions) => return self.dry_run(),
            (KeyCode::Backspace, Focus::Target) => {
                self.typed.pop();
            }
            (KeyCode::Char('d'), Focus::Target) if ctrl => return self.dry_run(),
            (KeyCode::Char('u'), Focus::Target) if ctrl => self.typed.clear(),
            (KeyCode::Char(c), Focus::Target) if !ctrl => self.typed.push(c),
            (KeyCode::Enter, Focus::Target) => return self.submit(),
            _ => return MitigationKey::Ignored,
        }
        MitigationKey::Done
    }

    /// Ticks (or clears) the selected precondition; the cursor goes to the next one left.
    fn tick(&mut self) {
        if let Some(a) = self.acks.get_mut(self.sel) {
            *a = !*a;
            self.error = None;
        }
        if let Some(next) = self.acks.iter().position(|a| !a) {
            self.sel = next;
        }
        self.follow = true;
    }

    /// `d`: the dry run when the probe has one (once at a time), else why not.
    fn dry_run(&mut self) -> MitigationKey {
        match &self.view.dry_run {
            DryRunView::Runnable(_) if !self.busy => {
                self.busy = true;
                self.dry_output = Some((true, "Dry run running…".into()));
                return MitigationKey::Ask(Effect::DryRun {
                    probe: self.view.probe.clone(),
                });
            }
            DryRunView::Runnable(_) => {}
            DryRunView::Preview(_) => {
                self.error = Some(
                    "This write has no server-side dry run: its request is shown above.".into(),
                )
            }
            DryRunView::None(why) => self.error = Some(format!("No dry run: {why}.")),
        }
        MitigationKey::Done
    }

    /// Enter in the target field: refused until the command was drawn whole and every
    /// precondition is ticked; a silence needs the Alertmanager's name exactly.
    fn submit(&mut self) -> MitigationKey {
        if self.busy {
            return MitigationKey::Done;
        }
        if !self.command_seen {
            self.error = Some(
                "The command is not whole on screen yet: make the terminal at least 80×24, read \
                 it, then press Enter again. Nothing was run."
                    .into(),
            );
            return MitigationKey::Done;
        }
        if let Some(i) = self.acks.iter().position(|a| !a) {
            self.focus_unticked(i);
            return MitigationKey::Done;
        }
        if let Some(draft) = self.view.silence.clone() {
            let typed = self.typed.clone();
            if self.view.confirm_name.as_deref() != Some(typed.as_str()) {
                self.error = Some(format!(
                    "`{typed}` is not `{}`: nothing was silenced; type the Alertmanager's name exactly, or Esc.",
                    draft.source
                ));
                self.typed.clear();
                return MitigationKey::Done;
            }
            return MitigationKey::Silence { draft, typed };
        }
        self.busy = true;
        self.error = None;
        MitigationKey::Ask(Effect::ConfirmMitigation {
            probe: self.view.probe.clone(),
            acknowledged: self.acks.clone(),
            typed: self.typed.clone(),
        })
    }

    /// The focus to precondition `i`, left to tick, and the message that says so.
    fn focus_unticked(&mut self, i: usize) {
        self.focus = Focus::Preconditions;
        self.sel = i;
        self.follow = true;
        self.error = Some(format!(
            "Precondition {} of {} is not acknowledged: the cursor is on it, Space ticks it.",
            i + 1,
            self.acks.len()
        ));
    }

    /// In the target field with a precondition left to tick: a key that moves or ticks in
    /// the list (arrows, Space, or `j`/`k`/`x` that would not continue the target's name).
    fn meant_for_the_list(&self, code: KeyCode) -> bool {
        if self.all_acknowledged() {
            return false;
        }
        let name = self.view.confirm_name.as_deref().unwrap_or("");
        match code {
            KeyCode::Up | KeyCode::Down | KeyCode::Char(' ') => true,
            KeyCode::Char(c @ ('j' | 'k' | 'x')) => {
                !name.starts_with(&format!("{}{c}", self.typed))
            }
            _ => false,
        }
    }
}

/// A key on the confirmation screen, applied to the app: the screen closes on a cancel or a
/// silence sent, and the effects asked for go to the runtime.
pub fn key(app: &mut App, ev: KeyEvent) -> Vec<Effect> {
    let Some(m) = app.mitigation.as_mut() else {
        return Vec::new();
    };
    match m.key(ev) {
        MitigationKey::Done => Vec::new(),
        MitigationKey::Ignored => {
            app.dirty = false;
            Vec::new()
        }
        MitigationKey::Cancel => {
            app.mitigation = None;
            app.set_message("Mitigation cancelled: nothing was run.", false);
            Vec::new()
        }
        MitigationKey::Ask(effect) => vec![effect],
        MitigationKey::Silence { draft, typed } => super::silence::submit(app, draft, typed),
    }
}
