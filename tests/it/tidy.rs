//! The code map checks itself: these tests read the source tree and fail when a change breaks
//! an invariant ARCHITECTURE.md states. They read files only; nothing is built or run.
//!
//! - a lower layer never names a higher one (`crate::<module>` paths, by layer rank);
//! - `rmcp` appears only under `src/mcp/`;
//! - hashing crates appear only in the contract crate;
//! - nothing writes to stdout outside `src/cli/` (the MCP server's stdout carries frames only,
//!   written by its transport);
//! - every module a parent declares is named in the parent's layout doc, and every top-level
//!   module has its paragraph in ARCHITECTURE.md;
//! - no comment cites a document outside the repository.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted (bounded: the tree is the repository's own).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level module a file of `src/` belongs to (`lib`/`main` for the crate roots).
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(root().join("src")).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Layer ranks from ARCHITECTURE.md ("Cross-cutting invariants"): a module may name modules of
/// its own rank or lower, never higher. `None`: not layered (the crate roots).
fn rank(module: &str) -> Option<u8> {
    Some(match module {
        "platform" => 0,
        "discovery" => 1,
        "connector" => 2,
        "catalog" => 3,
        "search" | "policy" | "tasks" | "results" => 4,
        "session" => 5,
        "mcp" | "cli" => 6,
        _ => return None,
    })
}

/// The code of a file without its comments (line comments and doc comments), so prose that
/// names a module does not count as a use.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `crate::<module>` names in `code`, including grouped imports (`crate::{a, b::c}`).
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

