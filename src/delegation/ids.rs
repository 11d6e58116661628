//! ADR 0279 clause 7 ("delegationId is a random UUID, so an evicted id cannot collide
//! with a future one") and clause 1 (the internal chain key): where ids come from.

use crate::error::{Error, Result};

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
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_v4() {
        let first = random_uuid_v4().unwrap();
        let second = random_uuid_v4().unwrap();
        assert_ne!(first, second);
        assert_eq!(first.len(), 36);
        assert_eq!(&first[14..15], "4");
        assert!(matches!(&first[19..20], "8" | "9" | "a" | "b"));
    }
}
