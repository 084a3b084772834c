//! `tsgnav alerts PATH... [--rules DIR] [--json]`: the alert routing table, and with
//! Prometheus rule files the alerts no guide routes and the routes no rule defines.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::json;

#[derive(Debug, Args)]
#[command(subcommand_negates_reqs = true)]
pub struct AlertsArgs {
    #[command(subcommand)]
    pub firing: Option<AlertsCommand>,
    /// Guides or folders of guides (default: the bundled guides).
    pub paths: Vec<PathBuf>,
    /// Prometheus rule files or folders of them (PrometheusRule CRDs or plain rule groups).
    #[arg(long, value_name = "DIR|FILE")]
    pub rules: Vec<PathBuf>,
    /// Print JSON: {"routes":[…],"unrouted":[…],"dangling":[…]}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum AlertsCommand {
    /// What is firing now (Alertmanager API v2, or Prometheus' ALERTS series), with each
    /// alert's state and its route in the guides.
    Firing(super::alerts_firing::FiringArgs),
}

/// Alert names defined under `groups[].rules[].alert` anywhere in a YAML document, with
/// their `annotations.runbook_url`.
fn collect_alerts(v: &yaml_serde::Value, out: &mut BTreeMap<String, Option<String>>) {
    match v {
        yaml_serde::Value::Mapping(m) => {
            if let Some(rules) = m.get("rules").and_then(|r| r.as_sequence()) {
                for r in rules {
                    if let Some(a) = r.get("alert").and_then(|a| a.as_str()) {
                        let url = r
                            .get("annotations")
                            .and_then(|an| an.get("runbook_url"))
                            .and_then(|u| u.as_str())
                            .map(str::to_string);
                        let slot = out.entry(a.to_string()).or_default();
                        if slot.is_none() {
                            *slot = url;
                        }
                    }
                }
            }
            m.values().for_each(|x| collect_alerts(x, out));
        }
        yaml_serde::Value::Sequence(s) => s.iter().for_each(|x| collect_alerts(x, out)),
        _ => {}
    }
}

fn rule_files(
    p: &Path,
    seen: &mut std::collections::HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) -> anyhow::Result<()> {
    if p.is_dir() {
        // A symlink back up the tree (`a -> .`) would recurse forever: read each folder once.
        let real = std::fs::canonicalize(p)
            .map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", p.display()))?;
        if !seen.insert(real) {
            eprintln!(
                "warning: {}: skipped: it links back to a folder already read (symlink loop)",
                p.display()
            );
            return Ok(());
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", p.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            rule_files(&e, seen, out)?;
        }
    } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
        out.push(p.to_path_buf());
    } else if !p.exists() {
        anyhow::bail!(
            "{}: no such file or folder; check the --rules path",
            p.display()
        );
    }
    Ok(())
}

/// Every alert the rule files define, with its `runbook_url` annotation if any. Unparseable
/// files are errors naming the file.
pub fn defined_rules(paths: &[PathBuf]) -> anyhow::Result<BTreeMap<String, Option<String>>> {
    let (mut files, mut seen) = (Vec::new(), std::collections::HashSet::new());
    for p in paths {
        rule_files(p, &mut seen, &mut files)?;
    }
    let mut alerts = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f)
            .map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", f.display()))?;
        for doc in yaml_serde::Deserializer::from_str(&text) {
            let v = <yaml_serde::Value as serde::Deserialize>::deserialize(doc)
                .map_err(|e| anyhow::anyhow!("{}: not valid YAML: {e}", f.display()))?;
            collect_alerts(&v, &mut alerts);
        }
    }
    Ok(alerts)
}

impl AlertsArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        if let Some(AlertsCommand::Firing(f)) = self.firing {
            return f.run();
        }
        let (lib, failed) = super::load(&self.paths);
        // (alert, to, file, line, by)
        let mut routes: Vec<(String, String, String, usize, crate::tsg::RouteBy)> = lib
            .guides
            .iter()
            .filter(|g| !g.is_template())
            .flat_map(|g| {
                g.routes
                    .iter()
                    .map(move |r| (r.alert.clone(), r.to.clone(), g.file.clone(), r.line, r.by))
            })
            .collect();
        let (mut unrouted, mut dangling) = (Vec::new(), Vec::new());
        if !self.rules.is_empty() {
            let defined = defined_rules(&self.rules)?;
            for (alert, url) in &defined {
                if routes.iter().any(|r| &r.0 == alert && r.4.is_explicit()) {
                    continue;
                }
                match crate::nav::route_alert(&lib, alert, url.as_deref()) {
                    Some(r) => {
                        // The rule's runbook_url outranks a route inferred from a name.
                        routes.retain(|x| &x.0 != alert);
                        let file = lib
                            .guides
                            .iter()
                            .find(|g| r.to.starts_with(&format!("{}#", g.path)))
                            .map(|g| g.file.clone())
                            .unwrap_or_default();
                        routes.push((alert.clone(), r.to, file, r.line, r.by));
                    }
                    None => unrouted.push(alert.clone()),
                }
            }
            // Only a route the guide states can dangle; one inferred from a name cannot.
            dangling = routes
                .iter()
                .filter(|r| r.4.is_explicit() && !defined.contains_key(&r.0))
                .cloned()
                .collect();
        }
        let mut out = std::io::stdout().lock();
        if self.json {
            let v = json!({
                "routes": routes.iter().map(|r| json!({"alert": r.0, "to": r.1, "path": r.2, "line": r.3, "by": r.4.as_str()})).collect::<Vec<_>>(),
                "unrouted": unrouted.iter().map(|a| json!({"rule": "unrouted-alert", "alert": a})).collect::<Vec<_>>(),
                "dangling": dangling.iter().map(|r| json!({"rule": "dangling-alert-route", "alert": r.0, "path": r.2, "line": r.3})).collect::<Vec<_>>(),
            });
            writeln!(out, "{v}")?;
        } else {
            // Each route once (a triage table may list an alert in two rows), with the
            // file and line that route it.
            let mut shown = std::collections::HashSet::new();
            for r in routes.iter().filter(|r| shown.insert((&r.0, &r.1))) {
                writeln!(
                    out,
                    "{}:{}: {:<44} → {}  ({})",
                    r.2,
                    r.3.max(1),
                    r.0,
                    r.1,
                    r.4.as_str()
                )?;
            }
            for a in &unrouted {
                writeln!(out, "warning[unrouted-alert]: alert `{a}` is defined in the rules but no guide routes it; add a row for it to a guide's Alert Triage table, name a guide after it, or point its runbook_url at one")?;
            }
            for r in &dangling {
                writeln!(out, "{}:{}: warning[dangling-alert-route]: `{}` is routed here but no rule file defines it; fix the name or remove the row", r.2, r.3, r.0)?;
            }
        }
        super::leave_to_exit(lib);
        Ok(if failed {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        })
    }
}
