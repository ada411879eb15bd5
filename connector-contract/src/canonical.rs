//! Canonical JSON and the two hashes built on it: `arguments_hash` and `catalog_hash`.
//!
//! Both hashes are `sha256:` + lowercase hex over a canonical text: object keys sorted recursively
//! by UTF-16 code units (the Connector's C# ordinal order), arrays in order, compact, no HTML
//! escaping, and Newtonsoft's string escaping.
//!
//! Why a parser of our own instead of `serde_json::Value`: the two hashes treat *numbers*
//! differently and `Value` cannot represent either faithfully.
//! - `catalog_hash` keeps every number exactly as written in the received text (the Go client
//!   decodes numbers as literals), so `1.10` must stay `1.10`.
//! - `arguments_hash` is computed by the Connector after Newtonsoft has parsed the body: numbers
//!   with `.`/`e`/`E` become doubles and are re-written in .NET round-trip form, integers beyond
//!   64 bits stay exact, and date-looking strings become dates and are re-written in ISO form.
//!   See README: Canonical JSON, and Dates in arguments.
//!
//! [`Json`] keeps number literals as text, so one tree serves both modes.

use sha2::{Digest, Sha256};
use std::cmp::Ordering;
use std::fmt::Write as _;

/// A JSON tree that keeps number literals verbatim and object members in input order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number exactly as it appeared in the text.
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members in input order; a repeated key keeps its last value (Newtonsoft's and Go's rule).
    Object(Vec<(String, Json)>),
}

/// How numbers (and date-looking strings) are written in canonical text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberMode {
    /// Numbers exactly as they appeared; strings untouched. Used for `catalog_hash`.
    Literal,
    /// What the Connector writes after Newtonsoft parsed the request. Used for `arguments_hash`.
    Newtonsoft,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON at byte {offset}: {reason}")]
pub struct ParseError {
    pub offset: usize,
    pub reason: &'static str,
}

/// Deepest nesting we accept; deeper input is rejected instead of exhausting the stack.
pub const MAX_DEPTH: usize = 128;

/// Parses one JSON document (RFC 8259; surrounding whitespace allowed, a UTF-8 BOM is not).
pub fn parse(text: &str) -> Result<Json, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing characters after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, reason: &'static str) -> ParseError {
        ParseError {
            offset: self.i,
            reason,
        }
    }
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }
    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.s[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }
    fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting deeper than 128 levels"));
        }
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end of input")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') if self.eat(b"true") => Ok(Json::Bool(true)),
            Some(b'f') if self.eat(b"false") => Ok(Json::Bool(false)),
            Some(b'n') if self.eat(b"null") => Ok(Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("unexpected character")),
        }
    }
    fn object(&mut self, depth: usize) -> Result<Json, ParseError> {
        self.i += 1;
        let mut members: Vec<(String, Json)> = Vec::new();
        self.ws();
        if self.eat(b"}") {
            return Ok(Json::Object(members));
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a string key"));
            }
            let key = self.string()?;
            self.ws();
            if !self.eat(b":") {
                return Err(self.err("expected ':' after an object key"));
            }
            self.ws();
            let v = self.value(depth + 1)?;
            if let Some(slot) = members.iter_mut().find(|(k, _)| *k == key) {
                slot.1 = v;
            } else {
                members.push((key, v));
            }
            self.ws();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"}") {
                return Ok(Json::Object(members));
            }
            return Err(self.err("expected ',' or '}' in an object"));
        }
    }
    fn array(&mut self, depth: usize) -> Result<Json, ParseError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.eat(b"]") {
            return Ok(Json::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"]") {
                return Ok(Json::Array(items));
            }
            return Err(self.err("expected ',' or ']' in an array"));
        }
    }
    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.i;
        self.eat(b"-");
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err("invalid number")),
        }
        if self.eat(b".") {
            if !matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.err("invalid number: digit expected after '.'"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.s.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.s.get(self.i) {
                self.i += 1;
            }
            if !matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.err("invalid number: digit expected in exponent"));
            }
            self.digits();
        }
        // The slice is ASCII by construction.
        Ok(Json::Number(
            String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
        ))
    }
    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.s.get(self.i) {
            self.i += 1;
        }
    }
    fn hex4(&mut self) -> Result<u16, ParseError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("truncated \\u escape"))?;
        let h = std::str::from_utf8(h).map_err(|_| self.err("invalid \\u escape"))?;
        let v = u16::from_str_radix(h, 16).map_err(|_| self.err("invalid \\u escape"))?;
        self.i += 4;
        Ok(v)
    }
    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(&b) = self.s.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // Input came from &str and we stopped on an ASCII byte, so this is valid UTF-8.
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).expect("utf-8 input"));
            match self.s.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = *self
                        .s
                        .get(self.i)
                        .ok_or_else(|| self.err("truncated escape"))?;
                    self.i += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let ch = if (0xD800..0xDC00).contains(&hi)
                                && self.s[self.i..].starts_with(b"\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    char::from_u32(
                                        0x10000
                                            + ((hi as u32 - 0xD800) << 10)
                                            + (lo as u32 - 0xDC00),
                                    )
                                } else {
                                    self.i = save;
                                    None
                                }
                            } else {
                                char::from_u32(hi as u32)
                            };
                            // A lone surrogate cannot live in a Rust string; U+FFFD marks it.
                            out.push(ch.unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.err("invalid escape")),
                    }
                }
                Some(_) => return Err(self.err("control character in string")),
            }
        }
    }
}

