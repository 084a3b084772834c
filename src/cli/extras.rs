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
        // Written whole, so a closed pipe (`| head -1`) is an error `main` treats as success
        // rather than a panic inside the generator.
        let mut cmd = super::Cli::command();
        let mut buf = Vec::new();
        clap_complete::generate(self.shell, &mut cmd, "tsgnav", &mut buf);
        let text = super::complete::script(self.shell, &String::from_utf8_lossy(&buf));
        std::io::stdout().lock().write_all(text.as_bytes())?;
        Ok(ExitCode::SUCCESS)
    }
}

/// Prints the man page (roff) to stdout: `tsgnav man > tsgnav.1`. clap's sections, then
/// ENVIRONMENT, FILES and EXIT STATUS.
pub fn man() -> anyhow::Result<ExitCode> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(super::Cli::command()).render(&mut buf)?;
    buf.extend_from_slice(MAN_EXTRA.as_bytes());
    std::io::stdout().lock().write_all(&buf)?;
    Ok(ExitCode::SUCCESS)
}

/// The man page sections clap does not know about (roff).
pub const MAN_EXTRA: &str = r#".SH ENVIRONMENT
.TP
\fBTSGNAV_CONFIG\fR
The config file to read instead of \fI<config dir>/tsgnav/config.toml\fR. The file need not
exist: then tsgnav uses its defaults, and still reads \fIkeymap.toml\fR and \fItheme.toml\fR
from the folder it names. \fBtsgnav config check\fR checks it and \fBtsgnav config example\fR
prints one.
.TP
\fBTSGNAV_STATE_DIR\fR
The folder evidence sessions are recorded in, instead of the platform state folder
(\fI~/.local/state/tsgnav/sessions\fR on Linux).
.TP
\fBTSGNAV_CACHE_DIR\fR
The folder parsed guides are cached in, instead of \fI<cache dir>/tsgnav/guides\fR.
.TP
\fBKUBECONFIG\fR
The kubeconfig kubectl, oc and the Kubernetes backend use for probes when \fB\-\-kubeconfig\fR
is not given and \fBkubeconfig\fR is not set under [query] in the config file (without any of
them, \fI~/.kube/config\fR). A list (\fIa:b\fR) is merged as kubectl merges it. tsgnav hands each
probe a kubeconfig of its own that points at its loopback proxy, with the session's context and
namespace (\fB\-n\fR). The completion scripts read the contexts of the same kubeconfig.
.TP
\fBTSGNAV_JAIL\fR
\fBoff\fR (or \fB0\fR, \fBfalse\fR) runs shell probes without the jail: the session then says
\fBnot isolated\fR everywhere and asks before each shell probe.
.TP
\fBNO_COLOR\fR
When set to a non-empty value, the navigator draws without colour (emphasis stays).
.TP
\fBTERM\fR
\fBdumb\fR draws without colour too, as \fBNO_COLOR\fR does.
.SH FILES
.TP
\fI<config dir>/tsgnav/config.toml\fR
The config file (Linux: \fI~/.config/tsgnav/config.toml\fR): extra guide folders, variable
values, the query backends, extra redaction patterns.
.TP
\fI<config dir>/tsgnav/keymap.toml\fR, \fI<config dir>/tsgnav/theme.toml\fR
Key and colour overrides, read from beside the config file. A bad keymap row is reported
with its file:line when the navigator starts and left out (the bundled keys stay for it);
\fBtsgnav config check\fR lists every bad row.
.TP
\fI~/.kube/config\fR
The kubeconfig when neither \fB\-\-kubeconfig\fR, the config file's \fBkubeconfig\fR nor
\fBKUBECONFIG\fR names one. tsgnav reads it and never writes it.
.TP
\fI<state dir>/tsgnav/sessions/\fR (Linux: \fI~/.local/state/tsgnav/sessions/\fR)
One folder per evidence session: \fIjournal.jsonl\fR (append-only, hash-chained) and
\fIblobs/\fR for large outputs.
.TP
\fI<cache dir>/tsgnav/guides/\fR (Linux: \fI~/.cache/tsgnav/guides/\fR)
Parsed guides, keyed by path, size, modification time and tsgnav version, so a second start
parses only what changed. Safe to delete.
.SH "EXIT STATUS"
.TP
\fB0\fR
Success; also when the reader of the output closed the pipe early (\fBtsgnav tree | head\fR).
.TP
\fB1\fR
Findings at error severity (\fBlint\fR), a probe that failed (\fBrun\fR), problems in the config
file (\fBconfig check\fR), or a journal that does not verify (\fBsessions verify\fR).
.TP
\fB2\fR
A usage error (a mistyped subcommand is named with the one it resembles), a guide, folder or
file that does not exist or could not be read, a \fB\-\-kubeconfig\fR that does not exist or
does not read, a \fB\-\-context\fR the kubeconfig does not have, a \fB\-n\fR that is no namespace
name (all reported before the navigator takes the terminal); the navigator also exits 2 after
the session when some guide could not be loaded.
.TP
\fB3\fR
\fBrun\fR refused a probe (it needs a confirmation, names its own target, or runs in a node
shell), so a script can tell a refusal from a success and from a failure.
"#;

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

