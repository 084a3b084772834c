//! The `[vars]` of tsgnav's config file, for `tsgnav run`. Part of the CLI edge (reads a file).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context as _;

/// `[vars]` of the config file (`TSGNAV_CONFIG`, else `<config dir>/tsgnav/config.toml`).
pub fn config_vars() -> anyhow::Result<BTreeMap<String, String>> {
    Ok(config()?.vars)
}

/// The config file (`TSGNAV_CONFIG`, else `<config dir>/tsgnav/config.toml`), or the defaults
/// when there is none (a `TSGNAV_CONFIG` that does not exist too, as for the navigator).
pub fn config() -> anyhow::Result<crate::tui::config::Config> {
    let file = match std::env::var_os("TSGNAV_CONFIG").filter(|f| !f.is_empty()) {
        Some(f) => Some(PathBuf::from(f)),
        None => dirs::config_dir().map(|d| d.join("tsgnav").join("config.toml")),
    };
    let Some(file) = file.filter(|f| f.exists()) else {
        return Ok(Default::default());
    };
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("{}: cannot read the config file", file.display()))?;
    Ok(crate::tui::config::parse(
        &file.display().to_string(),
        &text,
    )?)
}

/// `[runbooks] node_shell` of the config file: how node commands run, if at all.
pub fn node_shell() -> anyhow::Result<Option<crate::query::entry::NodeShell>> {
    let r = config()?.runbooks;
    r.node_shell
        .map(|v| crate::query::entry::NodeShell::parse(&v, r.node_shell_image.as_deref()))
        .transpose()
        .map_err(|e| {
            let file = std::env::var_os("TSGNAV_CONFIG")
                .map(PathBuf::from)
                .or_else(|| dirs::config_dir().map(|d| d.join("tsgnav").join("config.toml")))
                .map_or_else(|| "the config file".into(), |f| f.display().to_string());
            anyhow::anyhow!("{file}: {e}")
        })
}
