//! Short import and export names for a built module, and the glue rewritten to match.
//!
//! wasm-bindgen names each import after the JS it calls plus a 16-digit hash
//! (`__wbg_fetch_5a3ce22db75c603d`) and each export after the Rust item (`taskclient_callTool`); the
//! module and its glue both carry every name, and the hashes do not compress. binaryen's
//! `--minify-imports-and-exports-and-modules` gives them one- or two-letter names (never a JS
//! reserved word) and prints the old → new map; this rewrites the glue's import object, its
//! `wasm.<export>` uses and the module's `.d.ts` from that map. Measured on the client build:
//! the .wasm 1,727 B and the glue 1,353 B smaller gzip. Neither name is part of our API: hosts call
//! the glue's functions and classes, which keep theirs; the module's `memory` keeps its name too,
//! since the package types it (`client_bg.wasm.d.ts`).
//!
//! The map is kept beside the module cargo built ([`Pkg::names_map`](crate::wasm_build::Pkg)), so
//! the `env`-import check still reads the modules the imports came from.
use std::path::Path;

use crate::cmd;
use crate::error::{Context, Error, Result};
use crate::toolchain::BuildTools;
use crate::wasm_imports;
use crate::workspace;

/// Exports that keep their names: the module's `memory`, which the package's `*_bg.wasm.d.ts` types
/// for hosts that read it (one name, a few bytes).
const KEPT_EXPORTS: [&str; 1] = ["memory"];

/// The old → new names binaryen printed.
#[derive(Debug, Default, PartialEq)]
pub struct NameMap {
    /// (module, old name, new name) of each import.
    pub imports: Vec<(String, String, String)>,
    /// (old name, new name) of each export.
    pub exports: Vec<(String, String)>,
}

impl NameMap {
    /// Reads the JSON binaryen prints: `{"imports": [[module, old, new], …], "exports": [[old, new], …]}`.
    pub fn parse(text: &str) -> Result<NameMap> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::msg(format!("the name map is not JSON: {e}")))?;
        let rows = |key: &str| -> Result<Vec<Vec<String>>> {
            let rows = json[key].as_array().ok_or_else(|| Error::msg(format!("the name map has no `{key}` list")))?;
            rows.iter()
                .map(|row| {
                    row.as_array()
                        .and_then(|cells| cells.iter().map(|c| c.as_str().map(str::to_owned)).collect())
                        .ok_or_else(|| Error::msg(format!("a `{key}` row of the name map is not a list of strings")))
                })
                .collect()
        };
        let imports = rows("imports")?
            .into_iter()
            .map(|row| match <[String; 3]>::try_from(row) {
                Ok([module, old, new]) => Ok((module, old, new)),
                Err(_) => Err(Error::msg("an `imports` row of the name map has not three names")),
            })
            .collect::<Result<_>>()?;
        let exports = rows("exports")?
            .into_iter()
            .map(|row| match <[String; 2]>::try_from(row) {
                Ok([old, new]) => Ok((old, new)),
                Err(_) => Err(Error::msg("an `exports` row of the name map has not two names")),
            })
            .collect::<Result<_>>()?;
        Ok(NameMap { imports, exports })
    }

    /// The one module every import came from (wasm-bindgen's `./<name>_bg.js`).
    fn import_module(&self) -> Result<&str> {
        let mut modules = self.imports.iter().map(|(module, _, _)| module.as_str());
        let first = modules.next().ok_or_else(|| Error::msg("the module imports nothing"))?;
        match modules.find(|m| *m != first) {
            None => Ok(first),
            Some(other) => Err(Error::msg(format!(
                "imports come from `{first}` and `{other}`; the glue provides one import object"
            ))),
        }
    }
}

