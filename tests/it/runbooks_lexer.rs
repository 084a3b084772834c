//! Differential test: the variables tsgnav says a script reads are exactly the ones the real
//! `bash` expands. Words are generated from quoting pieces (bare, single, double, escaped,
//! ANSI-C, braced, default values) and heredocs (quoted and unquoted delimiters); each
//! variable holds a marker, and bash's output shows which markers it expanded.

use std::collections::BTreeSet;
use std::process::Command;

use tsgnav::tsg::vars::shell_uses;

/// Pieces of a word; `{}` is replaced by a fresh variable name.
const PIECES: &[&str] = &[
    "${}",
    "${{}}",
    "'${}'",
    "\"${}\"",
    "\\${}",
    "\"\\${}\"",
    "$'${}'",
    "\"${{}:-x}\"",
    "'a'\"${}\"b",
    "\"'${}'\"",
    "x${}y",
    "\"${}\"'${}'",
];

/// Heredoc forms; `{}` is a variable name.
const HEREDOCS: &[&str] = &[
    "cat <<EOF\n${} '${}'\nEOF",
    "cat <<'EOF'\n${} \"${}\"\nEOF",
    "cat <<\"EOF\"\n${}\nEOF",
    "cat <<\\EOF\n${}\nEOF",
    "cat <<-EOF\n\t${}\n\tEOF",
    "cat <<EOF\n\\${} ${}\nEOF",
];

fn fill(template: &str, next: &mut usize, names: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find("{}") {
        out.push_str(&rest[..i]);
        let name = format!("V{next}");
        *next += 1;
        out.push_str(&name);
        names.push(name);
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    out
}

/// The names whose marker (`@<name>@`) bash printed.
fn expanded_by_bash(script: &str, names: &[String]) -> BTreeSet<String> {
    let mut cmd = Command::new("bash");
    cmd.arg("--norc").arg("-c").arg(script).env_clear();
    for n in names {
        cmd.env(n, format!("@{n}@"));
    }
    let out = cmd.output().expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    names
        .iter()
        .filter(|n| text.contains(&format!("@{n}@")))
        .cloned()
        .collect()
}

#[test]
fn variables_match_what_bash_expands() {
    let Some(_) = crate::servers::find_or_skip("bash", &[], "runbooks_lexer_differential") else {
        return;
    };
    let mut cases = Vec::new();
    let mut next = 0;
    // Every pair of pieces as one word, and each piece alone.
    for a in PIECES {
        for b in PIECES.iter().chain([&""]) {
            let mut names = Vec::new();
            let word = fill(&format!("{a}{b}"), &mut next, &mut names);
            cases.push((format!("printf '%s\\n' {word}"), names));
        }
    }
    for h in HEREDOCS {
        let mut names = Vec::new();
        let script = fill(h, &mut next, &mut names);
        cases.push((script, names));
    }
    let mut wrong = Vec::new();
    for (script, names) in &cases {
        let bash = expanded_by_bash(script, names);
        let ours: BTreeSet<String> = shell_uses(script)
            .into_iter()
            .filter(|n| names.contains(n))
            .collect();
        if bash != ours {
            wrong.push(format!("{script:?}: bash {bash:?}, tsgnav {ours:?}"));
        }
    }
    assert!(cases.len() > 150, "{} cases", cases.len());
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
