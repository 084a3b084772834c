//! Text from a guide or a probe shown as data: every character that a terminal would act
//! on or that a reader cannot see is written as a visible token instead (`⟨ESC⟩`, `⟨CR⟩`,
//! `⟨U+200B⟩`, `⟨U+202E⟩`), so what is shown is what runs and a probe's output cannot set the
//! terminal's title, write the clipboard (OSC 52), clear the screen, move the cursor or
//! reorder text with bidi controls. Newlines and tabs stay as they are. The confirmation
//! screen and `tsgnav run`'s text output both use [`visible`].
//!
//! A leaf: imports nothing of the crate, and no IO.

/// The name of an invisible or acting character, or `None` for one shown as itself.
fn token(c: char) -> Option<String> {
    let named = match c {
        '\n' | '\t' => return None,
        '\u{1b}' => "ESC",
        '\r' => "CR",
        '\0' => "NUL",
        '\u{7}' => "BEL",
        '\u{8}' => "BS",
        '\u{7f}' => "DEL",
        c if invisible(c) => return Some(format!("⟨U+{:04X}⟩", u32::from(c))),
        _ => return None,
    };
    Some(format!("⟨{named}⟩"))
}

/// Control characters (C0, C1), format characters (zero-width, joiners, bidi embeddings,
/// overrides and isolates, the BOM, tags) and spaces other than U+0020 that look like one.
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            u32::from(c),
            0xAD | 0x34F | 0x61C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
                | 0xA0 | 0x1680 | 0x2000..=0x200F | 0x2028..=0x202F | 0x205F..=0x206F
                | 0x3000 | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB
                | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF
        )
}

/// `text` with each invisible or acting character written as a visible token; a CR that
/// ends a line before its LF (`\r\n`) is dropped, since it only ends the line.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        match token(c) {
            Some(t) => out.push_str(&t),
            None => out.push(c),
        }
    }
    out
}

/// Whether `text` holds anything [`visible`] would rewrite.
pub fn has_invisible(text: &str) -> bool {
    text.chars().any(|c| token(c).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acting_and_invisible_characters_become_tokens() {
        for (raw, shown) in [
            ("web-1\u{200b}", "web-1⟨U+200B⟩"),
            ("\u{1b}]0;owned\u{7}", "⟨ESC⟩]0;owned⟨BEL⟩"),
            ("\u{1b}]52;c;ZXZpbA==\u{1b}\\", "⟨ESC⟩]52;c;ZXZpbA==⟨ESC⟩\\"),
            ("\u{1b}[2J\u{1b}[H", "⟨ESC⟩[2J⟨ESC⟩[H"),
            ("ok\rrm -rf /", "ok⟨CR⟩rm -rf /"),
            ("a\r\nb", "a\nb"),
            ("\u{202e}txt.exe", "⟨U+202E⟩txt.exe"),
            ("\u{2066}x\u{2069}", "⟨U+2066⟩x⟨U+2069⟩"),
            ("\u{9b}31m", "⟨U+009B⟩31m"),
            ("no\u{a0}break", "no⟨U+00A0⟩break"),
            ("\u{feff}bom", "⟨U+FEFF⟩bom"),
            ("tab\tand\nline", "tab\tand\nline"),
            ("ünïcödé ✓ 名前", "ünïcödé ✓ 名前"),
        ] {
            assert_eq!(visible(raw), shown, "{raw:?}");
            assert_eq!(has_invisible(raw), raw != shown, "{raw:?}");
        }
    }
}