/// Shortens `wasm`'s import and export names in place, rewrites `glue` (wasm-bindgen's JS, before
/// esbuild) and `wasm_types` (its `_bg.wasm.d.ts`) to match, and writes the map to `map_out`.
pub fn shorten(tools: &BuildTools, wasm: &Path, glue: &Path, wasm_types: &Path, map_out: &Path) -> Result<()> {
    let tmp = wasm.with_extension("wasm.short");
    let mut opt = tools.wasm_opt.command();
    opt.arg("--minify-imports-and-exports-and-modules")
        .args(crate::toolchain::WASM_OPT_FEATURES)
        .arg(wasm)
        .arg("-o")
        .arg(&tmp);
    let printed = cmd::stdout_of(&mut opt)?;
    let mut map = NameMap::parse(&printed)?;
    let mut bytes = std::fs::read(&tmp).context(format!("reading {}", tmp.display()))?;
    for keep in KEPT_EXPORTS {
        if let Some(at) = map.exports.iter().position(|(old, _)| old == keep) {
            let (_, short) = map.exports.remove(at);
            bytes = wasm_imports::rename_export(&bytes, &short, keep).map_err(Error::msg)?;
        }
    }
    std::fs::write(&tmp, &bytes).context(format!("writing {}", tmp.display()))?;
    let new_module = only_module(&bytes)?;

    let js = rewrite_glue(&workspace::read(glue)?, &map, &new_module)?;
    let types = rewrite_wasm_types(&workspace::read(wasm_types)?, &map);
    std::fs::write(glue, js).context(format!("writing {}", glue.display()))?;
    std::fs::write(wasm_types, types).context(format!("writing {}", wasm_types.display()))?;
    std::fs::write(map_out, printed).context(format!("writing {}", map_out.display()))?;
    std::fs::rename(&tmp, wasm).context(format!("replacing {} with the renamed module", wasm.display()))
}

/// The one module name the renamed module imports from.
fn only_module(wasm: &[u8]) -> Result<String> {
    let imports = wasm_imports::imports(wasm).map_err(|e| Error::msg(format!("reading the renamed module: {e}")))?;
    let first =
        imports.first().map(|i| i.module.clone()).ok_or_else(|| Error::msg("the renamed module imports nothing"))?;
    if imports.iter().all(|i| i.module == first) {
        Ok(first)
    } else {
        Err(Error::msg("the renamed module imports from more than one module"))
    }
}

/// The glue with each import's key, the import object's module key and each `wasm.<export>` renamed.
/// Every import key must occur exactly once (a name the glue does not define would fail at
/// instantiation; one defined twice means the text is not what this expects).
pub fn rewrite_glue(js: &str, map: &NameMap, new_module: &str) -> Result<String> {
    let old_module = map.import_module()?;
    let mut out = replace_once(js, &format!("\"{old_module}\": "), &format!("\"{new_module}\": "))?;
    for (_, old, new) in &map.imports {
        out = replace_key(&out, old, new)?;
    }
    for (old, new) in &map.exports {
        out = replace_after(&out, &format!("wasm.{old}"), &format!("wasm.{new}"));
    }
    Ok(out)
}

/// The module's `.d.ts` (`export const <name>: …;` per export) under the new names.
pub fn rewrite_wasm_types(types: &str, map: &NameMap) -> String {
    let mut out = types.to_owned();
    for (old, new) in &map.exports {
        out = replace_after(&out, &format!("export const {old}:"), &format!("export const {new}:"));
    }
    out
}

/// `text` with its one `from` replaced by `to`; an error if it occurs zero or several times.
fn replace_once(text: &str, from: &str, to: &str) -> Result<String> {
    match text.match_indices(from).count() {
        1 => Ok(text.replacen(from, to, 1)),
        n => Err(Error::msg(format!("expected `{from}` once in the glue, found it {n} times"))),
    }
}

