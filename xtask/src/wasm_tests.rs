//! The wasm test binaries (tests/wasm_store_*.rs, tests/wasm_client_*.rs), each run in the real
//! runtime it is built for: a page and a dedicated worker in each browser engine (Chromium, Firefox
//! ESR, WebKitGTK: see xtask/src/engines), and Node.js.
//!
//! Each runtime is its own test binary because wasm-bindgen-test reads the runtime from a custom
//! section that `wasm_bindgen_test_configure!` compiles in (see tests/wasm_common/mod.rs). Cargo
//! runs a wasm32 test binary through the program named by
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER`; that is wasm-bindgen-test-runner, which generates
//! the JS glue and either spawns `node` or serves a test page and drives a browser over WebDriver
//! (`CHROMEDRIVER`, `GECKODRIVER`, or `SAFARIDRIVER` naming WebKitWebDriver). To reproduce one run by
//! hand (from the repository root):
//!
//! ```text
//! CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=~/.cargo/bin/wasm-bindgen-test-runner \
//! CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON=target/wasm-tests/webdriver.json \
//!   cargo test -p mcp-tasks-web --target wasm32-unknown-unknown --test wasm_store_page
//! ```
//!
//! (`target/wasm-tests/webdriver.json` is written by `cargo xtask test`; without it the runner
//! still works, with its own headless defaults and whatever Chromium chromedriver finds.) In Firefox
//! ESR and WebKitGTK:
//!
//! ```text
//! GECKODRIVER=~/.cargo/bin/geckodriver WASM_BINDGEN_TEST_WEBDRIVER_JSON=target/wasm-tests/webdriver-firefox.json \
//!   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=… cargo test -p mcp-tasks-web --target wasm32-unknown-unknown --test wasm_store_page
//! SAFARIDRIVER=/usr/bin/WebKitWebDriver xvfb-run -a \
//!   env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=… cargo test -p mcp-tasks-web --target wasm32-unknown-unknown --test wasm_store_page
//! ```
//!
//! The client tests (`wasm_client_*`) talk to two reference servers that this module starts on free
//! loopback ports before building them (see [`TestServers`]): one with `--faults`, one with
//! `--auth`. Their addresses (and the fault server's admin token) reach the tests as compile-time
//! variables (`option_env!` in tests/wasm_common/client.rs), set on the build and on every run so
//! cargo never rebuilds between the two; they change every run, so the client binaries are
//! recompiled each time (a few seconds).
//! By hand, start the servers and add the variables to the command above:
//!
//! ```text
//! target/debug/mcp-tasks-server --listen 127.0.0.1:8801 --memory --quiet --faults --poll-interval-ms 100 &
//! target/debug/mcp-tasks-server --listen 127.0.0.1:8802 --memory --quiet --auth wasm-test-token &
//! MCP_TEST_SERVER=http://127.0.0.1:8801/mcp MCP_TEST_ADMIN_TOKEN=<token> \
//! MCP_TEST_AUTH_SERVER=http://127.0.0.1:8802/mcp \
//! MCP_TEST_AUTH_TOKEN=wasm-test-token CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=… \
//!   cargo test -p mcp-tasks-web --target wasm32-unknown-unknown --test wasm_client_node
//! ```
//!
//! where `<token>` is the admin token the first server printed at the end of its first line
//! (`; admin token: …`).
//!
//! Never with `cargo test -q`: the runner's output parsing breaks under it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::checks::Checks;
use crate::cmd;
use crate::engines::{Engine, EngineTally, Engines};
use crate::error::{Error, Result};
use crate::reference_server::{self, ServerProcess};
use crate::toolchain::{self, BuildTools, WASM_TARGET};

/// The cargo package whose tests/ hold the wasm test binaries.
const CRATE: &str = "mcp-tasks-web";

/// One runtime: the suite it belongs to, where it runs, the test binaries it runs (one runtime each;
/// add a `tests/wasm_<concern>_<runtime>.rs` here to have it run), and what it needs. A browser runtime
/// is one check per engine.
struct Runtime {
    suite: &'static str,
    place: Place,
    test_targets: &'static [&'static str],
    /// Whether the binaries talk to the reference servers ([`TestServers`]).
    needs_servers: bool,
}

/// Where a test binary runs (compiled in by `wasm_bindgen_test_configure!`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Page,
    DedicatedWorker,
    Node,
}

