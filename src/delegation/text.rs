//! Host-contract §6 and ADR 0279 clauses 2 and 12: a host's text field (an input's
//! strings, a Task call's arguments, a Task row's details) is read trimmed, and a blank
//! one is absent. Trimmed as JavaScript trims ([`js_whitespace`]).

use crate::js_whitespace;
use crate::text_build::Owned;

/// `text` trimmed; blank (or absent) is `None`.
#[inline(never)]
pub(crate) fn trimmed(text: Option<&str>) -> Option<&str> {
    text.map(js_whitespace::trim).filter(|t| !t.is_empty())
}

/// [`trimmed`], owned.
#[inline(never)]
pub(crate) fn non_blank(text: Option<&str>) -> Option<String> {
    trimmed(text).map(Owned::owned)
}
