//! Checks that pkg/package.json points only at files that exist in pkg/ (its `exports`, entry
//! fields and `files`, so `npm pack` leaves nothing out), and that every JavaScript entry in `exports`
//! has a `types` condition beside it.
//!
//! The template's `exports`/`types`/`main`/`module` name wasm-bindgen's output files; if
//! wasm-bindgen renames one, or someone edits the template, `import "mcp-tasks-web"` breaks for
//! users while every Rust test still passes. This check catches that before publishing.

use std::path::Path;

use serde_json::Value;

use crate::error::{Context, Error, Result};
use crate::workspace;

/// Top-level fields whose string value is a path into the package.
const PATH_FIELDS: [&str; 5] = ["main", "module", "types", "typings", "browser"];

/// Returns the referenced paths (all present), or an error listing the missing ones.
pub fn check(pkg_dir: &Path) -> Result<Vec<String>> {
    let manifest_path = pkg_dir.join("package.json");
    let manifest: Value = serde_json::from_str(&workspace::read(&manifest_path)?)
        .context(format!("parsing {}", manifest_path.display()))?;
    let exports = manifest
        .get("exports")
        .ok_or_else(|| Error::msg(format!("{} has no `exports` map", manifest_path.display())))?;

    let mut referenced = Vec::new();
    collect_strings(exports, &mut referenced);
    for field in PATH_FIELDS {
        if let Some(Value::String(path)) = manifest.get(field) {
            referenced.push(path.clone());
        }
    }
    // `files` decides what `npm pack` ships: a name there that pkg/ lacks is silently left out.
    if let Some(Value::Array(files)) = manifest.get("files") {
        referenced.extend(files.iter().filter_map(Value::as_str).map(|name| format!("./{name}")));
    }
    referenced.sort();
    referenced.dedup();

    let mut problems: Vec<String> = referenced.iter().filter_map(|p| problem(pkg_dir, p)).collect();
    let mut untyped_entries = Vec::new();
    untyped(exports, "exports", &mut untyped_entries);
    problems
        .extend(untyped_entries.into_iter().map(|entry| format!("{entry}: JavaScript without a `types` condition")));
    if problems.is_empty() {
        Ok(referenced)
    } else {
        Err(Error::msg(format!(
            "{} references files not in {} or leaves JavaScript untyped:\n  {}",
            manifest_path.display(),
            pkg_dir.display(),
            problems.join("\n  ")
        )))
    }
}

/// Where `exports` offers a JavaScript file with no `types` condition beside it. TypeScript would
/// still find a `.d.ts` named like the file, and publint and attw accept that, but a condition's own
/// `types` is what keeps each condition (node, deno, workerd) typed as its own file.
fn untyped(value: &Value, at: &str, out: &mut Vec<String>) {
    let is_js = |path: &str| [".js", ".mjs", ".cjs"].iter().any(|ext| path.ends_with(ext));
    match value {
        Value::String(path) if is_js(path) => out.push(format!("{at}: {path}")),
        Value::Object(map) => {
            let typed = map.contains_key("types");
            for (key, value) in map.iter().filter(|(key, _)| *key != "types") {
                match value {
                    Value::String(path) if typed || !is_js(path) => {}
                    value => untyped(value, &format!("{at}[\"{key}\"]"), out),
                }
            }
        }
        _ => {}
    }
}

/// Every string leaf of an `exports` value (conditions map to paths; keys are not paths).
fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// Why `reference` is not a file inside `pkg_dir`, if it is not.
fn problem(pkg_dir: &Path, reference: &str) -> Option<String> {
    let Some(relative) = reference.strip_prefix("./") else {
        return Some(format!("{reference}: package paths must start with \"./\""));
    };
    if relative.contains('*') {
        return Some(format!("{reference}: subpath patterns are not used by this package"));
    }
    if relative.split('/').any(|part| part == ".." || part.is_empty()) {
        return Some(format!("{reference}: path leaves the package or has empty segments"));
    }
    (!pkg_dir.join(relative).is_file()).then(|| format!("{reference}: no such file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_missing_and_malformed_references() {
        let dir = std::env::temp_dir().join(format!("xtask-pkg-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("a.js"), "").expect("write a.js");
        std::fs::write(
            dir.join("package.json"),
            r#"{"main":"./a.js","types":"./a.d.ts","exports":{".":{"types":"./a.d.ts","default":"./a.js"},"./x":"x.js"}}"#,
        )
        .expect("write package.json");
        let err = check(&dir).expect_err("a.d.ts is missing and x.js lacks ./").to_string();
        assert!(err.contains("./a.d.ts: no such file"), "{err}");
        assert!(err.contains("x.js: package paths must start"), "{err}");

        std::fs::write(dir.join("a.d.ts"), "").expect("write a.d.ts");
        std::fs::write(
            dir.join("package.json"),
            r#"{"types":"./a.d.ts","exports":{".":"./a.js"},"files":["LICENSE"]}"#,
        )
        .expect("rewrite");
        let err = check(&dir).expect_err("`.` offers a.js without types").to_string();
        assert!(err.contains(r#"exports["."]: ./a.js"#), "{err}");
        std::fs::write(
            dir.join("package.json"),
            r#"{"types":"./a.d.ts","exports":{".":{"node":{"types":"./a.d.ts","default":"./a.js"},"default":"./a.js"},"./b":{"default":"./a.js"}},"files":["LICENSE"]}"#,
        )
        .expect("rewrite");
        let err = check(&dir).expect_err("the default condition and ./b lack types").to_string();
        assert!(
            err.contains(r#"exports["."]["default"]: ./a.js"#) && err.contains(r#"exports["./b"]["default"]: ./a.js"#),
            "{err}"
        );
        assert!(!err.contains("node"), "the node condition has its types: {err}");
        std::fs::write(
            dir.join("package.json"),
            r#"{"types":"./a.d.ts","exports":{".":{"types":"./a.d.ts","default":"./a.js"},"./types":"./a.d.ts"},"files":["LICENSE"]}"#,
        )
        .expect("rewrite");
        let err = check(&dir).expect_err("LICENSE is in `files` but missing").to_string();
        assert!(err.contains("./LICENSE: no such file"), "{err}");
        std::fs::write(dir.join("LICENSE"), "").expect("write LICENSE");
        assert_eq!(
            check(&dir).expect("all present"),
            vec!["./LICENSE".to_owned(), "./a.d.ts".to_owned(), "./a.js".to_owned()]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