impl Runtime {
    /// The check's name: `wasm tests: Node`, `wasm client tests: Firefox ESR dedicated worker`.
    fn check(&self, engine: Option<Engine>) -> String {
        let place = match self.place {
            Place::Page => "page",
            Place::DedicatedWorker => "dedicated worker",
            Place::Node => "Node",
        };
        match engine {
            Some(engine) => format!("{}: {} {place}", self.suite, engine.name()),
            None => format!("{}: {place}", self.suite),
        }
    }
}

/// Every runtime, in the order they run (each browser runtime in Chromium here; Firefox and WebKit
/// follow, see [`run`]). A check whose setup failed (no browser, no servers) fails on its own; the
/// others still run.
const RUNTIMES: [Runtime; 6] = [
    Runtime { suite: "wasm tests", place: Place::Page, test_targets: &["wasm_store_page"], needs_servers: false },
    Runtime {
        suite: "wasm tests",
        place: Place::DedicatedWorker,
        test_targets: &["wasm_store_worker"],
        needs_servers: false,
    },
    Runtime {
        suite: "wasm tests",
        place: Place::Node,
        // wasm_numbers_node: numbers through every path against JavaScript's Number() (issue 15).
        test_targets: &["wasm_store_node", "wasm_numbers_node"],
        needs_servers: false,
    },
    Runtime {
        suite: "wasm client tests",
        place: Place::Page,
        test_targets: &["wasm_client_page"],
        needs_servers: true,
    },
    Runtime {
        suite: "wasm client tests",
        place: Place::DedicatedWorker,
        test_targets: &["wasm_client_worker"],
        needs_servers: true,
    },
    Runtime {
        suite: "wasm client tests",
        place: Place::Node,
        test_targets: &["wasm_client_node"],
        needs_servers: true,
    },
];

/// Every wasm test binary, for the wasm32 clippy check (xtask/src/lints.rs).
pub fn test_targets() -> impl Iterator<Item = &'static str> {
    RUNTIMES.iter().flat_map(|runtime| runtime.test_targets.iter().copied())
}

/// The bearer token the `--auth` server accepts (passed to the tests as `MCP_TEST_AUTH_TOKEN`).
const AUTH_TOKEN: &str = "wasm-test-token";

/// The reference servers the client tests run against, each on a free loopback port, killed when
/// this value is dropped (after the last check):
///
/// - `faults`: `--memory --quiet --faults --poll-interval-ms 100`: every status path, the restore
///   tests and the fault tests (which drive its `/admin/faults` and `/admin/expire`, with the admin
///   token it printed);
/// - `auth`: `--memory --quiet --auth wasm-test-token`: the `headers` option.
struct TestServers {
    faults: ServerProcess,
    auth: ServerProcess,
}

impl TestServers {
    /// Builds the server (as `cargo build -p mcp-tasks-server`, shared with `cargo test`) and starts both.
    fn start(root: &Path) -> Result<Self> {
        let exe = reference_server::build(root)?;
        let faults = ServerProcess::start(&exe, &["--memory", "--quiet", "--faults", "--poll-interval-ms", "100"])?;
        if faults.admin_token.is_none() {
            return Err(Error::msg(format!("the --faults server at {} printed no admin token", faults.url)));
        }
        let auth = ServerProcess::start(&exe, &["--memory", "--quiet", "--auth", AUTH_TOKEN])?;
        eprintln!(
            "xtask: reference servers for the wasm client tests: {} (--faults), {} (--auth)",
            faults.url, auth.url
        );
        Ok(Self { faults, auth })
    }

    /// The compile-time variables tests/wasm_common/client.rs reads with `option_env!`.
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("MCP_TEST_SERVER", self.faults.url.clone()),
            ("MCP_TEST_ADMIN_TOKEN", self.faults.admin_token.clone().unwrap_or_default()),
            ("MCP_TEST_AUTH_SERVER", self.auth.url.clone()),
            ("MCP_TEST_AUTH_TOKEN", AUTH_TOKEN.to_owned()),
        ]
    }
}

