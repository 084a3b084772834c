//! Consoles and remote runners, where commands are typed or sent somewhere other than the
//! operator's shell: a command that opens a console (`psql`, `mysql`, `redis-cli`,
//! `gitlab-rails console`, `rails c`, `irb`, a python shell), Azure's remote runners
//! (`az aks command invoke --command "…"`, `az vmss run-command invoke --scripts "…"`), and
//! cues in the prose before a block ("On the node:", "In the rails console, …", "Output:").
//!
//! Pure; imports only sibling `tsg` modules (must not import IO or `safety`).

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use super::invocation::{self, table, Tool};
use super::model::{Console, RunsIn, ShellKind};
use super::shell;

/// Flags of console clients that take a value (so the word after them is not an operand).
const VALUED: &[&str] = &[
    "-h",
    "-p",
    "-U",
    "-d",
    "-u",
    "-P",
    "-a",
    "-n",
    "-s",
    "--host",
    "--port",
    "--user",
    "--username",
    "--dbname",
    "--pass",
    "-S",
    "--socket",
    "-D",
    "--database",
];

/// Flags that make a console client run one command and exit instead of opening a console.
const ONE_SHOT: &[&str] = &[
    "-c",
    "--command",
    "-f",
    "--file",
    "-l",
    "--list",
    "-e",
    "--execute",
    "-V",
    "--version",
    "--eval",
    "-Q",
    "-q",
    "-i",
    "--help",
];

/// The operands of a console client's arguments (words that are not flags or flag values).
fn operands(args: &[String]) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let flag = w.split('=').next().unwrap_or(w);
        if ONE_SHOT.contains(&flag) {
            return None;
        }
        if w.starts_with('-') {
            i += if VALUED.contains(&w.as_str()) { 2 } else { 1 };
            continue;
        }
        out.push(w.as_str());
        i += 1;
    }
    Some(out)
}

/// The value of the first of `flags` in `args`.
fn flag_value<'a>(args: &'a [String], flags: &[&str]) -> Option<&'a str> {
    let i = args.iter().position(|a| flags.contains(&a.as_str()))?;
    args.get(i + 1).map(String::as_str)
}

/// The words after `sudo` and its flags (`sudo -u git -H gitlab-rails console`).
fn unwrap_sudo(words: &[String]) -> &[String] {
    if words.first().map(String::as_str) != Some("sudo") {
        return words;
    }
    let mut i = 1;
    while let Some(w) = words.get(i) {
        if !w.starts_with('-') {
            break;
        }
        i += if matches!(w.as_str(), "-u" | "-g" | "-C" | "-D") {
            2
        } else {
            1
        };
    }
    &words[i.min(words.len())..]
}

/// The console `words` open, and what it connects to (its host, or the console's name).
pub fn entered(words: &[String]) -> Option<(Console, String)> {
    let words = unwrap_sudo(words);
    let name = shell::basename(words.first()?);
    let args = &words[1..];
    let host = |default: &str| {
        flag_value(args, &["-h", "--host"])
            .unwrap_or(default)
            .to_string()
    };
    match name {
        "psql" | "gitlab-psql" | "mysql" | "sqlcmd" if operands(args).is_some() => {
            Some((Console::Sql, host(name)))
        }
        "sqlite3" if operands(args).is_some_and(|o| o.len() <= 1) => {
            Some((Console::Sql, name.to_string()))
        }
        "redis-cli" if operands(args).is_some_and(|o| o.is_empty()) => {
            Some((Console::Redis, host(name)))
        }
        "mongo" | "mongosh" if operands(args).is_some() => Some((Console::Mongo, host(name))),
        "rails" | "gitlab-rails"
            if matches!(args.first().map(String::as_str), Some("c" | "console")) =>
        {
            Some((Console::Ruby, "rails console".to_string()))
        }
        "irb" | "pry" if args.is_empty() => Some((Console::Ruby, name.to_string())),
        "python" | "python3" | "ipython" if args.iter().all(|a| a == "-q" || a == "-u") => {
            Some((Console::Python, name.to_string()))
        }
        _ => None,
    }
}

/// Azure's remote runners: (the script they send, where it runs). `code` must be one
/// command: `az aks command invoke … --command "…"` (run in the cluster) or
/// `az vmss run-command invoke … --scripts "…"` / `az vm run-command invoke …` (run on the
/// machine).
pub fn remote(code: &str) -> Option<(String, RunsIn)> {
    // Most blocks are not remote runners: no second parse for them.
    if !code.contains(" invoke") {
        return None;
    }
    let cmds = shell::commands(code);
    let [c] = cmds.as_slice() else {
        return None;
    };
    let inv = invocation::of_command(c).filter(|i| i.tool == Tool::Az)?;
    let verbs: Vec<&str> = inv.positionals.iter().map(String::as_str).collect();
    let flag = match verbs.as_slice() {
        ["aks", "command", "invoke", ..] => table::AZ_COMMAND,
        ["vmss" | "vm", "run-command", "invoke", ..] => table::AZ_SCRIPTS,
        _ => return None,
    };
    let script = inv.flags.iter().find(|f| f.name == flag)?.value.clone()?;
    let target = inv
        .flags
        .iter()
        .find(|f| f.name == table::AZ_NAME || f.name == table::AZ_NAME_SHORT)
        .and_then(|f| f.value.clone())
        .unwrap_or_default();
    let via = shell::commands(code)
        .first()
        .map(|c| c.text())
        .unwrap_or_default();
    Some((
        script,
        RunsIn {
            kind: ShellKind::Host,
            via,
            target,
            console: None,
        },
    ))
}

/// What the prose just before a block says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cue {
    /// The block is typed in this place.
    Place(RunsIn),
    /// The block is what a command printed.
    Output,
}

