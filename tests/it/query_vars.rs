//! Variables: sources and precedence, missing values named with the flag that sets them, and
//! safe substitution into shell, KQL, PromQL and URLs (values never become code).

use tsgnav::query::vars::*;
use tsgnav::query::{Bindings, ProbeError};
use tsgnav::tsg::Lang;

fn b(pairs: &[(&str, &str)]) -> Bindings {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const EVIL: &str = "x'; touch /tmp/pwned; echo '";

#[test]
fn sources_rank_and_names_canonicalise() {
    let mut v = Vars::new();
    assert!(v.set("node-name", "a", Source::Config));
    assert!(v.set("NODE_NAME", "b", Source::Flag));
    assert!(
        !v.set("Node Name", "c", Source::Probe),
        "a probe does not override --var"
    );
    assert_eq!(v.get("<node-name>".trim_matches(['<', '>'])), Some("b"));
    assert_eq!(parse_assignment("A=b=c"), Ok(("A".into(), "b=c".into())));
    assert!(parse_assignment("novalue").unwrap_err().contains("--var"));
}

#[test]
fn missing_value_names_the_variable_and_the_flag() {
    let v = Vars::new();
    let e = v
        .resolve(Lang::Shell, "kubectl describe node <node-name>")
        .unwrap_err();
    assert_eq!(
        e,
        ProbeError::MissingVar {
            name: "NODE_NAME".into()
        }
    );
    assert!(e.to_string().contains("--var NODE_NAME=…"));
    // A variable the probe assigns itself, and the environment, are not asked for.
    let ok = v
        .resolve(Lang::Shell, "X=$(date); echo \"$X $HOME\"")
        .unwrap();
    assert!(ok.is_empty());
}

#[test]
fn shell_placeholders_become_quoted_env_references_in_every_quote_context() {
    let code = "kubectl describe node <node-name>; echo \"n=<node-name>\"; jq '.x == \"<node-name>\"' f; echo $NS";
    let s = substitute(Lang::Shell, code, &b(&[("node-name", EVIL), ("NS", EVIL)])).unwrap();
    assert_eq!(
        s.text,
        "kubectl describe node \"${TSGNAV_VAR_NODE_NAME}\"; echo \"n=${TSGNAV_VAR_NODE_NAME}\"; \
         jq '.x == \"'\"${TSGNAV_VAR_NODE_NAME}\"'\"' f; echo $NS"
    );
    assert!(
        !s.text.contains("pwned"),
        "the value never enters the script"
    );
    assert!(s.env.contains(&("NS".to_string(), EVIL.to_string())));
    assert!(s
        .env
        .contains(&("TSGNAV_VAR_NODE_NAME".to_string(), EVIL.to_string())));
}

#[test]
fn kql_and_promql_values_are_escaped_string_literals() {
    let kql = "let ccpId = \"${CCP_ID}\";\nT | where namespace == ccpId and region == '{region}'";
    let s = substitute(Lang::Kql, kql, &b(&[("CCP_ID", "a\"b"), ("region", EVIL)])).unwrap();
    assert_eq!(s.text, "let ccpId = \"a\\\"b\";\nT | where namespace == ccpId and region == 'x\\'; touch /tmp/pwned; echo \\''");
    let p = substitute(
        Lang::Promql,
        "up{node=\"<node-name>\"}",
        &b(&[("node-name", "$(touch /tmp/pwned)\"}")]),
    )
    .unwrap();
    assert_eq!(p.text, "up{node=\"$(touch /tmp/pwned)\\\"}\"}");
}

#[test]
fn a_value_outside_a_literal_must_be_a_plain_word() {
    let ok = substitute(Lang::Promql, "rate(x[<window>])", &b(&[("window", "15m")])).unwrap();
    assert_eq!(ok.text, "rate(x[15m])");
    let e = substitute(Lang::Kql, "T | take <n>", &b(&[("n", "1 | drop")])).unwrap_err();
    assert!(e.to_string().contains("outside a string literal"), "{e}");
}

#[test]
fn url_encoding() {
    assert_eq!(
        url_encode("consumer_name='a b'&x"),
        "consumer_name%3D%27a%20b%27%26x"
    );
}
