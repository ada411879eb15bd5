//! `exec`: arbitrary C#, simulated honestly. There is no compiler here, so the simulator only
//! evaluates a small, clearly defined subset and says so for anything else
//! (`EXEC_UNSUPPORTED_IN_SIMULATOR`):
//!
//! * literals, arithmetic (`+ - * / %`, parentheses), string concatenation, `==`/`!=`;
//! * `var x = …;` locals and `return …;`;
//! * `Debug.Log/LogWarning/LogError(…)` (writes the console);
//! * `Application.unityVersion|productName|companyName|isPlaying|dataPath`, `Time.timeScale`,
//!   `SceneManager.GetActiveScene().name|path|rootCount|isDirty`, `SceneManager.sceneCount`,
//!   `GameObject.Find("…")` and its `.name|activeSelf|tag|transform.position`;
//! * `throw new …Exception("…")` (a runtime error).
//!
//! Unbalanced brackets or quotes are compile errors. `compile_only` checks the same things
//! without side effects.

use super::args::Args;
use super::console::user_stack;
use super::editor_state::PlayState;
use super::{Editor, Handled, HandlerOutcome, Invocation, InvokeContext};
use serde_json::{Map, Value, json};
use std::time::Instant;

#[derive(Debug, Clone, PartialEq)]
enum V {
    Void,
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Obj(i64),
    Scene(i64),
}

impl V {
    fn type_name(&self) -> &'static str {
        match self {
            V::Void => "void",
            V::Null => "null",
            V::Bool(_) => "System.Boolean",
            V::Int(_) => "System.Int32",
            V::Float(_) => "System.Single",
            V::Str(_) => "System.String",
            V::Obj(_) => "UnityEngine.GameObject",
            V::Scene(_) => "UnityEngine.SceneManagement.Scene",
        }
    }
    fn text(&self, ed: &Editor) -> String {
        match self {
            V::Void | V::Null => "Null".into(),
            V::Bool(b) => {
                if *b {
                    "True".into()
                } else {
                    "False".into()
                }
            }
            V::Int(i) => i.to_string(),
            V::Float(f) => f.to_string(),
            V::Str(s) => s.clone(),
            V::Obj(id) => format!(
                "{} (UnityEngine.GameObject)",
                ed.world
                    .get(*id)
                    .map(|o| o.name.clone())
                    .unwrap_or_default()
            ),
            V::Scene(h) => ed.world.scene(*h).map(|s| s.name()).unwrap_or_default(),
        }
    }
    fn json(&self, ed: &Editor) -> Value {
        match self {
            V::Void | V::Null => Value::Null,
            V::Bool(b) => json!(b),
            V::Int(i) => json!(i),
            V::Float(f) => json!(f),
            V::Str(s) => json!(s),
            V::Obj(id) => {
                json!({"name": ed.world.get(*id).map(|o| o.name.clone()), "instance_id": id, "path": ed.world.path_of(*id)})
            }
            V::Scene(h) => {
                json!({"name": ed.world.scene(*h).map(|s| s.name()), "path": ed.world.scene(*h).map(|s| s.path.clone())})
            }
        }
    }
}

/// Why evaluation stopped.
enum Stop {
    Compile(String),
    Unsupported(String),
    Runtime(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(String),
    Str(String),
    Ident(String),
    Op(String),
}

fn lex(code: &str) -> Result<Vec<Tok>, Stop> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut depth: Vec<char> = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '"' {
            let mut s = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => {
                        return Err(Stop::Compile(
                            "(1,1): error CS1010: Newline in constant".into(),
                        ));
                    }
                    Some('"') => break,
                    Some('\\') => {
                        let e = chars.get(i + 1).copied().unwrap_or('\\');
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                        i += 2;
                    }
                    Some(ch) => {
                        s.push(*ch);
                        i += 1;
                    }
                }
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            out.push(Tok::Num(chars[start..i].iter().collect()));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(&two.as_str()) {
                out.push(Tok::Op(two));
                i += 2;
                continue;
            }
            match c {
                '(' | '{' | '[' => {
                    // The evaluator recurses per bracket; refuse what a stack can't take.
                    if depth.len() >= 64 {
                        return Err(Stop::Compile(format!(
                            "(1,{}): error CS8078: An expression is too long or complex to compile",
                            i + 1
                        )));
                    }
                    depth.push(c)
                }
                ')' | '}' | ']' => {
                    let want = match c {
                        ')' => '(',
                        '}' => '{',
                        _ => '[',
                    };
                    if depth.pop() != Some(want) {
                        return Err(Stop::Compile(format!(
                            "(1,{}): error CS1513: unexpected '{c}'",
                            i + 1
                        )));
                    }
                }
                _ => {}
            }
            out.push(Tok::Op(c.to_string()));
            i += 1;
        }
    }
    if let Some(open) = depth.pop() {
        let close = match open {
            '(' => ')',
            '{' => '}',
            _ => ']',
        };
        return Err(Stop::Compile(format!(
            "(1,{}): error CS1026: {close} expected",
            chars.len() + 1
        )));
    }
    Ok(out)
}

