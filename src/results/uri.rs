//! `hera-result://<project-hex>/<id>` handles, and the ranges a read may ask for.
//!
//! Why the handle is built from hex only: it is the one piece of the cache an agent can write to
//! us, and every byte of it ends up in a file name. Accepting exactly 64 + 32 lowercase hex
//! digits (and rebuilding the path from the parsed digits, never from the text) makes traversal,
//! percent-encoding tricks, symlink names and other projects' spellings impossible by
//! construction instead of by filtering.
//!
//! Query (optional, strict, each key at most once):
//! - `offset=N&length=M`: a byte range of the stored JSON text.
//! - `items=<JSON pointer>&offset=N&length=M`: items `N..N+M` of the array at that pointer
//!   (`items=` with an empty pointer is the root array). The pointer may be percent-encoded.

use std::fmt;

/// URI scheme of cached results.
pub const SCHEME: &str = "hera-result";
/// RFC 6570 template advertised by `resources/templates/list`.
pub const URI_TEMPLATE: &str = "hera-result://{project}/{id}{?items,offset,length}";

const PROJECT_HEX_LEN: usize = 64;
const ID_HEX_LEN: usize = 32;

/// Why a handle or range was refused. The text says what a valid one looks like.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UriError(pub String);

fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The project part of a handle: the catalog `project_id` without its `sha256:` prefix.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProjectKey(String);

impl ProjectKey {
    /// From a `project_id` (`sha256:<64 hex>`, as in the heartbeat and catalog) or its bare hex.
    pub fn from_project_id(project_id: &str) -> Result<ProjectKey, UriError> {
        let hex = project_id.strip_prefix("sha256:").unwrap_or(project_id);
        if is_lower_hex(hex, PROJECT_HEX_LEN) {
            Ok(ProjectKey(hex.to_string()))
        } else {
            Err(UriError(format!(
                "not a project id: expected `sha256:` followed by {PROJECT_HEX_LEN} lowercase hex digits, got {:?}",
                clip(project_id)
            )))
        }
    }

    /// The 64 hex digits (also the directory name under `results/`).
    pub fn as_hex(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The result part of a handle: the first 32 hex digits of the payload's SHA-256, so the name
/// itself is checked against the content on every read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResultId(String);

impl ResultId {
    /// The id of a payload whose `sha256:` hash is `sha256`.
    pub(crate) fn of_hash(sha256: &str) -> Option<ResultId> {
        let hex = sha256.strip_prefix("sha256:")?;
        is_lower_hex(hex, 64).then(|| ResultId(hex[..ID_HEX_LEN].to_string()))
    }

    pub(crate) fn parse(s: &str) -> Option<ResultId> {
        is_lower_hex(s, ID_HEX_LEN).then(|| ResultId(s.to_string()))
    }

    pub fn as_hex(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ResultId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which part of a stored result a read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadRange {
    /// `length` bytes of the stored compact JSON text from `offset`, snapped to whole UTF-8
    /// characters. The text served is a fragment, not a JSON document.
    Bytes { offset: u64, length: u64 },
    /// Items `offset..offset+length` of the JSON array at `pointer` (RFC 6901; `""` = the root),
    /// served as a JSON document `{pointer, offset, length, total, items, next}`.
    Items {
        pointer: String,
        offset: u64,
        length: u64,
    },
}

impl ReadRange {
    fn check(&self) -> Result<(), UriError> {
        let length = match self {
            ReadRange::Bytes { length, .. } | ReadRange::Items { length, .. } => *length,
        };
        if length == 0 {
            return Err(UriError("a range `length` must be at least 1".into()));
        }
        if let ReadRange::Items { pointer, .. } = self
            && !pointer.is_empty()
            && !pointer.starts_with('/')
        {
            return Err(UriError(format!(
                "`items` must be a JSON pointer such as /data/items (or empty for the root array), got {:?}",
                clip(pointer)
            )));
        }
        Ok(())
    }
}

/// A parsed handle. [`fmt::Display`] writes the canonical form (range included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultUri {
    pub project: ProjectKey,
    pub id: ResultId,
    pub range: Option<ReadRange>,
}

impl ResultUri {
    pub fn new(project: ProjectKey, id: ResultId) -> ResultUri {
        ResultUri {
            project,
            id,
            range: None,
        }
    }

    pub fn with_range(mut self, range: Option<ReadRange>) -> ResultUri {
        self.range = range;
        self
    }

    /// Strict parse; anything that is not exactly a handle this module writes is refused.
    pub fn parse(uri: &str) -> Result<ResultUri, UriError> {
        let bad = |why: &str| {
            UriError(format!(
                "not a hera-result handle ({why}): expected hera-result://<64 hex project>/<32 hex id> \
                 optionally with ?offset=N&length=M or ?items=<pointer>&offset=N&length=M, got {:?}",
                clip(uri)
            ))
        };
        let rest = uri
            .strip_prefix(SCHEME)
            .and_then(|r| r.strip_prefix("://"))
            .ok_or_else(|| bad("wrong scheme"))?;
        if rest.contains('#') {
            return Err(bad("fragments are not allowed"));
        }
        let (path, query) = match rest.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (rest, None),
        };
        let (project, id) = path.split_once('/').ok_or_else(|| bad("missing id"))?;
        if !is_lower_hex(project, PROJECT_HEX_LEN) {
            return Err(bad("project must be 64 lowercase hex digits"));
        }
        let id = ResultId::parse(id).ok_or_else(|| bad("id must be 32 lowercase hex digits"))?;
        let range = match query {
            None => None,
            Some(q) => Some(parse_query(q).map_err(|e| bad(&e))?),
        };
        if let Some(r) = &range {
            r.check()?;
        }
        Ok(ResultUri {
            project: ProjectKey(project.to_string()),
            id,
            range,
        })
    }

    /// The handle without any range.
    pub fn base(&self) -> String {
        format!("{SCHEME}://{}/{}", self.project, self.id)
    }
}

impl fmt::Display for ResultUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.base())?;
        match &self.range {
            None => Ok(()),
            Some(ReadRange::Bytes { offset, length }) => {
                write!(f, "?offset={offset}&length={length}")
            }
            Some(ReadRange::Items {
                pointer,
                offset,
                length,
            }) => write!(
                f,
                "?items={}&offset={offset}&length={length}",
                percent_encode(pointer)
            ),
        }
    }
}

