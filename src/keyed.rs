//! The crate's one hash table type, for every table by string key (issue 17 §7): std's
//! `HashMap` compiled hashbrown's insert, rehash and probe once per key and value type,
//! and hashed with SipHash; this table's probing, growing and removal live in one
//! non-generic index, compiled once.
//!
//! [`Table`] keeps its entries (key and value) in a list, in the order they came (a
//! removal moves the last entry into the hole, as `Vec::swap_remove`), and an index of
//! slots: open addressing with linear probing over a power-of-two number of slots, at
//! most three quarters full, each empty or holding an entry's number and its key's hash
//! (FNV-1a over the key's bytes), so a probe compares keys only on equal hashes and
//! growing re-places slots without hashing a key again. A removal empties its slot and
//! shifts the later slots of its run back (no tombstones), then re-points the slot of
//! the entry that moved.
//!
//! FNV-1a has no secret key: keys chosen to collide make lookups slow, never wrong. The
//! keys here are ids from the host's own transcript and calls.

/// A key's hash: FNV-1a (32 bits) over its bytes.
#[inline(never)] // one copy in the module, not one per table operation
fn hash(key: &str) -> u32 {
    key.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// One slot of the index: empty, or an entry's number and its key's hash.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    hash: u32,
    /// `0` empty, `e + 1` entry `e` (a table of 2^32 entries would not fit in wasm32's
    /// memory).
    entry: u32,
}

impl Slot {
    fn entry(self) -> Option<usize> {
        (self.entry as usize).checked_sub(1)
    }
}

/// Where each entry is, by hash; the entries themselves live in [`Table`].
#[derive(Debug, Default)]
struct Index {
    /// A power of two long (or empty).
    slots: Vec<Slot>,
}

impl Index {
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// The entry of `hash` that `same` accepts, or the empty slot where it would go.
    #[inline(never)]
    fn find(&self, hash: u32, same: &dyn Fn(usize) -> bool) -> Result<usize, usize> {
        let mask = self.mask();
        let mut at = hash as usize & mask;
        while let Some(&slot) = self.slots.get(at) {
            let Some(entry) = slot.entry() else {
                return Err(at);
            };
            if slot.hash == hash && same(entry) {
                return Ok(entry);
            }
            at = (at + 1) & mask;
        }
        Err(at)
    }

    /// The slot of `entry`, whose hash is `hash`.
    fn slot_of(&self, entry: usize, hash: u32) -> Option<usize> {
        let mask = self.mask();
        let mut at = hash as usize & mask;
        loop {
            match self.slots.get(at)?.entry() {
                None => return None,
                Some(e) if e == entry => return Some(at),
                Some(_) => at = (at + 1) & mask,
            }
        }
    }

    /// Room for entry number `len`: at three quarters full the slots double and every
    /// entry is placed again.
    #[inline(never)]
    fn reserve(&mut self, len: usize) {
        if (len + 1) * 4 <= self.slots.len() * 3 {
            return;
        }
        let size = (self.slots.len() * 2).max(8);
        let mask = size - 1;
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for slot in old.into_iter().filter(|slot| slot.entry != 0) {
            let mut at = slot.hash as usize & mask;
            while self.slots.get(at).is_some_and(|s| s.entry != 0) {
                at = (at + 1) & mask;
            }
            if let Some(s) = self.slots.get_mut(at) {
                *s = slot;
            }
        }
    }

    /// Entry `entry` of hash `hash` in the empty slot `at` (from [`Index::find`] after
    /// [`Index::reserve`]).
    fn put(&mut self, at: usize, hash: u32, entry: usize) {
        if let Some(slot) = self.slots.get_mut(at) {
            *slot = Slot {
                hash,
                entry: (entry + 1) as u32,
            };
        }
    }

    /// Entry `entry` of hash `hash` leaves: its slot empties and the later slots of its
    /// run shift back where their probe allows; then `moved`, the last entry (its number
    /// and hash) if another, takes number `entry` (as `Vec::swap_remove`).
    fn remove(&mut self, entry: usize, hash: u32, moved: Option<(usize, u32)>) {
        let Some(mut hole) = self.slot_of(entry, hash) else {
            return;
        };
        let mask = self.mask();
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let Some(&slot) = self.slots.get(at).filter(|s| s.entry != 0) else {
                break;
            };
            // the slot may move back to the hole when the hole lies on its probe path,
            // from its home slot to where it is
            let home = slot.hash as usize & mask;
            if at.wrapping_sub(home) & mask >= at.wrapping_sub(hole) & mask {
                if let Some(h) = self.slots.get_mut(hole) {
                    *h = slot;
                }
                hole = at;
            }
        }
        if let Some(h) = self.slots.get_mut(hole) {
            *h = Slot::default();
        }
        if let Some((last, last_hash)) = moved {
            if let Some(at) = self.slot_of(last, last_hash) {
                self.put(at, last_hash, entry);
            }
        }
    }
}

