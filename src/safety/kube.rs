//! Rules for `kubectl`, `oc` and `helm`.
//!
//! Pure; imports only `crate::tsg`.

use super::args::{interactive, long_running, mutating, read_only, unknown, Class};
use super::kube_flags::{dry_run, parse, DryRun};
use crate::tsg::invocation::{Invocation, Role};

/// Whether `--dry-run` makes a change only a preview (`Some(true)`), runs it for real
/// (`Some(false)`), or holds a value kubectl does not accept (`None`).
fn previews(a: &Invocation) -> Option<bool> {
    match dry_run(a) {
        DryRun::Preview => Some(true),
        DryRun::Off => Some(false),
        DryRun::Invalid => None,
    }
}

/// The class of a change that `--dry-run` may turn into a preview.
fn change(cmd: &str, why: &str, a: &Invocation) -> Class {
    match previews(a) {
        Some(true) => read_only(format!("{cmd} --dry-run only previews the change")),
        Some(false) => mutating(format!("{cmd} {why}")),
        None => unknown(format!(
            "{cmd} has a `--dry-run` value kubectl does not accept (use client, server or none)"
        )),
    }
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
    let Some(a) = parse(cli, args) else {
        return unknown(format!("`{cli}` could not be read"));
    };
    let verb = a.verb().to_string();
    let verb = verb.as_str();
    let sub = a.positionals.get(1).map(String::as_str).unwrap_or("");
    let cmd = format!("`{cli} {verb}`");
    let cmd2 = format!("`{cli} {verb} {sub}`");
    let watch = a.has(Role::Watch);
    if let Some(flag) = &a.unknown_before_verb {
        return unknown(format!(
            "`{cli}` is given `{flag}`, a flag tsgnav does not know: if it takes a value, the \
             word after it is not the subcommand, so tsgnav cannot tell what runs \
             (write `{flag}=VALUE`)"
        ));
    }
    match verb {
        "" => read_only(format!("`{cli}` without a subcommand only prints help")),
        "logs" | "log" if a.has(Role::Follow) => {
            long_running(format!("{cmd} -f follows the log until it is stopped"))
        }
        "cluster-info" if sub == "dump" => {
            if a.value(Role::OutputDirectory).is_some_and(|d| d != "-") {
                mutating(format!(
                    "{cmd2} writes every namespace's logs into a folder"
                ))
            } else {
                unknown(format!(
                    "{cmd2} collects the logs of every pod in the cluster; tsgnav does not run it unconfirmed"
                ))
            }
        }
        "kustomize" if a.has(Role::RunsPlugins) => unknown(format!(
            "{cmd} with plugins enabled runs programs tsgnav cannot check"
        )),
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
        "rollout" => rollout(&cmd2, sub, &a),
        "exec" => exec(&cmd, &a),
        "debug" if a.tail.as_ref().is_some_and(|t| !t.is_empty()) => mutating(format!(
            "{cmd} creates a debug pod to run its command (on a node: with the host mounted)"
        )),
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
        "project" if a.positionals.len() > 1 => mutating(format!(
            "{cmd} switches the current project in your kubeconfig"
        )),
        "project" => read_only(format!("{cmd} only prints the current project")),
        "login" => interactive(format!(
            "{cmd} may prompt for credentials and changes your kubeconfig"
        )),
        // `oc adm upgrade` alone only prints the cluster version and the available updates.
        "adm"
            if sub == "upgrade"
                && a.positionals.len() == 2
                && a.flags
                    .iter()
                    .all(|f| !matches!(f.role, None | Some(Role::Upgrade | Role::Force))) =>
        {
            read_only(format!(
                "{cmd2} with no arguments only shows the version and available updates"
            ))
        }
        "adm" => adm(&cmd2, sub, &a),
        _ => match mutating_reason(verb) {
            Some(why) => change(&cmd, why, &a),
            None => unknown(format!(
                "{cmd} is not a subcommand tsgnav knows (a plugin?), so it may change something"
            )),
        },
    }
}

fn rollout(cmd: &str, sub: &str, a: &Invocation) -> Class {
    let why = match sub {
        "status" | "history" => return read_only(format!("{cmd} only reads")),
        "restart" => "restarts every pod of the workload",
        "undo" => "rolls the workload back to an earlier revision",
        "pause" => "pauses the rollout",
        "resume" => "resumes the rollout",
        "latest" | "retry" | "cancel" => "changes the rollout",
        _ => return unknown(format!("{cmd} is not a subcommand tsgnav knows")),
    };
    change(cmd, why, a)
}

fn exec(cmd: &str, a: &Invocation) -> Class {
    if a.tail.as_ref().is_none_or(|t| t.is_empty()) {
        return unknown(format!(
            "{cmd} without `--` before the command, so the command run in the pod cannot be checked"
        ));
    }
    if a.has(Role::Stdin) || a.has(Role::Tty) {
        return interactive(format!("{cmd} -ti opens an interactive session in the pod"));
    }
    read_only(format!(
        "{cmd} runs a command in the pod; that command is checked on its own"
    ))
}

fn adm(cmd: &str, sub: &str, a: &Invocation) -> Class {
    match sub {
        "top" | "inspect" | "node-logs" | "who-can" => read_only(format!("{cmd} only reads")),
        "must-gather" => mutating(format!(
            "{cmd} creates a temporary namespace and pod on the cluster"
        )),
        "drain" | "cordon" | "uncordon" | "taint" | "certificate" | "policy" | "groups"
        | "prune" | "upgrade" | "new-project" => change(cmd, "changes the cluster", a),
        _ => unknown(format!("{cmd} is not a subcommand tsgnav knows")),
    }
}

/// `helm ARGS`.
pub(super) fn helm(args: &[String]) -> Class {
    let Some(a) = parse("helm", args) else {
        return unknown("`helm` could not be read");
    };
    if let Some(flag) = &a.unknown_before_verb {
        return unknown(format!(
            "`helm` is given `{flag}`, a flag tsgnav does not know: if it takes a value, the \
             word after it is not the subcommand (write `{flag}=VALUE`)"
        ));
    }
    let verb = a.verb();
    let sub = a.positionals.get(1).map(String::as_str).unwrap_or("");
    let cmd = format!("`helm {verb}`");
    if a.value(Role::RunsPlugins).is_some() {
        return unknown(format!(
            "{cmd} --post-renderer runs a program on the manifests, which tsgnav cannot check"
        ));
    }
    match verb {
        "" | "list" | "ls" | "status" | "get" | "history" | "hist" | "show" | "inspect"
        | "template" | "search" | "version" | "env" | "lint" | "diff" | "verify" => {
            read_only(format!("{cmd} only reads"))
        }
        "repo" | "plugin" | "dependency" | "dep" if matches!(sub, "list" | "ls") => {
            read_only(format!("`helm {verb} {sub}` only reads"))
        }
        "install" | "upgrade" | "uninstall" | "delete" | "del" | "rollback" | "test" | "repo"
        | "plugin" | "dependency" | "dep" | "pull" | "fetch" | "push" | "package" => {
            change(&cmd, "changes releases, charts or helm settings", &a)
        }
        _ => unknown(format!("{cmd} is not a subcommand tsgnav knows")),
    }
}