fn parse_query(q: &str) -> Result<ReadRange, String> {
    let (mut items, mut offset, mut length) = (None, None, None);
    for pair in q.split('&') {
        let (key, value) = pair.split_once('=').ok_or("query parameters need `=`")?;
        let slot = match key {
            "items" => {
                if items.is_some() {
                    return Err("`items` given twice".into());
                }
                items = Some(percent_decode(value)?);
                continue;
            }
            "offset" => &mut offset,
            "length" => &mut length,
            other => return Err(format!("unknown query parameter {:?}", clip(other))),
        };
        if slot.is_some() {
            return Err(format!("`{key}` given twice"));
        }
        // Digits only: no sign, no spaces, no hex. u64 parse refuses overflow.
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{key}` must be a non-negative integer"));
        }
        *slot = Some(
            value
                .parse::<u64>()
                .map_err(|_| format!("`{key}` is too large"))?,
        );
    }
    let length = length.ok_or("a range needs `length`")?;
    let offset = offset.unwrap_or(0);
    Ok(match items {
        Some(pointer) => ReadRange::Items {
            pointer,
            offset,
            length,
        },
        None => ReadRange::Bytes { offset, length },
    })
}

fn percent_decode(s: &str) -> Result<String, String> {
    // The crate passes a malformed `%` through; a pointer we wrote never has one, so refuse it.
    let bytes = s.as_bytes();
    let malformed = bytes.iter().enumerate().any(|(i, &b)| {
        b == b'%'
            && !bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if malformed {
        return Err("bad percent-encoding in `items`".into());
    }
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .map(|c| c.into_owned())
        .map_err(|_| "`items` is not UTF-8 after percent-decoding".into())
}

/// Everything but the RFC 3986 unreserved characters and `/` is encoded, so `&`, `=`, `#`, `%`
/// and spaces in a pointer survive a round trip.
const POINTER: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

fn percent_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, POINTER).to_string()
}

