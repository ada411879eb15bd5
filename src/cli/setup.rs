//! `setup <client>`: writes (or with `--remove` takes out) this binary's entry in an MCP client's
//! own configuration file, and reads those files back for `doctor`.
//!
//! Each client keeps its servers in its own file and shape ([`Client::config_path`],
//! [`Client::shape`]). The edit is a merge: every other server and every other key, in the
//! file and inside our entry, survives; only `type`/`command`/`args` and the two environment
//! variables we own (`HERA_MCP_ENABLED`, `HERA_AGENT_PROJECT`) are set. JSON is read with the
//! contract crate's order-preserving parser (so other keys keep their order and number
//! literals; `serde_json` without `preserve_order` would sort them) and written back with the
//! file's own indentation; TOML goes through `toml_edit`, which keeps comments and layout.
//!
//! Safety rules: a file that does not parse is never written; an entry of the same name that
//! runs another program is not replaced without `--force`; a changed file is first copied to a
//! timestamped backup beside it; the new text replaces the old atomically (`platform::fs`); an
//! unchanged entry writes nothing at all, so running `setup` twice is a no-op.

use super::exit;
use super::output::Failure;
use crate::platform::Os;
use crate::platform::dirs::{FolderEnv, app_config_dir, user_home};
use crate::platform::path::{current_exe, is_absolute, program_name, same_command_path};
use clap::{Args, ValueEnum};
use hera_connector_contract::canonical::{self, Json};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The program name an entry must run to count as ours.
pub const PROGRAM: &str = "hera-agent-unity";
/// The environment variables `setup` owns inside an entry.
pub const ENABLE_VAR: &str = "HERA_MCP_ENABLED";
pub const PROJECT_VAR: &str = "HERA_AGENT_PROJECT";

/// The MCP clients `setup` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Client {
    /// Claude Code (user scope, `~/.claude.json`).
    ClaudeCode,
    /// Claude Desktop (`claude_desktop_config.json`).
    ClaudeDesktop,
    /// Cursor (`~/.cursor/mcp.json`).
    Cursor,
    /// VS Code (the user profile's `mcp.json`).
    #[value(alias = "code")]
    Vscode,
    /// Codex (`~/.codex/config.toml`, or `$CODEX_HOME/config.toml`).
    Codex,
    /// Windsurf (`~/.codeium/windsurf/mcp_config.json`).
    Windsurf,
}

/// How a client's file holds its servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A JSON object with the servers under `key`; `typed` entries carry `"type": "stdio"`.
    Json { key: &'static str, typed: bool },
    /// TOML tables `[mcp_servers.<name>]`.
    Toml,
}

impl Client {
    pub const ALL: [Client; 6] = [
        Client::ClaudeCode,
        Client::ClaudeDesktop,
        Client::Cursor,
        Client::Vscode,
        Client::Codex,
        Client::Windsurf,
    ];

    /// The command-line name (`claude-code`).
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Codex => "codex",
            Client::Windsurf => "windsurf",
        }
    }

    /// The `doctor` check id for this client.
    pub fn check_id(self) -> &'static str {
        match self {
            Client::ClaudeCode => "client_claude_code",
            Client::ClaudeDesktop => "client_claude_desktop",
            Client::Cursor => "client_cursor",
            Client::Vscode => "client_vscode",
            Client::Codex => "client_codex",
            Client::Windsurf => "client_windsurf",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Codex => "Codex",
            Client::Windsurf => "Windsurf",
        }
    }

    pub fn shape(self) -> Shape {
        match self {
            Client::Vscode => Shape::Json {
                key: "servers",
                typed: true,
            },
            Client::ClaudeCode => Shape::Json {
                key: "mcpServers",
                typed: true,
            },
            Client::ClaudeDesktop | Client::Cursor | Client::Windsurf => Shape::Json {
                key: "mcpServers",
                typed: false,
            },
            Client::Codex => Shape::Toml,
        }
    }

    /// Where the client reads its user-wide MCP servers on `loc`'s platform.
    pub fn config_path(self, loc: &Locations) -> PathBuf {
        let home = &loc.home;
        let app = || app_config_dir(loc.os, home, &loc.folders);
        match self {
            Client::ClaudeCode => loc
                .claude_config_dir
                .clone()
                .unwrap_or_else(|| home.clone())
                .join(".claude.json"),
            Client::ClaudeDesktop => app().join("Claude").join("claude_desktop_config.json"),
            Client::Cursor => home.join(".cursor").join("mcp.json"),
            Client::Vscode => app().join("Code").join("User").join("mcp.json"),
            Client::Codex => loc
                .codex_home
                .clone()
                .unwrap_or_else(|| home.join(".codex"))
                .join("config.toml"),
            Client::Windsurf => home
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
        }
    }
}

