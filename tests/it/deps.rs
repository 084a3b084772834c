//! The dependency rule, checked on the syntax tree: every `use` (grouped and nested ones
//! too) and every path of every file under `src/` is parsed with `syn`, resolved against the
//! file's module (`crate::`, `super::`, `self::`), and checked against the table in
//! `src/lib.rs` (the one place the rule is written). Pure modules must not reach filesystem,
//! process, network, environment or thread IO, nor read a section's text from the parse cache
//! (`body.fetch()`). Also: no `unwrap()` outside tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// One row of the table: the crate modules a module may use, and whether it must be pure.
#[derive(Debug, Clone)]
struct Rule {
    may_use: BTreeSet<String>,
    pure: bool,
}

/// Reads the table from `src/lib.rs`'s module comment.
fn table(lib_rs: &str) -> BTreeMap<String, Rule> {
    let mut out = BTreeMap::new();
    for line in lib_rs.lines() {
        let Some(row) = line.strip_prefix("//! |") else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if cells.len() < 3 || !cells[0].starts_with('`') {
            continue;
        }
        let names = |cell: &str| -> BTreeSet<String> {
            cell.split(',')
                .map(|c| c.trim().trim_matches('`').to_string())
                .filter(|c| !c.is_empty())
                .collect()
        };
        const ALL: [&str; 12] = [
            "human",
            "tsg",
            "safety",
            "nav",
            "mitigate",
            "sim",
            "load",
            "query",
            "evidence",
            "tui",
            "tui::runtime",
            "cli",
        ];
        let may_use = match cells[1].strip_prefix("everything") {
            // `everything but `cli``
            Some(rest) => {
                let but = names(rest.trim().trim_start_matches("but"));
                ALL.iter()
                    .map(|m| m.to_string())
                    .filter(|m| !but.contains(m))
                    .collect()
            }
            None => names(cells[1]),
        };
        for module in names(cells[0]) {
            let rule = Rule {
                may_use: may_use.clone(),
                pure: cells[2] == "yes",
            };
            out.insert(module, rule);
        }
    }
    out
}

/// The module path of a file under `src/` (`query/kube/mod.rs` → `[query, kube]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        parts.pop();
    }
    parts
}

/// The row a module path falls under: `tui::runtime` is its own row, else the top module.
fn row_of(path: &[String]) -> String {
    match path {
        [] => "lib".into(),
        [a, b, ..] if a == "tui" && b == "runtime" => "tui::runtime".into(),
        [a, ..] => a.clone(),
    }
}

const IO: &[&[&str]] = &[
    &["std", "fs"],
    &["std", "process"],
    &["std", "net"],
    &["std", "env"],
    &["std", "thread"],
    &["std", "io", "stdin"],
    &["tokio"],
    &["reqwest"],
    &["kube"],
    &["k8s_openapi"],
    &["hyper"],
    &["hyper_util"],
    &["axum"],
];

/// What one file uses that the rule forbids.
struct Checker<'a> {
    file: String,
    /// The module path of the code being visited (inline `mod`s push onto it).
    here: Vec<String>,
    /// Names that are crate-local here (declared `mod`s and `use`d crate items).
    locals: BTreeSet<String>,
    rules: &'a BTreeMap<String, Rule>,
    problems: Vec<String>,
    in_test: usize,
    unwraps: Vec<String>,
}

