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

/// The reading `sentence_alerts` must match, word by word as it was first written: every word
/// with the one before it and the two after it.
fn by_every_word(text: &str) -> Vec<&str> {
    let bare = super::sentence::bare;
    let words = words_by_chars(text);
    let alert_word = |b: &str| b.eq_ignore_ascii_case("alert") || b.eq_ignore_ascii_case("alerts");
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let name = bare(w);
        let before = k.checked_sub(1).map(|j| bare(words[j]));
        let after = words.get(k + 1).map(|w| bare(w));
        let then = words.get(k + 2).map(|w| bare(w));
        let named = before.is_some_and(alert_word)
            || after.is_some_and(alert_word)
            || after.is_some_and(|a| matches!(a, "fires" | "triggers" | "fired"))
                && then == Some("when");
        let glob = w
            .trim_end_matches(['`', ',', '.', ':', ';', ')'])
            .ends_with('*')
            && !w.trim_start_matches('`').starts_with('*');
        if named && !glob && alert_like(name) && !product_like(name) && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Sentences of every shape the words around an anchor can take: each is read as the
/// word-by-word reading reads it, and most name something, so the check has something to see.
#[test]
fn the_words_beside_an_anchor_are_read_as_every_word_is() {
    let cases = [
        (
            "This alert, RedisMemoryHigh, fires when the cache is full.",
            &["RedisMemoryHigh"][..],
        ),
        ("The `PatroniLag` alert fires.", &["PatroniLag"]),
        (
            "The `EtcdQuorumLost` ALERT means two members are down.",
            &["EtcdQuorumLost"],
        ),
        ("Alerts: KubeApiDown and KubeletDown", &["KubeApiDown"]),
        (
            "alerts KubeApiDown, alert KubeletDown.",
            &["KubeApiDown", "KubeletDown"],
        ),
        (
            "KubeletDown fires when KubeApiDown fired when x",
            &["KubeletDown", "KubeApiDown"],
        ),
        ("KubeletDown Fires when it can", &[]),
        ("KubeletDown fires When it can", &[]),
        ("KubeletDown triggers `when` it can", &["KubeletDown"]),
        ("KubeletDown triggered when it can", &[]),
        ("KubeletDown firesalert when", &[]),
        ("`userJourneySwift*` alerts fire together", &[]),
        (
            "alert userJourneySwift*, alert *FooBarDown",
            &["FooBarDown"],
        ),
        ("InfluxDB alert and PostgreSQL alert", &[]),
        (
            "FooBarDown alert FooBarDown alert BazQuxUp",
            &["FooBarDown", "BazQuxUp"],
        ),
        ("alert\u{a0}FooBarDown", &["FooBarDown"]),
        (
            "alert\u{2003}FooBarDown\talert\x0bBazQuxUp\x0c",
            &["FooBarDown", "BazQuxUp"],
        ),
        ("é alert FooBarDown alert éBazQuxUp", &["FooBarDown"]),
        ("alertalert FooBarDown firefire trigger", &[]),
        ("FooBarDown alert", &["FooBarDown"]),
        ("alert FooBarDown", &["FooBarDown"]),
        ("alert", &[]),
        ("", &[]),
        ("FooBarDown fires", &[]),
        (
            "(alert) FooBarDown; FooBarDown: \"alerts\"",
            &["FooBarDown"],
        ),
    ];
    for (text, want) in cases {
        assert_eq!(sentence_alerts(text), want, "{text:?}");
        assert_eq!(sentence_alerts(text), by_every_word(text), "{text:?}");
    }
    // A word of ten thousand anchors is one word: nothing beside it, read once.
    let long = format!("FooBarDown {} BazQuxUp", "alert".repeat(10_000));
    assert!(sentence_alerts(&long).is_empty());
}

proptest::proptest! {
    #[test]
    fn sentence_alerts_reads_as_every_word_does(
        s in "(alert|ALERT|Alerts|alerts,|`FooBarDown`|FooBarDown|BarDown\\*|\\*Up|InfluxDB|fires|fired|Fires|triggers|trigger|fire|when|When|\"when\"|x|r|R|é|\u{a0}|\u{2003}| |\t|\x0b|,|\\.|`|:){0,16}"
    ) {
        proptest::prop_assert_eq!(sentence_alerts(&s), by_every_word(&s));
    }
}
