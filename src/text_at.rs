//! Slices of text without a panic path (issue 17 §7).
//!
//! `&s[a..b]` on a `str` checks that both ends are char boundaries and, when one is not,
//! panics through core's `slice_error_fail`, whose message formats the char with its
//! `Debug` (and the Unicode printable tables): about 5 KB of the module for a case that
//! cannot happen here, since every index these take comes from an ASCII delimiter or a
//! char boundary. These give `""` for a range that is not one, which no caller reaches.
//!
//! Text built from parts lives in [`crate::text_build`].

/// `&s[start..end]`.
#[inline]
pub fn span(s: &str, start: usize, end: usize) -> &str {
    s.get(start..end).unwrap_or("")
}

/// `&s[start..]`.
#[inline]
pub fn from(s: &str, start: usize) -> &str {
    s.get(start..).unwrap_or("")
}

/// `&s[..end]`.
#[inline]
pub fn upto(s: &str, end: usize) -> &str {
    s.get(..end).unwrap_or("")
}

/// The first place of the ASCII byte `b` in `s` (a char boundary, as is the next byte).
#[inline]
pub fn find_byte(s: &str, b: u8) -> Option<usize> {
    s.bytes().position(|c| c == b)
}

/// `s` before and after the first ASCII byte `b` (`str::split_once` with an ASCII char,
/// without core's char searcher).
pub fn split_once_byte(s: &str, b: u8) -> Option<(&str, &str)> {
    let at = find_byte(s, b)?;
    Some((upto(s, at), from(s, at + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_as_indexing_does_and_gives_empty_off_a_boundary() {
        let s = "aé€b";
        for (a, b) in [(0, 1), (1, 3), (3, 6), (0, 7), (6, 7)] {
            assert_eq!(span(s, a, b), &s[a..b]);
            assert_eq!(from(s, a), &s[a..]);
            assert_eq!(upto(s, b), &s[..b]);
        }
        // inside é (bytes 1..3) or €, or past the end
        assert_eq!(span(s, 2, 3), "");
        assert_eq!(span(s, 0, 4), "");
        assert_eq!(from(s, 2), "");
        assert_eq!(upto(s, 5), "");
        assert_eq!(from(s, 8), "");
        assert_eq!(span(s, 3, 1), "");
    }

    #[test]
    fn split_once_byte_is_split_once() {
        for s in ["a/b", "/b", "a/", "é/€/x", "no", "", "//"] {
            assert_eq!(split_once_byte(s, b'/'), s.split_once('/'), "{s}");
            assert_eq!(find_byte(s, b'/'), s.find('/'), "{s}");
        }
    }
}
