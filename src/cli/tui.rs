//! The default command: `tsgnav [PATH...] [--alert NAME] [--alert-payload FILE|-] [--node FILE#ID]
//! [--var NAME=value]` opens the navigator. Reads the config, keymap and theme files and the
//! alert payload, builds the `tui::App`, and hands it to `tui::runtime`. When stdout is not a
//! terminal and no navigator flag is given, prints the decision tree instead (as before).

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use crate::nav::Effect;
use crate::nav::{self, AlertContext, Cmd, VarSource};
use crate::tui::runtime::probes::LiveSettings;
use crate::tui::runtime::record::Recorder;
use crate::tui::runtime::Options;
use crate::tui::{self, keymap::Keymap, theme::Theme, App};

#[derive(Debug, Default, Args)]
pub struct TuiArgs {
    /// Guides or folders of guides (default: the bundled guides plus `guides` from the config file).
    pub paths: Vec<PathBuf>,
    /// Start from this alert: land on the step its guide routes it to.
    #[arg(long, value_name = "NAME")]
    pub alert: Option<String>,
    /// An Alertmanager webhook payload or Prometheus alert JSON (`-` reads stdin); its labels
    /// (namespace, cluster, region, node …) fill the guide's variables.
    #[arg(long, value_name = "FILE|-")]
    pub alert_payload: Option<String>,
    /// Open this step (`file.md#heading-slug`, or a slug).
    #[arg(long, value_name = "FILE#ID")]
    pub node: Option<String>,
    /// Set a probe variable (repeatable).
    #[arg(long = "var", value_name = "NAME=value")]
    pub vars: Vec<String>,
    /// Do not record an evidence session.
    #[arg(long)]
    pub no_evidence: bool,
    /// Start in write mode: a mutating probe opens its confirmation screen (preconditions,
    /// exact command, dry run, the target typed back). Without it the session is read-only
    /// until `W` is pressed and the kube context typed.
    #[arg(long)]
    pub write: bool,
    /// The kube context probes run against (default: `context` under [query] in the config
    /// file); write mode asks for this name to be typed back.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Continue an evidence session (`latest`, an id or a prefix), after a crash too: its
    /// guide, the step it was on and its variables come back from the journal, and new
    /// records extend the same hash chain.
    #[arg(long, value_name = "SESSION", num_args = 0..=1, default_missing_value = "latest")]
    pub resume: Option<String>,
}

/// Everything the navigator starts with.
pub struct Built {
    pub app: App,
    /// Some guides could not be loaded (exit 2 after the session).
    pub failed: bool,
    pub live: Option<LiveSettings>,
    /// Effects of the set-up (alert, `--var`, `--node`) for the runtime to carry out first.
    pub startup: Vec<Effect>,
    /// Secret patterns from the config file, redacted from the evidence.
    pub redact: Vec<String>,
}

impl TuiArgs {
    fn wants_tui(&self) -> bool {
        self.alert.is_some()
            || self.alert_payload.is_some()
            || self.node.is_some()
            || !self.vars.is_empty()
            || self.resume.is_some()
    }

    /// Opens the session to resume and fills in what the journal knows (flags win).
    fn prepare_resume(&mut self, query: &str) -> anyhow::Result<crate::evidence::Session> {
        let state_dir = crate::evidence::state_dir();
        let dir = crate::evidence::resolve(&state_dir, query)?;
        let session = crate::evidence::Session::open(&dir)
            .with_context(|| format!("{}: cannot resume this session", dir.display()))?;
        if let Some(t) = session.recovered() {
            eprintln!(
                "note: {}: journal line {} was cut off mid-write by a crash; it was set aside ({} bytes), every record before it is kept",
                dir.display(),
                t.line,
                t.bytes
            );
        }
        let st = session.state().clone();
        let guide = PathBuf::from(&st.start.guide);
        if self.paths.is_empty() && !st.start.guide.starts_with("tsg/") && guide.exists() {
            self.paths.push(guide);
        }
        if self.node.is_none() {
            self.node = st.node.clone();
        }
        if self.alert.is_none() && self.node.is_none() {
            self.alert = st.start.alert.clone();
        }
        for (k, v) in &st.vars {
            if !self
                .vars
                .iter()
                .any(|x| x.split('=').next() == Some(k.as_str()))
            {
                self.vars.push(format!("{k}={v}"));
            }
        }
        Ok(session)
    }

