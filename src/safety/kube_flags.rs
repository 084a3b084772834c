//! kubectl/oc/helm command lines read for the classifier through the one typed parse
//! ([`crate::tsg::invocation`]): the unknown flag before the verb (it might swallow the verb)
//! and `--dry-run` read the way kubectl reads it.
//!
//! Pure; imports only `crate::tsg`. Names no flag itself: the flag tables are
//! `tsg::invocation::table`'s.

use crate::tsg::invocation::{self, Invocation, Role};

/// `program ARGS` as an invocation (`program` is `kubectl`, `oc` or `helm`).
pub(super) fn parse(program: &str, args: &[String]) -> Option<Invocation> {
    let mut words = vec![program.to_string()];
    words.extend(args.iter().cloned());
    invocation::of_words(&words)
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

pub(super) fn dry_run(inv: &Invocation) -> DryRun {
    let last = inv
        .flags
        .iter()
        .rev()
        .find(|f| f.role == Some(Role::DryRun));
    match last.map(|f| f.value.as_deref()) {
        None => DryRun::Off,
        Some(None) => DryRun::Preview,
        Some(Some(v)) => match v {
            "client" | "server" | "1" | "t" | "T" | "true" | "TRUE" | "True" => DryRun::Preview,
            "none" | "0" | "f" | "F" | "false" | "FALSE" | "False" => DryRun::Off,
            _ => DryRun::Invalid,
        },
    }
}
