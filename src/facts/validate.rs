//! Validation of a host message read from its JSON text (host-contract §1): the fields
//! each known role and block type needs, with their types, checked where the facts are
//! read, and refused with the message `AgentMessage`'s serde decoder gives
//! ([`crate::message`]) at the path of the bad value, so that the two readers of a host
//! message accept and refuse the same input in the same words.

use crate::error::{Error, Result};
use crate::json_scan::{self, JsonStr, Kind, Span};
use crate::text_table::index_of;

/// Where a value is, written out only when an error names it (`messages[3].content[0]`).
#[derive(Clone, Copy)]
pub(super) struct Loc<'p> {
    pub(super) message: &'p str,
    pub(super) field: Option<&'static str>,
    pub(super) index: Option<usize>,
}

impl<'p> Loc<'p> {
    pub(super) fn field(self, field: &'static str) -> Loc<'p> {
        Loc {
            field: Some(field),
            ..self
        }
    }
    pub(super) fn index(self, index: usize) -> Loc<'p> {
        Loc {
            index: Some(index),
            ..self
        }
    }
}

impl From<&Loc<'_>> for String {
    #[inline(never)]
    fn from(loc: &Loc<'_>) -> String {
        loc.to_string()
    }
}

impl std::fmt::Display for Loc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message)?;
        if let Some(field) = self.field {
            write!(f, ".{field}")?;
        }
        if let Some(i) = self.index {
            write!(f, "[{i}]")?;
        }
        Ok(())
    }
}

/// `path`'s text is not JSON (the scanner's error).
#[inline(never)]
pub(super) fn not_json(path: &dyn std::fmt::Display, e: json_scan::ScanError) -> Error {
    Error::invalid(path.to_string(), format!("not JSON data ({e})"))
}

/// "expected ..., got ..." for a value of kind `got` at `path` where `expected` was wanted;
/// `field` (when not empty) names the value in the message (`text: expected ...`), as
/// the block decoder's messages do.
#[inline(never)]
pub(super) fn wrong_type(
    path: &dyn std::fmt::Display,
    field: &str,
    got: Kind,
    expected: &str,
) -> Error {
    let sep = if field.is_empty() { "" } else { ": " };
    Error::invalid(
        path.to_string(),
        format!(
            "{field}{sep}expected {}, got {}",
            crate::decode::js_expected(expected),
            got.describe()
        ),
    )
}

/// serde's "missing field" at `path`.
#[inline(never)]
pub(super) fn missing(path: &dyn std::fmt::Display, field: &str) -> Error {
    Error::invalid(path.to_string(), format!("missing field `{field}`"))
}

/// Every field's key on a message: every field any known role has (types are checked
/// per role).
const KEYS: [&str; 24] = [
    "role",
    "content",
    "timestamp",
    "api",
    "provider",
    "model",
    "usage",
    "stopReason",
    "errorMessage",
    "toolCallId",
    "toolName",
    "details",
    "isError",
    "summary",
    "tokensBefore",
    "customType",
    "display",
    "command",
    "output",
    "excludeFromContext",
    "exitCode",
    "cancelled",
    "truncated",
    "fullOutputPath",
];

/// The known fields of a message object as written, in [`KEYS`]' order.
#[derive(Default)]
pub(super) struct Fields<'a>([Option<Span<'a>>; KEYS.len()]);

impl<'a> Fields<'a> {
    /// The known fields of a message object (the last copy of a repeated key wins, as in
    /// JavaScript); `null` counts as absent, as for an optional field.
    pub(super) fn set(&mut self, key: &str, value: Span<'a>) {
        if let Some(slot) = index_of(&KEYS, key).and_then(|i| self.0.get_mut(i)) {
            *slot = (!value.is_null()).then_some(value);
        }
    }

    /// The field whose key is `key`.
    #[inline(never)]
    pub(super) fn get(&self, key: &str) -> Option<Span<'a>> {
        index_of(&KEYS, key).and_then(|i| self.0.get(i).copied().flatten())
    }
}

/// The fields of one message with its path, checked by type on request.
pub(super) struct Checked<'f, 'a> {
    pub(super) f: &'f Fields<'a>,
    pub(super) path: &'f str,
}

impl<'a> Checked<'_, 'a> {
    #[inline(never)]
    pub(super) fn at(&self, field: &str) -> String {
        format!("{}.{field}", self.path)
    }
    #[inline(never)]
    pub(super) fn required(&self, field: &str) -> Result<Span<'a>> {
        self.f.get(field).ok_or_else(|| missing(&self.path, field))
    }
    #[inline(never)]
    fn string_of(&self, field: &str, v: Span<'a>) -> Result<JsonStr<'a>> {
        v.as_str()
            .ok_or_else(|| wrong_type(&self.at(field), "", v.kind, "a string"))
    }
    pub(super) fn required_raw_string(&self, field: &str) -> Result<JsonStr<'a>> {
        let v = self.required(field)?;
        self.string_of(field, v)
    }
    pub(super) fn required_string(&self, field: &str) -> Result<String> {
        Ok(self.required_raw_string(field)?.decode())
    }
    #[inline(never)]
    pub(super) fn optional_string(&self, field: &str) -> Result<Option<JsonStr<'a>>> {
        self.f
            .get(field)
            .map(|v| self.string_of(field, v))
            .transpose()
    }
    pub(super) fn optional_number(&self, field: &str) -> Result<Option<f64>> {
        match self.f.get(field) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| wrong_type(&self.at(field), "", v.kind, "f64")),
        }
    }
    pub(super) fn optional_bool(&self, field: &str) -> Result<Option<bool>> {
        match self.f.get(field) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| wrong_type(&self.at(field), "", v.kind, "a boolean")),
        }
    }
}

