//! The flag tables: one per tool (kubectl/oc, helm, az, curl), the only place tsgnav writes a
//! flag of these tools by name. Each row says whether the flag takes a value and what it
//! means for the target of the command (namespace, context, kubeconfig, server …).
//!
//! Pure; imports nothing of the crate. Other modules name a flag through [`Role`] or the
//! constants below, never by a string literal (the dependency test checks that).

/// What a flag says about where or on what a command acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Namespace,
    AllNamespaces,
    Context,
    Kubeconfig,
    Server,
    /// `-f FILE`: objects read from a file (unknown to tsgnav).
    Filename,
    Selector,
    FieldSelector,
    Output,
    Container,
    /// A flag that chooses the identity or the cluster entry (`--token`, `--as`, `--user`).
    Identity,
    /// `--replicas` of `kubectl scale`.
    Replicas,
    /// `--all` (every object of the type).
    All,
    DryRun,
    Watch,
    Follow,
    Tty,
    Stdin,
    /// `--output-directory` of `cluster-info dump`.
    OutputDirectory,
    /// Flags that let a tool run programs tsgnav cannot check (`kustomize --enable-exec`,
    /// `helm --post-renderer`).
    RunsPlugins,
    /// `oc adm upgrade --to…`, `--clear`, `--force`: a change, not a look.
    Upgrade,
    /// `--force`.
    Force,
    /// `-L` of `kubectl get`.
    LabelColumns,
    /// `--sort-by` of `kubectl get`.
    SortBy,
    /// `--no-headers`.
    NoHeaders,
    /// `--address` of `port-forward`.
    Address,
    /// `--pod-running-timeout`.
    PodRunningTimeout,
    /// Anything else.
    Other,
}

/// One row of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub name: &'static str,
    pub value: bool,
    pub role: Role,
}

const fn v(name: &'static str, role: Role) -> Spec {
    Spec {
        name,
        value: true,
        role,
    }
}
const fn b(name: &'static str, role: Role) -> Spec {
    Spec {
        name,
        value: false,
        role,
    }
}

use Role::*;

/// kubectl and oc (every subcommand; `logs`'s `-f`/`-p` are in [`KUBE_LOGS`]).
pub const KUBE: &[Spec] = &[
    v("-n", Namespace),
    v("--namespace", Namespace),
    b("-A", AllNamespaces),
    b("--all-namespaces", AllNamespaces),
    v("--context", Context),
    v("--kubeconfig", Kubeconfig),
    v("-s", Server),
    v("--server", Server),
    v("--cluster", Identity),
    v("--user", Identity),
    v("--as", Identity),
    v("--as-group", Identity),
    v("--as-uid", Identity),
    v("--token", Identity),
    v("--username", Identity),
    v("--password", Identity),
    v("--cache-dir", Other),
    v("--certificate-authority", Other),
    v("--client-certificate", Identity),
    v("--client-key", Identity),
    v("--tls-server-name", Other),
    v("--profile-output", Other),
    v("--log-flush-frequency", Other),
    v("--vmodule", Other),
    v("--log-file", Other),
    v("--log-dir", Other),
    v("--request-timeout", Other),
    v("-l", Selector),
    v("--selector", Selector),
    v("--field-selector", FieldSelector),
    v("-o", Output),
    v("--output", Output),
    v("-c", Container),
    v("--container", Container),
    v("-f", Filename),
    v("--filename", Filename),
    v("-p", Other),
    v("--patch", Other),
    v("--type", Other),
    v("--sort-by", SortBy),
    v("--template", Other),
    v("-L", LabelColumns),
    v("--label-columns", LabelColumns),
    v("--since", Other),
    v("--since-time", Other),
    v("--tail", Other),
    v("--replicas", Replicas),
    v("--current-replicas", Other),
    v("--timeout", Other),
    v("--for", Other),
    v("--grace-period", Other),
    v("--image", Other),
    v("--port", Other),
    v("--overrides", Other),
    v("--field-manager", Other),
    v("-k", Filename),
    v("--kustomize", Filename),
    v("--subresource", Other),
    v("--raw", Other),
    v("--chunk-size", Other),
    v("--env", Other),
    v("-e", Other),
    v("--limits", Other),
    v("--requests", Other),
    v("--min", Other),
    v("--max", Other),
    v("--cpu-percent", Other),
    v("--resource-version", Other),
    v("--to-revision", Other),
    v("--from-literal", Other),
    v("--from-file", Other),
    v("--from-env-file", Other),
    v("--address", Address),
    v("--profile", Other),
    v("--target", Other),
    v("--copy-to", Other),
    v("--restart", Other),
    v("--schedule", Other),
    v("-v", Other),
    v("--v", Other),
    v("--patch-file", Other),
    v("--pod-running-timeout", PodRunningTimeout),
    v("--max-log-requests", Other),
    v("--limit-bytes", Other),
    v("--api-group", Other),
    v("--output-directory", OutputDirectory),
    // `oc debug` and `oc rsh`.
    v("--shell", Other),
    v("--to-namespace", Other),
    b("--all", All),
    b("--dry-run", DryRun),
    b("-w", Watch),
    b("--watch", Watch),
    b("--watch-only", Watch),
    b("-i", Stdin),
    b("--stdin", Stdin),
    b("-t", Tty),
    b("--tty", Tty),
    b("--no-headers", NoHeaders),
    b("--enable-alpha-plugins", RunsPlugins),
    b("--enable-exec", RunsPlugins),
    b("--enable-helm", RunsPlugins),
    v("--to", Upgrade),
    v("--to-image", Upgrade),
    b("--to-latest", Upgrade),
    b("--to-multi-arch", Upgrade),
    b("--clear", Upgrade),
    b("--force", Force),
    b("--allow-explicit-upgrade", Other),
    b("--allow-upgrade-with-warnings", Other),
    b("--insecure-skip-tls-verify", Other),
    b("--match-server-version", Other),
    b("--warnings-as-errors", Other),
    b("--disable-compression", Other),
    b("--add-dir-header", Other),
    b("--alsologtostderr", Other),
    b("--logtostderr", Other),
    b("--skip-headers", Other),
    b("--skip-log-headers", Other),
    b("--one-output", Other),
    b("-h", Other),
    b("--help", Other),
];

