//! The invariant checks of the fuzz targets, one module per target. Each `check(data)`
//! decodes its input from raw bytes and panics when an invariant fails. The fuzz targets
//! (`fuzz/fuzz_targets/*.rs`) and the stable replay test (`tests/fuzz_corpus.rs`) include
//! this module by path, so both run exactly the same code on the same bytes. Nothing here
//! needs nightly Rust or libFuzzer.

#![allow(dead_code)]

pub mod budget;
pub mod js;
pub mod message_facts;
pub mod provider;
pub mod registry_ops;
pub mod transcript_rows;
pub mod turn_boundary;

/// With `FUZZ_DEBUG` set, the checks print the input they decoded (and, for messages, the
/// JSON text) before checking it: `FUZZ_DEBUG=1 cargo +nightly fuzz run TARGET crash-...`.
pub fn debug(what: &dyn std::fmt::Debug) {
    if std::env::var_os("FUZZ_DEBUG").is_some() {
        eprintln!("{what:#?}");
    }
}

/// Bugs the fuzzers found that are not fixed yet (fuzz/README.md, "Known bugs"). While an
/// id is listed, the checks accept the library's current behaviour for the inputs that
/// meet it (and check everything else); the input that found it is in the committed
/// corpus. When the bug is fixed, remove its id: the replay test then checks the fix.
/// Empty: `budget-js-round` and `marks-unparsed-details` are fixed (their inputs stay in
/// the corpus as `crash-*`).
pub const KNOWN_BUGS: &[&str] = &[];

/// Whether bug `id` is listed in [`KNOWN_BUGS`].
#[allow(dead_code)] // used by a check while a bug is listed
pub fn known(id: &str) -> bool {
    KNOWN_BUGS.contains(&id)
}

/// A target's check.
pub type Check = fn(&[u8]);

/// Every target: its name (= its corpus directory) and its check.
pub const TARGETS: [(&str, Check); 5] = [
    ("message_facts", message_facts::check),
    ("transcript_rows", transcript_rows::check),
    ("budget", budget::check),
    ("turn_boundary", turn_boundary::check),
    ("registry_ops", registry_ops::check),
];