/// The layering violations of one file of `src/`, given its text.
fn violations_in(file: &Path, text: &str) -> Vec<String> {
    let from = module_of(file);
    let Some(from_rank) = rank(&from) else {
        return Vec::new();
    };
    let mut bad = Vec::new();
    for used in crate_paths(&code_of(text)) {
        let Some(used_rank) = rank(&used) else {
            continue;
        };
        let upward = used_rank > from_rank;
        // Same rank, different front-end: the MCP server never drives the CLI.
        let sideways = from == "mcp" && used == "cli";
        if upward || sideways {
            bad.push(format!(
                "{} (layer {from}) uses crate::{used}",
                file.display()
            ));
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

#[test]
fn a_lower_layer_never_names_a_higher_one() {
    let files = rust_files(&root().join("src"));
    assert!(files.len() > 20, "the source tree was found");
    let bad: Vec<String> = files
        .iter()
        .flat_map(|f| violations_in(f, &std::fs::read_to_string(f).unwrap()))
        .collect();
    assert!(bad.is_empty(), "layering violations:\n{}", bad.join("\n"));
}

#[test]
fn the_layering_check_catches_an_upward_import() {
    // The check must be able to fail: a discovery file importing the session layer and, in a
    // group, the MCP server; a comment naming a module is not a use.
    let probe = root().join("src/discovery/probe.rs");
    let text = "// crate::cli is only named here\nuse crate::session::Session;\n\
                use crate::{discovery, mcp::x};\n";
    assert_eq!(
        violations_in(&probe, text),
        [
            format!("{} (layer discovery) uses crate::mcp", probe.display()),
            format!("{} (layer discovery) uses crate::session", probe.display()),
        ]
    );
    let cli_from_mcp = root().join("src/mcp/probe.rs");
    assert_eq!(
        violations_in(&cli_from_mcp, "use crate::cli::Failure;").len(),
        1
    );
}

#[test]
fn rmcp_is_used_only_by_the_mcp_module() {
    let bad: Vec<String> = rust_files(&root().join("src"))
        .into_iter()
        .filter(|f| module_of(f) != "mcp")
        .filter(|f| {
            let code = code_of(&std::fs::read_to_string(f).unwrap());
            code.contains("rmcp::") || code.contains("use rmcp")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(bad.is_empty(), "rmcp outside src/mcp/: {bad:?}");
}

#[test]
fn only_the_contract_crate_hashes() {
    const HASHING: [&str; 4] = ["sha2", "hmac", "md5", "md_5"];
    let mut bad = Vec::new();
    for dir in ["src", "connector-contract/sim/src", "tools", "examples"] {
        for f in rust_files(&root().join(dir)) {
            let code = code_of(&std::fs::read_to_string(&f).unwrap());
            for h in HASHING {
                if code.contains(&format!("{h}::")) || code.contains(&format!("use {h}")) {
                    bad.push(format!("{} uses {h}", f.display()));
                }
            }
        }
    }
    for manifest in ["Cargo.toml", "connector-contract/sim/Cargo.toml"] {
        let text = std::fs::read_to_string(root().join(manifest)).unwrap();
        let deps = text
            .split("[dependencies]")
            .nth(1)
            .unwrap_or("")
            .split("\n[")
            .next()
            .unwrap_or("");
        for h in ["sha2", "hmac", "md-5"] {
            if deps.lines().any(|l| {
                l.trim_start().starts_with(&format!("{h} "))
                    || l.trim_start().starts_with(&format!("{h}."))
                    || l.trim_start().starts_with(&format!("{h}="))
            }) {
                bad.push(format!("{manifest} depends on {h}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "hashing outside the contract crate:\n{}",
        bad.join("\n")
    );
}

#[test]
fn nothing_writes_to_stdout_outside_the_cli() {
    const STDOUT: [&str; 5] = ["println!", "print!(", "io::stdout", "stdout()", "dbg!("];
    // `eprintln!`/`eprint!` write to stderr: a match preceded by `e` is not stdout.
    let writes = |code: &str, needle: &str| {
        code.match_indices(needle)
            .any(|(i, _)| !code[..i].ends_with('e'))
    };
    let bad: Vec<String> = rust_files(&root().join("src"))
        .into_iter()
        .filter(|f| module_of(f) != "cli")
        // The MCP transport is the one writer of frames: it owns the process's stdout (a
        // non-blocking pipe, or tokio's stdout) and nothing else writes to it.
        .filter(|f| !f.ends_with("src/mcp/transport.rs"))
        .filter_map(|f| {
            let code = code_of(&std::fs::read_to_string(&f).unwrap());
            STDOUT
                .iter()
                .find(|s| writes(&code, s))
                .map(|s| format!("{} contains {s}", f.display()))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "stdout outside src/cli/:\n{}",
        bad.join("\n")
    );
}

/// Module names a file declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`), tests excluded.
fn declared_modules(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l
                .strip_prefix("pub(crate) mod ")
                .or_else(|| l.strip_prefix("pub mod "))
                .or_else(|| l.strip_prefix("mod "))?;
            let name = rest.strip_suffix(';')?;
            (name != "tests").then(|| name.to_string())
        })
        .collect()
}

#[test]
fn every_module_is_named_in_its_parents_layout_doc() {
    let mut bad = Vec::new();
    for f in rust_files(&root().join("src")) {
        let name = f.file_name().unwrap().to_string_lossy();
        if name != "mod.rs" && name != "lib.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let doc: String = text
            .lines()
            .filter(|l| l.trim_start().starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        for m in declared_modules(&text) {
            if !doc.contains(&format!("`{m}`")) && !doc.contains(&format!("[`{m}`]")) {
                bad.push(format!(
                    "{}: module `{m}` missing from the layout doc",
                    f.display()
                ));
            }
        }
    }
    let arch = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    for m in declared_modules(&lib) {
        if !arch.contains(&format!("### `src/{m}`")) {
            bad.push(format!("ARCHITECTURE.md has no `### `src/{m}`` section"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn no_comment_cites_a_document_outside_the_repository() {
    // Spelled in parts, so that this list of what may not be cited is not itself a citation.
    const OUTSIDE: [[&str; 2]; 11] = [
        ["/work/", "shared"],
        ["reference", "/"],
        ["anchor-mcp", "-adapter"],
        ["connector-", "protocol.md"],
        ["rmcp", "-guide"],
        ["connector-", "divergences"],
        ["peers", ".md"],
        ["interop", ".md"],
        ["design", ".md"],
        ["tool-", "parameters.md"],
        ["tool-", "results.md"],
    ];
    let outside: Vec<String> = OUTSIDE.iter().map(|p| p.concat()).collect();
    let mut bad = Vec::new();
    for dir in [
        "src",
        "connector-contract/src",
        "connector-contract/sim/src",
        "tools",
        "examples",
        "tests",
    ] {
        for f in rust_files(&root().join(dir)) {
            if f.ends_with("tidy.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                if let Some(hit) = outside.iter().find(|o| line.contains(o.as_str())) {
                    bad.push(format!("{}:{}: cites {hit}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} lines cite documents outside the repository (cite connector-contract/README.md, or \
         give the reason):\n{}",
        bad.len(),
        bad.join("\n")
    );
}
