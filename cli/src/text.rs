//! Making text from a file safe to print on a terminal.
//!
//! Metadata, car names and versions come from files strangers send. A
//! control character in them could move the cursor, clear the screen or
//! change the colours of the reader's terminal, and a bidirectional
//! override could make text read differently from what it is. Such
//! characters are printed as escapes instead; JSON output escapes them by
//! its own rules.

/// `s` with control characters and bidirectional overrides escaped
/// (`\n`, `\u{1b}`, …); everything else unchanged.
#[must_use]
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || is_bidi_control(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The Unicode bidirectional embedding, override and isolate controls.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn controls_are_escaped_and_text_is_kept() {
        for (input, expected) in [
            ("Brandwood Park", "Brandwood Park"),
            ("café ✓", "café ✓"),
            ("a\nb", "a\\nb"),
            ("\u{1b}[2Jgone", "\\u{1b}[2Jgone"),
            ("tab\there", "tab\\there"),
            ("\u{202e}evil", "\\u{202e}evil"),
            ("nul\0", "nul\\u{0}"),
        ] {
            assert_eq!(printable(input), expected, "{input:?}");
        }
    }
}
