//! Variables of a probe: what it reads (`${VAR}`, `$VAR`, `<placeholder>`, `{region}`) and
//! what it assigns (`X=…`, `export X=…`, `for X in`, `read X`). Pure; imports nothing but std
//! (and memchr).

/// Names a shell provides or that belong to the operator's environment, never reported.
pub const ENVIRONMENT: &[&str] = &[
    "HOME",
    "PATH",
    "USER",
    "PWD",
    "OLDPWD",
    "SHELL",
    "TMPDIR",
    "HOSTNAME",
    "KUBECONFIG",
    "RANDOM",
    "SECONDS",
    "LINENO",
    "IFS",
    "TERM",
    "LANG",
    "EDITOR",
    "PAGER",
    "BASH_SOURCE",
    "UID",
    "EUID",
    "PPID",
    "REPLY",
    "OPTARG",
    "OPTIND",
];

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn push_unique(out: &mut Vec<String>, name: &str) {
    if !name.is_empty() && !out.iter().any(|n| n == name) {
        out.push(name.to_string());
    }
}

/// Shell `$VAR` / `${VAR…}` uses bash would expand: outside single quotes, comments and
/// quoted heredoc bodies, in first-use order. The shell lexer decides (see
/// [`super::shell::quoting`]); nothing here scans quotes.
pub fn shell_uses(code: &str) -> Vec<String> {
    super::shell::quoting::expanded_names(code)
}

/// Names a shell probe assigns: `X=…` and `export|local|readonly|declare X=…` commands,
/// `for X in`, and `read [-r] X`.
pub fn shell_assigns(code: &str) -> Vec<String> {
    shell_assigns_in(code, &super::shell::commands(code))
}

/// [`shell_assigns`] of `code` whose simple commands (`super::shell::commands`) are `cmds`,
/// so a caller that has them does not lex the script again.
pub fn shell_assigns_in(code: &str, cmds: &[super::shell::SimpleCommand]) -> Vec<String> {
    let valid = |n: &str| n.chars().next().is_some_and(is_name_start) && n.chars().all(is_name);
    let mut out = Vec::new();
    for cmd in cmds {
        for a in &cmd.assigns {
            let name = a.split('=').next().unwrap_or("");
            if valid(name) {
                push_unique(&mut out, name);
            }
        }
        match cmd.name() {
            Some("export" | "local" | "readonly" | "declare" | "typeset") => {
                for w in cmd.words.iter().skip(1).filter(|w| !w.starts_with('-')) {
                    let name = w.split('=').next().unwrap_or("");
                    if valid(name) {
                        push_unique(&mut out, name);
                    }
                }
            }
            Some("read") => {
                for w in cmd
                    .words
                    .iter()
                    .skip(1)
                    .filter(|w| !w.starts_with('-') && valid(w))
                {
                    push_unique(&mut out, w);
                }
            }
            _ => {}
        }
    }
    // `for X in …` is a compound command the parser does not emit as a simple command.
    for line in super::swar::lines(code) {
        let mut words = line.split([' ', ';', '\t']).filter(|w| !w.is_empty());
        while let Some(w) = words.next() {
            if w == "for" {
                if let Some(name) = words.next().filter(|n| valid(n)) {
                    push_unique(&mut out, name);
                }
            }
        }
    }
    out
}

/// Braced `${NAME}` uses in a non-shell probe (KQL, PromQL, HTTP), where a bare `$` may be
/// part of the language.
pub fn braced_uses(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("${") {
        let rest = &code[i + 2..];
        let name: String = rest.chars().take_while(|c| is_name(*c)).collect();
        if name.chars().next().is_some_and(is_name_start)
            && rest[name.len()..].starts_with(['}', ':'])
        {
            push_unique(&mut out, &name);
        }
    }
    out
}

/// `$NAME` and `${NAME}` uses in a PromQL or KQL query (Grafana-style template variables),
/// quoted or not; `$__interval`-style built-ins are not reported.
pub fn dollar_uses(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices('$') {
        let rest = &code[i + 1..];
        let braced = rest.starts_with('{');
        let rest = if braced { &rest[1..] } else { rest };
        let name: String = rest.chars().take_while(|c| is_name(*c)).collect();
        if name.chars().next().is_some_and(is_name_start) && !name.starts_with("__") {
            if braced && !rest[name.len()..].starts_with(['}', ':']) {
                continue;
            }
            push_unique(&mut out, &name);
        }
    }
    out
}

