//! Exports of the compaction concept (filled in by its issue).
