//! The `:` palette: a typed line parsed into a [`Command`] and the commands that take an
//! argument (`:alert`, `:goto`, `:set`, `:export`, `:tasks`, `:stop`); every other command
//! runs as if its key was pressed. Pure: part of `update()`; must not import IO.

use super::app::App;
use super::command::Command;
use super::effect::Effect;
use super::navigate::nav_cmd;
use super::update::Then;
use crate::nav::{AlertContext, Cmd, VarSource};

/// Runs one palette line: what it did, or the command `update` runs as if its key was
/// pressed.
pub fn palette(app: &mut App, line: &str) -> Then {
    if line.is_empty() {
        return Then::Done(Vec::new());
    }
    if line.trim() == "ns" {
        app.set_message(
            "`:ns` needs a namespace: :ns NAME sets NAMESPACE for the probes.",
            true,
        );
        return Then::Done(Vec::new());
    }
    let line = super::command::expand(line);
    let line = line.as_str();
    match line.parse::<Command>() {
        // The palette shows the help (a key toggles it) and marks the step wherever it is.
        Ok(Command::Help) => {
            app.screen.help = true;
            Then::Done(Vec::new())
        }
        Ok(Command::Done) => nav_cmd(app, Cmd::MarkDone).into(),
        Ok(Command::Skip) => nav_cmd(app, Cmd::MarkSkipped).into(),
        Ok(c) => Then::Run(c),
        Err(e) => {
            app.set_message(
                format!("`:{line}`: {e}; try :alert NAME, :goto ID, :set VAR=value, :export, :q"),
                true,
            );
            Then::Done(Vec::new())
        }
    }
}

/// Runs a command that takes an argument (from the palette or a keymap row).
pub fn run(app: &mut App, c: Command) -> Vec<Effect> {
    match c {
        Command::Alert(name) => {
            let labels = app
                .nav
                .alert
                .as_ref()
                .map(|a| a.labels.clone())
                .unwrap_or_default();
            nav_cmd(
                app,
                Cmd::Alert(AlertContext {
                    name,
                    labels,
                    target: None,
                    runbook_url: None,
                }),
            )
        }
        Command::Goto(id) => {
            match app
                .nav
                .index
                .resolve(&app.lib, app.nav.current.as_deref(), &id)
            {
                Some(id) => goto(app, id),
                None => {
                    app.set_message(format!("No step `{id}` in the loaded guides; :goto takes a heading slug (step-2a-…) or path#slug."), true);
                    Vec::new()
                }
            }
        }
        Command::Set(kv) => set(app, &kv),
        Command::Contexts(pattern) => super::contexts::fan_out(app, &pattern),
        Command::Waves(args) => super::waves::open(app, &args),
        Command::Export(_) if !app.session.open.is_empty() && !app.session.export_armed => {
            app.session.export_armed = true;
            let warning = super::flow::open_warning(app);
            app.set_message(
                format!(
                    "Run :export again to export with it open (the bundle lists it), or restore first. {warning}."
                ),
                true,
            );
            Vec::new()
        }
        Command::Export(team) => {
            app.session.export_armed = false;
            // `:export Cloudnet/NRP`: the team's evidence list becomes the bundle's checklist.
            app.session.export_team = team;
            nav_cmd(app, Cmd::Export)
        }
        Command::Tasks => {
            let list: Vec<String> = app
                .probes
                .tasks
                .iter()
                .map(|(id, w)| format!("#{id} {w}"))
                .collect();
            let msg = if list.is_empty() {
                "No background task is running.".to_string()
            } else {
                format!("Running: {} (:stop N stops one)", list.join(" · "))
            };
            app.set_message(msg, false);
            Vec::new()
        }
        Command::Stop(id) if app.probes.tasks.iter().any(|(t, _)| *t == id) => {
            vec![Effect::StopTask(id)]
        }
        Command::Stop(id) => {
            app.set_message(
                format!("`:stop {id}`: no running task has that number; :tasks lists them."),
                true,
            );
            Vec::new()
        }
        // `update` sends only the commands above here.
        _ => {
            app.dirty = false;
            Vec::new()
        }
    }
}

/// Opens step `id`; says so when it is in another guide than the one open.
fn goto(app: &mut App, id: String) -> Vec<Effect> {
    let before = app.current_guide_index();
    let effects = nav_cmd(app, Cmd::Goto(id));
    let after = app.current_guide_index();
    if before.is_some() && before != after {
        if let (Some(g), Some(n)) = (app.current_guide(), app.current_node()) {
            let msg = format!(
                "jumped to {} ({}): {}; h goes back",
                g.title, g.path, n.title
            );
            app.set_message(msg, false);
        }
    }
    effects
}

fn set(app: &mut App, kv: &str) -> Vec<Effect> {
    match kv.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => {
            let (name, value) = (k.trim().to_string(), v.trim().to_string());
            app.set_message(format!("{name} = {value}"), false);
            nav_cmd(
                app,
                Cmd::SetVar {
                    name,
                    value,
                    source: VarSource::Typed,
                },
            )
        }
        _ => {
            app.set_message(
                format!("`:set {kv}`: write :set VAR=value, e.g. :set NODE_NAME=aks-node-1"),
                true,
            );
            Vec::new()
        }
    }
}
