//! `tsgnav alerts firing [--alertmanager-url URL] [--json] [PATH...]`: what is firing now,
//! read from every configured Alertmanager (API v2) or, with only a Prometheus, from its
//! `ALERTS` series; each alert with its state (active, or suppressed with the silences that
//! mute it) and its route in the loaded guides. Also builds the alert sources the navigator's
//! "Firing" section reads. Part of the CLI edge (`anyhow`).

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use serde_json::json;

use crate::query::alertmanager::{self, Endpoint};
use crate::tui::config::Config;
use crate::tui::firing::{self, Alert};
use crate::tui::runtime::firing::{clients, convert, FiringSettings};

#[derive(Debug, Args)]
pub struct FiringArgs {
    /// Guides or folders of guides the alerts are routed to (default: the bundled guides).
    pub paths: Vec<PathBuf>,
    /// Read this Alertmanager (repeatable) instead of the config file's [[alertmanager]].
    #[arg(long, value_name = "URL")]
    pub alertmanager_url: Vec<String>,
    /// With no Alertmanager, read ALERTS{alertstate="firing"} from this Prometheus
    /// (default: `prometheus_url` under [query] in the config file).
    #[arg(long, value_name = "URL")]
    pub prometheus_url: Option<String>,
    /// Print JSON: {"alerts":[{"alertname","labels","startsAt","state","silenced_by","route"}],
    /// "sources":[…]}.
    #[arg(long)]
    pub json: bool,
}

/// The config file (`TSGNAV_CONFIG`, else the default place); defaults when there is none.
pub fn read_config() -> anyhow::Result<Config> {
    let Some(file) = super::extras::default_config_file() else {
        return Ok(Config::default());
    };
    if !file.exists() {
        return Ok(Config::default());
    }
    let text = std::fs::read_to_string(&file).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot read the config file (TSGNAV_CONFIG): {e}",
            file.display()
        )
    })?;
    Ok(crate::tui::config::parse(
        &file.display().to_string(),
        &text,
    )?)
}

/// The alert sources from `--alertmanager-url` (which win) or `[[alertmanager]]`; with
/// `auto_run_flag` every source starts read-only probes. `None` when there is none.
pub fn sources(
    config: &Config,
    urls: &[String],
    auto_run_flag: bool,
) -> anyhow::Result<Option<FiringSettings>> {
    let mut s = FiringSettings {
        every: refresh(config)?,
        ..FiringSettings::default()
    };
    let all = auto_run_choice(
        config.alertmanager_auto_run.as_deref(),
        "alertmanager_auto_run",
    )?;
    if urls.is_empty() {
        for (i, am) in config.alertmanager.iter().enumerate() {
            if am.url.trim().is_empty() {
                anyhow::bail!("config file: [[alertmanager]] entry {} has no `url`; add url = \"https://…:9093\"", i + 1);
            }
            let name = if am.name.is_empty() {
                am.url.clone()
            } else {
                am.name.clone()
            };
            let own = auto_run_choice(
                am.auto_run.as_deref(),
                &format!("[[alertmanager]] `{name}`: auto_run"),
            )?;
            if own.unwrap_or(all.unwrap_or(false)) {
                s.auto_run.insert(name.clone());
            }
            s.endpoints.push(Endpoint {
                name,
                url: am.url.clone(),
                token_cmd: am.token_cmd.clone(),
            });
        }
    } else {
        s.endpoints = urls
            .iter()
            .map(|u| Endpoint {
                name: u.clone(),
                url: u.clone(),
                token_cmd: None,
            })
            .collect();
    }
    if auto_run_flag || (!urls.is_empty() && all == Some(true)) {
        s.auto_run
            .extend(s.endpoints.iter().map(|e| e.name.clone()));
    }
    Ok((!s.endpoints.is_empty()).then_some(s))
}

/// `"read-only"` → `Some(true)`, `"off"` → `Some(false)`, unset → `None`; anything else is an
/// error naming `key` and the choices.
fn auto_run_choice(value: Option<&str>, key: &str) -> anyhow::Result<Option<bool>> {
    match value {
        None => Ok(None),
        Some("off") => Ok(Some(false)),
        Some("read-only") => Ok(Some(true)),
        Some(other) => anyhow::bail!(
            "config file: {key} = \"{other}\" is not a choice; write \"read-only\" or \"off\""
        ),
    }
}

