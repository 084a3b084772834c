//! The flag-literal rule: a string literal that is a flag naming the target of a kubectl/oc,
//! helm or az command (namespace, all namespaces, context, kubeconfig, server; the list is
//! read from `tsg::invocation::table`, the one table) may stand only in `src/tsg/invocation/`.
//! Every other module reads these flags through `tsg::invocation` (or names them through its
//! constants), so two readers cannot disagree about them.
//!
//! Exempt: test code (`#[cfg(test)]`, `tests*.rs`) and the simulator `src/sim/` (it builds
//! command lines for its own fixtures). Other tools' flags spelled the same way (`xargs -n`,
//! `grep --context`) are listed in [`OTHER_TOOLS`] with the file that reads them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use syn::visit::Visit;
use tsgnav::tsg::invocation::table::{Role, AZ, HELM, KUBE};

/// (file under `src/`, literal): the same spelling as a guarded flag, of another tool.
const OTHER_TOOLS: &[(&str, &str)] = &[
    // xargs -n, watch -n, nice -n, ionice -n
    ("safety/command.rs", "-n"),
    // ip -n NETNS
    ("safety/writers.rs", "-n"),
    // watch -n SECONDS
    ("tsg/shell/subst.rs", "-n"),
    // grep --context N
    ("tsg/lint/shell_rules.rs", "--context"),
    // git --namespace NAME (a git ref namespace)
    ("safety/tools.rs", "--namespace"),
    // iptables -n (numeric output)
    ("safety/ops.rs", "-n"),
    // redis-cli -n DB (a database number)
    ("tsg/consoles.rs", "-n"),
];

/// The guarded literals: every long target flag of the tables, and kubectl's and helm's `-n`.
fn guarded() -> BTreeSet<&'static str> {
    let target = |r: Role| {
        matches!(
            r,
            Role::Namespace | Role::AllNamespaces | Role::Context | Role::Kubeconfig | Role::Server
        )
    };
    let mut out: BTreeSet<&str> = [KUBE, HELM, AZ]
        .iter()
        .flat_map(|t| t.iter())
        .filter(|s| target(s.role) && s.name.starts_with("--"))
        .map(|s| s.name)
        .collect();
    out.insert("-n");
    out
}

struct Literals<'a> {
    file: &'a str,
    guarded: &'a BTreeSet<&'static str>,
    in_test: usize,
    found: Vec<String>,
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg")
                && a.meta
                    .require_list()
                    .is_ok_and(|l| l.tokens.to_string().contains("test")))
    })
}

impl<'ast> Visit<'ast> for Literals<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let t = usize::from(is_test(&m.attrs));
        self.in_test += t;
        syn::visit::visit_item_mod(self, m);
        self.in_test -= t;
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let t = usize::from(is_test(&f.attrs));
        self.in_test += t;
        syn::visit::visit_item_fn(self, f);
        self.in_test -= t;
    }

    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        let v = l.value();
        let allowed = OTHER_TOOLS.contains(&(self.file, v.as_str()));
        if self.in_test == 0 && !allowed && self.guarded.contains(v.as_str()) {
            let line = l.span().start().line;
            self.found.push(format!("src/{}:{line}: {v:?}", self.file));
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `matches!(f, "-n" | …)`, `format!("--context={c}")`: look inside macro arguments.
        let tokens = m.tokens.clone();
        for t in tokens {
            if let proc_macro2::TokenTree::Literal(lit) = t {
                if let Ok(s) = syn::parse_str::<syn::LitStr>(&lit.to_string()) {
                    let v = s.value();
                    if self.in_test == 0
                        && !OTHER_TOOLS.contains(&(self.file, v.as_str()))
                        && self.guarded.contains(v.as_str())
                    {
                        let line = lit.span().start().line;
                        self.found.push(format!("src/{}:{line}: {v:?}", self.file));
                    }
                }
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

/// The guarded flag literals of one file (`rel` is its path under `src/`, `/` separated).
fn literals(rel: &str, text: &str) -> Vec<String> {
    let guarded = guarded();
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("src/{rel}: {e}"));
    let mut v = Literals {
        file: rel,
        guarded: &guarded,
        in_test: 0,
        found: Vec::new(),
    };
    v.visit_file(&file);
    v.found
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_module_but_tsg_invocation_writes_a_target_flag_of_kubectl_helm_or_az() {
    let src = crate::common::root().join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut found = Vec::new();
    for f in &all {
        let rel = f.strip_prefix(&src).expect("under src");
        let rel = rel.to_string_lossy().replace('\\', "/");
        let name = rel.rsplit('/').next().unwrap_or("");
        if rel.starts_with("tsg/invocation/")
            || rel.starts_with("sim/")
            || name.starts_with("tests")
        {
            continue;
        }
        found.extend(literals(&rel, &std::fs::read_to_string(f).expect("read")));
    }
    assert!(all.len() > 100, "read {} files", all.len());
    assert!(
        found.is_empty(),
        "flag literals outside src/tsg/invocation/ (read the command through \
         tsg::invocation, or name the flag with a constant of tsg::invocation::table):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_flag_rule_catches_plain_macro_and_inline_forms_but_not_test_code() {
    let g = guarded();
    for f in [
        "--namespace",
        "--context",
        "--kubeconfig",
        "--server",
        "--kube-context",
        "-n",
    ] {
        assert!(g.contains(f), "{f} is guarded");
    }
    let bad = literals(
        "query/x.rs",
        "fn f(w: &str) -> bool {\n    w == \"--namespace\"\n}\nfn g(w: &str) -> bool { matches!(w, \"-x\" | \"--context\") }\n",
    );
    assert_eq!(
        bad,
        [
            "src/query/x.rs:2: \"--namespace\"",
            "src/query/x.rs:4: \"--context\""
        ]
    );
    let test_only = literals(
        "query/x.rs",
        "#[cfg(test)]\nmod tests { fn f() -> &'static str { \"--kubeconfig\" } }\n",
    );
    assert!(test_only.is_empty(), "{test_only:?}");
    assert!(literals("safety/command.rs", "fn f() -> &'static str { \"-n\" }").is_empty());
    assert_eq!(
        literals("safety/kube.rs", "fn f() -> &'static str { \"-n\" }").len(),
        1
    );
}
