//! rustfmt and clippy, which the source checks run: a `minimal` rustup profile installs neither, and
//! without them `cargo fmt` / `cargo clippy` fail with "no such command".

use crate::cmd;
use crate::error::{Error, Result};

/// Each component and the cargo subcommand that shows it is there.
const COMPONENTS: [(&str, &str); 2] = [("rustfmt", "fmt"), ("clippy", "clippy")];

/// Installs whichever of the two is missing with rustup.
pub fn ensure() -> Result<()> {
    let missing: Vec<&str> = COMPONENTS
        .iter()
        .filter(|(_, subcommand)| cmd::stdout_of(cmd::cargo().args([*subcommand, "--version"])).is_err())
        .map(|(component, _)| *component)
        .collect();
    if missing.is_empty() {
        eprintln!("xtask: rustfmt and clippy: installed");
        return Ok(());
    }
    eprintln!("xtask: {} missing; installing with rustup", missing.join(" and "));
    cmd::run(&mut cmd::command("rustup", ["component", "add"].into_iter().chain(missing.iter().copied()))).map_err(
        |e| Error::msg(format!("{e} (without rustup, install rustfmt and clippy for this toolchain another way)")),
    )
}
