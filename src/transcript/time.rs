//! Row timestamps (host-contract §6: `createdAt` is an ISO string) as the milliseconds
//! JavaScript's `Date.parse` gives, for the `timestamp` of rebuilt messages, and back
//! (`Date.prototype.toISOString`) for the rows the package writes; and the
//! settlement times a Task row's delegation summary records (`details.startedAt`,
//! `details.completedAt`: an ISO string or epoch milliseconds), which order a rebuild
//! (ADR 0279 clause 12, host-contract §8).

use serde_json::Value;

/// `createdAt` (ISO 8601) as milliseconds since the epoch, like `Date.parse`; `None`
/// when absent or not understood. Reads ECMAScript's date-time string format, the one
/// `toISOString` writes: `YYYY-MM-DD` or `±YYYYYY-MM-DD` (not `-000000`), then optionally
/// `T` (or `t`, or a space) `HH:MM[:SS[.fff...]]` and a zone `Z`, `z`, `±HH:MM` or
/// `±HHMM`; hour 24 only as `24:00[:00[.000]]`; days 29–31 of a shorter month roll over
/// into the next as `Date.parse` does; beyond ±8.64e15 ms is `None`. A time with no zone
/// is read as UTC (`Date.parse` uses the host's local zone there: the library cannot know
/// it). Surrounding whitespace is ignored. Checked against this table of `Date`'s own
/// answers: tests/data/time-table.json.
pub fn iso_to_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let (y, mut i) = match b.first()? {
        &sign @ (b'+' | b'-') => {
            let y = num(1, 6)?;
            if sign == b'-' && y == 0 {
                return None;
            }
            (if sign == b'-' { -y } else { y }, 7)
        }
        _ => (num(0, 4)?, 4),
    };
    if b.get(i) != Some(&b'-') || b.get(i + 3) != Some(&b'-') {
        return None;
    }
    let (mo, d) = (num(i + 1, 2)?, num(i + 4, 2)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    i += 6;
    let (mut h, mut mi, mut sec, mut ms) = (0i64, 0i64, 0i64, 0i64);
    if matches!(b.get(i), Some(b'T' | b't' | b' ')) {
        h = num(i + 1, 2)?;
        if b.get(i + 3) != Some(&b':') {
            return None;
        }
        mi = num(i + 4, 2)?;
        i += 6;
        if b.get(i) == Some(&b':') {
            sec = num(i + 1, 2)?;
            i += 3;
            if b.get(i) == Some(&b'.') {
                let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if digits == 0 {
                    return None;
                }
                // milliseconds: the first three digits (more are dropped, as Date.parse does)
                for k in 0..3 {
                    let digit = if k < digits { b[i + 1 + k] - b'0' } else { 0 };
                    ms = ms * 10 + i64::from(digit);
                }
                i += 1 + digits;
            }
        }
        let midnight_end = h == 24 && mi == 0 && sec == 0 && ms == 0;
        if (h > 23 && !midnight_end) || mi > 59 || sec > 59 {
            return None;
        }
    }
    let offset_min = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1, 2)?;
            let (om, end) = match b.get(i + 3) {
                Some(b':') => (num(i + 4, 2)?, i + 6),
                _ => (num(i + 3, 2)?, i + 5),
            };
            if oh > 23 || om > 59 || end != b.len() {
                return None;
            }
            let minutes = oh * 60 + om;
            if sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    let total = secs * 1000 + ms;
    // Date's range (TimeClip)
    if total.abs() > 8_640_000_000_000_000 {
        return None;
    }
    Some(total as f64)
}

/// A recorded time as epoch milliseconds: an ISO-8601 string ([`iso_to_ms`]) or a finite
/// number of milliseconds; `None` for anything else.
pub fn time_value_to_ms(value: &Value) -> Option<f64> {
    match value {
        Value::String(text) => iso_to_ms(text),
        Value::Number(number) => number.as_f64().filter(|ms| ms.is_finite()),
        _ => None,
    }
}

