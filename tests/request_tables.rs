//! ADR 0299 clause 3, a summary request bounded to the summarizing model's window
//! (`src/compaction/request.rs`; pi's unbounded requests are held in tests/pi_table.rs):
//! a conversation that fits the request's room is sent whole; once it does not, each part
//! is cut to its bounded size (4,000 characters, a thinking part to its label and 1,000)
//! with a visible count of what was cut, then the oldest parts are dropped behind a marker
//! that counts them, and the request always fits: its input estimate plus its maxTokens
//! is at most the window.
#![cfg(not(target_arch = "wasm32"))]

use delegate_context::compaction::request::{
    build_summary_request, SummaryRequestSpec, BOUNDED_PART_CHARS, BOUNDED_THINKING_CHARS,
    SUMMARIZATION_PROMPT, SUMMARIZATION_SYSTEM_PROMPT,
};
use delegate_context::compaction::{SummaryKind, SummaryRequest};
use delegate_context::message::AgentMessage;

const OPEN: &str = "<conversation>\n";
const CLOSE: &str = "\n</conversation>\n\n";
/// reserveTokens 1,000: a history request's maxTokens is 800.
const MAX_TOKENS: u64 = 800;

fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The characters of a history request without a conversation (no brief, no previous
/// summary, no focus).
fn fixed() -> usize {
    units(SUMMARIZATION_SYSTEM_PROMPT) + units(OPEN) + units(CLOSE) + units(SUMMARIZATION_PROMPT)
}

fn request(parts: &[String], window: u64) -> Option<SummaryRequest> {
    request_with(parts, window, None, None)
}

fn request_with(
    parts: &[String],
    window: u64,
    brief: Option<&str>,
    previous_summary: Option<&str>,
) -> Option<SummaryRequest> {
    build_summary_request(&SummaryRequestSpec {
        kind: SummaryKind::History,
        parts: parts.to_vec(),
        brief,
        previous_summary,
        custom_instructions: None,
        reserve_tokens: 1000.0,
        model_max_tokens: 0.0,
        context_window: window,
        now: 0.0,
    })
}

fn prompt(r: &SummaryRequest) -> String {
    let AgentMessage::User(u) = &r.messages[0] else {
        panic!("a user message");
    };
    u.content.text("")
}

/// The conversation a request shows, and a check that the request fits its window.
fn conversation(r: &SummaryRequest, window: u64) -> String {
    assert_eq!(r.max_tokens, MAX_TOKENS);
    assert!(
        r.estimated_input_tokens + r.max_tokens <= window,
        "{} + {} > {window}",
        r.estimated_input_tokens,
        r.max_tokens
    );
    let text = prompt(r);
    let start = text.find(OPEN).expect("a conversation") + OPEN.len();
    let end = text.rfind(CLOSE).expect("its end");
    text[start..end].to_string()
}

/// A room of at least `chars` characters of conversation, rounded up to a whole token of
/// request, and the window that gives exactly that room.
fn room_of_about(chars: usize) -> (usize, u64) {
    let room = chars + (4 - (fixed() + chars) % 4) % 4;
    (room, window_for(room))
}

/// A window whose request room is exactly `chars` characters of conversation.
fn window_for(chars: usize) -> u64 {
    let total = fixed() + chars;
    assert_eq!(
        total % 4,
        0,
        "pick parts that make the request a multiple of 4"
    );
    MAX_TOKENS + (total / 4) as u64
}

#[test]
fn a_conversation_that_fills_the_room_exactly_is_sent_whole() {
    // four parts joined by blank lines
    let mut parts: Vec<String> = [100, 200, 300, 50]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!(
                "[User]: {}",
                char::from(b'a' + i as u8).to_string().repeat(*n)
            )
        })
        .collect();
    let joined = |parts: &[String]| parts.join("\n\n");
    while (fixed() + units(&joined(&parts))) % 4 != 0 {
        parts[3].push('d');
    }
    let whole = joined(&parts);
    let window = window_for(units(&whole));
    let r = request(&parts, window).expect("fits");
    assert!(!r.bounded && r.omitted_parts == 0, "{r:?}");
    assert_eq!(conversation(&r, window), whole);
    assert_eq!(r.estimated_input_tokens + r.max_tokens, window);
    // one character more than the room: no part is over its bounded size, so the
    // oldest part is dropped behind a marker that counts it
    let mut longer = parts.clone();
    longer[3].push_str("ddddd");
    let r = request(&longer, window + 1).expect("fits");
    let over = units(&joined(&longer)) - (4 * (window + 1 - MAX_TOKENS) as usize - fixed());
    assert_eq!(over, 1);
    assert!(r.bounded && r.omitted_parts == 1, "{r:?}");
    assert_eq!(
        conversation(&r, window + 1),
        format!(
            "[... 1 earlier parts of the conversation omitted to fit the summary request]\n\n{}",
            joined(&longer[1..])
        )
    );
    // a window one token smaller than the exact fit: the same
    let r = request(&parts, window - 1).expect("fits");
    assert!(r.bounded && r.omitted_parts == 1, "{r:?}");
    assert_eq!(
        conversation(&r, window - 1),
        format!(
            "[... 1 earlier parts of the conversation omitted to fit the summary request]\n\n{}",
            joined(&parts[1..])
        )
    );
}