/// `kubectl logs`: `-f` follows and `-p` reads the previous container; both take no value.
pub const KUBE_LOGS: &[Spec] = &[
    b("-f", Follow),
    b("--follow", Follow),
    b("-p", Other),
    b("--previous", Other),
];

/// helm.
pub const HELM: &[Spec] = &[
    v("-n", Namespace),
    v("--namespace", Namespace),
    v("--kube-context", Context),
    v("--kubeconfig", Kubeconfig),
    v("--kube-apiserver", Server),
    v("--kube-as-user", Identity),
    v("--kube-as-group", Identity),
    v("--kube-ca-file", Identity),
    v("--kube-token", Identity),
    v("--kube-tls-server-name", Other),
    v("--burst-limit", Other),
    v("--qps", Other),
    v("--registry-config", Other),
    v("--repository-cache", Other),
    v("--repository-config", Other),
    v("--content-cache", Other),
    v("-f", Filename),
    v("--values", Filename),
    v("--set", Other),
    v("--set-string", Other),
    v("--set-file", Other),
    v("--set-json", Other),
    v("--version", Other),
    v("-o", Output),
    v("--output", Output),
    v("--revision", Other),
    v("--timeout", Other),
    v("--repo", Other),
    v("--post-renderer", RunsPlugins),
    v("--post-renderer-args", Other),
    v("-l", Selector),
    v("--selector", Selector),
    v("--max", Other),
    v("--filter", Other),
    v("--template", Other),
    b("--dry-run", DryRun),
    b("--debug", Other),
    b("--kube-insecure-skip-tls-verify", Other),
    b("-h", Other),
    b("--help", Other),
    b("-A", AllNamespaces),
    b("--all-namespaces", AllNamespaces),
];

/// az: the flags that take no value. Every other `--flag` of az takes one (az has no
/// positional arguments after its command groups).
pub const AZ: &[Spec] = &[
    v("--subscription", Context),
    v("-g", Namespace),
    v("--resource-group", Namespace),
    v("-n", Other),
    v("--name", Other),
    v("-o", Output),
    v("--output", Output),
    v("--query", Other),
    v("-m", Other),
    v("--method", Other),
    v("-u", Other),
    v("--url", Other),
    v("--uri", Other),
    v("-b", Other),
    v("--body", Other),
    v("--headers", Other),
    v("--resource", Other),
    b("--yes", Other),
    b("-y", Other),
    b("--no-wait", Other),
    b("--debug", Other),
    b("--verbose", Other),
    b("--only-show-errors", Other),
    b("--all", All),
    b("-h", Other),
    b("--help", Other),
];

