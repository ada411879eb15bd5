//! Which tools the server publishes: the three compact tools (default), or the Editor's own
//! tools of one profile as native MCP tools (`--exposure profile --profile <p>`, or
//! `--exposure full`, which is the `full` profile).
//!
//! Resolved once at startup from flags and environment, before anything else runs, so every
//! misconfiguration is a startup error on stderr with a non-zero exit (nothing on stdout).

use crate::catalog::profiles::{SUPPORTED_PROFILES, is_supported_profile};

/// The profile used when `--profile` and `HERA_MCP_PROFILE` are both absent or empty.
pub const DEFAULT_PROFILE: &str = "core";

/// The profile whose tools run arbitrary code in the Editor.
pub const ADVANCED_PROFILE: &str = "advanced";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exposure {
    /// tool_search, tool_describe and tool_call over the whole catalog.
    Compact,
    /// One MCP tool per strict catalog tool of `profile`.
    Native { profile: String },
}

impl Exposure {
    pub fn is_native(&self) -> bool {
        matches!(self, Exposure::Native { .. })
    }

    pub fn profile(&self) -> Option<&str> {
        match self {
            Exposure::Native { profile } => Some(profile),
            Exposure::Compact => None,
        }
    }
}

fn normalized(v: Option<&str>) -> Option<String> {
    v.map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
}

/// Resolves `--exposure` and `--profile` (already merged with their environment variables).
///
/// The profile is checked in every exposure, as the Go adapter does: a typo fails at startup
/// rather than silently serving something else. `advanced` needs `allow_arbitrary_code`.
/// `full` exposure always serves the `full` profile, whatever `--profile` says.
pub fn resolve(
    exposure: Option<&str>,
    profile: Option<&str>,
    allow_arbitrary_code: bool,
) -> Result<Exposure, String> {
    let exposure = normalized(exposure).unwrap_or_else(|| "compact".into());
    let profile = normalized(profile).unwrap_or_else(|| DEFAULT_PROFILE.into());
    if !matches!(exposure.as_str(), "compact" | "profile" | "full") {
        return Err(format!(
            "unsupported MCP exposure {exposure:?}; use compact (default), profile or full"
        ));
    }
    if !is_supported_profile(&profile) {
        return Err(format!(
            "unsupported MCP profile {profile:?}; use one of {} (--profile or HERA_MCP_PROFILE)",
            SUPPORTED_PROFILES.join(", ")
        ));
    }
    if profile == ADVANCED_PROFILE && exposure != "full" && !allow_arbitrary_code {
        return Err(
            "the advanced profile exposes tools that run arbitrary code in the Unity Editor; \
             start the server with --allow-arbitrary-code (or HERA_MCP_ALLOW_ARBITRARY_CODE=1) \
             to allow them, or choose another profile"
                .into(),
        );
    }
    Ok(match exposure.as_str() {
        "compact" => Exposure::Compact,
        "full" => Exposure::Native {
            profile: "full".into(),
        },
        _ => Exposure::Native { profile },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(p: &str) -> Exposure {
        Exposure::Native { profile: p.into() }
    }

    #[test]
    fn defaults_and_spellings() {
        assert_eq!(resolve(None, None, false), Ok(Exposure::Compact));
        assert_eq!(resolve(Some(" "), Some(""), false), Ok(Exposure::Compact));
        assert_eq!(resolve(Some("Profile"), None, false), Ok(native("core")));
        assert_eq!(
            resolve(Some("profile"), Some(" Scene "), false),
            Ok(native("scene"))
        );
        assert_eq!(resolve(Some("full"), Some("ui"), false), Ok(native("full")));
        // full ignores the profile, so advanced there needs no permission (it is not served).
        assert_eq!(
            resolve(Some("full"), Some("advanced"), false),
            Ok(native("full"))
        );
    }

    #[test]
    fn refusals_say_what_to_do() {
        let e = resolve(Some("native"), None, false).unwrap_err();
        assert!(e.contains("unsupported MCP exposure"), "{e}");
        let e = resolve(Some("profile"), Some("sceen"), false).unwrap_err();
        assert!(
            e.contains("unsupported MCP profile") && e.contains("scene"),
            "{e}"
        );
        let e = resolve(Some("compact"), Some("bogus"), false).unwrap_err();
        assert!(e.contains("unsupported MCP profile"), "{e}");
        for exposure in ["profile", "compact"] {
            let e = resolve(Some(exposure), Some("advanced"), false).unwrap_err();
            assert!(e.contains("--allow-arbitrary-code"), "{e}");
        }
        assert_eq!(
            resolve(Some("profile"), Some("advanced"), true),
            Ok(native("advanced"))
        );
    }
}