/// Untrusted text quoted in an error, bounded so a huge URI cannot blow up a message.
pub(crate) fn clip(s: &str) -> String {
    const MAX: usize = 160;
    if s.len() <= MAX {
        return s.to_string();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "eddb71bd6dcc1509ea1fe8ad4aa23d4e01088ce758c86fe03005fd7107de2a99";
    const I: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn canonical_handles_round_trip() {
        let plain = format!("hera-result://{P}/{I}");
        let u = ResultUri::parse(&plain).unwrap();
        assert_eq!(u.project.as_hex(), P);
        assert_eq!(u.id.as_hex(), I);
        assert_eq!(u.range, None);
        assert_eq!(u.to_string(), plain);

        let bytes = format!("{plain}?offset=10&length=20");
        let u = ResultUri::parse(&bytes).unwrap();
        assert_eq!(
            u.range,
            Some(ReadRange::Bytes {
                offset: 10,
                length: 20
            })
        );
        assert_eq!(u.to_string(), bytes);

        let items =
            ResultUri::new(u.project.clone(), u.id.clone()).with_range(Some(ReadRange::Items {
                pointer: "/data/a b&c=d~1e".into(),
                offset: 3,
                length: 4,
            }));
        let text = items.to_string();
        assert_eq!(
            text,
            format!("{plain}?items=/data/a%20b%26c%3Dd~1e&offset=3&length=4")
        );
        assert_eq!(ResultUri::parse(&text).unwrap(), items);
        // Root array, offset defaulting to 0.
        let root = ResultUri::parse(&format!("{plain}?items=&length=5")).unwrap();
        assert_eq!(
            root.range,
            Some(ReadRange::Items {
                pointer: String::new(),
                offset: 0,
                length: 5
            })
        );
    }

    #[test]
    fn traversal_and_lookalikes_are_refused() {
        let bad = [
            format!("hera-result://{P}/../{I}"),
            format!("hera-result://{P}/..%2f..%2fetc%2fpasswd"),
            format!("hera-result://../../{I}"),
            format!("hera-result://{P}/{I}/extra"),
            format!("hera-result://{P}/{I}.hres"),
            format!("hera-result://{}/{I}", P.to_uppercase()),
            format!("hera-result://{P}/{}", I.to_uppercase()),
            format!("hera-result://cache/{P}/{I}"),
            format!("hera-result://{P}//{I}"),
            format!("hera-result://{P}/%30123456789abcdef0123456789abcde"),
            format!("hera-result:{P}/{I}"),
            format!("HERA-RESULT://{P}/{I}"),
            format!("file:///{P}/{I}"),
            format!("hera-result://{P}/{I}#frag"),
            format!("hera-result://{P}/{I}?offset=1"),
            format!("hera-result://{P}/{I}?offset=-1&length=2"),
            format!("hera-result://{P}/{I}?offset=+1&length=2"),
            format!("hera-result://{P}/{I}?length=0"),
            format!("hera-result://{P}/{I}?length=1&length=2"),
            format!("hera-result://{P}/{I}?length=99999999999999999999999"),
            format!("hera-result://{P}/{I}?path=/etc&length=2"),
            format!("hera-result://{P}/{I}?items=data&length=2"),
            format!("hera-result://{P}/{I}?items=%zz&length=2"),
            format!("hera-result://{P}/{I}?items=%ff&length=2"),
            "hera-result://".to_string(),
            String::new(),
        ];
        for uri in &bad {
            let err = ResultUri::parse(uri).expect_err(uri);
            assert!(!err.0.is_empty());
        }
        // The message shows what a valid handle looks like.
        let e = ResultUri::parse("hera-result://x/y").unwrap_err();
        assert!(
            e.0.contains("hera-result://<64 hex project>/<32 hex id>"),
            "{e}"
        );
    }

    #[test]
    fn project_keys_from_ids() {
        let k = ProjectKey::from_project_id(&format!("sha256:{P}")).unwrap();
        assert_eq!(k.as_hex(), P);
        assert_eq!(ProjectKey::from_project_id(P).unwrap(), k);
        assert!(ProjectKey::from_project_id("sha256:abc").is_err());
        assert!(ProjectKey::from_project_id("../../etc").is_err());
        assert!(ProjectKey::from_project_id(&format!("md5:{P}")).is_err());
    }

    #[test]
    fn ids_come_from_hashes() {
        let h = format!("sha256:{P}");
        assert_eq!(ResultId::of_hash(&h).unwrap().as_hex(), &P[..32]);
        assert!(ResultId::of_hash(P).is_none());
        assert!(ResultId::of_hash("sha256:12").is_none());
    }
}
