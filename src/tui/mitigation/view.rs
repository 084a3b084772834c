//! What the confirmation screen shows, as the runtime prepared it: the node's fields, the
//! command after substitution, the target, the dry run on offer and what is captured before
//! the change; and `show_values`, which writes a text with its variables as their values.
//! Pure; must not import IO, `crate::query` or `crate::evidence`.

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
    pub silence: Option<crate::tui::firing::SilenceDraft>,
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