/// Orders keys the way the Connector does: ordinal over UTF-16 code units.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Writes `v` canonically: keys sorted by [`cmp_utf16`], compact, Newtonsoft string escaping.
pub fn write_canonical(v: &Json, mode: NumberMode) -> String {
    write_canonical_in(v, mode, EditorZone::UTC)
}

/// [`write_canonical`] as an Editor in `zone` writes it (dates with an offset move into `zone`).
pub fn write_canonical_in(v: &Json, mode: NumberMode, zone: EditorZone) -> String {
    let mut out = String::new();
    write_value(v, mode, zone, &mut out);
    out
}

fn write_value(v: &Json, mode: NumberMode, zone: EditorZone, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => match mode {
            NumberMode::Literal => out.push_str(n),
            NumberMode::Newtonsoft => out.push_str(&newtonsoft_number(n)),
        },
        Json::String(s) => match mode {
            NumberMode::Newtonsoft => match newtonsoft_date_in(s, zone) {
                Some(d) => write_string(&d, out),
                None => write_string(s, out),
            },
            NumberMode::Literal => write_string(s, out),
        },
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, mode, zone, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            let mut sorted: Vec<&(String, Json)> = members.iter().collect();
            sorted.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
            out.push('{');
            for (i, (k, val)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_value(val, mode, zone, out);
            }
            out.push('}');
        }
    }
}

/// Newtonsoft's default escaping: `"`, `\`, control characters (short forms for \b \f \n \r \t,
/// lowercase `\u00xx` otherwise), and U+0085, U+2028, U+2029. Everything else is written raw.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{85}' || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The text Newtonsoft writes for a number literal it parsed.
fn newtonsoft_number(lit: &str) -> String {
    let is_float = lit.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
    if !is_float {
        // Integers: 64-bit when they fit (so `-0` becomes `0`), else BigInteger, written as is.
        return match lit.parse::<i64>() {
            Ok(i) => i.to_string(),
            Err(_) => lit.to_string(),
        };
    }
    match lit.parse::<f64>() {
        Ok(f) if f.is_finite() => dotnet_roundtrip(f),
        // Out of double range: Newtonsoft fails to parse; the Connector would reject the body.
        _ => lit.to_string(),
    }
}