#[test]
fn long_parts_are_cut_to_their_bounded_size_with_a_count() {
    let user = format!("[User]: {}", "u".repeat(10_000));
    let thinking_label = "[Assistant thinking]: ";
    let thinking = format!("{thinking_label}{}", "t".repeat(5_000));
    let reply = "[Assistant]: ok".to_string();
    let parts = vec![user.clone(), thinking.clone(), reply.clone()];
    // room for about 8,000 characters: the whole (15,052) does not fit, the cut parts do
    let (_, window) = room_of_about(8_000);
    let r = request(&parts, window).expect("fits");
    assert!(r.bounded && r.omitted_parts == 0, "{r:?}");
    let shown = conversation(&r, window);
    let shown: Vec<&str> = shown.split("]\n\n").collect();
    assert_eq!(shown.len(), 3, "{shown:?}");
    let cut = |original: &str, shown: &str, max: usize| {
        let shown = format!("{shown}]");
        let n = units(&shown);
        assert!(n <= max && n + 2 >= max, "{n} of at most {max}");
        let (head, count) = shown
            .split_once("\n\n[... ")
            .expect("a visible count of what was cut");
        let count: usize = count
            .strip_suffix(" more characters cut to fit the summary request]")
            .expect("the marker's words")
            .parse()
            .expect("a count");
        assert!(original.starts_with(head));
        assert_eq!(
            units(head) + count,
            units(original),
            "the count is what was cut"
        );
    };
    cut(&user, shown[0], BOUNDED_PART_CHARS);
    cut(
        &thinking,
        shown[1],
        units(thinking_label) + BOUNDED_THINKING_CHARS,
    );
    assert_eq!(shown[2], reply, "a short part is shown whole");
}

/// The smallest rooms: one part longer than the whole room is cut to the room (nothing
/// was dropped, so no "earlier parts" marker); a room smaller than that marker shows no
/// conversation at all, and counts every part as omitted.
#[test]
fn a_room_smaller_than_one_part_or_than_the_marker() {
    let part = format!("[User]: {}", "u".repeat(10_000));
    let (room, window) = room_of_about(1_000);
    let r = request(std::slice::from_ref(&part), window).expect("fits");
    assert!(r.bounded && r.omitted_parts == 0, "{r:?}");
    let shown = conversation(&r, window);
    // cut to the room left beside an omitted-parts marker (86 units), though none is shown
    assert!(
        units(&shown) <= room && units(&shown) + 90 >= room,
        "{}",
        units(&shown)
    );
    assert!(shown.starts_with("[User]: uuu"), "{shown}");
    assert!(shown.ends_with(" more characters cut to fit the summary request]"));
    assert!(!shown.contains("earlier parts"), "{shown}");
    // a room of a few characters: the omitted-parts marker alone (86) does not fit
    let (_, window) = room_of_about(20);
    let parts = vec![part.clone(), "[Assistant]: ok".to_string()];
    let r = request(&parts, window).expect("fits");
    assert!(r.bounded && r.omitted_parts == 2, "{r:?}");
    assert_eq!(conversation(&r, window), "");
}

