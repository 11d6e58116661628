//! The message reader's refusals, word for word (host-contract §2: a bad host message is
//! an `INVALID_INPUT` naming the bad value's path, in JavaScript's words ("expected a number, got a string"), as the typed decoder
//! of `message::read` words them). The texts are API: a host shows them; this table holds
//! each kind of refusal of `facts` (not JSON, a wrong type with and without the field's
//! name, a missing field, a bad block, a bad usage) to its exact path and message.

use delegate_context::error::Error;
use delegate_context::facts::MessageFacts;

fn refusal(text: &str) -> (String, String) {
    match MessageFacts::from_json(text, "messages[3]") {
        Err(Error::InvalidInput { path, message }) => (path, message),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn every_refusal_names_its_path_in_javascript_s_words() {
    let table: &[(&str, &str, &str)] = &[
        ("{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1", "messages[3]", "not JSON data (expected ',' or '}' at character 43)"),
        ("{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1} x", "messages[3]", "not JSON data (trailing characters at character 45)"),
        ("[1]", "messages[3]", "expected a message object, got an array"),
        ("\"text\"", "messages[3]", "expected a message object, got a string"),
        ("{\"content\":\"hi\",\"timestamp\":1}", "messages[3].role", "missing field `role`"),
        ("{\"role\":5,\"content\":\"hi\",\"timestamp\":1}", "messages[3].role", "expected a string, got a number"),
        ("{\"role\":\"user\",\"timestamp\":1}", "messages[3]", "missing field `content`"),
        ("{\"role\":\"user\",\"content\":5,\"timestamp\":1}", "messages[3].content", "expected a string or an array of blocks, got a number"),
        ("{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":\"x\"}", "messages[3].timestamp", "expected a number, got a string"),
        ("{\"role\":\"user\",\"content\":[{\"type\":\"text\"}],\"timestamp\":1}", "messages[3].content", "not a string or an array of blocks ([0]: missing field `text`)"),
        ("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":5}],\"timestamp\":1}", "messages[3].content", "not a string or an array of blocks ([0]: text: expected a string, got a number)"),
        ("{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"data\":\"x\"}],\"timestamp\":1}", "messages[3].content", "not a string or an array of blocks ([0]: missing field `mimeType`)"),
        ("{\"role\":\"user\",\"content\":[5],\"timestamp\":1}", "messages[3].content", "not a string or an array of blocks ([0]: expected a block, got a number)"),
        ("{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"c\",\"name\":\"read\"}],\"api\":\"a\",\"provider\":\"p\",\"model\":\"m\",\"usage\":{\"input\":1,\"output\":1,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":2,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"toolUse\",\"timestamp\":1}", "messages[3].content[0]", "missing field `arguments`"),
        ("{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":5,\"name\":\"read\",\"arguments\":{}}],\"api\":\"a\",\"provider\":\"p\",\"model\":\"m\",\"usage\":{\"input\":1,\"output\":1,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":2,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"toolUse\",\"timestamp\":1}", "messages[3].content[0]", "id: expected a string, got a number"),
        ("{\"role\":\"assistant\",\"content\":[],\"api\":\"a\",\"provider\":\"p\",\"model\":\"m\",\"usage\":{\"input\":\"1\",\"output\":1,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":2,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"stop\",\"timestamp\":1}", "messages[3].usage.input", "expected a number, got a string"),
        ("{\"role\":\"assistant\",\"content\":[],\"api\":\"a\",\"provider\":\"p\",\"model\":\"m\",\"usage\":5,\"stopReason\":\"stop\",\"timestamp\":1}", "messages[3].usage", "expected an object, got a number"),
        ("{\"role\":\"assistant\",\"content\":\"hi\",\"api\":\"a\",\"provider\":\"p\",\"model\":\"m\",\"usage\":{\"input\":1,\"output\":1,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":2,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"stop\",\"timestamp\":1}", "messages[3].content", "expected an array, got a string"),
        ("{\"role\":\"toolResult\",\"toolCallId\":7,\"toolName\":\"read\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"isError\":false,\"timestamp\":1}", "messages[3].toolCallId", "expected a string, got a number"),
        ("{\"role\":\"toolResult\",\"toolCallId\":\"c\",\"toolName\":\"read\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"isError\":\"no\",\"timestamp\":1}", "messages[3].isError", "expected a boolean, got a string"),
        ("{\"role\":\"bashExecution\",\"command\":\"ls\",\"exitCode\":0,\"cancelled\":false,\"truncated\":false,\"timestamp\":1}", "messages[3]", "missing field `output`"),
        ("{\"role\":\"compactionSummary\",\"summary\":5,\"tokensBefore\":1,\"timestamp\":1}", "messages[3].summary", "expected a string, got a number"),
        ("{\"role\":\"custom\",\"customType\":\"x\",\"content\":\"c\",\"display\":\"yes\",\"timestamp\":1}", "messages[3].display", "expected a boolean, got a string"),
    ];
    let mut failures = Vec::new();
    for (text, path, message) in table {
        let got = refusal(text);
        if (got.0.as_str(), got.1.as_str()) != (*path, *message) {
            failures.push(format!(
                "{text}\n  want {path} | {message}\n  got  {} | {}",
                got.0, got.1
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