/// A block of a known type, its fields checked.
pub(super) enum KnownBlock<'a> {
    Text(JsonStr<'a>),
    Thinking {
        thinking: JsonStr<'a>,
        signed: bool,
    },
    Image,
    ToolCall {
        id: JsonStr<'a>,
        name: JsonStr<'a>,
        arguments: Span<'a>,
    },
    Other,
}

/// Check a block; errors are reported at the block's path, naming the field in the
/// message (as `AgentMessage`'s decoder does).
pub(super) fn read_block<'a>(
    reader: &mut json_scan::Reader<'a>,
    at: Loc<'_>,
) -> Result<KnownBlock<'a>> {
    let path = &at;
    let kind_of_block = reader.peek().map_err(|e| not_json(path, e))?;
    if kind_of_block != Kind::Object {
        return Err(wrong_type(path, "", kind_of_block, "a block"));
    }
    let mut kind = None;
    let mut field: [Option<Span<'a>>; 11] = [None; 11];
    const NAMES: [&str; 11] = [
        "text",
        "textSignature",
        "thinking",
        "thinkingSignature",
        "redacted",
        "data",
        "mimeType",
        "id",
        "name",
        "arguments",
        "thoughtSignature",
    ];
    reader
        .object(|key, r| -> std::result::Result<(), json_scan::ScanError> {
            let value = r.skip()?;
            if key.raw() == "type" {
                kind = Some(value);
            } else if let Some(k) = index_of(&NAMES, key.raw()) {
                field[k] = Some(value);
            }
            Ok(())
        })
        .map_err(|e| not_json(path, e))?;
    let get = |name: &str| NAMES.iter().position(|n| *n == name).and_then(|k| field[k]);
    let kind = match kind {
        None => return Err(Error::invalid(path, "missing field `type`")),
        Some(k) => k
            .as_str()
            .ok_or_else(|| {
                Error::invalid(
                    path,
                    format!("type: expected a string, got {}", k.kind.describe()),
                )
            })?
            .decode(),
    };
    let string = |name: &str| -> Result<JsonStr<'a>> {
        let v = get(name)
            .filter(|v| !v.is_null())
            .ok_or_else(|| missing(path, name))?;
        v.as_str()
            .ok_or_else(|| wrong_type(path, name, v.kind, "a string"))
    };
    let opt_string = |name: &str| -> Result<bool> {
        match get(name).filter(|v| !v.is_null()) {
            None => Ok(false),
            Some(v) if v.kind == Kind::String => Ok(true),
            Some(v) => Err(wrong_type(path, name, v.kind, "a string")),
        }
    };
    Ok(match kind.as_str() {
        "text" => {
            opt_string("textSignature")?;
            KnownBlock::Text(string("text")?)
        }
        "thinking" => {
            let thinking = string("thinking")?;
            let signed = opt_string("thinkingSignature")?;
            if let Some(r) = get("redacted").filter(|v| !v.is_null()) {
                if r.kind != Kind::Bool {
                    return Err(wrong_type(path, "redacted", r.kind, "a boolean"));
                }
            }
            KnownBlock::Thinking { thinking, signed }
        }
        "image" => {
            string("data")?;
            string("mimeType")?;
            KnownBlock::Image
        }
        "toolCall" => {
            let id = string("id")?;
            let name = string("name")?;
            opt_string("thoughtSignature")?;
            let arguments = get("arguments")
                .ok_or_else(|| Error::invalid(path, "missing field `arguments`"))?;
            KnownBlock::ToolCall {
                id,
                name,
                arguments,
            }
        }
        _ => KnownBlock::Other,
    })
}

/// `calculateContextTokens(usage)`, the usage's number fields checked.
pub(super) fn read_usage(usage: Span<'_>, path: &str) -> Result<f64> {
    if usage.kind != Kind::Object {
        return Err(wrong_type(&path, "", usage.kind, "struct Usage"));
    }
    let mut numbers: [Option<f64>; 5] = [None; 5];
    const NAMES: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];
    let entries = usage.entries().map_err(|e| not_json(&path, e))?;
    for (key, value) in entries {
        if let Some(k) = index_of(&NAMES, key.raw()) {
            if value.is_null() {
                numbers[k] = None;
                continue;
            }
            numbers[k] = Some(value.as_f64().ok_or_else(|| {
                wrong_type(&format_args!("{path}.{}", NAMES[k]), "", value.kind, "f64")
            })?);
        }
    }
    // (NAMES in the order context_tokens reads them)
    Ok(crate::message::context_tokens(numbers))
}
