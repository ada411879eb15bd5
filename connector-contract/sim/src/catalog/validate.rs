//! The Connector's own argument validator (the Connector's schema-building rules, connector-contract/README.md §3, connector-contract/README.md §2.5
//! step 8, §8.3), which is deliberately more permissive than JSON Schema: it maps positional
//! `args`, renames aliases, coerces strings to integers/numbers/booleans, matches enums without
//! regard to case, and checks argument groups with its own logic instead of the published
//! `oneOf`/`allOf`.
//!
//! Error shapes copy the Connector's: message `Validation failed at '<path>'.` and
//! `data {path, expected, actual}`. Where the Connector reports a JSON token type, two forms
//! exist and both are kept: the parameter-level checks give the type *name* (`"String"`), while
//! nested schema checks give Newtonsoft's numeric `JTokenType` (`8`), because that is how the
//! default serializer writes the enum.

use super::contract::{GroupContract, ParamContract, SchemaContract, Term};
use super::data::{GroupMode, ValueKind};
use serde_json::{Map, Number, Value, json};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// A structured validation (or action-resolution) error, as the Connector sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationFailure {
    pub code: String,
    pub message: String,
    pub data: Value,
}

impl std::fmt::Display for ValidationFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ValidationFailure {}

impl ValidationFailure {
    pub(crate) fn at(code: &str, path: &str, expected: Value, actual: Value) -> ValidationFailure {
        ValidationFailure {
            code: code.to_string(),
            message: format!("Validation failed at '{path}'."),
            data: json!({"path": path, "expected": expected, "actual": actual}),
        }
    }
}

type Outcome<T> = Result<T, ValidationFailure>;

/// Whether the Connector's reader made `v` a `Date` token: a string in ISO date form (or
/// `/Date(…)/`) is a date before any validator sees it, so it is not a `String`.
fn is_date_token(v: &Value) -> bool {
    v.as_str()
        .is_some_and(hera_connector_contract::canonical::is_newtonsoft_date)
}

/// Newtonsoft's `JTokenType` name of a value (parameter-level errors).
pub(crate) fn token_type_name(v: &Value) -> &'static str {
    match v {
        _ if is_date_token(v) => "Date",
        Value::Null => "Null",
        Value::Bool(_) => "Boolean",
        Value::Number(n) if n.is_f64() => "Float",
        Value::Number(_) => "Integer",
        Value::String(_) => "String",
        Value::Array(_) => "Array",
        Value::Object(_) => "Object",
    }
}

/// Newtonsoft's numeric `JTokenType` (nested schema errors serialize the enum as a number).
fn token_type_code(v: &Value) -> Value {
    let code = match v {
        _ if is_date_token(v) => 12,
        Value::Object(_) => 1,
        Value::Array(_) => 2,
        Value::Number(n) if n.is_f64() => 7,
        Value::Number(_) => 6,
        Value::String(_) => 8,
        Value::Bool(_) => 9,
        Value::Null => 10,
    };
    json!(code)
}

/// `JToken.ToString()` for reporting: strings raw, booleans `True`/`False`, numbers as text,
/// containers as compact JSON.
pub(crate) fn token_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => String::new(),
        Value::Number(n) => number_text(n),
        other => other.to_string(),
    }
}

fn number_text(n: &Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => n.to_string(),
    }
}

/// `JToken.DeepEquals`: like `==`, but numbers compare by value across integer and float.
pub(crate) fn deep_equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(i), Some(j)) = (x.as_i64(), y.as_i64()) {
                i == j
            } else if let (Some(i), Some(j)) = (x.as_u64(), y.as_u64()) {
                i == j
            } else {
                x.as_f64() == y.as_f64()
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| deep_equals(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| deep_equals(v, w)))
        }
        _ => a == b,
    }
}

fn regex_matches(pattern: &str, text: &str) -> bool {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<regex::Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    let re = map
        .entry(pattern.to_string())
        .or_insert_with(|| regex::Regex::new(pattern).ok());
    // A pattern this engine cannot compile (a custom tool's .NET-only construct) constrains
    // nothing rather than rejecting every call.
    re.as_ref().is_none_or(|r| r.is_match(text))
}

