//! The clipboard through the terminal: OSC 52 (`ESC ] 52 ; c ; base64 BEL`), which terminals
//! honour over ssh and tmux passes on (`set-clipboard on`). Part of the runtime, the IO edge.

use std::io::Write;

use crate::tui::action::Action;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub(super) fn base64(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(B64[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Writes `text` to the clipboard; says so when the terminal could not be written.
pub(super) fn copy(text: &str) -> Vec<Action> {
    let seq = format!("\x1b]52;c;{}\x07", base64(text.as_bytes()));
    let mut out = std::io::stdout();
    match out.write_all(seq.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Vec::new(),
        Err(e) => vec![Action::Notice(format!(
            "Could not copy: the terminal did not take the text ({e})."
        ))],
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(super::base64("é\n".as_bytes()), "w6kK");
    }
}
