//! Credential screening: does a result look like it carries a secret?
//!
//! Every Connector result passes through here, small or large (the anchor screened only
//! oversized ones, §10.18), because an agent transcript is the wrong place for a key whatever
//! its size. A flagged result is neither returned nor written to disk.
//!
//! Two kinds of evidence:
//! - **Keys.** An object key is normalized to its Unicode letters and digits, lower-cased, and is
//!   credential-shaped when it equals `token`, `authorization` or `cookie`, or ends with one of
//!   [`KEY_SUFFIXES`] (singular or plural). The key only counts when its value could hold a
//!   secret: a non-empty string, a number, or a container holding one. `"hasPassword": false`,
//!   `"password": ""` and `"secretDoor": null` do not withhold a scene dump.
//! - **Values.** Every string (object keys included) is matched, in this order, against:
//!   1. a few shapes of our own: PEM private-key headers of any algorithm, AWS-style access key
//!      ids, JWTs, our own approval tokens, `Bearer` values, vendor prefixes, JSON credential
//!      fields embedded in text, and credentials inside URLs (`scheme://user:pass@host`);
//!   2. the maintained ruleset of a well-known secret scanner (Gitleaks' ~220 rules, see
//!      `ruleset`), with its keywords, entropy thresholds and allowlists;
//!   3. keyword assignments in configuration text (`.env`, INI, YAML, connection strings, code):
//!      `DB_PASSWORD=…`, `password: "…"`, `AccountKey=…;`, `keystorePass = "…"`. Password-like
//!      keys count whatever the value looks like; weaker keys (`secret`, `api_key`, `token`…)
//!      need a value with the entropy of a generated secret;
//!   4. base64 that wraps a PEM private key.
//!
//! Findings name the place (a JSON pointer) and the kind, never the matched text.

use regex::RegexSet;
use serde_json::Value;
use std::sync::LazyLock;

/// Normalized key suffixes that mark a credential (facts from the anchor's list, plus the
/// Unity keystore fields and a few key names the anchor missed). Plurals are matched too.
pub const KEY_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "credential",
    "privatekey",
    "secretkey",
    "signingkey",
    "encryptionkey",
    "sshkey",
    "apikey",
    "apitoken",
    "accesstoken",
    "accesskey",
    "refreshtoken",
    "sessiontoken",
    "idtoken",
    "authtoken",
    "securitytoken",
    "bearertoken",
    "approvaltoken",
    "cookie",
    "connectionstring",
    "keystorepass",
    "keyaliaspass",
];

/// Normalized keys that are credentials on their own.
pub const KEY_EXACT: &[&str] = &["token", "authorization", "cookie"];

/// What made a result look sensitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingKind {
    /// A credential-shaped key holding a value.
    CredentialKey,
    PrivateKeyPem,
    AwsAccessKeyId,
    Jwt,
    ApprovalToken,
    BearerCredential,
    VendorToken,
    /// JSON such as `"password": …` embedded in a string (a config file or log line).
    EmbeddedCredentialField,
    /// `scheme://user:password@host`.
    UrlCredentials,
    /// A key assignment in configuration text (`PASSWORD=…`, `password: "…"`, `AccountKey=…`).
    CredentialAssignment,
    /// Base64 whose decoded text is a PEM private key.
    PrivateKeyPemBase64,
    /// A rule of the vendored scanner ruleset, by its id (e.g. `slack-webhook-url`).
    Ruleset(&'static str),
}

impl FindingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::CredentialKey => "credential_key",
            FindingKind::PrivateKeyPem => "private_key_pem",
            FindingKind::AwsAccessKeyId => "aws_access_key_id",
            FindingKind::Jwt => "jwt",
            FindingKind::ApprovalToken => "approval_token",
            FindingKind::BearerCredential => "bearer_credential",
            FindingKind::VendorToken => "vendor_token",
            FindingKind::EmbeddedCredentialField => "embedded_credential_field",
            FindingKind::UrlCredentials => "url_credentials",
            FindingKind::CredentialAssignment => "credential_assignment",
            FindingKind::PrivateKeyPemBase64 => "private_key_pem_base64",
            FindingKind::Ruleset(id) => id,
        }
    }
}

/// One place that looked like a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// RFC 6901 pointer into the screened value. Key segments that themselves looked like a
    /// secret are replaced by `*`, and long segments are shortened, so the pointer leaks nothing.
    pub pointer: String,
    pub kind: FindingKind,
}