/// Every problem in the config file and its neighbours, as product copy: `FILE:LINE: what is
/// wrong`, one per problem (a bad key never hides the next one).
pub fn check(file: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let shown = file.display().to_string();
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return vec![format!("{shown}: cannot read it: {e}")],
    };
    let (cfg, found) = config::check(&text);
    for p in found {
        problems.push(format!("{shown}:{}: {}", p.line, p.detail));
    }
    // The line a value is written on (its first quoted occurrence), else the key's.
    let line = |value: &str, key: &str| {
        let at = ["\"", "'"]
            .iter()
            .find_map(|q| text.find(&format!("{q}{value}{q}")))
            .or_else(|| text.find(key))
            .unwrap_or(0);
        text[..at].matches('\n').count() + 1
    };
    for g in &cfg.guides {
        if !expand_home(g).exists() {
            problems.push(format!(
                "{shown}:{}: `guides` names {g}, which does not exist; fix the path or remove it",
                line(g, "guides")
            ));
        }
    }
    let q = &cfg.query;
    let urls = [
        ("prometheus_url", q.prometheus_url.as_deref()),
        ("kusto_url", q.kusto_url.as_deref()),
        ("maestro_url", q.maestro_url.as_deref()),
    ];
    let ams = cfg
        .alertmanager
        .iter()
        .map(|a| ("url", Some(a.url.as_str())));
    for (key, url) in urls.into_iter().chain(ams) {
        match url {
            Some(u) if !is_http_url(u) => problems.push(format!(
                "{shown}:{}: `{key} = \"{u}\"` is not an http(s) URL; write it as https://HOST[:PORT]",
                line(u, key)
            )),
            _ => {}
        }
    }
    if let Some(k) = q.kubeconfig.as_deref() {
        let path = expand_home(k);
        if !path.exists() {
            problems.push(format!(
                "{shown}:{}: `kubeconfig = \"{k}\"`: {} does not exist; fix the path (kubectl's own is ~/.kube/config) or remove the line",
                line(k, "kubeconfig"),
                path.display()
            ));
        }
    }
    if let Some(ns) = q.namespace.as_deref() {
        if let Err(e) = super::target::check_namespace_as(ns, "namespace =") {
            problems.push(format!("{shown}:{}: {e}", line(ns, "namespace")));
        }
    }
    for pattern in &cfg.redact {
        if let Err(e) = crate::evidence::Redactor::with_patterns(std::slice::from_ref(pattern)) {
            // The regex crate's reason spans lines (with a caret under the spot): keep its words.
            let reason: Vec<&str> = e
                .reason
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.chars().all(|c| c == '^' || c == ' '))
                .collect();
            problems.push(format!(
                "{shown}:{}: `redact`: `{pattern}` is not a valid regular expression ({}); fix or remove it",
                line(pattern, "redact"),
                reason.join(" ")
            ));
        }
    }
    problems.extend(check_kusto_clusters(&cfg, &shown, &line));
    problems.extend(check_alerts(&cfg, &shown, &line));
    if let Some(v) = &cfg.runbooks.node_shell {
        let image = cfg.runbooks.node_shell_image.as_deref();
        if let Err(e) = crate::query::entry::NodeShell::parse(v, image) {
            problems.push(format!("{shown}:{}: {e}", line(v, "node_shell")));
        }
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    let km = dir.join("keymap.toml");
    if let Ok(t) = std::fs::read_to_string(&km) {
        let (_, bad) = Keymap::parse_each(&km.display().to_string(), &t);
        problems.extend(bad.iter().map(ToString::to_string));
    }
    let th = dir.join("theme.toml");
    if let Ok(t) = std::fs::read_to_string(&th) {
        if let Err(e) = Theme::parse(&th.display().to_string(), &t, false) {
            problems.push(e.to_string());
        }
    }
    problems
}

