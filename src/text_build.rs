//! all (issue 17 §7): text built by code compiled once, not copied into every caller.
//!
//! [`Joined::joined`] is `join` as one small loop: std's `join` is an unchecked copy
//! loop compiled once per element type. [`Owned::owned`] is `to_string` of a `str` out
//! of line: std's is inlined at each of the ~120 call sites (allocation, its failure
//! path and the copy). [`Append`] is `push_str` and `push` out of line: inlined, each of
//! their ~200 call sites held its own capacity check, growth call and copy.

/// `parts` joined with `sep` between them (`[T]::join` for text).
pub trait Joined {
    /// The parts with `sep` between them.
    fn joined(&self, sep: &str) -> String;
}

// (the out-of-line twins themselves call what clippy.toml disallows elsewhere)
#[allow(clippy::disallowed_methods)]
impl<S: AsRef<str>> Joined for [S] {
    fn joined(&self, sep: &str) -> String {
        let len = self
            .iter()
            .map(|p| p.as_ref().len() + sep.len())
            .sum::<usize>();
        let mut out = String::with_capacity(len);
        for (i, part) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(part.as_ref());
        }
        out
    }
}

/// A string slice as an owned `String`, out of line: one copy of the allocation and the
/// byte copy for the module's call sites, not one inlined at each (issue 17 §7).
pub trait Owned {
    /// `self.to_string()`.
    fn owned(&self) -> String;
}

#[allow(clippy::disallowed_methods)]
impl Owned for str {
    #[inline(never)]
    fn owned(&self) -> String {
        let mut s = String::with_capacity(self.len());
        s.push_str(self);
        s
    }
}

/// `String::push_str` and `push`, out of line (issue 17 §7: inlined, each call site held
/// its own reserve and copy).
pub trait Append {
    /// `self.push_str(s)`.
    fn append(&mut self, s: &str);
    /// `self.push(c)`.
    fn append_char(&mut self, c: char);
}

#[allow(clippy::disallowed_methods)]
impl Append for String {
    #[inline(never)]
    fn append(&mut self, s: &str) {
        self.push_str(s)
    }
    #[inline(never)]
    fn append_char(&mut self, c: char) {
        self.push(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_is_join() {
        let parts = ["a", "", "é€", "b"];
        for n in 0..=parts.len() {
            for sep in ["", ", ", "\n"] {
                assert_eq!(parts[..n].joined(sep), parts[..n].join(sep));
                let owned: Vec<String> = parts[..n].iter().map(|p| p.to_string()).collect();
                assert_eq!(owned.joined(sep), owned.join(sep));
            }
        }
    }

    #[test]
    fn owned_and_append_are_to_string_and_push() {
        let mut ours = String::new();
        let mut std = String::new();
        for part in ["a", "", "é€", "\u{1F600}x"] {
            assert_eq!(part.owned(), part.to_string());
            ours.append(part);
            std.push_str(part);
            for c in part.chars() {
                ours.append_char(c);
                std.push(c);
            }
        }
        assert_eq!(ours, std);
    }
}
