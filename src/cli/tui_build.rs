//! Building the navigator from its inputs, without the terminal: the library (bundled guides
//! plus the config's `guides`), the config file, keymap and theme overrides beside it, the
//! alert (by name or payload), `--var`, `--node`, the live-query settings and write mode.
//! Part of the CLI edge (`anyhow`).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::tui::{Built, TuiArgs};
use crate::nav::{self, AlertContext, Cmd, VarSource};
use crate::tsg::Library;
use crate::tui::runtime::library::Loader;
use crate::tui::runtime::probes::LiveSettings;
use crate::tui::{self, keymap::Keymap, theme::Theme, App};

impl TuiArgs {
    /// Everything but the terminal: library, config, keymap, theme, alert, variables, start node.
    pub fn build(self) -> anyhow::Result<Built> {
        let (config, dir) = read_config()?;
        let (lib, failed, loader) = self.library(&config);
        // `TERM=dumb` cannot show colours either: the same plain mode as NO_COLOR.
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
            || std::env::var("TERM").is_ok_and(|t| t == "dumb");
        let (keymap, theme, bad_rows) = overrides(dir.as_deref(), no_color)?;
        let mut app = App::new(lib, keymap, theme);
        app.session.recording = !self.no_evidence;
        let mut startup = Vec::new();
        let mut pending: Vec<Cmd> = Vec::new();
        // Applied now, or (when the library is read in the background) once it is all in.
        let mut apply = |app: &mut App, cmd: Cmd| {
            if loader.is_some() {
                pending.push(cmd);
            } else {
                startup.extend(tui::navigate::nav_cmd(app, cmd));
            }
        };
        if failed {
            app.set_message(
                "Some guides could not be loaded; the errors are printed when you quit.",
                true,
            );
        }
        if !bad_rows.is_empty() {
            for p in &bad_rows {
                eprintln!("warning: {p}");
            }
            app.set_message(
                format!(
                    "{} keymap row(s) left out, their default keys kept: {}",
                    bad_rows.len(),
                    bad_rows.join("; ")
                ),
                true,
            );
        }
        let live = self.live_settings(&config);
        if let (Some(ctx), Some(l)) = (&self.context, &live) {
            crate::query::kube::fanout::check_context(l.kubeconfig.clone(), ctx)
                .map_err(|e| anyhow::anyhow!(e))?;
        }
        app.session.aim = self.aim(&config, live.as_ref());
        self.startup(&mut app, &config, &mut apply)?;
        let loader = loader.map(|roots| Loader {
            roots,
            cache: super::guide_cache(),
            finish: super::SETTLED,
            pending,
            problems: Default::default(),
        });
        if let Some(ns) = config.query.namespace.as_deref() {
            super::target::check_namespace_as(ns, "namespace =")
                .map_err(|e| anyhow::anyhow!("the config file's [query] {e}"))?;
        }
        app.session.namespace = live.as_ref().and_then(|l| l.namespace.clone());
        app.session.kubeconfig = (live.as_ref())
            .and_then(|l| l.kubeconfig.as_ref())
            .map(|k| k.display().to_string());
        if self.write {
            if app.context().is_none() {
                bail!("--write needs a kube context to confirm against: add --context NAME, or set `context` under [query] in the config file");
            }
            app.session.write = true;
        }
        if live.is_none() {
            app.session.live =
                tui::app::Live::Unavailable("`live = false` in the config file's [query]".into());
        }
        let firing = super::alerts_firing::navigator_sources(
            &config,
            &self.alertmanager_url,
            self.auto_run,
        )?;
        Ok(Built {
            app,
            failed,
            live,
            startup,
            redact: config.redact.clone(),
            loader,
            firing,
        })
    }

