//! The `:export` of the TUI's evidence recorder: the bundle written into the session folder,
//! its record journaled, and what the export screen and the copy offer show. Part of the
//! runtime, the IO edge; must not import `cli`.

use crate::evidence::{self, ExportFormat, ExportRequest, Redactor};
use crate::tui::action::Action;
use crate::tui::app::App;

use super::Recorder;

impl Recorder {
    /// Writes the export bundle into the session folder.
    pub fn export(&mut self, app: &App) -> Vec<Action> {
        let mut out = self.ensure(app);
        let Some(s) = self.session.as_mut() else {
            out.push(Action::Exported(Err(
                "no evidence session is recording yet: open a step first".into(),
            )));
            return out;
        };
        let escalation = match (&app.session.export_team, app.current_guide()) {
            (Some(team), Some(g)) => match evidence::find_team(&g.escalations, team, &g.file) {
                Ok(e) => Some(e.clone()),
                Err(e) => {
                    out.push(Action::Exported(Err(e.to_string())));
                    return out;
                }
            },
            _ => None,
        };
        let req = ExportRequest {
            escalation,
            format: ExportFormat::TarGz,
            out: s.dir().join("export").join(evidence::export_name(
                s.id(),
                app.session.export_team.as_deref(),
            )),
        };
        let redactor = Redactor::with_patterns(&self.redact).unwrap_or_default();
        let done = evidence::export(s.dir(), &req, &redactor)
            .map_err(|e| e.to_string())
            .and_then(|d| s.append(d.record()).map(|_| d).map_err(|e| e.to_string()));
        let (head, records) = (s.head().to_owned(), s.records());
        let key = s
            .key_fingerprint()
            .map_or("UNSIGNED".to_owned(), |k| format!("key {k}"));
        let shown = done.as_ref().ok().map(|d| {
            let key_id = s.key_id().unwrap_or_else(|| "UNSIGNED".to_owned());
            // The operator's own key, when it is the one that signs this session (never
            // created here: an unsigned session looks no key up).
            let public_key = s
                .key_id()
                .and_then(|_| evidence::operator_key().ok())
                .filter(|k| k.public().id() == key_id)
                .map(|k| k.public().to_base64());
            crate::tui::exported::ExportShown {
                folder: d.dir.display().to_string(),
                archive: d.tarball.as_ref().map(|t| t.display().to_string()),
                head: head.clone(),
                records,
                key_id,
                public_key,
            }
        });
        let ok = done.is_ok();
        out.push(Action::Exported(done.map(|d| {
            format!(
                "{} · chain head {head} (record #{records}), {key}: paste both into the incident",
                d.tarball.unwrap_or(d.dir).display()
            )
        })));
        out.extend(shown.map(Action::ExportShown));
        if ok {
            let signed = s
                .key_fingerprint()
                .map_or("UNSIGNED".to_owned(), |k| format!("key {k}"));
            out.push(Action::CopyOffer(format!(
                "tsgnav evidence {} (record #{records}): head {head} · {signed}",
                s.id()
            )));
        }
        out
    }
}
