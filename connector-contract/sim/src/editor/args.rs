//! Reading handler parameters, and the failure type every handler returns.
//!
//! Params arrive validated and coerced by the catalog validator, but handlers are also reachable
//! from legacy paths and from tests, so every accessor tolerates a wrong type by reporting
//! `INVALID_PARAM` instead of panicking. A blank string counts as absent, as it does in the
//! Connector's own argument groups (the Connector's schema-building rules, connector-contract/README.md §3).

use serde_json::{Map, Value, json};

/// A handler's structured failure; becomes `HandlerOutcome::Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fail {
    pub code: String,
    pub message: String,
    pub data: Option<Value>,
}

impl Fail {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Fail {
            code: code.to_string(),
            message: message.into(),
            data: None,
        }
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    pub fn missing(name: &str) -> Self {
        Fail::new(
            "MISSING_PARAM",
            format!("Missing required parameter '{name}'."),
        )
        .with_data(json!({ "param": name }))
    }
    pub fn invalid(name: &str, why: impl Into<String>) -> Self {
        let why = why.into();
        Fail::new("INVALID_PARAM", format!("Invalid '{name}': {why}"))
            .with_data(json!({ "param": name }))
    }
}

/// Read-only view of one call's params.
#[derive(Clone, Copy)]
pub struct Args<'a>(pub &'a Map<String, Value>);

impl<'a> Args<'a> {
    pub fn raw(&self, name: &str) -> Option<&'a Value> {
        match self.0.get(name) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(v) => Some(v),
        }
    }
    /// Present at all, even as `null` (for `AllowNull` parameters such as `set.value`).
    pub fn has_key(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
    pub fn str(&self, name: &str) -> Result<Option<&'a str>, Fail> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(Value::Number(_)) | Some(Value::Bool(_)) => Err(Fail::invalid(
                name,
                "expected a string (the validator should have rejected this)",
            )),
            Some(_) => Err(Fail::invalid(name, "expected a string")),
        }
    }
    pub fn req_str(&self, name: &str) -> Result<&'a str, Fail> {
        self.str(name)?.ok_or_else(|| Fail::missing(name))
    }
    /// A string, or a number rendered as text (ids given as `oneOf(integer, string)`).
    pub fn text(&self, name: &str) -> Result<Option<String>, Fail> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(Fail::invalid(name, "expected a string or an integer")),
        }
    }
    pub fn bool(&self, name: &str) -> Result<Option<bool>, Fail> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(Some(true)),
                "false" | "0" | "no" | "off" => Ok(Some(false)),
                _ => Err(Fail::invalid(name, "expected a boolean")),
            },
            Some(_) => Err(Fail::invalid(name, "expected a boolean")),
        }
    }
    pub fn flag(&self, name: &str) -> Result<bool, Fail> {
        Ok(self.bool(name)?.unwrap_or(false))
    }
    pub fn i64(&self, name: &str) -> Result<Option<i64>, Fail> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .map(Some)
                .ok_or_else(|| Fail::invalid(name, "expected an integer")),
            Some(Value::String(s)) => s
                .trim()
                .parse::<i64>()
                .map(Some)
                .map_err(|_| Fail::invalid(name, "expected an integer")),
            Some(_) => Err(Fail::invalid(name, "expected an integer")),
        }
    }
    pub fn f64(&self, name: &str) -> Result<Option<f64>, Fail> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(Value::String(s)) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Some)
                .ok_or_else(|| Fail::invalid(name, "expected a number")),
            Some(_) => Err(Fail::invalid(name, "expected a number")),
        }
    }
    pub fn strings(&self, name: &str) -> Result<Option<Vec<String>>, Fail> {
        match self.raw(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(
                s.split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect(),
            )),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(Fail::invalid(name, "expected an array of strings")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(Fail::invalid(name, "expected an array of strings")),
        }
    }
    /// An integer parameter clamped into `lo..=hi`, with a default.
    pub fn limit(&self, name: &str, default: i64, lo: i64, hi: i64) -> Result<usize, Fail> {
        let v = self.i64(name)?.unwrap_or(default);
        Ok(v.clamp(lo, hi) as usize)
    }
}