impl Checker<'_> {
    fn check(&mut self, segs: &[String], line: usize) {
        let Some(first) = segs.first() else { return };
        let own = row_of(&self.here);
        let resolved: Option<Vec<String>> = match first.as_str() {
            "crate" => Some(segs[1..].to_vec()),
            "self" => Some([self.here.clone(), segs[1..].to_vec()].concat()),
            "super" => {
                let mut base = self.here.clone();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                Some([base, rest.to_vec()].concat())
            }
            name if self.locals.contains(name) => None,
            _ => {
                let pure = self.rules.get(&own).is_some_and(|r| r.pure);
                let io = IO.iter().find(|f| {
                    segs.iter()
                        .map(String::as_str)
                        .take(f.len())
                        .eq(f.iter().copied())
                });
                if let (true, Some(f)) = (pure, io) {
                    self.problems.push(format!(
                        "{}:{line}: `{}` uses `{}`, IO that the pure module `{own}` must not import",
                        self.file,
                        segs.join("::"),
                        f.join("::")
                    ));
                }
                None
            }
        };
        let Some(target) = resolved else { return };
        if target.is_empty() {
            return;
        }
        let to = row_of(&target);
        let to_top = target[0].clone();
        if to == own || to_top == own {
            return;
        }
        let Some(rule) = self.rules.get(&own) else {
            self.problems.push(format!(
                "{}: module `{own}` has no row in the table of src/lib.rs",
                self.file
            ));
            return;
        };
        // `tui::runtime` is its own row: permission to use `tui` does not extend to it.
        let allowed =
            rule.may_use.contains(&to) || (to != "tui::runtime" && rule.may_use.contains(&to_top));
        if !allowed {
            self.problems.push(format!(
                "{}:{line}: `{}` makes `{own}` depend on `{to}`, which the table in src/lib.rs does not allow",
                self.file,
                segs.join("::")
            ));
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut segs = prefix.clone();
                if n.ident != "self" {
                    segs.push(n.ident.to_string());
                }
                self.check(&segs, line);
            }
            syn::UseTree::Rename(r) => {
                let mut segs = prefix.clone();
                if r.ident != "self" {
                    segs.push(r.ident.to_string());
                }
                self.check(&segs, line);
            }
            syn::UseTree::Glob(_) => self.check(prefix, line),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t, line);
                }
            }
        }
    }
}

fn is_test_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let p = a.path();
        p.is_ident("test")
            || (p.is_ident("cfg")
                && a.meta
                    .require_list()
                    .is_ok_and(|l| l.tokens.to_string().contains("test")))
    })
}