/// curl: the flags that take a value.
pub const CURL: &[Spec] = &[
    v("-H", Other),
    v("--header", Other),
    v("-o", Output),
    v("--output", Output),
    v("-u", Other),
    v("--user", Identity),
    v("-X", Other),
    v("--request", Other),
    v("-d", Other),
    v("--data", Other),
    v("--data-raw", Other),
    v("--data-binary", Other),
    v("--data-urlencode", Other),
    v("--data-ascii", Other),
    v("-F", Other),
    v("--form", Other),
    v("--form-string", Other),
    v("-T", Other),
    v("--upload-file", Other),
    v("--json", Other),
    v("-A", Other),
    v("--user-agent", Other),
    v("-e", Other),
    v("--referer", Other),
    v("-b", Other),
    v("--cookie", Other),
    v("-c", Other),
    v("--cookie-jar", Other),
    v("-m", Other),
    v("--max-time", Other),
    v("--connect-timeout", Other),
    v("--cacert", Other),
    v("-E", Other),
    v("--cert", Other),
    v("--key", Other),
    v("-x", Other),
    v("--proxy", Other),
    v("-w", Other),
    v("--write-out", Other),
    v("--resolve", Other),
    v("--retry", Other),
    v("-K", Other),
    v("--config", Other),
    b("-s", Other),
    b("--silent", Other),
    b("-S", Other),
    b("--show-error", Other),
    b("-f", Other),
    b("--fail", Other),
    b("-L", Other),
    b("--location", Other),
    b("-k", Other),
    b("--insecure", Other),
    b("-G", Other),
    b("--get", Other),
    b("-I", Other),
    b("--head", Other),
    b("-v", Other),
    b("--verbose", Other),
    b("-i", Other),
    b("--include", Other),
];

/// The row for `flag` in `table`, if the table has one.
pub fn find(table: &'static [Spec], flag: &str) -> Option<&'static Spec> {
    table.iter().find(|s| s.name == flag)
}

/// The rows of `table` with `role`.
pub fn names(table: &'static [Spec], role: Role) -> impl Iterator<Item = &'static str> {
    table.iter().filter(move |s| s.role == role).map(|s| s.name)
}

/// The short form `-n` and the long form `--namespace` of kubectl's namespace flag, for
/// code that builds kubectl command lines.
pub const KUBE_NS: &str = "-n";
/// kubectl's `--context`.
pub const KUBE_CONTEXT: &str = "--context";
/// kubectl's `-o`.
pub const KUBE_OUTPUT: &str = "-o";
/// kubectl's `-c` (container).
pub const KUBE_CONTAINER: &str = "-c";
/// kubectl's `--kubeconfig`.
pub const KUBE_KUBECONFIG: &str = "--kubeconfig";
/// helm's `--kube-context`.
pub const HELM_CONTEXT: &str = "--kube-context";
/// kubectl's `--server`.
pub const KUBE_SERVER: &str = "--server";
/// kubectl's `-A`.
pub const KUBE_ALL_NAMESPACES: &str = "-A";
/// kubectl's `--all-namespaces` (the long form of [`KUBE_ALL_NAMESPACES`]).
pub const KUBE_ALL_NAMESPACES_LONG: &str = "--all-namespaces";
/// kubectl's `--namespace` (the long form of [`KUBE_NS`]).
pub const KUBE_NS_LONG: &str = "--namespace";
/// kubectl's `-l`.
pub const KUBE_SELECTOR: &str = "-l";

/// az's `--name` and `-n` (the resource's name).
pub const AZ_NAME: &str = "--name";
pub const AZ_NAME_SHORT: &str = "-n";
/// `az aks command invoke --command "…"`: the command run inside the cluster.
pub const AZ_COMMAND: &str = "--command";
/// `az vmss run-command invoke --scripts "…"`: the script run on the machine.
pub const AZ_SCRIPTS: &str = "--scripts";
