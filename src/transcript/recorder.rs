//! The rows of a growing conversation, written message by message as each one ends: the
//! writer of a delegate run ([`crate::run`]) and of the parent's own messages (pi's
//! `recordRows`). It holds only the window a new message can change (from the latest
//! assistant on: a tool result rewrites its call's row), so writing a run message by
//! message is linear in the run, and gives every row its order key ([`super::order`]):
//! a row rewritten in place keeps the key of its first copy.
//!
//! Row ids are [`super::from_messages`]'s (`<prefix>:u<i>`, `:a<i>`, `:<toolCallId>`,
//! `i` the message's index in the conversation from `first_index` on). The parent's
//! recorder gives a prefix that is new for every recording (issue 34 §2: a restart of
//! the same conversation must not write over the rows of the first), see
//! [`recording_prefix`].

use crate::error::Result;
use crate::facts::MessageFacts;
use crate::keyed::Table;
use crate::role::Role;

use super::from_messages::{rows_of_facts, RowOwner};
use super::order::next_key;
use super::rows::UiMessage;

/// The rows of a conversation as its messages end.
#[derive(Debug)]
pub struct Recorder {
    owner: RowOwner,
    /// The messages from the latest assistant on.
    window: Vec<MessageFacts>,
    /// The index in the conversation of `window[0]`.
    first: usize,
    /// The keys of the window's rows, by row id (a rewrite keeps its key).
    keys: Table<String, f64>,
}

impl Recorder {
    /// A recorder of `owner`'s rows whose first message will be the conversation's
    /// `first_index`-th. `INVALID_INPUT` when `owner` gives no id prefix.
    pub fn new(owner: RowOwner, first_index: usize) -> Result<Recorder> {
        owner.prefix()?;
        Ok(Recorder {
            owner,
            window: Vec::new(),
            first: first_index,
            keys: Table::default(),
        })
    }

    /// The index the next message will have in the conversation.
    #[cfg(not(target_arch = "wasm32"))] // for the native tests
    pub fn next_index(&self) -> usize {
        self.first + self.window.len()
    }

    /// The rows `message` writes or rewrites, written at `now` (milliseconds): its own row
    /// (and an assistant's tool rows), or its call's row rewritten (a tool result).
    pub fn push(&mut self, message: MessageFacts, now: f64) -> Result<Vec<UiMessage>> {
        if message.role == Role::Assistant && !self.window.is_empty() {
            // what came before can no longer change: the window starts here
            self.first += self.window.len();
            self.window.clear();
            self.keys = Table::default();
        }
        self.window.push(message);
        let start = self.window.len() - 1;
        let mut rows = rows_of_facts(&self.window, &self.owner, start, self.first)?;
        for row in &mut rows {
            let key = *self.keys.entry(row.id.clone(), || next_key(now));
            row.order = Some(key);
        }
        Ok(rows)
    }
}

/// The id prefix of one recording of a conversation: `<prefix>:<token>`, with `token`
/// new for each recording (the binding draws it at random), so that a conversation
/// recorded again after a restart, under the same prefix, never writes over the rows of
/// an earlier recording.
pub fn recording_prefix(prefix: &str, token: &str) -> String {
    format!("{prefix}:{token}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::AgentMessage;
    use serde_json::json;

    fn facts(v: serde_json::Value) -> MessageFacts {
        let m: AgentMessage = crate::decode::decode_at(v, "m").unwrap();
        m.facts("m").unwrap()
    }

    fn assistant(call: &str) -> MessageFacts {
        facts(json!({ "role": "assistant", "content": [
            { "type": "text", "text": "reading" },
            { "type": "toolCall", "id": call, "name": "read", "arguments": { "path": "a.ts" } }
        ], "api": "x", "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": 5,
            "usage": { "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2 } }))
    }

    fn result(call: &str) -> MessageFacts {
        facts(
            json!({ "role": "toolResult", "toolCallId": call, "toolName": "read",
            "content": [{ "type": "text", "text": "x" }], "isError": false, "timestamp": 6 }),
        )
    }

    #[test]
    fn rows_as_messages_end_with_keys_kept_by_a_rewrite() {
        let mut r = Recorder::new(RowOwner::delegate("t1", "explorer"), 0).unwrap();
        let user = facts(json!({ "role": "user", "content": "go", "timestamp": 1 }));
        let u = r.push(user, 10.0).unwrap();
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].id, "t1:u0");
        let a = r.push(assistant("c1"), 10.0).unwrap();
        assert_eq!(
            a.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["t1:a1", "t1:c1"]
        );
        assert_eq!(a[1].tool_status.as_deref(), Some("running"));
        let res = r.push(result("c1"), 11.0).unwrap();
        assert_eq!(res.len(), 1);
        assert_eq!(res[0].id, "t1:c1");
        assert_eq!(res[0].tool_status.as_deref(), Some("success"));
        // the rewrite keeps its first key; keys increase in writing order
        assert_eq!(res[0].order, a[1].order);
        let keys = [u[0].order, a[0].order, a[1].order].map(Option::unwrap);
        assert!(keys[0] < keys[1] && keys[1] < keys[2], "{keys:?}");
        // the next assistant starts a new window; ids count the whole conversation
        let a2 = r.push(assistant("c2"), 12.0).unwrap();
        assert_eq!(a2[0].id, "t1:a3");
        assert_eq!(r.next_index(), 4);
        assert!(a2[0].order.unwrap() > keys[2]);
    }

    #[test]
    fn a_turn_is_read_from_its_own_assistant_on() {
        // some providers number tool calls per turn: a later turn's call `c1` is that
        // turn's, not the earlier call's with its result
        let mut r = Recorder::new(RowOwner::delegate("t1", "explorer"), 0).unwrap();
        let first = r.push(assistant("c1"), 10.0).unwrap();
        r.push(result("c1"), 11.0).unwrap();
        let again = facts(json!({ "role": "assistant", "content": [
            { "type": "toolCall", "id": "c1", "name": "read", "arguments": { "path": "b.ts" } }
        ], "api": "x", "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": 7,
            "usage": { "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2 } }));
        let second = r.push(again, 12.0).unwrap();
        assert_eq!(
            second.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["t1:a2", "t1:c1"]
        );
        assert_eq!(second[1].tool_status.as_deref(), Some("running"));
        let args = serde_json::to_string(&second[1]).unwrap();
        assert!(args.contains("b.ts") && !args.contains("a.ts"), "{args}");
        // a new turn's rows are ordered after the earlier turn's
        assert!(second[1].order.unwrap() > first[1].order.unwrap());
    }

    #[test]
    fn a_recording_prefix_is_the_prefix_and_its_token() {
        assert_eq!(recording_prefix("s1", "k3j2"), "s1:k3j2");
        assert!(Recorder::new(RowOwner::default(), 0).is_err());
    }
}