/// Validates `params` against one contract. `action` is the resolved action's canonical name
/// when the call uses an action contract (its `action` key must then name it).
pub(crate) fn validate_contract(
    contract: &SchemaContract,
    action: Option<&str>,
    params: &Map<String, Value>,
) -> Outcome<Map<String, Value>> {
    let mut normalized = params.clone();

    if let Some(name) = action {
        let supplied = normalized.get("action").map(token_text).unwrap_or_default();
        if supplied.trim().is_empty() {
            return Err(ValidationFailure::at(
                "MISSING_ARGUMENT",
                "/action",
                json!(name),
                Value::Null,
            ));
        }
        if supplied.to_lowercase() != name.to_lowercase() {
            return Err(ValidationFailure::at(
                "UNKNOWN_ACTION",
                "/action",
                json!(name),
                json!(supplied),
            ));
        }
        normalized.insert("action".into(), json!(name));
    }

    map_positionals(&mut normalized, &contract.params, action.is_some())?;
    apply_aliases(&mut normalized, &contract.params)?;

    let mut allowed: Vec<&str> = contract.params.iter().map(|p| p.name.as_str()).collect();
    if action.is_some() {
        allowed.push("action");
    }
    for (key, value) in &normalized {
        if !allowed.contains(&key.as_str()) {
            let mut names = allowed.clone();
            names.sort();
            names.dedup();
            return Err(ValidationFailure::at(
                "UNKNOWN_ARGUMENT",
                &format!("/{key}"),
                json!(names.join(", ")),
                json!(token_type_name(value)),
            ));
        }
    }

    for p in &contract.params {
        let path = format!("/{}", p.name);
        let Some(value) = normalized.get(&p.name).cloned() else {
            if p.required {
                return Err(ValidationFailure::at(
                    "MISSING_ARGUMENT",
                    &path,
                    expected_type(p),
                    Value::Null,
                ));
            }
            continue;
        };
        if value.is_null() {
            if p.allow_null {
                continue;
            }
            return Err(ValidationFailure::at(
                "ARGUMENT_TYPE_MISMATCH",
                &path,
                expected_type(p),
                json!("null"),
            ));
        }
        let Some(mut converted) = coerce(&value, p.kind) else {
            return Err(ValidationFailure::at(
                "ARGUMENT_TYPE_MISMATCH",
                &path,
                expected_type(p),
                json!(token_type_name(&value)),
            ));
        };
        if let Some(Value::Array(choices)) = p.schema.get("enum") {
            if let Value::String(s) = &converted {
                let lower = s.to_lowercase();
                if let Some(canonical) = choices
                    .iter()
                    .find(|c| c.as_str().is_some_and(|c| c.to_lowercase() == lower))
                {
                    converted = canonical.clone();
                }
            }
            if !choices.iter().any(|c| deep_equals(c, &converted)) {
                return Err(ValidationFailure::at(
                    "INVALID_ARGUMENT",
                    &path,
                    json!(Value::Array(choices.clone()).to_string()),
                    json!(token_text(&converted)),
                ));
            }
        }
        if let Some(pattern) = p
            .schema
            .get("pattern")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            let ok = converted
                .as_str()
                .is_some_and(|s| regex_matches(pattern, s));
            if !ok {
                return Err(ValidationFailure::at(
                    "INVALID_ARGUMENT",
                    &path,
                    json!(pattern),
                    json!(token_text(&converted)),
                ));
            }
        }
        if let Some(format) = p
            .schema
            .get("format")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            && !matches_format(&converted, format)
        {
            return Err(ValidationFailure::at(
                "ARGUMENT_FORMAT_INVALID",
                &path,
                json!(format),
                json!(token_text(&converted)),
            ));
        }
        normalized.insert(p.name.clone(), converted.clone());
        check_schema(&p.schema, &converted, &path)?;
    }

    check_groups(&normalized, &contract.groups)?;
    Ok(normalized)
}

/// Positional `args` fill declared parameters in declaration order, skipping `args[0]` when an
/// action contract is in use; a trailing array parameter takes all the rest.
fn map_positionals(
    normalized: &mut Map<String, Value>,
    params: &[ParamContract],
    action_contract: bool,
) -> Outcome<()> {
    let Some(Value::Array(args)) = normalized.get("args").cloned() else {
        return Ok(());
    };
    let start = usize::from(action_contract);
    for index in start..args.len() {
        let pi = index - start;
        if pi >= params.len() {
            return Err(ValidationFailure::at(
                "UNKNOWN_ARGUMENT",
                &format!("/args/{index}"),
                json!(format!("at most {} positional arguments", params.len())),
                json!(token_type_name(&args[index])),
            ));
        }
        let p = &params[pi];
        if normalized.contains_key(&p.name) {
            return Err(ValidationFailure::at(
                "ARGUMENT_CONFLICT",
                &format!("/args/{index}"),
                json!(format!("{} once", p.name)),
                json!(token_text(&args[index])),
            ));
        }
        if pi == params.len() - 1 && p.kind == ValueKind::Array {
            normalized.insert(p.name.clone(), Value::Array(args[index..].to_vec()));
            break;
        }
        normalized.insert(p.name.clone(), args[index].clone());
    }
    normalized.remove("args");
    Ok(())
}

