//! ADR 0279 clause 7 ("delegationId is a random UUID, so an evicted id cannot collide
//! with a future one") and clause 1 (the internal chain key): where ids come from.

use crate::error::{Error, Result};
use crate::text_build::Append;

/// A source of fresh ids (delegationIds and internal chain keys).
pub type IdSource = Box<dyn FnMut() -> Result<String>>;

/// A random UUID v4 (`getrandom`), lower-case hex.
pub fn random_uuid_v4() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Error::InvalidState {
        message: format!("no randomness available for a delegation id: {e}"),
    })?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    // 8-4-4-4-12 hex digits
    let mut id = String::with_capacity(36);
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            id.append_char('-');
        }
        for nibble in [b >> 4, b & 0x0f] {
            id.append_char(char::from(b"0123456789abcdef"[usize::from(nibble)]));
        }
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9562's version 4 layout, on 64 ids (a wrong variant mask shows in about half
    /// of them): version nibble 4, variant nibble 8–b, hex and dashes in their places.
    #[test]
    fn uuids_are_v4() {
        let ids: Vec<String> = (0..64).map(|_| random_uuid_v4().unwrap()).collect();
        for id in &ids {
            assert_eq!(id.len(), 36, "{id}");
            assert_eq!(&id[14..15], "4", "{id}");
            assert!(matches!(&id[19..20], "8" | "9" | "a" | "b"), "{id}");
            for (i, c) in id.char_indices() {
                if [8, 13, 18, 23].contains(&i) {
                    assert_eq!(c, '-', "{id}");
                } else {
                    assert!(c.is_ascii_hexdigit() && !c.is_ascii_uppercase(), "{id}");
                }
            }
        }
        let distinct: crate::keyed::KeySet = ids.iter().map(String::as_str).collect();
        assert_eq!(distinct.len(), ids.len());
    }
}
