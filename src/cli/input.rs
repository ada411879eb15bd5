//! `call --args` from a file (`@path`) or stdin (`-`), read with a bound.
//!
//! The Connector refuses a `/command` body over 1 MiB (`connector-contract/README.md`, limits),
//! so arguments larger than that can never be sent. Reading stops one byte past the limit: a
//! mistaken `@/dev/zero`, a FIFO that never ends or a multi-gigabyte log costs 1 MiB of memory
//! and an immediate, clear error instead of growing without end.

use hera_connector_contract::wire::MAX_COMMAND_BODY;
use std::io::Read;
use std::path::Path;

/// The most bytes of `--args` text accepted: the Connector's `/command` body limit (the
/// arguments travel inside that body with a little metadata, so this is an upper bound).
pub const MAX_ARGS_BYTES: usize = MAX_COMMAND_BODY;

/// Why `--args` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ArgsInputError {
    #[error(
        "--args from {source_name} is over {limit} bytes, the Unity Connector's request body limit \
         (1 MiB); send less data per call (split the work, or reference assets by path)"
    )]
    TooLarge { source_name: String, limit: usize },
    #[error("cannot read --args from {source_name}: {reason}")]
    Unreadable { source_name: String, reason: String },
    #[error("--args from {source_name} is not UTF-8 text; pass a JSON object")]
    NotText { source_name: String },
}

/// Where `--args` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsSource<'a> {
    /// `-`
    Stdin,
    /// `@path`
    File(&'a Path),
    /// Anything else: the JSON text itself.
    Inline(&'a str),
}

impl<'a> ArgsSource<'a> {
    /// Interprets the `--args` value as the command line documents it.
    pub fn parse(spec: &'a str) -> ArgsSource<'a> {
        match spec {
            "-" => ArgsSource::Stdin,
            s if s.starts_with('@') => ArgsSource::File(Path::new(&s[1..])),
            s => ArgsSource::Inline(s),
        }
    }
}

/// Reads the `--args` text, never more than [`MAX_ARGS_BYTES`] (+1 to detect the excess).
pub fn read_args_text(source: &ArgsSource<'_>) -> Result<String, ArgsInputError> {
    match source {
        ArgsSource::Inline(text) => {
            if text.len() > MAX_ARGS_BYTES {
                return Err(ArgsInputError::TooLarge {
                    source_name: "the command line".into(),
                    limit: MAX_ARGS_BYTES,
                });
            }
            Ok(text.to_string())
        }
        ArgsSource::Stdin => read_limited(std::io::stdin().lock(), "stdin", MAX_ARGS_BYTES),
        ArgsSource::File(path) => {
            let name = path.display().to_string();
            let file = std::fs::File::open(path).map_err(|e| ArgsInputError::Unreadable {
                source_name: name.clone(),
                reason: e.to_string(),
            })?;
            read_limited(file, &name, MAX_ARGS_BYTES)
        }
    }
}

/// Reads at most `limit` bytes of UTF-8 from `reader`.
pub fn read_limited(
    reader: impl Read,
    source_name: &str,
    limit: usize,
) -> Result<String, ArgsInputError> {
    let mut buf = Vec::new();
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| ArgsInputError::Unreadable {
            source_name: source_name.into(),
            reason: e.to_string(),
        })?;
    if buf.len() > limit {
        return Err(ArgsInputError::TooLarge {
            source_name: source_name.into(),
            limit,
        });
    }
    String::from_utf8(buf).map_err(|_| ArgsInputError::NotText {
        source_name: source_name.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_forms() {
        assert_eq!(ArgsSource::parse("-"), ArgsSource::Stdin);
        assert_eq!(
            ArgsSource::parse("@/tmp/a.json"),
            ArgsSource::File(Path::new("/tmp/a.json"))
        );
        assert_eq!(ArgsSource::parse("{}"), ArgsSource::Inline("{}"));
    }

    #[test]
    fn an_endless_file_stops_at_the_limit() {
        // `@/dev/zero` used to grow without limit.
        match read_args_text(&ArgsSource::File(Path::new("/dev/zero"))) {
            Err(ArgsInputError::TooLarge { limit, .. }) => assert_eq!(limit, MAX_ARGS_BYTES),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sizes_at_and_over_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let at = tmp.path().join("at.json");
        let body = format!("{{\"s\":\"{}\"}}", "a".repeat(MAX_ARGS_BYTES - 8));
        assert_eq!(body.len(), MAX_ARGS_BYTES);
        std::fs::write(&at, &body).unwrap();
        assert_eq!(read_args_text(&ArgsSource::File(&at)).unwrap(), body);
        let over = tmp.path().join("over.json");
        std::fs::write(&over, format!("{body} ")).unwrap();
        let e = read_args_text(&ArgsSource::File(&over)).unwrap_err();
        assert!(e.to_string().contains("request body limit"), "{e}");
        let e = read_args_text(&ArgsSource::File(&tmp.path().join("missing"))).unwrap_err();
        assert!(matches!(e, ArgsInputError::Unreadable { .. }));
        assert!(matches!(
            read_limited(&[0xff, 0xfe][..], "x", 10),
            Err(ArgsInputError::NotText { .. })
        ));
        let long = "x".repeat(MAX_ARGS_BYTES + 1);
        assert!(read_args_text(&ArgsSource::Inline(&long)).is_err());
    }
}
