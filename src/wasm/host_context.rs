//! A delegate's context as the binding holds it (ADR 0299 clauses 3–5): the core's
//! [`crate::compaction::DelegateContext`] plus the host's own message objects, in the
//! same order, so that every answer hands back the host's objects (a rewritten context
//! reuses them, never copies). The `DelegateContext` class ([`super::context`]), the
//! one-shot exports and the turn drivers all read messages through it.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{throw, to_js};
use super::host::HostArray;
use super::messages::facts_of_range;
use crate::compaction::context::{DelegateContext as CoreContext, Item};
use crate::compaction::prepare::CompactionPreparation;
use crate::compaction::turn::DelegateTurnOutcome;
use crate::error::Error;

#[wasm_bindgen(module = "/src/wasm/host.js")]
extern "C" {
    /// Append `refs[start..end]` to `out` (both our own arrays: nothing here can throw).
    fn dc_push_run(out: &Array, refs: &Array, start: u32, end: u32);
}

/// A delegate's context: the core's facts plus the host's message objects, in order.
pub struct HostContext {
    core: CoreContext,
    /// The host's message objects (this array is ours: never handed out, so nobody else
    /// pushes into it).
    refs: Array,
    /// Whether the messages are the AI SDK's: one of them (a `tool` message with several
    /// results) may be several of the core's, so the arrays handed out name it once.
    model_messages: bool,
}

/// What [`HostContext::sync`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synced {
    /// The array was the known one with messages appended: only those were read.
    Appended(usize),
    /// The array was replaced: it was read whole.
    Reloaded,
}

impl Default for HostContext {
    fn default() -> Self {
        Self::new()
    }
}

impl HostContext {
    pub fn new() -> Self {
        HostContext {
            core: CoreContext::new(),
            refs: Array::new(),
            model_messages: false,
        }
    }

    /// A context of every message of `value` (an array; `path` names it in errors).
    #[inline(never)]
    pub fn of(value: &JsValue, path: &str) -> Result<Self, Error> {
        let mut ctx = HostContext::new();
        ctx.push(value, path)?;
        Ok(ctx)
    }

    pub fn core(&self) -> &CoreContext {
        &self.core
    }

    pub fn len(&self) -> usize {
        self.core.len()
    }

