//! The persisted transcript (host-contract §6): rows as the host stores them, the host's
//! name rules, and the one converter of rows into provider messages. Read by the
//! parent-context rebuild (seed 001, [`crate::parent`]) and the resumable delegations
//! (ADR 0279 clauses 2, 3, 8 and 12, [`crate::delegation`]).
//!
//! | what | module |
//! |---|---|
//! | `UiMessage` rows, the row rules ([`RowHead`]), duplicate copies | [`rows`] |
//! | the rows' order keys: written by every writer, restored by every reader | [`order`] |
//! | tool and agent names, normalised | [`names`] |
//! | `createdAt`, `startedAt`, `completedAt` → milliseconds | [`time`] |
//! | rows → `AgentMessage[]` | [`to_messages`] |
//! | a delegate's pi messages → rows (the writer of the same format) | [`from_messages`] |
//! | rows written message by message as a conversation grows, with their order keys | [`recorder`] |

pub mod from_messages;
pub mod names;
pub mod order;
pub mod recorder;
pub mod rows;
pub mod time;
pub mod to_messages;

pub use from_messages::{rows_of_facts, MessagesToRowsInput};
pub use names::{fold_name, normalize_agent_name, normalize_tool_name};
pub use rows::{
    dedupe_rows, rows_from_value, text_content, CallIds, HeadField, RowFilter, RowHead, RowRole,
    UiMessage,
};
pub use time::{iso_to_ms, ms_to_iso, time_value_to_ms};
pub use to_messages::{rows_to_messages, tool_result_blocks, zero_usage, ProviderBinding};

// Re-exported for the native tests (tests/*.rs, fuzz/): on wasm32 nothing imports these
// paths, and an unused import fails that build (src/lib.rs says why).
#[cfg(not(target_arch = "wasm32"))]
pub use {
    from_messages::{messages_to_rows, messages_to_rows_at, rows_of_input, RowOwner},
    names::{is_read_only_tool, is_task_tool, KNOWN_TOOLS, READ_ONLY_TOOLS, TASK_TOOL},
    to_messages::{is_failed_assistant_row, INTERRUPTED_TOOL_RESULT, MISSING_TOOL_RESULT},
};