/// `alertmanager_refresh`, or 30 s.
fn refresh(config: &Config) -> anyhow::Result<Duration> {
    let Some(text) = config.alertmanager_refresh.as_deref() else {
        return Ok(Duration::from_secs(30));
    };
    match crate::query::parse_duration(text) {
        Some(d) if d >= Duration::from_secs(1) => Ok(d),
        _ => anyhow::bail!(
            "config file: alertmanager_refresh = \"{text}\" is not a duration of at least 1 s; write e.g. \"30s\" or \"2m\""
        ),
    }
}

/// The navigator's sources: the Alertmanagers, else (with only a Prometheus configured and
/// live queries on) Prometheus' `ALERTS` series.
pub fn navigator_sources(
    config: &Config,
    urls: &[String],
    auto_run_flag: bool,
) -> anyhow::Result<Option<FiringSettings>> {
    if let Some(s) = sources(config, urls, auto_run_flag)? {
        refuse_unjailed_auto_run(config, !s.auto_run.is_empty())?;
        return Ok(Some(s));
    }
    let q = &config.query;
    let every = refresh(config)?;
    let all = auto_run_choice(
        config.alertmanager_auto_run.as_deref(),
        "alertmanager_auto_run",
    )?;
    let s = q
        .prometheus_url
        .clone()
        .filter(|_| q.live != Some(false))
        .map(|url| {
            let mut s = FiringSettings {
                every,
                prometheus: Some((url, q.prometheus_token_cmd.clone())),
                ..FiringSettings::default()
            };
            if auto_run_flag || all == Some(true) {
                s.auto_run.insert("prometheus".into());
            }
            s
        });
    refuse_unjailed_auto_run(config, s.as_ref().is_some_and(|s| !s.auto_run.is_empty()))?;
    Ok(s)
}

/// Auto-run starts probes nobody looked at: refused when the session is not isolated. The
/// jail is only tried when auto-run is asked for (building one takes tens of milliseconds,
/// which the navigator's first frame must not wait for).
pub fn refuse_unjailed_auto_run(config: &Config, auto: bool) -> anyhow::Result<()> {
    if !auto {
        return Ok(());
    }
    if let crate::query::jail::Isolation::NotIsolated(why) =
        crate::query::jail::isolation(config.sandbox.jail)
    {
        anyhow::bail!(
            "auto-run is refused: shell probes would run not isolated ({why}), and a probe started by an alert is one nobody read. Drop --auto-run and auto_run = \"read-only\", or let tsgnav build the jail ([sandbox] jail = true, TSGNAV_JAIL unset, a kernel with user namespaces)"
        );
    }
    Ok(())
}

fn route_json(a: &Alert) -> serde_json::Value {
    match &a.route {
        Some(r) => json!({"path": r.path, "to": r.to, "by": r.by}),
        None => serde_json::Value::Null,
    }
}

