//! Tests of text squashing and helpers.

use super::*;

#[test]
fn lines() {
    let idx = LineIndex::new("a\nbb\n\nc");
    assert_eq!(idx.line(0), 1);
    assert_eq!(idx.line(2), 2);
    assert_eq!(idx.line(5), 3);
    assert_eq!(idx.line(6), 4);
    assert_eq!(idx.start(2), Some(2));
    let mut near = 0;
    for offset in [0, 1, 2, 6, 5, 0, 4, 100, 3, 7] {
        assert_eq!(
            idx.line_near(offset, &mut near),
            idx.line(offset),
            "{offset}"
        );
    }
}

#[test]
fn counted_lines_are_indexed_lines() {
    let src = "a\nbb\n\nc".repeat(60) + "\n";
    let idx = LineIndex::new(&src);
    let mut counter = LineCounter::new(&src);
    for offset in [
        0, 1, 2, 6, 5, 0, 4, 100, 3, 7, 300, 299, 433, 434, 435, 1000, 2,
    ] {
        assert_eq!(counter.line(offset), idx.line(offset), "{offset}");
    }
    assert_eq!(counter.line(src.len()), idx.count());
    assert_eq!(LineCounter::new("").line(0), LineIndex::new("").count());
}

#[test]
fn keys() {
    assert_eq!(field_key("If/then outcome:"), "if-then");
    assert_eq!(field_key("Expected result"), "expected-result");
    assert_eq!(field_key("Goal:"), "goal");
    assert_eq!(field_key("Systems involved:"), "systems-involved");
    assert_eq!(squash("  a \n b  "), "a b");
}

#[test]
fn squash_bytes_match_the_unicode_reading() {
    let slow = squash_chars;
    for s in [
        "",
        " ",
        "one",
        " lead",
        "trail ",
        "a  b\t\tc\r\nd",
        "tab\x0bvertical\x0cform",
        "\x1c not whitespace \x1f",
        "`kubectl get pods` -n  x",
        "caf\u{e9}  cr\u{e8}me",
        "no\u{a0}break\u{2003}em\u{3000}ideographic",
        "\u{85}next\u{1680}ogham\u{2028}line\u{2029}para\u{202f}\u{205f}end\u{200a}",
        "\u{2013} dash \u{2192} arrow \u{e000}private \u{20ac}\u{a9}",
        "\u{3000}\u{3000}lead and trail\u{a0}\u{a0}",
        // Double spaces and other whitespace on each side of the eight-byte words.
        "seven b  eight by",
        "sevenby  ",
        "eightbyt  nine",
        "eightbyt ninebyte  x",
        "eightbyteightbyt",
        "eightbyteightbyt ",
        " eightbyteightbyt",
        "eightbyt\teightbyt",
        "eightbyteightby\n",
        "a b c d e f g h i j k l",
        "a b c d e f g h  i j k l",
        "caf\u{e9} eightbyt  x",
        "eightbyt\u{a0}eightbyt",
        "a\u{2003} b eightbyteightbyt",
    ] {
        assert_eq!(squash(s), slow(s), "{s:?}");
        assert_eq!(squash_owned(s.to_string()), slow(s), "{s:?}");
    }
}

proptest::proptest! {
    #[test]
    fn squash_bytes_match_on_any_text(s in "(\\PC|\\s){0,40}") {
        proptest::prop_assert_eq!(squash(&s), squash_chars(&s));
        proptest::prop_assert_eq!(squash_owned(s.clone()), squash_chars(&s));
    }

    /// Mostly ASCII words and single spaces, so whole eight-byte words are read at once.
    #[test]
    fn squash_owned_matches_on_ascii_text(s in "([a-c]{0,9}( |  |\t|\n|\u{a0})?){0,8}") {
        proptest::prop_assert_eq!(squash_owned(s.clone()), squash_chars(&s));
    }

    /// Non-ASCII letters and spaces among ASCII words: the eight-byte reading resumes after
    /// each byte read alone.
    #[test]
    fn squashed_text_is_told_apart_on_mixed_text(s in "([a-c]{0,9}(é|→|\u{a0}|\u{3000})?( |  |\t)?){0,10}") {
        proptest::prop_assert_eq!(is_squashed(&s), squash_chars(&s) == s);
    }
}

proptest::proptest! {
    /// What `walk` relies on for a label's value: a suffix of squashed text, its leading
    /// whitespace and colons cut, squashes to itself without its leading space.
    #[test]
    fn a_suffix_of_squashed_text_squashes_by_trimming(s in "([a-c:]{0,4}( |  |\t|\u{a0})?){0,8}", cut in 0usize..40) {
        let s = squash(&s);
        let cut = (0..=cut.min(s.len())).rev().find(|&c| s.is_char_boundary(c)).unwrap_or(0);
        let rest = s[cut..].trim_start().trim_start_matches(':');
        proptest::prop_assert_eq!(rest.trim_start().to_string(), squash(rest));
    }
}

/// `field_key` as first written: every letter or digit lower-cased as a `char`.
fn field_key_by_chars(label: &str) -> String {
    let mut key = String::new();
    for c in label.trim().trim_end_matches(':').chars() {
        if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        } else if !key.ends_with('-') && !key.is_empty() {
            key.push('-');
        }
    }
    super::canonical_key(key.trim_end_matches('-').to_string())
}

#[test]
fn a_field_key_lower_cases_any_letter_as_a_char_does() {
    for label in [
        "Goal:",
        "GOALS",
        "Pre-Conditions:",
        "If / Then outcome",
        "Étape 2",
        "İstanbul",
        "\u{212a}elvin",
        "STRAẞE",
        "  -- risks --  ",
        "",
        ":",
        "a::b",
        "Expected   Results:",
    ] {
        assert_eq!(field_key(label), field_key_by_chars(label), "{label:?}");
    }
    assert_eq!(field_key("İ-Ş"), "i\u{307}-ş");
}

proptest::proptest! {
    #[test]
    fn field_key_matches_the_char_reading(s in "([a-zA-Z0-9]|[ :/-]|İ|\u{212a}|É|ẞ|→|\u{a0}){0,16}") {
        proptest::prop_assert_eq!(field_key(&s), field_key_by_chars(&s));
    }
}

#[test]
fn blank_is_what_trims_to_nothing() {
    for t in [
        "",
        " ",
        "\t\n\r\x0b\x0c",
        "\x0b",
        "\x0c",
        "\u{a0}",
        " \u{2003} ",
        "\u{3000}",
        "a",
        " a",
        "\u{a0}a",
        "é",
        "\x0bx",
        "`",
        "\u{85}",
        "\u{1f}",
    ] {
        assert_eq!(is_blank(t), t.trim().is_empty(), "{t:?}");
    }
}

proptest::proptest! {
    #[test]
    fn blank_matches_trim(t in "[ \t\n\r\x0b\x0c\x1f\u{a0}\u{2003}\u{85}\u{3000}aé`→]{0,6}") {
        proptest::prop_assert_eq!(is_blank(&t), t.trim().is_empty());
    }
}
