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

/// Words holding a `<target>` placeholder in every quoting context the shell has.
const PLACED: &[&str] = &[
    "<target>",
    "'<target>'",
    "\"<target>\"",
    "x<target>y",
    "\"a'<target>'b\"",
    "'a'\"<target>\"",
    "'-<target>-'\"+<target>+\"",
    "\"$(printf '[%s]' <target>)\"",
    "\"`printf %s <target>`\"",
];

/// Runs `script` in bash with `env` and returns what it printed.
fn bash_output(script: &str, env: &[(String, String)]) -> String {
    let out = Command::new("bash")
        .arg("--norc")
        .arg("-c")
        .arg(script)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("bash runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Substitution asks the lexer how each placeholder is quoted: for every context, bash prints
/// exactly what it prints when the guide's author types a plain value there, and a hostile
/// value comes out whole and inert (one word, nothing run, nothing globbed).
#[test]
fn substituted_values_land_where_bash_reads_the_placeholder() {
    use tsgnav::query::vars::substitute;
    use tsgnav::tsg::Lang;
    let Some(_) = crate::servers::find_or_skip("bash", &[], "runbooks_lexer_substitution") else {
        return;
    };
    const HOSTILE: &str = "a b';echo PWNED;'\"$(echo PWNED)\" *";
    let mut cases: Vec<String> = PLACED
        .iter()
        .map(|w| format!("printf '<%s>\\n' {w}"))
        .collect();
    cases.push("cat <<EOF\nx <target> '<target>' \"<target>\"\nEOF".into());
    cases.push("printf '<%s>\\n' <target> # <target> in a comment".into());
    let mut wrong = Vec::new();
    for script in &cases {
        let typed = bash_output(&script.replace("<target>", "PLAIN"), &[]);
        for (value, expect) in [
            ("PLAIN", typed.clone()),
            (HOSTILE, typed.replace("PLAIN", HOSTILE)),
        ] {
            let b = [("target".to_string(), value.to_string())]
                .into_iter()
                .collect();
            let sub = substitute(Lang::Shell, script, &b).expect("substitutes");
            assert!(
                !sub.text.contains(value),
                "value pasted into {:?}",
                sub.text
            );
            let got = bash_output(&sub.text, &sub.env);
            if got != expect || got.contains("PWNED\n") {
                wrong.push(format!(
                    "{script:?} = {value:?}: bash printed {got:?}, want {expect:?}"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A placeholder in a quoted heredoc body cannot be filled (the shell expands nothing there):
/// the error says so and names the fix.
#[test]
fn a_placeholder_in_a_quoted_heredoc_is_refused_with_the_fix() {
    use tsgnav::query::vars::substitute;
    use tsgnav::tsg::Lang;
    let b = [("node".to_string(), "n1".to_string())]
        .into_iter()
        .collect();
    let e = substitute(Lang::Shell, "cat <<'EOF'\nname: <node>\nEOF", &b).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("<node>") && text.contains("<<EOF"), "{text}");
    let ok = substitute(Lang::Shell, "cat <<EOF\nname: <node>\nEOF", &b).unwrap();
    assert_eq!(ok.text, "cat <<EOF\nname: ${TSGNAV_VAR_NODE}\nEOF");
}