/// Values by string key (`K` is `&str` or `String`).
#[derive(Debug)]
pub struct Table<K, V> {
    index: Index,
    entries: Vec<(K, V)>,
}

/// Values by borrowed string key, in the order their keys first came.
pub type Keyed<'k, T> = Table<&'k str, T>;

/// A set of borrowed string keys.
pub type KeySet<'k> = Table<&'k str, ()>;

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Table {
            index: Index::default(),
            entries: Vec::new(),
        }
    }
}

/// The entry of `key` (of hash `hash`) in `entries`, or the empty slot where it would go.
fn find<K: AsRef<str>, V>(
    index: &Index,
    entries: &[(K, V)],
    key: &str,
    hash: u32,
) -> Result<usize, usize> {
    index.find(hash, &|entry| {
        entries.get(entry).is_some_and(|(k, _)| k.as_ref() == key)
    })
}

impl<K: AsRef<str>, V> Table<K, V> {
    #[inline(never)]
    fn entry_of(&self, key: &str) -> Option<usize> {
        find(&self.index, &self.entries, key, hash(key)).ok()
    }

    /// The value of `key`, if one is kept.
    #[inline(never)]
    pub fn get(&self, key: &str) -> Option<&V> {
        Some(&self.entries.get(self.entry_of(key)?)?.1)
    }

    /// The value of `key` to change, if one is kept.
    #[inline(never)]
    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        let entry = self.entry_of(key)?;
        Some(&mut self.entries.get_mut(entry)?.1)
    }

    /// Whether `key` is kept.
    pub fn contains(&self, key: &str) -> bool {
        self.entry_of(key).is_some()
    }

    /// Number of keys kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key is kept.
    #[cfg(not(target_arch = "wasm32"))] // for clippy's len_without_is_empty
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The values (in the order their keys came, but for removals' moves).
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, value)| value)
    }

    /// With room made for one more entry: the hash of `key`, and its entry or the empty
    /// slot where it goes.
    fn locate(&mut self, key: &str) -> (u32, Result<usize, usize>) {
        self.index.reserve(self.entries.len());
        let hash = hash(key);
        (hash, find(&self.index, &self.entries, key, hash))
    }

    /// A new last entry in the empty slot `at`; its number.
    fn push(&mut self, at: usize, hash: u32, key: K, value: V) -> usize {
        let entry = self.entries.len();
        self.index.put(at, hash, entry);
        self.entries.push((key, value));
        entry
    }

    /// The value of `key`: the one kept, or `new()` kept now (as
    /// `HashMap::entry(key).or_insert_with(new)`).
    pub fn entry(&mut self, key: K, new: impl FnOnce() -> V) -> &mut V {
        let entry = match self.locate(key.as_ref()) {
            (_, Ok(entry)) => entry,
            (hash, Err(at)) => self.push(at, hash, key, new()),
        };
        &mut self.entries[entry].1
    }

    /// Keep `value` under `key`; the value it replaces (as `HashMap::insert`, which keeps
    /// the first key).
    pub fn put(&mut self, key: K, value: V) -> Option<V> {
        match self.locate(key.as_ref()) {
            (_, Ok(entry)) => Some(std::mem::replace(&mut self.entries[entry].1, value)),
            (hash, Err(at)) => {
                self.push(at, hash, key, value);
                None
            }
        }
    }

    /// The value of `key`, which leaves the table (the last entry takes its place).
    pub fn remove(&mut self, key: &str) -> Option<V> {
        let hash = hash(key);
        let entry = find(&self.index, &self.entries, key, hash).ok()?;
        let last = self.entries.len() - 1;
        let moved = self.entries.last().filter(|_| entry != last);
        let moved = moved.map(|(k, _)| (last, self::hash(k.as_ref())));
        self.index.remove(entry, hash, moved);
        Some(self.entries.swap_remove(entry).1)
    }
}

