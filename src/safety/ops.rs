//! The CLIs of ops guides, and a verb model for every CLI tsgnav does not know.
//!
//! Known: console clients (`psql -c`, `redis-cli CMD`, `gitlab-rails runner`: the inner
//! language is classified; without a command they open a console), iptables (`-L`/`-S` list),
//! consul, gcloud/gsutil, virtctl, service, docker-machine, apt/yum/dnf, gitlab-ctl,
//! patronictl, knife, chef-client, ufw, etcdctl, Windows utilities and PowerShell cmdlets
//! (`Verb-Noun`: the approved verb says what it does). Unknown: the first words that are not
//! flags are read for a verb (`stop`, `restart`, `delete` … change; `get`, `list`, `status` …
//! read); with none, the command stays unknown.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{interactive, long_running, mutating, read_only, unknown, Class};
use super::consoles;
use crate::tsg::Console;

/// Verbs that change what a CLI manages.
const WRITES: &[&str] = &[
    "stop",
    "restart",
    "migrate",
    "rm",
    "remove",
    "delete",
    "del",
    "install",
    "uninstall",
    "upgrade",
    "update",
    "set",
    "enable",
    "disable",
    "reinit",
    "pause",
    "resume",
    "drain",
    "cordon",
    "uncordon",
    "apply",
    "create",
    "start",
    "kill",
    "reload",
    "reset",
    "purge",
    "destroy",
    "deploy",
    "rollback",
    "scale",
    "patch",
    "put",
    "push",
    "write",
    "add",
    "move",
    "mv",
    "rename",
    "restore",
    "failover",
    "switchover",
    "reboot",
    "shutdown",
    "leave",
    "join",
    "force-leave",
    "evict",
    "terminate",
    "detach",
    "attach",
    "mount",
    "unmount",
    "sync",
    "import",
    "flush",
    "clear",
    "edit",
    "replace",
    "upload",
    "cp",
    "copy",
    "truncate",
    "prune",
    "reconfigure",
    "converge",
    "bootstrap",
    "promote",
    "demote",
    "revoke",
    "grant",
    "lock",
    "unlock",
    "rotate",
    "renew",
    "backup",
    "recover",
    "abort",
    "cancel",
    "approve",
    "reject",
    "register",
    "unregister",
    "init",
    "reimage",
    "resize",
    "defrag",
    "compact",
    "snapshot",
    "hup",
    "term",
    "unset",
    "erase",
    "wipe",
    "format",
    "reinstall",
    "downgrade",
    "tag",
    "untag",
];

/// Verbs that only read.
const READS: &[&str] = &[
    "get",
    "list",
    "ls",
    "show",
    "describe",
    "status",
    "version",
    "info",
    "logs",
    "top",
    "check",
    "inspect",
    "members",
    "health",
    "history",
    "search",
    "find",
    "query",
    "view",
    "cat",
    "diff",
    "validate",
    "verify",
    "explain",
    "whoami",
    "ping",
    "stats",
    "du",
    "env",
    "search",
    "lookup",
    "catalog",
    "peers",
    "endpoints",
    "is-active",
    "is-enabled",
    "policy",
    "dump",
    "help",
    "--help",
    "-h",
    "--version",
];

/// Programs that, named as an operand, mean the unknown CLI runs them.
const RUNNERS: &[&str] = &[
    "kubectl",
    "oc",
    "az",
    "helm",
    "curl",
    "wget",
    "sh",
    "bash",
    "zsh",
    "ssh",
    "python",
    "python3",
    "sudo",
    "env",
    "xargs",
    "docker",
    "podman",
    "git",
    "make",
    "terraform",
];

