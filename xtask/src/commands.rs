//! The subcommands: each composes toolchain setup, the wasm build and the checks.
//!
//! Kept apart from `main` so argument parsing stays trivial and each command reads as the
//! sequence of steps its help text promises.

use std::path::{Path, PathBuf};

use crate::checks::Checks;
use crate::cmd;
use crate::engines::{Engine, EngineTally, Engines};
use crate::error::{Error, Result};
use crate::reference_server::{self, ServerProcess};
use crate::wasm_build::{self, Package, Pkg};
use crate::{
    clean_copy, conformance, interop, js_tests, lints, matrix, pack, package_lint, pkg_check, short_names, sizes,
    toolchain, wasm_tests, workspace,
};

const PKG_REFS: &str = "pkg/package.json references only files in pkg/ and types every JS export";
const PACK: &str = "npm pack of pkg/ (target/pack/mcp-tasks-web.tgz)";
const PACKAGE_LINT: &str = "publint and attw report nothing on the tarball";
const HOSTS: &str =
    "host apps built from the tarball in Chromium: Vite + React, webpack, import map, MCP App host (tests/hosts)";

/// `cargo xtask build`: toolchain, pkg/, size table, and the `env`-import gate.
pub fn build(root: &Path) -> Result<()> {
    let tools = toolchain::ensure_build_tools(root)?;
    let package = build_and_report(root, &tools)?;
    for build in package.builds() {
        check_env_imports(build)?;
    }
    eprintln!("xtask: built {}", package.dir.display());
    Ok(())
}

/// `cargo xtask pack`: pkg/ (built first when missing or older than its sources) checked as
/// `cargo xtask test` does, its tarball, and publint + attw on it (seconds, and the tarball is only
/// worth having if they find nothing).
pub fn pack(root: &Path) -> Result<PathBuf> {
    if let Some(why) = pack::pkg_is_stale(root) {
        eprintln!("xtask: {why}; building pkg/ first");
        build(root)?;
    }
    pkg_check::check(&root.join("pkg"))?;
    let tarball = pack::pack(root, &root.join("pkg"))?;
    package_lint::run(root, &tarball)?;
    eprintln!("xtask: publint and attw found nothing in {}", tarball.display());
    Ok(tarball)
}

/// `cargo xtask test`: every test there is — formatting and clippy, the workspace's Rust tests (in the
/// checkout, then in a copy of only the tracked files), the wasm test in Node.js, then the wasm package
/// build and its checks, the JS suites (Node, the end-to-end tests in each engine, edge workers, host
/// apps) and the peers — ending with one line per engine
/// (what passed in it) and a plain `N passed, M failed` line.
pub fn test(root: &Path) -> Result<()> {
    let tools = toolchain::ensure_build_tools(root)?;
    let mut checks = Checks::default();
    // First, and counted like the checks below: a formatting slip or a clippy warning shows before
    // the long steps, and does not stop them.
    lints::run(root, &mut checks);
    lints::run_js(root, &mut checks);
    // Seconds, and nothing built first: the driver against the door protocol's transcripts.
    checks.run(
        "TaskClient from js/ over the door protocol's transcripts, scripted door and fetch (tests/js-unit)",
        || js_tests::run_unit(root),
    );
    // Streamed, not `-q`: the per-binary "test result:" lines are the evidence CI reads.
    // `--no-fail-fast`: one failing test binary must not hide the results of the others.
    let mut cargo_test = cmd::cargo();
    cargo_test.args(["test", "--workspace", "--no-fail-fast"]).current_dir(root);
    cmd::run(&mut cargo_test).map_err(|e| Error::msg(format!("{e}; fix the Rust tests first (output above)")))?;

    // The door's 2025-11-25 flow is compiled only with `legacy`, which no workspace member enables.
    checks.run("the door's native tests with the 2025-11-25 flow (`--features legacy`)", || {
        let mut door = cmd::cargo();
        door.args(["test", "-p", "mcp-tasks-web", "--lib", "--features", "legacy", "door::"]).current_dir(root);
        cmd::run(&mut door)
    });
    checks.run("the door protocol's transcripts replayed by the full door (`--features legacy`)", || {
        let mut door = cmd::cargo();
        door.args(["test", "-p", "mcp-tasks-web", "--features", "legacy", "--test", "door_transcripts"])
            .current_dir(root);
        cmd::run(&mut door)
    });
    checks.run("the same tests from a copy of only the files git tracks, with nothing beside it", || {
        clean_copy::run(root)
    });
    // Every engine's browser and driver, installed where missing; an engine that cannot be set up
    // fails its own checks only.
    let engines = Engines::prepare();
    let mut tally = EngineTally::default();
    wasm_tests::run(root, &tools, &mut checks);
    let pkg = checks.run("wasm build of pkg/ (as `cargo xtask build`)", || build_and_report(root, &tools));
    let pkg_built = pkg.is_some();
    let mut tarball = None;
    match pkg {
        Some(pkg) => {
            checks.run("final .wasm files import nothing from `env`", || {
                pkg.builds().into_iter().try_for_each(check_env_imports)
            });
            checks.run(PKG_REFS, || {
                pkg_check::check(&pkg.dir)
                    .map(|refs| eprintln!("xtask: package.json references present: {}", refs.join(", ")))
            });
            checks.run("a TypeScript host type-checks against pkg/*.d.ts (tests/ts)", || {
                let mut tsc = std::process::Command::new(root.join("node_modules/.bin/tsc"));
                tsc.args(["-p", "tests/ts/tsconfig.json"]).current_dir(root);
                cmd::run(&mut tsc)
            });
            tarball = checks.run(PACK, || pack::pack(root, &pkg.dir));
            match &tarball {
                Some(tarball) => {
                    checks.run(PACKAGE_LINT, || package_lint::run(root, tarball));
                }
                None => checks.skip(PACKAGE_LINT, "the package was not packed"),
            }
        }
        None => {
            checks.skip("final .wasm imports nothing from `env`", "no package was built");
            checks.skip(PKG_REFS, "no package was built");
            checks.skip("a TypeScript host type-checks against pkg/*.d.ts (tests/ts)", "no package was built");
            checks.skip(PACK, "no package was built");
            checks.skip(PACKAGE_LINT, "no package was built");
        }
    }
    peer_checks(root, &mut checks, pkg_built, tarball.is_some(), &engines, &mut tally);
    report(&checks, &tally, "some xtask checks failed (see above)")
}

