//! Where the bytes go: function body sizes of the module cargo built, by demangled name and by
//! crate / top-level path, plus the data section.
//!
//! We read the module before wasm-bindgen and wasm-opt, because it is the one that still has the
//! `name` section (the release profile has `debug = false`, which strips DWARF but keeps function
//! names; wasm-opt drops them). Its sizes are larger than the shipped module's — wasm-opt shrinks
//! and inlines — but the shares are what guide the cuts. wasm-bindgen's descriptor functions
//! (`__wbindgen_describe_*` and what only they call) are in this module but never shipped: the
//! CLI interprets and deletes them, so they are counted apart.

use std::collections::HashMap;

use rustc_demangle::demangle;
use wasmparser::{KnownCustom, Name, Parser, Payload, TypeRef};

/// One function body.
#[derive(Clone, Debug)]
pub struct Function {
    /// Demangled, without the hash (`alloc::raw_vec::RawVec<T,A>::grow_one`).
    pub name: String,
    /// Its group ([`group_of`]).
    pub group: String,
    /// Body bytes (locals and code, without the size prefix).
    pub size: u64,
}

/// A module's bytes by kind.
#[derive(Clone, Debug, Default)]
pub struct Breakdown {
    /// The whole file.
    pub module_bytes: u64,
    /// Sum of function bodies, descriptors included.
    pub code_bytes: u64,
    /// Sum of data segment contents (string literals, tables, …).
    pub data_bytes: u64,
    /// Custom sections by name (`name`, `__wasm_bindgen_unstable`, …) and their sizes.
    pub custom_sections: Vec<(String, u64)>,
    /// Every defined function except wasm-bindgen's descriptors.
    pub functions: Vec<Function>,
    /// wasm-bindgen's descriptor functions: how many, and their bytes.
    pub descriptors: (usize, u64),
}

/// Aggregate of functions sharing a key (a group or a name).
#[derive(Clone, Debug, PartialEq)]
pub struct Total {
    /// The group or function name.
    pub key: String,
    /// Bytes of all its function bodies.
    pub size: u64,
    /// How many function bodies (instantiations of one generic function share a name).
    pub count: usize,
}

/// Parses `wasm` and sizes its functions by name.
pub fn analyse(wasm: &[u8]) -> Result<Breakdown, String> {
    let mut out = Breakdown { module_bytes: wasm.len() as u64, ..Breakdown::default() };
    let mut imported_functions = 0u32;
    let mut bodies: Vec<u64> = Vec::new();
    let mut names: HashMap<u32, String> = HashMap::new();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(|e| e.to_string())? {
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    if matches!(import.map_err(|e| e.to_string())?.ty, TypeRef::Func(_) | TypeRef::FuncExact(_)) {
                        imported_functions += 1;
                    }
                }
            }
            Payload::CodeSectionEntry(body) => bodies.push(body.range().len() as u64),
            Payload::DataSection(reader) => {
                for data in reader {
                    out.data_bytes += data.map_err(|e| e.to_string())?.data.len() as u64;
                }
            }
            Payload::CustomSection(reader) => {
                out.custom_sections.push((reader.name().to_owned(), reader.data().len() as u64));
                if let KnownCustom::Name(subsections) = reader.as_known() {
                    for subsection in subsections {
                        if let Name::Function(map) = subsection.map_err(|e| e.to_string())? {
                            for naming in map {
                                let naming = naming.map_err(|e| e.to_string())?;
                                names.insert(naming.index, naming.name.to_owned());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if names.is_empty() && !bodies.is_empty() {
        return Err("the module has no function names (`name` section missing or stripped)".into());
    }
    for (i, size) in bodies.into_iter().enumerate() {
        out.code_bytes += size;
        let symbol = names.get(&(imported_functions + i as u32)).map(String::as_str).unwrap_or("");
        let name =
            if symbol.is_empty() { format!("(unnamed #{})", imported_functions + i as u32) } else { demangled(symbol) };
        if is_descriptor(&name) {
            out.descriptors.0 += 1;
            out.descriptors.1 += size;
            continue;
        }
        let group = group_of(&name);
        out.functions.push(Function { name, group, size });
    }
    Ok(out)
}

impl Breakdown {
    /// Bytes per group, largest first.
    pub fn groups(&self) -> Vec<Total> {
        totals(self.functions.iter().map(|f| (f.group.as_str(), f.size)))
    }

    /// Bytes per function name (instantiations of a generic function summed), largest first.
    pub fn by_name(&self) -> Vec<Total> {
        totals(self.functions.iter().map(|f| (f.name.as_str(), f.size)))
    }
}

/// Sums sizes by key; largest first, ties by key.
fn totals<'a>(items: impl Iterator<Item = (&'a str, u64)>) -> Vec<Total> {
    let mut map: HashMap<&str, (u64, usize)> = HashMap::new();
    for (key, size) in items {
        let entry = map.entry(key).or_default();
        entry.0 += size;
        entry.1 += 1;
    }
    let mut list: Vec<Total> =
        map.into_iter().map(|(key, (size, count))| Total { key: key.to_owned(), size, count }).collect();
    list.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.key.cmp(&b.key)));
    list
}

