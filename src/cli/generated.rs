//! Shell completions and the man page, generated at run time from the clap definitions, so they
//! can never drift from the real command line and cost nothing at build time.

use super::Cli;
use super::exit;
use super::output::Failure;
use clap::CommandFactory;
use std::io::Write;

fn write_failed(e: std::io::Error) -> Failure {
    Failure::new(
        exit::FAILED,
        "OUTPUT_FAILED",
        format!("cannot write to stdout: {e}"),
        serde_json::Value::Null,
    )
}

/// `completions <shell>`: the completion script on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<u8, Failure> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "hera-agent-unity", &mut out);
    std::io::stdout().write_all(&out).map_err(write_failed)?;
    Ok(exit::OK)
}

/// `man`: `hera-agent-unity.1` in roff on stdout.
pub fn man_page() -> Result<u8, Failure> {
    let cmd = Cli::command();
    let mut out = Vec::new();
    render_man(&cmd, &mut out).map_err(write_failed)?;
    std::io::stdout().write_all(&out).map_err(write_failed)?;
    Ok(exit::OK)
}

fn render_man(cmd: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    clap_mangen::Man::new(cmd.clone()).render(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn man_page_names_every_visible_command() {
        let cmd = Cli::command();
        let mut out = Vec::new();
        render_man(&cmd, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(".TH"), "{}", &text[..200.min(text.len())]);
        for sub in ["doctor", "setup", "completions", "status"] {
            assert!(text.contains(sub), "man page lacks {sub}");
        }
        assert!(
            !text.contains("hera\\-agent\\-unity\\-man"),
            "the hidden man command stays hidden"
        );
    }

    #[test]
    fn completions_cover_setup_clients() {
        let mut cmd = Cli::command();
        let mut out = Vec::new();
        clap_complete::generate(
            clap_complete::Shell::Bash,
            &mut cmd,
            "hera-agent-unity",
            &mut out,
        );
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("claude-desktop") && text.contains("windsurf"),
            "clients offered"
        );
        assert!(text.contains("--dry-run"));
    }
}