struct Eval<'e> {
    ed: &'e mut Editor,
    toks: Vec<Tok>,
    pos: usize,
    vars: Map<String, Value>,
    locals: Vec<(String, V)>,
    logs: Vec<(String, String)>,
    dry: bool,
}

const NAMESPACES: [&str; 4] = [
    "UnityEngine.SceneManagement.",
    "UnityEngine.",
    "UnityEditor.",
    "System.",
];

impl Eval<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if self.peek() == Some(&Tok::Op(op.into())) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect_op(&mut self, op: &str) -> Result<(), Stop> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(Stop::Compile(format!("error CS1002: '{op}' expected")))
        }
    }

    fn program(&mut self) -> Result<V, Stop> {
        let mut last = V::Void;
        while self.pos < self.toks.len() {
            if self.eat_op(";") {
                continue;
            }
            match self.peek() {
                Some(Tok::Ident(k)) if k == "return" => {
                    self.pos += 1;
                    let v = if self.peek() == Some(&Tok::Op(";".into())) || self.peek().is_none() {
                        V::Void
                    } else {
                        self.expr()?
                    };
                    return Ok(v);
                }
                Some(Tok::Ident(k)) if k == "var" => {
                    self.pos += 1;
                    let Some(Tok::Ident(name)) = self.peek().cloned() else {
                        return Err(Stop::Compile("error CS1001: Identifier expected".into()));
                    };
                    self.pos += 1;
                    self.expect_op("=")?;
                    let v = self.expr()?;
                    self.locals.push((name, v));
                    last = V::Void;
                }
                Some(Tok::Ident(k)) if k == "throw" => {
                    self.pos += 1;
                    if matches!(self.peek(), Some(Tok::Ident(n)) if n == "new") {
                        self.pos += 1;
                    }
                    let ty = self.dotted();
                    let mut msg = String::new();
                    if self.eat_op("(") && !self.eat_op(")") {
                        msg = self.expr()?.text(self.ed);
                        self.expect_op(")")?;
                    }
                    let short = ty.rsplit('.').next().unwrap_or(&ty).to_string();
                    return Err(Stop::Runtime(format!("{short}: {msg}")));
                }
                _ => last = self.expr()?,
            }
            if self.pos < self.toks.len() && !self.eat_op(";") {
                return Err(Stop::Compile(format!(
                    "error CS1002: ; expected near {:?}",
                    self.peek()
                )));
            }
        }
        let _ = &self.vars;
        Ok(last)
    }

    fn expr(&mut self) -> Result<V, Stop> {
        let left = self.add()?;
        for op in ["==", "!="] {
            if self.eat_op(op) {
                let right = self.add()?;
                let eq = match (&left, &right) {
                    (V::Int(a), V::Float(b)) | (V::Float(b), V::Int(a)) => (*a as f64) == *b,
                    (V::Obj(_), V::Null) | (V::Null, V::Obj(_)) => false,
                    (a, b) => a == b,
                };
                return Ok(V::Bool(if op == "==" { eq } else { !eq }));
            }
        }
        Ok(left)
    }

    fn add(&mut self) -> Result<V, Stop> {
        let mut v = self.mul()?;
        loop {
            if self.eat_op("+") {
                let r = self.mul()?;
                v = match (v, r) {
                    (V::Str(a), b) => V::Str(a + &b.text(self.ed)),
                    (a, V::Str(b)) => V::Str(a.text(self.ed) + &b),
                    (a, b) => arith(a, b, '+')?,
                };
            } else if self.eat_op("-") {
                let r = self.mul()?;
                v = arith(v, r, '-')?;
            } else {
                return Ok(v);
            }
        }
    }

    fn mul(&mut self) -> Result<V, Stop> {
        let mut v = self.unary()?;
        loop {
            let op = ['*', '/', '%']
                .into_iter()
                .find(|o| self.eat_op(&o.to_string()));
            match op {
                Some(o) => {
                    let r = self.unary()?;
                    v = arith(v, r, o)?;
                }
                None => return Ok(v),
            }
        }
    }

    /// Prefix `-` and `!`, collected iteratively so a long run of them cannot exhaust the stack.
    fn unary(&mut self) -> Result<V, Stop> {
        let mut ops = Vec::new();
        loop {
            if self.eat_op("-") {
                ops.push('-');
            } else if self.eat_op("!") {
                ops.push('!');
            } else {
                break;
            }
        }
        let mut v = self.primary()?;
        for op in ops.into_iter().rev() {
            v = match (op, v) {
                ('-', v) => arith(V::Int(0), v, '-')?,
                (_, V::Bool(b)) => V::Bool(!b),
                _ => {
                    return Err(Stop::Compile(
                        "error CS0023: Operator '!' cannot be applied here".into(),
                    ));
                }
            };
        }
        Ok(v)
    }

    fn dotted(&mut self) -> String {
        let mut parts = Vec::new();
        while let Some(Tok::Ident(n)) = self.peek().cloned() {
            parts.push(n);
            self.pos += 1;
            if !(self.peek() == Some(&Tok::Op(".".into()))
                && matches!(self.toks.get(self.pos + 1), Some(Tok::Ident(_))))
            {
                break;
            }
            self.pos += 1;
        }
        parts.join(".")
    }

    fn primary(&mut self) -> Result<V, Stop> {
        match self.peek().cloned() {
            None => Err(Stop::Compile(
                "error CS1525: Invalid expression term".into(),
            )),
            Some(Tok::Num(n)) => {
                self.pos += 1;
                let t = n.trim_end_matches(['f', 'F', 'd', 'D', 'm', 'M']);
                if let Ok(i) = t.parse::<i64>()
                    && t.len() == n.len()
                {
                    return Ok(V::Int(i));
                }
                t.parse::<f64>()
                    .map(V::Float)
                    .map_err(|_| Stop::Compile(format!("error CS1021: invalid number '{n}'")))
            }
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(V::Str(s))
            }
            Some(Tok::Op(o)) if o == "(" => {
                self.pos += 1;
                let v = self.expr()?;
                self.expect_op(")")?;
                Ok(v)
            }
            Some(Tok::Ident(_)) => self.chain(),
            Some(Tok::Op(o)) => Err(Stop::Compile(format!(
                "error CS1525: Invalid expression term '{o}'"
            ))),
        }
    }

    /// An identifier chain with calls and member access, resolved against the known API.
    fn chain(&mut self) -> Result<V, Stop> {
        let mut name = self.dotted();
        for ns in NAMESPACES {
            if let Some(rest) = name.strip_prefix(ns) {
                name = rest.to_string();
            }
        }
        match name.as_str() {
            "true" => return Ok(V::Bool(true)),
            "false" => return Ok(V::Bool(false)),
            "null" => return Ok(V::Null),
            _ => {}
        }
        if let Some((_, v)) = self.locals.iter().rev().find(|(n, _)| *n == name).cloned() {
            return self.members(v);
        }
        let mut args = Vec::new();
        let called = self.eat_op("(");
        if called && !self.eat_op(")") {
            loop {
                args.push(self.expr()?);
                if self.eat_op(")") {
                    break;
                }
                self.expect_op(",")?;
            }
        }
        let unsupported = |what: &str| Stop::Unsupported(what.to_string());
        let v = match (name.as_str(), called) {
            ("Debug.Log" | "Debug.LogWarning" | "Debug.LogError", true) => {
                let msg = args.first().map(|a| a.text(self.ed)).unwrap_or_default();
                let kind = match name.as_str() {
                    "Debug.LogWarning" => "warning",
                    "Debug.LogError" => "error",
                    _ => "log",
                };
                self.logs.push((kind.into(), msg.clone()));
                if !self.dry {
                    self.ed
                        .console
                        .push(kind, &msg, &user_stack("Snippet:Run ()", "<exec>", 1));
                }
                V::Void
            }
            ("Application.unityVersion", false) => V::Str("6000.3.5f2".into()),
            ("Application.productName", false) => V::Str(self.ed.settings.product_name()),
            ("Application.companyName", false) => V::Str(
                self.ed
                    .settings
                    .get("player", "company_name")
                    .as_str()
                    .unwrap_or("")
                    .into(),
            ),
            ("Application.isPlaying", false) => V::Bool(self.ed.play.state != PlayState::Edit),
            ("Application.dataPath", false) => V::Str(format!("{}/Assets", self.ed.project_path)),
            ("Time.timeScale", false) => V::Float(
                self.ed
                    .settings
                    .get("time", "time_scale")
                    .as_f64()
                    .unwrap_or(1.0),
            ),
            ("SceneManager.sceneCount", false) => V::Int(self.ed.world.scenes.len() as i64),
            ("SceneManager.GetActiveScene", true) => V::Scene(self.ed.world.active_scene),
            ("GameObject.Find", true) => match args.first() {
                Some(V::Str(s)) => self.ed.world.resolve(s).map(V::Obj).unwrap_or(V::Null),
                _ => {
                    return Err(Stop::Compile(
                        "error CS1503: GameObject.Find expects a string".into(),
                    ));
                }
            },
            ("Mathf.PI", false) => V::Float(std::f64::consts::PI),
            ("Mathf.Abs", true) => match args.first() {
                Some(V::Int(i)) => V::Int(i.abs()),
                Some(V::Float(f)) => V::Float(f.abs()),
                _ => {
                    return Err(Stop::Compile(
                        "error CS1503: Mathf.Abs expects a number".into(),
                    ));
                }
            },
            ("Mathf.Sqrt", true) => match args.first() {
                Some(V::Int(i)) => V::Float((*i as f64).sqrt()),
                Some(V::Float(f)) => V::Float(f.sqrt()),
                _ => {
                    return Err(Stop::Compile(
                        "error CS1503: Mathf.Sqrt expects a number".into(),
                    ));
                }
            },
            _ => {
                return Err(unsupported(&format!(
                    "{name}{}",
                    if called { "(…)" } else { "" }
                )));
            }
        };
        self.members(v)
    }

    /// `.member` accesses after a value.
    fn members(&mut self, mut v: V) -> Result<V, Stop> {
        while self.peek() == Some(&Tok::Op(".".into())) {
            self.pos += 1;
            let member = self.dotted();
            let called = self.eat_op("(");
            if called {
                self.expect_op(")")?;
            }
            v = match (&v, member.as_str()) {
                (V::Null, _) => {
                    return Err(Stop::Runtime(format!(
                        "NullReferenceException: Object reference not set to an instance of an object (accessing .{member})"
                    )));
                }
                (V::Obj(id), "name") => V::Str(
                    self.ed
                        .world
                        .get(*id)
                        .map(|o| o.name.clone())
                        .unwrap_or_default(),
                ),
                (V::Obj(id), "activeSelf") => {
                    V::Bool(self.ed.world.get(*id).is_some_and(|o| o.active))
                }
                (V::Obj(id), "tag") => V::Str(
                    self.ed
                        .world
                        .get(*id)
                        .map(|o| o.tag.clone())
                        .unwrap_or_default(),
                ),
                (V::Obj(id), "transform.position") => {
                    let p = self.ed.world.pose(*id).position;
                    V::Str(format!("({:.2}, {:.2}, {:.2})", p[0], p[1], p[2]))
                }
                (V::Scene(h), "name") => V::Str(
                    self.ed
                        .world
                        .scene(*h)
                        .map(|s| s.name())
                        .unwrap_or_default(),
                ),
                (V::Scene(h), "path") => V::Str(
                    self.ed
                        .world
                        .scene(*h)
                        .map(|s| s.path.clone())
                        .unwrap_or_default(),
                ),
                (V::Scene(h), "rootCount") => V::Int(
                    self.ed
                        .world
                        .scene(*h)
                        .map(|s| s.roots.len() as i64)
                        .unwrap_or(0),
                ),
                (V::Scene(h), "isDirty") => {
                    V::Bool(self.ed.world.scene(*h).is_some_and(|s| s.dirty))
                }
                (V::Str(s), "Length") => V::Int(s.chars().count() as i64),
                (_, "ToString") if called => V::Str(v.text(self.ed)),
                _ => return Err(Stop::Unsupported(format!("{}.{member}", v.type_name()))),
            };
        }
        Ok(v)
    }
}