/// The class of `name ARGS` when `name` is an ops CLI tsgnav knows.
pub(super) fn known(name: &str, args: &[String]) -> Option<Class> {
    let has = |f: &[&str]| args.iter().any(|a| f.contains(&a.as_str()));
    let value = |f: &[&str]| {
        let i = args.iter().position(|a| f.contains(&a.as_str()))?;
        args.get(i + 1).map(String::as_str)
    };
    Some(match name {
        "psql" | "gitlab-psql" | "mysql" | "sqlcmd" | "sqlite3" | "redis-cli" | "mongo"
        | "mongosh" | "rails" | "gitlab-rails" | "irb" | "pry" | "python" | "python3"
        | "ipython" => return client(name, args),
        "iptables" | "ip6tables" => {
            let listing = args.iter().all(|a| {
                !a.starts_with('-')
                    || matches!(
                        a.as_str(),
                        "-L" | "--list"
                            | "-S"
                            | "--list-rules"
                            | "-n"
                            | "--numeric"
                            | "-v"
                            | "--verbose"
                            | "-x"
                            | "--line-numbers"
                            | "-t"
                            | "--table"
                            | "-w"
                    )
            });
            if listing && has(&["-L", "--list", "-S", "--list-rules"]) {
                read_only(format!("`{name} -L` only lists the rules"))
            } else {
                mutating(format!("`{name}` changes the firewall"))
            }
        }
        "consul" if args.first().is_some_and(|a| a == "maint") => {
            if has(&["-enable", "-disable"]) {
                mutating("`consul maint -enable/-disable` takes a service in or out of the catalog")
            } else {
                read_only("`consul maint` alone lists services in maintenance")
            }
        }
        "consul" if args.first().is_some_and(|a| a == "monitor") => {
            long_running("`consul monitor` streams logs until stopped")
        }
        "gitlab-ctl" if args.first().is_some_and(|a| a == "tail") => {
            long_running("`gitlab-ctl tail` follows the logs until stopped")
        }
        "chef-client" | "chef-solo" => mutating(format!("`{name}` converges the node")),
        "ufw" => match args.first().map(String::as_str) {
            Some("status" | "version" | "--version" | "show") | None => {
                read_only("`ufw status` only shows the firewall")
            }
            Some(sub) => mutating(format!("`ufw {sub}` changes the firewall")),
        },
        "virtctl"
            if args
                .first()
                .is_some_and(|a| matches!(a.as_str(), "console" | "vnc" | "ssh")) =>
        {
            interactive("`virtctl console` opens the VM's console")
        }
        "su" if !has(&["-c", "--command"]) => interactive("`su` opens a shell as another user"),
        "nc" | "ncat"
            if args
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('z')) =>
        {
            read_only(format!("`{name} -z` only checks that the port is open"))
        }
        "ipconfig"
            if args.iter().any(|a| {
                let a = a.to_ascii_lowercase();
                a.contains("release")
                    || a.contains("renew")
                    || a.contains("flush")
                    || a.contains("register")
            }) =>
        {
            mutating("`ipconfig /release`, `/renew` and `/flushdns` change the network setup")
        }
        "ipconfig" | "tracert" | "pathping" | "systeminfo" | "tasklist" | "where" | "ver"
        | "getmac" | "route"
            if value(&["-f"]).is_none() && !has(&["add", "delete", "change"]) =>
        {
            read_only(format!("`{name}` only reads"))
        }
        _ if cmdlet(name).is_some() => return cmdlet(name),
        _ => return None,
    })
}

/// Console clients: with a command, the command in the console's language; without one,
/// they open a console.
fn client(name: &str, args: &[String]) -> Option<Class> {
    let arg = |f: &[&str]| {
        let i = args.iter().position(|a| f.contains(&a.as_str()))?;
        args.get(i + 1).map(String::as_str)
    };
    let sql = match name {
        "psql" | "gitlab-psql" => arg(&["-c", "--command"]),
        "mysql" => arg(&["-e", "--execute"]),
        "sqlcmd" => arg(&["-Q", "-q"]),
        _ => None,
    };
    if let Some(q) = sql {
        return Some(consoles::sql(q));
    }
    if matches!(name, "psql" | "gitlab-psql" | "mysql" | "sqlcmd")
        && args
            .iter()
            .any(|a| matches!(a.as_str(), "-f" | "--file" | "-i"))
    {
        return Some(unknown(format!(
            "`{name} -f` runs the SQL of a file tsgnav does not read"
        )));
    }
    if matches!(name, "rails" | "gitlab-rails") && args.first().is_some_and(|a| a == "runner") {
        return Some(match args.get(1) {
            Some(code) => consoles::classify(Console::Ruby, code),
            None => unknown(format!("`{name} runner` with no code")),
        });
    }
    let words: Vec<String> = std::iter::once(name.to_string())
        .chain(args.iter().cloned())
        .collect();
    if let Some((c, _)) = crate::tsg::consoles::entered(&words) {
        return Some(interactive(format!(
            "`{name}` opens a {} console",
            c.as_str()
        )));
    }
    if name == "redis-cli" {
        let words: Vec<String> = redis_words(args);
        return Some(consoles::redis(&words));
    }
    None
}

