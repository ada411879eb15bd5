//! The validator's view of one input schema: parameters in declaration order (with the CLR kind
//! that decides coercion and the aliases the schema never shows) and argument groups (with their
//! error metadata).
//!
//! Built-in tools get this view straight from the data file (`schema.rs`). A custom tool added
//! at runtime only has its published schema, so [`SchemaContract::from_schema`] reads the same
//! facts back out of it: the Connector publishes groups in a fixed encoding, which is reversible.

use super::data::{GroupMode, ValueKind};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Default)]
pub(crate) struct SchemaContract {
    pub params: Vec<ParamContract>,
    pub groups: Vec<GroupContract>,
}

#[derive(Debug, Clone)]
pub(crate) struct ParamContract {
    pub name: String,
    pub kind: ValueKind,
    /// The published property schema (description included), which the validator enforces.
    pub schema: Value,
    pub required: bool,
    pub allow_null: bool,
    pub aliases: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Term {
    pub name: String,
    /// `Some` for `name=<literal>`: present only when the argument deep-equals it.
    pub value: Option<Value>,
}

#[derive(Debug, Clone)]
pub(crate) struct GroupContract {
    pub mode: GroupMode,
    pub terms: Vec<Term>,
    pub path: String,
    pub expected: String,
    pub missing_code: String,
    pub conflict_code: String,
}

impl SchemaContract {
    pub fn param(&self, name: &str) -> Option<&ParamContract> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Reads a contract back out of a published object schema (a custom tool's). Declaration
    /// order is lost in publication, so positionals follow the schema's (sorted) property order;
    /// aliases and `AllowNull` are not published, so there are none.
    pub fn from_schema(schema: &Value, is_action: bool) -> SchemaContract {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut params = Vec::new();
        for (name, prop) in properties {
            if is_action && name == "action" && prop.get("const").is_some() {
                continue;
            }
            params.push(ParamContract {
                name: name.clone(),
                kind: kind_of_schema(prop),
                schema: prop.clone(),
                required: required.contains(&name.as_str()),
                allow_null: false,
                aliases: Vec::new(),
            });
        }
        let mut groups = Vec::new();
        if let Some(Value::Array(tests)) = schema.get("oneOf") {
            let terms: Option<Vec<Term>> = tests.iter().map(term_of_presence).collect();
            if let Some(terms) = terms.filter(|t| !t.is_empty()) {
                groups.push(default_group(GroupMode::ExactlyOne, terms));
            }
        }
        if let Some(Value::Array(entries)) = schema.get("allOf") {
            for e in entries {
                if let Some(g) = group_of_all_of_entry(e) {
                    groups.push(g);
                }
            }
        }
        SchemaContract { params, groups }
    }
}

fn default_group(mode: GroupMode, terms: Vec<Term>) -> GroupContract {
    let expected = terms
        .iter()
        .map(|t| match &t.value {
            Some(v) => format!("{}={}", t.name, v),
            None => t.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(" or ");
    GroupContract {
        mode,
        terms,
        path: "/".into(),
        expected,
        missing_code: "MISSING_ARGUMENT".into(),
        conflict_code: "ARGUMENT_CONFLICT".into(),
    }
}

/// `{"properties":{name: X},"required":[name]}` → the term it tests.
fn term_of_presence(v: &Value) -> Option<Term> {
    let props = v.get("properties")?.as_object()?;
    if props.len() != 1 {
        return None;
    }
    let (name, x) = props.iter().next()?;
    Some(Term {
        name: name.clone(),
        value: x.get("const").cloned(),
    })
}

fn group_of_all_of_entry(e: &Value) -> Option<GroupContract> {
    if let Some(inner) = e
        .get("not")
        .and_then(|n| n.get("allOf"))
        .and_then(Value::as_array)
    {
        let terms: Vec<Term> = inner.iter().map(term_of_presence).collect::<Option<_>>()?;
        return Some(default_group(GroupMode::AtMostOne, terms));
    }
    let branches = e.get("anyOf")?.as_array()?;
    if let Some(first) = branches.first().and_then(|b| b.get("not")) {
        let mut terms = vec![term_of_presence(first)?];
        for b in &branches[1..] {
            terms.push(term_of_presence(b)?);
        }
        return Some(default_group(GroupMode::RequiredWhen, terms));
    }
    let terms: Vec<Term> = branches
        .iter()
        .map(term_of_presence)
        .collect::<Option<_>>()?;
    Some(default_group(GroupMode::AtLeastOne, terms))
}

/// The CLR kind a published property schema implies.
fn kind_of_schema(prop: &Value) -> ValueKind {
    let single = match prop.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => {
            let non_null: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            if non_null.len() == 1 {
                Some(non_null[0])
            } else {
                None
            }
        }
        _ => None,
    };
    match single {
        Some("string") => ValueKind::String,
        Some("integer") => ValueKind::Integer,
        Some("number") => ValueKind::Number,
        Some("boolean") => ValueKind::Boolean,
        Some("array") => ValueKind::Array,
        Some("object") => ValueKind::Object,
        _ => ValueKind::Token,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn groups_read_back_from_a_published_schema() {
        let pa = json!({"properties": {"a": {"pattern": "\\S"}}, "required": ["a"]});
        let pb = json!({"properties": {"b": {"not": {"type": "null"}}}, "required": ["b"]});
        let pc = json!({"properties": {"c": {"const": true}}, "required": ["c"]});
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}, "c": {"type": "boolean"},
                           "action": {"const": "x", "type": "string"}},
            "required": ["a", "action"],
            "oneOf": [pa, pb],
            "allOf": [{"anyOf": [pa, pb]}, {"not": {"allOf": [pa, pc]}}, {"anyOf": [{"not": pc}, pa]}]
        });
        let c = SchemaContract::from_schema(&schema, true);
        assert_eq!(
            c.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            vec!["a", "b", "c"]
        );
        assert_eq!(c.param("b").unwrap().kind, ValueKind::Integer);
        assert!(c.param("a").unwrap().required);
        let modes: Vec<GroupMode> = c.groups.iter().map(|g| g.mode).collect();
        assert_eq!(
            modes,
            vec![
                GroupMode::ExactlyOne,
                GroupMode::AtLeastOne,
                GroupMode::AtMostOne,
                GroupMode::RequiredWhen
            ]
        );
        assert_eq!(
            c.groups[3].terms[0],
            Term {
                name: "c".into(),
                value: Some(json!(true))
            }
        );
        assert_eq!(c.groups[2].expected, "a or c=true");
    }
}
