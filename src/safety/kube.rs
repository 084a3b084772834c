//! Rules for `kubectl`, `oc` and `helm`.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{interactive, long_running, mutating, read_only, split, unknown, Args, Class};

/// Flags of kubectl/oc that take a value (for any subcommand; `logs` is special-cased).
fn kube_value_flag(flag: &str) -> bool {
    matches!(
        flag,
        "-n" | "--namespace"
            | "--context"
            | "--kubeconfig"
            | "--cluster"
            | "--user"
            | "-s"
            | "--server"
            | "--as"
            | "--as-group"
            | "--token"
            | "--request-timeout"
            | "-l"
            | "--selector"
            | "--field-selector"
            | "-o"
            | "--output"
            | "-c"
            | "--container"
            | "-f"
            | "--filename"
            | "-p"
            | "--patch"
            | "--type"
            | "--sort-by"
            | "--template"
            | "-L"
            | "--label-columns"
            | "--since"
            | "--since-time"
            | "--tail"
            | "--replicas"
            | "--current-replicas"
            | "--timeout"
            | "--for"
            | "--grace-period"
            | "--image"
            | "--port"
            | "--overrides"
            | "--field-manager"
            | "-k"
            | "--kustomize"
            | "--subresource"
            | "--raw"
            | "--chunk-size"
            | "--env"
            | "-e"
            | "--limits"
            | "--requests"
            | "--min"
            | "--max"
            | "--cpu-percent"
            | "--resource-version"
            | "--to-revision"
            | "--from-literal"
            | "--from-file"
            | "--from-env-file"
            | "--address"
            | "--profile"
            | "--target"
            | "--copy-to"
            | "--restart"
            | "--schedule"
            | "-v"
            | "--v"
            | "--patch-file"
            | "--pod-running-timeout"
            | "--max-log-requests"
            | "--limit-bytes"
            | "--api-group"
    )
}

/// Whether `kubectl … --dry-run[=client|server]` only previews.
fn dry_run(a: &Args<'_>) -> bool {
    a.flags
        .iter()
        .any(|(f, v)| f == "--dry-run" && !matches!(*v, Some("none") | Some("false")))
}

fn mutating_reason(verb: &str) -> Option<&'static str> {
    Some(match verb {
        "scale" => "changes the replica count",
        "patch" => "changes the object in place",
        "delete" => "deletes objects",
        "drain" => "evicts every pod from the node",
        "cordon" => "marks the node unschedulable",
        "uncordon" => "lets pods be scheduled on the node again",
        "annotate" => "changes the object's annotations",
        "label" => "changes the object's labels",
        "apply" => "creates or changes objects from the given manifests",
        "create" => "creates objects",
        "replace" => "replaces the object",
        "run" => "starts a new pod",
        "set" => "changes the object's spec (image, env, resources …)",
        "taint" => "changes the node's taints",
        "expose" => "creates a service",
        "autoscale" => "creates an autoscaler",
        "certificate" => "approves or denies a certificate signing request",
        "cp" | "rsync" => "copies files to or from a pod",
        "new-project" | "new-app" | "new-build" => "creates objects",
        "start-build" | "cancel-build" | "import-image" | "tag" => "changes builds or images",
        "policy" => "changes access policy",
        "rollback" => "rolls the workload back",
        "logout" => "ends your session and changes your kubeconfig",
        _ => return None,
    })
}

/// `kubectl ARGS` or `oc ARGS`.
pub(super) fn kubectl(cli: &str, args: &[String]) -> Class {
    let global = split(args, &kube_value_flag);
    let verb = global.pos.first().copied().unwrap_or("");
    let a = if matches!(verb, "logs" | "log") {
        split(args, &|f| kube_value_flag(f) && f != "-f" && f != "-p")
    } else {
        global
    };
    let sub = a.pos.get(1).copied().unwrap_or("");
    let cmd = format!("`{cli} {verb}`");
    let cmd2 = format!("`{cli} {verb} {sub}`");
    let watch = a.has(&["-w", "--watch", "--watch-only"]);
    match verb {
        "" => read_only(format!("`{cli}` without a subcommand only prints help")),
        "logs" | "log" if a.has(&["-f", "--follow"]) => {
            long_running(format!("{cmd} -f follows the log until it is stopped"))
        }
        "get" | "describe" | "logs" | "log" | "top" | "explain" | "api-resources"
        | "api-versions" | "version" | "cluster-info" | "events" | "diff" | "kustomize"
        | "completion" | "whoami" | "status" | "projects" | "process" => {
            if watch {
                long_running(format!("{cmd} --watch keeps watching until it is stopped"))
            } else {
                read_only(format!("{cmd} only reads"))
            }
        }
        "auth" => match sub {
            "can-i" | "whoami" => read_only(format!("{cmd2} only reads")),
            "reconcile" => mutating(format!("{cmd2} changes RBAC objects")),
            _ => unknown(format!("{cmd2} is not a subcommand tsgnav knows")),
        },
        "config" => match sub {
            "view" | "get-contexts" | "current-context" | "get-clusters" | "get-users" => {
                read_only(format!("{cmd2} only reads your kubeconfig"))
            }
            _ => mutating(format!("{cmd2} changes your kubeconfig")),
        },
        "rollout" => rollout(&cmd2, sub, dry_run(&a)),
        "exec" => exec(&cmd, args, &a),
        "attach" | "debug" | "rsh" => interactive(format!("{cmd} opens an interactive session")),
        "port-forward" | "proxy" => {
            long_running(format!("{cmd} keeps a tunnel open until it is stopped"))
        }
        "wait" => long_running(format!(
            "{cmd} blocks until the condition holds or it times out"
        )),
        "edit" => mutating(format!(
            "{cmd} opens an editor and saves your changes to the object"
        )),
        "project" if a.pos.len() > 1 => mutating(format!(
            "{cmd} switches the current project in your kubeconfig"
        )),
        "project" => read_only(format!("{cmd} only prints the current project")),
        "login" => interactive(format!(
            "{cmd} may prompt for credentials and changes your kubeconfig"
        )),
        // `oc adm upgrade` alone only prints the cluster version and the available updates.
        "adm"
            if sub == "upgrade"
                && a.pos.len() == 2
                && !a.flags.iter().any(|(f, _)| {
                    f.starts_with("--to") || f.starts_with("--clear") || f.starts_with("--force")
                }) =>
        {
            read_only(format!(
                "{cmd2} with no arguments only shows the version and available updates"
            ))
        }
        "adm" => adm(&cmd2, sub, dry_run(&a)),
        _ => match mutating_reason(verb) {
            Some(_) if dry_run(&a) => {
                read_only(format!("{cmd} --dry-run only previews the change"))
            }
            Some(why) => mutating(format!("{cmd} {why}")),
            None => unknown(format!(
                "{cmd} is not a subcommand tsgnav knows (a plugin?), so it may change something"
            )),
        },
    }
}