/// The command words of `redis-cli [flags] CMD …`.
fn redis_words(args: &[String]) -> Vec<String> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        let valued = matches!(
            a.as_str(),
            "-h" | "-p" | "-a" | "-s" | "-u" | "--user" | "--pass"
        ) || a.len() == 2 && a.ends_with('n');
        i += if valued { 2 } else { 1 };
    }
    args[i.min(args.len())..].to_vec()
}

/// PowerShell cmdlets, by their approved verb (`Get-AzVM` reads, `Remove-AzResourceLock`
/// changes).
fn cmdlet(name: &str) -> Option<Class> {
    let (verb, noun) = name.split_once('-')?;
    let cap = |s: &str| s.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if !cap(verb) || !cap(noun) || !verb.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    Some(match verb {
        "Get" | "Test" | "Show" | "Find" | "Measure" | "Resolve" | "Select" | "Format"
        | "Compare" | "ConvertTo" | "ConvertFrom" | "Search" | "Where" | "Sort" | "Group"
        | "Read" | "Trace" => read_only(format!("`{name}` only reads (`{verb}-`)")),
        "Write" if matches!(noun, "Host" | "Output" | "Verbose" | "Information") => {
            read_only(format!("`{name}` only prints"))
        }
        "Out" if noun != "File" => read_only(format!("`{name}` only prints")),
        "Wait" | "Watch" => long_running(format!("`{name}` waits until it is stopped")),
        "Connect" | "Enter" => interactive(format!("`{name}` opens a session")),
        "Set" | "New" | "Remove" | "Stop" | "Start" | "Restart" | "Update" | "Add" | "Clear"
        | "Disable" | "Enable" | "Invoke" | "Move" | "Rename" | "Reset" | "Install"
        | "Uninstall" | "Register" | "Unregister" | "Suspend" | "Resume" | "Copy" | "Grant"
        | "Revoke" | "Publish" | "Unpublish" | "Sync" | "Push" | "Export" | "Import" | "Out"
        | "Write" | "Disconnect" | "Lock" | "Unlock" | "Repair" | "Redo" | "Undo" | "Use"
        | "Deny" | "Approve" | "Deploy" | "Initialize" | "Mount" | "Dismount" | "Protect"
        | "Unprotect" | "Restore" | "Backup" | "Save" | "Send" => {
            mutating(format!("`{name}` changes something (`{verb}-`)"))
        }
        _ => unknown(format!(
            "`{name}` uses the verb `{verb}-`, which tsgnav does not know"
        )),
    })
}

/// The verb model for a CLI tsgnav does not know: the first of its first four operands that
/// is a verb says what it does (`meshctl cluster drain edge-3` drains).
pub(super) fn generic(name: &str, args: &[String]) -> Option<Class> {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if !plain {
        return None;
    }
    let operands = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-') || READS.contains(a))
        .take(4);
    for w in operands {
        // `wrapper kubectl get …`: an unknown program that runs another one may do anything.
        if RUNNERS.contains(&crate::tsg::shell::basename(w)) {
            return None;
        }
        let w = w.to_ascii_lowercase();
        if WRITES.contains(&w.as_str()) {
            return Some(mutating(format!(
                "`{name} {w}`: `{w}` is a verb that changes what `{name}` manages"
            )));
        }
        if READS.contains(&w.as_str()) {
            return Some(read_only(format!(
                "`{name} {w}`: `{w}` is a verb that only reads"
            )));
        }
    }
    None
}
