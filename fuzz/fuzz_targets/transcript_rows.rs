#![no_main]
//! See fuzz/README.md and fuzz/checks/transcript_rows.rs (the invariants, shared with tests/fuzz_corpus.rs).

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::transcript_rows::check(data));