/// Parse an `XYZ`-shaped value (`"x,y,z"`, `[x,y,z]` or `{x?,y?,z?}`); missing object keys keep
/// the corresponding component of `current`.
pub fn vec3(name: &str, v: &Value, current: [f64; 3]) -> Result<[f64; 3], Fail> {
    let bad = || {
        Fail::invalid(
            name,
            "expected \"x,y,z\", [x,y,z] or {\"x\":…,\"y\":…,\"z\":…}",
        )
    };
    match v {
        Value::String(s) => {
            let parts: Vec<f64> = s
                .split(',')
                .map(|p| p.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            if parts.len() != 3 || parts.iter().any(|f| !f.is_finite()) {
                return Err(bad());
            }
            Ok([parts[0], parts[1], parts[2]])
        }
        Value::Array(items) if items.len() == 3 => {
            let mut out = [0.0; 3];
            for (i, item) in items.iter().enumerate() {
                out[i] = item.as_f64().ok_or_else(bad)?;
            }
            Ok(out)
        }
        Value::Object(map) => {
            let mut out = current;
            for (i, key) in ["x", "y", "z"].iter().enumerate() {
                if let Some(c) = map.get(*key) {
                    out[i] = c.as_f64().ok_or_else(bad)?;
                }
            }
            if map.keys().any(|k| !["x", "y", "z"].contains(&k.as_str())) {
                return Err(bad());
            }
            Ok(out)
        }
        _ => Err(bad()),
    }
}

/// Parse an `XY_UI`-shaped value (`"x,y"`, `[x,y]` or `{x,y}`).
pub fn vec2(name: &str, v: &Value) -> Result<[f64; 2], Fail> {
    let bad = || Fail::invalid(name, "expected \"x,y\", [x,y] or {\"x\":…,\"y\":…}");
    match v {
        Value::String(s) => {
            let parts: Vec<f64> = s
                .split(',')
                .map(|p| p.trim().parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            if parts.len() != 2 || parts.iter().any(|f| !f.is_finite()) {
                return Err(bad());
            }
            Ok([parts[0], parts[1]])
        }
        Value::Array(items) if items.len() == 2 => Ok([
            items[0].as_f64().ok_or_else(bad)?,
            items[1].as_f64().ok_or_else(bad)?,
        ]),
        Value::Object(map) => Ok([
            map.get("x").and_then(Value::as_f64).ok_or_else(bad)?,
            map.get("y").and_then(Value::as_f64).ok_or_else(bad)?,
        ]),
        _ => Err(bad()),
    }
}

/// Round away float noise before reporting (1e-5 is below anything a Unity inspector shows).
pub fn round(f: f64) -> f64 {
    let r = (f * 100_000.0).round() / 100_000.0;
    if r == 0.0 { 0.0 } else { r }
}

pub fn v3json(v: [f64; 3]) -> Value {
    json!({ "x": round(v[0]), "y": round(v[1]), "z": round(v[2]) })
}

pub fn v2json(v: [f64; 2]) -> Value {
    json!({ "x": round(v[0]), "y": round(v[1]) })
}

/// Case-insensitive `*`/`**` glob over `/`-separated paths: `*` matches within one segment,
/// `**` matches any number of segments (including none).
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let pat: Vec<&str> = pattern.trim_matches('/').split('/').collect();
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    glob_segments(&pat, &segs)
}

fn glob_segments(pat: &[&str], segs: &[&str]) -> bool {
    match pat.first() {
        None => segs.is_empty(),
        Some(&"**") => (0..=segs.len()).any(|skip| glob_segments(&pat[1..], &segs[skip..])),
        Some(p) => match segs.first() {
            Some(s) if wildcard(p, s) => glob_segments(&pat[1..], &segs[1..]),
            _ => false,
        },
    }
}

/// `*` and `?` within one segment, case-insensitive.
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    // Iterative matcher with one backtrack point: linear in practice, never recursive.
    let (mut pi, mut ti) = (0usize, 0usize);
    let (mut star, mut mark) = (None::<usize>, 0usize);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_args_blank_is_absent_and_types_are_checked() {
        let m: Map<String, Value> =
            serde_json::from_value(json!({"a":"  ","b":"x","n":"12","f":true})).unwrap();
        let a = Args(&m);
        assert_eq!(a.str("a").unwrap(), None);
        assert_eq!(a.str("b").unwrap(), Some("x"));
        assert_eq!(a.i64("n").unwrap(), Some(12));
        assert_eq!(a.req_str("zz").unwrap_err().code, "MISSING_PARAM");
        assert_eq!(a.i64("b").unwrap_err().code, "INVALID_PARAM");
        assert_eq!(a.bool("f").unwrap(), Some(true));
    }

    #[test]
    fn editor_vectors_parse_all_three_forms() {
        assert_eq!(
            vec3("p", &json!("1, 2,3"), [0.0; 3]).unwrap(),
            [1.0, 2.0, 3.0]
        );
        assert_eq!(
            vec3("p", &json!([1, 2, 3]), [0.0; 3]).unwrap(),
            [1.0, 2.0, 3.0]
        );
        assert_eq!(
            vec3("p", &json!({"y": 5}), [1.0, 2.0, 3.0]).unwrap(),
            [1.0, 5.0, 3.0]
        );
        assert!(vec3("p", &json!("1,2"), [0.0; 3]).is_err());
        assert_eq!(vec2("p", &json!("0.5,1")).unwrap(), [0.5, 1.0]);
    }

    #[test]
    fn editor_glob_matches_levels() {
        assert!(glob_match("Root/*", "Root/Child"));
        assert!(!glob_match("Root/*", "Root/Child/Leaf"));
        assert!(glob_match("Root/**", "Root/Child/Leaf"));
        assert!(glob_match("**/Leaf", "Root/Child/Leaf"));
        assert!(glob_match("r*t/c?ild", "Root/Child"));
        assert!(!glob_match("Other/**", "Root/Child"));
    }
}
