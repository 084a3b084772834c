//! Which commands of a mutating probe change something worth a `mutation-without-risk`
//! finding. Scratch work on the operator's side is not: `mkdir -p /tmp/…`, writing or
//! removing files under `/tmp` or `~/.cache`, a fresh `git clone`, `az account set` (it picks
//! the CLI's default subscription), git work in the operator's own checkout (`git checkout`,
//! `git add`, `git commit`; `git push` is not). Pure; imports only `tsg`.

use crate::tsg::model::{Lang, Probe, SafetyClass};
use crate::tsg::shell::{self, SimpleCommand};

/// Whether `path` is in scratch space.
fn scratch_path(path: &str) -> bool {
    let p = path.trim_matches(['"', '\'']);
    [
        "/tmp/",
        "$TMPDIR",
        "${TMPDIR",
        "~/.cache/",
        "$HOME/.cache/",
        "${HOME}/.cache/",
        "~/Library/Caches/",
    ]
    .iter()
    .any(|s| p.starts_with(s))
        || p == "/tmp"
}

/// Git subcommands whose changes stay in the local checkout (a push, a remote branch
/// deletion or anything unknown is a change elsewhere).
const GIT_LOCAL: &[&str] = &[
    "clone",
    "add",
    "checkout",
    "switch",
    "restore",
    "commit",
    "stash",
    "branch",
    "merge",
    "rebase",
    "cherry-pick",
    "reset",
    "fetch",
    "pull",
    "init",
    "worktree",
    "mv",
    "rm",
];

/// Whether `git` with `args` (global options `-C DIR`, `-c K=V` first) stays local.
fn git_local(args: &[&str]) -> bool {
    let mut it = args.iter();
    while let Some(w) = it.next() {
        match *w {
            "-C" | "-c" | "--git-dir" | "--work-tree" => {
                it.next();
            }
            w if w.starts_with('-') => {}
            sub => return GIT_LOCAL.contains(&sub),
        }
    }
    false
}

/// Whether `c` only does scratch work: it is scratch by itself, or its only change is a
/// redirect into `/tmp` and its words alone read.
fn scratch(c: &SimpleCommand, classify: &dyn Fn(&Probe) -> SafetyClass) -> bool {
    let words: Vec<&str> = c.words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["mkdir", rest @ ..] => {
            let paths: Vec<&&str> = rest.iter().filter(|w| !w.starts_with('-')).collect();
            !paths.is_empty() && paths.iter().all(|p| scratch_path(p))
        }
        ["az", "account", "set", ..] => true,
        // A fresh clone creates its own folder; nothing that was there changes; the other
        // local subcommands change only the operator's own checkout.
        ["git", rest @ ..] => git_local(rest),
        ["tee", rest @ ..] | ["rm", rest @ ..] => {
            let paths: Vec<&&str> = rest.iter().filter(|w| !w.starts_with('-')).collect();
            !paths.is_empty() && paths.iter().all(|p| scratch_path(p))
        }
        _ => {
            let writes: Vec<&str> = c
                .redirects
                .iter()
                .filter(|r| r.writes_file())
                .map(|r| r.target.as_str())
                .collect();
            !writes.is_empty()
                && writes.iter().all(|t| scratch_path(t))
                && classify(&Probe::from_code(Lang::Shell, &words.join(" ")))
                    != SafetyClass::Mutating
        }
    }
}

/// The first command of a mutating probe that changes more than scratch space (its text),
/// `None` when every change it makes is scratch work. A probe whose class does not come from
/// one command (a loop, an unreadable part) is reported by its first line.
pub fn first_change(p: &Probe, classify: &dyn Fn(&Probe) -> SafetyClass) -> Option<String> {
    let first_line = || {
        p.code
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("")
            .to_string()
    };
    // Scratch space is the operator's: `/tmp` inside a pod or on a node is someone's data.
    if p.lang != Lang::Shell || p.runs_in.is_some() {
        return Some(first_line());
    }
    let cmds = shell::commands(&p.code);
    let mut any = false;
    for c in &cmds {
        let one = Probe::from_code(Lang::Shell, &c.text());
        if classify(&one) != SafetyClass::Mutating && c.redirects.iter().all(|r| !r.writes_file()) {
            continue;
        }
        any = true;
        if !scratch(c, classify) {
            return Some(c.text());
        }
    }
    (!any).then(first_line)
}