/// The import object's key `old:` (after whitespace, `{` or `,`) renamed, which must occur once.
fn replace_key(text: &str, old: &str, new: &str) -> Result<String> {
    let needle = format!("{old}:");
    let at: Vec<usize> = text
        .match_indices(&needle)
        .map(|(i, _)| i)
        .filter(|&i| text[..i].chars().next_back().is_none_or(|c| c.is_whitespace() || c == '{' || c == ','))
        .collect();
    match at.as_slice() {
        [i] => Ok(format!("{}{new}:{}", &text[..*i], &text[i + needle.len()..])),
        _ => Err(Error::msg(format!("expected the import `{old}` once in the glue, found it {} times", at.len()))),
    }
}

/// Every `from` that is not followed by another identifier character (so `wasm.free` leaves
/// `wasm.free_all` alone) replaced by `to`.
fn replace_after(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(from) {
        let after = &rest[i + from.len()..];
        let whole = !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$');
        out.push_str(&rest[..i]);
        out.push_str(if whole { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> NameMap {
        NameMap::parse(
            r#"{ "imports": [ ["./x_bg.js", "__wbg_fetch_0123456789abcdef", "a"], ["./x_bg.js", "__wbg_get_fedcba9876543210", "$"] ],
                 "exports": [ ["taskclient_open", "Ab"], ["free", "b"], ["memory", "c"] ] }"#,
        )
        .expect("valid map")
    }

    #[test]
    fn reads_what_binaryen_prints() {
        let m = map();
        assert_eq!(m.imports[1], ("./x_bg.js".into(), "__wbg_get_fedcba9876543210".into(), "$".into()));
        assert_eq!(
            m.exports,
            [("taskclient_open".into(), "Ab".into()), ("free".into(), "b".into()), ("memory".into(), "c".into())]
        );
        assert!(NameMap::parse("{}").is_err());
        assert!(NameMap::parse(r#"{"imports": [["m", "a"]], "exports": []}"#).is_err());
    }

    #[test]
    fn renames_the_import_object_and_the_export_uses_and_nothing_else() {
        let glue = "function __wbg_get_imports() {\n    const import0 = {\n        __proto__: null,\n        \
                    __wbg_fetch_0123456789abcdef: function(a) { return wasm.free_all(a) + wasm.free(a); },\n        \
                    __wbg_get_fedcba9876543210: function() { return wasm.memory; },\n    };\n    \
                    return { __proto__: null, \"./x_bg.js\": import0 };\n}\n\
                    export function open(o) { return wasm.taskclient_open(o); }\n\
                    const note = 'x.__wbg_fetch_0123456789abcdef: stays';\n";
        let out = rewrite_glue(glue, &map(), "z").expect("rewrites");
        assert!(out.contains("        a: function(a) { return wasm.free_all(a) + wasm.b(a); }"), "{out}");
        assert!(out.contains("        $: function() { return wasm.c; }"), "{out}");
        assert!(out.contains("\"z\": import0"), "{out}");
        assert!(out.contains("return wasm.Ab(o);"), "{out}");
        assert!(out.contains("'x.__wbg_fetch_0123456789abcdef: stays'"), "only keys are renamed: {out}");
    }

    #[test]
    fn refuses_glue_that_does_not_define_each_import_once() {
        let missing = "const import0 = { __wbg_fetch_0123456789abcdef: f }; return { \"./x_bg.js\": import0 };";
        assert!(rewrite_glue(missing, &map(), "z").is_err());
        let twice = "{ __wbg_fetch_0123456789abcdef: f, __wbg_get_fedcba9876543210: g, __wbg_get_fedcba9876543210: g, \"./x_bg.js\": import0 }";
        assert!(rewrite_glue(twice, &map(), "z").is_err());
    }

    #[test]
    fn renames_the_module_types() {
        let types = "export const memory: WebAssembly.Memory;\nexport const taskclient_open: (a: any) => any;\nexport const free_all: () => void;\n";
        let out = rewrite_wasm_types(types, &map());
        assert_eq!(out, "export const c: WebAssembly.Memory;\nexport const Ab: (a: any) => any;\nexport const free_all: () => void;\n");
    }
}