/// Prints the per-engine lines and the summary; `Err(failed)` unless every check passed.
fn report(checks: &Checks, tally: &EngineTally, failed: &str) -> Result<()> {
    for line in tally.lines() {
        println!("{line}");
    }
    println!("{}", checks.summary());
    if checks.all_passed() {
        Ok(())
    } else {
        Err(Error::msg(failed))
    }
}

/// `cargo xtask demo`: builds pkg/ (both task generations, so `?server=` may name a server of either)
/// and the reference server, then serves the demo page (one process).
pub fn demo(root: &Path) -> Result<()> {
    build(root)?;
    let exe = reference_server::build(root)?;
    reference_server::run_demo(root, &exe, &root.join("pkg"))
}

/// The checks that need the reference server (built, or running): the JS suites (Node, the
/// end-to-end tests in each engine, the edge workers, the host apps from the tarball when `packed`),
/// the official conformance suite and the interop check with the official TypeScript requester.
fn peer_checks(
    root: &Path,
    checks: &mut Checks,
    pkg_built: bool,
    packed: bool,
    engines: &Engines,
    tally: &mut EngineTally,
) {
    const NODE: &str = "TaskClient in Node against the reference server (tests/js)";
    const E2E: &str = "end to end in headless Chromium (tests/e2e)";
    const EDGE: &str = "edge workers: step mode in workerd (miniflare) and Deno (tests/edge)";
    const CONFORMANCE: &str = "official conformance suite (tasks-*, http-header-validation, dns-rebinding-protection)";
    const INTEROP: &str = "interop with @modelcontextprotocol/ext-tasks 0.2.2";
    const MATRIX: &str = "interop matrix: TaskClient against SDK-built servers (tests/interop/matrix)";
    let engine_e2e = [Engine::Firefox, Engine::WebKit].map(|engine| (engine, engine_e2e_check(engine)));
    let Some(exe) = checks.run("reference server builds", || reference_server::build(root)) else {
        for name in [NODE, E2E, EDGE, HOSTS, CONFORMANCE, INTEROP, MATRIX] {
            checks.skip(name, "the server did not build");
        }
        for (engine, name) in &engine_e2e {
            checks.skip(name, "the server did not build");
            tally.record(*engine, name, false);
        }
        return;
    };
    if pkg_built {
        matrix::run(root, &exe, checks, false);
    } else {
        checks.skip(MATRIX, "an earlier check failed, so pkg/ may be stale");
    }
    const CLIENT_CONFORMANCE: &str =
        "official conformance suite, client scenarios, driving TaskClient (tests/conformance-client)";
    if pkg_built {
        checks.run(CLIENT_CONFORMANCE, || {
            let mut run = std::process::Command::new("sh");
            run.args(["tests/conformance-client/run.sh"]).current_dir(root);
            cmd::run(&mut run)
        });
    } else {
        checks.skip(CLIENT_CONFORMANCE, "an earlier check failed, so pkg/ may be stale");
    }
    // The Node suites under Node 22 (the edge tests' miniflare needs it).
    for (name, node, dir) in
        [(NODE, js_tests::NODE22, "tests/js"), (E2E, "node", "tests/e2e"), (EDGE, js_tests::NODE22, "tests/edge")]
    {
        if !root.join(dir).is_dir() {
            continue;
        }
        let passed = if pkg_built {
            checks.run(name, || js_tests::run_with(root, node, dir, &exe)).is_some()
        } else {
            checks.skip(name, "an earlier check failed, so pkg/ may be stale");
            false
        };
        if name == E2E {
            tally.record(Engine::Chromium, name, passed);
        }
    }
    // The main end-to-end paths again in Firefox ESR and WebKitGTK, over plain WebDriver (tests/engines).
    for (engine, name) in &engine_e2e {
        let passed = if pkg_built {
            checks.run(name, || run_engine_e2e(root, engines, *engine, &exe)).is_some()
        } else {
            checks.skip(name, "an earlier check failed, so pkg/ may be stale");
            false
        };
        tally.record(*engine, name, passed);
    }
    // The host apps install target/pack/mcp-tasks-web.tgz and start their own reference servers.
    if packed {
        checks.run(HOSTS, || js_tests::run_with(root, "node", "tests/hosts", &exe));
    } else {
        checks.skip(HOSTS, "the package was not packed");
    }
    let Some(server) = checks.run("reference server starts", || ServerProcess::start(&exe, &["--memory", "--quiet"]))
    else {
        checks.skip(CONFORMANCE, "the server did not start");
        checks.skip(INTEROP, "the server did not start");
        return;
    };
    checks.run(CONFORMANCE, || {
        let tally = conformance::run(root, &server.url)?;
        eprintln!("xtask: conformance: {} runs, {}/{} checks passed", tally.runs, tally.passed, tally.total);
        if tally.failures.is_empty() && tally.passed == tally.total {
            Ok(())
        } else {
            Err(Error::msg(format!("failing scenarios:\n  {}", tally.failures.join("\n  "))))
        }
    });
    checks.run(INTEROP, || interop::run(root, &server.url));
}