/// .NET `double.ToString("R")` followed by Newtonsoft's `EnsureDecimalPlace`.
///
/// Shortest round-trip digits; scientific form `d.dddE+XX` (exponent at least two digits) when the
/// decimal exponent is below -4 or at least 15; `.0` appended when the text has neither `.` nor `E`.
/// Negative zero loses its sign, as observed on Mono.
fn dotnet_roundtrip(f: f64) -> String {
    if f == 0.0 {
        return "0.0".to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{:e}", f);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if !(-4..15).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "E{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        return out;
    }
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// The zone of the Editor that parses a request: Newtonsoft moves every date with a numeric
/// offset into it (`ToLocalTime`), so the `arguments_hash` of such a date depends on it. A fixed
/// offset from UTC in minutes (a real zone with daylight saving time has a different offset on
/// different dates, which no client can know: see [`zone_dependent`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EditorZone {
    pub offset_minutes: i32,
}

impl EditorZone {
    pub const UTC: EditorZone = EditorZone { offset_minutes: 0 };

    fn suffix(self) -> String {
        let m = self.offset_minutes;
        let sign = if m < 0 { '-' } else { '+' };
        let a = m.unsigned_abs();
        format!("{sign}{:02}:{:02}", a / 60, a % 60)
    }
}

/// How a date-looking string's zone was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DateZone {
    /// No designator: `DateTimeKind.Unspecified`, written back as it was.
    Unspecified,
    /// `Z` or `z`: UTC, written back with `Z`.
    Utc,
    /// A numeric offset (`±HH:MM`, `±HHMM`, `±HH`, or `/Date(ms±hhmm)/`): converted to the
    /// Editor's local time and written with the Editor's offset.
    Offset,
}

/// A string Newtonsoft's reader turns into a date: seconds since 1970 (of the written civil
/// time for `Unspecified`, of the instant otherwise), the fraction digits kept, the zone kind.
struct ParsedDate {
    secs: i64,
    frac: String,
    zone: DateZone,
}

fn parse_date(s: &str) -> Option<ParsedDate> {
    if let Some(inner) = s.strip_prefix("/Date(").and_then(|r| r.strip_suffix(")/")) {
        return ms_date(inner);
    }
    let b = s.as_bytes();
    if !(19..=40).contains(&b.len()) || !b[0].is_ascii_digit() || b[10] != b'T' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    // Hour 24 is accepted with zero minutes and seconds (the next day's midnight); year 0 is not.
    let hour_ok = h <= 23 || (h == 24 && mi == 0 && sec == 0);
    if y == 0
        || !(1..=12).contains(&mo)
        || d == 0
        || d > days_in_month(y, mo)
        || !hour_ok
        || mi > 59
        || sec > 59
    {
        return None;
    }
    let mut rest = &s[19..];
    let mut frac = String::new();
    if let Some(r) = rest.strip_prefix('.') {
        let n = r.bytes().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 7 {
            return None;
        }
        frac = r[..n].trim_end_matches('0').to_string();
        if h == 24 && !frac.is_empty() {
            return None;
        }
        rest = &r[n..];
    }
    let civil = days_from_civil(y as i64, mo, d) * 86400
        + (h as i64) * 3600
        + (mi as i64) * 60
        + sec as i64;
    let (zone, offset_secs) = match rest {
        "" => (DateZone::Unspecified, 0),
        "Z" | "z" => (DateZone::Utc, 0),
        off => (DateZone::Offset, offset_seconds(off)?),
    };
    Some(ParsedDate {
        secs: civil - offset_secs,
        frac,
        zone,
    })
}

