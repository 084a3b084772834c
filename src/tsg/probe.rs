//! Fenced blocks → probes: language from the info string, fence attributes, variables and
//! backend hints. Pure; imports only sibling `tsg` modules.

use std::collections::BTreeMap;

use super::model::{BackendHints, Console, Lang, Probe};
use super::raw::RawCode;
use super::vars;

/// Command words that mark an untagged fence as shell.
const SHELL_WORDS: &[&str] = &[
    "kubectl",
    "oc",
    "az",
    "curl",
    "export",
    "for",
    "jq",
    "hcpctl",
    "helm",
    "grep",
    "cat",
    "echo",
    "wget",
    "ssh",
    "kubelogin",
    "make",
    "go",
    "docker",
    "sudo",
    "watch",
    "cd",
    "ls",
    "while",
    "if",
    "promtool",
    "psql",
    "openssl",
    "dig",
    "nslookup",
    "ping",
    "systemctl",
    "journalctl",
    "git",
    "crictl",
    "etcdctl",
    "podman",
    "chroot",
    "oc-mirror",
    // The CLIs of ops guides.
    "gcloud",
    "gsutil",
    "knife",
    "chef-client",
    "consul",
    "gitlab-ctl",
    "gitlab-rake",
    "gitlab-rails",
    "gitlab-psql",
    "patronictl",
    "virtctl",
    "docker-machine",
    "apt",
    "apt-get",
    "yum",
    "dnf",
    "iptables",
    "ufw",
    "service",
    "redis-cli",
    "mysql",
    "terraform",
    "vault",
    "aws",
    "tcpdump",
    "rails",
];

/// Splits an info string into the language word and `{k=v …}` attributes.
pub fn split_info(info: &str) -> (String, BTreeMap<String, String>) {
    let info = info.trim();
    let (head, attrs) = match info.find('{') {
        Some(i) => (&info[..i], info[i + 1..].trim_end().trim_end_matches('}')),
        None => (info, ""),
    };
    let lang = head
        .split([' ', ','])
        .next()
        .unwrap_or("")
        .trim()
        .to_lowercase();
    let mut map = BTreeMap::new();
    for pair in attr_words(attrs) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, "true"));
        map.insert(k.trim().to_string(), v.trim().trim_matches('"').to_string());
    }
    (lang, map)
}

