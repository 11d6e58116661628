//! Exports of the delegation concept (filled in by its issue).