/// `±HH:MM`, `±HHMM` or `±HH` as seconds east of UTC.
fn offset_seconds(off: &str) -> Option<i64> {
    let sign = match off.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = &off[1..];
    let two = |t: &str| -> Option<i64> {
        (t.len() == 2 && t.bytes().all(|c| c.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let (h, m) = match body.len() {
        2 => (two(body)?, 0),
        4 => (two(&body[..2])?, two(&body[2..])?),
        5 if &body[2..3] == ":" => (two(&body[..2])?, two(&body[3..])?),
        _ => return None,
    };
    if m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

/// If Newtonsoft's default date handling would turn `s` into a date, the ISO text it writes back
/// on an Editor in `zone`.
///
/// Recognized: ISO `yyyy-MM-ddTHH:mm:ss[.fffffff][Z|z|±HH:mm|±HHmm|±HH]` (19–40 chars, digit
/// first, `T` at index 10, year ≥ 1, hour 24 only as `24:00:00`) and `/Date(ms[±hhmm])/`.
/// Fractions lose trailing zeros; `T24:00:00` becomes the next day's `00:00:00`; `z` is written
/// `Z`; a numeric offset is moved into the Editor's zone and written with the Editor's offset.
pub fn newtonsoft_date_in(s: &str, zone: EditorZone) -> Option<String> {
    let p = parse_date(s)?;
    let frac = if p.frac.is_empty() {
        String::new()
    } else {
        format!(".{}", p.frac)
    };
    Some(match p.zone {
        DateZone::Unspecified => format!("{}{frac}", civil_text(p.secs)),
        DateZone::Utc => format!("{}{frac}Z", civil_text(p.secs)),
        DateZone::Offset => format!(
            "{}{frac}{}",
            civil_text(p.secs + i64::from(zone.offset_minutes) * 60),
            zone.suffix()
        ),
    })
}

/// Whether the Connector's reader turns `s` into a `Date` token (and so refuses it for a
/// `string` parameter and re-writes it everywhere else).
pub fn is_newtonsoft_date(s: &str) -> bool {
    parse_date(s).is_some()
}

#[cfg(test)]
fn newtonsoft_date(s: &str) -> Option<String> {
    newtonsoft_date_in(s, EditorZone::UTC)
}

fn ms_date(inner: &str) -> Option<ParsedDate> {
    // `/Date(ms)/` is UTC; `/Date(ms+hhmm)/` is local, written with the Editor's offset.
    let split = inner
        .char_indices()
        .skip(1)
        .find(|(_, c)| *c == '+' || *c == '-')
        .map(|(i, _)| i);
    let (ms_txt, zone) = match split {
        Some(i) => {
            offset_seconds(&inner[i..])?;
            (&inner[..i], DateZone::Offset)
        }
        None => (inner, DateZone::Utc),
    };
    let ms: i64 = ms_txt.parse().ok()?;
    let milli = ms.rem_euclid(1000);
    Some(ParsedDate {
        secs: ms.div_euclid(1000),
        frac: if milli == 0 {
            String::new()
        } else {
            format!("{milli:03}").trim_end_matches('0').to_string()
        },
        zone,
    })
}

/// Whether `params` holds a string whose `arguments_hash` depends on the Editor's time zone (a
/// date with a numeric offset). The Editor's zone is not published, so a client cannot compute
/// the Connector's hash for such params: it sends them without `arguments_hash` (which is
/// optional) and binds approvals to the hash the preflight returned (connector-contract/README.md,
/// "Dates in arguments").
pub fn zone_dependent(params: &Json) -> bool {
    match params {
        Json::String(s) => parse_date(s).is_some_and(|p| p.zone == DateZone::Offset),
        Json::Array(items) => items.iter().any(zone_dependent),
        Json::Object(members) => members.iter().any(|(_, v)| zone_dependent(v)),
        _ => false,
    }
}

/// [`zone_dependent`] for a `serde_json` value.
pub fn zone_dependent_value(params: &serde_json::Value) -> bool {
    match params {
        serde_json::Value::String(s) => parse_date(s).is_some_and(|p| p.zone == DateZone::Offset),
        serde_json::Value::Array(items) => items.iter().any(zone_dependent_value),
        serde_json::Value::Object(m) => m.values().any(zone_dependent_value),
        _ => false,
    }
}

/// The `arguments_hash` a client should send for `params`: `None` when the Connector's hash
/// depends on the Editor's zone ([`zone_dependent`]), so that no Editor outside UTC refuses the
/// call with `ARGUMENTS_HASH_MISMATCH`.
pub fn arguments_hash_for_request(params: &serde_json::Value) -> Option<String> {
    (!zone_dependent_value(params)).then(|| arguments_hash_of_value(params))
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn civil_text(secs: i64) -> String {
    let days = secs.div_euclid(86400);
    let tod = secs.rem_euclid(86400);
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    )
}

/// HMAC-SHA256 of the concatenation of `parts` under `key`, as lowercase hex. The project's one
/// keyed hash besides the approval tokens (the result cache seals its headers with it).
pub fn hmac_sha256_hex(key: &[u8], parts: &[&[u8]]) -> String {
    use hmac::Mac;
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key).expect("HMAC accepts any key length");
    for p in parts {
        mac.update(p);
    }
    let mut out = String::with_capacity(64);
    for b in mac.finalize().into_bytes() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Whether `tag` is the HMAC-SHA256 of `parts` under `key`, compared in constant time.
pub fn hmac_sha256_verify(key: &[u8], parts: &[&[u8]], tag: &[u8]) -> bool {
    use hmac::Mac;
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key).expect("HMAC accepts any key length");
    for p in parts {
        mac.update(p);
    }
    mac.verify_slice(tag).is_ok()
}

/// `sha256:` + lowercase hex digest. The one hashing routine of the project.
pub fn sha256_prefixed(bytes: &[u8]) -> String {
    prefixed_hex(&Sha256::digest(bytes))
}

/// `sha256:` + lowercase hex of a finished digest.
fn prefixed_hex(digest: &[u8]) -> String {
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in digest {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The Connector's `arguments_hash` of a raw `params` text. Absent or non-object params hash as `{}`.
pub fn arguments_hash_text(params: &str) -> Result<String, ParseError> {
    let v = parse(params)?;
    Ok(arguments_hash_json(&v))
}

/// `arguments_hash` of an already parsed tree (non-objects hash as `{}`, as the Connector does).
pub fn arguments_hash_json(params: &Json) -> String {
    arguments_hash_json_in(params, EditorZone::UTC)
}

/// [`arguments_hash_json`] as computed by an Editor in `zone`.
pub fn arguments_hash_json_in(params: &Json, zone: EditorZone) -> String {
    let text = match params {
        Json::Object(_) => write_canonical_in(params, NumberMode::Newtonsoft, zone),
        _ => "{}".to_string(),
    };
    sha256_prefixed(text.as_bytes())
}

/// `arguments_hash` of a `serde_json` value, as the Connector computes it from the bytes
/// `serde_json` writes for that value (which is what we send on the wire).
pub fn arguments_hash_of_value(params: &serde_json::Value) -> String {
    let text = serde_json::to_string(params).expect("a Value always serializes");
    arguments_hash_text(&text).expect("serde_json writes valid JSON")
}

/// The canonical text Newtonsoft-mode hashing uses; exposed so callers can send exactly that.
pub fn canonical_arguments_text(params: &serde_json::Value) -> String {
    let text = serde_json::to_string(params).expect("a Value always serializes");
    let v = parse(&text).expect("serde_json writes valid JSON");
    write_canonical(&v, NumberMode::Newtonsoft)
}

/// `catalog_hash` of a received catalog envelope text: the hash of `{schema_version, tools}` only,
/// numbers exactly as written.
pub fn catalog_hash_text(envelope: &str) -> Result<String, ParseError> {
    let v = parse(envelope)?;
    Ok(catalog_hash_json(&v))
}

/// `catalog_hash` of a parsed envelope (members other than `schema_version` and `tools` ignored).
pub fn catalog_hash_json(envelope: &Json) -> String {
    let mut hashed: Vec<&(String, Json)> = match envelope {
        Json::Object(m) => m
            .iter()
            .filter(|(k, _)| k == "schema_version" || k == "tools")
            .collect(),
        _ => Vec::new(),
    };
    // The members are written in place, not cloned into a new object: `tools` is most of a
    // catalog.
    hashed.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    let mut text = String::new();
    text.push('{');
    for (i, (k, v)) in hashed.into_iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        write_string(k, &mut text);
        text.push(':');
        write_value(v, NumberMode::Literal, EditorZone::UTC, &mut text);
    }
    text.push('}');
    sha256_prefixed(text.as_bytes())
}

/// `catalog_hash` of a catalog that is already canonical text (as [`write_canonical`] writes
/// it in [`NumberMode::Literal`], e.g. a stored copy): the `schema_version` and `tools` members
/// are hashed as they stand in `text`, with no tree built and nothing re-written. For canonical
/// text the result equals [`catalog_hash_json`]'s. Text that is not canonical (re-formatted,
/// keys out of order) hashes differently from the catalog's own hash, so a check against that
/// hash refuses it; it cannot make a different catalog pass. `Err` when `text` is not a JSON
/// object.
pub fn catalog_hash_of_canonical(text: &str) -> Result<String, serde_json::Error> {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use serde_json::value::RawValue;
    /// The hashed members of the top-level object, each as its exact text.
    struct Hashed<'a>(Vec<(String, &'a RawValue)>);
    impl<'de> Deserialize<'de> for Hashed<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Members;
            impl<'de> Visitor<'de> for Members {
                type Value = Hashed<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a catalog object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Hashed<'de>, A::Error> {
                    let mut out = Vec::new();
                    // Bounded by the input's length.
                    while let Some(key) = map.next_key::<String>()? {
                        let value: &'de RawValue = map.next_value()?;
                        if key == "schema_version" || key == "tools" {
                            out.push((key, value));
                        }
                    }
                    Ok(Hashed(out))
                }
            }
            d.deserialize_map(Members)
        }
    }
    let Hashed(mut members) = serde_json::from_str::<Hashed>(text)?;
    members.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    let mut hasher = Sha256::new();
    hasher.update(b"{");
    let mut key = String::new();
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            hasher.update(b",");
        }
        key.clear();
        write_string(k, &mut key);
        hasher.update(key.as_bytes());
        hasher.update(b":");
        hasher.update(v.get().as_bytes());
    }
    hasher.update(b"}");
    Ok(prefixed_hex(&hasher.finalize()))
}

