//! host-contract §1: pi's closed sets of strings (a message's `role`, an assistant's
//! `stopReason`) as tables of `(value, text)`, read both ways by one pair of lookups
//! ([`crate::role`], [`crate::stop_reason`]). Exact match, as pi's `===`.

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
