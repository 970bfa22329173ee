//! Lists the imports of a .wasm file (and renames one export): the module a renamed build imports
//! from and the `memory` export it keeps (`short_names`), and
//! the modules its imports came from, to catch stray `env` imports (checked on the name map, since
//! the final module's modules are renamed).
//!
//! An `env` import means some Rust code (or a C dependency) referenced a symbol the linker could
//! not resolve — typically libc or a native-only API — and the module will fail to instantiate
//! in the browser with "module env not found". wasm-bindgen's glue only provides its own
//! `./mcp_tasks_web_bg.js`-style modules, so any `env` import is a bug we want CI to catch.
//!
//! Only the import section (id 2) is decoded; other sections are skipped by their length. That
//! needs nothing but LEB128 and the import descriptor layout, so no wasm parsing crate.

use std::fmt;

/// One entry of the import section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The module namespace, e.g. `./mcp_tasks_web_bg.js` or `env`.
    pub module: String,
    /// The imported name within the module.
    pub name: String,
    /// What is imported: `func`, `table`, `memory`, `global` or `tag`.
    pub kind: &'static str,
}

impl fmt::Display for Import {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} \"{}\" \"{}\"", self.kind, self.module, self.name)
    }
}

/// The import section's id in the binary format.
const IMPORT_SECTION: u8 = 2;
/// The export section's id.
const EXPORT_SECTION: u8 = 7;

/// `wasm` with its export named `from` renamed `to` (for `short_names`, which keeps `memory` under
/// its own name); an error if no export has that name.
pub fn rename_export(wasm: &[u8], from: &str, to: &str) -> Result<Vec<u8>, String> {
    let mut r = Reader { bytes: wasm, pos: 0 };
    let mut out = r.take(8)?.to_vec();
    let mut renamed = false;
    while !r.at_end() {
        let id = r.byte()?;
        let size = r.u32()? as usize;
        let body = r.take(size)?;
        let body = if id == EXPORT_SECTION {
            let mut e = Reader { bytes: body, pos: 0 };
            let count = e.u32()?;
            let mut new_body = Vec::new();
            push_uleb(&mut new_body, u64::from(count));
            for _ in 0..count {
                let name = e.name()?;
                let start = e.pos;
                e.byte()?; // kind
                e.u32()?; // index
                let name = if name == from {
                    renamed = true;
                    to
                } else {
                    name.as_str()
                };
                push_uleb(&mut new_body, name.len() as u64);
                new_body.extend_from_slice(name.as_bytes());
                new_body.extend_from_slice(&body[start..e.pos]);
            }
            new_body
        } else {
            body.to_vec()
        };
        out.push(id);
        push_uleb(&mut out, body.len() as u64);
        out.extend_from_slice(&body);
    }
    if renamed {
        Ok(out)
    } else {
        Err(format!("the module exports nothing named `{from}`"))
    }
}

