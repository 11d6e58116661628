//! JavaScript's white space (ECMA-262 WhiteSpace and LineTerminator): what a regex's `\s`
//! matches (pi's patterns, host-contract §5) and what `String.prototype.trim` removes (the
//! host's and pi's "trimmed", "blank", "trim" of names, ids, texts: host-contract §1, §6,
//! ADR 0279). Not Rust's `trim`, whose White_Space set differs in two characters: it
//! removes U+0085 (NEXT LINE), which JavaScript keeps, and keeps U+FEFF (the byte order
//! mark), which JavaScript removes. Checked against Node's own `trim` in the tests
//! (tests/data/string-table.json).

/// Whether `c` is JavaScript white space: tab, vertical tab, form feed, space, no-break
/// space, U+FEFF, the space separators (Zs), and the line terminators (LF, CR, U+2028,
/// U+2029).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `String.prototype.trim`: `s` without its leading and trailing white space.
#[inline(never)]
pub fn trim(s: &str) -> &str {
    let s = trim_start(s);
    let end = s
        .char_indices()
        .rev()
        .find(|&(_, c)| !is_js_space(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    s.get(..end).unwrap_or(s)
}

/// `String.prototype.trimStart`.
#[inline(never)]
pub fn trim_start(s: &str) -> &str {
    let start = s
        .char_indices()
        .find(|&(_, c)| !is_js_space(c))
        .map_or(s.len(), |(i, _)| i);
    s.get(start..).unwrap_or(s)
}

/// Whether `s.trim()` is empty in JavaScript.
#[inline(never)]
pub fn is_blank(s: &str) -> bool {
    trim_start(s).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node's `trim` on every character some engine calls white space, at either end and
    /// inside (tests/data/string-table.json, recorded by tests/js/string-table.test.mjs).
    #[test]
    fn trim_as_javascript_trims() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("../tests/data/string-table.json"))
                .expect("tests/data/string-table.json");
        let rows = table["trim"].as_array().expect("trim rows");
        assert!(rows.len() > 80);
        for row in rows {
            let (text, want) = (row[0].as_str().expect("text"), row[1].as_str());
            let codes: Vec<u32> = text.chars().map(u32::from).collect();
            assert_eq!(Some(trim(text)), want, "{codes:x?}");
            assert_eq!(is_blank(text), want == Some(""), "{codes:x?}");
            assert!(
                want.is_some_and(|w| trim_start(text).starts_with(w)),
                "{codes:x?}"
            );
        }
    }

    /// The whole set, against every char: JavaScript's is Rust's White_Space less U+0085
    /// plus U+FEFF.
    #[test]
    fn every_char_against_rusts_white_space() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let want = (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}';
            assert_eq!(is_js_space(c), want, "U+{:04X}", c as u32);
        }
    }
}
