//! PURE typed parse of one simple command of a probe, for the CLIs tsgnav understands
//! (kubectl and oc, helm, az, curl): the tool, the verb path, the objects it names
//! (resource, namespace, name; `-f` files as unknown objects), the context, kubeconfig and
//! server overrides, the flags read through the one table per tool ([`table`]), the
//! positionals and the `--` tail.
//!
//! Built from the shell lexer ([`crate::tsg::shell`]); computed on demand by [`of_command`] /
//! [`of_script`], never stored in the parse cache or in `tree --json`. This module and its
//! tables are the only place in `src/` that names these tools' flags.
//!
//! Pure; imports only `tsg::shell`. Must not import IO.

mod objects;
pub mod table;
#[cfg(test)]
mod tests;

use super::shell::{self, SimpleCommand};
pub use table::{Role, Spec};

/// A CLI with a flag table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Kubectl,
    Oc,
    Helm,
    Az,
    Curl,
}

impl Tool {
    /// The tool a command name (without directory) stands for.
    pub fn of(name: &str) -> Option<Tool> {
        Some(match name {
            "kubectl" => Tool::Kubectl,
            "oc" => Tool::Oc,
            "helm" => Tool::Helm,
            "az" => Tool::Az,
            "curl" => Tool::Curl,
            _ => return None,
        })
    }

    /// kubectl or oc.
    pub fn is_kube(self) -> bool {
        matches!(self, Tool::Kubectl | Tool::Oc)
    }

    fn table(self) -> &'static [Spec] {
        match self {
            Tool::Kubectl | Tool::Oc => table::KUBE,
            Tool::Helm => table::HELM,
            Tool::Az => table::AZ,
            Tool::Curl => table::CURL,
        }
    }
}

/// The row of the flag `name` for `tool` when the verb is `verb` (`kubectl logs -f` follows).
pub fn spec(tool: Tool, verb: &str, name: &str) -> Option<&'static Spec> {
    if tool.is_kube() && matches!(verb, "logs" | "log") {
        if let Some(s) = table::find(table::KUBE_LOGS, name) {
            return Some(s);
        }
    }
    table::find(tool.table(), name)
}

/// Whether `name` takes a value for `tool` (unknown flags of az take one; of others, none).
pub fn takes_value(tool: Tool, verb: &str, name: &str) -> bool {
    match spec(tool, verb, name) {
        Some(s) => s.value,
        None => tool == Tool::Az && name.starts_with("--"),
    }
}

/// One flag as written, with its value (inline `--f=v`, `-nv`, or the next word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flag {
    /// `--namespace`, `-n` (a short cluster `-it` gives `-i` and `-t`).
    pub name: String,
    pub value: Option<String>,
    /// What the table says it means; `None` for a flag the table does not know.
    pub role: Option<Role>,
}

/// An object the command names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Object {
    /// The type as written (`deployment`, `deploy`, `deployment.apps`, `node`); `None` for an
    /// object read from a file.
    pub resource: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// `-f FILE`: objects in a file tsgnav does not read.
    pub file: Option<String>,
}

impl Object {
    /// `deployment/x`, `node/y`, `pods`, `file manifest.yaml`.
    pub fn label(&self) -> String {
        match (&self.resource, &self.name, &self.file) {
            (Some(r), Some(n), _) => format!("{r}/{n}"),
            (Some(r), None, _) => r.clone(),
            (None, _, Some(f)) => format!("file {f}"),
            _ => String::from("?"),
        }
    }
}

/// The typed parse of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub tool: Tool,
    /// 1-based line in the script.
    pub line: usize,
    /// `["scale"]`, `["rollout", "restart"]`, `["aks", "nodepool", "scale"]`.
    pub verbs: Vec<String>,
    pub objects: Vec<Object>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub context: Option<String>,
    pub kubeconfig: Option<String>,
    pub server: Option<String>,
    pub flags: Vec<Flag>,
    /// The words that are not flags or flag values, verbs included, before `--`.
    pub positionals: Vec<String>,
    /// The words after a bare `--`, if there was one.
    pub tail: Option<Vec<String>>,
    /// The first flag before the verb path that the table does not know and that has no
    /// inline value: it may take the next word, so the verb read after it is a guess.
    pub unknown_before_verb: Option<String>,
}

impl Invocation {
    /// The first verb (`""` when there is none).
    pub fn verb(&self) -> &str {
        self.verbs.first().map(String::as_str).unwrap_or("")
    }

    /// The verb that says what happens: the second of `oc adm drain`, `kubectl rollout
    /// restart`, the first otherwise.
    pub fn action(&self) -> &str {
        match (self.verb(), self.verbs.get(1)) {
            ("adm" | "rollout", Some(second)) => second,
            (first, _) => first,
        }
    }

