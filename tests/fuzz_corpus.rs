//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/*`) through the same checks
//! the cargo-fuzz targets run (`fuzz/checks`, included by path), on stable Rust, without
//! libFuzzer. A corpus input whose check panics fails this test; inputs that meet a bug
//! listed in `checks::KNOWN_BUGS` are accepted until it is fixed (see fuzz/README.md).
#![cfg(not(target_arch = "wasm32"))]

#[path = "../fuzz/checks/mod.rs"]
mod checks;

use std::path::Path;
use std::time::Instant;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("corpus entry").path();
            let bytes = std::fs::read(&path).expect("corpus file");
            (path.display().to_string(), bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn committed_corpus_passes_every_check() {
    let start = Instant::now();
    let mut failures = Vec::new();
    for (target, check) in checks::TARGETS {
        let t = Instant::now();
        let files = inputs(target);
        assert!(!files.is_empty(), "no committed corpus for {target}");
        for (name, bytes) in &files {
            let result = std::panic::catch_unwind(|| check(bytes));
            if result.is_err() {
                failures.push(name.clone());
            }
        }
        println!(
            "{target}: {} inputs replayed in {:.2}s",
            files.len(),
            t.elapsed().as_secs_f64()
        );
    }
    let o: Vec<usize> = checks::turn_boundary::OUTCOMES
        .iter()
        .map(|a| a.load(std::sync::atomic::Ordering::Relaxed))
        .collect();
    println!(
        "turn_boundary outcomes: {} unchanged, {} compacted, {} degraded, {} overflow, {} aborted",
        o[0], o[1], o[2], o[3], o[4]
    );
    println!("known bugs tolerated: {:?}", checks::KNOWN_BUGS);
    println!("total {:.2}s", start.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "failing corpus inputs: {failures:#?}");
}