/// `<placeholder>` forms: `<node-name>`, `<CCP ID>`, `pn-<cluster-id>`. Shell redirections
/// (`< file`, `<<EOF`, `<(…)`) and comparisons are not placeholders.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    // From one `<` to the next (a byte search): no other byte can start a placeholder.
    while let Some(k) = memchr::memchr(b'<', bytes.get(i..).unwrap_or_default()) {
        i += k;
        if i == 0 || bytes[i - 1] != b'<' {
            let rest = &text[i + 1..];
            if let Some(end) = rest.find('>') {
                let inner = &rest[..end];
                let ok = inner.len() <= 60
                    && inner
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic())
                    && inner
                        .chars()
                        .last()
                        .is_some_and(|c| c.is_ascii_alphanumeric())
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ' ' | '.'));
                if ok {
                    push_unique(&mut out, inner);
                    i += end + 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// `{region}` forms in a shell probe (not `${…}`, not shell/jq/jsonpath braces, which hold
/// spaces, dots or commas, nor anything inside a single-quoted word).
pub fn brace_placeholders(text: &str) -> Vec<String> {
    braces(text, true)
}

/// `{region}` forms in a query (KQL, PromQL …), where a single-quoted string is a literal the
/// guide means to be filled (`where region == '{region}'`).
pub fn query_brace_placeholders(text: &str) -> Vec<String> {
    braces(text, false)
}

/// The placeholders of `lang`'s code: shell rules for shell, query rules otherwise.
pub fn brace_placeholders_of(lang: crate::tsg::Lang, text: &str) -> Vec<String> {
    braces(text, lang == crate::tsg::Lang::Shell)
}

fn braces(text: &str, shell: bool) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let map = if shell && text.contains('{') {
        super::shell::quoting::quoting(text)
    } else {
        super::shell::quoting::QuoteMap::default()
    };
    for (i, _) in text.match_indices('{') {
        if i > 0 && matches!(bytes[i - 1], b'$' | b'{') || (shell && template_syntax(text, &map, i))
        {
            continue;
        }
        let rest = &text[i + 1..];
        if let Some(end) = rest.find('}') {
            let inner = &rest[..end];
            if inner != "end"
                && !rest[end + 1..].starts_with('}')
                && inner.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && inner
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
                && inner.len() <= 40
            {
                push_unique(&mut out, inner);
            }
        }
    }
    out
}

/// Whether the `{` at `i` is template syntax, never a variable: inside a kubectl
/// `jsonpath=`/`go-template=`/`custom-columns=`/`--sort-by=` word, or inside a single-quoted
/// shell word (one that opens after a space or `=`; KQL's `cluster('…{region}')` still counts).
/// How each byte is quoted comes from the shell lexer (`map`).
fn template_syntax(text: &str, map: &super::shell::quoting::QuoteMap, i: usize) -> bool {
    use super::shell::quoting::Quoting;
    let b = text.as_bytes();
    // The word holding `i` starts after the last unquoted blank before it.
    let word = (0..i)
        .rev()
        .find(|&j| b[j].is_ascii_whitespace() && map.at(j) == Quoting::Bare)
        .map_or(0, |j| j + 1);
    let marks = ["jsonpath", "template=", "custom-columns=", "sort-by="];
    let in_template = marks.iter().any(|m| text[word..i].contains(m));
    let single_word = map
        .piece_at(i)
        .filter(|p| p.quoting == Quoting::Single)
        .is_some_and(|p| {
            text[..p.start]
                .chars()
                .last()
                .is_none_or(|c| c.is_whitespace() || c == '=')
        });
    in_template || single_word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_skip_single_quotes_and_comments() {
        let code = "kubectl get mw -n \"$NS\" | grep -F \"${CLUSTER_ID}\"\n# uses $NOT_THIS\njq '.items[] | $x' $1 ${A:-b}";
        assert_eq!(shell_uses(code), vec!["NS", "CLUSTER_ID", "A"]);
    }

    #[test]
    fn quoted_heredoc_bodies_are_not_expanded() {
        let code = "cat <<'EOF' > f\n$NOT_A_VAR\nEOF\ncat <<EOF\n'$YES' \\$NO\nEOF\necho $AFTER";
        assert_eq!(shell_uses(code), vec!["YES", "AFTER"]);
    }

    #[test]
    fn assigns() {
        let code = "export HCP_NAMESPACE=$(kubectl get ns -o name)\nORIG=3 kubectl x\nfor mw in $(kubectl get mw); do echo $mw; done\nread -r ANSWER\nkubectl get x --foo=bar \\\n  -o jsonpath='{.a}'\ncurl 'http://x/?size=3&search=y'";
        assert_eq!(
            shell_assigns(code),
            vec!["HCP_NAMESPACE", "ORIG", "ANSWER", "mw"]
        );
        assert_eq!(
            braced_uses("where ns == '${CCP_ID}' and x == ${A:-b} and $__interval"),
            vec!["CCP_ID", "A"]
        );
    }

    #[test]
    fn placeholder_forms() {
        let t = "kubectl get podnetwork pn-<cluster-id> -n <ocm-namespace>; where namespace == \"<CCP ID>\"; cat < file; x <<EOF; a<b";
        assert_eq!(
            placeholders(t),
            vec!["cluster-id", "ocm-namespace", "CCP ID"]
        );
        assert_eq!(
            brace_placeholders(
                "cluster('hcp-prod-{region}') jsonpath='{.items[*]}' ${X} {id, name}"
            ),
            vec!["region"]
        );
        for t in [
            "kubectl get pods -o jsonpath='{range .items[*]}{.metadata.name}{end}'",
            "kubectl get pods -o jsonpath={end}",
            "kubectl get pods -o go-template='{{range .items}}{{.metadata.name}}{{end}}'",
            "kubectl get pods -o go-template={{end}}",
            "kubectl get pods --sort-by={name}",
            "echo '{x}' | grep '{y}'",
        ] {
            assert_eq!(brace_placeholders(t), Vec::<String>::new(), "{t}");
        }
        assert_eq!(brace_placeholders("echo \"{x}\" {y}"), vec!["x", "y"]);
    }
}