    pub fn run(self) -> anyhow::Result<ExitCode> {
        if !std::io::stdout().is_terminal() {
            if self.wants_tui() {
                bail!("the navigator needs a terminal, and stdout is not one; run it in a terminal, or use `tsgnav tree` for a printout");
            }
            return super::tree::TreeArgs {
                paths: self.paths,
                ..Default::default()
            }
            .run();
        }
        let mut args = self;
        let resumed = match args.resume.take() {
            Some(q) => Some(args.prepare_resume(&q)?),
            None => None,
        };
        let no_evidence = args.no_evidence;
        let built = args.build()?;
        match resumed {
            Some(session) => launch_with(
                built,
                Some(Recorder::resume(
                    crate::evidence::state_dir(),
                    super::embedded::GUIDES,
                    session,
                )),
            ),
            None => launch(built, no_evidence),
        }
    }
}

/// Runs the navigator on a built app until the operator quits; the terminal is restored
/// whatever happens.
pub fn launch(built: Built, no_evidence: bool) -> anyhow::Result<ExitCode> {
    let redact = built.redact.clone();
    let recorder = (!no_evidence).then(|| {
        Recorder::new(crate::evidence::state_dir(), super::embedded::GUIDES).with_redact(redact)
    });
    launch_with(built, recorder)
}

