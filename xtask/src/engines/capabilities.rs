//! The WebDriver capabilities wasm-bindgen-test-runner sends when it opens a browser session
//! (`WASM_BINDGEN_TEST_WEBDRIVER_JSON`), per engine. The runner merges in its own headless switches
//! (Chromium: `headless`, `no-sandbox`, `disable-dev-shm-usage`; Firefox: `-headless`) and, for the
//! Safari driver that WebKitWebDriver stands in for, sends no capabilities at all (so WebKit has none
//! here: WebKitWebDriver's defaults, MiniBrowser with `--automation`, are what it needs).

use std::path::Path;

/// Command-line switches for Chromium, passed through WebDriver's `goog:chromeOptions`:
/// headless as root (no sandbox: Chromium refuses to sandbox as root), no GPU, `/tmp` instead of a
/// small `/dev/shm` in containers, and nothing that reaches for the network (CI has none beyond
/// package registries, and waiting for it slows every start).
pub const CHROMIUM_ARGS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
];

/// Firefox preferences that keep it off the network (updates, safe browsing, telemetry, captive-portal
/// and connectivity probes): CI reaches nothing beyond package registries. geckodriver's own profile
/// defaults cover the rest. One file for the wasm tests (here) and the engine e2e tests
/// (tests/engines/rig.mjs).
const FIREFOX_PREFS: &str = include_str!("../../../tests/engines/firefox-prefs.json");

/// [`FIREFOX_PREFS`] as a JSON object (an empty one if the file were not an object: the test below
/// fails then).
fn firefox_prefs() -> serde_json::Value {
    serde_json::from_str(FIREFOX_PREFS).unwrap_or_else(|_| serde_json::json!({}))
}

/// `{"goog:chromeOptions": {"binary": …, "args": [...]}}`. Repeating the runner's own switches is
/// harmless and keeps this complete.
pub fn chromium(chromium: &Path) -> serde_json::Value {
    serde_json::json!({
        "goog:chromeOptions": {
            "binary": chromium.to_string_lossy(),
            "args": CHROMIUM_ARGS,
        }
    })
}

/// `{"moz:firefoxOptions": {"binary": …, "prefs": {...}}}` (the runner adds `-headless`).
pub fn firefox(firefox: &Path) -> serde_json::Value {
    serde_json::json!({
        "moz:firefoxOptions": {
            "binary": firefox.to_string_lossy(),
            "prefs": firefox_prefs(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_capabilities_name_the_binary_and_every_switch() {
        let caps = chromium(Path::new("/usr/bin/chromium"));
        let options = &caps["goog:chromeOptions"];
        assert_eq!(options["binary"], "/usr/bin/chromium");
        let args: Vec<&str> = options["args"].as_array().unwrap().iter().filter_map(|a| a.as_str()).collect();
        assert_eq!(args, CHROMIUM_ARGS);
    }

    #[test]
    fn firefox_capabilities_name_the_binary_and_every_pref() {
        let caps = firefox(Path::new("/usr/bin/firefox-esr"));
        let options = &caps["moz:firefoxOptions"];
        assert_eq!(options["binary"], "/usr/bin/firefox-esr");
        let prefs = options["prefs"].as_object().unwrap();
        assert_eq!(prefs.len(), 7, "every pref of tests/engines/firefox-prefs.json");
        assert!(prefs.values().all(|v| *v == false), "each one off: {prefs:?}");
        assert_eq!(prefs["app.update.enabled"], false);
    }
}