fn push_uleb(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads all imports of a wasm module, or explains where the binary is malformed.
pub fn imports(wasm: &[u8]) -> Result<Vec<Import>, String> {
    let mut r = Reader { bytes: wasm, pos: 0 };
    if r.take(4)? != b"\0asm" {
        return Err("not a wasm module (bad magic number)".into());
    }
    if r.take(4)? != [1, 0, 0, 0] {
        return Err("unsupported wasm binary version (expected 1)".into());
    }
    let mut found = Vec::new();
    while !r.at_end() {
        let id = r.byte()?;
        let size = r.u32()? as usize;
        let body = r.take(size)?;
        if id == IMPORT_SECTION {
            found.extend(parse_import_section(body)?);
        }
    }
    Ok(found)
}

/// Decodes the body of an import section: a vector of (module, name, descriptor).
fn parse_import_section(body: &[u8]) -> Result<Vec<Import>, String> {
    let mut r = Reader { bytes: body, pos: 0 };
    let count = r.u32()?;
    let mut out = Vec::new();
    for _ in 0..count {
        let module = r.name()?;
        let name = r.name()?;
        let kind = match r.byte()? {
            0x00 => {
                r.u32()?; // type index
                "func"
            }
            0x01 => {
                r.ref_type()?;
                r.limits()?;
                "table"
            }
            0x02 => {
                r.limits()?;
                "memory"
            }
            0x03 => {
                r.val_type()?;
                r.byte()?; // mutability
                "global"
            }
            0x04 => {
                r.byte()?; // tag attribute (0 = exception)
                r.u32()?; // type index
                "tag"
            }
            other => {
                return Err(format!("unknown import kind 0x{other:02x} at byte {} of the import section", r.pos - 1))
            }
        };
        out.push(Import { module, name, kind });
    }
    if !r.at_end() {
        return Err("import section has trailing bytes".into());
    }
    Ok(out)
}

/// A cursor over wasm bytes with bounds-checked reads.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("truncated wasm: need {n} bytes at offset {}", self.pos))?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    /// Unsigned LEB128, at most 64 bits (u32 and u64 fields both use it).
    fn uleb(&mut self, max_bits: u32) -> Result<u64, String> {
        let start = self.pos;
        let mut value: u64 = 0;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift >= max_bits {
                return Err(format!("LEB128 integer at offset {start} is too long"));
            }
        }
        if max_bits < 64 && value >> max_bits != 0 {
            return Err(format!("LEB128 integer at offset {start} exceeds {max_bits} bits"));
        }
        Ok(value)
    }

    fn u32(&mut self) -> Result<u32, String> {
        // Bounded to 32 bits by uleb, so the conversion cannot fail.
        u32::try_from(self.uleb(32)?).map_err(|e| e.to_string())
    }

    /// A length-prefixed UTF-8 name.
    fn name(&mut self) -> Result<String, String> {
        let len = self.u32()? as usize;
        let at = self.pos;
        String::from_utf8(self.take(len)?.to_vec()).map_err(|_| format!("import name at offset {at} is not UTF-8"))
    }

    /// Table/memory limits: a flags byte (bit 0: has max, bit 1: shared, bit 2: 64-bit), min, [max].
    fn limits(&mut self) -> Result<(), String> {
        let flags = self.byte()?;
        if flags > 0x07 {
            return Err(format!("unknown limits flags 0x{flags:02x}"));
        }
        let bits = if flags & 0x04 != 0 { 64 } else { 32 };
        self.uleb(bits)?;
        if flags & 0x01 != 0 {
            self.uleb(bits)?;
        }
        Ok(())
    }

    /// A reference type: the `funcref`/`externref`-style shorthands, or `(ref null? ht)`.
    fn ref_type(&mut self) -> Result<(), String> {
        match self.byte()? {
            0x63 | 0x64 => self.heap_type(),
            0x69..=0x74 => Ok(()),
            other => Err(format!("unknown reference type 0x{other:02x}")),
        }
    }

    /// A heap type: an abstract type byte or a signed LEB128 type index.
    fn heap_type(&mut self) -> Result<(), String> {
        // Abstract heap types are single bytes in 0x40..=0x7f (negative s33); indices are s33 >= 0.
        self.uleb(64).map(|_| ())
    }

    /// A value type: numeric, vector or reference.
    fn val_type(&mut self) -> Result<(), String> {
        let at = self.pos;
        match self.byte()? {
            0x7b..=0x7f => Ok(()),
            _ => {
                self.pos = at;
                self.ref_type()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes a name as the binary format does (length + bytes).
    fn name(s: &str) -> Vec<u8> {
        let mut v = vec![s.len() as u8];
        v.extend_from_slice(s.as_bytes());
        v
    }

    /// A module with a type section (skipped), then an import section with the given entries.
    fn module(entries: &[Vec<u8>]) -> Vec<u8> {
        let mut wasm = b"\0asm\x01\0\0\0".to_vec();
        wasm.extend_from_slice(&[1, 4, 1, 0x60, 0, 0]); // type section: one () -> ()
        let mut body = vec![entries.len() as u8];
        for e in entries {
            body.extend_from_slice(e);
        }
        wasm.push(IMPORT_SECTION);
        wasm.push(body.len() as u8);
        wasm.extend(body);
        wasm.extend_from_slice(&[0, 3, 2, b'h', b'i']); // a custom section after it
        wasm
    }

    fn entry(module: &str, field: &str, desc: &[u8]) -> Vec<u8> {
        let mut v = name(module);
        v.extend(name(field));
        v.extend_from_slice(desc);
        v
    }

    #[test]
    fn lists_every_import_kind() {
        let wasm = module(&[
            entry("./glue.js", "__wbg_log", &[0x00, 0x00]),
            entry("env", "memcpy", &[0x00, 0x00]),
            entry("env", "memory", &[0x02, 0x01, 0x11, 0x80, 0x01]),
            entry("js", "table", &[0x01, 0x6f, 0x00, 0x04]),
            entry("js", "g", &[0x03, 0x7f, 0x01]),
            entry("js", "exn", &[0x04, 0x00, 0x00]),
        ]);
        let all = imports(&wasm).expect("valid module");
        let kinds: Vec<_> = all.iter().map(|i| i.kind).collect();
        assert_eq!(kinds, ["func", "func", "memory", "table", "global", "tag"]);
        let env: Vec<_> = all.iter().filter(|i| i.module == "env").map(|i| i.name.as_str()).collect();
        assert_eq!(env, ["memcpy", "memory"]);
    }

    #[test]
    fn renames_one_export_and_keeps_every_other_byte() {
        let mut wasm = module(&[entry("./glue.js", "__wbg_log", &[0x00, 0x00])]);
        // An export section: "Ea" (memory 0) and "b" (func 3).
        wasm.extend_from_slice(&[7, 10, 2, 2, b'E', b'a', 2, 0, 1, b'b', 0, 3]);
        let out = rename_export(&wasm, "Ea", "memory").expect("renamed");
        assert_eq!(out[..wasm.len() - 12], wasm[..wasm.len() - 12], "sections before it unchanged");
        let tail: &[u8] = &[7, 14, 2, 6, b'm', b'e', b'm', b'o', b'r', b'y', 2, 0, 1, b'b', 0, 3];
        assert_eq!(&out[wasm.len() - 12..], tail);
        assert_eq!(imports(&out).expect("still valid").len(), 1);
        assert!(rename_export(&wasm, "nope", "x").is_err());
    }

    #[test]
    fn module_without_imports_is_clean() {
        let wasm = b"\0asm\x01\0\0\0".to_vec();
        assert_eq!(imports(&wasm), Ok(vec![]));
    }

    #[test]
    fn rejects_garbage_and_truncation() {
        assert!(imports(b"not wasm").is_err());
        let mut wasm = module(&[entry("env", "f", &[0x00, 0x00])]);
        wasm.truncate(wasm.len() - 8);
        assert!(imports(&wasm).is_err());
    }

    #[test]
    fn multi_byte_leb128_lengths() {
        let long = "x".repeat(200); // name length 200 = 0xc8 0x01 in LEB128
        let mut e = vec![0xc8, 0x01];
        e.extend_from_slice(long.as_bytes());
        e.extend(name("f"));
        e.extend_from_slice(&[0x00, 0x81, 0x01]); // type index 129
        let mut wasm = b"\0asm\x01\0\0\0".to_vec();
        let mut body = vec![1];
        body.extend(e);
        wasm.push(IMPORT_SECTION);
        wasm.extend_from_slice(&[(body.len() as u8) | 0x80, (body.len() >> 7) as u8]);
        wasm.extend(body);
        let all = imports(&wasm).expect("valid module");
        assert_eq!(all[0].module, long);
        assert_eq!(all[0].name, "f");
    }
}
