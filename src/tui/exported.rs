//! The export popup: after `:export`, the folder, the archive, the chain head and the signing
//! key are shown whole (the status line cuts them) with keys that copy each one. Any key
//! that is not one of the popup's closes it and then does what it always does, so `q` still
//! quits. Pure: part of `update()`; must not import IO.

use crossterm::event::{KeyCode, KeyEvent};

use super::app::App;
use super::effect::Effect;

/// What an export wrote, as the runtime read it back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportShown {
    /// The bundle's folder.
    pub folder: String,
    /// The archive, when one was packed.
    pub archive: Option<String>,
    /// The hash chain's head after the export record, and that record's number.
    pub head: String,
    pub records: u64,
    /// The signing key's id (`UNSIGNED` when the session is not signed).
    pub key_id: String,
    /// The public key (minisign base64), when the operator's key signed the session.
    pub public_key: Option<String>,
}

impl ExportShown {
    /// What `k` copies: the public key when known, else the key id.
    pub fn key(&self) -> String {
        self.public_key
            .clone()
            .unwrap_or_else(|| self.key_id.clone())
    }
}

/// A key while the popup is open: `Some` when the popup took it.
pub fn key(app: &mut App, ev: &KeyEvent) -> Option<Vec<Effect>> {
    let shown = app.session.export_shown.clone()?;
    if !ev.modifiers.is_empty() && !matches!(ev.code, KeyCode::Char(_)) {
        app.session.export_shown = None;
        return None;
    }
    let (what, text) = match ev.code {
        KeyCode::Char('y') => (
            "the chain head and key id",
            app.session.copy_offer.clone().unwrap_or_else(|| {
                format!(
                    "chain head {} (record #{}), key {}",
                    shown.head, shown.records, shown.key_id
                )
            }),
        ),
        KeyCode::Char('c') => ("the folder", shown.folder.clone()),
        KeyCode::Char('h') => ("the chain head", shown.head.clone()),
        KeyCode::Char('k') => ("the key", shown.key()),
        KeyCode::Esc | KeyCode::Enter => {
            app.session.export_shown = None;
            return Some(Vec::new());
        }
        _ => {
            app.session.export_shown = None;
            app.session.copy_offer = None;
            return None;
        }
    };
    app.set_message(format!("Copied {what} to the clipboard (OSC 52)."), false);
    Some(vec![Effect::Copy(text)])
}