impl<'k> KeySet<'k> {
    /// Keep `key`: whether it is new (as `HashSet::insert`).
    pub fn insert(&mut self, key: &'k str) -> bool {
        match self.locate(key) {
            (_, Ok(_)) => false,
            (hash, Err(at)) => {
                self.push(at, hash, key, ());
                true
            }
        }
    }
}

impl<'k> FromIterator<&'k str> for KeySet<'k> {
    fn from_iter<I: IntoIterator<Item = &'k str>>(keys: I) -> Self {
        let mut set = KeySet::default();
        for key in keys {
            set.insert(key);
        }
        set
    }
}

impl<K: AsRef<str>, V> FromIterator<(K, V)> for Table<K, V> {
    /// A later value of a key replaces the earlier (as collecting into a `HashMap`).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let mut table = Table::default();
        for (key, value) in pairs {
            table.put(key, value);
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::RngSeed;
    use std::collections::HashMap;

    /// Pairs of keys of one FNV-1a hash (found by search): a lookup must compare keys.
    const SAME_HASH: [(&str, &str); 4] = [
        ("k32728", "k261234"),
        ("k32729", "k261235"),
        ("k32724", "k261238"),
        ("k32725", "k261239"),
    ];

    /// The key pools the random sequences draw from.
    fn pools() -> Vec<Vec<String>> {
        let few: Vec<String> = (0..12).map(|i| format!("id-{i}")).collect();
        let many: Vec<String> = (0..600).map(|i| format!("toolu_{i:06}")).collect();
        // one home slot for all in every table up to 1,024 slots: one long run
        let clustered: Vec<String> = (0..)
            .map(|i| format!("c{i}"))
            .filter(|k| hash(k) & 1023 == 0)
            .take(160)
            .collect();
        let same: Vec<String> = SAME_HASH
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .chain(["", "k0", "k1"])
            .map(str::to_string)
            .collect();
        vec![few, many, clustered, same]
    }

    /// What the index must hold: each entry's slot, found by its key, naming it with its
    /// key's hash; as many full slots as entries; at most 3/4 full.
    fn check<K: AsRef<str>, V>(t: &Table<K, V>) -> Result<(), String> {
        let (slots, n) = (&t.index.slots, t.entries.len());
        let full = slots.iter().filter(|s| s.entry != 0).count();
        if full != n || n * 4 > slots.len() * 3 {
            return Err(format!("{full} full slots of {} for {n}", slots.len()));
        }
        for (entry, (key, _)) in t.entries.iter().enumerate() {
            let (key, hash) = (key.as_ref(), hash(key.as_ref()));
            let slot = t.index.slot_of(entry, hash).and_then(|at| slots.get(at));
            if t.entry_of(key) != Some(entry) || slot.is_none_or(|s| s.hash != hash) {
                return Err(format!("entry {entry} ({key:?}) not found"));
            }
        }
        Ok(())
    }

    #[derive(Clone, Debug)]
    enum Op {
        Put(usize, u32),
        Entry(usize, u32),
        Remove(usize),
        Get(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0..600usize, any::<u32>()).prop_map(|(k, v)| Op::Put(k, v)),
            2 => (0..600usize, any::<u32>()).prop_map(|(k, v)| Op::Entry(k, v)),
            3 => (0..600usize).prop_map(Op::Remove),
            2 => (0..600usize).prop_map(Op::Get),
        ]
    }