fn apply_aliases(normalized: &mut Map<String, Value>, params: &[ParamContract]) -> Outcome<()> {
    for p in params {
        for alias in &p.aliases {
            let Some(value) = normalized.get(alias).cloned() else {
                continue;
            };
            if normalized.contains_key(&p.name) {
                return Err(ValidationFailure::at(
                    "ARGUMENT_CONFLICT",
                    &format!("/{alias}"),
                    json!(format!("{} or {}", p.name, alias)),
                    json!([p.name, alias]),
                ));
            }
            let value = if p.kind == ValueKind::Array && !value.is_array() {
                json!([value])
            } else {
                value
            };
            normalized.insert(p.name.clone(), value);
            normalized.remove(alias);
        }
    }
    Ok(())
}

/// What a parameter's error reports as `expected`: its schema `type`, else the `type`s of its
/// `oneOf` branches, else its kind.
fn expected_type(p: &ParamContract) -> Value {
    if let Some(t) = p.schema.get("type") {
        return t.clone();
    }
    if let Some(Value::Array(branches)) = p.schema.get("oneOf") {
        return Value::Array(
            branches
                .iter()
                .filter_map(|b| b.get("type").cloned())
                .collect(),
        );
    }
    json!(p.kind.json_name())
}

/// Coercion by CLR kind; `None` means a type mismatch.
fn coerce(v: &Value, kind: ValueKind) -> Option<Value> {
    match kind {
        ValueKind::Token => Some(v.clone()),
        ValueKind::Object => v.is_object().then(|| v.clone()),
        ValueKind::Array => v.is_array().then(|| v.clone()),
        ValueKind::String => (v.is_string() && !is_date_token(v)).then(|| v.clone()),
        ValueKind::Boolean => coerce_bool(v).map(Value::Bool),
        ValueKind::Integer => match v {
            Value::Number(n) if !n.is_f64() => Some(v.clone()),
            Value::String(s) => parse_integer(s).map(|i| json!(i)),
            _ => None,
        },
        ValueKind::Number => match v {
            Value::Number(_) => Some(v.clone()),
            Value::String(s) => parse_float(s).and_then(Number::from_f64).map(Value::Number),
            _ => None,
        },
    }
}