/// Phrases that put the next block somewhere: (phrase, place, target, console).
const PHRASES: &[(&str, ShellKind, &str, Option<Console>)] = &[
    ("on the node", ShellKind::Node, "<node>", None),
    ("on each node", ShellKind::Node, "<node>", None),
    ("on the affected node", ShellKind::Node, "<node>", None),
    ("on the worker node", ShellKind::Node, "<node>", None),
    ("on that node", ShellKind::Node, "<node>", None),
    ("connect to the node", ShellKind::Node, "<node>", None),
    ("connected to the node", ShellKind::Node, "<node>", None),
    ("in the node shell", ShellKind::Node, "<node>", None),
    ("inside the node", ShellKind::Node, "<node>", None),
    ("on the vm", ShellKind::Host, "<host>", None),
    ("on the virtual machine", ShellKind::Host, "<host>", None),
    ("on the host", ShellKind::Host, "<host>", None),
    ("on the bastion", ShellKind::Host, "<host>", None),
    ("connect to the vm", ShellKind::Host, "<host>", None),
    ("inside the pod", ShellKind::Pod, "<pod>", None),
    ("in the pod", ShellKind::Pod, "<pod>", None),
    ("inside the container", ShellKind::Pod, "<pod>", None),
    ("in the container", ShellKind::Pod, "<pod>", None),
    (
        "in the rails console",
        ShellKind::Host,
        "rails console",
        Some(Console::Ruby),
    ),
    (
        "in a rails console",
        ShellKind::Host,
        "rails console",
        Some(Console::Ruby),
    ),
    (
        "in the gitlab-rails console",
        ShellKind::Host,
        "rails console",
        Some(Console::Ruby),
    ),
    (
        "from the rails console",
        ShellKind::Host,
        "rails console",
        Some(Console::Ruby),
    ),
    ("in psql", ShellKind::Host, "psql", Some(Console::Sql)),
    (
        "in the psql console",
        ShellKind::Host,
        "psql",
        Some(Console::Sql),
    ),
    (
        "in the database console",
        ShellKind::Host,
        "database",
        Some(Console::Sql),
    ),
    (
        "in a database console",
        ShellKind::Host,
        "database",
        Some(Console::Sql),
    ),
    (
        "in the postgres console",
        ShellKind::Host,
        "psql",
        Some(Console::Sql),
    ),
    (
        "in the mysql console",
        ShellKind::Host,
        "mysql",
        Some(Console::Sql),
    ),
    (
        "in redis-cli",
        ShellKind::Host,
        "redis-cli",
        Some(Console::Redis),
    ),
    (
        "in the redis console",
        ShellKind::Host,
        "redis-cli",
        Some(Console::Redis),
    ),
];

/// Every phrase in one automaton, built once.
static CUES: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(PHRASES.iter().map(|p| p.0))
        .ok()
});

/// What a paragraph just before a block says of it: a place ("On the node:", "After you
/// connect to the node, …") when a phrase ends a clause, or output ("Example output:").
pub fn cue(text: &str) -> Option<Cue> {
    let t = text.trim();
    if super::transcript::output::lead_in(t) {
        return Some(Cue::Output);
    }
    let ac = CUES.as_ref()?;
    for m in ac.find_iter(t) {
        // The phrase must end its clause: "On the node:", not "on the node pool page".
        let ends = t[m.end()..]
            .chars()
            .next()
            .is_none_or(|c| matches!(c, ':' | ',' | '.' | ';' | ')'));
        if ends {
            let (_, kind, target, console) = PHRASES[m.pattern().as_usize()];
            return Some(Cue::Place(RunsIn {
                kind,
                via: format!("the guide's words \"{t}\""),
                target: target.to_string(),
                console,
            }));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn consoles_and_one_shot_clients() {
        let e = |s: &str| entered(&words(s));
        assert_eq!(
            e("psql -h db-1 -U app prod"),
            Some((Console::Sql, "db-1".into()))
        );
        assert_eq!(e("psql -h db-1 -c select"), None);
        assert_eq!(
            e("sudo gitlab-psql"),
            Some((Console::Sql, "gitlab-psql".into()))
        );
        assert_eq!(
            e("redis-cli -h cache"),
            Some((Console::Redis, "cache".into()))
        );
        assert_eq!(e("redis-cli -h cache INFO memory"), None);
        assert_eq!(
            e("sudo gitlab-rails console").map(|c| c.0),
            Some(Console::Ruby)
        );
        assert_eq!(e("rails c").map(|c| c.0), Some(Console::Ruby));
        assert_eq!(e("gitlab-rails runner x"), None);
        assert_eq!(e("python3").map(|c| c.0), Some(Console::Python));
        assert_eq!(e("python3 x.py"), None);
        assert_eq!(
            e("mysql -u root -p -h r2"),
            Some((Console::Sql, "r2".into()))
        );
        assert_eq!(e("mysql -e 'show tables'"), None);
    }

    #[test]
    fn cues_end_a_clause() {
        let place = |t: &str| match cue(t) {
            Some(Cue::Place(r)) => Some((r.kind, r.console)),
            _ => None,
        };
        assert_eq!(place("On the node:"), Some((ShellKind::Node, None)));
        assert_eq!(
            place("After you connect to the node, look at the disk:"),
            Some((ShellKind::Node, None))
        );
        assert_eq!(
            place("In the rails console, archive the project:"),
            Some((ShellKind::Host, Some(Console::Ruby)))
        );
        assert_eq!(
            place("Open the node pool page on the node pool blade."),
            None
        );
        assert_eq!(
            place("Run this on your workstation to see the node list:"),
            None
        );
        assert_eq!(cue("Example output:"), Some(Cue::Output));
        assert_eq!(cue("Output:"), Some(Cue::Output));
    }
}
