//! The environment a jailed probe starts with: what tsgnav sets for it (the guide's variables,
//! `KUBECONFIG`, the proxies, `HOME`, `TMPDIR`) plus a short list of tsgnav's own variables
//! that describe the terminal and the locale, and the names `[sandbox] pass_env` adds. Every
//! other variable of the operator's shell (tokens, client secrets, `AWS_*`, `GITHUB_TOKEN`,
//! `SSH_AUTH_SOCK`) stays outside: a probe is untrusted code.
//!
//! IO edge (reads the process environment). Must not import `cli`, `tui`, `nav` or `evidence`.

use std::ffi::{OsStr, OsString};

/// Passed by default: what a shell needs to find commands and print text as the operator's
/// terminal expects.
const PASSED: [&str; 10] = [
    "PATH",
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "USER",
    "LOGNAME",
    "SHELL",
];

/// Whether the operator's variable `name` reaches a jailed probe: the default list, any
/// `LC_*` locale variable, or a name of `[sandbox] pass_env` (a trailing `*` matches a prefix).
pub fn passes(name: &OsStr, extra: &[String]) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    PASSED.contains(&name)
        || name.starts_with("LC_")
        || extra.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => p == name,
        })
}

/// Clears what `cmd` would inherit, keeping the variables set on it and those [`passes`] lets
/// through from tsgnav's environment.
pub fn scrub(cmd: &mut tokio::process::Command, extra: &[String]) {
    let set: Vec<(OsString, Option<OsString>)> = cmd
        .as_std()
        .get_envs()
        .map(|(k, v)| (k.to_os_string(), v.map(OsStr::to_os_string)))
        .collect();
    cmd.env_clear();
    for (k, v) in std::env::vars_os().filter(|(k, _)| passes(k, extra)) {
        cmd.env(k, v);
    }
    for (k, v) in set {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_and_the_terminal_and_the_locale_pass() {
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "GITHUB_TOKEN",
            "SSH_AUTH_SOCK",
            "AZURE_CLIENT_SECRET",
            "LCX",
        ] {
            assert!(!passes(OsStr::new(name), &[]), "{name}");
        }
        for name in ["PATH", "LANG", "LC_ALL", "LC_TIME", "TERM", "TZ"] {
            assert!(passes(OsStr::new(name), &[]), "{name}");
        }
    }

    #[test]
    fn pass_env_adds_names_and_prefixes() {
        let extra = ["ARM_SUBSCRIPTION_ID".to_string(), "TSG_*".to_string()];
        assert!(passes(OsStr::new("ARM_SUBSCRIPTION_ID"), &extra));
        assert!(passes(OsStr::new("TSG_REGION"), &extra));
        assert!(!passes(OsStr::new("ARM_CLIENT_SECRET"), &extra));
        assert!(!passes(OsStr::new("TS_REGION"), &extra));
    }

    #[test]
    fn what_tsgnav_sets_survives_the_scrub() {
        let mut cmd = tokio::process::Command::new("true");
        cmd.env("KUBECONFIG", "/grant")
            .env("DB_NAME", "orders")
            .env_remove("PATH");
        scrub(&mut cmd, &[]);
        let envs: Vec<_> = cmd.as_std().get_envs().collect();
        assert!(envs.contains(&(OsStr::new("KUBECONFIG"), Some(OsStr::new("/grant")))));
        assert!(envs.contains(&(OsStr::new("DB_NAME"), Some(OsStr::new("orders")))));
        assert!(
            !envs.iter().any(|(k, v)| *k == "PATH" && v.is_some()),
            "a removal stays a removal: {envs:?}"
        );
    }
}
