//! The order of persisted rows (issue 34 §2): a host's store need not keep the order in
//! which rows were written (a table without an insertion column, a key-value store, a
//! sync), and `createdAt` cannot restore it (a turn's tool rows carry their assistant's
//! timestamp; a fast run writes many rows in one millisecond). So every row the package
//! writes carries `order`, a number, and every reader puts rows back in that order.
//!
//! - The key: [`next_key`] gives `floor(now) * 1000`, or one more than the last key given
//!   or read back in this process, whichever is larger (a hybrid logical clock: ordered by
//!   the wall clock across restarts, strictly increasing within one process however fast
//!   rows are written, and after every key a reader has seen: [`observe`]). Every writer
//!   of the module (the delegate run, the parent's recorder, the Task rows) takes its
//!   keys from the one clock, so rows of the parent and of its delegates interleave as
//!   they were written. A row rewritten in place (a settled Task row, a tool row when its
//!   result arrives) keeps the key of its first copy.
//! - The readers ([`arrange`]): rows with a key are put in key order among the places
//!   rows with a key hold; rows without one (written by the host itself, or before keys
//!   existed) keep their places. Rows that all carry keys read the same in any order.

use std::cell::Cell;

/// The largest key: JavaScript's `Number.MAX_SAFE_INTEGER` (every key is an integer a
/// JavaScript number holds exactly).
pub const MAX_KEY: f64 = 9_007_199_254_740_991.0;

thread_local! {
    /// The last key given or seen in this process (the module is single-threaded).
    static LAST: Cell<f64> = const { Cell::new(0.0) };
}

/// The key of a row written at `now` (milliseconds since the epoch): see the module docs.
/// A `now` that is not a finite positive number counts as 0 (the key is then one more
/// than the last).
#[inline(never)]
pub fn next_key(now: f64) -> f64 {
    LAST.with(|last| {
        let wall = if now.is_finite() && now > 0.0 {
            (now.floor() * 1000.0).min(MAX_KEY)
        } else {
            0.0
        };
        let key = wall.max((last.get() + 1.0).min(MAX_KEY));
        last.set(key);
        key
    })
}

/// A key read back from a stored row: later keys of this process are above it. Anything
/// that is not an integer key in range is ignored.
#[inline(never)]
pub fn observe(key: f64) {
    if is_key(key) {
        LAST.with(|last| last.set(last.get().max(key)));
    }
}

/// Whether `key` is an order key (a whole number in `0..=MAX_KEY`).
pub fn is_key(key: f64) -> bool {
    (0.0..=MAX_KEY).contains(&key) && key.fract() == 0.0
}

/// The reading order of rows whose keys are `keys` (`None`: no key): `out[slot]` is the
/// index of the row that reads at `slot`. Rows with a key fill the slots rows with a key
/// hold, in key order (equal keys in their given order); the others keep their slots.
/// Every key is [`observe`]d.
pub fn arrange(keys: &[Option<f64>]) -> Vec<usize> {
    let mut keyed: Vec<usize> = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        if let Some(k) = key.filter(|k| is_key(*k)) {
            observe(k);
            keyed.push(i);
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    if keyed.is_empty() {
        return order;
    }
    let mut sorted = keyed.clone();
    let key_of = |i: &usize| keys.get(*i).copied().flatten().unwrap_or(0.0);
    crate::order::sort_by(&mut sorted, |a, b| key_of(a).total_cmp(&key_of(b)));
    for (slot, row) in keyed.iter().zip(sorted) {
        if let Some(place) = order.get_mut(*slot) {
            *place = row;
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_wall_clock_and_never_repeat() {
        let a = next_key(1_000.0);
        assert!(a >= 1_000_000.0);
        let b = next_key(1_000.0);
        let c = next_key(999.0);
        assert_eq!((b, c), (a + 1.0, a + 2.0));
        let d = next_key(5_000.0);
        assert_eq!(d, d.max(5_000_000.0));
        assert!(d > c);
        observe(d + 100.0);
        assert_eq!(next_key(5_000.0), d + 101.0);
        // nothing but integer keys in range is observed
        for bad in [f64::NAN, -1.0, 1.5, MAX_KEY * 2.0, f64::INFINITY] {
            observe(bad);
        }
        assert_eq!(next_key(f64::NAN), d + 102.0);
        assert_eq!(next_key(-5.0), d + 103.0);
        assert_eq!(next_key(f64::INFINITY), d + 104.0);
        assert_eq!(next_key(f64::NEG_INFINITY), d + 105.0);
        // a clock at 0 or before it gives no wall time either
        assert_eq!(next_key(0.0), d + 106.0);
        assert_eq!(next_key(-0.0), d + 107.0);
    }

    #[test]
    fn keyed_rows_take_the_keyed_slots_in_key_order() {
        let k = |v: f64| Some(v);
        assert_eq!(arrange(&[]), Vec::<usize>::new());
        assert_eq!(arrange(&[None, None]), vec![0, 1]);
        assert_eq!(arrange(&[k(3.0), k(1.0), k(2.0)]), vec![1, 2, 0]);
        // unkeyed rows keep their places; equal keys keep their given order
        assert_eq!(
            arrange(&[None, k(9.0), None, k(4.0), k(4.0), None]),
            vec![0, 3, 2, 4, 1, 5]
        );
        // a value that is not a key is no key
        assert_eq!(arrange(&[k(2.0), k(f64::NAN), k(1.0)]), vec![2, 1, 0]);
    }
}
