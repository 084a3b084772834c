//! Tests of alert routing.

use super::*;

#[test]
fn alert_names_and_urls() {
    assert!(alert_like("KubePodCrashLooping") && alert_like("etcdMembersDown"));
    assert!(!alert_like("README") && !alert_like("cluster-operator-down"));
    assert!(!alert_like("Overview") && !alert_like("Prometheus"));
    assert!(product_like("InfluxDB") && product_like("PostgreSQL") && product_like("MySQL"));
    assert!(!product_like("KubeAPIDown") && !product_like("TargetDown"));
    assert_eq!(
        sentence_alerts("This alert, RedisMemoryHigh, fires when the cache is full."),
        ["RedisMemoryHigh"]
    );
    assert_eq!(
        sentence_alerts("The `PatroniLag` alert fires."),
        ["PatroniLag"]
    );
    assert!(sentence_alerts("Grafana reads from InfluxDB and PostgreSQL.").is_empty());
    assert_eq!(
        url_path("https://x.org/runbooks/kubernetes/kubepodcrashlooping/"),
        "runbooks/kubernetes/kubepodcrashlooping"
    );
    assert_eq!(
        url_path("https://github.com/o/r/blob/main/a/B.md#x"),
        "o/r/blob/main/a/b"
    );
}

/// The reading the byte split must match: `str::split` at `char::is_whitespace`.
fn words_by_chars(text: &str) -> Vec<&str> {
    text.split(char::is_whitespace)
        .filter(|w| !w.is_empty())
        .collect()
}

#[test]
fn words_split_as_char_whitespace_does() {
    for text in [
        "",
        " ",
        "one",
        "  two  words ",
        "tab\tnew\nline\rret\x0bvt\x0cff end",
        "\x0bAlertName\x0b alert",
        "no\u{a0}break space\u{2003}em",
        "The `FooDown` alert fires.",
    ] {
        assert_eq!(
            Words::of(text).collect::<Vec<_>>(),
            words_by_chars(text),
            "{text:?}"
        );
    }
}

proptest::proptest! {
    #[test]
    fn words_match_the_char_split(s in "[ a-zA-Z\t\n\r\x0b\x0c\u{a0}é`,.]{0,40}") {
        proptest::prop_assert_eq!(Words::of(&s).collect::<Vec<_>>(), words_by_chars(&s));
    }
}
