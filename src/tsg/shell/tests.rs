//! Unit tests of the shell parser.

use super::*;

fn words(script: &str) -> Vec<Vec<String>> {
    commands(script).into_iter().map(|c| c.words).collect()
}

fn w(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

#[test]
fn splits_on_every_separator() {
    let got = words("a 1 | b 2 && c || d; e & f\ng");
    let names: Vec<&str> = got.iter().map(|c| c[0].as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g"]);
    assert_eq!(got[0], w(&["a", "1"]));
}

#[test]
fn lines_and_continuations() {
    let cmds = commands("kubectl get pods \\\n  -n x\n\n# note\necho hi # trailing");
    assert_eq!(cmds.len(), 2);
    assert_eq!(cmds[0].words, w(&["kubectl", "get", "pods", "-n", "x"]));
    assert_eq!(cmds[0].line, 1);
    assert_eq!(
        (cmds[1].line, cmds[1].words.clone()),
        (5, w(&["echo", "hi"]))
    );
}

#[test]
fn quotes_are_removed_and_remembered() {
    let cmds = commands(r#"grep "a b" 'c|d' e\ f "x\"y" plain"#);
    assert_eq!(
        cmds[0].words,
        w(&["grep", "a b", "c|d", "e f", "x\"y", "plain"])
    );
    assert_eq!(cmds[0].quoted, [false, true, true, true, true, false]);
}

#[test]
fn variables_stay_as_text() {
    let cmds = commands(r#"grep "${CLUSTER_ID}" $FILE"#);
    assert_eq!(cmds[0].words, w(&["grep", "${CLUSTER_ID}", "$FILE"]));
}

#[test]
fn while_if_case_and_groups() {
    let s = "while read x; do echo $x; done < f\nif test -f a; then rm a; else touch b; fi\n\
             case $1 in\n  start|go) run1 ;;\n  *) run2 ;;\nesac\n{ a; b; }\n(cd d && ls)\nf() { g; }";
    let names: Vec<String> = commands(s)
        .into_iter()
        .filter_map(|c| c.words.first().cloned())
        .collect();
    assert_eq!(
        names,
        ["read", "echo", "test", "rm", "touch", "run1", "run2", "a", "b", "cd", "ls", "g"]
    );
}

#[test]
fn keywords_as_arguments_are_words() {
    assert_eq!(
        words("echo done if then"),
        [w(&["echo", "done", "if", "then"])]
    );
}

#[test]
fn prefix_assignments_and_export() {
    let cmds = commands("A=1 B=\"x y\" make e2e\nexport X=$(az account show)\nY=2");
    assert_eq!(cmds[0].assigns, w(&["A=1", "B=x y"]));
    assert_eq!(cmds[0].words, w(&["make", "e2e"]));
    assert!(cmds
        .iter()
        .any(|c| c.words == w(&["export", "X=$(az account show)"])));
    assert!(cmds
        .iter()
        .any(|c| c.words == w(&["az", "account", "show"]) && c.line == 2));
    assert!(cmds
        .iter()
        .any(|c| c.words.is_empty() && c.assigns == w(&["Y=2"])));
}

#[test]
fn array_assignment_is_not_a_command() {
    assert_eq!(
        words("ARR=(one two)\necho ok"),
        [Vec::<String>::new(), w(&["echo", "ok"])]
    );
}

#[test]
fn redirects_are_collected() {
    let cmds = commands("kubectl get x > out.txt 2>&1\ncat < in 2>/dev/null >> log");
    assert_eq!(cmds[0].words, w(&["kubectl", "get", "x"]));
    let ops: Vec<_> = cmds[0]
        .redirects
        .iter()
        .map(|r| (r.op, r.target.as_str(), r.writes_file()))
        .collect();
    assert_eq!(ops, [(">", "out.txt", true), (">&", "1", false)]);
    let writes: Vec<_> = cmds[1].redirects.iter().map(|r| r.writes_file()).collect();
    assert_eq!(writes, [false, false, true]);
}

#[test]
fn placeholders_are_words_not_redirects() {
    let cmds = commands(
        "kubectl describe mtpnc <pod-name> -n <namespace>\nkubectl get podnetwork pn-<cluster-id>",
    );
    assert_eq!(
        cmds[0].words,
        w(&[
            "kubectl",
            "describe",
            "mtpnc",
            "<pod-name>",
            "-n",
            "<namespace>"
        ])
    );
    assert!(cmds[0].redirects.is_empty());
    assert_eq!(cmds[1].words[3], "pn-<cluster-id>");
    let spaced = commands("kubectl logs <pod name> | sort <in >out");
    assert_eq!(spaced[0].words, w(&["kubectl", "logs", "<pod name>"]));
    assert_eq!(spaced[1].redirects.len(), 2);
}

#[test]
fn basename_strips_directories() {
    assert_eq!(basename("/usr/bin/kubectl"), "kubectl");
    assert_eq!(basename("./fix.sh"), "fix.sh");
    assert_eq!(commands("/bin/sh x")[0].name(), Some("sh"));
    assert_eq!(basename("//"), "//");
    assert_eq!(commands("A=1 kubectl get")[0].text(), "A=1 kubectl get");
    let cmd = &commands("az account set -n 'My Sub' > out.txt 2>&1")[0];
    assert_eq!(cmd.text(), "az account set -n 'My Sub' >out.txt 2>&1");
}

#[test]
fn redirect_descriptors_are_kept() {
    let cmd = &commands("kubectl logs x 2>/dev/null 3>>log")[0];
    let got: Vec<_> = cmd.redirects.iter().map(|r| (r.fd, r.op)).collect();
    assert_eq!(got, [(Some(2), ">"), (Some(3), ">>")]);
    assert_eq!(cmd.words, w(&["kubectl", "logs", "x"]));
}

#[test]
fn console_line_ends() {
    use super::quoting::{line_end, LineEnd};
    let e = |line: &str, q: Option<char>| line_end(line, q);
    assert_eq!(e("echo 'a", None).quote, Some('\''));
    assert_eq!(
        e("b' | c", Some('\'')),
        LineEnd {
            quote: None,
            more: false,
            heredocs: vec![]
        }
    );
    assert!(e("kubectl get pods \\", None).more);
    assert!(
        !e("echo a\\\\", None).more,
        "an escaped backslash does not continue"
    );
    assert!(e("kubectl get pods |", None).more && e("a &&", None).more && e("a ||", None).more);
    assert!(!e("echo 'x |'", None).more, "a pipe inside quotes");
    assert!(!e("echo x # see below |", None).more, "a pipe in a comment");
    assert_eq!(
        e("cat <<-EOF | kubectl apply -f - && cat <<'X'", None).heredocs,
        vec![("EOF".to_string(), true), ("X".to_string(), false)]
    );
    assert_eq!(
        e("\"still open", Some('"')).quote,
        None,
        "the carried quote closes"
    );
}

proptest::proptest! {
    /// Lines read without the lexer end as the lexer reads them.
    #[test]
    fn a_line_end_without_the_lexer_is_the_lexers(
        line in r#"[ \t\r]{0,2}#?[a-z \t$|&();`{}='"\\#<>-]{0,20}\\{0,2}[ ]?"#
    ) {
        use super::quoting::{line_end, line_end_lexed};
        proptest::prop_assert_eq!(line_end(&line, None), line_end_lexed(&line, None));
        proptest::prop_assert_eq!(line_end(&line, Some('"')), line_end_lexed(&line, Some('"')));
    }
}
