//! Small commands around the product: shell completions, the man page and `config check`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Subcommand};

use crate::tui::{config, keymap::Keymap, theme::Theme};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

impl CompletionsArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let mut cmd = super::Cli::command();
        clap_complete::generate(self.shell, &mut cmd, "tsgnav", &mut std::io::stdout());
        Ok(ExitCode::SUCCESS)
    }
}

/// Prints the man page (roff) to stdout: `tsgnav man > tsgnav.1`.
pub fn man() -> anyhow::Result<ExitCode> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(super::Cli::command()).render(&mut buf)?;
    std::io::stdout().lock().write_all(&buf)?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate the config file (and keymap.toml / theme.toml beside it); exit 1 on problems.
    Check {
        /// The file to check (default: $TSGNAV_CONFIG, else <config dir>/tsgnav/config.toml).
        file: Option<PathBuf>,
    },
    /// Print an example config file with every key explained.
    Example,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

/// The config file tsgnav reads when none is named.
pub fn default_config_file() -> Option<PathBuf> {
    std::env::var_os("TSGNAV_CONFIG")
        .map(PathBuf::from)
        .or_else(|| dirs::config_dir().map(|d| d.join("tsgnav").join("config.toml")))
}

/// Every problem in the config file and its neighbours, as product copy.
pub fn check(file: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let shown = file.display().to_string();
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return vec![format!("{shown}: cannot read it: {e}")],
    };
    match config::parse(&shown, &text) {
        Err(e) => problems.push(e.to_string()),
        Ok(cfg) => {
            for g in &cfg.guides {
                let p = expand_home(g);
                if !p.exists() {
                    problems.push(format!(
                        "{shown}: `guides` names {g}, which does not exist; fix the path or remove it"
                    ));
                }
            }
            if let Err(e) = crate::evidence::Redactor::with_patterns(&cfg.redact) {
                problems.push(format!("{shown}: `redact`: {e}"));
            }
            for (k, url) in cfg.query.kusto_clusters.iter() {
                if !url.starts_with("http://") && !url.starts_with("https://") {
                    problems.push(format!(
                        "{shown}: [query.kusto_clusters] {k} = \"{url}\" is not an http(s) URL"
                    ));
                }
            }
        }
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    let km = dir.join("keymap.toml");
    if let Ok(t) = std::fs::read_to_string(&km) {
        if let Err(e) = Keymap::parse(&km.display().to_string(), &t) {
            problems.push(e.to_string());
        }
    }
    let th = dir.join("theme.toml");
    if let Ok(t) = std::fs::read_to_string(&th) {
        if let Err(e) = Theme::parse(&th.display().to_string(), &t, false) {
            problems.push(e.to_string());
        }
    }
    problems
}

fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(p),
    }
}

impl ConfigArgs {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self.command {
            ConfigCommand::Example => {
                print!("{}", config::EXAMPLE);
                Ok(ExitCode::SUCCESS)
            }
            ConfigCommand::Check { file } => {
                let Some(file) = file.or_else(default_config_file) else {
                    anyhow::bail!("no config directory on this system; name the file: tsgnav config check FILE");
                };
                if !file.exists() {
                    println!("{}: no config file; tsgnav uses its defaults (see `tsgnav config example`)", file.display());
                    return Ok(ExitCode::SUCCESS);
                }
                let problems = check(&file);
                for p in &problems {
                    println!("error: {p}");
                }
                if problems.is_empty() {
                    println!("{}: ok", file.display());
                    Ok(ExitCode::SUCCESS)
                } else {
                    Ok(ExitCode::from(1))
                }
            }
        }
    }
}
