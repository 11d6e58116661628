//! The input types decoded without serde's derived visitors (issue 17 §7: one copy of
//! those per type was most of the module's decoding bytes): [`Decode`] reads a parsed
//! [`Value`] as the derive reads it (its messages in JavaScript's words), with small non-generic helpers.
//!
//! What the derive does, and [`read_struct`] with `decode_struct!` do the same: an object's
//! entries are read in the object's order (the first bad value in the object is the one
//! named); a field given twice (an alias and its name) is `duplicate field`; unknown
//! fields are skipped, or kept where the struct flattens them; after the entries, the
//! first missing required field in the struct's order is named. A struct without a
//! flattened field is also read from an array, its fields in order (`invalid length`
//! where a field without a default is missing, `fewer elements in array` for too many).
//! A value of another kind is `expected an object, got ...`. Messages are in
//! JavaScript's words ([`js_expected`]), the structure serde's.

use crate::text_build::Append as _;
use serde::de::{Error as _, Unexpected};
use serde_json::{Map, Value};

/// A bad value: its path inside the value decoded (`""`, `.rows[1].id`) and serde's
/// message.
pub type Bad = (String, String);

/// A type read from a parsed JSON value as serde's derive would read it.
pub trait Decode: Sized {
    /// `Self` from `v`, or the bad value's inner path and message.
    fn decode(v: &Value) -> Result<Self, Bad>;
}

/// The message for a bad value, in JavaScript's words (issue 36 §3: "expected a number,
/// got true", not serde's "invalid type: boolean `true`, expected f64"), without
/// serde_json's error type (issue 17 §7: its `Display` brought every serde_json error
/// code's text and the I/O errors' texts into the module).
#[derive(Debug)]
pub(crate) struct Words(String);

impl std::fmt::Display for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Words {}

impl serde::de::Error for Words {
    #[inline(never)]
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Words(msg.to_string())
    }
    #[inline(never)]
    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Words(format!(
            "expected {}, got {}",
            js_expected(&exp.to_string()),
            JsUnexpected(unexp)
        ))
    }
    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn serde::de::Expected) -> Self {
        Words::invalid_type(unexp, exp)
    }
    #[inline(never)]
    fn invalid_length(len: usize, exp: &dyn serde::de::Expected) -> Self {
        let exp = exp.to_string();
        let s = if len == 1 { "" } else { "s" };
        Words(format!("expected {}, got {len} item{s}", js_expected(&exp)))
    }
    #[inline(never)]
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let mut one_of = String::new();
        for (i, name) in expected.iter().enumerate() {
            one_of.append(if i == 0 { "" } else { ", " });
            one_of.append(&crate::js_text::json_quote(name));
        }
        Words(format!(
            "expected one of {one_of}, got {}",
            crate::js_text::json_quote(variant)
        ))
    }
}

/// What was expected, in JavaScript's words: serde's names of Rust types (`f64`, `u32`,
/// `struct Row`, `a map`, `a sequence`) as a JavaScript value's kind. One table for every
/// message (the typed decoder's, the message readers').
#[inline(never)]
pub(crate) fn js_expected(exp: &str) -> &str {
    match exp {
        "f64" => "a number",
        "u64" | "usize" => "an integer >= 0",
        "u32" => "an integer from 0 to 4294967295",
        "a map" => "an object",
        "a sequence" => "an array",
        "string or map" => "a string or an object",
        "map with a single key" => "an object with a single key",
        "unit" => "null",
        "a tuple of size 2" => "an array of 2 items",
        "fewer elements in array" => "fewer items",
        // `struct Row`: an object
        _ if exp.starts_with("struct ") => "an object",
        _ => exp,
    }
}

/// A wrong value as JavaScript writes it: `null`, `true`, a number in the one number text
/// of every message (`1e+21`, `-1e-7`), a string quoted as JSON; arrays and objects by
/// kind (written here, not by serde's `Display` of `Unexpected`, whose float arm is
/// Rust's float formatter: issue 17 §7).
struct JsUnexpected<'a>(Unexpected<'a>);

