//! Rules for developer and operations tools with subcommands: shells, `git`, `make`,
//! `hcpctl`, `promtool`, container CLIs, `systemctl`, `ssh`, interpreters, `openssl`.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{
    interactive, long_opt, long_running, mutating, read_only, split, unknown, Class,
};

fn first_positional(args: &[String]) -> Option<&str> {
    args.iter()
        .map(String::as_str)
        .find(|a| !a.starts_with('-'))
}

/// A tool this module knows, or `None` to try the plain utilities.
pub(super) fn tool(name: &str, args: &[String], piped: bool) -> Option<Class> {
    let sub = first_positional(args).unwrap_or("");
    Some(match name {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" => shell(name, args, piped),
        "source" | "." => unknown(format!(
            "`{name}` runs the script `{sub}`, which cannot be checked"
        )),
        "eval" => unknown("`eval` builds the command at run time, so it cannot be checked"),
        "psql" | "mysql" | "sqlcmd" | "redis-cli" | "mongo" | "mongosh" | "sqlite3" => unknown(
            format!("`{name}` can run any query, including ones that change data"),
        ),
        "make" => unknown("`make` runs a Makefile target, which can do anything"),
        "git" => match git_hook(args) {
            Some(c) => c,
            None => git(git_sub(args), args),
        },
        "hcpctl" => hcpctl(args),
        "promtool" => match sub {
            "check" | "test" | "query" | "--version" => {
                read_only(format!("`promtool {sub}` only reads"))
            }
            _ => unknown(format!("`promtool {sub}` is not a subcommand tsgnav knows")),
        },
        "docker" | "podman" | "crictl" => container(name, sub, args),
        "systemctl" => match sub {
            "status" | "show" | "is-active" | "is-enabled" | "is-failed" | "cat" | "list-units"
            | "list-unit-files" | "list-timers" => {
                read_only(format!("`systemctl {sub}` only reads"))
            }
            _ => mutating(format!("`systemctl {sub}` changes system services")),
        },
        "journalctl" if args.iter().any(|a| a == "-f" || a == "--follow") => {
            long_running("`journalctl -f` follows the journal until it is stopped")
        }
        "journalctl" => read_only("`journalctl` only reads the journal"),
        "ssh" => ssh(args),
        "scp" | "rsync" => mutating(format!("`{name}` copies files")),
        "python" | "python3" | "perl" | "ruby" | "node" => {
            if args.windows(2).any(|w| w[0] == "-m" && w[1] == "json.tool") {
                read_only(format!("`{name} -m json.tool` only formats JSON"))
            } else {
                unknown(format!(
                    "`{name}` runs a program whose effects cannot be checked"
                ))
            }
        }
        "openssl" => match sub {
            "x509" | "verify" | "asn1parse" | "crl" | "version" | "req"
                if !args.iter().any(|a| a == "-out") =>
            {
                read_only(format!("`openssl {sub}` only reads and prints"))
            }
            "s_client" if piped => {
                read_only("`openssl s_client` with piped input only connects and prints")
            }
            "s_client" => interactive("`openssl s_client` waits for input on the terminal"),
            _ => unknown(format!("`openssl {sub}` is not a subcommand tsgnav knows")),
        },
        "kubectx" | "kubens" if sub.is_empty() => read_only(format!("`{name}` alone only lists")),
        "kubectx" | "kubens" => mutating(format!(
            "`{name} {sub}` switches your kubeconfig's current context"
        )),
        _ => return None,
    })
}

fn shell(name: &str, args: &[String], piped: bool) -> Class {
    let has_c = args
        .iter()
        .take_while(|a| a.starts_with('-') || a.starts_with('+'))
        .any(|a| !a.starts_with("--") && a[1..].contains('c'));
    if has_c {
        return read_only(format!(
            "`{name} -c` runs the script given to it, whose commands are checked one by one"
        ));
    }
    match first_positional(args) {
        Some(script) => unknown(format!(
            "`{name}` runs the script `{script}`, which cannot be checked"
        )),
        None if piped => unknown(format!(
            "`{name}` runs a script read from its input, which cannot be checked"
        )),
        None => interactive(format!("`{name}` opens an interactive shell")),
    }
}

fn git(sub: &str, args: &[String]) -> Class {
    let rest: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .skip_while(|a| *a != sub)
        .skip(1)
        .collect();
    let listing = rest.iter().all(|a| a.starts_with('-'));
    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "ls-remote" | "blame"
        | "grep" | "describe" | "shortlog" | "reflog" | "cat-file" | "rev-list" | "version" => {
            read_only(format!("`git {sub}` only reads"))
        }
        "branch" | "tag" | "remote" if listing || rest.first() == Some(&"list") => {
            read_only(format!("`git {sub}` only lists"))
        }
        "stash" if matches!(rest.first(), Some(&"list" | &"show")) => {
            read_only("`git stash list` only lists")
        }
        "config"
            if rest
                .iter()
                .any(|a| matches!(*a, "--get" | "--list" | "-l" | "--get-all")) =>
        {
            read_only("`git config --get` only reads")
        }
        "clone" | "checkout" | "switch" | "add" | "commit" | "push" | "pull" | "fetch"
        | "merge" | "rebase" | "reset" | "restore" | "stash" | "rm" | "mv" | "init" | "apply"
        | "cherry-pick" | "revert" | "tag" | "branch" | "clean" | "am" | "submodule" | "config"
        | "remote" => mutating(format!(
            "`git {sub}` changes the repository or the working tree"
        )),
        _ => unknown(format!("`git {sub}` is not a subcommand tsgnav knows")),
    }
}