/// The outcome of screening one value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Screening {
    /// The first [`MAX_FINDINGS`] findings in document order.
    pub findings: Vec<Finding>,
    /// How many findings there were in all.
    pub total: usize,
}

impl Screening {
    pub fn is_clean(&self) -> bool {
        self.total == 0
    }
}

/// How many findings are kept (the count is always exact).
pub const MAX_FINDINGS: usize = 5;

// Value shapes, in the order of VALUE_KINDS.
static VALUE_PATTERNS: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new([
        // PEM private keys: PKCS#8, RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK.
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        // AWS access key ids (long-term and temporary) and other IAM unique-id prefixes.
        r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b",
        // JWT: base64url JSON header and payload (both start `{"` = `eyJ`), then a signature.
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        // Connector approval token: base64url JSON payload `.` 43-char HMAC-SHA256 (§5.4).
        r"\beyJ[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{43}(?:[^A-Za-z0-9_.-]|$)",
        // An Authorization value: `Bearer <token>` with a token-like tail (16+ characters, so
        // prose such as "a Bearer token" is not a finding).
        r"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]{16,}=*",
        // Vendor tokens with fixed prefixes: GitHub, Slack, Google API keys, Stripe live keys.
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|[sr]k_live_[0-9A-Za-z]{20,})",
        // Webhook URLs that carry their own secret and have no rule in the ruleset.
        r"(?i)\bhttps://(?:(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,}/[A-Za-z0-9_-]{20,}|[a-z0-9-]+\.webhook\.office\.com/webhookb2/[^\s]{20,})",
        // JSON credential fields embedded in text (a config file, a log line), and the header
        // line (anchor facts). The key must be followed by `:` and a value, so C# such as
        // `PlayerPrefs.GetString("password")` in a script the agent reads is not a finding.
        r#"(?i)"(?:access_token|refresh_token|session_token|id_token|api_key|apikey|client_secret|password|private_key)"\s*:\s*(?:"[^"\s]|[0-9A-Za-z])|authorization:\s*bearer "#,
        // Credentials in a URL's authority: a password after `user:` (an `@` alone is a user).
        // Lengths (user up to 128 characters, password up to 256) are checked by
        // `url_credentials`, as for ASSIGNMENTS.
        URL_CREDENTIALS,
    ])
    .expect("credential patterns compile")
});

/// The last of VALUE_PATTERNS; a hit is confirmed by [`url_credentials`].
const URL_CREDENTIALS: &str =
    r"(?i)\b[a-z][a-z0-9+.-]{1,15}://([^\s/?#:@]+):([^\s/?#@]+)@[a-z0-9.\[\]-]";
const URL_CREDENTIALS_INDEX: usize = 8;

/// [`URL_CREDENTIALS`] with its groups, compiled when the set first reports it.
static URL_CREDENTIALS_RE: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(URL_CREDENTIALS).expect("the URL pattern compiles"));

