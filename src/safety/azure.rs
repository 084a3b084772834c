//! Rules for the Azure CLI: the last word of the command path is the verb.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{interactive, long_running, mutating, read_only, split, unknown, Class};

const MUTATING_VERBS: &[&str] = &[
    "create",
    "delete",
    "update",
    "set",
    "start",
    "stop",
    "restart",
    "delete-instances",
    "add",
    "remove",
    "reset",
    "deallocate",
    "redeploy",
    "reimage",
    "upgrade",
    "scale",
    "invoke",
    "import",
    "purge",
    "recover",
    "restore",
    "rotate",
    "renew",
    "approve",
    "reject",
    "assign",
    "register",
    "unregister",
    "attach",
    "detach",
    "enable",
    "disable",
    "apply",
    "move",
    "lock",
    "unlock",
    "install",
    "uninstall",
    "upload",
    "sync",
    "swap",
    "failover",
    "cancel",
    "abort",
    "resize",
    "rollback",
    "generalize",
    "capture",
    "run-command",
    "regenerate-key",
    "regenerate-keys",
    "grant",
    "revoke",
    "deploy",
    "backup",
    "trigger",
    "reconcile",
    "refresh",
    "power-off",
    "sync-status",
];

const MUTATING_PREFIXES: &[&str] = &[
    "create-",
    "delete-",
    "update-",
    "set-",
    "add-",
    "remove-",
    "reset-",
    "start-",
    "stop-",
    "restart-",
    "enable-",
    "disable-",
    "regenerate-",
    "rotate-",
    "renew-",
    "import-",
    "upgrade-",
];

/// `az ARGS`.
pub(super) fn az(args: &[String]) -> Class {
    let path: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .take_while(|a| !a.starts_with('-'))
        .collect();
    let Some(&verb) = path.last() else {
        return read_only("`az` without a command only prints help or its version");
    };
    let cmd = format!("`az {}`", path.join(" "));
    match verb {
        "login" => interactive(format!("{cmd} signs in through a browser or device code")),
        "logout" => mutating(format!("{cmd} signs you out of the az CLI")),
        "rest" => rest(&cmd, args),
        "get-credentials" => mutating(format!(
            "{cmd} merges credentials into your kubeconfig and may switch its current context"
        )),
        "download" => mutating(format!("{cmd} writes the download into a local file")),
        "wait" | "tail" => long_running(format!(
            "{cmd} blocks until the condition holds or it is stopped"
        )),
        "browse" | "ssh" | "serial-console" | "connect" => {
            interactive(format!("{cmd} opens an interactive session"))
        }
        "show" | "list" | "get" | "query" | "exists" | "version" | "find" | "export" | "check" => {
            read_only(format!("{cmd} only reads"))
        }
        _ if ["show-", "list-", "get-", "check-"]
            .iter()
            .any(|p| verb.starts_with(p)) =>
        {
            read_only(format!("{cmd} only reads"))
        }
        _ if MUTATING_VERBS.contains(&verb)
            || MUTATING_PREFIXES.iter().any(|p| verb.starts_with(p)) =>
        {
            mutating(format!(
                "{cmd} changes Azure resources or az settings (`{verb}`)"
            ))
        }
        _ => unknown(format!(
            "{cmd} is not a command tsgnav knows, so it may change something"
        )),
    }
}

/// `az rest`: the method (`--method`/`-m`, default GET, or POST when a body is given).
fn rest(cmd: &str, args: &[String]) -> Class {
    let a = split(args, &|f| {
        matches!(
            f,
            "-m" | "--method"
                | "-u"
                | "--url"
                | "--uri"
                | "-b"
                | "--body"
                | "--headers"
                | "--resource"
        )
    });
    let method = a
        .value(&["-m", "--method"])
        .map(str::to_ascii_lowercase)
        .unwrap_or_else(|| {
            if a.has(&["-b", "--body"]) {
                "post".into()
            } else {
                "get".into()
            }
        });
    match method.as_str() {
        "get" | "head" | "options" => read_only(format!(
            "{cmd} sends a `{method}` request, which only reads"
        )),
        _ => mutating(format!(
            "{cmd} sends a `{method}` request, which changes Azure resources"
        )),
    }
}
