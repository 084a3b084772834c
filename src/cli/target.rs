//! The session's target as the command line names it (`--context`, `-n/--namespace`,
//! `--kubeconfig`), checked before anything starts: a kubeconfig that does not exist or does
//! not read, a context it does not have, a namespace that is no namespace name. Shared by the
//! navigator and `tsgnav run`. Part of the CLI edge (`anyhow`); it reads kubeconfigs through
//! `query::kube` and writes nothing.

use std::path::{Path, PathBuf};

use anyhow::bail;

/// The target flags as given.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags<'a> {
    pub context: Option<&'a str>,
    pub namespace: Option<&'a str>,
    pub kubeconfig: Option<&'a Path>,
}

impl Flags<'_> {
    /// Refuses a bad value with the flag, the value and the fix.
    pub fn check(&self) -> anyhow::Result<()> {
        if let Some(ns) = self.namespace {
            check_namespace(ns)?;
        }
        if let Some(path) = self.kubeconfig {
            check_kubeconfig(path)?;
        }
        if let Some(ctx) = self.context {
            crate::query::kube::fanout::check_context(self.kubeconfig.map(Path::to_path_buf), ctx)
                .map_err(|e| anyhow::anyhow!(e))?;
        }
        Ok(())
    }
}

/// A namespace name as Kubernetes takes it (RFC 1123 label): lower-case letters, digits and
/// `-`, at most 63, starting and ending with a letter or digit.
pub fn check_namespace(ns: &str) -> anyhow::Result<()> {
    check_namespace_as(ns, crate::tsg::invocation::table::KUBE_NS_LONG)
}

/// [`check_namespace`], the message naming the value as `what` (`--namespace`, or the config
/// file's `namespace =`).
pub fn check_namespace_as(ns: &str, what: &str) -> anyhow::Result<()> {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    let edge = |c: Option<char>| c.is_some_and(|c| c != '-');
    if !ns.is_empty()
        && ns.len() <= 63
        && ns.chars().all(ok_char)
        && edge(ns.chars().next())
        && edge(ns.chars().last())
    {
        return Ok(());
    }
    let why = if ns.is_empty() {
        "it is empty".to_string()
    } else if ns.len() > 63 {
        format!("it is {} characters long, past 63", ns.len())
    } else if let Some(c) = ns.chars().find(|c| !ok_char(*c)) {
        format!("{c:?} is not allowed in it")
    } else {
        "it starts or ends with `-`".to_string()
    };
    bail!(
        "{what} {ns:?}: not a namespace name ({why}); a namespace is lower-case letters, \
         digits and `-`, at most 63, starting and ending with a letter or digit, e.g. \
         {what} kube-system"
    )
}

/// A kubeconfig named on the command line must exist and read as a kubeconfig (as kubectl's
/// `--kubeconfig` must). A `KUBECONFIG`-style list is taken too, when one of its files exists.
pub fn check_kubeconfig(path: &Path) -> anyhow::Result<()> {
    let files: Vec<PathBuf> = std::env::split_paths(path.as_os_str())
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    if files.is_empty() {
        bail!("--kubeconfig is empty: name a kubeconfig file, or drop the flag to use $KUBECONFIG or ~/.kube/config");
    }
    if !files.iter().any(|p| p.exists()) {
        bail!(
            "--kubeconfig {}: no such file; name an existing kubeconfig (e.g. ~/.kube/config), \
             or drop the flag to use $KUBECONFIG or ~/.kube/config",
            path.display()
        );
    }
    if let Some(dir) = files.iter().find(|p| p.is_dir()) {
        bail!(
            "--kubeconfig {}: is a folder; name the kubeconfig file in it (e.g. {}/config)",
            dir.display(),
            dir.display()
        );
    }
    crate::query::kube::client::read_kubeconfig(path).map_err(|e| {
        anyhow::anyhow!("--kubeconfig {}: does not read as a kubeconfig ({e}); fix the file, or name another with --kubeconfig", path.display())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_names_are_checked_as_kubernetes_does() {
        for ok in ["kube-system", "a", "ocm-prod-1", &"x".repeat(63)] {
            check_namespace(ok).unwrap();
        }
        for (bad, why) in [
            ("", "it is empty"),
            ("Kube-System", "'K' is not allowed"),
            ("a_b", "'_' is not allowed"),
            ("-a", "starts or ends with `-`"),
            ("a-", "starts or ends with `-`"),
            ("ns x", "' ' is not allowed"),
        ] {
            let e = check_namespace(bad).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("--namespace"), "{bad:?}: {e}");
        }
        let long = "n".repeat(64);
        let e = check_namespace(&long).unwrap_err().to_string();
        assert!(e.contains("64 characters long"), "{e}");
    }

    #[test]
    fn a_kubeconfig_flag_must_name_a_file_that_reads() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.yaml");
        let e = check_kubeconfig(&missing).unwrap_err().to_string();
        assert!(
            e.contains("nope.yaml: no such file") && e.contains("drop the flag"),
            "{e}"
        );
        let e = check_kubeconfig(dir.path()).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        let junk = dir.path().join("junk.yaml");
        std::fs::write(&junk, "contexts: [1, 2\n").unwrap();
        let e = check_kubeconfig(&junk).unwrap_err().to_string();
        assert!(e.contains("does not read as a kubeconfig"), "{e}");
        let good = dir.path().join("good.yaml");
        std::fs::write(&good, "apiVersion: v1\nkind: Config\ncontexts: []\n").unwrap();
        check_kubeconfig(&good).unwrap();
        let list = std::env::join_paths([missing, good]).unwrap();
        check_kubeconfig(Path::new(&list)).unwrap();
    }
}
