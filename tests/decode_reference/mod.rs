//! The reference both decoder tests compare with (`tests/decode_inputs.rs`,
//! `tests/decode_paths.rs`): a type's derived `Deserialize` under `serde_path_to_error`,
//! what the package used before its hand-written decoders (issue 17 §7), its messages
//! in JavaScript's words (`tests/js_words`).

use std::fmt::Debug;

use delegate_context::decode::{decode_value, Decode};
use delegate_context::Error;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What the package reported before: `path` + serde_path_to_error's inner path.
pub fn reference<T: DeserializeOwned>(v: &Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize::<_, T>(v).map_err(|e| {
        let inner = e.path().to_string();
        let full = if inner == "." {
            "input".to_string()
        } else if inner.starts_with('[') {
            format!("input{inner}")
        } else {
            format!("input.{inner}")
        };
        (full, crate::js_words::js_words(&e.into_inner().to_string()))
    })
}

/// What our decoder reports: the value, or the path and message of the bad value.
pub fn ours<T: Decode>(v: &Value) -> Result<T, (String, String)> {
    decode_value::<T>(v, "input").map_err(|e| match e {
        Error::InvalidInput { path, message } => (path, message),
        other => (String::new(), other.to_string()),
    })
}

/// The same value decoded, or the same bad value and message.
pub fn same<T: DeserializeOwned + Decode + PartialEq + Debug>(
    v: &Value,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(ours::<T>(v), reference::<T>(v), "{}", v);
    Ok(())
}
