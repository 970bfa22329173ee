//! Headless Chromium and chromedriver for the browser tests, from Debian's packages.
//!
//! The browser builds that test frameworks usually download at run time cannot be fetched on
//! our CI machines (no internet beyond package registries), so we use the distribution's
//! `chromium` and `chromium-driver`, which are built to match each other.

use std::path::Path;

use crate::cmd;
use crate::error::{Error, Result};

/// The binaries the browser tests drive.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// The WebDriver server for [`CHROMIUM`], from the same Debian source package.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// A Thai font, so the Thai label set renders as letters (not boxes) in the element's screenshots.
const THAI_FONT: &str = "/usr/share/fonts/opentype/tlwg/Loma.otf";
/// The Debian packages that provide them.
const PACKAGES: [&str; 3] = ["chromium", "chromium-driver", "fonts-tlwg-loma-otf"];

/// Installs the packages with apt-get when a file is missing and we may (Debian, root);
/// otherwise says what to install and fails.
pub fn ensure() -> Result<()> {
    let missing: Vec<&str> =
        [CHROMIUM, CHROMEDRIVER, THAI_FONT].into_iter().filter(|p| !Path::new(p).exists()).collect();
    if missing.is_empty() {
        eprintln!("xtask: browser ({CHROMIUM}, {CHROMEDRIVER}, a Thai font): installed");
        return Ok(());
    }
    let missing = missing.join(" and ");
    if !can_apt_install() {
        return Err(Error::msg(format!(
            "{missing} missing; install the packages `{}` (Debian/Ubuntu as root: apt-get install -y {})",
            PACKAGES.join("` and `"),
            PACKAGES.join(" ")
        )));
    }
    eprintln!("xtask: {missing} missing; installing Debian packages {} with apt-get", PACKAGES.join(", "));
    cmd::run(&mut cmd::command("apt-get", ["update"]))?;
    let mut install = cmd::command("apt-get", ["install", "-y"]);
    install.args(PACKAGES).env("DEBIAN_FRONTEND", "noninteractive");
    cmd::run(&mut install)?;
    for binary in [CHROMIUM, CHROMEDRIVER, THAI_FONT] {
        if !Path::new(binary).exists() {
            return Err(Error::msg(format!("apt-get installed {} but {binary} is still missing", PACKAGES.join(", "))));
        }
    }
    if let Ok(version) = cmd::stdout_of(&mut cmd::command(CHROMIUM, ["--version"])) {
        eprintln!("xtask: installed {}", version.trim());
    }
    Ok(())
}

/// apt-get can install only on Debian-family systems and only as root.
fn can_apt_install() -> bool {
    let debian = Path::new("/etc/debian_version").exists();
    let root = cmd::stdout_of(&mut cmd::command("id", ["-u"])).map(|uid| uid.trim() == "0").unwrap_or(false);
    debian && root
}
