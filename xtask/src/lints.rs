//! The source gates `cargo xtask test` runs before any test: formatting, then clippy natively and for
//! wasm32, each one counted check with `-D warnings`, so a warning fails it as CI would; then the
//! shipped JS: TypeScript's strict check of its JSDoc types, Biome's linter and Biome's formatter.
//!
//! Clippy also enforces the library's size rules (the standard sorts, `join`, text-pattern searches,
//! B-trees, `&s[a..b]`, `write!` with `{:?}`): they are listed with their measured cost in clippy.toml
//! and turned on in src/lib.rs, for the shipped library only.

use std::path::Path;

use crate::checks::Checks;
use crate::cmd;
use crate::error::{Context, Error, Result};
use crate::toolchain::{self, WASM_TARGET};
use crate::wasm_build::JS_DIR;
use crate::{wasm_tests, workspace};

/// What each check is reported as (the exact command is echoed when it runs).
const FMT: &str = "formatting: cargo fmt --all --check";
const CLIPPY_NATIVE: &str = "clippy, native: every package and target, -D warnings";
const CLIPPY_WASM: &str =
    "clippy, wasm32: the first door with the element (the library) and the wasm test binaries, -D warnings";
const CLIPPY_LEGACY: &str =
    "clippy, wasm32: the full door (element, legacy) and the decode bench's build (bench), the library, -D warnings";
const CLIPPY_DOOR: &str =
    "clippy, native: the library and its unit tests with the 2025-11-25 flow (legacy), -D warnings";
const JS_TYPES: &str =
    "tsc --checkJs (strict) over the shipped JS, and pkg-template/client.d.ts against TaskClient (js.tsconfig.json)";
const JS_LINT: &str = "biome lint over the shipped JS (biome.json), warnings as errors";
const JS_FORMAT: &str =
    "biome format over the shipped JS changes nothing (biome.json; `npx biome format --write` fixes it)";

/// The TypeScript project that checks the shipped JS: every file below, the hand-written types of the
/// generated glue and the door protocol (types/), and tests/ts/client-matches-driver.ts.
const JS_TSCONFIG: &str = "js.tsconfig.json";
/// Biome's settings; its `files.includes` lists exactly the shipped JS.
const BIOME_CONFIG: &str = "biome.json";
/// The first line of every shipped JS file.
const TS_CHECK: &str = "// @ts-check";

/// Runs the five checks. Without rustfmt or clippy (and no rustup to add them) the checks that need
/// the missing one fail, saying so; the others still run.
pub fn run(root: &Path, checks: &mut Checks) {
    let tools = toolchain::ensure_lint_tools().map_err(|e| e.to_string());
    let available = || tools.as_ref().map(|_| ()).map_err(|e| Error::msg(format!("rustfmt / clippy unavailable: {e}")));

    checks.run(FMT, || {
        available()?;
        let mut fmt = cmd::cargo();
        fmt.args(["fmt", "--all", "--check"]).current_dir(root);
        cmd::run(&mut fmt).map_err(|e| {
            Error::msg(format!(
                "{e}\nthe diff above is what `cargo fmt --all` changes: run it (settings in rustfmt.toml)"
            ))
        })
    });

    checks.run(CLIPPY_NATIVE, || {
        available()?;
        let mut clippy = cmd::cargo();
        clippy.args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]).current_dir(root);
        cmd::run(&mut clippy).map_err(clippy_failed)
    });

    // The first door as `cargo xtask build` compiles it (wasm32, with the element), and the wasm test
    // binaries, which are `cfg(target_arch = "wasm32")` and so invisible to the native run. Not
    // `--all-targets`: the property tests and benches depend on crates that do not build for wasm32.
    checks.run(CLIPPY_WASM, || {
        available()?;
        let mut clippy = cmd::cargo();
        clippy.args(["clippy", "-p", "mcp-tasks-web", "--target", WASM_TARGET, "--features", "element", "--lib"]);
        for target in wasm_tests::test_targets() {
            clippy.args(["--test", target]);
        }
        clippy.args(["--", "-D", "warnings"]).current_dir(root);
        cmd::run(&mut clippy).map_err(clippy_failed)
    });

    // The `legacy` and `bench` features' code is in no default cargo build: lint it as `cargo xtask
    // build` (the full door) and `cargo xtask bench decode` compile it.
    checks.run(CLIPPY_LEGACY, || {
        available()?;
        for features in ["element,legacy", "bench"] {
            let mut clippy = cmd::cargo();
            clippy.args(["clippy", "-p", "mcp-tasks-web", "--target", WASM_TARGET, "--features", features, "--lib"]);
            clippy.args(["--", "-D", "warnings"]).current_dir(root);
            cmd::run(&mut clippy).map_err(clippy_failed)?;
        }
        Ok::<(), Error>(())
    });

    // The door's native tests of the 2025-11-25 flow, which only a build with `legacy` has.
    checks.run(CLIPPY_DOOR, || {
        available()?;
        let mut native = cmd::cargo();
        native.args(["clippy", "-p", "mcp-tasks-web", "--lib", "--tests", "--features", "legacy"]);
        native.args(["--", "-D", "warnings"]).current_dir(root);
        cmd::run(&mut native).map_err(clippy_failed)
    });
}