/// Whether `s` holds a URL with a user of at most 128 characters and a password of at most 256,
/// which is what the pattern's bounded form (`{1,128}`, `{1,256}`) matched: from one start the
/// user and the password are whole runs (each class stops at the next delimiter), so a match
/// whose parts are too long is one the bounded form had no other way to make, and the search
/// goes on from the next character.
fn url_credentials(s: &str) -> bool {
    let mut at = 0;
    // Bounded: `at` moves forward every turn.
    while let Some(c) = URL_CREDENTIALS_RE.captures_at(s, at) {
        let (Some(whole), Some(user), Some(pass)) = (c.get(0), c.get(1), c.get(2)) else {
            return false;
        };
        if user.as_str().chars().count() <= 128 && pass.as_str().chars().count() <= 256 {
            return true;
        }
        at = whole.start() + s[whole.start()..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

const VALUE_KINDS: [FindingKind; 9] = [
    FindingKind::PrivateKeyPem,
    FindingKind::AwsAccessKeyId,
    FindingKind::Jwt,
    FindingKind::ApprovalToken,
    FindingKind::BearerCredential,
    FindingKind::VendorToken,
    FindingKind::VendorToken,
    FindingKind::EmbeddedCredentialField,
    FindingKind::UrlCredentials,
];

/// Key names whose value is a credential whatever it looks like (a human-chosen password).
const STRONG_KEYS: &str = r"pass(?:word|wd|phrase)|keystore_?pass|keyalias_?pass|key_?store_?password|alias_?password|accountkey|sharedaccesskey";
/// Key names whose value is a credential only when it looks generated (high entropy).
const WEAK_KEYS: &str = r"secret|client_?secret|secret_?key|api_?key|access_?key|auth_?token|access_?token|refresh_?token|private_?key|webhook_?secret|signing_?key";

/// `key = "value"` / `key: 'value'` anywhere (code, YAML, JSON-ish), and `KEY=value` alone on a
/// line (`.env`, INI, YAML), and `Key=value;` inside a connection string. Group 1 is the key's
/// credential word, group 2 the value, and the third item the longest value in characters.
///
/// The value's length is checked in code, not by a bounded repetition (`{4,256}`): a bounded
/// repetition of a Unicode class compiles to one copy of the class's automaton per count, and
/// these three took about 3.5 MB of heap compiled and searched, against 0.6 MB unbounded. The
/// answers are the same: each value class stops at the value's end (a quote, a space, a line
/// end, or `;`), so the regex's value is the whole run the bounded one needed to fit, and
/// [`assignment`] looks again where a rejected match's value starts.
static ASSIGNMENTS: LazyLock<[(regex::Regex, usize); 3]> = LazyLock::new(|| {
    let keys = format!("{STRONG_KEYS}|{WEAK_KEYS}");
    [
        (
            regex::Regex::new(&format!(
                r#"(?i)(?:^|[^a-z0-9])[\w.-]*?({keys})[\w-]*["']?[ \t]*(?::|=|:=|=>)[ \t]*["']([^"'\r\n]{{4,}})["']"#
            )),
            256,
        ),
        (
            regex::Regex::new(&format!(
                r#"(?im)^[ \t]*(?:export[ \t]+)?[\w.-]*?({keys})[\w.-]*[ \t]*[:=][ \t]*([^\s"'#;]{{4,}})[ \t]*;?[ \t]*\r?$"#
            )),
            256,
        ),
        (
            regex::Regex::new(
                r"(?i)(?:^|[;\s])(accountkey|sharedaccesskey|password|pwd)=([^;\s]{4,})",
            ),
            512,
        ),
    ]
    .map(|(r, max)| (r.expect("assignment patterns compile"), max))
});

/// A value that stands for a secret rather than being one: empty-ish, a variable reference, a
/// template, a mask, or code (a call).
fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    let lower = v.to_ascii_lowercase();
    v.len() < 4
        || v.starts_with('$')
        || v.starts_with('%')
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with("{{") && v.ends_with("}}"))
        || v.contains('(')
        || v.chars().all(|c| c == v.chars().next().unwrap_or('*'))
        || matches!(
            lower.as_str(),
            "null" | "none" | "true" | "false" | "undefined" | "empty" | "string" | "required"
        )
}

/// A value that looks generated: long enough and of high entropy, and not a file path.
fn looks_generated(value: &str) -> bool {
    value.len() >= 12
        && super::ruleset::shannon_entropy(value) >= 3.2
        && !(value.contains('/') && value.contains('.') && !value.contains('='))
}

static STRONG: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(&format!("(?i)^(?:{STRONG_KEYS}|pwd)$")).expect("key pattern compiles")
});

fn assignment(s: &str) -> bool {
    let found = |key: &str, value: &str| {
        !is_placeholder(value) && (STRONG.is_match(key) || looks_generated(value))
    };
    ASSIGNMENTS.iter().enumerate().any(|(i, (re, max))| {
        let mut at = 0;
        // Bounded: every turn moves `at` forward (past a match, or to its value's start,
        // which lies after the match's start).
        while let Some(c) = re.captures_at(s, at) {
            let (Some(whole), Some(key), Some(value)) = (c.get(0), c.get(1), c.get(2)) else {
                return false;
            };
            let chars = value.as_str().chars().count();
            if i == 2 {
                // Nothing follows the value: the bounded form took its first `max` characters.
                let cut = value
                    .as_str()
                    .char_indices()
                    .nth(*max)
                    .map_or(value.as_str(), |(b, _)| &value.as_str()[..b]);
                if found(key.as_str(), cut) {
                    return true;
                }
            } else if chars <= *max {
                if found(key.as_str(), value.as_str()) {
                    return true;
                }
            } else {
                // Too long for the bounded form, which would not have matched here; a match
                // it could find instead starts no earlier than this value.
                at = value.start();
                continue;
            }
            at = if whole.end() > whole.start() {
                whole.end()
            } else {
                whole.end() + s[whole.end()..].chars().next().map_or(1, char::len_utf8)
            };
            if at > s.len() {
                break;
            }
        }
        false
    })
}