/// `[query.kusto_clusters]`: each URL is an http(s) one.
fn check_kusto_clusters(
    cfg: &config::Config,
    shown: &str,
    line: &dyn Fn(&str, &str) -> usize,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (k, url) in cfg.query.kusto_clusters.iter() {
        if !url.starts_with("http://") && !url.starts_with("https://") {
            problems.push(format!(
                "{shown}:{}: [query.kusto_clusters] {k} = \"{url}\" is not an http(s) URL; write https://CLUSTER.kusto.windows.net",
                line(url, k)
            ));
        }
    }
    problems
}

/// `[alerts]`: a context label that is blank, and each mapped context the kubeconfig (the
/// config's, else `KUBECONFIG`, else `~/.kube/config`) does not have, when it can be read.
fn check_alerts(
    cfg: &config::Config,
    shown: &str,
    line: &dyn Fn(&str, &str) -> usize,
) -> Vec<String> {
    let mut problems = Vec::new();
    let a = &cfg.alerts;
    if a.context_label
        .as_deref()
        .is_some_and(|l| l.trim().is_empty())
    {
        problems.push(format!(
            "{shown}:{}: [alerts] `context_label` is empty; name the alert label that holds the cluster (e.g. \"cluster\"), or remove the line for that default",
            line("context_label", "context_label")
        ));
    }
    if a.contexts.is_empty() {
        return problems;
    }
    let kubeconfig = cfg.query.kubeconfig.as_deref().map(expand_home);
    let Some(path) = crate::query::kube::default_kubeconfig(kubeconfig) else {
        return problems;
    };
    let Ok(kc) = crate::query::kube::client::read_kubeconfig(&path) else {
        return problems;
    };
    let names: Vec<&str> = kc.contexts.iter().map(|c| c.name.as_str()).collect();
    for (value, ctx) in &a.contexts {
        if !names.contains(&ctx.as_str()) {
            problems.push(format!(
                "{shown}:{}: [alerts.contexts] {value} = \"{ctx}\": the kubeconfig {} has no context {ctx} (its contexts: {}); write one of them",
                line(ctx, value),
                path.display(),
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ));
        }
    }
    problems
}

/// An absolute http(s) URL with a host.
fn is_http_url(u: &str) -> bool {
    reqwest::Url::parse(u).is_ok_and(|p| {
        matches!(p.scheme(), "http" | "https") && p.host_str().is_some_and(|h| !h.is_empty())
    })
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
                std::io::stdout()
                    .lock()
                    .write_all(config::EXAMPLE.as_bytes())?;
                Ok(ExitCode::SUCCESS)
            }
            ConfigCommand::Check { file } => {
                let Some(file) = file.or_else(default_config_file) else {
                    anyhow::bail!("no config directory on this system; name the file: tsgnav config check FILE");
                };
                let mut out = std::io::stdout().lock();
                if !file.exists() {
                    writeln!(out, "{}: no config file; tsgnav uses its defaults (see `tsgnav config example`)", file.display())?;
                    return Ok(ExitCode::SUCCESS);
                }
                let problems = check(&file);
                for p in &problems {
                    writeln!(out, "error: {p}")?;
                }
                if problems.is_empty() {
                    writeln!(out, "{}: ok", file.display())?;
                    Ok(ExitCode::SUCCESS)
                } else {
                    Ok(ExitCode::from(1))
                }
            }
        }
    }
}