/// The demangled symbol without its hash; symbols that are not Rust's come back unchanged.
fn demangled(symbol: &str) -> String {
    format!("{:#}", demangle(symbol))
}

/// wasm-bindgen's describe machinery, which the CLI runs at build time and removes.
fn is_descriptor(name: &str) -> bool {
    name.starts_with("__wbindgen_describe") || name.contains("wasm_bindgen::describe::")
}

/// Crates whose functions are grouped by their first module (`core::fmt::`, `alloc::vec::`),
/// because the crate alone would be one unhelpful lump (`alloc::` alone is a fifth of the code);
/// every other crate is one group (`serde_json::`).
const SPLIT_BY_MODULE: [&str; 4] = ["core", "alloc", "std", "mcp_tasks_web"];

/// The group of a demangled function name:
/// - a path: its crate, plus the first module for [`SPLIT_BY_MODULE`] crates
///   (`core::fmt::write` → `core::fmt::`, `serde_json::de::from_str` → `serde_json::`);
/// - an inherent method `<T>::m`: the group of `T`'s path;
/// - a trait method `<T as Trait>::m`: the group of `T`'s path (the type the code is for), or of
///   `Trait` when `T` has no path (`<str as core::fmt::Display>::fmt` → `core::fmt::`);
/// - anything else (C symbols, wasm-bindgen exports): `(other symbols)`, or
///   `(wasm-bindgen exports)` for `__wbg_*` / `__wbindgen_*`.
pub fn group_of(name: &str) -> String {
    match path_of(name) {
        Some(path) => {
            let segments = leading_segments(&path);
            let crate_name = segments.first().copied().unwrap_or("");
            // The second segment is a module when it is snake_case and more path follows it
            // (`core::slice::<impl [T]>::…`, not `mcp_tasks_web::TaskClient::open`).
            let snake = segments.get(1).is_some_and(|s| s.starts_with(|c: char| c.is_lowercase() || c == '_'));
            let second_is_module = snake && (segments.len() > 2 || path_prefix(&path).ends_with("::"));
            let take = if SPLIT_BY_MODULE.contains(&crate_name) && second_is_module { 2 } else { 1 };
            format!("{}::", segments[..take].join("::"))
        }
        None if name.starts_with("__wbg_") || name.starts_with("__wbindgen") => "(wasm-bindgen exports)".into(),
        None => "(other symbols)".into(),
    }
}

/// The path that decides the group (see [`group_of`]), if the name has one.
fn path_of(name: &str) -> Option<String> {
    let name = name.trim();
    if let Some(inner) = qualified_self(name) {
        let (self_type, trait_path) = split_as(inner);
        return path_of(strip_type_decorations(self_type))
            .or_else(|| trait_path.and_then(|t| path_of(strip_type_decorations(t))));
    }
    let first = leading_segments(name);
    (first.len() >= 2 && first[0].chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| name.to_owned())
}

