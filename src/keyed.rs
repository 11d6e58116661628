//! One hash map type for the crate's tables by string key (issue 17 §7: hashbrown's
//! code — insert, rehash, hashing — was compiled once per value type, one copy per table
//! whose values differed in size). [`Keyed`] keeps its values in a list and maps each
//! key to its value's index, so every table of values by a `&str` key runs on the same
//! `HashMap<&str, usize>`; a set of keys ([`KeySet`]) is a table of nothing.

use std::collections::HashMap;

/// Values by string key, in the order their keys first came.
#[derive(Debug)]
pub struct Keyed<'k, T> {
    at: HashMap<&'k str, usize>,
    values: Vec<T>,
}

impl<T> Default for Keyed<'_, T> {
    fn default() -> Self {
        Keyed {
            at: HashMap::new(),
            values: Vec::new(),
        }
    }
}

impl<'k, T> Keyed<'k, T> {
    /// The value of `key`: the one kept, or `new()` kept now (as `entry(key).or_insert_with`).
    pub fn entry(&mut self, key: &'k str, new: impl FnOnce() -> T) -> &mut T {
        let values = &mut self.values;
        let i = *self.at.entry(key).or_insert_with(|| {
            values.push(new());
            values.len() - 1
        });
        &mut self.values[i]
    }

    /// The value of `key`, if one was kept.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.at.get(key).and_then(|&i| self.values.get(i))
    }

    /// Whether `key` was kept.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// A set of string keys.
pub type KeySet<'k> = Keyed<'k, ()>;

impl<'k> KeySet<'k> {
    /// Keep `key`: whether it is new (as `HashSet::insert`).
    pub fn insert(&mut self, key: &'k str) -> bool {
        let before = self.at.len();
        self.entry(key, || ());
        self.at.len() > before
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_keeps_its_first_value_until_written_and_a_set_says_what_is_new() {
        let mut t: Keyed<u32> = Keyed::default();
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
    }
}