impl std::fmt::Display for JsUnexpected<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Unexpected as U;
        let plain = match self.0 {
            U::Unit => "null",
            U::Float(x) => return f.write_str(&crate::js_text::js_number_to_string(x)),
            U::Bool(b) => return write!(f, "{b}"),
            U::Unsigned(i) => return write!(f, "{i}"),
            U::Signed(i) => return write!(f, "{i}"),
            U::Str(s) => return f.write_str(&crate::js_text::json_quote(s)),
            U::Other(other) => other,
            U::Seq => "an array",
            U::Map => "an object",
            // (a JSON value is none of serde's other kinds: `super::unexpected` and this
            // module's readers never name one)
            _ => "a value",
        };
        f.write_str(plain)
    }
}

fn bad(e: Words) -> Bad {
    (String::new(), e.0)
}

/// "expected ..., got ..." for `v` where `expected` (serde's name of the type) was wanted.
#[inline(never)]
pub(crate) fn invalid_type(v: &Value, expected: &str) -> Bad {
    bad(Words::invalid_type(super::unexpected(v), &expected))
}

#[inline(never)]
fn invalid_length(len: usize, expected: &str) -> Bad {
    bad(Words::invalid_length(len, &expected))
}

/// `b` one key further in (`.key` before its path).
#[inline(never)]
fn under_key(key: &str, b: Bad) -> Bad {
    (format!(".{key}{}", b.0), b.1)
}

/// `b` one index further in (`[i]` before its path).
#[inline(never)]
fn under_index(i: usize, b: Bad) -> Bad {
    (format!("[{i}]{}", b.0), b.1)
}

impl Decode for String {
    fn decode(v: &Value) -> Result<Self, Bad> {
        match v {
            Value::String(s) => Ok(s.clone()),
            _ => Err(invalid_type(v, "a string")),
        }
    }
}

impl Decode for bool {
    fn decode(v: &Value) -> Result<Self, Bad> {
        match v {
            Value::Bool(b) => Ok(*b),
            _ => Err(invalid_type(v, "a boolean")),
        }
    }
}

impl Decode for f64 {
    fn decode(v: &Value) -> Result<Self, Bad> {
        match v {
            Value::Number(n) => Ok(n.as_f64().unwrap_or(f64::NAN)),
            _ => Err(invalid_type(v, "f64")),
        }
    }
}

/// An unsigned integer at most `max` (`name` is serde's word for the type, `u32`), as
/// serde's integer visitors read serde_json's numbers.
#[inline(never)]
fn unsigned(v: &Value, max: u64, name: &str) -> Result<u64, Bad> {
    let Value::Number(n) = v else {
        return Err(invalid_type(v, name));
    };
    let unexpected = match (n.as_u64(), n.as_i64()) {
        (Some(u), _) if u <= max => return Ok(u),
        (Some(u), _) => Unexpected::Unsigned(u),
        (None, Some(i)) => Unexpected::Signed(i),
        (None, None) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            return Err(bad(Words::invalid_type(Unexpected::Float(f), &name)));
        }
    };
    Err(bad(Words::invalid_value(unexpected, &name)))
}

impl Decode for u64 {
    fn decode(v: &Value) -> Result<Self, Bad> {
        unsigned(v, u64::MAX, "u64")
    }
}

impl Decode for u32 {
    fn decode(v: &Value) -> Result<Self, Bad> {
        unsigned(v, u32::MAX.into(), "u32").map(|u| u as u32)
    }
}

impl Decode for usize {
    fn decode(v: &Value) -> Result<Self, Bad> {
        unsigned(v, usize::MAX as u64, "usize").map(|u| u as usize)
    }
}

impl Decode for Value {
    fn decode(v: &Value) -> Result<Self, Bad> {
        Ok(v.clone())
    }
}

impl Decode for Map<String, Value> {
    fn decode(v: &Value) -> Result<Self, Bad> {
        match v {
            Value::Object(m) => Ok(m.clone()),
            _ => Err(invalid_type(v, "a map")),
        }
    }
}

