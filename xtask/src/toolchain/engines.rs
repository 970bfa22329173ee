//! The other engines the browser tests run in besides Chromium: Firefox ESR through geckodriver, and
//! WebKit through WebKitGTK's WebDriver, both from Debian's packages (see [`super::apt`]) except
//! geckodriver (crates.io, see [`super::geckodriver`]).
//!
//! WebKitWebDriver starts WebKitGTK's MiniBrowser (`--automation`), a GTK program that needs an X
//! display even with no one looking: the tests run it under `xvfb-run -a`, which starts a virtual X
//! server on a free display for the one command and stops it afterwards.

use std::path::PathBuf;

use super::apt::{self, PackageSet};
use super::geckodriver;
use crate::error::Result;

/// Debian's Firefox ESR.
pub const FIREFOX: &str = "/usr/bin/firefox-esr";
/// WebKitGTK's WebDriver server (Debian `webkit2gtk-driver`, which brings libwebkit2gtk and MiniBrowser).
pub const WEBKIT_DRIVER: &str = "/usr/bin/WebKitWebDriver";
/// Runs one command with a virtual X display (Debian `xvfb`; it calls `xauth`).
pub const XVFB_RUN: &str = "/usr/bin/xvfb-run";

const FIREFOX_SET: PackageSet = PackageSet { what: "Firefox ESR", files: &[FIREFOX], packages: &["firefox-esr"] };

const WEBKIT_SET: PackageSet = PackageSet {
    what: "WebKitGTK WebDriver and a virtual X display",
    files: &[WEBKIT_DRIVER, XVFB_RUN, "/usr/bin/xauth"],
    packages: &["webkit2gtk-driver", "xvfb", "xauth"],
};

/// Firefox ESR and the geckodriver that drives it.
pub struct Firefox {
    /// The browser, named in the WebDriver capabilities so geckodriver never guesses.
    pub firefox: PathBuf,
    /// geckodriver at [`geckodriver::VERSION`].
    pub geckodriver: PathBuf,
}

/// WebKitGTK's WebDriver and the wrapper that gives it a display.
pub struct WebKit {
    /// `WebKitWebDriver`, which launches MiniBrowser.
    pub driver: PathBuf,
    /// `xvfb-run`, put in front of every command that starts the driver.
    pub xvfb_run: PathBuf,
}

/// Installs Firefox ESR (apt) and geckodriver (cargo install) where missing.
pub fn ensure_firefox() -> Result<Firefox> {
    apt::ensure(&FIREFOX_SET)?;
    let geckodriver = geckodriver::ensure()?;
    Ok(Firefox { firefox: PathBuf::from(FIREFOX), geckodriver })
}

/// Installs WebKitWebDriver, xvfb-run and xauth (apt) where missing.
pub fn ensure_webkit() -> Result<WebKit> {
    apt::ensure(&WEBKIT_SET)?;
    Ok(WebKit { driver: PathBuf::from(WEBKIT_DRIVER), xvfb_run: PathBuf::from(XVFB_RUN) })
}