/// Variables that would override the runtime a test binary was built for, or point the runner at
/// another browser or driver (each engine's check sets its own, see [`crate::engines::EngineDriver::set_runner_env`]);
/// cleared so the runs mean what their names say.
const OVERRIDING_ENV: [&str; 20] = [
    "WASM_BINDGEN_USE_BROWSER",
    "WASM_BINDGEN_USE_DEDICATED_WORKER",
    "WASM_BINDGEN_USE_SHARED_WORKER",
    "WASM_BINDGEN_USE_SERVICE_WORKER",
    "WASM_BINDGEN_USE_NODE_EXPERIMENTAL",
    "WASM_BINDGEN_USE_DENO",
    "WASM_BINDGEN_TEST_ONLY_NODE",
    "WASM_BINDGEN_TEST_ONLY_WEB",
    "NO_HEADLESS",
    "GECKODRIVER",
    "GECKODRIVER_REMOTE",
    "GECKODRIVER_ARGS",
    "SAFARIDRIVER",
    "SAFARIDRIVER_REMOTE",
    "SAFARIDRIVER_ARGS",
    "CHROMEDRIVER",
    "CHROMEDRIVER_REMOTE",
    "CHROMEDRIVER_ARGS",
    "MSEDGEDRIVER",
    "MSEDGEDRIVER_REMOTE",
];

/// How long the runner may wait for one binary's tests, in seconds (its default, 20, is tight for a
/// cold Chromium start on a busy two-core CI machine). An explicit setting in the environment wins.
const TEST_TIMEOUT_SECS: &str = "120";

/// Which runs to make.
#[derive(Clone, Copy)]
pub enum Scope<'a> {
    /// Every runtime (`cargo xtask test`): the browser runtimes in Chromium, Node, then the browser
    /// runtimes again in Firefox ESR and in WebKitGTK.
    Everything,
    /// Only the browser runtimes, in these engines (`cargo xtask engines`).
    Engines(&'a [Engine]),
}

/// The (runtime, engine) pairs `scope` runs, in order; `None` for Node.
fn plan(scope: Scope) -> Vec<(&'static Runtime, Option<Engine>)> {
    let in_browser =
        |engine: Engine| RUNTIMES.iter().filter(|r| r.place != Place::Node).map(move |r| (r, Some(engine)));
    match scope {
        Scope::Everything => RUNTIMES
            .iter()
            .map(|runtime| (runtime, (runtime.place != Place::Node).then_some(Engine::Chromium)))
            .chain([Engine::Firefox, Engine::WebKit].into_iter().flat_map(in_browser))
            .collect(),
        Scope::Engines(engines) => engines.iter().flat_map(|&engine| in_browser(engine)).collect(),
    }
}

/// Builds the wasm test binaries once, then runs each runtime of `scope` as one check. Setup failures
/// (no runner, an engine that could not be installed, a compile error) fail the checks that need them,
/// with the reason, rather than stopping `cargo xtask test`. Browser checks are also recorded per engine
/// in `tally`.
pub fn run(
    root: &Path,
    tools: &BuildTools,
    engines: &Engines,
    scope: Scope,
    checks: &mut Checks,
    tally: &mut EngineTally,
) {
    let runner = toolchain::ensure_test_runner(root, tools).map_err(|e| e.to_string());
    // Started before the build: the client binaries compile their addresses in. Without them those
    // binaries still build (and would fail, saying why), but their checks fail here with the reason.
    let servers =
        runner.as_ref().map_err(Clone::clone).and_then(|_| TestServers::start(root).map_err(|e| e.to_string()));
    let env = servers.as_ref().map(TestServers::env).unwrap_or_default();
    let built = runner.clone().and_then(|_| build(root, &env).map_err(|e| e.to_string()));

    for (runtime, engine) in plan(scope) {
        let name = runtime.check(engine);
        let passed = checks.run(&name, || -> Result<()> {
            let runner = runner.as_ref().map_err(|e| Error::msg(format!("no test runner: {e}")))?;
            built.as_ref().map_err(|e| Error::msg(format!("the wasm test binaries did not build: {e}")))?;
            if runtime.needs_servers {
                servers.as_ref().map_err(|e| Error::msg(format!("no reference servers to test against: {e}")))?;
            }
            let mut test = test_command(root, runner, runtime.test_targets, &env);
            if let Some(engine) = engine {
                let driver = engines
                    .get(engine)
                    .map_err(|e| Error::msg(format!("{} could not be set up: {e}", engine.name())))?;
                driver.set_runner_env(&mut test);
                test = driver.wrap(test);
            } else if let Ok(version) = cmd::stdout_of(&mut cmd::command("node", ["--version"])) {
                eprintln!("xtask: Node.js for the wasm tests: {}", version.trim());
            }
            eprintln!("xtask: with {}", environment(&test));
            let started = Instant::now();
            let outcome = cmd::run(&mut test);
            eprintln!("xtask: {name}: {:.1}s", started.elapsed().as_secs_f64());
            outcome.map_err(|e| Error::msg(format!("{e}; the failing tests are listed above")))
        });
        if let Some(engine) = engine {
            tally.record(engine, &name, passed.is_some());
        }
    }
    drop(servers); // stops them
}