/// `null` is `None` (serde's `Option`).
impl<T: Decode> Decode for Option<T> {
    fn decode(v: &Value) -> Result<Self, Bad> {
        match v {
            Value::Null => Ok(None),
            _ => T::decode(v).map(Some),
        }
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(v: &Value) -> Result<Self, Bad> {
        let Value::Array(items) = v else {
            return Err(invalid_type(v, "a sequence"));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.push(T::decode(item).map_err(|b| under_index(i, b))?);
        }
        Ok(out)
    }
}

impl<A: Decode, B: Decode> Decode for (A, B) {
    fn decode(v: &Value) -> Result<Self, Bad> {
        const EXPECTED: &str = "a tuple of size 2";
        let Value::Array(items) = v else {
            return Err(invalid_type(v, EXPECTED));
        };
        let item = |i: usize| items.get(i).ok_or_else(|| invalid_length(i, EXPECTED));
        let a = A::decode(item(0)?).map_err(|b| under_index(0, b))?;
        let b = B::decode(item(1)?).map_err(|b| under_index(1, b))?;
        if items.len() > 2 {
            return Err(invalid_length(items.len(), "fewer elements in array"));
        }
        Ok((a, b))
    }
}

/// The index in `names` of a unit variant, read as serde_json reads an enum from a
/// value: its name as a string, or an object of one key (its name) whose value is `null`.
#[inline(never)]
pub fn variant(v: &Value, names: &'static [&'static str]) -> Result<usize, Bad> {
    let (name, value) = match v {
        Value::String(s) => (s, None),
        Value::Object(m) => {
            let mut entries = m.iter();
            match (entries.next(), entries.next()) {
                (Some((k, value)), None) => (k, Some(value)),
                _ => {
                    return Err(bad(Words::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    )))
                }
            }
        }
        _ => return Err(invalid_type(v, "string or map")),
    };
    let Some(i) = crate::text_table::index_of(names, name) else {
        return Err(bad(Words::unknown_variant(name, names)));
    };
    match value {
        Some(Value::Null) | None => Ok(i),
        // serde_path_to_error names the variant's value (`.user`)
        Some(other) => Err(under_key(name, invalid_type(other, "unit"))),
    }
}

/// Where [`Fields`] reads from.
enum Source<'v> {
    Map(serde_json::map::Iter<'v>),
    Seq(&'v [Value], usize),
}

/// A struct's shape, as its derive knows it: its name, its fields' names in order, which
/// have a default, which are required in an object (`req`), the aliases (`(alias, field
/// index)`), and whether a flattened field keeps the unknown entries (such a struct is not
/// read from an array).
pub struct Spec {
    pub name: &'static str,
    pub names: &'static [&'static str],
    pub defaulted: &'static [bool],
    pub required: &'static [bool],
    pub aliases: &'static [(&'static str, usize)],
    pub flattened: bool,
}

/// One field's value while a struct is read, its type erased so that one loop
/// ([`read_struct`]) reads every struct's fields (issue 17 §7: the loop and its exits,
/// written out per struct by the macro, were most of each decoder's bytes).
pub trait Slot {
    /// Whether the field was read already.
    fn is_set(&self) -> bool;
    /// The field read from `v` (its inner path and message when bad).
    fn fill(&mut self, v: &Value) -> Result<(), Bad>;
}

impl<T: Decode> Slot for Option<T> {
    fn is_set(&self) -> bool {
        self.is_some()
    }

    fn fill(&mut self, v: &Value) -> Result<(), Bad> {
        // (only an empty slot is filled: read_struct checks first; written so, the slot's
        // old value needs no drop here, one drop of `T` less per field type)
        if self.is_none() {
            *self = Some(T::decode(v)?);
        }
        Ok(())
    }
}

/// Read `v` as a struct of shape `spec` into `slots` (one per field, in the struct's
/// order), as serde's derive reads it (see the module's documentation): each entry in
/// the object's order into its slot (`duplicate field` when the slot is full, a bad value
/// named at its key or index), unknown entries skipped or kept in `extra` (a flattened
/// struct's), then the first required field left empty is `missing field`. Afterwards
/// every required slot is full.
#[inline(never)]
pub fn read_struct(
    v: &Value,
    spec: &'static Spec,
    slots: &mut [&mut dyn Slot],
    extra: Option<&mut Map<String, Value>>,
) -> Result<(), Bad> {
    let mut f = Fields::new(v, spec, extra)?;
    while let Some((i, v)) = f.next_field()? {
        let Some(slot) = slots.get_mut(i) else {
            continue; // (a spec names no more fields than the struct has)
        };
        if slot.is_set() {
            return Err(f.duplicate(i));
        }
        slot.fill(v).map_err(|b| f.here(b))?;
    }
    for (i, slot) in slots.iter().enumerate() {
        if spec.required.get(i) == Some(&true) && !slot.is_set() {
            return Err(missing(spec.names.get(i).copied().unwrap_or_default()));
        }
    }
    Ok(())
}

