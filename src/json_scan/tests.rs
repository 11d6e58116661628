use super::*;

#[test]
fn a_walk_stops_at_the_caller_s_value_or_at_text_that_is_not_json() {
    let walk = |text: &str| {
        let mut seen = Vec::new();
        let r = Reader::new(text).array(|i, r| {
            let v = r.skip()?;
            if v.kind != Kind::Number {
                return Err(Halt::Stopped(i));
            }
            seen.push(i);
            Ok(())
        });
        (r, seen)
    };
    assert_eq!(walk("[1, 2, 3]"), (Ok(()), vec![0, 1, 2]));
    // the caller's value, at the first bad element: nothing after it is read
    assert_eq!(walk("[1, \"x\", 3, {"), (Err(Halt::Stopped(1)), vec![0]));
    let (r, seen) = walk("[1, 2 3]");
    let not_json = r.map_err(|h| h.into_inner(|e| e.offset + 100));
    assert_eq!((not_json, seen), (Err(106), vec![0, 1]));
}

/// Blank as JavaScript's `trim` says (js_whitespace): U+FEFF is white space, U+0085
/// is not, written raw or as an escape.
#[test]
fn blank_is_javascript_blank() {
    let blank = |json: &str| Reader::new(json).string().map(|s| s.is_blank());
    for (json, want) in [
        (r#""""#, true),
        (r#"" \t\n\r\f""#, true),
        ("\" \u{a0}\u{2028}\u{3000}\u{feff}\"", true),
        (r#""\ufeff\u2029\u000b""#, true),
        ("\"\u{85}\"", false),
        (r#""\u0085""#, false),
        (r#"" \u200b""#, false),
        (r#""\b""#, false),
        (r#"" x ""#, false),
    ] {
        assert_eq!(blank(json).ok(), Some(want), "{json}");
    }
}

fn keys(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    Reader::new(text)
        .object(|k, r| {
            out.push(k.decode());
            r.skip().map(|_| ())
        })
        .unwrap();
    out
}

#[test]
fn walks_objects_and_arrays_at_any_depth() {
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let text = format!(r#"{{"a":{deep},"b":"x\"y","c":[1,{{"d":null}}],"e":true}}"#);
    let v = parse(&text).unwrap();
    assert_eq!(v.kind, Kind::Object);
    assert_eq!(keys(&text), ["a", "b", "c", "e"]);
    assert_eq!(
        v.get("b").unwrap().unwrap().as_str().unwrap().decode(),
        "x\"y"
    );
    let c = v.get("c").unwrap().unwrap();
    let mut n = 0;
    c.reader()
        .array(|_, r| {
            n += 1;
            r.skip().map(|_| ())
        })
        .unwrap();
    assert_eq!(n, 2);
    assert_eq!(v.get("e").unwrap().unwrap().as_bool(), Some(true));
    assert!(parse(&deep[..deep.len() - 1]).is_err());
}

#[test]
fn malformed_text_is_an_error_not_a_panic() {
    for t in [
        "",
        "{",
        "{\"a\"",
        "{\"a\":",
        "[1,",
        "\"abc",
        "{\"a\":1}x",
        "nul",
        "{]",
        "[}",
        "\"\\",
        "{\"a\" 1}",
    ] {
        let walked = Reader::new(t).object(|_, r| r.skip().map(|_| ()));
        assert!(parse(t).is_err() || walked.is_err(), "{t}");
    }
}

#[test]
fn strings_measure_and_decode_like_javascript() {
    let cases: &[(&str, &str, usize)] = &[
        ("abc", "abc", 3),
        (r#"a\nb\"c"#, "a\nb\"c", 5),
        ("é😀", "é😀", 3),
        (r"\u00e9\ud83d\ude00", "é😀", 3),
        (r"x\ud800y", "x\u{FFFD}y", 3),
        (r"\\\/", "\\/", 2),
    ];
    let read = |raw: &str| {
        let quoted = format!("\"{raw}\"");
        let s = Reader::new(&quoted).string().unwrap();
        let span = parse(&quoted).unwrap();
        assert_eq!(span.as_str().unwrap().utf16_len(), s.utf16_len());
        (s.utf16_len(), s.decode(), s.decode_prefix(3))
    };
    for (raw, decoded, units) in cases {
        let (u, d, _) = read(raw);
        assert_eq!(u, *units, "{raw}");
        assert_eq!(d, *decoded, "{raw}");
    }
    assert_eq!(read(r"ab\ncd").2, "ab\n");
    assert_eq!(read("a😀b").2, "a😀");
}