/// Dropping the oldest parts at the exact edge: the kept parts, joined by blank lines, and
/// the marker with its own blank line fill the room to the unit, and one unit less drops
/// one more part.
#[test]
fn the_newest_parts_that_fit_beside_the_marker_are_kept_to_the_unit() {
    let part = |c: char, n: usize| format!("[User]: {}", c.to_string().repeat(n));
    let mut parts = vec![
        part('a', 3_000),
        part('b', 300),
        part('c', 200),
        part('d', 100),
    ];
    let marker = |n: usize| {
        format!("[... {n} earlier parts of the conversation omitted to fit the summary request]")
    };
    // the room that keeps b, c and d exactly: their lengths, two blank lines, the marker
    // and its blank line
    let exact = |parts: &[String]| {
        parts[1..].iter().map(|p| units(p)).sum::<usize>() + 4 + units(&marker(1)) + 2
    };
    while (fixed() + exact(&parts)) % 4 != 0 {
        parts[3].push('d');
    }
    let room = exact(&parts);
    let window = window_for(room);
    let r = request(&parts, window).expect("fits");
    assert!(r.bounded && r.omitted_parts == 1, "{r:?}");
    assert_eq!(
        conversation(&r, window),
        format!("{}\n\n{}", marker(1), parts[1..].join("\n\n"))
    );
    // four units less (a window one token smaller): b no longer fits
    let r = request(&parts, window - 1).expect("fits");
    assert!(r.bounded && r.omitted_parts == 2, "{r:?}");
    assert_eq!(
        conversation(&r, window - 1),
        format!("{}\n\n{}", marker(2), parts[2..].join("\n\n"))
    );
}

/// The delegate's brief, shown as context in front of the conversation, takes at most a
/// quarter of the request's room (its frame included): a longer brief is cut there with
/// a count, and the request says it was bounded.
#[test]
fn the_brief_takes_at_most_a_quarter_of_the_room() {
    let parts = vec!["[User]: go".to_string()];
    let window = 800 + 2_500; // 10,000 characters of input
    let available = 4 * 2_500 - fixed();
    let quarter = available / 4;
    let section = |r: &SummaryRequest| {
        let p = prompt(r);
        let end = p.find("</task>\n\n").expect("the brief as context") + "</task>\n\n".len();
        p[..end].to_string()
    };
    // the frame around the brief, from a short one shown whole
    let r = request_with(&parts, window, Some("short brief"), None).expect("fits");
    assert!(!r.bounded, "{r:?}");
    let frame = units(&section(&r)) - units("short brief");
    assert!(section(&r).contains("\nshort brief\n"));
    // exactly the quarter: whole, not bounded
    let exact = "b".repeat(quarter - frame);
    let r = request_with(&parts, window, Some(&exact), None).expect("fits");
    assert!(!r.bounded, "{r:?}");
    assert_eq!(units(&section(&r)), quarter);
    assert!(section(&r).contains(&exact));
    // longer: cut to the quarter with a count, bounded
    let long = "b".repeat(3 * quarter);
    let r = request_with(&parts, window, Some(&long), None).expect("fits");
    assert!(r.bounded, "{r:?}");
    let shown = section(&r);
    assert!(
        units(&shown) <= quarter && units(&shown) + 2 >= quarter,
        "{}",
        units(&shown)
    );
    assert!(shown.contains(" more characters cut to fit the summary request]"));
    assert!(conversation(&r, window).ends_with("[User]: go"));
}

/// A previous summary takes at most half of the request's room (its tags included): a
/// longer one is cut there with a count, and the request says it was bounded.
#[test]
fn a_previous_summary_takes_at_most_half_of_the_room() {
    use delegate_context::compaction::request::UPDATE_SUMMARIZATION_PROMPT;
    let parts = vec!["[User]: go".to_string()];
    let window = 800 + 2_500;
    let fixed_update = fixed() - units(SUMMARIZATION_PROMPT) + units(UPDATE_SUMMARIZATION_PROMPT);
    let half = (4 * 2_500 - fixed_update) / 2;
    let section = |r: &SummaryRequest| {
        let p = prompt(r);
        let start = p
            .find("<previous-summary>\n")
            .expect("the previous summary");
        let end =
            p.find("</previous-summary>\n\n").expect("its end") + "</previous-summary>\n\n".len();
        p[start..end].to_string()
    };
    let tags = units("<previous-summary>\n\n</previous-summary>\n\n");
    // exactly half: whole, not bounded
    let exact = "p".repeat(half - tags);
    let r = request_with(&parts, window, None, Some(&exact)).expect("fits");
    assert!(!r.bounded, "{r:?}");
    assert_eq!(units(&section(&r)), half);
    // longer: cut to half with a count, bounded
    let long = "p".repeat(2 * half);
    let r = request_with(&parts, window, None, Some(&long)).expect("fits");
    assert!(r.bounded, "{r:?}");
    let shown = section(&r);
    assert!(
        units(&shown) <= half && units(&shown) + 2 >= half,
        "{}",
        units(&shown)
    );
    assert!(shown.contains(" more characters cut to fit the summary request]"));
}