    /// Where the session's kube context comes from: `--context`, `[query] context`, the
    /// kubeconfig's current context, and `[alerts]` for the alert's.
    fn aim(&self, config: &tui::config::Config, live: Option<&LiveSettings>) -> tui::target::Aim {
        tui::target::Aim {
            flag: self.context.clone(),
            default: config.query.context.clone(),
            current: live.and_then(|l| crate::query::kube::current_context(l.kubeconfig.clone())),
            map: config.alerts.context_map(),
            alert: None,
        }
    }

    /// The start-up commands (`--var`, the alert, the config's variables, `--node`), each
    /// handed to `apply`.
    fn startup(
        &self,
        app: &mut App,
        config: &tui::config::Config,
        apply: &mut impl FnMut(&mut App, Cmd),
    ) -> anyhow::Result<()> {
        for kv in &self.vars {
            let Some((k, v)) = kv.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
                bail!("--var {kv}: write --var NAME=value, e.g. --var NODE_NAME=aks-nodepool1-0");
            };
            let cmd = Cmd::SetVar {
                name: k.trim().into(),
                value: v.into(),
                source: VarSource::Flag,
            };
            apply(app, cmd);
        }
        // `-n NAME` (else the config's `namespace`) is also the guides' `NAMESPACE`, as
        // `:ns NAME` sets it; `--var` and the config's [vars] win.
        let ns = match (&self.namespace, &config.query.namespace) {
            (Some(n), _) => Some((n.clone(), VarSource::Flag)),
            (None, Some(n)) if !config.vars.contains_key("NAMESPACE") => {
                Some((n.clone(), VarSource::Config))
            }
            _ => None,
        };
        let flagged = |v: &String| {
            v.split_once('=')
                .is_some_and(|(k, _)| k.trim() == "NAMESPACE")
        };
        if let Some((value, source)) = ns.filter(|_| !self.vars.iter().any(flagged)) {
            let name = "NAMESPACE".into();
            apply(
                app,
                Cmd::SetVar {
                    name,
                    value,
                    source,
                },
            );
        }
        // Its labels pick the kube context through `[alerts]` (`App::context`), at once,
        // even when the step is landed on once the library is read.
        if let Some(ctx) = self.alert_context()? {
            let _ = tui::target::alert(app, &ctx.name, &ctx.labels);
            apply(app, Cmd::Alert(ctx));
        }
        for (k, v) in &config.vars {
            if !app.nav.vars.contains_key(k) {
                apply(
                    app,
                    Cmd::SetVar {
                        name: k.clone(),
                        value: v.clone(),
                        source: VarSource::Config,
                    },
                );
            }
        }
        if let Some(node) = &self.node {
            let Some(id) = app.nav.index.resolve(&app.lib, None, node) else {
                bail!("--node {node}: no such step in the loaded guides; write file.md#heading-slug as printed by `tsgnav tree --json`");
            };
            apply(app, Cmd::Goto(id));
        }
        Ok(())
    }

    /// The library to start with, whether some guide failed, and the roots still to read in
    /// the background (the navigator draws first) unless a step must be checked now.
    fn library(&self, config: &tui::config::Config) -> (Library, bool, Option<Vec<PathBuf>>) {
        let background = self.background && self.node.is_none();
        let mut loader = None;
        let (lib, failed) = if self.paths.is_empty() {
            let mut lib = super::embedded::library();
            let extra: Vec<PathBuf> = config.guides.iter().map(|g| expand_home(g)).collect();
            let mut failed = false;
            if background && !extra.is_empty() {
                loader = Some(extra);
            } else if !extra.is_empty() {
                // The bundled guides' roles are refined as the extra ones' are (`SETTLED`).
                super::refine_roles(&mut lib);
                let cache = super::guide_cache();
                let (more, errors, _) =
                    crate::load::load_library_cached_with(&extra, cache.as_ref(), super::SETTLED);
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
        } else if background {
            loader = Some(self.paths.clone());
            (crate::tsg::Library::default(), false)
        } else {
            super::load(&self.paths)
        };
        (lib, failed, loader)
    }
    /// The alert to land on: `--alert NAME`, or the one `--alert-payload` carries (by that
    /// name when both are given), with its labels and `startsAt`; `--label k=v` adds labels.
    fn alert_context(&self) -> anyhow::Result<Option<AlertContext>> {
        let mut alert = self.alert.clone().map(|name| AlertContext {
            name,
            ..AlertContext::default()
        });
        let mut extra = std::collections::BTreeMap::new();
        for kv in &self.labels {
            let Some((k, v)) = kv.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
                bail!("--label {kv}: write --label NAME=value, e.g. --label cluster=mc-westus3-1");
            };
            extra.insert(k.trim().to_string(), v.to_string());
        }
        if !extra.is_empty() && self.alert.is_none() && self.alert_payload.is_none() {
            bail!(
                "--label gives the labels of an alert: add --alert NAME (or --alert-payload FILE)"
            );
        }
        if let Some(src) = &self.alert_payload {
            let (name, text) = read_payload(src)?;
            let alerts = nav::parse_alert_payload(&name, &text)?;
            let pick = match &self.alert {
                Some(want) => alerts.iter().find(|a| &a.name == want).or(alerts.first()),
                None => alerts.first(),
            };
            if let Some(a) = pick {
                let name = self.alert.clone().unwrap_or_else(|| a.name.clone());
                let mut labels = a.labels.clone();
                if let Some(t) = &a.starts_at {
                    labels.insert(nav::STARTS_AT.to_string(), t.clone());
                }
                alert = Some(AlertContext {
                    name,
                    labels,
                    target: None,
                    runbook_url: a.runbook_url.clone(),
                });
            }
        }
        if let Some(a) = alert.as_mut() {
            a.labels.extend(extra);
        }
        Ok(alert)
    }

    /// The live-query settings from `[query]`, `[sandbox]` and `[runbooks]`; `None` when the
    /// config turns live queries off. The context: the config's (`--context` and the
    /// alert's come in through `App::context`). The kubeconfig: `--kubeconfig`, else the
    /// config's. The namespace: `-n`, else the config's.
    fn live_settings(&self, config: &tui::config::Config) -> Option<LiveSettings> {
        let q = &config.query;
        let kubeconfig =
            (self.kubeconfig.clone()).or_else(|| q.kubeconfig.as_deref().map(expand_home));
        (q.live != Some(false)).then(|| LiveSettings {
            backends: crate::query::setup::Settings {
                prometheus_url: q.prometheus_url.clone(),
                prometheus_token_cmd: q.prometheus_token_cmd.clone(),
                kusto_url: q.kusto_url.clone(),
                kusto_clusters: q.kusto_clusters.clone(),
                kusto_token_cmd: q.kusto_token_cmd.clone(),
                maestro_url: q.maestro_url.clone(),
                kubeconfig: kubeconfig.clone(),
                contexts: None,
                recorded: None,
                replay: None,
                sandbox: crate::query::sandbox::SandboxPolicy::from_config(
                    config.sandbox.enabled,
                    &config.sandbox.allow_connect_ports,
                )
                .with_jail(config.sandbox.jail, &config.sandbox.read_only)
                .with_pass_env(&config.sandbox.pass_env),
                doors: Default::default(),
                allow_hosts: config.sandbox.allow_hosts.clone(),
                tracker: Default::default(),
                // A bad value is reported by `tsgnav config`; here node commands stay refused.
                node_shell: config.runbooks.node_shell.as_deref().and_then(|v| {
                    let image = config.runbooks.node_shell_image.as_deref();
                    crate::query::entry::NodeShell::parse(v, image).ok()
                }),
            },
            context: q.context.clone(),
            kubeconfig_named: kubeconfig.is_some(),
            kubeconfig,
            namespace: self.namespace.clone().or_else(|| q.namespace.clone()),
            policies: config.policy.clone(),
        })
    }
}