/// Base64 (standard or URL alphabet) of `-----BEGIN`, at each of the three alignments.
const PEM_BASE64_PREFIXES: [&str; 3] = ["LS0tLS1CRUdJT", "0tLS0tQkVHSU", "tLS0tLUJFR0lO"];

/// Whether `s` holds base64 that decodes to a PEM private key.
fn base64_pem(s: &str) -> bool {
    use base64::Engine;
    for prefix in PEM_BASE64_PREFIXES {
        let Some(at) = s.find(prefix) else { continue };
        // Back up to the start of the base64 run, then decode a bounded window of it.
        let start = s[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+/=_-".contains(c)))
            .map_or(0, |i| i + 1);
        let run: String = s[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "+/=_-\r\n".contains(*c))
            .filter(|c| !c.is_ascii_whitespace())
            .take(4096)
            .collect();
        for skip in 0..4 {
            let mut chunk: String = run.chars().skip(skip).collect();
            chunk.truncate(chunk.len() / 4 * 4);
            let chunk = chunk.trim_end_matches('=');
            let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(chunk)
                .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(chunk));
            if let Ok(bytes) = decoded
                && String::from_utf8_lossy(&bytes).contains("PRIVATE KEY")
            {
                return true;
            }
        }
    }
    false
}

/// The kind of secret a string looks like, if any.
pub fn value_kind(s: &str) -> Option<FindingKind> {
    if s.len() < 8 {
        return None;
    }
    if let Some(i) = VALUE_PATTERNS.matches(s).iter().next()
        && (i != URL_CREDENTIALS_INDEX || url_credentials(s))
    {
        return Some(VALUE_KINDS[i]);
    }
    if let Some(id) = super::ruleset::find(s) {
        return Some(FindingKind::Ruleset(id));
    }
    if assignment(s) {
        return Some(FindingKind::CredentialAssignment);
    }
    if base64_pem(s) {
        return Some(FindingKind::PrivateKeyPemBase64);
    }
    None
}

/// Whether an object key names a credential (ignoring what it holds).
pub fn is_credential_key(key: &str) -> bool {
    let norm: String = key
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if KEY_EXACT.contains(&norm.as_str()) {
        return true;
    }
    let singular = norm.strip_suffix('s').unwrap_or(&norm);
    KEY_SUFFIXES
        .iter()
        .any(|s| norm.ends_with(s) || singular.ends_with(s))
}

/// Whether a value under a credential-shaped key could be the credential.
fn holds_secret(v: &Value) -> bool {
    // Bounded: a container is searched breadth-first over at most this many nodes.
    const BUDGET: usize = 10_000;
    let mut stack = vec![v];
    let mut seen = 0;
    while let Some(v) = stack.pop() {
        seen += 1;
        if seen > BUDGET {
            return true; // too big to be sure: treat as holding a secret
        }
        match v {
            Value::String(s) => {
                if !s.trim().is_empty() {
                    return true;
                }
            }
            Value::Number(_) => return true,
            Value::Null | Value::Bool(_) => {}
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => stack.extend(o.values()),
        }
    }
    false
}

/// A pointer segment as reported: masked when the key itself looks like a secret, shortened
/// when long, RFC 6901-escaped.
fn report_segment(seg: &str) -> String {
    const MAX_SEG: usize = 40;
    let seg = if value_kind(seg).is_some() {
        "*".to_string()
    } else if seg.chars().count() > MAX_SEG {
        let short: String = seg.chars().take(MAX_SEG).collect();
        format!("{short}…")
    } else {
        seg.to_string()
    };
    seg.replace('~', "~0").replace('/', "~1")
}