/// One struct's fields, read as serde's derive reads them (see [`read_struct`]).
struct Fields<'v, 'x> {
    spec: &'static Spec,
    source: Source<'v>,
    /// The key (or index) of the value last handed out.
    key: &'v str,
    index: usize,
    /// Where unknown entries are kept, when the struct flattens them.
    extra: Option<&'x mut Map<String, Value>>,
}

impl<'v, 'x> Fields<'v, 'x> {
    /// Start reading `v` as a struct of shape `spec`.
    fn new(
        v: &'v Value,
        spec: &'static Spec,
        extra: Option<&'x mut Map<String, Value>>,
    ) -> Result<Self, Bad> {
        let source = match v {
            Value::Object(m) => Source::Map(m.iter()),
            Value::Array(a) if !spec.flattened => Source::Seq(a, 0),
            _ => return Err(invalid_type(v, &format!("struct {}", spec.name))),
        };
        Ok(Fields {
            spec,
            source,
            key: "",
            index: 0,
            extra,
        })
    }

    /// The next known field's index in the struct and its value; unknown fields skipped
    /// or kept.
    fn next_field(&mut self) -> Result<Option<(usize, &'v Value)>, Bad> {
        let spec = self.spec;
        match &mut self.source {
            Source::Map(entries) => {
                for (k, v) in entries.by_ref() {
                    let known = crate::text_table::index_of(spec.names, k).or_else(|| {
                        let alias = spec.aliases.iter().find(|(a, _)| a == k);
                        alias.map(|&(_, i)| i)
                    });
                    match (known, &mut self.extra) {
                        (Some(i), _) => {
                            self.key = k;
                            return Ok(Some((i, v)));
                        }
                        (None, Some(extra)) => {
                            extra.insert(k.clone(), v.clone());
                        }
                        (None, None) => {}
                    }
                }
                Ok(None)
            }
            Source::Seq(items, i) => {
                let n = spec.names.len();
                if *i < n {
                    if let Some(v) = items.get(*i) {
                        self.index = *i;
                        *i += 1;
                        return Ok(Some((self.index, v)));
                    }
                    // a short array: the first field left without a default is missing
                    if let Some(j) = (*i..n).find(|&j| spec.defaulted.get(j) != Some(&true)) {
                        // (serde: `struct Row with 3 elements`)
                        let s = if n == 1 { "" } else { "s" };
                        let expected = format!("an array of {n} item{s}");
                        return Err(invalid_length(j, &expected));
                    }
                    *i = n;
                }
                if items.len() > n {
                    return Err(invalid_length(items.len(), "fewer elements in array"));
                }
                Ok(None)
            }
        }
    }

    /// `b` at the value last handed out.
    fn here(&self, b: Bad) -> Bad {
        match self.source {
            Source::Map(_) => under_key(self.key, b),
            Source::Seq(..) => under_index(self.index, b),
        }
    }

    fn duplicate(&self, i: usize) -> Bad {
        let name = self.spec.names.get(i).copied().unwrap_or_default();
        bad(Words::duplicate_field(name))
    }
}

#[inline(never)]
fn missing(name: &'static str) -> Bad {
    bad(Words::missing_field(name))
}

/// A flattened struct read from the unknown entries kept (its errors are the whole
/// value's, as serde reports what it buffered).
pub fn flattened<T: Decode>(extra: Map<String, Value>) -> Result<T, Bad> {
    T::decode(&Value::Object(extra)).map_err(|b| (String::new(), b.1))
}