/// `cargo test --no-run` for all the wasm test binaries at once, so each runtime's check times
/// only its own run, and a compile error is reported once. `env`: the servers' addresses.
fn build(root: &Path, env: &[(&str, String)]) -> Result<()> {
    let mut build = cmd::cargo();
    build.args(["test", "-p", CRATE, "--target", WASM_TARGET, "--no-run"]).current_dir(root);
    build.envs(env.iter().map(|(name, value)| (name, value)));
    for target in RUNTIMES.iter().flat_map(|runtime| runtime.test_targets) {
        build.args(["--test", target]);
    }
    let started = Instant::now();
    cmd::run(&mut build)?;
    eprintln!("xtask: wasm test binaries built in {:.1}s", started.elapsed().as_secs_f64());
    Ok(())
}

/// `cargo test --target wasm32-unknown-unknown --test <target>…`, run through the pinned runner.
/// `--no-fail-fast`: a failing binary must not hide the results of the others. `env`: the
/// servers' addresses, exactly as the build saw them (or cargo would rebuild).
fn test_command(root: &Path, runner: &Path, test_targets: &[&str], env: &[(&str, String)]) -> Command {
    let mut test = cmd::cargo();
    test.args(["test", "-p", CRATE, "--target", WASM_TARGET, "--no-fail-fast"]).current_dir(root);
    test.envs(env.iter().map(|(name, value)| (name, value)));
    for target in test_targets {
        test.args(["--test", target]);
    }
    test.env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", runner);
    for name in OVERRIDING_ENV {
        test.env_remove(name);
    }
    if std::env::var_os("WASM_BINDGEN_TEST_TIMEOUT").is_none() {
        test.env("WASM_BINDGEN_TEST_TIMEOUT", TEST_TIMEOUT_SECS);
    }
    test
}

/// The variables a command sets (not those it clears), as `NAME=value …`, so the log shows
/// everything needed to rerun it by hand.
fn environment(command: &Command) -> String {
    let set: Vec<String> = command
        .get_envs()
        .filter_map(|(name, value)| Some(format!("{}={}", name.to_string_lossy(), value?.to_string_lossy())))
        .collect();
    set.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_is_chromium_and_node_then_the_other_engines() {
        let names: Vec<String> = plan(Scope::Everything).iter().map(|(r, e)| r.check(*e)).collect();
        assert_eq!(names.len(), 14);
        assert_eq!(names[0], "wasm tests: Chromium page");
        assert_eq!(names[2], "wasm tests: Node");
        assert_eq!(names[6], "wasm tests: Firefox ESR page");
        assert_eq!(names[13], "wasm client tests: WebKitGTK dedicated worker");
        let webkit: Vec<String> = plan(Scope::Engines(&[Engine::WebKit])).iter().map(|(r, e)| r.check(*e)).collect();
        assert_eq!(webkit, names[10..]);
    }

    #[test]
    fn check_names_say_suite_engine_and_place() {
        assert_eq!(RUNTIMES[0].check(Some(Engine::WebKit)), "wasm tests: WebKitGTK page");
        assert_eq!(RUNTIMES[4].check(Some(Engine::Firefox)), "wasm client tests: Firefox ESR dedicated worker");
        assert_eq!(RUNTIMES[2].check(None), "wasm tests: Node");
    }

    #[test]
    fn exactly_the_client_binaries_need_the_servers() {
        for runtime in &RUNTIMES {
            let client = runtime.test_targets.iter().all(|t| t.starts_with("wasm_client_"));
            assert_eq!(runtime.needs_servers, client, "{}", runtime.check(None));
        }
    }

    #[test]
    fn every_test_binary_exists_and_belongs_to_one_runtime() {
        let mut targets: Vec<&str> = RUNTIMES.iter().flat_map(|r| r.test_targets.iter().copied()).collect();
        let count = targets.len();
        targets.sort_unstable();
        targets.dedup();
        assert_eq!(targets.len(), count, "a test binary is listed under two runtimes");
        for target in targets {
            let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("tests").join(format!("{target}.rs"));
            assert!(file.is_file(), "{} is missing", file.display());
        }
    }
}