impl FiringArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let config = read_config()?;
        let mut settings = sources(&config, &self.alertmanager_url, false)?.unwrap_or_default();
        if settings.endpoints.is_empty() {
            let url = self
                .prometheus_url
                .clone()
                .or_else(|| config.query.prometheus_url.clone());
            let Some(url) = url else {
                anyhow::bail!("no Alertmanager to ask: pass --alertmanager-url URL, add an [[alertmanager]] entry (name, url) to the config file, or set prometheus_url under [query] to read Prometheus' ALERTS series");
            };
            settings.prometheus = Some((url, config.query.prometheus_token_cmd.clone()));
        }
        let (lib, failed) = super::load(&self.paths);
        let (ams, prom) = clients(&settings);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let fetched = rt.block_on(alertmanager::fetch_all(
            &ams,
            prom.as_ref(),
            &crate::query::Cancel::new(),
        ));
        let sources: Vec<serde_json::Value> = fetched
            .iter()
            .map(|f| {
                json!({
                    "name": f.source,
                    "url": f.url,
                    "alerts": f.result.as_ref().map(Vec::len).unwrap_or(0),
                    "error": f.result.as_ref().err().map(|e| e.to_string()),
                })
            })
            .collect();
        let update = convert(fetched, &BTreeSet::new());
        let alerts = firing::arrange(&lib, update.alerts);
        let mut out = std::io::stdout().lock();
        if self.json {
            let list: Vec<serde_json::Value> = alerts
                .iter()
                .map(|a| {
                    json!({
                        "alertname": a.name,
                        "labels": a.labels,
                        "startsAt": a.starts_at,
                        "state": a.state,
                        "silenced_by": a.silenced_by,
                        "inhibited_by": a.inhibited_by,
                        "source": a.source,
                        "route": route_json(a),
                    })
                })
                .collect();
            writeln!(out, "{}", json!({"alerts": list, "sources": sources}))?;
        } else {
            for a in &alerts {
                let to = match &a.route {
                    Some(r) => format!("→ {} ({})", r.to, r.by),
                    None => "→ no route: add a row for it to a guide's Alert Triage table".into(),
                };
                let state = if a.silenced_by.is_empty() {
                    a.state.as_str().to_string()
                } else {
                    format!(
                        "{} by silence {}",
                        a.state.as_str(),
                        a.silenced_by.join(",")
                    )
                };
                let place = a.place();
                writeln!(
                    out,
                    "{:<10} {:<40} {:<20} since {:<22} {to}",
                    state,
                    a.name,
                    if place.is_empty() { "-" } else { &place },
                    a.starts_at
                )?;
            }
            if alerts.is_empty() && update.errors.is_empty() {
                writeln!(out, "nothing is firing")?;
            }
        }
        for e in &update.errors {
            eprintln!("error: alert source `{}`: {}", e.source, e.message);
        }
        Ok(if failed || !update.errors.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        crate::tui::config::parse("config.toml", text).unwrap()
    }

    #[test]
    fn alertmanagers_first_then_the_prometheus_fallback() {
        let c = config("[query]\nprometheus_url = \"http://p:9090\"\n\n[[alertmanager]]\nname = \"east\"\nurl = \"http://a:9093\"\nauto_run = \"read-only\"\n");
        let s = navigator_sources(&c, &[], false).unwrap().unwrap();
        assert_eq!(s.endpoints[0].name, "east");
        assert!(s.auto_run.contains("east"));
        assert!(s.prometheus.is_none());
        let c = config("[query]\nprometheus_url = \"http://p:9090\"\n");
        let s = navigator_sources(&c, &[], true).unwrap().unwrap();
        assert!(s.endpoints.is_empty());
        assert_eq!(s.prometheus.as_ref().unwrap().0, "http://p:9090");
        assert!(s.auto_run.contains("prometheus"));
        let off = config("[query]\nlive = false\nprometheus_url = \"http://p:9090\"\n");
        assert!(navigator_sources(&off, &[], false).unwrap().is_none());
        assert!(navigator_sources(&Config::default(), &[], false)
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_bad_auto_run_names_the_entry_and_the_choices() {
        let c = config(
            "[[alertmanager]]\nname = \"east\"\nurl = \"http://a\"\nauto_run = \"always\"\n",
        );
        let e = sources(&c, &[], false).unwrap_err().to_string();
        assert!(
            e.contains("`east`") && e.contains("\"read-only\" or \"off\""),
            "{e}"
        );
        let c = config("[[alertmanager]]\nname = \"east\"\n");
        let e = sources(&c, &[], false).unwrap_err().to_string();
        assert!(e.contains("entry 1 has no `url`"), "{e}");
    }

    #[test]
    fn one_top_level_switch_turns_auto_run_on_for_every_alertmanager_and_an_entry_wins() {
        let c = config(
            "alertmanager_auto_run = \"read-only\"\nalertmanager_refresh = \"2s\"\n\n[[alertmanager]]\nname = \"east\"\nurl = \"http://a\"\n\n[[alertmanager]]\nname = \"west\"\nurl = \"http://b\"\n\n[[alertmanager]]\nname = \"quiet\"\nurl = \"http://c\"\nauto_run = \"off\"\n",
        );
        let s = sources(&c, &[], false).unwrap().unwrap();
        let on: Vec<&str> = s.auto_run.iter().map(String::as_str).collect();
        assert_eq!(on, ["east", "west"]);
        assert_eq!(s.every, Duration::from_secs(2));
        // `--alertmanager-url` sources follow the switch too, and so does the Prometheus fallback.
        let s = sources(&c, &["http://x".into()], false).unwrap().unwrap();
        assert!(s.auto_run.contains("http://x"));
        let p = config(
            "alertmanager_auto_run = \"read-only\"\n[query]\nprometheus_url = \"http://p:9090\"\n",
        );
        let s = navigator_sources(&p, &[], false).unwrap().unwrap();
        assert!(s.auto_run.contains("prometheus"));
        assert_eq!(s.every, Duration::from_secs(30));
        let bad = config("alertmanager_auto_run = \"yes\"\n[[alertmanager]]\nurl = \"http://a\"\n");
        let e = sources(&bad, &[], false).unwrap_err().to_string();
        assert!(e.contains("alertmanager_auto_run = \"yes\""), "{e}");
        let slow =
            config("alertmanager_refresh = \"10ms\"\n[[alertmanager]]\nurl = \"http://a\"\n");
        let e = sources(&slow, &[], false).unwrap_err().to_string();
        assert!(e.contains("at least 1 s"), "{e}");
    }
}
