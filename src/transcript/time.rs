//! Row timestamps (host-contract §6: `createdAt` is an ISO string) as the milliseconds
//! JavaScript's `Date.parse` gives, for the `timestamp` of rebuilt messages, and back
//! (`Date.prototype.toISOString`) for the rows the package writes; and the
//! settlement times a Task row's delegation summary records (`details.startedAt`,
//! `details.completedAt`: an ISO string or epoch milliseconds), which order a rebuild
//! (ADR 0279 clause 12, host-contract §8).

use serde_json::Value;

/// `createdAt` (ISO 8601) as milliseconds since the epoch, like `Date.parse`; `None`
/// when absent or not understood. Accepts `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH:MM]`
/// (no zone: UTC).
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
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut ms) = (0i64, 0i64, 0i64, 0f64);
    let mut i = 10;
    if i < b.len() && (b[i] == b'T' || b[i] == b' ') {
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
                let start = i + 1;
                let mut end = start;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                if end == start {
                    return None;
                }
                let frac: f64 = format!("0.{}", &s[start..end]).parse().ok()?;
                ms = (frac * 1000.0).floor();
                i = end;
            }
        }
        if h > 24 || mi > 59 || sec > 60 {
            return None;
        }
    }
    let mut offset_min = 0i64;
    match b.get(i) {
        None => {}
        Some(b'Z') | Some(b'z') if i + 1 == b.len() => {}
        Some(&sign @ (b'+' | b'-')) => {
            let oh = num(i + 1, 2)?;
            let om = match b.get(i + 3) {
                Some(b':') => num(i + 4, 2)?,
                _ => num(i + 3, 2)?,
            };
            offset_min = (oh * 60 + om) * if sign == b'+' { 1 } else { -1 };
        }
        _ => return None,
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    Some(secs as f64 * 1000.0 + ms)
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
