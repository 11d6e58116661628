//! serde's words for a bad value rewritten in JavaScript's (issue 36 §3): the decoder
//! tests compare the package's messages with the derived decoders' (serde_path_to_error),
//! whose text is serde's ("invalid type: boolean `true`, expected f64"). Written here by
//! reading serde's text, independently of the package's own table (`decode::js_expected`),
//! so the comparison also checks the wording.

/// A message of serde's, in the package's words.
pub fn js_words(serde: &str) -> String {
    if serde == "data did not match any variant of untagged enum Content" {
        return "not a string or an array of blocks".to_string();
    }
    // a nested message keeps its prefix (`text: invalid type: ...`)
    for head in ["invalid type: ", "invalid value: "] {
        if let Some(at) = serde.find(head) {
            let (prefix, rest) = serde.split_at(at);
            let rest = &rest[head.len()..];
            let Some(cut) = rest.rfind(", expected ") else {
                continue;
            };
            let (got, expected) = (&rest[..cut], &rest[cut + ", expected ".len()..]);
            return format!(
                "{prefix}expected {}, got {}",
                expected_words(expected),
                got_words(got)
            );
        }
    }
    if let Some(rest) = serde.strip_prefix("invalid length ") {
        if let Some((n, expected)) = rest.split_once(", expected ") {
            let s = if n == "1" { "" } else { "s" };
            return format!("expected {}, got {n} item{s}", expected_words(expected));
        }
    }
    if let Some(rest) = serde.strip_prefix("unknown variant `") {
        if let Some((name, expected)) = rest.split_once("`, expected ") {
            let names: Vec<String> = expected
                .trim_start_matches("one of ")
                .split([',', ' '])
                .filter(|w| w.starts_with('`'))
                .map(|w| format!("\"{}\"", w.trim_matches('`')))
                .collect();
            return format!("expected one of {}, got \"{name}\"", names.join(", "));
        }
    }
    serde.to_string()
}

fn expected_words(e: &str) -> String {
    match e {
        "f64" => "a number".into(),
        "u64" | "usize" => "an integer >= 0".into(),
        "u32" => "an integer from 0 to 4294967295".into(),
        "a map" => "an object".into(),
        "a sequence" => "an array".into(),
        "string or map" => "a string or an object".into(),
        "map with a single key" => "an object with a single key".into(),
        "unit" => "null".into(),
        "a tuple of size 2" => "an array of 2 items".into(),
        "fewer elements in array" => "fewer items".into(),
        e if e.starts_with("struct ") => match e.split_once(" with ") {
            Some((_, n)) => format!("an array of {}", n.replace("element", "item")),
            None => "an object".into(),
        },
        e => e.into(),
    }
}

fn got_words(g: &str) -> String {
    let ticked = |prefix: &str| {
        g.strip_prefix(prefix)
            .map(|v| v.trim_matches('`').to_string())
    };
    if let Some(v) = ticked("boolean ")
        .or_else(|| ticked("integer "))
        .or_else(|| ticked("floating point "))
    {
        return v;
    }
    if let Some(s) = g.strip_prefix("string ") {
        return s.to_string();
    }
    match g {
        "sequence" => "an array".into(),
        "map" => "an object".into(),
        "unit value" => "null".into(),
        g => g.into(),
    }
}