/// [`launch`] with the recorder given (a resumed session's, or none).
pub fn launch_with(built: Built, recorder: Option<Recorder>) -> anyhow::Result<ExitCode> {
    {
        let Built {
            app,
            failed,
            live,
            startup,
            ..
        } = built;
        tui::runtime::run(
            app,
            Options {
                live,
                recorder,
                startup,
            },
        )
        .context("terminal error")?;
        Ok(if failed {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}

impl TuiArgs {
    /// Everything but the terminal: library, config, keymap, theme, alert, variables, start node.
    pub fn build(self) -> anyhow::Result<Built> {
        let (config_file, explicit) = match std::env::var_os("TSGNAV_CONFIG") {
            Some(p) => (Some(PathBuf::from(p)), true),
            None => (
                dirs::config_dir().map(|d| d.join("tsgnav").join("config.toml")),
                false,
            ),
        };
        let config = match &config_file {
            Some(f) if f.exists() || explicit => {
                let text = std::fs::read_to_string(f).with_context(|| {
                    format!(
                        "{}: cannot read the config file (TSGNAV_CONFIG)",
                        f.display()
                    )
                })?;
                tui::config::parse(&f.display().to_string(), &text)?
            }
            _ => tui::config::Config::default(),
        };
        let dir = config_file
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        let (lib, failed) = if self.paths.is_empty() {
            let mut lib = super::embedded::library();
            let extra: Vec<PathBuf> = config.guides.iter().map(|g| expand_home(g)).collect();
            let mut failed = false;
            if !extra.is_empty() {
                let (more, errors) = crate::load::load_library(&extra);
                for e in &errors {
                    failed |= !e.is_warning();
                    eprintln!(
                        "{}: {e} (from `guides` in the config file)",
                        if e.is_warning() { "warning" } else { "error" }
                    );
                }
                lib.guides.extend(more.guides);
                crate::tsg::link_library(&mut lib);
            }
            (lib, failed)
        } else {
            super::load(&self.paths)
        };
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let mut keymap = Keymap::bundled();
        let mut theme = Theme::bundled(no_color);
        if let Some(dir) = &dir {
            let km = dir.join("keymap.toml");
            if km.exists() {
                let text = std::fs::read_to_string(&km)
                    .with_context(|| format!("{}: cannot read it", km.display()))?;
                keymap = keymap.with_overrides(Keymap::parse(&km.display().to_string(), &text)?);
            }
            let th = dir.join("theme.toml");
            if th.exists() {
                let text = std::fs::read_to_string(&th)
                    .with_context(|| format!("{}: cannot read it", th.display()))?;
                theme =
                    theme.with_overrides(Theme::parse(&th.display().to_string(), &text, no_color)?);
            }
        }
        let mut app = App::new(lib, keymap, theme);
        app.recording = !self.no_evidence;
        let mut startup = Vec::new();
        if failed {
            app.set_message(
                "Some guides could not be loaded; the errors are printed when you quit.",
                true,
            );
        }
        for kv in &self.vars {
            let Some((k, v)) = kv.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
                bail!("--var {kv}: write --var NAME=value, e.g. --var NODE_NAME=aks-nodepool1-0");
            };
            let cmd = Cmd::SetVar {
                name: k.trim().into(),
                value: v.into(),
                source: VarSource::Flag,
            };
            startup.extend(tui::navigate::nav_cmd(&mut app, cmd));
        }
        let mut alert = self.alert.clone().map(|name| AlertContext {
            name,
            ..AlertContext::default()
        });
        if let Some(src) = &self.alert_payload {
            let (name, text) = read_payload(src)?;
            let alerts = nav::parse_alert_payload(&name, &text)?;
            let pick = match &self.alert {
                Some(want) => alerts.iter().find(|a| &a.name == want).or(alerts.first()),
                None => alerts.first(),
            };
            if let Some(a) = pick {
                let name = self.alert.clone().unwrap_or_else(|| a.name.clone());
                alert = Some(AlertContext {
                    name,
                    labels: a.labels.clone(),
                    target: None,
                });
            }
        }
        if let Some(ctx) = alert {
            startup.extend(tui::navigate::nav_cmd(&mut app, Cmd::Alert(ctx)));
        }
        for (k, v) in &config.vars {
            if !app.nav.vars.contains_key(k) {
                startup.extend(tui::navigate::nav_cmd(
                    &mut app,
                    Cmd::SetVar {
                        name: k.clone(),
                        value: v.clone(),
                        source: VarSource::Config,
                    },
                ));
            }
        }
        if let Some(node) = &self.node {
            let Some(id) = app.nav.index.resolve(&app.lib, None, node) else {
                bail!("--node {node}: no such step in the loaded guides; write file.md#heading-slug as printed by `tsgnav tree --json`");
            };
            startup.extend(tui::navigate::nav_cmd(&mut app, Cmd::Goto(id)));
        }
        let q = &config.query;
        let live = (q.live != Some(false)).then(|| LiveSettings {
            backends: crate::query::setup::Settings {
                prometheus_url: q.prometheus_url.clone(),
                prometheus_token_cmd: q.prometheus_token_cmd.clone(),
                kusto_url: q.kusto_url.clone(),
                kusto_clusters: q.kusto_clusters.clone(),
                kusto_token_cmd: q.kusto_token_cmd.clone(),
                maestro_url: q.maestro_url.clone(),
                kubeconfig: q.kubeconfig.as_deref().map(expand_home),
                contexts: None,
                recorded: None,
                replay: None,
            },
            context: self.context.clone().or_else(|| q.context.clone()),
            kubeconfig: q.kubeconfig.as_deref().map(expand_home),
        });
        if self.write {
            match live.as_ref().and_then(|l| l.context.clone()) {
                Some(ctx) => {
                    app.write = true;
                    app.write_target = Some(ctx);
                }
                None => bail!("--write needs a kube context to confirm against: add --context NAME, or set `context` under [query] in the config file"),
            }
        }
        if live.is_none() {
            app.live =
                tui::app::Live::Unavailable("`live = false` in the config file's [query]".into());
        }
        Ok(Built {
            app,
            failed,
            live,
            startup,
            redact: config.redact.clone(),
        })
    }
}

fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(p),
    }
}

fn read_payload(src: &str) -> anyhow::Result<(String, String)> {
    if src == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("--alert-payload -: cannot read stdin")?;
        return Ok(("stdin".into(), text));
    }
    let text = std::fs::read_to_string(src)
        .with_context(|| format!("--alert-payload {src}: cannot read the file"))?;
    Ok((src.to_string(), text))
}