    #[cfg(not(target_arch = "wasm32"))] // clippy's len_without_is_empty on the native API
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }

    /// Append `array[from..]`: read first, so an error leaves the context unchanged.
    fn append_from(&mut self, array: &HostArray, from: usize) -> Result<usize, Error> {
        let facts = facts_of_range(array, from, array.len())?;
        let mut values = Vec::with_capacity(facts.len());
        for i in from..array.len() {
            values.push(array.get(i)?);
        }
        for (f, v) in facts.into_iter().zip(values) {
            self.core.push(f);
            self.refs.push(&v);
        }
        Ok(array.len() - from)
    }

    /// Append the Vercel AI SDK's messages of `value` (an array), each read as one or more
    /// of the core's messages ([`crate::ai_sdk::project`]) whose host object is the SDK
    /// message itself: `steps` (the steps of its assistant messages, in order), `options`
    /// as the projection reads them. Read first: an error leaves the context unchanged.
    pub fn push_model_messages(
        &mut self,
        value: &JsValue,
        steps: &[Option<crate::ai_sdk::StepInfo>],
        options: &crate::ai_sdk::ProjectOptions,
        now: f64,
    ) -> Result<usize, Error> {
        let array = HostArray::new(value, "messages", "messages")?;
        let text = super::convert::json_text(array.value(), "messages", false)?.unwrap_or_default();
        let values = match super::convert::parse_js_json(&text, "messages")? {
            serde_json::Value::Array(values) => values,
            _ => return Err(Error::invalid("messages", "expected an array")),
        };
        let projected = crate::ai_sdk::project(&values, steps, options, now, "messages", 0)?;
        let mut refs = Vec::with_capacity(array.len());
        for i in 0..array.len() {
            refs.push(array.get(i)?);
        }
        self.model_messages = true;
        for p in projected {
            let Some(source) = refs.get(p.source) else {
                continue;
            };
            self.core.push(p.facts);
            self.refs.push(source);
        }
        Ok(array.len())
    }

    /// Append every message of `value` (an array).
    pub fn push(&mut self, value: &JsValue, path: &str) -> Result<usize, Error> {
        let array = HostArray::new(value, path, "messages")?;
        self.append_from(&array, 0)
    }

    /// Bring the context in line with `value`: when it holds the known messages (the same
    /// first and last objects) followed by new ones, read only the new ones; otherwise read
    /// it whole. (A message replaced in the middle of a known array is not noticed: call
    /// `load`.)
    pub fn sync(&mut self, value: &JsValue, path: &str) -> Result<Synced, Error> {
        let array = HostArray::new(value, path, "messages")?;
        let seen = self.len();
        let known = seen == 0
            || (array.len() >= seen
                && Object::is(&array.get(0)?, &self.refs.get(0))
                && Object::is(&array.get(seen - 1)?, &self.refs.get(seen as u32 - 1)));
        if known {
            let added = self.append_from(&array, seen)?;
            return Ok(Synced::Appended(added));
        }
        let mut fresh = HostContext::new();
        fresh.append_from(&array, 0)?;
        *self = fresh;
        Ok(Synced::Reloaded)
    }

    /// The messages, the host's own objects (a new array).
    pub fn messages(&self) -> Array {
        self.handed_out(&self.refs)
    }

    /// `array` as the host reads it: an AI SDK message the core reads as several (a run
    /// of the same object) named once.
    fn handed_out(&self, array: &Array) -> Array {
        if !self.model_messages {
            return array.slice(0, array.length());
        }
        let out = Array::new();
        let mut last = JsValue::UNDEFINED;
        for v in array.iter() {
            if !Object::is(&v, &last) {
                out.push(&v);
            }
            last = v;
        }
        out
    }

    /// `items` as a new array: kept runs are the host's objects, new messages `new_values`.
    fn items_array(&self, items: &[Item], new_values: &Array) -> Array {
        let out = Array::new();
        let mut next_new = 0;
        for item in items {
            match item {
                Item::Kept(run) => dc_push_run(&out, &self.refs, run.start as u32, run.end as u32),
                Item::New(_) => {
                    out.push(&new_values.get(next_new));
                    next_new += 1;
                }
            }
        }
        out
    }

    /// The outcome for JavaScript, its `messages` the host's own objects plus the new ones,
    /// and the context rewritten to it.
    pub fn apply(&mut self, out: &DelegateTurnOutcome) -> Result<JsValue, JsValue> {
        let js = to_js(out)?;
        let encoded: Array = Reflect::get(&js, &JsValue::from_str("messages"))?.unchecked_into();
        // the serialized new messages, in order (kept runs were serialized as [start, end])
        let new_values: Array = encoded.iter().filter(|v| !Array::is_array(v)).collect();
        let messages = self.items_array(&out.messages, &new_values);
        Reflect::set(
            &js,
            &JsValue::from_str("messages"),
            &self.handed_out(&messages),
        )?;
        if out.rewrites(self.len()) {
            let new_facts = throw(out.new_facts())?;
            self.core.rewrite(&out.messages, new_facts);
            self.refs = messages.slice(0, messages.length());
        }
        Ok(js)
    }

    /// A preparation for JavaScript: its parts are slices of the host's own objects;
    /// `undefined` where pi's `prepareCompaction` returns `undefined` (no preparation).
    pub fn preparation_to_js(&self, p: Option<&CompactionPreparation>) -> Result<JsValue, JsValue> {
        let Some(p) = p else {
            return Ok(JsValue::UNDEFINED);
        };
        let js = to_js(p)?;
        for (key, span) in [
            ("messagesToSummarize", p.messages_to_summarize),
            ("turnPrefixMessages", p.turn_prefix_messages),
            ("retainedTail", p.retained_tail),
        ] {
            let slice = self
                .refs
                .slice(span.start as u32, span.end.max(span.start) as u32);
            Reflect::set(&js, &JsValue::from_str(key), &slice)?;
        }
        Ok(js)
    }
}