    proptest! {
        // fixed seed: the same sequences on every run
        #![proptest_config(ProptestConfig {
            cases: 256,
            rng_seed: RngSeed::Fixed(20261202),
            ..ProptestConfig::default()
        })]
        /// Random insert / entry / get / remove sequences answer as std's `HashMap`, over
        /// few keys, many (growing to 1,024 slots), keys of one home slot, keys of one hash.
        #[test]
        fn answers_as_std_hash_map(pool in 0..4usize, ops in prop::collection::vec(op(), 0..1200)) {
            let pools = pools();
            let keys = &pools[pool];
            let mut t: Table<String, u32> = Table::default();
            let mut model: HashMap<String, u32> = HashMap::new();
            for op in &ops {
                match *op {
                    Op::Put(k, v) => {
                        let key = &keys[k % keys.len()];
                        prop_assert_eq!(t.put(key.clone(), v), model.insert(key.clone(), v), "put {}", key);
                    }
                    Op::Entry(k, v) => {
                        let key = &keys[k % keys.len()];
                        prop_assert_eq!(*t.entry(key.clone(), || v), *model.entry(key.clone()).or_insert(v));
                    }
                    Op::Remove(k) => {
                        let key = &keys[k % keys.len()];
                        prop_assert_eq!(t.remove(key), model.remove(key), "remove {}", key);
                    }
                    Op::Get(k) => {
                        let key = &keys[k % keys.len()];
                        prop_assert_eq!(t.get(key), model.get(key));
                        prop_assert_eq!(t.contains(key), model.contains_key(key));
                    }
                }
                prop_assert_eq!(t.len(), model.len());
                // the whole index after each removal (where entries move) and at the end
                if matches!(op, Op::Remove(_)) {
                    if let Err(e) = check(&t) {
                        prop_assert!(false, "{} after {:?}", e, op);
                    }
                }
            }
            if let Err(e) = check(&t) {
                prop_assert!(false, "{} at the end", e);
            }
            for key in keys {
                prop_assert_eq!(t.get(key), model.get(key));
                prop_assert_eq!(t.get_mut(key).map(|v| *v), model.get(key).copied());
            }
            let mut values: Vec<u32> = t.values().copied().collect();
            let mut want: Vec<u32> = model.values().copied().collect();
            values.sort_unstable();
            want.sort_unstable();
            prop_assert_eq!(values, want);
        }
    }

    /// The index grows at three quarters full, not before: 8 slots hold 6 entries, the
    /// 7th doubles them; 16 hold 12, the 13th doubles them (a mutation run found that
    /// growing early, `slots * 3` as `slots + 3` or `slots / 3`, changed no other answer).
    #[test]
    fn grows_at_three_quarters_full() {
        let keys: Vec<String> = (0..25).map(|i| format!("k{i}")).collect();
        let mut t: Keyed<usize> = Keyed::default();
        let mut sizes = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            t.put(key, i);
            sizes.push(t.index.slots.len());
        }
        let want: Vec<usize> = (1..=25)
            .map(|n| match n {
                1..=6 => 8,
                7..=12 => 16,
                13..=24 => 32,
                _ => 64,
            })
            .collect();
        assert_eq!(sizes, want);
    }

    #[test]
    fn the_pools_collide_as_they_claim() {
        for (a, b) in SAME_HASH {
            assert_eq!(hash(a), hash(b), "{a} {b}");
        }
        assert_eq!(pools()[2].len(), 160);
    }

    /// Growing while removing: 20,000 keys in, every third out as they come, then the
    /// rest out in another order; every key answers at every step of a sample.
    #[test]
    fn removal_while_growing_keeps_every_key() {
        let keys: Vec<String> = (0..20_000).map(|i| format!("{i:x}-key")).collect();
        let mut t: Keyed<usize> = Keyed::default();
        let mut model: HashMap<&str, usize> = HashMap::new();
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(t.put(key, i), model.insert(key, i));
            if i % 3 == 2 {
                let gone = &keys[i - 1];
                assert_eq!(t.remove(gone), model.remove(gone.as_str()));
            }
            if i % 997 == 0 {
                check(&t).unwrap();
                for key in &keys[..=i] {
                    assert_eq!(t.get(key), model.get(key.as_str()), "{key}");
                }
            }
        }
        for key in keys.iter().rev().step_by(2) {
            assert_eq!(t.remove(key), model.remove(key.as_str()));
        }
        check(&t).unwrap();
        assert_eq!(t.len(), model.len());
        for key in &keys {
            assert_eq!(t.get(key), model.get(key.as_str()), "{key}");
        }
    }

    #[test]
    fn a_key_keeps_its_first_value_until_written_and_a_set_says_what_is_new() {
        let mut t: Keyed<u32> = Keyed::default();
        assert!(t.is_empty() && t.get("a").is_none() && t.remove("a").is_none());
        assert_eq!(*t.entry("a", || 1), 1);
        assert_eq!(*t.entry("a", || 2), 1, "entry keeps the value kept");
        *t.entry("b", || 3) += 1;
        assert_eq!(
            (t.get("a"), t.get("b"), t.get("c")),
            (Some(&1), Some(&4), None)
        );
        assert!(t.contains("b") && !t.contains("c"));
        let mut set: KeySet = ["x", "y"].into_iter().collect();
        assert!(!set.insert("x"));
        assert!(set.insert("z"));
        assert!(set.contains("z") && set.contains("y") && !set.contains("w"));
        // collected pairs: the later value of a key wins, at the first one's place
        let pairs: Keyed<u32> = [("a", 1), ("b", 2), ("a", 3)].into_iter().collect();
        assert_eq!(pairs.values().copied().collect::<Vec<_>>(), [3, 2]);
    }
}