fn arith(a: V, b: V, op: char) -> Result<V, Stop> {
    match (a, b) {
        (V::Int(x), V::Int(y)) => match op {
            '+' => Ok(V::Int(x.wrapping_add(y))),
            '-' => Ok(V::Int(x.wrapping_sub(y))),
            '*' => Ok(V::Int(x.wrapping_mul(y))),
            _ if y == 0 => Err(Stop::Runtime(
                "DivideByZeroException: Attempted to divide by zero.".into(),
            )),
            '/' => Ok(V::Int(x / y)),
            _ => Ok(V::Int(x % y)),
        },
        (a, b) => {
            let f = |v: &V| match v {
                V::Int(i) => Some(*i as f64),
                V::Float(f) => Some(*f),
                _ => None,
            };
            let (Some(x), Some(y)) = (f(&a), f(&b)) else {
                return Err(Stop::Compile(format!(
                    "error CS0019: Operator '{op}' cannot be applied to operands of type '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                )));
            };
            Ok(V::Float(match op {
                '+' => x + y,
                '-' => x - y,
                '*' => x * y,
                '/' => x / y,
                _ => x % y,
            }))
        }
    }
}

pub fn handle(ed: &mut Editor, _action: Option<&str>, a: Args, _ctx: &InvokeContext) -> Handled {
    let code = a.req_str("code")?.to_string();
    let compile_only = a.flag("compile_only")?;
    let strict = a.flag("strict")?;
    let no_cache = a.flag("no_cache")?;
    let cached = !no_cache && ed.exec_cache.contains(&code);
    let t0 = Instant::now();
    let toks = lex(&code);
    let compile_ms = t0.elapsed().as_millis() as i64;
    let mut timings = Map::new();
    timings.insert(
        "compile_ms".into(),
        json!(if cached { 0 } else { compile_ms }),
    );
    timings.insert("cache".into(), json!(if cached { 1 } else { 0 }));
    let toks = match toks {
        Ok(t) => t,
        Err(stop) => return Ok(stopped(stop, Vec::new(), timings)),
    };
    let t1 = Instant::now();
    let mut ev = Eval {
        ed,
        toks,
        pos: 0,
        vars: Map::new(),
        locals: Vec::new(),
        logs: Vec::new(),
        dry: compile_only,
    };
    let result = ev.program();
    let logs = std::mem::take(&mut ev.logs);
    timings.insert("load_ms".into(), json!(0));
    timings.insert("execute_ms".into(), json!(t1.elapsed().as_millis() as i64));
    let value = match result {
        Ok(v) => v,
        Err(stop) => return Ok(stopped(stop, logs, timings)),
    };
    if !no_cache {
        ev.ed.exec_cache.insert(code);
    }
    let logs_json: Vec<Value> = logs
        .iter()
        .map(|(k, m)| json!({"type": k, "message": m}))
        .collect();
    if compile_only {
        let mut inv = Invocation::ok(
            "Compiled successfully (compile_only: not executed).",
            json!({"compiled": true, "executed": false, "diagnostics": []}),
        );
        inv.timings = Some(timings);
        return Ok(inv);
    }
    if strict && logs.iter().any(|(k, _)| k == "error") {
        let mut inv = Invocation::from(HandlerOutcome::Error {
            code: "EXEC_LOGGED_ERROR".into(),
            message: "The snippet logged an error and strict mode is on.".into(),
            data: Some(json!({"logs": logs_json})),
        });
        inv.timings = Some(timings);
        return Ok(inv);
    }
    let t2 = Instant::now();
    // `data` is the snippet's return value itself, of any JSON type; none when it returned
    // null. What it logged went to the Console.
    let _ = logs_json;
    let data = value.json(ev.ed);
    timings.insert(
        "serialize_ms".into(),
        json!(t2.elapsed().as_millis() as i64),
    );
    let mut inv = Invocation::ok(
        match value {
            V::Void => "Executed (no return value).".to_string(),
            ref v => format!("Executed; returned {}.", v.type_name()),
        },
        data,
    );
    inv.timings = Some(timings);
    Ok(inv)
}

fn stopped(stop: Stop, logs: Vec<(String, String)>, timings: Map<String, Value>) -> Invocation {
    let logs: Vec<Value> = logs
        .iter()
        .map(|(k, m)| json!({"type": k, "message": m}))
        .collect();
    let (code, message, data) = match stop {
        Stop::Compile(msg) => (
            "EXEC_COMPILE_ERROR",
            format!("Compilation failed: {msg}"),
            json!({"diagnostics": [msg], "logs": logs}),
        ),
        Stop::Runtime(msg) => (
            "EXEC_RUNTIME_ERROR",
            format!("The snippet threw {msg}"),
            json!({"exception": msg, "logs": logs}),
        ),
        Stop::Unsupported(what) => (
            "EXEC_UNSUPPORTED_IN_SIMULATOR",
            format!(
                "The simulator has no C# compiler and cannot evaluate '{what}'. It evaluates literals, arithmetic, var/return, Debug.Log*, Application.*, Time.timeScale, SceneManager.GetActiveScene(), GameObject.Find and throw; run other code against a real Unity Editor."
            ),
            json!({"unsupported": what, "logs": logs}),
        ),
    };
    let mut inv = Invocation::from(HandlerOutcome::Error {
        code: code.into(),
        message,
        data: Some(data),
    });
    inv.timings = Some(timings);
    inv
}

#[cfg(test)]
mod tests {
    use super::super::testing::Harness;
    use serde_json::json;

    #[test]
    fn editor_exec_evaluates_the_supported_subset() {
        let mut h = Harness::new();
        assert_eq!(h.ok("exec", json!({"code": "return 40 + 2;"})), 42);
        assert_eq!(
            h.ok("exec", json!({"code": "var x = 3; return x * (2 + 1.5);"})),
            10.5
        );
        assert_eq!(h.ok("exec", json!({"code": "return \"a\" + 1;"})), "a1");
        assert_eq!(
            h.ok(
                "exec",
                json!({"code": "SceneManager.GetActiveScene().name"})
            ),
            "SampleScene"
        );
        assert_eq!(
            h.ok(
                "exec",
                json!({"code": "return GameObject.Find(\"Player\") != null;"})
            ),
            true
        );
        assert_eq!(
            h.ok(
                "exec",
                json!({"code": "return GameObject.Find(\"Player\").tag;"})
            ),
            "Player"
        );
        let before = h.ok("console", json!({"lines": 0}))["total_in_console"]
            .as_u64()
            .unwrap();
        let d = h.ok(
            "exec",
            json!({"code": "UnityEngine.Debug.Log(\"hello \" + 5);"}),
        );
        assert_eq!(d, serde_json::Value::Null);
        let after = h.ok("console", json!({"lines": 1, "stacktrace": "none"}));
        assert_eq!(after["entries"][0], "hello 5");
        assert_eq!(after["total_in_console"].as_u64().unwrap(), before + 1);
        // compile_only has no side effects.
        h.ok(
            "exec",
            json!({"code": "Debug.Log(\"quiet\");", "compile_only": true}),
        );
        assert_eq!(
            h.ok("console", json!({"lines": 1, "stacktrace": "none"}))["entries"][0],
            "hello 5"
        );
        assert_eq!(
            h.err("exec", json!({"code": "Debug.Log(\"x\""})),
            "EXEC_COMPILE_ERROR"
        );
        let deep = format!("return {}1{};", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(h.err("exec", json!({"code": deep})), "EXEC_COMPILE_ERROR");
        assert_eq!(
            h.ok(
                "exec",
                json!({"code": format!("return {}5;", "-".repeat(100_001))})
            ),
            -5
        );
        assert_eq!(h.ok("exec", json!({"code": "return !(1 == 2);"})), true);
        let nested = format!("return {}1{};", "(".repeat(60), ")".repeat(60));
        assert_eq!(h.ok("exec", json!({"code": nested})), 1);
        assert_eq!(
            h.err(
                "exec",
                json!({"code": "throw new System.Exception(\"bad\");"})
            ),
            "EXEC_RUNTIME_ERROR"
        );
        assert_eq!(
            h.err("exec", json!({"code": "return 1 / 0;"})),
            "EXEC_RUNTIME_ERROR"
        );
        assert_eq!(
            h.err(
                "exec",
                json!({"code": "Debug.LogError(\"e\");", "strict": true})
            ),
            "EXEC_LOGGED_ERROR"
        );
        assert_eq!(
            h.err("exec", json!({"code": "File.Delete(\"x\");"})),
            "EXEC_UNSUPPORTED_IN_SIMULATOR"
        );
        assert_eq!(
            h.call("exec", json!({"code": "return 1;"}))
                .timings
                .unwrap()["cache"],
            0
        );
        let t = h
            .call("exec", json!({"code": "return 1;"}))
            .timings
            .unwrap();
        assert_eq!(t["cache"], 1);
        for k in ["compile_ms", "load_ms", "execute_ms", "serialize_ms"] {
            assert!(t.contains_key(k), "{k}");
        }
    }
}
