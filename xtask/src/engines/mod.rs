//! The browser engines the tests run in — Chromium, Firefox ESR and WebKit (WebKitGTK) — and, per
//! engine, how a test command reaches it and what passed in it.
//!
//! Mobile webviews on iOS are WebKit and Firefox has its own IndexedDB and Web Locks, so the main
//! end-to-end paths run in all three (Chromium: tests/e2e with Playwright; the others: tests/engines
//! over plain WebDriver). WebKitWebDriver starts its default browser, MiniBrowser `--automation`;
//! only the display is missing, so the whole command runs under `xvfb-run -a`, and the driver and
//! MiniBrowser inherit its `DISPLAY`.

mod tally;

use std::path::PathBuf;
use std::process::Command;

pub use tally::EngineTally;

use crate::error::Result;
use crate::toolchain;

/// A browser engine the tests run in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Engine {
    /// Debian's Chromium through chromedriver.
    Chromium,
    /// Debian's Firefox ESR through geckodriver.
    Firefox,
    /// WebKitGTK's MiniBrowser through WebKitWebDriver, under xvfb-run.
    WebKit,
}

impl Engine {
    /// Every engine, in the order their checks run and their tallies print.
    pub const ALL: [Engine; 3] = [Engine::Chromium, Engine::Firefox, Engine::WebKit];

    /// The engine a command-line name means (`chromium`, `firefox`, `webkit`).
    pub fn parse(name: &str) -> Option<Engine> {
        match name {
            "chromium" => Some(Engine::Chromium),
            "firefox" => Some(Engine::Firefox),
            "webkit" => Some(Engine::WebKit),
            _ => None,
        }
    }

    /// The name checks and tallies use.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "Chromium",
            Engine::Firefox => "Firefox ESR",
            Engine::WebKit => "WebKitGTK",
        }
    }
}

/// How test commands reach one engine, once its tools are installed.
pub struct EngineDriver {
    /// Which engine.
    pub engine: Engine,
    /// The WebDriver server (chromedriver, geckodriver, WebKitWebDriver).
    driver: PathBuf,
    /// The browser binary, for the end-to-end tests (`FIREFOX`); Chromium's and WebKit's are found by
    /// their own rigs and drivers.
    browser: Option<PathBuf>,
    /// `xvfb-run`, when the engine needs a display (WebKit).
    xvfb_run: Option<PathBuf>,
}

impl EngineDriver {
    /// The variables tests/engines/rig.mjs reads: `ENGINE` and where the driver and browser are.
    pub fn set_engine_tests_env(&self, command: &mut Command) {
        match self.engine {
            Engine::Chromium => {}
            Engine::Firefox => {
                command.env("ENGINE", "firefox").env("GECKODRIVER", &self.driver);
                if let Some(firefox) = &self.browser {
                    command.env("FIREFOX", firefox);
                }
            }
            Engine::WebKit => {
                command.env("ENGINE", "webkit").env("WEBKIT_DRIVER", &self.driver);
            }
        }
    }

    /// `command` itself, or for an engine that needs a display, `xvfb-run -a <command>` with the same
    /// arguments, variables and directory.
    pub fn wrap(&self, command: Command) -> Command {
        let Some(xvfb_run) = &self.xvfb_run else { return command };
        let mut wrapped = Command::new(xvfb_run);
        // -a: the first free display number, so two runs (or another X server) never collide.
        wrapped.args(["-a", "-s", "-screen 0 1280x1024x24"]).arg(command.get_program()).args(command.get_args());
        for (name, value) in command.get_envs() {
            match value {
                Some(value) => wrapped.env(name, value),
                None => wrapped.env_remove(name),
            };
        }
        if let Some(dir) = command.get_current_dir() {
            wrapped.current_dir(dir);
        }
        wrapped
    }
}

/// Every engine's driver setup, or why it could not be set up (which fails that engine's checks only).
pub struct Engines {
    drivers: Vec<Result<EngineDriver, String>>,
}

impl Engines {
    /// Installs what each engine needs where missing (apt-get, cargo install).
    pub fn prepare() -> Engines {
        let drivers = Engine::ALL.iter().map(|&engine| prepare_engine(engine).map_err(|e| e.to_string())).collect();
        Engines { drivers }
    }

    /// The setup of `engine`, or why there is none.
    pub fn get(&self, engine: Engine) -> Result<&EngineDriver, &str> {
        let index = Engine::ALL.iter().position(|e| *e == engine).unwrap_or_default();
        match self.drivers.get(index) {
            Some(Ok(driver)) => Ok(driver),
            Some(Err(why)) => Err(why),
            None => Err("not prepared"),
        }
    }
}

fn prepare_engine(engine: Engine) -> Result<EngineDriver> {
    match engine {
        Engine::Chromium => {
            let browser = toolchain::ensure_browser()?;
            Ok(EngineDriver { engine, driver: browser.chromedriver, browser: Some(browser.chromium), xvfb_run: None })
        }
        Engine::Firefox => {
            let firefox = toolchain::ensure_firefox()?;
            Ok(EngineDriver { engine, driver: firefox.geckodriver, browser: Some(firefox.firefox), xvfb_run: None })
        }
        Engine::WebKit => {
            let webkit = toolchain::ensure_webkit()?;
            Ok(EngineDriver { engine, driver: webkit.driver, browser: None, xvfb_run: Some(webkit.xvfb_run) })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(xvfb_run: Option<&str>) -> EngineDriver {
        EngineDriver {
            engine: Engine::WebKit,
            driver: PathBuf::from("/usr/bin/WebKitWebDriver"),
            browser: None,
            xvfb_run: xvfb_run.map(PathBuf::from),
        }
    }

    /// The variables `command` sets (`Some`) or clears (`None`), sorted by name.
    fn envs_of(command: &Command) -> Vec<(std::ffi::OsString, Option<std::ffi::OsString>)> {
        let mut envs: Vec<_> = command.get_envs().map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned()))).collect();
        envs.sort();
        envs
    }

    #[test]
    fn wrap_puts_xvfb_run_in_front_and_keeps_everything_else() {
        let mut command = Command::new("cargo");
        command.args(["test", "--test", "x"]).env("A", "1").env_remove("B").current_dir("/tmp");
        let wrapped = driver(Some("/usr/bin/xvfb-run")).wrap(command);
        assert_eq!(wrapped.get_program(), "/usr/bin/xvfb-run");
        let args: Vec<_> = wrapped.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(args, ["-a", "-s", "-screen 0 1280x1024x24", "cargo", "test", "--test", "x"]);
        assert_eq!(envs_of(&wrapped), [("A".into(), Some("1".into())), ("B".into(), None)]);
        assert_eq!(wrapped.get_current_dir(), Some(std::path::Path::new("/tmp")));
    }

    #[test]
    fn wrap_leaves_engines_without_a_display_alone() {
        let wrapped = driver(None).wrap(Command::new("cargo"));
        assert_eq!(wrapped.get_program(), "cargo");
    }
}