/// The config file (`TSGNAV_CONFIG`, else the platform's config folder) and its folder; a
/// missing file is an empty config (the keymap and theme beside it are still read).
pub(super) fn read_config() -> anyhow::Result<(tui::config::Config, Option<PathBuf>)> {
    let config_file = super::extras::default_config_file();
    let config = match &config_file {
        Some(f) if f.exists() => {
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
    Ok((config, dir))
}

/// The bundled keymap and theme with the `keymap.toml` / `theme.toml` beside the config file,
/// and the keymap rows left out (file:line and why; the bundled rows stay for those).
fn overrides(dir: Option<&Path>, no_color: bool) -> anyhow::Result<(Keymap, Theme, Vec<String>)> {
    let mut bad = Vec::new();
    let mut keymap = Keymap::bundled();
    let mut theme = Theme::bundled(no_color);
    if let Some(dir) = dir {
        let km = dir.join("keymap.toml");
        if km.exists() {
            let text = std::fs::read_to_string(&km)
                .with_context(|| format!("{}: cannot read it", km.display()))?;
            let (user, problems) = Keymap::parse_each(&km.display().to_string(), &text);
            bad.extend(problems.iter().map(ToString::to_string));
            keymap = keymap.with_overrides(user);
        }
        let th = dir.join("theme.toml");
        if th.exists() {
            let text = std::fs::read_to_string(&th)
                .with_context(|| format!("{}: cannot read it", th.display()))?;
            theme = theme.with_overrides(Theme::parse(&th.display().to_string(), &text, no_color)?);
        }
    }
    Ok((keymap, theme, bad))
}

fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(p),
    }
}