/// Everything the configuration locations depend on, captured once (so tests can build one).
#[derive(Debug, Clone)]
pub struct Locations {
    pub os: Os,
    pub home: PathBuf,
    pub folders: FolderEnv,
    /// `CLAUDE_CONFIG_DIR`: Claude Code keeps `.claude.json` there instead of in home.
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME`: Codex keeps `config.toml` there instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
}

impl Locations {
    /// From this process's environment; `None` when no home directory can be found.
    pub fn from_env() -> Option<Locations> {
        let abs = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        Some(Locations {
            os: Os::host(),
            home: user_home()?,
            folders: FolderEnv::from_env(),
            claude_config_dir: abs("CLAUDE_CONFIG_DIR"),
            codex_home: abs("CODEX_HOME"),
        })
    }
}

/// `hera-agent-unity setup <client>`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Writes this binary's absolute path, `mcp --transport stdio` and HERA_MCP_ENABLED=1 into the
client's own configuration file, merged with what is there (other servers and keys are kept).
A pin from --project (or HERA_AGENT_PROJECT) is written as HERA_AGENT_PROJECT. Running it again
changes nothing; a changed file is backed up beside itself first (<file>.hera-backup-<ms>).

FILES (Linux / macOS / Windows):
  claude-code     ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json)
  claude-desktop  ~/.config/Claude / ~/Library/Application Support/Claude / %APPDATA%\\Claude,
                  claude_desktop_config.json
  cursor          ~/.cursor/mcp.json
  vscode          ~/.config/Code/User / ~/Library/Application Support/Code/User /
                  %APPDATA%\\Code\\User, mcp.json
  codex           ~/.codex/config.toml (or $CODEX_HOME/config.toml)
  windsurf        ~/.codeium/windsurf/mcp_config.json

EXAMPLES:
  hera-agent-unity setup claude-code
  hera-agent-unity setup cursor --project ~/Unity/MyGame --dry-run
  hera-agent-unity setup codex --exposure profile --profile scene
  hera-agent-unity setup vscode --remove
  hera-agent-unity setup vscode --config .vscode/mcp.json     (a workspace file)
  hera-agent-unity setup claude-code --config .mcp.json       (a project-scope file)")]
pub struct SetupArgs {
    /// The MCP client to configure.
    #[arg(value_enum)]
    pub client: Client,
    /// Edit this file instead of the client's usual configuration file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Name of the server entry.
    #[arg(long, default_value = "unity", value_name = "NAME")]
    pub name: String,
    /// Exposure the client gets: compact (three tools, the default), profile or full.
    #[arg(long, value_parser = ["compact", "profile", "full"])]
    pub exposure: Option<String>,
    /// With --exposure profile: core, scene, assets, ui, diagnostics, testing, custom, full or
    /// advanced (advanced needs --allow-arbitrary-code).
    #[arg(long, value_name = "PROFILE")]
    pub profile: Option<String>,
    /// Let the client's server expose and run tools that execute arbitrary code.
    #[arg(long)]
    pub allow_arbitrary_code: bool,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Take the entry out again (only if it runs hera-agent-unity, unless --force).
    #[arg(long)]
    pub remove: bool,
    /// Replace or remove an entry of that name even if it runs another program.
    #[arg(long)]
    pub force: bool,
}

/// The server entry `setup` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    pub command: String,
    pub args: Vec<String>,
    /// The pin, when one was asked for; `HERA_MCP_ENABLED=1` is always written.
    pub project: Option<String>,
}

impl ServerEntry {
    /// Our variables as they must end up in the entry's environment.
    fn owned_env(&self) -> Vec<(&'static str, String)> {
        let mut v = vec![(ENABLE_VAR, "1".to_string())];
        if let Some(p) = &self.project {
            v.push((PROJECT_VAR, p.clone()));
        }
        v
    }
}

/// What an edit did to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The entry was added (the file may be new).
    Added,
    /// An entry of that name existed and now holds our values.
    Updated,
    /// The entry already held exactly our values: nothing to write.
    Unchanged,
    Removed,
    /// `--remove` with no such entry: nothing to write.
    Absent,
}

/// Why an edit was refused. Nothing is ever written when one of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("{path} is not valid {format}: {reason}")]
    Unparseable {
        path: String,
        format: &'static str,
        reason: String,
    },
    #[error("{path}: {what}")]
    WrongShape { path: String, what: String },
    #[error(
        "{path} already has a server named {name:?} that runs {command:?}, not {PROGRAM}; it was left as it is"
    )]
    ForeignEntry {
        path: String,
        name: String,
        command: String,
    },
}

impl EditError {
    fn code(&self) -> &'static str {
        match self {
            EditError::Unparseable { .. } => "CONFIG_UNPARSEABLE",
            EditError::WrongShape { .. } => "CONFIG_UNEXPECTED_SHAPE",
            EditError::ForeignEntry { .. } => "CONFIG_ENTRY_NOT_OURS",
        }
    }
}

/// One edit, computed without touching the disk.
#[derive(Debug, Clone)]
pub struct Edit {
    pub change: Change,
    /// The file's new text (equal to the old one when nothing changes).
    pub text: String,
}

/// Computes the new text of a client configuration. `before` is `None` when the file does not
/// exist; `entry` is `None` for `--remove`.
pub fn edit(
    shape: Shape,
    path: &str,
    before: Option<&str>,
    name: &str,
    entry: Option<&ServerEntry>,
    force: bool,
) -> Result<Edit, EditError> {
    match shape {
        Shape::Json { key, typed } => json_edit(path, before, key, typed, name, entry, force),
        Shape::Toml => toml_edit_text(path, before, name, entry, force),
    }
}

// ---------------------------------------------------------------------------------------------
// JSON

fn get<'a>(m: &'a [(String, Json)], k: &str) -> Option<&'a Json> {
    m.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v)
}

/// Sets `k` in place (keeping its position) or appends it; a repeated key collapses to one.
fn set(m: &mut Vec<(String, Json)>, k: &str, v: Json) {
    match m.iter().position(|(key, _)| key == k) {
        Some(i) => {
            m[i].1 = v;
            let mut seen = false;
            m.retain(|(key, _)| {
                if key != k {
                    return true;
                }
                let keep = !seen;
                seen = true;
                keep
            });
        }
        None => m.push((k.to_string(), v)),
    }
}

fn remove(m: &mut Vec<(String, Json)>, k: &str) {
    m.retain(|(key, _)| key != k);
}

fn json_command(v: &Json) -> Option<&str> {
    match v {
        Json::Object(m) => match get(m, "command") {
            Some(Json::String(s)) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// Whether an entry runs this program (any copy of it), on this platform's spelling rules.
pub fn runs_us(command: &str) -> bool {
    program_name(command, Os::host()) == PROGRAM
}

/// Where a parse error is, as `line L, column C`.
fn position(text: &str, offset: usize) -> String {
    let upto = &text.as_bytes()[..offset.min(text.len())];
    let line = upto.iter().filter(|b| **b == b'\n').count() + 1;
    let col = upto.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    format!("line {line}, column {col}")
}

/// Parses a client's JSON file: an empty (or whitespace-only) file counts as `{}`, as clients
/// treat it; a UTF-8 BOM is tolerated and kept.
fn parse_json_config(path: &str, text: &str) -> Result<Json, EditError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.trim().is_empty() {
        return Ok(Json::Object(Vec::new()));
    }
    canonical::parse(body).map_err(|e| EditError::Unparseable {
        path: path.to_string(),
        format: "JSON",
        reason: format!(
            "{} at {} (comments and trailing commas are not JSON)",
            e.reason,
            position(body, e.offset)
        ),
    })
}

fn json_edit(
    path: &str,
    before: Option<&str>,
    key: &'static str,
    typed: bool,
    name: &str,
    entry: Option<&ServerEntry>,
    force: bool,
) -> Result<Edit, EditError> {
    let text = before.unwrap_or("");
    let mut root = match parse_json_config(path, text)? {
        Json::Object(m) => m,
        _ => {
            return Err(EditError::WrongShape {
                path: path.into(),
                what: "the top level is not a JSON object".into(),
            });
        }
    };
    let mut servers = match get(&root, key) {
        None => Vec::new(),
        Some(Json::Object(m)) => m.clone(),
        Some(_) => {
            return Err(EditError::WrongShape {
                path: path.into(),
                what: format!("\"{key}\" is not an object of servers"),
            });
        }
    };
    let existing = get(&servers, name).cloned();
    if let Some(old) = &existing
        && !force
    {
        let command = json_command(old).unwrap_or("");
        if !runs_us(command) {
            return Err(EditError::ForeignEntry {
                path: path.into(),
                name: name.into(),
                command: command.into(),
            });
        }
    }
    let change = match entry {
        None => {
            if existing.is_none() {
                return Ok(unchanged(text, Change::Absent));
            }
            remove(&mut servers, name);
            Change::Removed
        }
        Some(e) => {
            let merged = merged_json_entry(existing.as_ref(), e, typed);
            if existing.as_ref() == Some(&merged) {
                return Ok(unchanged(text, Change::Unchanged));
            }
            set(&mut servers, name, merged);
            if existing.is_some() {
                Change::Updated
            } else {
                Change::Added
            }
        }
    };
    set(&mut root, key, Json::Object(servers));
    let mut out = String::new();
    if text.starts_with('\u{feff}') {
        out.push('\u{feff}');
    }
    write_json(&Json::Object(root), &detect_indent(text), 0, &mut out);
    out.push('\n');
    Ok(Edit { change, text: out })
}

fn unchanged(text: &str, change: Change) -> Edit {
    Edit {
        change,
        text: text.to_string(),
    }
}

fn merged_json_entry(existing: Option<&Json>, e: &ServerEntry, typed: bool) -> Json {
    let mut m = match existing {
        Some(Json::Object(m)) => m.clone(),
        _ => Vec::new(),
    };
    if typed {
        set(&mut m, "type", Json::String("stdio".into()));
    }
    set(&mut m, "command", Json::String(e.command.clone()));
    set(
        &mut m,
        "args",
        Json::Array(e.args.iter().cloned().map(Json::String).collect()),
    );
    let mut env = match get(&m, "env") {
        Some(Json::Object(env)) => env.clone(),
        _ => Vec::new(),
    };
    remove(&mut env, PROJECT_VAR);
    for (k, v) in e.owned_env() {
        set(&mut env, k, Json::String(v));
    }
    set(&mut m, "env", Json::Object(env));
    Json::Object(m)
}

/// The indentation the file already uses (the first indented line's leading whitespace).
fn detect_indent(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|ws| !ws.is_empty())
        .unwrap_or("  ")
        .to_string()
}

fn write_json(v: &Json, indent: &str, level: usize, out: &mut String) {
    let pad = |out: &mut String, n: usize| {
        for _ in 0..n {
            out.push_str(indent);
        }
    };
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => out.push_str(&serde_json::to_string(s).expect("a string serializes")),
        Json::Array(items) if items.is_empty() => out.push_str("[]"),
        Json::Object(members) if members.is_empty() => out.push_str("{}"),
        // A short list of plain values stays on one line (`"args": ["-y", "pkg"]`), the way
        // people and the clients' own documentation write them, so a re-written file stays close
        // to its original.
        Json::Array(items) if inline_array(items).is_some_and(|s| s.len() <= 80) => {
            out.push_str(&inline_array(items).expect("checked"));
        }
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, level + 1);
                write_json(item, indent, level + 1, out);
            }
            out.push('\n');
            pad(out, level);
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, level + 1);
                out.push_str(&serde_json::to_string(k).expect("a string serializes"));
                out.push_str(": ");
                write_json(item, indent, level + 1, out);
            }
            out.push('\n');
            pad(out, level);
            out.push('}');
        }
    }
}

fn inline_array(items: &[Json]) -> Option<String> {
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        parts.push(match item {
            Json::Null => "null".to_string(),
            Json::Bool(b) => b.to_string(),
            Json::Number(n) => n.clone(),
            Json::String(s) => serde_json::to_string(s).ok()?,
            Json::Array(_) | Json::Object(_) => return None,
        });
    }
    Some(format!("[{}]", parts.join(", ")))
}

// ---------------------------------------------------------------------------------------------
// TOML (Codex)

const TOML_SERVERS: &str = "mcp_servers";

fn toml_strings(item: Option<&toml_edit::Item>) -> Option<Vec<String>> {
    let arr = item?.as_array()?;
    arr.iter().map(|v| v.as_str().map(str::to_string)).collect()
}

fn toml_env(item: Option<&toml_edit::Item>) -> Vec<(String, String)> {
    item.and_then(|i| i.as_table_like())
        .map(|t| {
            t.iter()
                .filter_map(|(k, v)| Some((k.to_string(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

fn toml_edit_text(
    path: &str,
    before: Option<&str>,
    name: &str,
    entry: Option<&ServerEntry>,
    force: bool,
) -> Result<Edit, EditError> {
    use toml_edit::{DocumentMut, InlineTable, Item, Table, value};
    let text = before.unwrap_or("");
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| EditError::Unparseable {
                path: path.into(),
                format: "TOML",
                reason: e.to_string().trim().replace('\n', " "),
            })?;
    let wrong = |what: String| EditError::WrongShape {
        path: path.into(),
        what,
    };
    if doc.get(TOML_SERVERS).is_none() {
        if entry.is_none() {
            return Ok(unchanged(text, Change::Absent));
        }
        let mut t = Table::new();
        // No bare `[mcp_servers]` header: the entry's own `[mcp_servers.<name>]` is enough.
        t.set_implicit(true);
        doc.insert(TOML_SERVERS, Item::Table(t));
    }
    let servers = doc[TOML_SERVERS]
        .as_table_like_mut()
        .ok_or_else(|| wrong(format!("`{TOML_SERVERS}` is not a table of servers")))?;
    let existing_cmd = match servers.get(name) {
        None => None,
        Some(item) => Some(
            item.as_table_like()
                .ok_or_else(|| wrong(format!("`{TOML_SERVERS}.{name}` is not a table")))?
                .get("command")
                .and_then(|c| c.as_str())
                .unwrap_or("")
                .to_string(),
        ),
    };
    if let Some(cmd) = &existing_cmd
        && !force
        && !runs_us(cmd)
    {
        return Err(EditError::ForeignEntry {
            path: path.into(),
            name: name.into(),
            command: cmd.clone(),
        });
    }
    let Some(e) = entry else {
        if existing_cmd.is_none() {
            return Ok(unchanged(text, Change::Absent));
        }
        servers.remove(name);
        return Ok(Edit {
            change: Change::Removed,
            text: doc.to_string(),
        });
    };
    let change = if existing_cmd.is_some() {
        Change::Updated
    } else {
        let mut t = Table::new();
        t.insert("command", value(""));
        servers.insert(name, Item::Table(t));
        Change::Added
    };
    let t = servers
        .get_mut(name)
        .and_then(|i| i.as_table_like_mut())
        .expect("inserted or checked above");
    // Compare before writing, so an entry that already holds our values keeps its exact text.
    let mut env = toml_env(t.get("env"));
    let env_before = env.clone();
    env.retain(|(k, _)| k != PROJECT_VAR);
    for (k, v) in e.owned_env() {
        match env.iter_mut().find(|(key, _)| key == k) {
            Some(slot) => slot.1 = v,
            None => env.push((k.to_string(), v)),
        }
    }
    let same = change == Change::Updated
        && t.get("command").and_then(|c| c.as_str()) == Some(e.command.as_str())
        && toml_strings(t.get("args")).as_ref() == Some(&e.args)
        && env == env_before;
    if same {
        return Ok(unchanged(text, Change::Unchanged));
    }
    if t.get("command").and_then(|c| c.as_str()) != Some(e.command.as_str()) {
        t.insert("command", value(e.command.as_str()));
    }
    if toml_strings(t.get("args")).as_ref() != Some(&e.args) {
        let arr: toml_edit::Array = e.args.iter().map(String::as_str).collect();
        t.insert("args", value(arr));
    }
    if env != env_before {
        match t.get_mut("env").and_then(|i| i.as_table_like_mut()) {
            // An existing `env` (inline or `[mcp_servers.<name>.env]`) keeps its form and its
            // other keys.
            Some(existing) => {
                existing.remove(PROJECT_VAR);
                for (k, v) in e.owned_env() {
                    existing.insert(k, value(v));
                }
            }
            None => {
                let mut inline = InlineTable::new();
                for (k, v) in &env {
                    inline.insert(k, v.as_str().into());
                }
                t.insert("env", value(inline));
            }
        }
    }
    Ok(Edit {
        change,
        text: doc.to_string(),
    })
}

// ---------------------------------------------------------------------------------------------
// Reading entries back (for `doctor`)

/// One server entry of a client file that runs `hera-agent-unity`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundEntry {
    pub name: String,
    pub command: String,
    pub env: Vec<(String, String)>,
}

impl FoundEntry {
    pub fn env_value(&self, k: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    }
    /// `HERA_MCP_ENABLED` set to a value the server accepts.
    pub fn enabled(&self) -> bool {
        self.env_value(ENABLE_VAR).is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
    }
}

/// The entries of a client file that run `hera-agent-unity` (by program name).
pub fn entries(shape: Shape, path: &str, text: &str) -> Result<Vec<FoundEntry>, EditError> {
    let mut out = Vec::new();
    match shape {
        Shape::Json { key, .. } => {
            let Json::Object(root) = parse_json_config(path, text)? else {
                return Ok(out);
            };
            let Some(Json::Object(servers)) = get(&root, key) else {
                return Ok(out);
            };
            for (name, v) in servers {
                let (Some(command), Json::Object(m)) = (json_command(v), v) else {
                    continue;
                };
                if !runs_us(command) {
                    continue;
                }
                let env = match get(m, "env") {
                    Some(Json::Object(e)) => e
                        .iter()
                        .filter_map(|(k, v)| match v {
                            Json::String(s) => Some((k.clone(), s.clone())),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                out.push(FoundEntry {
                    name: name.clone(),
                    command: command.to_string(),
                    env,
                });
            }
        }
        Shape::Toml => {
            let doc: toml_edit::DocumentMut =
                text.parse()
                    .map_err(|e: toml_edit::TomlError| EditError::Unparseable {
                        path: path.into(),
                        format: "TOML",
                        reason: e.to_string().trim().replace('\n', " "),
                    })?;
            let Some(servers) = doc.get(TOML_SERVERS).and_then(|i| i.as_table_like()) else {
                return Ok(out);
            };
            for (name, item) in servers.iter() {
                let Some(t) = item.as_table_like() else {
                    continue;
                };
                let Some(command) = t.get("command").and_then(|c| c.as_str()) else {
                    continue;
                };
                if runs_us(command) {
                    out.push(FoundEntry {
                        name: name.to_string(),
                        command: command.to_string(),
                        env: toml_env(t.get("env")),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Where an entry's command leads, as `doctor` judges it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// This very binary.
    ThisBinary,
    /// Another existing copy of `hera-agent-unity`.
    OtherCopy(PathBuf),
    /// Nothing there (absolute path), or not found on this process's `PATH` (bare name).
    Missing,
}

/// Resolves an entry's command the way a client would launch it: an absolute path as is, a bare
/// name through `PATH` (this process's; a GUI client's may be shorter).
pub fn resolve_target(command: &str, this_exe: &Path) -> Target {
    let os = Os::host();
    let found = if is_absolute(command, os) {
        Some(PathBuf::from(command)).filter(|p| p.is_file())
    } else if command.contains(['/', '\\']) {
        None
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths).find_map(|dir| {
                let candidate = dir.join(command);
                let exe = candidate.with_extension(std::env::consts::EXE_EXTENSION);
                [candidate, exe].into_iter().find(|p| p.is_file())
            })
        })
    };
    let Some(path) = found else {
        return Target::Missing;
    };
    let same = match (
        std::fs::canonicalize(&path),
        std::fs::canonicalize(this_exe),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => same_command_path(&path.to_string_lossy(), &this_exe.to_string_lossy(), os),
    };
    if same {
        Target::ThisBinary
    } else {
        Target::OtherCopy(path)
    }
}

// ---------------------------------------------------------------------------------------------
// The command

fn io_failure(action: &str, path: &Path, e: &std::io::Error) -> Failure {
    Failure::new(
        exit::FAILED,
        "CONFIG_IO_FAILED",
        format!("cannot {action} {}: {e}", path.display()),
        json!({"path": path}),
    )
}

fn edit_failure(e: &EditError, client: Client, entry_hint: Option<String>) -> Failure {
    let mut f = Failure::new(
        exit::FAILED,
        e.code(),
        format!("{e}. Nothing was written"),
        json!({"client": client.id()}),
    );
    let suggestion = match e {
        EditError::Unparseable { .. } | EditError::WrongShape { .. } => match &entry_hint {
            Some(h) => format!(
                "Fix the file so {} itself can read it, then run setup again; or add this entry by hand:\n{h}",
                client.title()
            ),
            None => format!("Fix the file so {} itself can read it", client.title()),
        },
        EditError::ForeignEntry { .. } => {
            "Pick another entry name with --name, or replace it with --force".to_string()
        }
    };
    f = f.with_suggestion(&suggestion);
    f
}

/// Quotes one word for the shell the user is likely to paste into (POSIX, or cmd/PowerShell
/// double quotes on Windows); plain words stay bare.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c) || (cfg!(windows) && c == '\\')
        });
    if plain {
        s.to_string()
    } else if cfg!(windows) {
        format!("\"{}\"", s.replace('"', "\\\""))
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The `claude mcp add` line that makes the same entry in `scope` (`user`, or `project` for a
/// `.mcp.json`).
pub fn claude_mcp_add_line(name: &str, e: &ServerEntry, scope: &str) -> String {
    let mut words = vec![
        "claude".to_string(),
        "mcp".into(),
        "add".into(),
        "--transport".into(),
        "stdio".into(),
        "--scope".into(),
        scope.to_string(),
        shell_word(name),
    ];
    for (k, v) in e.owned_env() {
        words.push("--env".into());
        words.push(shell_word(&format!("{k}={v}")));
    }
    words.push("--".into());
    words.push(shell_word(&e.command));
    words.extend(e.args.iter().map(|a| shell_word(a)));
    words.join(" ")
}

fn entry_args(a: &SetupArgs) -> Result<Vec<String>, Failure> {
    let mut args: Vec<String> = ["mcp", "--transport", "stdio"].map(String::from).into();
    let exposure = match (&a.exposure, &a.profile) {
        (None, Some(_)) => Some("profile".to_string()),
        (e, _) => e.clone(),
    };
    if let Some(p) = &a.profile {
        if exposure.as_deref() != Some("profile") {
            return Err(Failure::usage(
                "INVALID_ARGUMENT",
                "--profile only goes with --exposure profile",
            ));
        }
        if !crate::catalog::profiles::is_supported_profile(p) {
            return Err(Failure::usage(
                "INVALID_ARGUMENT",
                format!(
                    "unknown profile {p:?}; expected one of {}",
                    crate::catalog::profiles::SUPPORTED_PROFILES.join(", ")
                ),
            ));
        }
        if p == "advanced" && !a.allow_arbitrary_code {
            return Err(Failure::usage(
                "INVALID_ARGUMENT",
                "the advanced profile runs arbitrary code: add --allow-arbitrary-code to mean it",
            ));
        }
    }
    // Compact is the server's default; writing it out would only make the entry longer.
    if let Some(x) = exposure.filter(|x| x != "compact") {
        args.push("--exposure".into());
        args.push(x);
    }
    if let Some(p) = &a.profile {
        args.push("--profile".into());
        args.push(p.clone());
    }
    if a.allow_arbitrary_code {
        args.push("--allow-arbitrary-code".into());
    }
    Ok(args)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A unified diff of the change, for `--dry-run`.
fn diff(path: &Path, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{} (now)", path.display()),
            &format!("{} (after setup)", path.display()),
        )
        .to_string()
}

fn backup_path(path: &Path, attempt: u32) -> PathBuf {
    let ms = crate::discovery::now_ms();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(if attempt == 0 {
        format!(".hera-backup-{ms}")
    } else {
        format!(".hera-backup-{ms}-{attempt}")
    });
    path.with_file_name(name)
}

/// Copies the file beside itself under a new name; never overwrites an earlier backup.
fn backup(path: &Path) -> std::io::Result<PathBuf> {
    for attempt in 0..16 {
        let target = backup_path(path, attempt);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
        {
            Ok(_) => {
                std::fs::copy(path, &target)?;
                return Ok(target);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "no free backup name",
    ))
}

/// Runs `setup`.
pub fn run(globals: &super::GlobalArgs, a: &SetupArgs) -> Result<u8, Failure> {
    if !valid_name(&a.name) {
        return Err(Failure::usage(
            "INVALID_ARGUMENT",
            format!(
                "invalid --name {:?}: use 1-64 letters, digits, '-' or '_'",
                a.name
            ),
        ));
    }
    let path = match &a.config {
        Some(p) => p.clone(),
        None => {
            let loc = Locations::from_env().ok_or_else(|| {
                Failure::new(
                    exit::FAILED,
                    "NO_HOME",
                    "no home directory could be determined (HOME/USERPROFILE unset)",
                    serde_json::Value::Null,
                )
                .with_suggestion("Set HOME (USERPROFILE on Windows), or pass --config <file>")
            })?;
            a.client.config_path(&loc)
        }
    };
    let command = current_exe()
        .map_err(|e| io_failure("find the path of", Path::new(PROGRAM), &e))?
        .to_string_lossy()
        .into_owned();
    let entry = ServerEntry {
        command,
        args: entry_args(a)?,
        project: globals.project.clone().filter(|p| !p.trim().is_empty()),
    };
    let before = match std::fs::read_to_string(&path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_failure("read", &path, &e)),
    };
    let shown = path.display().to_string();
    // For the error path: what the user would add by hand.
    let hint = edit(a.client.shape(), &shown, None, &a.name, Some(&entry), true)
        .ok()
        .map(|e| e.text);
    let result = edit(
        a.client.shape(),
        &shown,
        before.as_deref(),
        &a.name,
        (!a.remove).then_some(&entry),
        a.force,
    )
    .map_err(|e| edit_failure(&e, a.client, hint))?;
    let title = a.client.title();
    // Claude Code keeps user-scope servers in ~/.claude.json and project-scope ones in .mcp.json.
    let scope = if a
        .config
        .as_ref()
        .is_some_and(|p| p.file_name().is_some_and(|n| n == ".mcp.json"))
    {
        "project"
    } else {
        "user"
    };
    let equivalent = (a.client == Client::ClaudeCode).then(|| {
        if a.remove {
            format!("claude mcp remove --scope {scope} {}", shell_word(&a.name))
        } else {
            claude_mcp_add_line(&a.name, &entry, scope)
        }
    });
    match result.change {
        Change::Unchanged => {
            println!(
                "{title}: {shown} already has server {:?} set up as asked; nothing changed",
                a.name
            );
            print_entry(&entry);
            if let Some(line) = &equivalent {
                println!("equivalent: {line}");
            }
            return Ok(exit::OK);
        }
        Change::Absent => {
            println!(
                "{title}: {shown} has no server {:?}; nothing to remove",
                a.name
            );
            return Ok(exit::OK);
        }
        _ => {}
    }
    if a.dry_run {
        print!(
            "{}",
            diff(&path, before.as_deref().unwrap_or(""), &result.text)
        );
        println!("(dry run: nothing was written)");
        if let Some(line) = &equivalent {
            println!("equivalent: {line}");
        }
        return Ok(exit::OK);
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io_failure("create the folder", dir, &e))?;
    }
    let saved = match &before {
        Some(_) => Some(backup(&path).map_err(|e| io_failure("back up", &path, &e))?),
        None => None,
    };
    crate::platform::fs::write_atomic_keeping_mode(&path, result.text.as_bytes())
        .map_err(|e| io_failure("write", &path, &e))?;
    let what = match result.change {
        Change::Added if before.is_none() => "created with server",
        Change::Added => "added server",
        Change::Updated => "updated server",
        _ => "removed server",
    };
    let place = if a.remove { "from" } else { "in" };
    println!("{title}: {what} {:?} {place} {shown}", a.name);
    if let Some(b) = &saved {
        println!("backup: {}", b.display());
    }
    if !a.remove {
        print_entry(&entry);
    }
    if let Some(line) = &equivalent {
        println!("equivalent: {line}");
    }
    println!(
        "Restart {title} (or reload its MCP servers) to pick this up; `{PROGRAM} doctor` checks it."
    );
    Ok(exit::OK)
}

fn print_entry(e: &ServerEntry) {
    println!("  command: {} {}", e.command, e.args.join(" "));
    let env: Vec<String> = e
        .owned_env()
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    println!("  env: {}", env.join(" "));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> ServerEntry {
        ServerEntry {
            command: "/opt/bin/hera-agent-unity".into(),
            args: vec!["mcp".into(), "--transport".into(), "stdio".into()],
            project: None,
        }
    }

    #[test]
    fn every_client_has_its_real_location_on_every_platform() {
        let loc = |os, home: &str| Locations {
            os,
            home: PathBuf::from(home),
            folders: FolderEnv::default(),
            claude_config_dir: None,
            codex_home: None,
        };
        let lin = loc(Os::Linux, "/home/me");
        let mac = loc(Os::Mac, "/Users/me");
        let win = Locations {
            folders: FolderEnv {
                appdata: Some(PathBuf::from("/C/Users/me/AppData/Roaming")),
                ..Default::default()
            },
            ..loc(Os::Windows, "/C/Users/me")
        };
        let p = |c: Client, l: &Locations| c.config_path(l).to_string_lossy().into_owned();
        assert_eq!(p(Client::ClaudeCode, &lin), "/home/me/.claude.json");
        assert_eq!(
            p(Client::ClaudeDesktop, &mac),
            "/Users/me/Library/Application Support/Claude/claude_desktop_config.json"
        );
        assert_eq!(
            p(Client::ClaudeDesktop, &win),
            "/C/Users/me/AppData/Roaming/Claude/claude_desktop_config.json"
        );
        assert_eq!(
            p(Client::ClaudeDesktop, &lin),
            "/home/me/.config/Claude/claude_desktop_config.json"
        );
        assert_eq!(p(Client::Cursor, &win), "/C/Users/me/.cursor/mcp.json");
        assert_eq!(
            p(Client::Vscode, &lin),
            "/home/me/.config/Code/User/mcp.json"
        );
        assert_eq!(
            p(Client::Vscode, &mac),
            "/Users/me/Library/Application Support/Code/User/mcp.json"
        );
        assert_eq!(
            p(Client::Vscode, &win),
            "/C/Users/me/AppData/Roaming/Code/User/mcp.json"
        );
        assert_eq!(p(Client::Codex, &mac), "/Users/me/.codex/config.toml");
        assert_eq!(
            p(Client::Windsurf, &lin),
            "/home/me/.codeium/windsurf/mcp_config.json"
        );
        let overridden = Locations {
            claude_config_dir: Some("/cfg/claude".into()),
            codex_home: Some("/cfg/codex".into()),
            ..lin.clone()
        };
        assert_eq!(
            p(Client::ClaudeCode, &overridden),
            "/cfg/claude/.claude.json"
        );
        assert_eq!(p(Client::Codex, &overridden), "/cfg/codex/config.toml");
    }

    #[test]
    fn json_merge_keeps_order_numbers_and_other_keys() {
        let before = "{\n    \"zeta\": 1.50,\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    },\n    \"alpha\": [1e3]\n}\n";
        let shape = Client::Cursor.shape();
        let e = edit(shape, "f", Some(before), "unity", Some(&entry()), false).unwrap();
        assert_eq!(e.change, Change::Added);
        assert!(e.text.starts_with("{\n    \"zeta\": 1.50,"), "{}", e.text);
        assert!(e.text.contains("\"alpha\": [1e3]"), "{}", e.text);
        assert!(e.text.find("\"other\"").unwrap() < e.text.find("\"unity\"").unwrap());
        // Running it again is a no-op, whatever the layout.
        let again = edit(shape, "f", Some(&e.text), "unity", Some(&entry()), false).unwrap();
        assert_eq!(again.change, Change::Unchanged);
        assert_eq!(again.text, e.text);
        let removed = edit(shape, "f", Some(&e.text), "unity", None, false).unwrap();
        assert_eq!(removed.change, Change::Removed);
        assert_eq!(
            canonical::parse(&removed.text).unwrap(),
            canonical::parse(before).unwrap()
        );
    }

    #[test]
    fn a_foreign_entry_of_the_same_name_is_kept_unless_forced() {
        let before = r#"{"mcpServers":{"unity":{"command":"npx","args":["other-unity-mcp"]}}}"#;
        let shape = Client::ClaudeDesktop.shape();
        let err = edit(shape, "f", Some(before), "unity", Some(&entry()), false).unwrap_err();
        assert!(matches!(err, EditError::ForeignEntry { .. }), "{err}");
        assert!(edit(shape, "f", Some(before), "unity", None, false).is_err());
        let forced = edit(shape, "f", Some(before), "unity", Some(&entry()), true).unwrap();
        assert_eq!(forced.change, Change::Updated);
    }

    #[test]
    fn unparseable_files_name_the_place() {
        let err = edit(
            Client::Vscode.shape(),
            "mcp.json",
            Some("{\n  // a comment\n  \"servers\": {}\n}"),
            "unity",
            Some(&entry()),
            false,
        )
        .unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        let err = edit(
            Shape::Toml,
            "c.toml",
            Some("[mcp_servers\n"),
            "unity",
            Some(&entry()),
            false,
        )
        .unwrap_err();
        assert!(
            matches!(err, EditError::Unparseable { format: "TOML", .. }),
            "{err}"
        );
        let err = edit(
            Client::Cursor.shape(),
            "f",
            Some("[1,2]"),
            "unity",
            Some(&entry()),
            false,
        )
        .unwrap_err();
        assert!(matches!(err, EditError::WrongShape { .. }), "{err}");
    }

    #[test]
    fn toml_keeps_comments_and_other_tables_and_an_env_subtable() {
        let before = "# my codex\nmodel = \"o3\" # keep\n\n[mcp_servers.unity]\ncommand = \"/old/hera-agent-unity\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.unity.env]\nHERA_AGENT_PROJECT = \"/p\"\nOTHER = \"x\"\n\n[profiles.fast]\nmodel = \"mini\"\n";
        let e = edit(
            Shape::Toml,
            "c",
            Some(before),
            "unity",
            Some(&entry()),
            false,
        )
        .unwrap();
        assert_eq!(e.change, Change::Updated);
        assert!(
            e.text.starts_with("# my codex\nmodel = \"o3\" # keep\n"),
            "{}",
            e.text
        );
        let doc: toml_edit::DocumentMut = e.text.parse().unwrap();
        let u = &doc["mcp_servers"]["unity"];
        assert_eq!(u["command"].as_str(), Some("/opt/bin/hera-agent-unity"));
        assert_eq!(u["startup_timeout_sec"].as_integer(), Some(20));
        assert_eq!(u["env"]["OTHER"].as_str(), Some("x"));
        assert_eq!(u["env"]["HERA_MCP_ENABLED"].as_str(), Some("1"));
        assert!(
            u["env"].get("HERA_AGENT_PROJECT").is_none(),
            "no pin asked: unpinned"
        );
        assert_eq!(doc["profiles"]["fast"]["model"].as_str(), Some("mini"));
        let again = edit(
            Shape::Toml,
            "c",
            Some(&e.text),
            "unity",
            Some(&entry()),
            false,
        )
        .unwrap();
        assert_eq!(again.change, Change::Unchanged);
        let found = entries(Shape::Toml, "c", &e.text).unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].enabled());
    }

    #[test]
    fn claude_line_quotes_what_needs_it() {
        let e = ServerEntry {
            command: "/Users/me/My Tools/hera-agent-unity".into(),
            project: Some("/Users/me/Unity/My Game".into()),
            ..entry()
        };
        let line = claude_mcp_add_line("unity", &e, "user");
        if !cfg!(windows) {
            assert_eq!(
                line,
                "claude mcp add --transport stdio --scope user unity --env HERA_MCP_ENABLED=1 \
                 --env 'HERA_AGENT_PROJECT=/Users/me/Unity/My Game' -- \
                 '/Users/me/My Tools/hera-agent-unity' mcp --transport stdio"
            );
        }
    }
}