/// For `<X as Y>::rest`, the text between the outer angle brackets.
fn qualified_self(name: &str) -> Option<&str> {
    if !name.starts_with('<') {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in name.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if name[..i].ends_with('-') => {} // `->` in a closure type
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&name[1..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `T as Trait` → (`T`, Some(`Trait`)) at the top nesting level; `T` alone → (`T`, None).
fn split_as(inner: &str) -> (&str, Option<&str>) {
    let mut depth = 0i32;
    let bytes = inner.as_bytes();
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' if inner[..i].ends_with('-') => {} // `->` in a closure type
            '>' | ')' | ']' => depth -= 1,
            ' ' if depth == 0 && bytes[i..].starts_with(b" as ") => return (&inner[..i], Some(&inner[i + 4..])),
            _ => {}
        }
    }
    (inner, None)
}

/// `&mut [alloc::string::String]` → `alloc::string::String]` (enough to read the path from).
fn strip_type_decorations(ty: &str) -> &str {
    let mut ty = ty.trim();
    loop {
        let next = ty
            .strip_prefix('&')
            .or_else(|| ty.strip_prefix("mut "))
            .or_else(|| ty.strip_prefix("*const "))
            .or_else(|| ty.strip_prefix("*mut "))
            .or_else(|| ty.strip_prefix("dyn "))
            .or_else(|| ty.strip_prefix('['))
            .or_else(|| ty.strip_prefix('('))
            .map(str::trim_start);
        match next {
            Some(rest) => ty = rest,
            None => return ty,
        }
    }
}

/// The `::`-separated segments of the path at the start of `name`, up to the first generic
/// argument list or other punctuation: `alloc::vec::Vec<T>::push` → `[alloc, vec, Vec]`.
fn leading_segments(name: &str) -> Vec<&str> {
    path_prefix(name).split("::").filter(|s| !s.is_empty()).collect()
}

/// The leading run of path characters: `alloc::vec::Vec<T>::push` → `alloc::vec::Vec`.
fn path_prefix(name: &str) -> &str {
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '{' || c == '}'))
        .unwrap_or(name.len());
    &name[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_paths_by_crate_or_first_module() {
        assert_eq!(group_of("core::fmt::write"), "core::fmt::");
        assert_eq!(group_of("core::ptr::drop_in_place<mcp_tasks_web::protocol::Task>"), "core::ptr::");
        assert_eq!(group_of("serde_json::de::Deserializer<R>::parse_whitespace"), "serde_json::");
        assert_eq!(group_of("alloc::raw_vec::RawVec<T,A>::grow_one"), "alloc::raw_vec::");
        assert_eq!(group_of("mcp_tasks_web::protocol::codec::decode"), "mcp_tasks_web::protocol::");
        assert_eq!(group_of("mcp_tasks_web::runtime::poller::{{closure}}"), "mcp_tasks_web::runtime::");
        assert_eq!(group_of("wasm_bindgen::convert::closures::invoke"), "wasm_bindgen::");
        assert_eq!(group_of("core::slice::<impl [T]>::sort_by"), "core::slice::");
        assert_eq!(group_of("mcp_tasks_web::TaskClient::open"), "mcp_tasks_web::");
        assert_eq!(group_of("<dyn core::ops::function::Fn() -> T as x::Y>::call"), "core::ops::");
    }

    #[test]
    fn groups_trait_methods_by_self_type_then_trait() {
        assert_eq!(
            group_of("<mcp_tasks_web::protocol::Task as serde::de::Deserialize>::deserialize"),
            "mcp_tasks_web::protocol::"
        );
        assert_eq!(
            group_of("<&mut serde_json::de::Deserializer<R> as serde::de::Deserializer>::deserialize_any"),
            "serde_json::"
        );
        assert_eq!(group_of("<str as core::fmt::Display>::fmt"), "core::fmt::");
        assert_eq!(group_of("<[T] as core::fmt::Debug>::fmt"), "core::fmt::");
        assert_eq!(group_of("<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop"), "alloc::vec::");
        assert_eq!(group_of("<dlmalloc::dlmalloc::Dlmalloc<dlmalloc::sys::System>>::malloc"), "dlmalloc::");
    }

    #[test]
    fn groups_non_rust_symbols() {
        assert_eq!(group_of("memcpy"), "(other symbols)");
        assert_eq!(group_of("__wbg_taskclient_free"), "(wasm-bindgen exports)");
        assert!(is_descriptor("__wbindgen_describe_taskclient_new"));
        assert!(is_descriptor("wasm_bindgen::describe::inform"));
    }

    #[test]
    fn demangles_legacy_symbols_without_hash() {
        assert_eq!(demangled("_ZN4core3fmt5write17h0123456789abcdefE"), "core::fmt::write");
        assert_eq!(demangled("memcpy"), "memcpy");
    }

    #[test]
    fn sums_by_key_largest_first() {
        let t = totals([("a", 1), ("b", 5), ("a", 7)].into_iter());
        assert_eq!(t[0], Total { key: "a".into(), size: 8, count: 2 });
        assert_eq!(t[1], Total { key: "b".into(), size: 5, count: 1 });
    }

    #[test]
    fn analyses_a_tiny_module_with_names() {
        // (module (func $f) (func $g nop) (data (i32.const 0) "hi")) with a name section naming both.
        let mut wasm = b"\0asm\x01\0\0\0".to_vec();
        wasm.extend([1, 4, 1, 0x60, 0, 0]); // type section: () -> ()
        wasm.extend([3, 3, 2, 0, 0]); // function section: two functions of type 0
        wasm.extend([5, 3, 1, 0, 1]); // memory section: one memory, min 1
        wasm.extend([10, 8, 2, 2, 0, 0x0b, 3, 0, 0x01, 0x0b]); // code: bodies of 2 and 3 bytes
        wasm.extend([11, 8, 1, 0, 0x41, 0, 0x0b, 2, b'h', b'i']); // data: "hi" at 0
        let names: Vec<u8> = [vec![1u8, 9, 2, 0, 1, b'f', 1, 3, b'g', b'g', b'g']].concat();
        let mut custom = vec![4u8];
        custom.extend(b"name");
        custom.extend(&names);
        wasm.push(0);
        wasm.push(custom.len() as u8);
        wasm.extend(custom);
        let b = analyse(&wasm).expect("tiny module parses");
        assert_eq!(b.code_bytes, 5);
        assert_eq!(b.data_bytes, 2);
        assert_eq!(b.functions.len(), 2);
        assert_eq!((b.functions[0].name.as_str(), b.functions[0].size), ("f", 2));
        assert_eq!((b.functions[1].name.as_str(), b.functions[1].size), ("ggg", 3));
        assert_eq!(b.custom_sections, vec![("name".to_owned(), names.len() as u64)]);
    }
}