    /// The value of the last flag with `role`.
    pub fn value(&self, role: Role) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|f| f.role == Some(role))
            .and_then(|f| f.value.as_deref())
    }

    /// Whether a flag with `role` is present and not set to `false`.
    pub fn has(&self, role: Role) -> bool {
        self.flags
            .iter()
            .any(|f| f.role == Some(role) && f.value.as_deref() != Some("false"))
    }
}

/// The typed parse of `cmd`, if it is one of the tools with a table.
pub fn of_command(cmd: &SimpleCommand) -> Option<Invocation> {
    let mut inv = of_words(&cmd.words)?;
    inv.line = cmd.line;
    Some(inv)
}

/// The typed parse of `words` (`words[0]` is the program).
pub fn of_words(words: &[String]) -> Option<Invocation> {
    let tool = Tool::of(shell::basename(words.first()?))?;
    let args = &words[1..];
    let first = split(tool, "", args);
    let verb = first.positionals.first().cloned().unwrap_or_default();
    let mut inv = if takes_value(tool, &verb, "-f") != takes_value(tool, "", "-f") {
        split(tool, &verb, args)
    } else {
        first
    };
    let depth = objects::verb_depth(tool, &inv.positionals);
    inv.verbs = inv.positionals.iter().take(depth).cloned().collect();
    let scan = if tool == Tool::Helm {
        depth.min(1)
    } else {
        depth
    };
    inv.unknown_before_verb = unknown_before(tool, args, scan);
    inv.namespace = inv.value(Role::Namespace).map(String::from);
    inv.all_namespaces = inv.has(Role::AllNamespaces);
    inv.context = inv.value(Role::Context).map(String::from);
    inv.kubeconfig = inv.value(Role::Kubeconfig).map(String::from);
    inv.server = inv.value(Role::Server).map(String::from);
    inv.objects = objects::objects(&inv, depth);
    Some(inv)
}

/// Every command of `script` (after the shell parse) that is one of the tools with a table.
pub fn of_script(script: &str) -> Vec<Invocation> {
    shell::commands(script)
        .iter()
        .filter_map(of_command)
        .collect()
}

/// Splits `args` into flags (through the table), positionals and the `--` tail.
fn split(tool: Tool, verb: &str, args: &[String]) -> Invocation {
    let mut inv = Invocation {
        tool,
        line: 1,
        verbs: Vec::new(),
        objects: Vec::new(),
        namespace: None,
        all_namespaces: false,
        context: None,
        kubeconfig: None,
        server: None,
        flags: Vec::new(),
        positionals: Vec::new(),
        tail: None,
        unknown_before_verb: None,
    };
    let role = |name: &str| spec(tool, verb, name).map(|s| s.role);
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "--" {
            inv.tail = Some(args[i..].to_vec());
            break;
        }
        if a.starts_with("--") {
            let (name, value) = match a.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None if takes_value(tool, verb, a) => {
                    i += 1;
                    (a, args.get(i - 1).cloned())
                }
                None => (a, None),
            };
            inv.flags.push(Flag {
                name: name.to_string(),
                value,
                role: role(name),
            });
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
            inv.positionals.push(a.to_string());
            continue;
        };
        for (at, ch) in cluster.char_indices() {
            let name = format!("-{ch}");
            if takes_value(tool, verb, &name) {
                let rest = &cluster[at + ch.len_utf8()..];
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).cloned()
                } else {
                    Some(rest.trim_start_matches('=').to_string())
                };
                let r = role(&name);
                inv.flags.push(Flag {
                    name,
                    value,
                    role: r,
                });
                break;
            }
            let r = role(&name);
            inv.flags.push(Flag {
                name,
                value: None,
                role: r,
            });
        }
    }
    inv
}

/// The first flag before the `depth`-th positional that the table does not know and that
/// carries no inline value.
fn unknown_before(tool: Tool, args: &[String], depth: usize) -> Option<String> {
    if tool == Tool::Az {
        return None;
    }
    let mut seen = 0;
    let mut i = 0;
    while i < args.len() && seen < depth.max(1) {
        let a = args[i].as_str();
        i += 1;
        if a == "--" {
            return None;
        }
        if !a.starts_with('-') || a.len() < 2 {
            seen += 1;
            continue;
        }
        if a.contains('=') {
            continue;
        }
        let head = if a.starts_with("--") {
            a
        } else {
            a.get(..2).unwrap_or(a)
        };
        match spec(tool, "", head) {
            Some(s) if s.value && head == a => i += 1,
            Some(_) => {}
            None => return Some(a.to_string()),
        }
    }
    None
}
