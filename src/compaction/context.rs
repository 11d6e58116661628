//! ADR 0299 clauses 3–5: one delegate's context as the decisions see it, kept across
//! turns: the [`MessageFacts`] of every message and running sums, so that a turn
//! boundary costs what came after the last provider response, not the whole history.
//!
//! The context is `[brief, (compactionSummary), messages...]`: the task brief is the
//! first message and stays verbatim through every rewrite. [`DelegateContext::push`]
//! appends new messages; [`DelegateContext::rewrite`] applies a compaction or a degrade
//! (runs of kept messages by index range, plus the few new ones). The one-shot functions
//! build a context from a whole message list and ask it once, so the handle and the
//! one-shot calls are one code path.

use crate::facts::MessageFacts;
use crate::message::AgentMessage;
use crate::role::Role;
use crate::tokens::{self, ContextTokenEstimate};

/// One part of a rewritten context: a run of the context's messages before the rewrite,
/// or one new message. A run is a range, so an unchanged context is one part whatever its
/// length (a boundary that changes nothing costs nothing per message).
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// The messages at these indices of the context before the rewrite, in order (the
    /// host's own objects).
    Kept(std::ops::Range<usize>),
    /// A message the rewrite created (a summary, a degrade note).
    New(Box<AgentMessage>),
}

impl Item {
    /// Number of messages in this part.
    pub fn len(&self) -> usize {
        match self {
            Item::Kept(r) => r.len(),
            Item::New(_) => 1,
        }
    }

    /// Whether it holds no message (an empty run).
    #[cfg(not(target_arch = "wasm32"))] // clippy's len_without_is_empty on the native API
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl serde::Serialize for Item {
    /// A kept run as `[start, end]` (the binding puts the caller's own objects there), a
    /// new message as the message.
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Item::Kept(r) => (r.start as u64, r.end as u64).serialize(s),
            Item::New(m) => m.serialize(s),
        }
    }
}

/// A delegate's context: per-message facts plus running sums.
#[derive(Clone, Debug, Default)]
pub struct DelegateContext {
    facts: Vec<MessageFacts>,
    /// `sums[i]` = estimated tokens of messages `0..i`.
    sums: Vec<u64>,
    last_summary: Option<usize>,
    last_assistant: Option<usize>,
    /// Indices of messages with file operations, ascending.
    with_file_ops: Vec<usize>,
    /// Indices of messages with a trusted provider usage, ascending: the usage anchor is
    /// a lookup, not a walk back over every message since it (a host whose provider
    /// reports no usage would otherwise pay the whole history at every boundary).
    with_usage: Vec<usize>,
}

impl DelegateContext {
    /// An empty context.
    #[inline(never)]
    pub fn new() -> Self {
        DelegateContext {
            sums: vec![0],
            ..Default::default()
        }
    }

