//! Headless Chromium and chromedriver for the browser tests, from Debian's packages (see [`super::apt`]).

use super::apt::{self, PackageSet};
use crate::cmd;
use crate::error::Result;

/// The binaries the browser tests drive.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// The WebDriver server for [`CHROMIUM`], from the same Debian source package.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// A Thai font, so the Thai label set renders as letters (not boxes) in the element's screenshots.
const THAI_FONT: &str = "/usr/share/fonts/opentype/tlwg/Loma.otf";

/// Chromium, its driver and the Thai font, and the Debian packages that provide them.
const CHROMIUM_SET: PackageSet = PackageSet {
    what: "browser",
    files: &[CHROMIUM, CHROMEDRIVER, THAI_FONT],
    packages: &["chromium", "chromium-driver", "fonts-tlwg-loma-otf"],
};

/// Installs the packages with apt-get when a file is missing and we may (Debian, root); otherwise
/// says what to install and fails.
pub fn ensure() -> Result<()> {
    let was_there = CHROMIUM_SET.files.iter().all(|f| std::path::Path::new(f).exists());
    apt::ensure(&CHROMIUM_SET)?;
    if !was_there {
        if let Ok(version) = cmd::stdout_of(&mut cmd::command(CHROMIUM, ["--version"])) {
            eprintln!("xtask: installed {}", version.trim());
        }
    }
    Ok(())
}