/// The shipped JS checks, each counted: tsc (after making sure the two configs name every shipped
/// file), Biome's linter and Biome's formatter. They need node_modules, which `cargo xtask test`
/// installs (`npm ci`) before it runs any check.
pub fn run_js(root: &Path, checks: &mut Checks) {
    let shipped = shipped_js(root);
    checks.run(JS_TYPES, || {
        let shipped = shipped.as_ref().map_err(|e| Error::msg(e.to_string()))?;
        configs_name_every_file(root, shipped)?;
        let mut tsc = std::process::Command::new(root.join("node_modules/.bin/tsc"));
        tsc.args(["-p", JS_TSCONFIG]).current_dir(root);
        cmd::run(&mut tsc)
    });
    checks.run(JS_LINT, || {
        let mut biome = biome(root);
        biome.args(["lint", "--diagnostic-level=warn", "--error-on-warnings"]);
        cmd::run(&mut biome)
    });
    checks.run(JS_FORMAT, || {
        // Without `--write`, `biome format` prints what it would change and fails if anything.
        let mut biome = biome(root);
        biome.arg("format");
        cmd::run(&mut biome).map_err(|e| {
            Error::msg(format!(
                "{e}\nthe diff above is what `npx biome format --write` changes (settings in biome.json)"
            ))
        })
    });
}

/// The pinned Biome (package-lock.json), run from the repository root so it reads biome.json.
fn biome(root: &Path) -> std::process::Command {
    let mut biome = std::process::Command::new(root.join("node_modules/.bin/biome"));
    biome.current_dir(root);
    biome
}

