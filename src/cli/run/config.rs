//! The `[vars]` of tsgnav's config file, for `tsgnav run`. Part of the CLI edge (reads a file).

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context as _;

/// `[vars]` of the config file (`TSGNAV_CONFIG`, else `<config dir>/tsgnav/config.toml`).
pub fn config_vars() -> anyhow::Result<BTreeMap<String, String>> {
    Ok(config()?.vars)
}

/// The config file (`TSGNAV_CONFIG`, else `<config dir>/tsgnav/config.toml`), or the defaults
/// when there is none.
pub fn config() -> anyhow::Result<crate::tui::config::Config> {
    let (file, explicit) = match std::env::var_os("TSGNAV_CONFIG") {
        Some(f) => (Some(PathBuf::from(f)), true),
        None => (
            dirs::config_dir().map(|d| d.join("tsgnav").join("config.toml")),
            false,
        ),
    };
    let Some(file) = file.filter(|f| explicit || f.is_file()) else {
        return Ok(Default::default());
    };
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("{}: cannot read the config file", file.display()))?;
    Ok(crate::tui::config::parse(
        &file.display().to_string(),
        &text,
    )?)
}