/// The `k=v` words of an attribute list, split at spaces and commas outside double quotes
/// (`abort_if="rate(x[5m]) > 0"` is one word).
fn attr_words(attrs: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in attrs.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' | ',' if !quoted => {
                if i > start {
                    out.push(&attrs[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if attrs.len() > start {
        out.push(&attrs[start..]);
    }
    out
}

/// What a fence's info string says its block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fence {
    /// A shell script of some shell (bash, `azurecli`, `powershell`, `cmd` …).
    Shell,
    /// A terminal session or an untagged block: commands only when it reads as commands.
    Session,
    /// Plain text (`text`, `plaintext`): shown, never run, even when it holds a command (a
    /// guide writes `text` to show a command it does not mean to be run).
    Plain,
    /// Input to a console (`sql`, `ruby`, `python`, `redis`).
    Console(Console),
    Promql,
    Kql,
    Http,
    /// Shown, never run (`output`, yaml, json, go …).
    Other,
}

/// The fence kind of an info-string word.
pub fn fence(word: &str) -> Fence {
    match word.rsplit('/').next().unwrap_or(word) {
        "bash"
        | "sh"
        | "shell"
        | "zsh"
        | "ksh"
        | "azurecli"
        | "azurecli-interactive"
        | "azure-cli"
        | "azcli"
        | "azurepowershell"
        | "azurepowershell-interactive"
        | "powershell"
        | "pwsh"
        | "ps1"
        | "posh"
        | "cmd"
        | "bat"
        | "batch"
        | "dos"
        | "shell-script"
        | "fish" => Fence::Shell,
        "console" | "shell-session" | "terminal" | "doscon" | "ps1con" | "" => Fence::Session,
        "text" | "plaintext" | "txt" | "plain" => Fence::Plain,
        "sql" | "psql" | "pgsql" | "postgres" | "postgresql" | "mysql" | "tsql" | "plsql"
        | "sqlite" => Fence::Console(Console::Sql),
        "ruby" | "rb" | "irb" | "rails" => Fence::Console(Console::Ruby),
        "python" | "py" | "python3" | "pycon" | "ipython" => Fence::Console(Console::Python),
        "redis" => Fence::Console(Console::Redis),
        "promql" | "prometheus" => Fence::Promql,
        "kql" | "kusto" => Fence::Kql,
        "http" | "rest" => Fence::Http,
        _ => Fence::Other,
    }
}

fn lang_of(kind: Fence, code: &str) -> Option<Lang> {
    match kind {
        Fence::Shell => Some(Lang::Shell),
        // A session fence with no prompt is output, unless it reads as commands.
        Fence::Session if looks_like_shell(code) => Some(Lang::Shell),
        Fence::Promql => Some(Lang::Promql),
        Fence::Kql => Some(Lang::Kql),
        Fence::Http => Some(Lang::Http),
        _ => None,
    }
}

/// PromQL functions and aggregations a query starts with.
const PROMQL_FUNCS: &[&str] = &[
    "rate",
    "irate",
    "increase",
    "sum",
    "avg",
    "max",
    "min",
    "count",
    "topk",
    "bottomk",
    "histogram_quantile",
    "absent",
    "delta",
    "deriv",
    "predict_linear",
    "quantile_over_time",
    "avg_over_time",
    "max_over_time",
    "min_over_time",
    "sum_over_time",
    "count_over_time",
    "label_replace",
    "sort",
    "sort_desc",
    "clamp_min",
    "clamp_max",
    "stddev",
    "changes",
    "resets",
    "time",
    "vector",
    "scalar",
];

/// Whether a block of a console or shell fence is a PromQL query by its content: it starts
/// with a function call (`rate(`, `sum by (…) (`), or a metric with a selector (`up{…}`).
pub fn looks_like_promql(code: &str) -> bool {
    let t = code.trim_start();
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    if word.is_empty() || SHELL_WORDS.contains(&word.as_str()) {
        return false;
    }
    let after = &t[word.len()..];
    let func = PROMQL_FUNCS.contains(&word.as_str());
    let agg = func
        && ["by (", "by(", "without (", "without("]
            .iter()
            .any(|k| after.trim_start().starts_with(k));
    (func && after.starts_with('(')) || agg || after.starts_with('{') && selector_query(after)
}

/// Whether `{…}` and what follows on its line read as a query, not a sample of output: a
/// sample is `metric{a="b"} 42` or `metric{a="b"} = 1` (PromQL compares with `==`).
fn selector_query(after: &str) -> bool {
    let line = super::swar::lines(after).next().unwrap_or("");
    let Some(close) = line.find('}') else {
        return after.contains('}');
    };
    let rest = line[close + 1..].trim();
    let sample = rest.parse::<f64>().is_ok()
        || (rest.starts_with('=') && !rest.starts_with("=="))
        || rest.split_whitespace().count() == 2
            && rest.split_whitespace().all(|w| w.parse::<f64>().is_ok());
    !sample
}

fn looks_like_shell(code: &str) -> bool {
    let Some(first) = super::swar::lines(code)
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    if first.contains(":=") || first.ends_with('{') {
        return false; // Go and friends.
    }
    let word = first
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_start_matches('$');
    let assignment = word.split_once('=').is_some_and(|(name, _)| {
        name.chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    SHELL_WORDS.contains(&word) || assignment
}

/// Kusto `cluster('c').database('d')`, or a leading `// host / database` comment.
fn kusto_hints(code: &str, hints: &mut BackendHints) {
    let quoted = |s: &str| -> Option<String> {
        let s = s.trim_start_matches(['(', ' ']);
        let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        let rest = &s[1..];
        rest.find(q).map(|e| rest[..e].to_string())
    };
    if let Some(i) = code.find("cluster(") {
        hints.kusto_cluster = quoted(&code[i + 7..]);
    }
    if let Some(i) = code.find("database(") {
        hints.kusto_database = quoted(&code[i + 8..]);
    }
    if hints.kusto_cluster.is_none() {
        let first = super::swar::lines(code)
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        if let Some(c) = first.strip_prefix("//") {
            if let Some((host, db)) = c.split_once(" / ") {
                let (host, db) = (host.trim(), db.trim());
                if host.contains('.') && !host.contains(' ') && !db.contains(' ') {
                    hints.kusto_cluster = Some(host.to_string());
                    hints.kusto_database = Some(db.to_string());
                }
            }
        }
    }
}

/// The context and namespace of kubectl/oc/helm commands (first seen wins), read through
/// `tsg::invocation`.
fn kube_hints(cmds: &[super::shell::SimpleCommand], hints: &mut BackendHints) {
    let kube = cmds
        .iter()
        .filter_map(super::invocation::of_command)
        .filter(|i| i.tool.is_kube() || i.tool == super::invocation::Tool::Helm);
    for inv in kube {
        if hints.kube_context.is_none() {
            hints.kube_context = inv.context;
        }
        if hints.namespace.is_none() {
            hints.namespace = inv.namespace;
        }
    }
}

/// Fence kinds whose blocks may be console transcripts.
fn shellish(kind: Fence) -> bool {
    matches!(kind, Fence::Shell | Fence::Session | Fence::Console(_))
}

/// A probe from a fenced block, or `None` for blocks that are shown but never run.
#[cfg(test)]
pub fn probe(raw: &RawCode) -> Option<Probe> {
    read(raw, None).map(|r| r.probe)
}

/// The command lines of a transcript: (0-based line, text, prompt).
pub type Commands = Vec<(usize, String, String)>;

/// A block read as a probe.
#[derive(Debug)]
pub struct Read {
    pub probe: Probe,
    /// The command lines of a console transcript (0-based line, text, prompt).
    pub commands: Option<Commands>,
    /// The console whose input the block is by its fence kind (`sql`, `ruby`) or by the
    /// console the section has open, when no prompt says so.
    pub console: Option<Console>,
}

/// Reads a fenced block. `open` is the console the section has open at this block (typed
/// into after `psql`, `redis-cli`, a rails console or a prose cue): then any untagged or
/// plain block, and one of that console's language, is its input.
pub fn read(raw: &RawCode, open: Option<Console>) -> Option<Read> {
    let (word, attrs) = split_info(&raw.info);
    let kind = if raw.fenced {
        fence(&word)
    } else {
        Fence::Session
    };
    // An indented block is code too, when it reads as commands.
    if !raw.fenced && !looks_like_shell(&raw.code) && open.is_none() {
        return None;
    }
    let transcript = shellish(kind)
        .then(|| super::transcript::split(&word, &raw.code))
        .flatten();
    let (mut code, mut expected_output, problems, commands) = match transcript {
        Some(t) => {
            let problems = t
                .problems
                .into_iter()
                .map(|(i, m)| (raw.line + i, m))
                .collect();
            let commands = t
                .commands
                .into_iter()
                .zip(t.prompts)
                .map(|((i, c), p)| (i, c, p))
                .collect();
            (t.code, t.output, problems, Some(commands))
        }
        None => (raw.code.clone(), String::new(), Vec::new(), None),
    };
    let console = match (kind, open) {
        _ if commands.is_some() => None,
        (Fence::Console(c), _) => Some(c),
        (Fence::Session, Some(c)) if !looks_like_shell(&code) => Some(c),
        _ => None,
    };
    let lang = if commands.is_some() && code.trim().is_empty() {
        // Prompts with no command after them: shown (and linted), nothing to run.
        Lang::Text
    } else if commands.is_some() || console.is_some() {
        Lang::Shell
    } else if shellish(kind) && looks_like_promql(&code) {
        Lang::Promql
    } else {
        let lang = lang_of(kind, &code)?;
        if lang == Lang::Shell {
            // Output printed after the commands, with no prompt to tell them apart.
            if let Some((c, out)) = super::transcript::output::split(&code) {
                (code, expected_output) = (c, out);
            }
        }
        lang
    };
    let mut p = Probe {
        info: raw.info.clone(),
        attrs,
        source: raw.code.clone(),
        expected_output,
        problems,
        line: raw.line,
        ..Probe::from_code(lang, "")
    };
    analyse(&mut p, code);
    Some(Read {
        probe: p,
        commands,
        console,
    })
}

/// A copy of `p` whose code is `code`, its variables and hints worked out again.
pub fn reanalyse(p: &Probe, code: &str) -> Probe {
    let mut q = Probe {
        problems: Vec::new(),
        ..p.clone()
    };
    analyse(&mut q, code.to_string());
    q
}

/// Sets `code` and what follows from it: variables read and assigned, backend hints.
fn analyse(p: &mut Probe, code: String) {
    p.lexed = super::shell::Kept(None);
    let mut hints = BackendHints::default();
    let (mut vars_used, assigns) = match p.lang {
        Lang::Shell => {
            // Lexed once for the hints, the assignments and the names it reads.
            let mut parsed = super::shell::parse(&code);
            kube_hints(&parsed.commands, &mut hints);
            let assigns = vars::shell_assigns_in(&code, &parsed.commands);
            let names = super::shell::quoting::names_in(std::mem::take(&mut parsed.quoting));
            let kept = super::shell::Lexed::new(&code, parsed);
            p.lexed = super::shell::Kept(Some(std::sync::Arc::new(kept)));
            (names, assigns)
        }
        Lang::Kql => {
            kusto_hints(&code, &mut hints);
            (vars::dollar_uses(&code), Vec::new())
        }
        Lang::Promql => (vars::dollar_uses(&code), Vec::new()),
        _ => (vars::braced_uses(&code), Vec::new()),
    };
    for name in vars::placeholders(&code)
        .into_iter()
        .chain(vars::brace_placeholders_of(p.lang, &code))
    {
        if !vars_used.contains(&name) {
            vars_used.push(name);
        }
    }
    if let Some(ctx) = p.attrs.get("context") {
        hints.kube_context = Some(ctx.clone());
    }
    if let Some(ns) = p.attrs.get("namespace") {
        hints.namespace = Some(ns.clone());
    }
    p.code = code;
    p.vars = vars_used;
    p.assigns = assigns;
    p.hints = hints;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(info: &str, code: &str) -> RawCode {
        RawCode {
            info: info.into(),
            code: code.into(),
            line: 3,
            fenced: true,
        }
    }

    #[test]
    fn languages() {
        assert_eq!(
            probe(&code("bash {name=x timeout=30s}", "kubectl get pods")).map(|p| p.lang),
            Some(Lang::Shell)
        );
        assert_eq!(
            probe(&code("/bin/sh", "ls")).map(|p| p.lang),
            Some(Lang::Shell)
        );
        assert_eq!(
            probe(&code("", "kubectl get nodes")).map(|p| p.lang),
            Some(Lang::Shell)
        );
        assert_eq!(probe(&code("", "just some text")).map(|p| p.lang), None);
        assert_eq!(
            probe(&code("", "if err := f(); err != nil {")).map(|p| p.lang),
            None
        );
        assert_eq!(
            probe(&code("", "\"ts\"=\"2024\" level=info")).map(|p| p.lang),
            None
        );
        assert_eq!(
            probe(&code("", "underlay_clusters{a=\"b\"} = 1")).map(|p| p.lang),
            None
        );
        assert_eq!(
            probe(&code("", "CLUSTER_ID=abc kubectl get x")).map(|p| p.lang),
            Some(Lang::Shell)
        );
        assert_eq!(
            probe(&code("kusto", "T | take 1")).map(|p| p.lang),
            Some(Lang::Kql)
        );
        assert_eq!(
            probe(&code("promql", "up")).map(|p| p.lang),
            Some(Lang::Promql)
        );
        assert_eq!(probe(&code("yaml", "a: b")).map(|p| p.lang), None);
        let (_, quoted) = split_info(r#"bash {soak=5m abort_if="rate(x[5m]) > 0, or y" every=1s}"#);
        assert_eq!(
            quoted.get("abort_if").map(String::as_str),
            Some("rate(x[5m]) > 0, or y")
        );
        assert_eq!(quoted.get("every").map(String::as_str), Some("1s"));
        let p = probe(&code("bash {name=x timeout=30s}", "kubectl get pods")).map(|p| p.attrs);
        assert_eq!(
            p.and_then(|a| a.get("timeout").cloned()).as_deref(),
            Some("30s")
        );
    }

    #[test]
    fn hints_and_vars() {
        let p = probe(&code(
            "kql",
            "cluster('hcp-prod-{region}').database('HCPLogs').T\n| where ns == \"<CCP ID>\"",
        ));
        let p = p.expect("kql probe");
        assert_eq!(p.hints.kusto_cluster.as_deref(), Some("hcp-prod-{region}"));
        assert_eq!(p.hints.kusto_database.as_deref(), Some("HCPLogs"));
        assert_eq!(p.vars, vec!["CCP ID", "region"]);
        let p = probe(&code("kusto", "// nrp.kusto.windows.net / mdsnrp\nT")).expect("kql");
        assert_eq!(p.hints.kusto_database.as_deref(), Some("mdsnrp"));
        let p = probe(&code("bash", "kubectl get x | head -n 5\naz feature show --namespace Microsoft.X\nkubectl --context mc-1 get pods -n maestro $X")).expect("sh");
        assert_eq!(p.hints.kube_context.as_deref(), Some("mc-1"));
        assert_eq!(p.hints.namespace.as_deref(), Some("maestro"));
        assert_eq!(p.vars, vec!["X"]);
    }
}