    /// A context of these facts, in order.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn from_facts(facts: impl IntoIterator<Item = MessageFacts>) -> Self {
        let mut ctx = DelegateContext::new();
        for f in facts {
            ctx.push(f);
        }
        ctx
    }

    /// A context of typed messages (each read through its JSON text, as the host's are).
    #[cfg(not(target_arch = "wasm32"))] // for the one-shot functions over typed messages (native tests)
    pub fn from_messages(messages: &[AgentMessage]) -> crate::error::Result<Self> {
        let mut ctx = DelegateContext::new();
        for (i, m) in messages.iter().enumerate() {
            ctx.push(m.facts(&format!("messages[{i}]"))?);
        }
        Ok(ctx)
    }

    /// Append one message. O(1) apart from the message itself.
    pub fn push(&mut self, f: MessageFacts) {
        let i = self.facts.len();
        let total = self.total_tokens().saturating_add(f.tokens);
        match f.role {
            Role::CompactionSummary => self.last_summary = Some(i),
            Role::Assistant => self.last_assistant = Some(i),
            _ => {}
        }
        if !f.file_ops.is_empty() {
            self.with_file_ops.push(i);
        }
        if f.trusted_usage().is_some() {
            self.with_usage.push(i);
        }
        self.facts.push(f);
        self.sums.push(total);
    }

    /// Replace the context by `items` (see [`Item`]); `new_facts` are the facts of the
    /// `Item::New` messages, in order.
    pub fn rewrite(&mut self, items: &[Item], new_facts: Vec<MessageFacts>) {
        let mut old: Vec<Option<MessageFacts>> = std::mem::take(&mut self.facts)
            .into_iter()
            .map(Some)
            .collect();
        let mut new_facts = new_facts.into_iter();
        *self = DelegateContext::new();
        for item in items {
            match item {
                Item::Kept(run) => {
                    for i in run.clone() {
                        if let Some(f) = old.get_mut(i).and_then(Option::take) {
                            self.push(f);
                        }
                    }
                }
                Item::New(_) => {
                    if let Some(f) = new_facts.next() {
                        self.push(f);
                    }
                }
            }
        }
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether there are none.
    #[cfg(not(target_arch = "wasm32"))] // clippy's len_without_is_empty on the native API
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// The facts of every message.
    pub fn facts(&self) -> &[MessageFacts] {
        &self.facts
    }

    /// Estimated tokens of all messages.
    pub fn total_tokens(&self) -> u64 {
        self.sums.last().copied().unwrap_or(0)
    }

    /// Estimated tokens of `range` (clamped to the context).
    #[inline(never)]
    pub fn tokens(&self, range: std::ops::Range<usize>) -> u64 {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        self.sums[end] - self.sums[start]
    }

    /// The smallest `i >= start` with `tokens(i..end) < keep` fails, i.e. the index where
    /// walking back from `end` the estimates first reach `keep`; `None` when they never do.
    pub fn reach_index(&self, start: usize, end: usize, keep: f64) -> Option<usize> {
        let end = end.min(self.len());
        if start >= end {
            return None;
        }
        let reached = |i: usize| (self.sums[end] - self.sums[i]) as f64 >= keep;
        if !reached(start) {
            return None;
        }
        // largest i in start..end with reached(i): reached is monotone (true, ..., true, false)
        let (mut lo, mut hi) = (start, end - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if reached(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }

    /// Index of the last `compactionSummary`.
    pub fn last_summary(&self) -> Option<usize> {
        self.last_summary
    }

    /// Index of the last assistant message.
    pub fn last_assistant(&self) -> Option<usize> {
        self.last_assistant
    }

    /// Indices of messages with file operations in `range`, ascending.
    #[inline(never)]
    pub fn file_op_indices(&self, range: std::ops::Range<usize>) -> &[usize] {
        let from = self.with_file_ops.partition_point(|&i| i < range.start);
        let to = self.with_file_ops.partition_point(|&i| i < range.end);
        &self.with_file_ops[from..to.max(from)]
    }

    /// First index whose provider usage can describe the current context: after the
    /// messages the last rewrite kept from before it (their usage is stale, pi #1860).
    pub fn fresh_usage_start(&self) -> usize {
        tokens::fresh_usage_start(
            self.last_summary
                .and_then(|k| Some((k, self.facts.get(k)?))),
        )
    }

    /// pi's `estimateContextTokens` over `0..end`, anchored on a trusted usage at or
    /// after `floor` only: the last one before `end`, plus the estimates after it
    /// ([`tokens::usage_anchor`]'s walk, answered from the index of usages).
    pub fn estimate(&self, end: usize, floor: usize) -> ContextTokenEstimate {
        let end = end.min(self.len());
        match self.usage_before(end, floor) {
            Some((i, usage_tokens)) => {
                let trailing = self.tokens(i + 1..end) as f64;
                ContextTokenEstimate {
                    tokens: usage_tokens + trailing,
                    usage_tokens,
                    trailing_tokens: trailing,
                    last_usage_index: Some(i),
                }
            }
            None => {
                let all = self.sums[end] as f64;
                ContextTokenEstimate {
                    tokens: all,
                    usage_tokens: 0.0,
                    trailing_tokens: all,
                    last_usage_index: None,
                }
            }
        }
    }

    /// The last message in `floor..end` with a trusted usage, and that usage.
    fn usage_before(&self, end: usize, floor: usize) -> Option<(usize, f64)> {
        let before = self.with_usage.partition_point(|&i| i < end);
        let i = *self.with_usage.get(before.checked_sub(1)?)?;
        if i < floor {
            return None;
        }
        Some((i, self.facts.get(i)?.trusted_usage()?))
    }
}