/// `catalog_hash` of an envelope built as a `serde_json` value (the simulator's side).
pub fn catalog_hash_of_value(envelope: &serde_json::Value) -> String {
    let text = serde_json::to_string(envelope).expect("a Value always serializes");
    catalog_hash_text(&text).expect("serde_json writes valid JSON")
}

/// Compact canonical text (sorted keys, literal numbers) of a `serde_json` value. Used wherever a
/// stable byte form is needed (cache keys, deterministic output).
pub fn canonical_text_of_value(v: &serde_json::Value) -> String {
    let text = serde_json::to_string(v).expect("a Value always serializes");
    write_canonical(
        &parse(&text).expect("serde_json writes valid JSON"),
        NumberMode::Literal,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nt(lit: &str) -> String {
        newtonsoft_number(lit)
    }

    #[test]
    fn a_canonical_catalog_hashes_in_place_as_its_tree_does() {
        let text = r#"{"tools":[{"n":1.10,"z":"\u2028é","a":[true,null]}],"domain_epoch":"e","schema_version":"hera.tool-catalog/1","x":{"tools":1}}"#;
        let tree = parse(text).unwrap();
        let stored = write_canonical(&tree, NumberMode::Literal);
        let expected = catalog_hash_json(&tree);
        assert_eq!(catalog_hash_of_canonical(&stored).unwrap(), expected);
        assert_eq!(catalog_hash_text(text).unwrap(), expected);
        // A reformatted or reordered copy is not the canonical text: its hash differs.
        assert_ne!(catalog_hash_of_canonical(text).unwrap(), expected);
        let spaced = stored.replace(",\"", ", \"");
        assert_ne!(catalog_hash_of_canonical(&spaced).unwrap(), expected);
        // No hashed member at all hashes as `{}`, like the tree; a non-object is refused.
        assert_eq!(
            catalog_hash_of_canonical(r#"{"a":1}"#).unwrap(),
            sha256_prefixed(b"{}")
        );
        assert!(catalog_hash_of_canonical("[1]").is_err());
        assert!(catalog_hash_of_canonical(r#"{"tools":"#).is_err());
    }

    #[test]
    fn dotnet_float_forms() {
        assert_eq!(nt("1.10"), "1.1");
        assert_eq!(nt("1e3"), "1000.0");
        assert_eq!(nt("1e21"), "1E+21");
        assert_eq!(nt("1e-7"), "1E-07");
        assert_eq!(nt("0.00001"), "1E-05");
        assert_eq!(nt("0.0001"), "0.0001");
        assert_eq!(nt("-0"), "0");
        assert_eq!(nt("-0.0"), "0.0");
        assert_eq!(nt("1e15"), "1E+15");
        assert_eq!(nt("1e14"), "100000000000000.0");
        assert_eq!(nt("123.456"), "123.456");
        assert_eq!(nt("-2.5e-3"), "-0.0025");
        assert_eq!(nt("12345678901234567890"), "12345678901234567890");
        assert_eq!(nt("007"), "7");
    }

    #[test]
    fn dates() {
        assert_eq!(
            newtonsoft_date("2026-01-01T10:00:00.000Z").as_deref(),
            Some("2026-01-01T10:00:00Z")
        );
        assert_eq!(
            newtonsoft_date("2026-01-01T10:00:00.120Z").as_deref(),
            Some("2026-01-01T10:00:00.12Z")
        );
        assert_eq!(
            newtonsoft_date("2026-01-01T10:00:00+02:00").as_deref(),
            Some("2026-01-01T08:00:00+00:00")
        );
        assert_eq!(
            newtonsoft_date("2026-01-01T10:00:00").as_deref(),
            Some("2026-01-01T10:00:00")
        );
        assert_eq!(
            newtonsoft_date("/Date(0)/").as_deref(),
            Some("1970-01-01T00:00:00Z")
        );
        assert_eq!(newtonsoft_date("Assets/Scenes/Level2.unity"), None);
        assert_eq!(newtonsoft_date("2026-13-01T10:00:00Z"), None);
        // The forms beyond `Z`/`±HH:MM` that Newtonsoft also reads.
        assert_eq!(
            newtonsoft_date("2026-01-01T10:00:00z").as_deref(),
            Some("2026-01-01T10:00:00Z")
        );
        assert_eq!(
            newtonsoft_date("2026-01-01T10:00:00+02").as_deref(),
            Some("2026-01-01T08:00:00+00:00")
        );
        assert_eq!(
            newtonsoft_date("2026-01-01T10:00:00-0130").as_deref(),
            Some("2026-01-01T11:30:00+00:00")
        );
        assert_eq!(
            newtonsoft_date("2026-12-31T24:00:00").as_deref(),
            Some("2027-01-01T00:00:00")
        );
        assert_eq!(newtonsoft_date("2026-12-31T24:00:01"), None);
        assert_eq!(newtonsoft_date("0000-01-01T00:00:00"), None);
        assert_eq!(newtonsoft_date("2026-01-01T10:00:00+2"), None);
    }

    #[test]
    fn offsets_move_into_the_editors_zone() {
        let berlin = EditorZone { offset_minutes: 60 };
        let ny = EditorZone {
            offset_minutes: -300,
        };
        assert_eq!(
            newtonsoft_date_in("2026-01-01T10:00:00+02:00", berlin).as_deref(),
            Some("2026-01-01T09:00:00+01:00")
        );
        assert_eq!(
            newtonsoft_date_in("2026-01-01T02:00:00Z", ny).as_deref(),
            Some("2026-01-01T02:00:00Z"),
            "UTC dates stay UTC"
        );
        assert_eq!(
            newtonsoft_date_in("2026-01-01T02:00:00+00:00", ny).as_deref(),
            Some("2025-12-31T21:00:00-05:00")
        );
        assert_eq!(
            newtonsoft_date_in("2026-01-01T02:00:00", ny).as_deref(),
            Some("2026-01-01T02:00:00"),
            "unzoned dates are kept as written"
        );
        assert_eq!(
            newtonsoft_date_in("/Date(0+0100)/", berlin).as_deref(),
            Some("1970-01-01T01:00:00+01:00")
        );
        let p = parse(r#"{"at":"2026-01-01T10:00:00+02:00"}"#).unwrap();
        assert_ne!(
            arguments_hash_json_in(&p, berlin),
            arguments_hash_json(&p),
            "the hash of an offset date depends on the zone"
        );
        assert!(zone_dependent(&p));
        let utc = parse(r#"{"at":["2026-01-01T10:00:00Z","2026-01-01T10:00:00"]}"#).unwrap();
        assert!(!zone_dependent(&utc));
        assert_eq!(
            arguments_hash_json_in(&utc, berlin),
            arguments_hash_json(&utc)
        );
        assert_eq!(
            arguments_hash_for_request(&serde_json::json!({"at": "2026-01-01T10:00:00-0700"})),
            None
        );
        assert!(
            arguments_hash_for_request(&serde_json::json!({"at": "2026-01-01T10:00:00Z"}))
                .is_some()
        );
    }

    #[test]
    fn parse_rejects_garbage() {
        assert!(parse("{").is_err());
        assert!(parse("{\"a\":1,}").is_err());
        assert!(parse("01").is_err());
        assert!(parse("[1] x").is_err());
        assert!(parse(&"[".repeat(200)).is_err());
    }

    #[test]
    fn duplicate_keys_last_wins() {
        let v = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(write_canonical(&v, NumberMode::Literal), r#"{"a":3,"b":2}"#);
    }
}