/// Every JS file the package ships that is written by hand: every module under js/ (bundled into pkg/
/// or shipped as a file of its own), as paths from the repository root.
fn shipped_js(root: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    let mut folders = vec![root.join(JS_DIR)];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).context(format!("listing {}", folder.display()))? {
            let path = entry.context(format!("listing {}", folder.display()))?.path();
            let name = path.to_string_lossy();
            if path.is_dir() {
                folders.push(path);
            } else if name.ends_with(".js") || name.ends_with(".mjs") {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                files.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Fails unless each of `shipped` starts with `// @ts-check`, is listed in js.tsconfig.json's `files`
/// and biome.json's `files.includes` (a file missing from either would go unchecked), and types
/// nothing as `any` in its JSDoc (strict tsc refuses only an implicit `any`).
fn configs_name_every_file(root: &Path, shipped: &[String]) -> Result<()> {
    let listed = |config: &str, pointer: &str| -> Result<Vec<String>> {
        let text = workspace::read(&root.join(config))?;
        let json: serde_json::Value = serde_json::from_str(&text).context(format!("parsing {config}"))?;
        let list = json.pointer(pointer).and_then(serde_json::Value::as_array);
        let list = list.ok_or_else(|| Error::msg(format!("{config} has no `{pointer}` list")))?;
        Ok(list.iter().filter_map(serde_json::Value::as_str).map(str::to_owned).collect())
    };
    let tsconfig = listed(JS_TSCONFIG, "/files")?;
    let biome = listed(BIOME_CONFIG, "/files/includes")?;
    let mut problems = Vec::new();
    for file in shipped {
        let text = workspace::read(&root.join(file))?;
        if !text.starts_with(TS_CHECK) {
            problems.push(format!("{file} does not start with `{TS_CHECK}`"));
        }
        for line in lines_typed_any(&text) {
            problems.push(format!("{file}:{line} types a value as `any`"));
        }
        for (config, list) in [(JS_TSCONFIG, &tsconfig), (BIOME_CONFIG, &biome)] {
            if !list.contains(file) {
                problems.push(format!("{config} does not list {file}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::msg(format!("every shipped JS file is checked: {}", problems.join("; "))))
    }
}

/// The JSDoc tags whose `{…}` is a type.
const TYPE_TAGS: [&str; 7] = ["@type", "@param", "@returns", "@typedef", "@property", "@template", "@satisfies"];

/// The lines (from 1) of `text` whose JSDoc type names `any`.
fn lines_typed_any(text: &str) -> Vec<usize> {
    let typed_any = |line: &str| {
        let (Some(open), Some(close)) = (line.find('{'), line.rfind('}')) else { return false };
        // `{` and `}` are ASCII: the slice is on character boundaries.
        open < close && names_any(&line[open + 1..close])
    };
    text.lines()
        .enumerate()
        .filter(|(_, line)| TYPE_TAGS.iter().any(|tag| line.contains(tag)) && typed_any(line))
        .map(|(index, _)| index + 1)
        .collect()
}

/// Whether the type `ty` has the word `any` in it.
fn names_any(ty: &str) -> bool {
    ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).any(|word| word == "any")
}

/// The failure of a clippy run, with where to look.
fn clippy_failed(e: Error) -> Error {
    Error::msg(format!(
        "{e}\nfix the warnings above (`-D warnings` makes each one fail this check); for a size rule, \
         clippy.toml says what it costs and what to use instead"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask/ is in the repository")
    }

    #[test]
    fn every_shipped_js_file_is_type_checked_and_linted() {
        let shipped = shipped_js(root()).unwrap();
        assert!(shipped.contains(&"js/driver/task_client.js".to_owned()), "{shipped:?}");
        assert!(shipped.contains(&"js/element/element.js".to_owned()), "{shipped:?}");
        assert!(shipped.contains(&"js/entries/node.mjs".to_owned()), "{shipped:?}");
        configs_name_every_file(root(), &shipped).unwrap();
    }

    #[test]
    fn a_jsdoc_type_that_names_any_is_found() {
        let text = "// @ts-check\n/** @param {string} many */\n/** @type {Map<string, any>} */\nconst x = /** @type {any} */ (y);\n// any\n";
        assert_eq!(lines_typed_any(text), [3, 4]);
        assert!(!names_any("Company | anyOf"));
    }

    #[test]
    fn a_shipped_file_missing_from_the_configs_is_named() {
        let error = configs_name_every_file(root(), &["pkg-template/client.d.ts".to_owned()]).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("does not start with `// @ts-check`"), "{text}");
        assert!(text.contains("js.tsconfig.json does not list pkg-template/client.d.ts"), "{text}");
        assert!(text.contains("biome.json does not list pkg-template/client.d.ts"), "{text}");
    }
}
