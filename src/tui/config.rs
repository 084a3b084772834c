//! The user's config file (`<config dir>/tsgnav/config.toml`, or `TSGNAV_CONFIG`): extra guide
//! folders and variable values. Pure: parses text handed to it; the CLI reads the file.
//! Must not import IO.

use std::collections::BTreeMap;

use serde::Deserialize;

pub const EXAMPLE: &str = include_str!("../../assets/config.example.toml");

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Folders or files of guides opened beside the bundled ones when no path is given.
    pub guides: Vec<String>,
    /// Variable values for probes (`NODE_NAME = "aks-nodepool1-0"`).
    pub vars: BTreeMap<String, String>,
    /// Where live probes go.
    pub query: QueryConfig,
    /// Extra secret patterns (regular expressions) redacted from the evidence journal, on top
    /// of the built-in ones (tokens, JWTs, SAS signatures, keys, passwords in URLs …).
    pub redact: Vec<String>,
    /// The kernel sandbox of read-only shell probes.
    pub sandbox: SandboxConfig,
    /// `[[alertmanager]]`: where the library screen's "Firing" section and `tsgnav alerts
    /// firing` read what is firing (one entry per Alertmanager, e.g. one per region).
    pub alertmanager: Vec<AlertmanagerConfig>,
    /// `auto_run` for every Alertmanager (and the Prometheus fallback); an entry's own
    /// `auto_run` wins. TOML cannot hold both `[alertmanager]` and `[[alertmanager]]`, so the
    /// switch for all of them is a top-level key.
    pub alertmanager_auto_run: Option<String>,
    /// Time between refreshes of the Firing section (`"30s"`, the default; at least 1 s).
    pub alertmanager_refresh: Option<String>,
    /// `[runbooks]`: how commands a guide types inside node shells are run.
    pub runbooks: RunbooksConfig,
    /// `[alerts]`: which kube context an alert's probes run on.
    pub alerts: AlertsConfig,
    /// `[[policy]]`: rules by kube context name (read-only, waves required, a maximum wave
    /// size, a confirmation phrase), enforced where a mitigation run is built.
    pub policy: Vec<crate::mitigate::waves::Policy>,
}

/// `[alerts]`: the label of an alert that names its cluster (`context_label`, default
/// `cluster`) and, under `[alerts.contexts]`, that label's values → kube context names where
/// they differ (`westus3 = "hcp-prod-westus3-mgmt-1"`); a value not listed is the context's
/// own name. `--context` wins over both.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlertsConfig {
    pub context_label: Option<String>,
    pub contexts: BTreeMap<String, String>,
}

impl AlertsConfig {
    pub fn context_map(&self) -> crate::nav::ContextMap {
        crate::nav::ContextMap {
            label: self
                .context_label
                .clone()
                .filter(|l| !l.trim().is_empty())
                .unwrap_or_else(|| crate::nav::DEFAULT_CONTEXT_LABEL.into()),
            contexts: self.contexts.clone(),
        }
    }
}

/// `[runbooks]`: a command a guide types on a node (after `oc debug node/…`, `chroot
/// /host`) never runs on the operator's machine; with `node_shell` set it runs through a
/// debug pod on that node (a write: it needs `--write`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunbooksConfig {
    /// `"oc debug"` or `"kubectl debug"`; unset, node commands are refused.
    pub node_shell: Option<String>,
    /// The image of `kubectl debug` (default a UBI minimal image).
    pub node_shell_image: Option<String>,
}

/// `[sandbox]`: the jail of shell probes (namespaces, seccomp) and its Landlock layer
/// (writes only in a scratch folder; without the jail, TCP connects only to the kube API
/// proxy, the session's port-forwards and `allow_connect_ports`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    /// `false` turns the sandbox off (every probe record then says so).
    pub enabled: bool,
    /// Ports every read-only probe may connect to, on any host (Landlock filters by port
    /// only). Default `[443]`, so read-only cloud CLI calls work; `[]` is the strictest.
    pub allow_connect_ports: Vec<u16>,
    /// `false` runs shell probes without the jail: the session is then "not isolated"
    /// (status line, every probe), `--auto-run` is refused and each probe asks for a key.
    pub jail: bool,
    /// Paths a jailed probe may read (`"~/.azure"`); the homes, `/tmp` and `/run` are
    /// otherwise hidden.
    pub read_only: Vec<String>,
    /// `host:port`s (or URLs) a probe may reach through the egress proxy, besides the
    /// Prometheus, Kusto and Alertmanager URLs of this config and the session's
    /// port-forwards (`query::egress`). Port 443 when none is given. Default none.
    pub allow_hosts: Vec<String>,
    /// Names of tsgnav's environment variables a jailed probe also sees (`"TSG_*"` matches a
    /// prefix). By default only `PATH`, the locale and the terminal's pass; tokens and
    /// secrets in the operator's shell stay outside.
    pub pass_env: Vec<String>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            enabled: true,
            allow_connect_ports: vec![443],
            jail: true,
            read_only: Vec::new(),
            allow_hosts: Vec::new(),
            pass_env: Vec::new(),
        }
    }
}