/// The name of the end-to-end check in `engine` (tests/engines).
fn engine_e2e_check(engine: Engine) -> String {
    format!(
        "end to end in {}: reload resume, two tabs, a form answered, results drawn, offline, fallbacks (tests/engines)",
        engine.name()
    )
}

/// `node --test tests/engines/` against `engine` (under xvfb-run for WebKit), with the server `exe`.
fn run_engine_e2e(root: &Path, engines: &Engines, engine: Engine, exe: &Path) -> Result<()> {
    let driver = engines.get(engine).map_err(|e| Error::msg(format!("{} could not be set up: {e}", engine.name())))?;
    let mut node = js_tests::command(root, "node", "tests/engines", exe)?;
    driver.set_engine_tests_env(&mut node);
    cmd::run(&mut driver.wrap(node))
}

/// `cargo xtask engines [chromium|firefox|webkit…]`: only the engine checks, in the engines named
/// (default Firefox ESR and WebKitGTK): pkg/, the reference server and the end-to-end tests
/// (tests/engines; Chromium's are tests/e2e), ending with the line per engine.
pub fn engines(root: &Path, which: &[Engine]) -> Result<()> {
    let tools = toolchain::ensure_build_tools(root)?;
    let engines = Engines::prepare();
    let mut checks = Checks::default();
    let mut tally = EngineTally::default();
    let pkg = checks.run("wasm build of pkg/ (as `cargo xtask build`)", || build_and_report(root, &tools));
    let exe = checks.run("reference server builds", || reference_server::build(root));
    for &engine in which {
        let name = match engine {
            Engine::Chromium => "end to end in headless Chromium (tests/e2e)".to_owned(),
            other => engine_e2e_check(other),
        };
        let passed = match (&pkg, &exe) {
            (Some(_), Some(exe)) => checks
                .run(&name, || match engine {
                    Engine::Chromium => js_tests::run_with(root, "node", "tests/e2e", exe),
                    other => run_engine_e2e(root, &engines, other, exe),
                })
                .is_some(),
            _ => {
                checks.skip(&name, "pkg/ or the reference server did not build");
                false
            }
        };
        tally.record(engine, &name, passed);
    }
    report(&checks, &tally, "some engine checks failed (see above)")
}

