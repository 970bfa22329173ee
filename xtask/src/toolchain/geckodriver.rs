//! geckodriver, the WebDriver server for Firefox, at a pinned version from crates.io.
//!
//! Debian ships Firefox ESR but no geckodriver, and the prebuilt releases are downloads our CI cannot
//! fetch; `cargo install` builds it from the registry (a minute or two, once). Pinned so a new release
//! never changes the tests under us; 0.37 drives Firefox 128 and later, and has `--allow-system-access`
//! (the privileged context the Firefox offline test needs).

use std::path::PathBuf;

use super::bindgen::{cargo_bin_dir, cargo_install_pinned};
use crate::cmd;
use crate::error::{Error, Result};

/// The geckodriver release the tests use.
pub const VERSION: &str = "0.37.1";

/// The path of a geckodriver that reports [`VERSION`], installing it with `cargo install` first when
/// none does.
pub fn ensure() -> Result<PathBuf> {
    if let Some(path) = find() {
        eprintln!("xtask: geckodriver {VERSION}: installed ({})", path.display());
        return Ok(path);
    }
    eprintln!("xtask: geckodriver {VERSION} is missing; installing it with cargo install (a minute or two)");
    cargo_install_pinned("geckodriver", VERSION)?;
    find().ok_or_else(|| {
        Error::msg(format!(
            "installed geckodriver {VERSION}, but no `geckodriver --version` reports it; is {} on PATH?",
            cargo_bin_dir().map(|d| d.display().to_string()).unwrap_or_else(|| "~/.cargo/bin".into())
        ))
    })
}

/// The first geckodriver (cargo's bin dir, then PATH) whose `--version` is [`VERSION`].
fn find() -> Option<PathBuf> {
    let exe = format!("geckodriver{}", std::env::consts::EXE_SUFFIX);
    let mut candidates: Vec<PathBuf> =
        cargo_bin_dir().map(|d| d.join(&exe)).into_iter().filter(|p| p.is_file()).collect();
    candidates.push(PathBuf::from(&exe));
    candidates.into_iter().find(|path| {
        cmd::stdout_of(&mut cmd::command(path, ["--version"])).ok().and_then(|out| parse_version(&out)).as_deref()
            == Some(VERSION)
    })
}

/// `"geckodriver 0.37.1 (…)\n…"` → `"0.37.1"`.
fn parse_version(output: &str) -> Option<String> {
    let mut words = output.split_whitespace();
    (words.next()? == "geckodriver").then_some(())?;
    words.next().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::parse_version;

    #[test]
    fn parses_the_first_line() {
        let out = "geckodriver 0.37.1\n\nThe source code of this program is available from\n";
        assert_eq!(parse_version(out).as_deref(), Some("0.37.1"));
        assert_eq!(parse_version("chromedriver 1.2"), None);
        assert_eq!(parse_version(""), None);
    }
}