/// Largest `--alert-payload` read, like guides: a webhook body is a few KiB.
const MAX_PAYLOAD: u64 = 16 << 20;

fn read_payload(src: &str) -> anyhow::Result<(String, String)> {
    let too_big = |what: &str, bytes: u64| {
        anyhow::anyhow!(
            "--alert-payload {what}: is larger than 16 MiB ({:.1} MiB read); tsgnav reads alert payloads up to 16 MiB. Pass the Alertmanager webhook body or one alert's JSON",
            bytes as f64 / (1 << 20) as f64
        )
    };
    let mut text = String::new();
    if src == "-" {
        let n = std::io::stdin()
            .take(MAX_PAYLOAD + 1)
            .read_to_string(&mut text)
            .context("--alert-payload -: cannot read stdin")?;
        if n as u64 > MAX_PAYLOAD {
            return Err(too_big("-", n as u64));
        }
        return Ok(("stdin".into(), text));
    }
    if let Ok(m) = std::fs::metadata(src) {
        if m.len() > MAX_PAYLOAD {
            return Err(too_big(src, m.len()));
        }
    }
    let n = std::fs::File::open(src)
        .and_then(|f| f.take(MAX_PAYLOAD + 1).read_to_string(&mut text))
        .with_context(|| format!("--alert-payload {src}: cannot read the file"))?;
    if n as u64 > MAX_PAYLOAD {
        return Err(too_big(src, n as u64));
    }
    Ok((src.to_string(), text))
}

#[cfg(test)]
mod payload_tests {
    #[test]
    fn an_alert_payload_over_16_mib_is_refused_and_one_at_the_limit_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        let big = tmp.path().join("big.json");
        std::fs::write(&big, vec![b' '; (16 << 20) + 1]).unwrap();
        let e = super::read_payload(&big.to_string_lossy())
            .unwrap_err()
            .to_string();
        assert!(e.contains("larger than 16 MiB"), "{e}");
        assert!(e.contains("big.json"), "{e}");
        let ok = tmp.path().join("ok.json");
        std::fs::write(&ok, vec![b' '; 16 << 20]).unwrap();
        assert_eq!(
            super::read_payload(&ok.to_string_lossy()).unwrap().1.len(),
            16 << 20
        );
    }
}
