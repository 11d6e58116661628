//! host-contract §1: pi's closed sets of strings (a message's `role`, an assistant's
//! `stopReason`) as tables of `(value, text)`, read both ways by one pair of lookups
//! ([`crate::role`], [`crate::stop_reason`]), and the keys a reader looks for in an
//! object ([`index_of`]). Exact match, as pi's `===`.

/// The index of `text` in `names`, if any (exact match). Never inlined: one loop for every
/// table of keys a reader matches against, not a copy unrolled against each table's
/// constants (issue 17 §7).
#[inline(never)]
pub fn index_of(names: &[&str], text: &str) -> Option<usize> {
    names.iter().position(|n| *n == text)
}

/// The value `text` names in `table`, if any.
pub fn value_of<T: Copy>(table: &[(T, &'static str)], text: &str) -> Option<T> {
    table
        .iter()
        .find(|(_, name)| *name == text)
        .map(|(v, _)| *v)
}

/// The text `value` has in `table`, if any.
pub fn text_of<T: Copy + PartialEq>(table: &[(T, &'static str)], value: T) -> Option<&'static str> {
    table
        .iter()
        .find(|(v, _)| *v == value)
        .map(|(_, name)| *name)
}