/// Screens a whole value. The walk is iterative (depth cannot overflow the stack) and keeps
/// one path of segments, so pointers are only built for findings.
pub fn screen(value: &Value) -> Screening {
    let mut out = Screening::default();
    let mut path: Vec<String> = Vec::new();
    let mut record = |path: &[String], kind: FindingKind| {
        out.total += 1;
        if out.findings.len() < MAX_FINDINGS {
            let pointer = path.iter().map(|s| format!("/{s}")).collect();
            out.findings.push(Finding { pointer, kind });
        }
    };
    // (depth, segment leading to the node, node); children pushed reversed for document order.
    let mut stack: Vec<(usize, Option<String>, &Value)> = vec![(0, None, value)];
    while let Some((depth, segment, v)) = stack.pop() {
        path.truncate(depth.saturating_sub(1));
        if let Some(seg) = segment {
            path.push(seg);
        }
        match v {
            Value::String(s) => {
                if let Some(kind) = value_kind(s) {
                    record(&path, kind);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((depth + 1, Some(i.to_string()), item));
                }
            }
            Value::Object(map) => {
                let mut children = Vec::with_capacity(map.len());
                for (key, child) in map {
                    let seg = report_segment(key);
                    let key_kind = value_kind(key);
                    let key_is_credential = is_credential_key(key) && holds_secret(child);
                    if key_kind.is_some() || key_is_credential {
                        path.push(seg.clone());
                        if let Some(kind) = key_kind {
                            record(&path, kind);
                        }
                        if key_is_credential {
                            record(&path, FindingKind::CredentialKey);
                        }
                        path.pop();
                    }
                    // Under a credential key the whole value is the secret; no need to look inside.
                    if !key_is_credential {
                        children.push((depth + 1, Some(seg), child));
                    }
                }
                stack.extend(children.into_iter().rev());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn anchor_pinned_keys() {
        for benign in [
            "cancellationToken",
            "tokenCount",
            "secretDoor",
            "credentialStatus",
        ] {
            assert!(!is_credential_key(benign), "{benign}");
        }
        for sensitive in [
            "token",
            "authorization",
            "api_key",
            "clientSecret",
            "databasePassword",
            "refresh_token",
            "sessionCookie",
            "connectionString",
            // beyond the anchor: plurals and Unity keystore fields
            "credentials",
            "secrets",
            "passwords",
            "AndroidKeystorePass",
            "keyaliasPass",
            "aws_secret_access_key",
            "X-Api-Key",
            "Authorization",
        ] {
            assert!(is_credential_key(sensitive), "{sensitive}");
        }
        // Unity words that merely contain "pass" stay benign.
        for benign in ["renderPass", "bypass", "compass", "passCount", "tokenizer"] {
            assert!(!is_credential_key(benign), "{benign}");
        }
    }

    #[test]
    fn credential_keys_need_a_value() {
        let s = screen(
            &json!({"data": {"hasPassword": false, "password": "", "secret": null,
            "apiKey": "  ", "tokenCount": 12, "cancellationToken": "abc"}}),
        );
        assert!(s.is_clean(), "{s:?}");
        let s = screen(&json!({"data": {"settings": {"keystorePass": "hunter22"}}}));
        assert_eq!(
            s.findings,
            vec![Finding {
                pointer: "/data/settings/keystorePass".into(),
                kind: FindingKind::CredentialKey
            }]
        );
        let s = screen(&json!({"credentials": {"user": "a", "pin": 1234}}));
        assert_eq!(s.total, 1);
        assert_eq!(s.findings[0].pointer, "/credentials");
        let s = screen(&json!({"a/b~c": {"password": 123456}}));
        assert_eq!(s.findings[0].pointer, "/a~1b~0c/password");
    }

    /// The assignment patterns check their value's length in code; the answers must be those
    /// of the bounded patterns they replaced, kept here as the oracle.
    #[test]
    fn assignments_answer_as_the_bounded_patterns_did() {
        let keys = format!("{STRONG_KEYS}|{WEAK_KEYS}");
        let bounded = [
            regex::Regex::new(&format!(
                r#"(?i)(?:^|[^a-z0-9])[\w.-]*?({keys})[\w-]*["']?[ \t]*(?::|=|:=|=>)[ \t]*["']([^"'\r\n]{{4,256}})["']"#
            ))
            .unwrap(),
            regex::Regex::new(&format!(
                r#"(?im)^[ \t]*(?:export[ \t]+)?[\w.-]*?({keys})[\w.-]*[ \t]*[:=][ \t]*([^\s"'#;]{{4,256}})[ \t]*;?[ \t]*\r?$"#
            ))
            .unwrap(),
            regex::Regex::new(
                r"(?i)(?:^|[;\s])(accountkey|sharedaccesskey|password|pwd)=([^;\s]{4,512})",
            )
            .unwrap(),
        ];
        let oracle = |s: &str| {
            bounded.iter().any(|re| {
                re.captures_iter(s).any(|c| {
                    let (Some(key), Some(value)) = (c.get(1), c.get(2)) else {
                        return false;
                    };
                    !is_placeholder(value.as_str())
                        && (STRONG.is_match(key.as_str()) || looks_generated(value.as_str()))
                })
            })
        };
        let generated = |n: usize| -> String {
            (0..n)
                .map(|i| b"aZ3kQ9xW7mP2vL5t"[(i * 7 + i / 16) % 16] as char)
                .collect()
        };
        let mut cases: Vec<String> = Vec::new();
        for n in [3, 4, 12, 255, 256, 257, 300, 511, 512, 513, 900] {
            let v = generated(n);
            let wide: String = "ä".repeat(n);
            for value in [&v, &wide] {
                cases.push(format!("password = \"{value}\""));
                cases.push(format!("api_key: '{value}'"));
                cases.push(format!("client_secret=\"{value}\" and more"));
                cases.push(format!("SECRET_KEY={value}"));
                cases.push(format!("export API_KEY={value} ;"));
                cases.push(format!("Server=x;Password={value};Database=y"));
                cases.push(format!("AccountKey={value}"));
                // A rejected long value followed (or ended) by an assignment the bounded form
                // would still find.
                cases.push(format!("a_secret=\"{value}\"password=\"hunter22\""));
                cases.push(format!("token = \"{value} password=\"Zq8v1Lk3pT9wX\""));
                cases.push(format!("SECRET_KEY={value}\nDB_PASSWORD=s3cretpass\n"));
                cases.push(format!("pwd={value} pwd=short1234"));
            }
        }
        for case in &cases {
            assert_eq!(
                assignment(case),
                oracle(case),
                "{:?}",
                case.chars().take(80).collect::<String>()
            );
        }
        // The cases do cover both answers.
        assert!(cases.iter().any(|c| assignment(c)));
        assert!(cases.iter().any(|c| !assignment(c)));
    }

    /// URL credentials: the length check in code answers as the bounded pattern did.
    #[test]
    fn url_credentials_answer_as_the_bounded_pattern_did() {
        let bounded = regex::Regex::new(
            r"(?i)\b[a-z][a-z0-9+.-]{1,15}://[^\s/?#:@]{1,128}:[^\s/?#@]{1,256}@[a-z0-9.\[\]-]",
        )
        .unwrap();
        let mut cases = Vec::new();
        for (u, p) in [
            (1, 1),
            (128, 256),
            (129, 8),
            (8, 257),
            (300, 300),
            (127, 255),
        ] {
            for ch in ["u", "é"] {
                let (user, pass) = (ch.repeat(u), ch.repeat(p));
                cases.push(format!("postgres://{user}:{pass}@db.local/x"));
                cases.push(format!("see https://{user}:{pass}@host and ftp://a:b@c"));
                cases.push(format!("x+y://{user}:{pass}@h"));
                cases.push(format!("a://{user}:{pass}://u:p@h"));
                cases.push(format!("redis://{user}:{pass}"));
                // The last character of a rejected match starts the next one.
                cases.push(format!("ab://{user}:{pass}@bb://u:pw@h"));
            }
        }
        for case in &cases {
            assert_eq!(
                url_credentials(case),
                bounded.is_match(case),
                "{:?}",
                case.chars().take(80).collect::<String>()
            );
            // And through the set, as `value_kind` asks.
            let via_set = VALUE_PATTERNS.matches(case).iter().next() == Some(URL_CREDENTIALS_INDEX)
                && url_credentials(case);
            assert_eq!(via_set, bounded.is_match(case), "{case:.80}");
        }
        assert!(cases.iter().any(|c| url_credentials(c)));
        assert!(cases.iter().any(|c| !url_credentials(c)));
    }

    #[test]
    fn value_shapes() {
        let cases: &[(&str, FindingKind)] = &[
            (
                "-----BEGIN PRIVATE KEY-----\nMIIE",
                FindingKind::PrivateKeyPem,
            ),
            (
                "x -----BEGIN RSA PRIVATE KEY----- y",
                FindingKind::PrivateKeyPem,
            ),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----",
                FindingKind::PrivateKeyPem,
            ),
            ("-----BEGIN EC PRIVATE KEY-----", FindingKind::PrivateKeyPem),
            (
                "-----BEGIN PGP PRIVATE KEY BLOCK-----",
                FindingKind::PrivateKeyPem,
            ),
            (
                "key id AKIAIOSFODNN7EXAMPLE here",
                FindingKind::AwsAccessKeyId,
            ),
            ("ASIAY34FZKBOKMUTVV7A", FindingKind::AwsAccessKeyId),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                FindingKind::Jwt,
            ),
            (
                "eyJ2ZXJzaW9uIjoxLCJvcGVyYXRpb25faWQiOiJvcF8x.dRSeQ6P2Mbbtoui-0AiAgcsHsP5z9UTSfnhYRdozz_I",
                FindingKind::ApprovalToken,
            ),
            (
                "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
                FindingKind::BearerCredential,
            ),
            (
                "curl -H 'authorization: bearer x'",
                FindingKind::EmbeddedCredentialField,
            ),
            (
                "bearer eyJhbGciOiJIUzI1NiJ9xxxxxxxx",
                FindingKind::BearerCredential,
            ),
            (
                "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
                FindingKind::VendorToken,
            ),
            ("xoxb-1234567890-abcdefghij", FindingKind::VendorToken),
            (
                "AIzaSyA-0123456789abcdefghijklmnopqrstu",
                FindingKind::VendorToken,
            ),
            (
                r#"config: {"api_key" : "x"}"#,
                FindingKind::EmbeddedCredentialField,
            ),
            (r#"{"Password":"x"}"#, FindingKind::EmbeddedCredentialField),
            (
                r#"{"refresh_token":1}"#,
                FindingKind::EmbeddedCredentialField,
            ),
        ];
        for (text, kind) in cases {
            assert_eq!(value_kind(text), Some(*kind), "{text}");
        }
        // Everyday Unity text stays clean.
        for text in [
            "Password",
            "PasswordField",
            "InputField.ContentType.Password",
            "Use a Bearer token to authenticate",
            "-----BEGIN PUBLIC KEY-----",
            "-----BEGIN CERTIFICATE-----",
            "sha256:eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99",
            "guid: 0123456789abcdef0123456789abcdef",
            "Assets/Scenes/Main.unity",
            "op_0123456789abcdef0123456789abcdef",
            "AKIA", // too short to be a key id
            "basic shapes",
            "akiaiosfodnn7example", // lower case is not an AWS key id
            r#"var p = PlayerPrefs.GetString("password");"#,
            r#"www.SetRequestHeader("Authorization", "Bearer " + token);"#,
            r#"{"password": ""}"#,
        ] {
            assert_eq!(value_kind(text), None, "{text}");
        }
    }

    #[test]
    fn findings_are_bounded_and_leak_nothing() {
        let mut items = Vec::new();
        for i in 0..20 {
            items.push(json!({"name": format!("n{i}"), "token": format!("t-{i}")}));
        }
        let s = screen(&json!({"data": {"items": items}}));
        assert_eq!(s.total, 20);
        assert_eq!(s.findings.len(), MAX_FINDINGS);
        assert_eq!(s.findings[0].pointer, "/data/items/0/token");
        assert_eq!(s.findings[4].pointer, "/data/items/4/token");
        // A secret used as a key is reported, with the key masked in every pointer.
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        let s = screen(&json!({"sessions": {jwt: {"user": "x"}}}));
        assert_eq!(s.total, 1);
        assert_eq!(s.findings[0].pointer, "/sessions/*");
        assert_eq!(s.findings[0].kind, FindingKind::Jwt);
        // Messages and hints are screened like data.
        let s = screen(
            &json!({"success": false, "message": "bad key AKIAIOSFODNN7EXAMPLE", "data": 1}),
        );
        assert_eq!(s.findings[0].pointer, "/message");
    }

    #[test]
    fn deep_values_do_not_overflow() {
        let mut v = json!("-----BEGIN PRIVATE KEY-----");
        for _ in 0..20_000 {
            v = Value::Array(vec![v]);
        }
        let s = screen(&v);
        assert_eq!(s.total, 1);
        // Dropping a 20k-deep value recursively would overflow; unwind it by hand.
        let mut cur = v;
        while let Value::Array(mut a) = cur {
            cur = a.pop().unwrap_or(Value::Null);
        }
    }
}
