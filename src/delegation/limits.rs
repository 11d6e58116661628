//! ADR 0279 clauses 7–9: the bounds of the resumable delegations. They stay code
//! constants (the ADR's "Out of scope": no user-visible settings).

/// Clause 7: reusable chains kept per agent name. Chains that cannot be resumed
/// (stopped, aborted, interrupted, over the read budget, nothing to replay) are bounded
/// separately by the same number, so they never push out a reusable one.
pub const MAX_RESUMABLE_CHAINS_PER_AGENT: usize = 2;
/// Clause 8: a chain is within the read budget while its lines are `<=` this.
pub const MAX_RESUMABLE_READ_LINES: u64 = 50_000;
/// Clause 9: files listed per chain in the resumable list.
pub const MAX_RESUMABLE_LISTED_FILES: usize = 8;
/// Clause 4: reusable chains an error lists (the unknown-id and no-history errors); the
/// rest are counted ("(+N more)"), so an error stays short on a registry of any size.
pub const MAX_CHAINS_IN_ERROR: usize = 20;
