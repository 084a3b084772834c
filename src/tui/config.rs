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
    /// `[[alertmanager]]`: where the library screen's "Firing" section and `tsgnav alerts
    /// firing` read what is firing (one entry per Alertmanager, e.g. one per region).
    pub alertmanager: Vec<AlertmanagerConfig>,
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
