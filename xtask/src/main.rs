//! `cargo xtask`: the project's build, test and setup automation, written in Rust so it runs
//! anywhere cargo does, with no shell scripts or Makefiles to keep portable.
//!
//! Exit codes: 0 success, 1 a step failed (with a message saying which and why), 2 bad usage.

mod bench;
mod checks;
mod clean_copy;
mod cmd;
mod commands;
mod conformance;
mod engines;
mod error;
mod interop;
mod js_tests;
mod lints;
mod matrix;
mod pack;
mod package_lint;
mod pkg_check;
mod reference_server;
mod short_names;
mod sizes;
mod template;
mod toolchain;
mod wasm_build;
mod wasm_imports;
mod wasm_tests;
mod workspace;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  demo              build pkg/ and the reference server, then serve the demo at http://127.0.0.1:8787/
  test              run every test: cargo fmt --check and clippy (native and wasm32, -D warnings);
                    tsc --checkJs, biome lint and biome format over the shipped JS;
                    cargo test --workspace, in the checkout and again in a copy of only the
                    files git tracks; the wasm number tests in Node.js; build pkg/ and check
                    it; pack it, publint + attw on
                    the tarball, and the host apps (tests/hosts: Vite + React, webpack, import
                    map, an MCP App host) built from it; the end-to-end tests in each engine; the official
                    conformance suite and the ext-tasks interop check
                    against the reference server; the interop matrix (TaskClient against
                    servers on real SDKs, tests/interop/matrix); ends with a line per engine
  interop           only the interop matrix: builds pkg/ and the reference server, installs the
                    peers from their lockfiles, runs every cell per server and prints the table;
                    MATRIX_SERVERS=a,b and MATRIX_CELLS=x,y narrow it
  engines [name...]  only the browser-engine checks, in the engines named (chromium, firefox,
                    webkit; default firefox webkit): the end-to-end tests in each (installs the
                    browsers and drivers if missing), ending with a line per engine
  build             build the npm package in pkg/ (cargo → wasm-bindgen → wasm-opt) and print sizes
  pack              build pkg/ if it is missing or stale, then `npm pack` it into
                    target/pack/mcp-tasks-web.tgz, print its path and size, and run publint
                    and attw on it (fails on any finding)
  bench [figure...] benchmarks beside the official TypeScript requester (all figures, or the
                    named ones: size, poll, resume, scale, core, decode); prints a table, writes
                    target/bench/bench.json and bench.svg; fails when a size budget is over
  setup [--browser] install missing tools: wasm32 target, rustfmt and clippy, wasm-bindgen-cli,
                    npm packages, the interop peers (Python venv, npm ci); --browser also installs
                    the browser engines: chromium + chromedriver, firefox-esr + geckodriver
                    (cargo install), webkit2gtk-driver + xvfb (Debian packages)
  help              show this message

Missing tools are installed on demand by demo, test and build as well.";

/// A parsed command line.
enum Command {
    Build,
    Pack,
    Test,
    Interop,
    Engines { engines: Vec<engines::Engine> },
    Demo,
    Setup { browser: bool },
    Bench { figures: Vec<String> },
    Help,
}

/// Parses the arguments after `cargo xtask`; `Err` carries the usage complaint.
fn parse(args: &[String]) -> Result<Command, String> {
    let (name, rest) = match args.split_first() {
        Some((name, rest)) => (name.as_str(), rest),
        None => return Err("no command given".into()),
    };
    let no_args = |command: Command| match rest {
        [] => Ok(command),
        [extra, ..] => Err(format!("`{name}` takes no arguments (got `{extra}`)")),
    };
    match name {
        "build" => no_args(Command::Build),
        "pack" => no_args(Command::Pack),
        "test" => no_args(Command::Test),
        "interop" => no_args(Command::Interop),
        "engines" => {
            let named: Result<Vec<engines::Engine>, String> = rest
                .iter()
                .map(|name| {
                    engines::Engine::parse(name)
                        .ok_or_else(|| format!("unknown engine `{name}` (engines: chromium, firefox, webkit)"))
                })
                .collect();
            match named? {
                list if list.is_empty() => {
                    Ok(Command::Engines { engines: vec![engines::Engine::Firefox, engines::Engine::WebKit] })
                }
                list => Ok(Command::Engines { engines: list }),
            }
        }
        "demo" => no_args(Command::Demo),
        "help" | "--help" | "-h" => no_args(Command::Help),
        "setup" => match rest {
            [] => Ok(Command::Setup { browser: false }),
            [flag] if flag == "--browser" => Ok(Command::Setup { browser: true }),
            [extra, ..] => Err(format!("`setup` accepts only `--browser` (got `{extra}`)")),
        },
        "bench" => match rest.iter().find(|name| !bench::is_figure(name)) {
            None => Ok(Command::Bench { figures: rest.to_vec() }),
            Some(unknown) => Err(format!("unknown bench figure `{unknown}` (figures: {})", bench::figure_names())),
        },
        other => Err(format!("unknown command `{other}`")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match parse(&args) {
        Ok(command) => command,
        Err(complaint) => {
            eprintln!("xtask: {complaint}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = workspace::root().and_then(|root| match command {
        Command::Build => commands::build(&root),
        Command::Pack => commands::pack(&root).map(|_| ()),
        Command::Test => commands::test(&root),
        Command::Interop => commands::interop(&root),
        Command::Engines { engines } => commands::engines(&root, &engines),
        Command::Demo => commands::demo(&root),
        Command::Setup { browser } => commands::setup(&root, browser),
        Command::Bench { figures } => bench::run(&root, &figures),
        Command::Help => {
            println!("{USAGE}");
            Ok(())
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: error: {err}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_known_commands() {
        assert!(matches!(parse(&args(&["build"])), Ok(Command::Build)));
        assert!(matches!(parse(&args(&["pack"])), Ok(Command::Pack)));
        assert!(matches!(parse(&args(&["setup"])), Ok(Command::Setup { browser: false })));
        assert!(matches!(parse(&args(&["setup", "--browser"])), Ok(Command::Setup { browser: true })));
        assert!(matches!(parse(&args(&["help"])), Ok(Command::Help)));
        assert!(matches!(parse(&args(&["interop"])), Ok(Command::Interop)));
        assert!(
            matches!(parse(&args(&["engines"])), Ok(Command::Engines { engines }) if engines == [engines::Engine::Firefox, engines::Engine::WebKit])
        );
        assert!(
            matches!(parse(&args(&["engines", "webkit"])), Ok(Command::Engines { engines }) if engines == [engines::Engine::WebKit])
        );
        assert!(matches!(parse(&args(&["bench"])), Ok(Command::Bench { figures }) if figures.is_empty()));
        assert!(matches!(parse(&args(&["bench", "size"])), Ok(Command::Bench { figures }) if figures == ["size"]));
    }

    #[test]
    fn rejects_unknown_commands_and_arguments() {
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["bench", "speed-of-light"])).is_err());
        assert!(parse(&args(&["deploy"])).is_err());
        assert!(parse(&args(&["test", "-q"])).is_err());
        assert!(parse(&args(&["pack", "--dry-run"])).is_err());
        assert!(parse(&args(&["setup", "--gpu"])).is_err());
        assert!(parse(&args(&["engines", "netscape"])).is_err());
    }
}