/// The Connector's lenient boolean: JSON booleans, or text (trimmed, any case) `true`/`false`,
/// `1`/`0`, `yes`/`no`, `on`/`off`; numbers are read through their text.
fn coerce_bool(v: &Value) -> Option<bool> {
    let text = match v {
        Value::Bool(b) => return Some(*b),
        Value::String(s) => s.trim().to_lowercase(),
        Value::Number(n) => number_text(n),
        _ => return None,
    };
    match text.as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// `long.TryParse(s, NumberStyles.Integer)`: optional surrounding whitespace and sign, digits.
fn parse_integer(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

/// `double.TryParse(s, NumberStyles.Float)`: whitespace, sign, decimal point, exponent. Only
/// finite results are kept, since JSON cannot carry the others.
fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn matches_format(v: &Value, format: &str) -> bool {
    // Only a `String` token can match a format, so a date-time value (a `Date` token) never does.
    let Some(text) = v.as_str().filter(|_| !is_date_token(v)) else {
        return false;
    };
    match format {
        "uri" => regex_matches(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$", text),
        "date-time" => regex_matches(
            r"^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?([Zz]|[+-]\d{2}:?\d{2})?$",
            text,
        ),
        _ => true,
    }
}

fn type_matches(declared: Option<&Value>, v: &Value) -> bool {
    let one = |t: &str| match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "number" => v.is_number(),
        "integer" => matches!(v, Value::Number(n) if !n.is_f64()),
        "string" => v.is_string() && !is_date_token(v),
        _ => false,
    };
    match declared {
        None => true,
        Some(Value::String(t)) => one(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).any(one),
        Some(_) => false,
    }
}

fn escape_pointer(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The subset of JSON Schema the Connector enforces on a value (§1.9): `type`, `enum`,
/// `pattern`, `minimum`, `maximum`, `minItems`, `maxItems`, `items`, `required`, `properties`,
/// `additionalProperties`, `allOf`, `anyOf`, `oneOf`, `not`. `exclusiveMinimum` and
/// `minLength` are published but not enforced.
fn check_schema(schema: &Value, v: &Value, path: &str) -> Outcome<()> {
    let Some(s) = schema.as_object() else {
        return Ok(());
    };
    if !type_matches(s.get("type"), v) {
        return Err(ValidationFailure::at(
            "ARGUMENT_TYPE_MISMATCH",
            path,
            s["type"].clone(),
            token_type_code(v),
        ));
    }
    if let Some(Value::Array(choices)) = s.get("enum")
        && !choices.iter().any(|c| deep_equals(c, v))
    {
        return Err(ValidationFailure::at(
            "INVALID_ARGUMENT",
            path,
            Value::Array(choices.clone()),
            v.clone(),
        ));
    }
    if let Some(pattern) = s
        .get("pattern")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        && !v.as_str().is_some_and(|text| regex_matches(pattern, text))
    {
        return Err(ValidationFailure::at(
            "INVALID_ARGUMENT",
            path,
            json!(pattern),
            v.clone(),
        ));
    }
    if let Some(x) = v.as_f64().filter(|_| v.is_number()) {
        if let Some(min) = s
            .get("minimum")
            .filter(|m| m.as_f64().is_some_and(|m| x < m))
        {
            return Err(ValidationFailure::at(
                "INVALID_ARGUMENT",
                path,
                min.clone(),
                v.clone(),
            ));
        }
        if let Some(max) = s
            .get("maximum")
            .filter(|m| m.as_f64().is_some_and(|m| x > m))
        {
            return Err(ValidationFailure::at(
                "INVALID_ARGUMENT",
                path,
                max.clone(),
                v.clone(),
            ));
        }
    }
    if let Value::Array(items) = v {
        let n = items.len() as f64;
        if let Some(min) = s
            .get("minItems")
            .filter(|m| m.as_f64().is_some_and(|m| n < m))
        {
            return Err(ValidationFailure::at(
                "INVALID_ARGUMENT",
                path,
                min.clone(),
                json!(items.len()),
            ));
        }
        if let Some(max) = s
            .get("maxItems")
            .filter(|m| m.as_f64().is_some_and(|m| n > m))
        {
            return Err(ValidationFailure::at(
                "INVALID_ARGUMENT",
                path,
                max.clone(),
                json!(items.len()),
            ));
        }
        if let Some(item_schema) = s.get("items").filter(|i| i.is_object()) {
            for (i, item) in items.iter().enumerate() {
                check_schema(item_schema, item, &format!("{path}/{i}"))?;
            }
        }
    }
    if let Value::Object(obj) = v {
        if let Some(Value::Array(required)) = s.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(name) {
                    return Err(ValidationFailure::at(
                        "MISSING_ARGUMENT",
                        &format!("{path}/{}", escape_pointer(name)),
                        json!("required property"),
                        Value::Null,
                    ));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (key, value) in obj {
            let sub = format!("{path}/{}", escape_pointer(key));
            if let Some(ps) = props.and_then(|p| p.get(key)).filter(|p| p.is_object()) {
                check_schema(ps, value, &sub)?;
                continue;
            }
            match s.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let names: Vec<&String> = props.map(|p| p.keys().collect()).unwrap_or_default();
                    return Err(ValidationFailure::at(
                        "UNKNOWN_ARGUMENT",
                        &sub,
                        json!(names),
                        token_type_code(value),
                    ));
                }
                Some(extra @ Value::Object(_)) => check_schema(extra, value, &sub)?,
                _ => {}
            }
        }
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for branch in all.iter().filter(|b| b.is_object()) {
            check_schema(branch, v, path)?;
        }
    }
    if let Some(Value::Array(any)) = s.get("anyOf")
        && !any
            .iter()
            .filter(|b| b.is_object())
            .any(|b| check_schema(b, v, path).is_ok())
    {
        return Err(ValidationFailure::at(
            "ARGUMENT_TYPE_MISMATCH",
            path,
            Value::Array(any.clone()),
            token_type_code(v),
        ));
    }
    if let Some(Value::Array(one)) = s.get("oneOf") {
        let passing = one
            .iter()
            .filter(|b| b.is_object())
            .filter(|b| check_schema(b, v, path).is_ok())
            .count();
        if passing != 1 {
            return Err(ValidationFailure::at(
                "ARGUMENT_TYPE_MISMATCH",
                path,
                Value::Array(one.clone()),
                token_type_code(v),
            ));
        }
    }
    if let Some(not) = s.get("not").filter(|n| n.is_object())
        && check_schema(not, v, path).is_ok()
    {
        return Err(ValidationFailure::at(
            "INVALID_ARGUMENT",
            path,
            json!("value excluded by schema"),
            v.clone(),
        ));
    }
    Ok(())
}

/// A term is present when the argument exists, is not null, and (for `name=value`) deep-equals
/// the value; a blank string counts as absent.
fn is_active(normalized: &Map<String, Value>, term: &Term) -> bool {
    let Some(v) = normalized.get(&term.name).filter(|v| !v.is_null()) else {
        return false;
    };
    match (&term.value, v) {
        (Some(expected), _) => deep_equals(v, expected),
        (None, Value::String(s)) => !s.trim().is_empty(),
        (None, _) => true,
    }
}

fn check_groups(normalized: &Map<String, Value>, groups: &[GroupContract]) -> Outcome<()> {
    for g in groups {
        let active: Vec<&Term> = g
            .terms
            .iter()
            .filter(|t| is_active(normalized, t))
            .collect();
        let needs_one = matches!(g.mode, GroupMode::ExactlyOne | GroupMode::AtLeastOne);
        let allows_one = matches!(g.mode, GroupMode::ExactlyOne | GroupMode::AtMostOne);
        if needs_one && active.is_empty() {
            return Err(ValidationFailure::at(
                &g.missing_code,
                &g.path,
                json!(g.expected),
                Value::Null,
            ));
        }
        if allows_one && active.len() > 1 {
            let names: Vec<&str> = active.iter().map(|t| t.name.as_str()).collect();
            return Err(ValidationFailure::at(
                &g.conflict_code,
                &g.path,
                json!(g.expected),
                json!(names),
            ));
        }
        if g.mode == GroupMode::RequiredWhen
            && g.terms.first().is_some_and(|t| is_active(normalized, t))
            && !g.terms[1..].iter().any(|t| is_active(normalized, t))
        {
            return Err(ValidationFailure::at(
                &g.missing_code,
                &g.path,
                json!(g.expected),
                Value::Null,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_coerce_like_the_connector() {
        for (v, want) in [
            (json!(true), Some(true)),
            (json!(" Yes "), Some(true)),
            (json!("off"), Some(false)),
            (json!("TRUE"), Some(true)),
            (json!(1), Some(true)),
            (json!(0), Some(false)),
            (json!(2), None),
            (json!(""), None),
            (json!([]), None),
        ] {
            assert_eq!(coerce_bool(&v), want, "{v}");
        }
    }

    #[test]
    fn numbers_parse_like_dotnet() {
        assert_eq!(parse_integer(" -12 "), Some(-12));
        assert_eq!(parse_integer("+7"), Some(7));
        assert_eq!(parse_integer("1.0"), None);
        assert_eq!(parse_integer("0x10"), None);
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("NaN"), None);
        assert_eq!(parse_float("inf"), None);
        assert_eq!(coerce(&json!("5"), ValueKind::Number), Some(json!(5.0)));
        assert_eq!(coerce(&json!(5), ValueKind::Number), Some(json!(5)));
        assert_eq!(coerce(&json!(5.5), ValueKind::Integer), None);
    }

    #[test]
    fn deep_equality_compares_numbers_by_value() {
        assert!(deep_equals(&json!(2), &json!(2.0)));
        assert!(deep_equals(
            &json!({"a": [1, true]}),
            &json!({"a": [1.0, true]})
        ));
        assert!(!deep_equals(&json!("1"), &json!(1)));
    }

    #[test]
    fn nested_schema_errors_report_numeric_token_types() {
        let schema =
            json!({"items": {"type": "number"}, "maxItems": 3, "minItems": 3, "type": "array"});
        let e = check_schema(&schema, &json!([1, 2]), "/gravity").unwrap_err();
        assert_eq!(e.code, "INVALID_ARGUMENT");
        assert_eq!(
            e.data,
            json!({"path": "/gravity", "expected": 3, "actual": 2})
        );
        let e = check_schema(&schema, &json!([1, "x", 3]), "/gravity").unwrap_err();
        assert_eq!(e.code, "ARGUMENT_TYPE_MISMATCH");
        assert_eq!(
            e.data,
            json!({"path": "/gravity/1", "expected": "number", "actual": 8})
        );
    }

    #[test]
    fn exclusive_minimum_and_min_length_are_not_enforced() {
        assert!(
            check_schema(
                &json!({"type": "number", "exclusiveMinimum": 0}),
                &json!(0),
                "/x"
            )
            .is_ok()
        );
        assert!(check_schema(&json!({"type": "string", "minLength": 1}), &json!(""), "/x").is_ok());
    }
}