/// `cargo xtask interop`: only the interop matrix — pkg/, the reference server, the peers from their
/// lockfiles, then every (server, cell); `MATRIX_SERVERS` / `MATRIX_CELLS` (comma-separated) narrow it.
pub fn interop(root: &Path) -> Result<()> {
    let tools = toolchain::ensure_build_tools(root)?;
    toolchain::ensure_browser()?;
    let mut checks = Checks::default();
    let pkg = checks.run("wasm build of pkg/ (as `cargo xtask build`)", || build_and_report(root, &tools));
    let exe = checks.run("reference server builds", || reference_server::build(root));
    if let (Some(_), Some(exe)) = (pkg, exe) {
        matrix::run(root, &exe, &mut checks, true);
    }
    println!("{}", checks.summary());
    if checks.all_passed() {
        Ok(())
    } else {
        Err(Error::msg("some interop matrix checks failed (see above)"))
    }
}

/// `cargo xtask setup [--browser]`: installs whatever is missing, builds nothing.
pub fn setup(root: &Path, browser: bool) -> Result<()> {
    toolchain::ensure_build_tools(root)?;
    toolchain::ensure_lint_tools()?;
    // The interop matrix's peers: Python venvs and npm installs from their lockfiles.
    matrix::prepare_all(root)?;
    if browser {
        toolchain::ensure_browser()?;
        toolchain::ensure_firefox()?;
        toolchain::ensure_webkit()?;
    }
    eprintln!("xtask: setup complete");
    Ok(())
}

/// Builds pkg/ and prints the size table of each kind of host (shared by build, test and demo);
/// fails when either download is over its budget.
fn build_and_report(root: &Path, tools: &toolchain::BuildTools) -> Result<Package> {
    let package = wasm_build::build(root, tools)?;
    let measure = |files: &[PathBuf]| files.iter().map(|f| sizes::measure(f)).collect::<Result<Vec<_>>>();
    let client = measure(&package.client_files())?;
    let element = measure(&package.element_files())?;
    // A page whose data layer imports "mcp-tasks-web" and whose UI imports "mcp-tasks-web/element":
    // each file its modules import, once, and the module init() loads there (the card host's).
    let split = measure(&sizes::page_files(&package.dir, &["client.js", "element.js"], &package.element.wasm)?)?;
    let full = measure(&package.full_door_files())?;
    let app = measure(&package.app_files())?;
    let sandbox = measure(&package.sandbox_files())?;
    println!(
        "\nA host that imports only TaskClient (mcp-tasks-web, mcp-tasks-web/extension):\n{}",
        sizes::table(&client)
    );
    println!("A host that shows <mcp-task> cards (mcp-tasks-web/element):\n{}", sizes::table(&element));
    println!(
        "A host split in modules (TaskClient from mcp-tasks-web, <mcp-task> from mcp-tasks-web/element):\n{}",
        sizes::table(&split)
    );
    println!(
        "What either loads beside those when a 2025-11-25 server or record is met (the door with that flow):\n{}",
        sizes::table(&full)
    );
    println!(
        "What a page loads when it shows a task's MCP App (mcp-tasks-web/app, the official host bridge bundled; no budget):\n{}",
        sizes::table(&app)
    );
    println!("What the host serves from the app sandbox's own origin (sandbox.html):\n{}", sizes::table(&sandbox));
    sizes::check_budget("the client (.wasm + its JS)", &client, sizes::CLIENT_GZIP_TARGET)?;
    sizes::check_budget(
        "the client with the element (.wasm + its JS + element.js)",
        &element,
        sizes::ELEMENT_GZIP_TARGET,
    )?;
    // The split page loads each piece once: no more than the page that imports the element alone.
    let total = |rows: &[sizes::FileSize]| rows.iter().map(|r| r.gzip).sum::<usize>();
    sizes::check_budget("the host split in modules", &split, total(&element))?;
    Ok(package)
}

/// Fails, listing them, if the final module imports anything from `env`. Read from the module's name
/// map, which keeps the module each import came from before the names were shortened.
fn check_env_imports(pkg: &Pkg) -> Result<()> {
    let map = short_names::NameMap::parse(&workspace::read(&pkg.names_map)?)
        .map_err(|e| Error::msg(format!("reading {}: {e}", pkg.names_map.display())))?;
    let stray: Vec<String> = map
        .imports
        .iter()
        .filter(|(module, _, _)| module == "env")
        .map(|(_, name, _)| format!("  env \"{name}\""))
        .collect();
    if stray.is_empty() {
        eprintln!("xtask: {} has no `env` imports", pkg.wasm.display());
        return Ok(());
    }
    Err(Error::msg(format!(
        "{} imports {} item(s) from `env` — unresolved native symbols that no JS host provides:\n{}\n\
         (usually a dependency that needs libc or a native API; gate it out of the wasm32 build)",
        pkg.wasm.display(),
        stray.len(),
        stray.join("\n")
    )))
}