/// [`Decode`] for a struct, as serde's derive reads it: each field as `field: "wireName"
/// (| "alias")* => kind`, the kinds `req` (required), `or(expr)` (absent from an object:
/// `expr`; required in an array, like an `Option` without `#[serde(default)]`),
/// `default` / `default(expr)` (`#[serde(default)]`), then optionally `extra field`
/// (`#[serde(flatten)]` of a map) or `flatten field` (of a struct). The fields are read
/// by [`read_struct`] into one `Option` per field; the struct is then made from them.
macro_rules! decode_struct {
    (@defaulted req) => { false };
    (@defaulted or) => { false };
    (@defaulted default) => { true };
    (@required req) => { true };
    (@required $kind:ident) => { false };
    (@take $slot:ident, req) => { $slot };
    (@take $slot:ident, or $e:expr) => { Some($slot.unwrap_or_else(|| $e)) };
    (@take $slot:ident, default) => { Some($slot.unwrap_or_default()) };
    (@take $slot:ident, default $e:expr) => { Some($slot.unwrap_or_else(|| $e)) };
    (@extra $extra:ident) => { Some(&mut $extra) };
    (@extra) => { None };
    (@flat $extra:ident extra) => { $extra };
    (@flat $extra:ident flatten) => { $crate::decode::flattened($extra)? };
    (
        $ty:ident $name:literal {
            $($field:ident : $wire:literal $(| $alias:literal)* => $kind:ident $(($e:expr))?),* $(,)?
        } $($how:ident $flat:ident)?
    ) => {
        impl $crate::decode::Decode for $ty {
            #[inline(never)]
            fn decode(v: &serde_json::Value) -> Result<Self, $crate::decode::Bad> {
                // (named for the aliases' indices)
                #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
                enum Field { $($field),* }
                static SPEC: $crate::decode::Spec = $crate::decode::Spec {
                    name: $name,
                    names: &[$($wire),*],
                    defaulted: &[$($crate::decode::decode_struct!(@defaulted $kind)),*],
                    required: &[$($crate::decode::decode_struct!(@required $kind)),*],
                    aliases: &[$($(($alias, Field::$field as usize),)*)*],
                    flattened: false $(|| { let _ = stringify!($flat); true })?,
                };
                $(let mut $field = None;)*
                $(let mut $flat = crate::js_text::new_map();)?
                $crate::decode::read_struct(
                    v,
                    &SPEC,
                    &mut [$(&mut $field),*],
                    $crate::decode::decode_struct!(@extra $($flat)?),
                )?;
                $(let $flat = $crate::decode::decode_struct!(@flat $flat $how);)?
                // every required slot is full (read_struct checked), so the second arm is
                // never taken: it forgets the slots (`ManuallyDrop`) rather than drop them,
                // which keeps the drop of every field of the struct out of the module
                // (issue 17 §7)
                match ($($crate::decode::decode_struct!(@take $field, $kind $($e)?),)*) {
                    ($(Some($field),)*) => Ok($ty { $($field,)* $($flat,)? }),
                    slots => {
                        let _ = std::mem::ManuallyDrop::new(slots);
                        Err($crate::decode::invalid_type(v, $name))
                    }
                }
            }
        }
    };
}
pub(crate) use decode_struct;

/// [`Decode`] for an enum of unit variants: `Type { Variant = "wireName", ... }`, or
/// `Type: ALL, as_str` where the type lists its variants in a `const ALL` array (in their
/// declared order, serde's order of the names) and names each with a `const fn as_str`
/// (the names written once, not again here).
macro_rules! decode_enum {
    (@impl $ty:ident, $names:expr, $all:expr) => {
        impl $crate::decode::Decode for $ty {
            #[inline(never)]
            fn decode(v: &serde_json::Value) -> Result<Self, $crate::decode::Bad> {
                const NAMES: &[&str] = $names;
                const ALL: &[$ty] = $all;
                let i = $crate::decode::variant(v, NAMES)?;
                ALL.get(i).copied().ok_or_else(|| $crate::decode::invalid_type(v, "a variant"))
            }
        }
    };
    ($ty:ident { $($variant:ident = $wire:literal),* $(,)? }) => {
        $crate::decode::decode_enum!(@impl $ty, &[$($wire),*], &[$($ty::$variant),*]);
    };
    ($ty:ident: $all:ident, $as_str:ident) => {
        $crate::decode::decode_enum!(@impl $ty, &{
            let mut names = [""; $ty::$all.len()];
            let mut i = 0;
            while i < names.len() {
                names[i] = $ty::$all[i].$as_str();
                i += 1;
            }
            names
        }, &$ty::$all);
    };
}
pub(crate) use decode_enum;