impl<'ast> Visit<'ast> for Checker<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let line = u.use_token.span.start().line;
        let mut prefix = Vec::new();
        if u.leading_colon.is_some() {
            // `::tokio::…`: an external crate, never a local name.
            let saved = std::mem::take(&mut self.locals);
            self.use_tree(&mut prefix, &u.tree, line);
            self.locals = saved;
        } else {
            self.use_tree(&mut prefix, &u.tree, line);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_test_attr(&m.attrs);
        self.in_test += usize::from(test);
        if m.content.is_some() {
            self.here.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.here.pop();
        }
        self.in_test -= usize::from(test);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let test = is_test_attr(&f.attrs);
        self.in_test += usize::from(test);
        syn::visit::visit_item_fn(self, f);
        self.in_test -= usize::from(test);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 {
            let line = p
                .segments
                .first()
                .map_or(0, |s| s.ident.span().start().line);
            self.check(&segs, line);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if m.method == "unwrap" && self.in_test == 0 {
            let line = m.method.span().start().line;
            self.unwraps.push(format!("{}:{line}", self.file));
        }
        // `….body.fetch()` reads a section's text from the parse cache's pack: file IO, which
        // pure code must leave to the edge (it reads `Body::text`).
        let own = row_of(&self.here);
        let on_body = matches!(&*m.receiver, syn::Expr::Field(f)
            if matches!(&f.member, syn::Member::Named(n) if n == "body"));
        if m.method == "fetch"
            && on_body
            && self.in_test == 0
            && self.rules.get(&own).is_some_and(|r| r.pure)
        {
            let line = m.method.span().start().line;
            self.problems.push(format!(
                "{}:{line}: `body.fetch()` reads a section's text from disk in the pure module \
                 `{own}`; read `body.text()` and let the edge read the guide in (`load::hold`)",
                self.file
            ));
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}

/// Names a file makes crate-local at its top: its `mod`s and the last segment (or rename) of
/// each `use` that starts inside the crate.
fn local_names(file: &syn::File) -> BTreeSet<String> {
    fn walk(tree: &syn::UseTree, internal: bool, out: &mut BTreeSet<String>) {
        match tree {
            syn::UseTree::Path(p) => walk(&p.tree, internal, out),
            syn::UseTree::Name(n) if internal && n.ident != "self" => {
                out.insert(n.ident.to_string());
            }
            syn::UseTree::Rename(r) if internal => {
                out.insert(r.rename.to_string());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, internal, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for item in &file.items {
        match item {
            syn::Item::Mod(m) => {
                out.insert(m.ident.to_string());
            }
            syn::Item::Use(u) => {
                let first = match &u.tree {
                    syn::UseTree::Path(p) => p.ident.to_string(),
                    _ => String::new(),
                };
                let internal =
                    ["crate", "super", "self"].contains(&first.as_str()) || out.contains(&first);
                walk(&u.tree, internal, &mut out);
            }
            _ => {}
        }
    }
    out
}

/// The problems and `unwrap()` calls of one file (`rel` is its path under `src/`).
fn check_source(
    rel: &Path,
    text: &str,
    rules: &BTreeMap<String, Rule>,
) -> (Vec<String>, Vec<String>) {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("src/{}: {e}", rel.display()));
    let mut c = Checker {
        file: format!("src/{}", rel.display()),
        here: module_path(rel),
        locals: local_names(&file),
        rules,
        problems: Vec::new(),
        in_test: 0,
        unwraps: Vec::new(),
    };
    c.visit_file(&file);
    (c.problems, c.unwraps)
}

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

fn rules() -> BTreeMap<String, Rule> {
    let lib = std::fs::read_to_string(crate::common::root().join("src/lib.rs")).expect("lib.rs");
    let t = table(&lib);
    assert!(
        t.len() >= 11,
        "the dependency table in src/lib.rs has {} rows",
        t.len()
    );
    t
}

#[test]
fn every_file_keeps_the_dependency_rule_and_calls_no_unwrap() {
    let rules = rules();
    let src = crate::common::root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let (mut problems, mut unwraps) = (Vec::new(), Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let rel = f.strip_prefix(&src).expect("under src");
        let (p, u) = check_source(rel, &text, &rules);
        problems.extend(p);
        unwraps.extend(u);
    }
    assert!(files.len() > 100, "read {} files", files.len());
    assert!(
        problems.is_empty(),
        "dependency rule broken:\n{}",
        problems.join("\n")
    );
    assert!(
        unwraps.is_empty(),
        "unwrap() outside tests at:\n{}",
        unwraps.join("\n")
    );
}

/// The checker itself must catch what the old text matching missed.
#[test]
fn the_checker_catches_grouped_nested_and_relative_forms() {
    let rules = rules();
    let bad = |rel: &str, text: &str| check_source(Path::new(rel), text, &rules).0;
    assert_eq!(
        bad("tsg/x.rs", "use std::{fs, io};").len(),
        1,
        "grouped std::fs"
    );
    assert_eq!(
        bad("tsg/x.rs", "use std::{io::{self, stdin}};").len(),
        1,
        "nested stdin"
    );
    assert_eq!(
        bad(
            "nav/x.rs",
            "fn f() { let _ = std::process::Command::new(\"x\"); }"
        )
        .len(),
        1
    );
    assert_eq!(
        bad("safety/x.rs", "use crate::{tsg, nav};").len(),
        1,
        "safety may use only tsg"
    );
    assert_eq!(
        bad(
            "query/kube/x.rs",
            "use super::super::super::evidence::Record;"
        )
        .len(),
        1
    );
    assert_eq!(
        bad("mitigate/x.rs", "fn f() { crate::query::run(); }").len(),
        1
    );
    assert_eq!(bad("tui/widgets/x.rs", "use ::tokio::spawn;").len(), 1);
    assert_eq!(
        bad("evidence/x.rs", "use crate::query::ProbeResult;").len(),
        1
    );
    assert_eq!(
        bad("tui/view.rs", "use crate::tui::runtime::convert;").len(),
        0,
        "tui may use itself"
    );
    assert_eq!(
        bad("cli/x.rs", "use crate::tui::runtime::convert;").len(),
        0
    );
    assert_eq!(
        bad("query/x.rs", "use super::kube; fn f() { kube::run(); }").len(),
        0,
        "local kube"
    );
    assert_eq!(bad("query/x.rs", "use crate::mitigate::plan;").len(), 0);
    assert_eq!(
        bad(
            "tui/widgets/x.rs",
            "fn f(n: &Node) -> &str { n.body.fetch() }"
        )
        .len(),
        1,
        "a pure module reads a section's text from disk"
    );
    assert_eq!(
        bad(
            "tsg/lint/x.rs",
            "fn f(n: &Node) -> usize { n.body.fetch().len() }"
        )
        .len(),
        1
    );
    assert_eq!(
        bad("cli/x.rs", "fn f(n: &Node) -> &str { n.body.fetch() }").len(),
        0,
        "the command line is an edge"
    );
    assert_eq!(
        bad(
            "tui/widgets/x.rs",
            "fn f(n: &Node) -> Option<&str> { n.body.text() }"
        )
        .len(),
        0
    );
    let (_, unwraps) = check_source(
        Path::new("tsg/x.rs"),
        "fn f() { a.unwrap(); }\n#[cfg(test)]\nmod tests { fn g() { b.unwrap(); } }",
        &rules,
    );
    assert_eq!(unwraps, ["src/tsg/x.rs:1"]);
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