/// Milliseconds since the epoch as `new Date(ms).toISOString()` writes them
/// (`YYYY-MM-DDTHH:MM:SS.sssZ`, fractions of a millisecond dropped); `None` for a value
/// `Date` rejects (not finite, or beyond ±8.64e15 ms).
pub fn ms_to_iso(ms: f64) -> Option<String> {
    if !ms.is_finite() || ms.abs() > 8.64e15 {
        return None;
    }
    let ms = ms.trunc() as i64;
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    // the civil date of a day number (Howard Hinnant's algorithm)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else {
        format!("{}{:06}", if y < 0 { '-' } else { '+' }, y.abs())
    };
    Some(format!(
        "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_times_are_iso_strings_or_epoch_milliseconds() {
        use serde_json::json;
        assert_eq!(
            time_value_to_ms(&json!("2024-03-01T12:30:15.250Z")),
            Some(1709296215250.0)
        );
        assert_eq!(
            time_value_to_ms(&json!(1709296215250u64)),
            Some(1709296215250.0)
        );
        assert_eq!(time_value_to_ms(&json!(12.5)), Some(12.5));
        for bad in [json!("soon"), json!(null), json!(true), json!({})] {
            assert_eq!(time_value_to_ms(&bad), None, "{bad}");
        }
    }

    #[test]
    fn iso_strings_are_written_like_to_iso_string_and_read_back() {
        assert_eq!(ms_to_iso(0.0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert_eq!(
            ms_to_iso(1709296215250.7).as_deref(),
            Some("2024-03-01T12:30:15.250Z")
        );
        assert_eq!(ms_to_iso(-1.0).as_deref(), Some("1969-12-31T23:59:59.999Z"));
        assert_eq!(ms_to_iso(f64::NAN), None);
        for ms in [
            0.0,
            951782400000.0,
            1709296215250.0,
            4102444800123.0,
            -86400000.0,
        ] {
            assert_eq!(iso_to_ms(&ms_to_iso(ms).unwrap()), Some(ms));
        }
    }

    /// `Date.parse` and `toISOString` themselves, as tests/js/time-table.test.mjs recorded
    /// them (and checks them against the live `Date` in the test command).
    #[test]
    fn dates_read_and_written_as_javascripts_date_does() {
        let table: Value = serde_json::from_str(include_str!("../../tests/data/time-table.json"))
            .expect("tests/data/time-table.json");
        let rows = |key: &str| table[key].as_array().cloned().unwrap_or_default();
        let (parse, format) = (rows("parse"), rows("format"));
        assert!(parse.len() > 500 && format.len() > 300);
        for row in parse {
            let input = row[0].as_str().unwrap();
            assert_eq!(iso_to_ms(input), row[1].as_f64(), "Date.parse({input:?})");
        }
        for row in format {
            let ms = match &row[0] {
                Value::String(s) if s == "-0" => -0.0,
                Value::String(s) => s.parse::<f64>().unwrap(),
                n => n.as_f64().unwrap(),
            };
            assert_eq!(
                ms_to_iso(ms).as_deref(),
                row[1].as_str(),
                "new Date({ms}).toISOString()"
            );
        }
    }

    #[test]
    fn iso_dates_parse_like_date_parse() {
        assert_eq!(iso_to_ms("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(iso_to_ms("2024-03-01T12:30:15.250Z"), Some(1709296215250.0));
        assert_eq!(
            iso_to_ms("2024-03-01T14:30:15.250+02:00"),
            Some(1709296215250.0)
        );
        assert_eq!(iso_to_ms("2024-03-01"), Some(1709251200000.0));
        assert_eq!(iso_to_ms("yesterday"), None);
        assert_eq!(iso_to_ms("2024-13-01T00:00Z"), None);
        assert_eq!(iso_to_ms("2024-1"), None);
    }
}
