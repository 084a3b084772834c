//! What `tsgnav run` is given: the node `FILE#slug` (its guide loaded and the heading found),
//! and the values of its variables from `--var`, `--secret-var`, `-n` and the config file's
//! `[vars]`, with the ones that are secrets handed to the redactor. Part of the CLI edge
//! (reads the guide and the config file).

use std::path::PathBuf;

use anyhow::anyhow;

use super::config::config_vars;
use super::RunArgs;
use crate::evidence::Redactor;
use crate::query::vars::{parse_assignment, Source, Vars};
use crate::tsg::{Library, Node};

/// The node a run names, with the library it was loaded in.
pub struct NodeArg<'a> {
    pub file: &'a str,
    pub slug: &'a str,
    pub lib: Library,
    pub node: Node,
}

impl NodeArg<'_> {
    /// `FILE#slug`, as the journal and the JSON name the node.
    pub fn id(&self) -> String {
        format!("{}#{}", self.file, self.slug)
    }
}

/// Loads the guide of `FILE#slug` and finds the heading.
pub fn target(arg: &str) -> anyhow::Result<NodeArg<'_>> {
    let (file, slug) = arg
        .split_once('#')
        .ok_or_else(|| anyhow!("`{arg}` names no node: write FILE#node-slug"))?;
    let (mut lib, errors) = crate::load::load_library(&[PathBuf::from(file)]);
    super::super::refine_roles(&mut lib);
    if let Some(e) = errors.iter().find(|e| !e.is_warning()) {
        return Err(anyhow!("{e}"));
    }
    let node = lib
        .guides
        .iter()
        .flat_map(|g| &g.nodes)
        .find(|n| n.slug() == slug)
        .ok_or_else(|| {
            anyhow!("{file} has no heading with the slug `{slug}` (see `tsgnav tree {file}`)")
        })?
        .clone();
    Ok(NodeArg {
        file,
        slug,
        lib,
        node,
    })
}

/// The values a run starts with.
pub struct Given {
    pub vars: Vars,
    /// What the operator set, in order (recorded as the operator's variables).
    pub flags: Vec<(String, String)>,
    /// The values that are secrets (redacted from the journal and from what is printed).
    pub secrets: Vec<String>,
}

/// The variables of `--var`, `--secret-var`, `-n` (as `NAMESPACE` unless a `--var` sets it)
/// and the config file; a value that is a secret (by flag, name or shape) goes to `redactor`.
pub fn given(args: &RunArgs, redactor: &Redactor) -> anyhow::Result<Given> {
    let mut g = Given {
        vars: Vars::new(),
        flags: Vec::new(),
        secrets: Vec::new(),
    };
    let plain = args.vars.iter().map(|v| (v, false));
    for (v, secret) in plain.chain(args.secret_vars.iter().map(|v| (v, true))) {
        let (k, val) = parse_assignment(v).map_err(|e| anyhow!(e))?;
        if secret || crate::evidence::is_secret_name(&k) || crate::evidence::value_is_secret(&val) {
            redactor.add_secret(&val);
            g.secrets.push(val.clone());
        }
        g.vars.set(&k, &val, Source::Flag);
        g.flags.push((k, val));
    }
    if let Some(ns) = args
        .namespace
        .as_ref()
        .filter(|_| g.vars.get("NAMESPACE").is_none())
    {
        g.vars.set("NAMESPACE", ns, Source::Flag);
        g.flags.push(("NAMESPACE".into(), ns.clone()));
    }
    for (k, val) in config_vars()? {
        g.vars.set(&k, &val, Source::Config);
    }
    Ok(g)
}
