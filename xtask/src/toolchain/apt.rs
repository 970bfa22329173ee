//! Debian packages for the browser tests (Chromium, Firefox ESR, WebKitGTK), installed with apt-get when a
//! file one of them provides is missing.
//!
//! The browser builds that test frameworks usually download at run time cannot be fetched on our CI
//! machines (no internet beyond package registries), so the browsers and their WebDriver servers come
//! from the distribution, whose packages are built to match each other.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cmd;
use crate::error::{Error, Result};

/// A set of packages and the files that show they are installed.
pub struct PackageSet {
    /// What they are, for the messages ("headless Chromium and chromedriver").
    pub what: &'static str,
    /// Files the packages install; any one missing means "install".
    pub files: &'static [&'static str],
    /// The Debian packages.
    pub packages: &'static [&'static str],
}

/// Whether this process already ran `apt-get update` (one is enough for every set).
static UPDATED: AtomicBool = AtomicBool::new(false);

/// Installs `set` with apt-get when one of its files is missing and we may (Debian, root); otherwise
/// says what to install and fails.
pub fn ensure(set: &PackageSet) -> Result<()> {
    let missing: Vec<&str> = set.files.iter().copied().filter(|p| !Path::new(p).exists()).collect();
    if missing.is_empty() {
        eprintln!("xtask: {} ({}): installed", set.what, set.files.join(", "));
        return Ok(());
    }
    let missing = missing.join(" and ");
    let packages = set.packages.join(" ");
    if !can_apt_install() {
        return Err(Error::msg(format!(
            "{missing} missing; install the packages `{}` (Debian/Ubuntu as root: apt-get install -y {packages})",
            set.packages.join("` and `"),
        )));
    }
    eprintln!("xtask: {missing} missing; installing Debian packages {} with apt-get", set.packages.join(", "));
    if !UPDATED.swap(true, Ordering::SeqCst) {
        cmd::run(&mut cmd::command("apt-get", ["update"]))?;
    }
    let mut install = cmd::command("apt-get", ["install", "-y"]);
    install.args(set.packages).env("DEBIAN_FRONTEND", "noninteractive");
    cmd::run(&mut install)?;
    match set.files.iter().find(|p| !Path::new(p).exists()) {
        Some(file) => Err(Error::msg(format!("apt-get installed {packages} but {file} is still missing"))),
        None => Ok(()),
    }
}

/// apt-get can install only on Debian-family systems and only as root.
fn can_apt_install() -> bool {
    let debian = Path::new("/etc/debian_version").exists();
    let root = cmd::stdout_of(&mut cmd::command("id", ["-u"])).map(|uid| uid.trim() == "0").unwrap_or(false);
    debian && root
}
