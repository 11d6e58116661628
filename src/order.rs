//! One stable sort for the whole crate (issue 17 §7: `slice::sort` was compiled once per
//! element and comparator type, 45 copies and 66 KB of the module). The sort itself runs
//! once, on positions, through one comparator type; each caller only moves its elements
//! into the order found. Stable, like `slice::sort_by`: equal elements keep their order.

use std::cmp::Ordering;

/// `v` sorted by `cmp`, stable (as `v.sort_by(cmp)`).
pub fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let order = order_of(v.len(), &|a, b| cmp(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(
        order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take)),
    );
}

/// `v` sorted by `key`, stable (as `v.sort_by_key(key)`).
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

/// The positions `0..len` in the order `cmp` gives them, stable: runs of [`RUN`] sorted by
/// insertion, then merged bottom-up (runs of 16, 32, ...; the left run's element first on
/// a tie; two runs already in order copied as they are, so sorted input costs one
/// comparison per element and run). Not generic, and not the standard library's sort,
/// whose driftsort and small-sort networks were about 7 KB of the module for lists of a
/// few hundred files, rows or keys (issue 17 §7).
#[inline(never)]
fn order_of(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    for run in order.chunks_mut(RUN) {
        for k in 1..run.len() {
            let mut at = k;
            while at > 0 && cmp(run[at - 1], run[at]) == Ordering::Greater {
                run.swap(at - 1, at);
                at -= 1;
            }
        }
    }
    let mut merged = vec![0; len];
    let mut width = RUN;
    while width < len {
        for (at, out) in merged.chunks_mut(2 * width).enumerate() {
            let start = at * 2 * width;
            let (left, right) = order[start..start + out.len()].split_at(width.min(out.len()));
            let in_order = match (left.last(), right.first()) {
                (Some(&a), Some(&b)) => cmp(b, a) != Ordering::Less,
                _ => true,
            };
            if in_order {
                out.copy_from_slice(&order[start..start + out.len()]);
                continue;
            }
            let (mut i, mut j) = (0, 0);
            for slot in out.iter_mut() {
                let take_right = match (left.get(i), right.get(j)) {
                    (Some(&a), Some(&b)) => cmp(b, a) == Ordering::Less,
                    (None, _) => true,
                    (Some(_), None) => false,
                };
                if take_right {
                    *slot = right.get(j).copied().unwrap_or_default();
                    j += 1;
                } else {
                    *slot = left.get(i).copied().unwrap_or_default();
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// The length of the runs [`order_of`] sorts by insertion before merging.
const RUN: usize = 16;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard library's stable sort, ties included.
        #[test]
        fn same_as_the_standard_stable_sort(v in proptest::collection::vec((0u8..4, any::<u16>()), 0..60)) {
            let mut ours = v.clone();
            super::sort_by_key(&mut ours, |e| e.0);
            let mut std_sorted = v;
            std_sorted.sort_by_key(|e| e.0);
            prop_assert_eq!(ours, std_sorted);
        }
    }
}
