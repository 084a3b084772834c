//! The dependency rule of DESIGN.md, checked on the source: the pure core (`tsg`, `safety`)
//! imports no IO, and every module opens with a `//!` saying its role.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Code lines only: comments and doc comments may name what a module must not import.
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_free_of(module: &str, forbidden: &[&str]) {
    let mut files = Vec::new();
    rust_files(&crate::common::root().join("src").join(module), &mut files);
    assert!(!files.is_empty(), "src/{module} has files");
    for f in files {
        let text = code(&std::fs::read_to_string(&f).expect("read"));
        for word in forbidden {
            // `super::kube::x` is a sibling module, not the kube crate: only a path that starts
            // at `word` counts.
            let used = text.match_indices(word).any(|(i, _)| {
                !text[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c == ':' || c.is_alphanumeric() || c == '_')
            });
            assert!(
                !used,
                "{} uses `{word}`, which the pure core must not import",
                f.display()
            );
        }
    }
}

const IO: &[&str] = &[
    "std::fs",
    "std::process",
    "std::net",
    "tokio",
    "reqwest",
    "use kube",
    "kube::api",
    "kube::Client",
    "kube::runtime",
    "k8s_openapi",
    "std::io::stdin",
    "std::env",
    "std::thread",
];

#[test]
fn tsg_is_pure() {
    let mut forbidden = IO.to_vec();
    forbidden.extend(["crate::safety", "crate::cli", "crate::load"]);
    assert_free_of("tsg", &forbidden);
}

#[test]
fn safety_is_pure_and_depends_only_on_tsg() {
    let mut forbidden = IO.to_vec();
    forbidden.extend(["crate::cli", "crate::load"]);
    assert_free_of("safety", &forbidden);
}

#[test]
fn every_module_says_its_role() {
    let mut files = Vec::new();
    rust_files(&crate::common::root().join("src"), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        assert!(
            text.trim_start().starts_with("//!"),
            "{} must open with a `//!` module comment",
            f.display()
        );
    }
}

#[test]
fn no_unwrap_outside_tests() {
    let mut files = Vec::new();
    rust_files(&crate::common::root().join("src"), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        // Everything after `#[cfg(test)]` is test code.
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        assert!(
            !code(body).contains(".unwrap()"),
            "{} calls unwrap() outside tests",
            f.display()
        );
    }
}