/// One `[[alertmanager]]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlertmanagerConfig {
    /// Shown beside its alerts (`eastus`); the URL when empty.
    pub name: String,
    /// Base URL (`https://alertmanager.example:9093`); the API v2 paths are added to it.
    pub url: String,
    /// A command printing a bearer token (re-run when it expires or on a 401).
    pub token_cmd: Option<String>,
    /// `"read-only"`: landing on a step from one of its alerts starts the step's read-only
    /// probes at once; `"off"` (the default) waits for a key. Mutating probes never start
    /// themselves.
    pub auto_run: Option<String>,
}

/// `[query]`: the backends live probes use (the same settings as `tsgnav run`'s flags).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QueryConfig {
    /// `false` turns live probes off (the navigator then only shows them).
    pub live: Option<bool>,
    pub prometheus_url: Option<String>,
    pub prometheus_token_cmd: Option<String>,
    pub kusto_url: Option<String>,
    /// `cluster('…')` name → Kusto URL.
    pub kusto_clusters: BTreeMap<String, String>,
    pub kusto_token_cmd: Option<String>,
    pub maestro_url: Option<String>,
    pub kubeconfig: Option<String>,
    /// Kube context for kubectl in shell probes.
    pub context: Option<String>,
    /// The namespace of kube commands that name none (the navigator's `-n` wins).
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {detail}")]
pub struct ConfigError {
    pub file: String,
    pub detail: String,
}

/// Parses a config file; `file` names it in messages.
pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
    toml::from_str(text).map_err(|e| ConfigError {
        file: file.to_string(),
        detail: e.to_string().trim_end().to_string(),
    })
}

/// One problem found by [`check`]: the 1-based line it is on and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub detail: String,
}

type Key<'i> = toml::Spanned<toml::de::DeString<'i>>;
type Val<'i> = toml::Spanned<toml::de::DeValue<'i>>;

/// Every problem in a config file, not just the first: each TOML syntax error, then each key
/// that is unknown or holds a value of the wrong type, with the line it is on. Also returns
/// the config made of the keys that are fine, so checks of their values can go on.
pub fn check(text: &str) -> (Config, Vec<Problem>) {
    use toml::de::{DeTable, DeValue};
    let line_of = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    let (doc, errors) = DeTable::parse_recoverable(text);
    let mut problems: Vec<Problem> = errors
        .iter()
        .map(|e| Problem {
            line: e.span().map(|s| line_of(s.start)).unwrap_or(1),
            detail: e.message().trim_end().to_string(),
        })
        .collect();
    problems.sort_by_key(|p| p.line);
    problems.dedup();
    if !problems.is_empty() {
        // After a syntax error the recovered document is partial: its keys prove nothing.
        return (Config::default(), problems);
    }
    let mut found = Vec::new();
    let mut kept = DeTable::new();
    for (k, v) in doc.get_ref().iter() {
        if let Some(v) = walk(&mut vec![k.clone()], v, &mut found) {
            kept.insert(k.clone(), v);
        }
    }
    found.sort_by_key(|(at, _)| *at);
    problems.extend(found.into_iter().map(|(at, detail)| Problem {
        line: line_of(at),
        detail,
    }));
    let root = toml::Spanned::new(doc.span(), DeValue::Table(kept));
    let config = Config::deserialize(toml::de::ValueDeserializer::from(root)).unwrap_or_default();
    (config, problems)
}

/// Tries the config made of `path` (outer keys) holding `value` alone, so one bad key never
/// hides another; a table that is fine by itself is opened and its keys tried one by one.
/// Returns the value with every bad key left out, or `None` when the value itself is bad.
fn walk<'i>(
    path: &mut Vec<Key<'i>>,
    value: &Val<'i>,
    out: &mut Vec<(usize, String)>,
) -> Option<Val<'i>> {
    use toml::de::{DeTable, DeValue};
    let nest = |path: &[Key<'i>], inner: DeValue<'i>| {
        let mut v = toml::Spanned::new(value.span(), inner);
        for k in path.iter().rev() {
            let mut t = DeTable::new();
            t.insert(k.clone(), v);
            v = toml::Spanned::new(k.span(), DeValue::Table(t));
        }
        v
    };
    let fails = |v: Val<'i>| Config::deserialize(toml::de::ValueDeserializer::from(v)).err();
    let key_start = path.last().map(|k| k.span().start).unwrap_or(0);
    let inner = match value.get_ref() {
        DeValue::Table(_) => DeValue::Table(DeTable::new()),
        other => other.clone(),
    };
    if let Some(e) = fails(nest(path, inner)) {
        let at = e.span().map(|s| s.start).unwrap_or(key_start);
        out.push((at, e.message().trim_end().to_string()));
        return None;
    }
    let DeValue::Table(t) = value.get_ref() else {
        return Some(value.clone());
    };
    let mut kept = DeTable::new();
    for (k, v) in t.iter() {
        path.push(k.clone());
        if let Some(v) = walk(path, v, out) {
            kept.insert(k.clone(), v);
        }
        path.pop();
    }
    Some(toml::Spanned::new(value.span(), DeValue::Table(kept)))
}
