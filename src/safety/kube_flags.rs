//! Flag tables for `kubectl`/`oc`/`helm`: which flags take a value, which global flags are
//! known at all (an unknown one might swallow the next word, so the verb read after it cannot
//! be trusted), and `--dry-run` read the way kubectl reads it.
//!
//! Pure; imports only `crate::tsg`.

use super::args::Args;

/// Flags of kubectl/oc that take a value (for any subcommand; `logs` is special-cased).
pub(super) fn kube_value_flag(flag: &str) -> bool {
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
            | "--as-uid"
            | "--token"
            | "--username"
            | "--password"
            | "--cache-dir"
            | "--certificate-authority"
            | "--client-certificate"
            | "--client-key"
            | "--tls-server-name"
            | "--profile-output"
            | "--log-flush-frequency"
            | "--vmodule"
            | "--log-file"
            | "--log-dir"
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
            | "--output-directory"
    )
}

/// Global kubectl/oc flags that take no value.
fn kube_bool_global(flag: &str) -> bool {
    matches!(
        flag,
        "--insecure-skip-tls-verify"
            | "--match-server-version"
            | "--warnings-as-errors"
            | "--disable-compression"
            | "--add-dir-header"
            | "--alsologtostderr"
            | "--logtostderr"
            | "--skip-headers"
            | "--skip-log-headers"
            | "--one-output"
            | "-h"
            | "--help"
    )
}

/// Helm flags that take a value.
pub(super) fn helm_value_flag(flag: &str) -> bool {
    matches!(
        flag,
        "-n" | "--namespace"
            | "--kube-context"
            | "--kubeconfig"
            | "--kube-apiserver"
            | "--kube-as-user"
            | "--kube-as-group"
            | "--kube-ca-file"
            | "--kube-token"
            | "--kube-tls-server-name"
            | "--burst-limit"
            | "--qps"
            | "--registry-config"
            | "--repository-cache"
            | "--repository-config"
            | "--content-cache"
            | "-f"
            | "--values"
            | "--set"
            | "--set-string"
            | "--set-file"
            | "--set-json"
            | "--version"
            | "-o"
            | "--output"
            | "--revision"
            | "--timeout"
            | "--repo"
            | "--post-renderer"
            | "--post-renderer-args"
            | "-l"
            | "--selector"
            | "--max"
            | "--filter"
            | "--template"
    )
}

/// Global helm flags that take no value.
fn helm_bool_global(flag: &str) -> bool {
    matches!(
        flag,
        "--debug" | "--kube-insecure-skip-tls-verify" | "-h" | "--help" | "-A" | "--all-namespaces"
    )
}

/// The first flag written before the word at `upto` (an index into `args`) that tsgnav does
/// not know and that carries no inline `=value`: it may take the next word as its value, so
/// the command's verb might not be the word tsgnav reads as the verb.
pub(super) fn unknown_flag_before<'a>(
    args: &'a [String],
    upto: usize,
    value: &dyn Fn(&str) -> bool,
    boolean: &dyn Fn(&str) -> bool,
) -> Option<&'a str> {
    let mut i = 0;
    while i < upto.min(args.len()) {
        let a = args[i].as_str();
        i += 1;
        if a == "--" {
            return None;
        }
        if !a.starts_with('-') || a.len() < 2 || a.contains('=') {
            continue;
        }
        if value(a) {
            i += 1;
            continue;
        }
        // A short cluster such as `-nfoo` (value inline) or `-A` passes when its first
        // letter is known.
        let head = if a.starts_with("--") { a } else { &a[..2] };
        if value(head) || boolean(head) {
            continue;
        }
        return Some(a);
    }
    None
}

/// Index in `args` of the `n`-th positional word (0-based) as `split` reads it, if any.
pub(super) fn positional_index(
    args: &[String],
    n: usize,
    value: &dyn Fn(&str) -> bool,
) -> Option<usize> {
    let mut seen = 0;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            return None;
        }
        if a.starts_with('-') && a.len() > 1 {
            let takes = !a.contains('=') && (value(a) || (!a.starts_with("--") && value(&a[..2])));
            let inline = !a.starts_with("--") && a.len() > 2 && value(&a[..2]);
            i += if takes && !inline { 2 } else { 1 };
            continue;
        }
        if seen == n {
            return Some(i);
        }
        seen += 1;
        i += 1;
    }
    None
}

/// An unknown flag before the `n`-th positional of a kubectl/oc command.
pub(super) fn kube_unknown_flag(args: &[String], n: usize) -> Option<&str> {
    let upto = positional_index(args, n, &kube_value_flag).unwrap_or(args.len());
    unknown_flag_before(args, upto, &kube_value_flag, &|f| {
        kube_bool_global(f) || kube_value_flag(f)
    })
}

/// An unknown flag before helm's verb.
pub(super) fn helm_unknown_flag(args: &[String]) -> Option<&str> {
    let upto = positional_index(args, 0, &helm_value_flag).unwrap_or(args.len());
    unknown_flag_before(args, upto, &helm_value_flag, &helm_bool_global)
}

/// What `--dry-run` means, read as kubectl reads it: the last one written wins; no value
/// means `client`; `client`/`server` preview; `none` and false booleans (`false`, `0`, `f`,
/// `F`, `FALSE`, `False`) run for real; true booleans mean `client`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DryRun {
    /// No `--dry-run`, or one that runs for real.
    Off,
    Preview,
    /// A value kubectl rejects (it then runs nothing, but tsgnav does not rely on that).
    Invalid,
}

pub(super) fn dry_run(a: &Args<'_>) -> DryRun {
    let last = a.flags.iter().rev().find(|(f, _)| f == "--dry-run");
    match last.map(|(_, v)| *v) {
        None => DryRun::Off,
        Some(None) => DryRun::Preview,
        Some(Some(v)) => match v {
            "client" | "server" | "1" | "t" | "T" | "true" | "TRUE" | "True" => DryRun::Preview,
            "none" | "0" | "f" | "F" | "false" | "FALSE" | "False" => DryRun::Off,
            _ => DryRun::Invalid,
        },
    }
}