/// `hcpctl`: the diagnostics collectors write only into their own output folder.
fn hcpctl(args: &[String]) -> Class {
    let a = split(args, &|_| false);
    let path = a.pos.iter().take(2).copied().collect::<Vec<_>>().join(" ");
    match path.as_str() {
        "must-gather query" | "must-gather query-infra" | "mc dump-crs" | "mc dc" => read_only(
            format!("`hcpctl {path}` only reads and collects diagnostics into a local folder"),
        ),
        _ if a
            .pos
            .iter()
            .any(|p| matches!(*p, "get" | "list" | "show" | "describe")) =>
        {
            read_only(format!("`hcpctl {path}` only reads"))
        }
        _ => unknown(format!("`hcpctl {path}` is not a subcommand tsgnav knows")),
    }
}

fn container(name: &str, sub: &str, args: &[String]) -> Class {
    let follow = args.iter().any(|a| a == "-f" || a == "--follow");
    match sub {
        "logs" if follow => long_running(format!(
            "`{name} logs -f` follows the log until it is stopped"
        )),
        "ps" | "images" | "logs" | "inspect" | "version" | "info" | "top" | "inspecti" | "pods" => {
            read_only(format!("`{name} {sub}` only reads"))
        }
        "stats" if args.iter().any(|a| a == "--no-stream") => {
            read_only(format!("`{name} stats` only reads"))
        }
        "stats" => long_running(format!("`{name} stats` keeps updating until it is stopped")),
        "exec" | "attach"
            if args
                .iter()
                .any(|a| a.starts_with('-') && a.contains(['i', 't']) && !a.starts_with("--")) =>
        {
            interactive(format!("`{name} {sub} -it` opens an interactive session"))
        }
        "run" | "rm" | "rmi" | "kill" | "stop" | "start" | "restart" | "pull" | "push"
        | "build" | "tag" | "create" | "prune" | "cp" | "commit" | "load" | "exec" | "rmp"
        | "stopp" => mutating(format!("`{name} {sub}` changes containers or images")),
        _ => unknown(format!("`{name} {sub}` is not a subcommand tsgnav knows")),
    }
}

/// git's subcommand: the first word after the global options (`-C DIR`, `-c K=V` …).
fn git_sub(args: &[String]) -> &str {
    let a = split(args, &|f| {
        matches!(
            f,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
        )
    });
    a.pos.first().copied().unwrap_or("")
}

/// git options that make it run a program of the script's choosing: configuration on the
/// command line (`-c core.pager=…`, `--config-env`, which can name a pager, an ssh command,
/// an fsmonitor, hooks), `--upload-pack`/`--receive-pack`/`--exec` (the program run for the
/// remote side, also `-u` of `ls-remote`, `fetch`, `clone`, `pull`), `--ext-diff`.
fn git_hook(args: &[String]) -> Option<Class> {
    let sub = git_sub(args);
    let remote = matches!(sub, "ls-remote" | "fetch" | "clone" | "pull" | "archive");
    // `-c` after the subcommand is its own flag (`git log -c`: combined diffs).
    let global = args.iter().position(|a| a == sub).unwrap_or(args.len());
    let hook = args.iter().enumerate().find_map(|(i, a)| {
        let config = i < global
            && (a.starts_with("-c") && !a.starts_with("--") || long_opt(a, "--config-env"));
        let program = ["--upload-pack", "--receive-pack", "--exec"]
            .iter()
            .any(|f| long_opt(a, f) && a.len() > 4);
        (config || program || (remote && a == "-u")).then_some(a)
    })?;
    Some(unknown(format!(
        "`git {hook}` sets configuration or a program that git runs, which tsgnav cannot check"
    )))
}

/// ssh options whose value is a command ssh runs locally, or a config file that can hold
/// one (`-F`).
const SSH_COMMANDS: &[&str] = &[
    "proxycommand",
    "localcommand",
    "permitlocalcommand",
    "knownhostscommand",
    "remotecommand",
    "match",
    "include",
    "pkcs11provider",
    "securitykeyprovider",
];

fn ssh(args: &[String]) -> Class {
    let a = split(args, &|f| {
        f.len() == 2 && "BbcDEeFIiJLlmOoPpQRSWw".contains(&f[1..])
    });
    let runs = a.flags.iter().any(|(f, v)| {
        let key = v
            .unwrap_or("")
            .split(['=', ' '])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        f == "-F" || f == "-o" && SSH_COMMANDS.contains(&key.as_str())
    });
    if runs {
        return unknown(
            "`ssh` is given a command to run locally (ProxyCommand, LocalCommand …) or a config \
             file that can hold one",
        );
    }
    if a.pos.len() > 1 {
        return unknown("`ssh` runs a command on a remote host, which cannot be checked");
    }
    interactive("`ssh` opens an interactive session on a remote host")
}