fn rollout(cmd: &str, sub: &str, dry: bool) -> Class {
    let why = match sub {
        "status" | "history" => return read_only(format!("{cmd} only reads")),
        "restart" => "restarts every pod of the workload",
        "undo" => "rolls the workload back to an earlier revision",
        "pause" => "pauses the rollout",
        "resume" => "resumes the rollout",
        "latest" | "retry" | "cancel" => "changes the rollout",
        _ => return unknown(format!("{cmd} is not a subcommand tsgnav knows")),
    };
    if dry {
        return read_only(format!("{cmd} --dry-run only previews the change"));
    }
    mutating(format!("{cmd} {why}"))
}

fn exec(cmd: &str, args: &[String], a: &Args<'_>) -> Class {
    if a.after_dashes.is_none_or(|i| i >= args.len()) {
        return unknown(format!(
            "{cmd} without `--` before the command, so the command run in the pod cannot be checked"
        ));
    }
    if a.has(&["-i", "-t", "--stdin", "--tty"]) {
        return interactive(format!("{cmd} -ti opens an interactive session in the pod"));
    }
    read_only(format!(
        "{cmd} runs a command in the pod; that command is checked on its own"
    ))
}

fn adm(cmd: &str, sub: &str, dry: bool) -> Class {
    match sub {
        "top" | "inspect" | "node-logs" | "who-can" => read_only(format!("{cmd} only reads")),
        "must-gather" => mutating(format!(
            "{cmd} creates a temporary namespace and pod on the cluster"
        )),
        "drain" | "cordon" | "uncordon" | "taint" | "certificate" | "policy" | "groups"
        | "prune" | "upgrade" | "new-project" => {
            if dry {
                return read_only(format!("{cmd} --dry-run only previews the change"));
            }
            mutating(format!("{cmd} changes the cluster"))
        }
        _ => unknown(format!("{cmd} is not a subcommand tsgnav knows")),
    }
}

/// `helm ARGS`.
pub(super) fn helm(args: &[String]) -> Class {
    let a = split(args, &|f| {
        matches!(
            f,
            "-n" | "--namespace"
                | "--kube-context"
                | "--kubeconfig"
                | "-f"
                | "--values"
                | "--set"
                | "--version"
                | "-o"
                | "--output"
                | "--revision"
                | "--timeout"
                | "--repo"
        )
    });
    let verb = a.pos.first().copied().unwrap_or("");
    let sub = a.pos.get(1).copied().unwrap_or("");
    let cmd = format!("`helm {verb}`");
    match verb {
        "" | "list" | "ls" | "status" | "get" | "history" | "hist" | "show" | "inspect"
        | "template" | "search" | "version" | "env" | "lint" | "diff" | "verify" => {
            read_only(format!("{cmd} only reads"))
        }
        "repo" | "plugin" | "dependency" | "dep" if matches!(sub, "list" | "ls") => {
            read_only(format!("`helm {verb} {sub}` only reads"))
        }
        _ if a.has(&["--dry-run"]) => {
            read_only(format!("{cmd} --dry-run only previews the change"))
        }
        "install" | "upgrade" | "uninstall" | "delete" | "del" | "rollback" | "test" | "repo"
        | "plugin" | "dependency" | "dep" | "pull" | "fetch" | "push" | "package" => {
            mutating(format!("{cmd} changes releases, charts or helm settings"))
        }
        _ => unknown(format!("{cmd} is not a subcommand tsgnav knows")),
    }
}
