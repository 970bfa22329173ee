//! A strict JSON parser (RFC 8259) producing [`Value`]s.
use std::fmt;

use super::{Map, Number, RawJson, Value};

/// Nesting deeper than this is refused: recursion is bounded whatever a server sends.
const MAX_DEPTH: usize = 128;

/// What this client wrote itself (a stored record, a record shared with the other tabs) wraps what a
/// server sent in a few levels of its own: read back with this much more room, so whatever the
/// poller took, the store and the other tabs read too.
const OWN_WRAPPING: usize = 8;

/// Why a text is not JSON, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// What was wrong.
    pub(crate) what: &'static str,
    /// Byte offset in the text.
    pub(crate) offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// Parses one JSON value; whitespace may surround it, nothing else may follow it.
pub fn from_str(text: &str) -> Result<Value, ParseError> {
    from_str_keeping(text, &[])
}

/// [`from_str`], except that each object reached from the root through one of `paths` (each a list of
/// keys, `*` for any key) keeps its members as [`RawJson`] text: each member that is an object whole,
/// and each object or array inside a member that is an array (so a tool result's `content` stays a
/// list of blocks). The raw parts are checked as strictly as the rest, so the same texts fail, at the
/// same offsets; they only skip building a tree that the client would hand on unread. At most 8 paths.
pub fn from_str_keeping(text: &str, paths: &[&[&str]]) -> Result<Value, ParseError> {
    parse(text, paths, MAX_DEPTH, usize::MAX, usize::MAX)
}

/// [`from_str_keeping`], where an object whose members a path names with `*` may hold at most
/// `max_members`: past it the reading stops there, with [`TOO_MANY_MEMBERS`] (the rest of the text is
/// never read, so a flood of members costs what the limit allows, not what was sent). The tree it
/// builds holds at most [`MAX_TREE_VALUES`] values (the raw parts are text, and not counted): past it
/// the reading stops with [`TOO_MANY_VALUES`], so a body of small values costs memory in proportion
/// to the limit rather than to the values sent (each is a heap allocation in wasm memory, which never
/// shrinks: an 8 MiB body of zeros grew it to 375 MiB).
pub(crate) fn from_str_capped(text: &str, paths: &[&[&str]], max_members: usize) -> Result<Value, ParseError> {
    parse(text, paths, MAX_DEPTH, max_members, MAX_TREE_VALUES)
}

/// What a [`ParseError`] says when [`from_str_capped`] stopped at its limit.
pub(crate) const TOO_MANY_MEMBERS: &str = "more members than allowed";

/// The most values [`from_str_capped`] builds into a tree from one text.
pub(crate) const MAX_TREE_VALUES: usize = 1 << 18;

/// What a [`ParseError`] says when [`from_str_capped`] stopped at [`MAX_TREE_VALUES`].
pub(crate) const TOO_MANY_VALUES: &str = "more values than one message may hold";

/// [`from_str`] nesting at most `levels` objects and arrays (the value itself counted), where
/// [`from_str`] allows 128: for a text that must be shallower (an elicitation form's schema).
pub(crate) fn from_str_nesting(text: &str, levels: usize) -> Result<Value, ParseError> {
    parse(text, &[], levels, usize::MAX, usize::MAX)
}

/// [`from_str`] for a text this client wrote around what a server sent (a stored record, a message
/// between tabs): [`OWN_WRAPPING`] more levels than a server's text may nest.
pub fn from_own_str(text: &str) -> Result<Value, ParseError> {
    parse(text, &[], MAX_DEPTH + OWN_WRAPPING, usize::MAX, usize::MAX)
}

fn parse(
    text: &str,
    paths: &[&[&str]],
    max_depth: usize,
    max_members: usize,
    max_values: usize,
) -> Result<Value, ParseError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        paths,
        max_depth,
        max_members,
        values_left: max_values,
        members: Vec::new(),
        items: Vec::new(),
    };
    let all = (1u8 << paths.len().min(8)).wrapping_sub(1);
    let value = parser.value(0, if paths.is_empty() { How::Tree } else { How::Path(0, all) })?;
    parser.skip_whitespace();
    if parser.pos != parser.bytes.len() {
        return Err(parser.error("trailing characters after the JSON value"));
    }
    Ok(value)
}

/// What to make of the value being read.
#[derive(Clone, Copy, PartialEq)]
enum How {
    /// A tree.
    Tree,
    /// A tree, reached through the first `n` keys of the paths whose bits are set.
    Path(usize, u8),
    /// A member of the object at the end of the path: an object stays raw, an array's items do.
    Member,
    /// An item of such a member array: an object or array stays raw.
    Item,
}

impl How {
    /// Whether a value starting with `byte` is kept as raw text.
    fn keeps_raw(self, byte: u8) -> bool {
        match self {
            How::Member => byte == b'{',
            How::Item => byte == b'{' || byte == b'[',
            _ => false,
        }
    }
}

struct Parser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// The keys to the objects whose members stay raw.
    paths: &'t [&'t [&'t str]],
    /// The deepest nesting allowed.
    max_depth: usize,
    /// The most members of an object whose members a path names with `*`.
    max_members: usize,
    /// How many more values the tree may hold.
    values_left: usize,
    /// The members read so far of every object being read, innermost last: an object takes its own off
    /// the top when it ends, in one allocation of its exact size, instead of growing a `Vec` of its own.
    members: Vec<(super::map::Key, Value)>,
    /// The same for the items of arrays.
    items: Vec<Value>,
}

impl Parser<'_> {
    fn error(&self, what: &'static str) -> ParseError {
        ParseError { what, offset: self.pos }
    }

    // Inlined: the parser's hottest call; out of line (as `opt-level = "z"` leaves it) it was a third of
    // a 10 KB decode.
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8, what: &'static str) -> Result<(), ParseError> {
        self.skip_whitespace();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    fn value(&mut self, depth: usize, how: How) -> Result<Value, ParseError> {
        self.skip_whitespace();
        let start = self.pos;
        match self.peek() {
            Some(byte) if how.keeps_raw(byte) => {
                self.check(depth)?;
                Ok(Value::Raw(RawJson::checked(self.text.get(start..self.pos).unwrap_or_default())))
            }
            None => Err(self.error("unexpected end of JSON")),
            Some(_) if self.values_left == 0 => Err(self.error(TOO_MANY_VALUES)),
            Some(byte) => {
                self.values_left -= 1;
                match byte {
                    b'{' => self.object(depth + 1, how),
                    b'[' => self.array(depth + 1, how),
                    b'"' => self.string(true).map(Value::String),
                    b't' => self.literal("true").map(|()| Value::Bool(true)),
                    b'f' => self.literal("false").map(|()| Value::Bool(false)),
                    b'n' => self.literal("null").map(|()| Value::Null),
                    b'-' | b'0'..=b'9' => {
                        self.number_end()?;
                        let text = self.text.get(start..self.pos).unwrap_or_default();
                        Ok(Value::Number(Number::from_checked(text.to_owned())))
                    }
                    _ => Err(self.error("expected a JSON value")),
                }
            }
        }
    }

    /// Checks one value as [`Parser::value`] reads it, with the same errors at the same offsets, and
    /// builds nothing: a raw part costs a scan, not a tree that is dropped at once.
    fn check(&mut self, depth: usize) -> Result<(), ParseError> {
        self.skip_whitespace();
        let close = match self.peek() {
            None => return Err(self.error("unexpected end of JSON")),
            Some(b'{') => b'}',
            Some(b'[') => b']',
            Some(b'"') => return self.string(false).map(drop),
            Some(b't') => return self.literal("true"),
            Some(b'f') => return self.literal("false"),
            Some(b'n') => return self.literal("null"),
            Some(b'-' | b'0'..=b'9') => return self.number_end(),
            Some(_) => return Err(self.error("expected a JSON value")),
        };
        if self.open(depth + 1, close)? {
            return Ok(());
        }
        loop {
            if close == b'}' {
                self.key(false)?;
            }
            self.check(depth + 1)?;
            if self.next_or_close(close)? {
                return Ok(());
            }
        }
    }

    /// Past the `{` or `[` of a container at `depth` and any whitespace; `true` when `close` follows at
    /// once (the container is empty, and read to its end).
    fn open(&mut self, depth: usize, close: u8) -> Result<bool, ParseError> {
        if depth > self.max_depth {
            return Err(self.error("JSON nested too deeply"));
        }
        self.pos += 1;
        self.skip_whitespace();
        let empty = self.peek() == Some(close);
        if empty {
            self.pos += 1;
        }
        Ok(empty)
    }

    /// A member's key and its colon; the key is built only when `build`.
    fn key(&mut self, build: bool) -> Result<String, ParseError> {
        self.skip_whitespace();
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a string key"));
        }
        let key = self.string(build)?;
        self.expect(b':', "expected ':' after an object key")?;
        Ok(key)
    }

    /// After a member or an item: past the `,` before the next (`false`) or the container's `close`
    /// (`true`).
    fn next_or_close(&mut self, close: u8) -> Result<bool, ParseError> {
        self.skip_whitespace();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(byte) if byte == close => {
                self.pos += 1;
                Ok(true)
            }
            _ if close == b'}' => Err(self.error("expected ',' or '}' in an object")),
            _ => Err(self.error("expected ',' or ']' in an array")),
        }
    }

    /// What a member named `key` of an object reached through `n` keys of the `live` paths is: a
    /// member to keep raw when one of them ends at this object, else reached through `n + 1` keys of
    /// those that go on through `key`, else a plain tree.
    fn follow(&self, n: usize, live: u8, key: &str) -> How {
        let mut next = 0;
        for (i, path) in self.paths.iter().enumerate().take(8) {
            if live & (1 << i) == 0 {
                continue;
            }
            match path.get(n) {
                None => return How::Member,
                Some(&k) if k == "*" || k == key => next |= 1 << i,
                Some(_) => {}
            }
        }
        if next == 0 {
            How::Tree
        } else {
            How::Path(n + 1, next)
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<(), ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    fn object(&mut self, depth: usize, how: How) -> Result<Value, ParseError> {
        if self.open(depth, b'}')? {
            return Ok(Value::Object(Map::new()));
        }
        let base = self.members.len();
        // Members named by `*` (a task's questions) are counted: past the limit the reading stops.
        let limit = match how {
            How::Path(n, live) if matches!(self.follow(n, live, "\u{0}"), How::Path(..)) => self.max_members,
            _ => usize::MAX,
        };
        loop {
            if self.members.len() - base >= limit {
                return Err(self.error(TOO_MANY_MEMBERS));
            }
            let key = self.key(true)?;
            let member = match how {
                How::Path(n, live) => self.follow(n, live, &key),
                _ => How::Tree,
            };
            let value = self.value(depth, member)?;
            self.members.push((std::borrow::Cow::Owned(key), value));
            if self.next_or_close(b'}')? {
                return Ok(Value::Object(Map::from_parsed(self.members.split_off(base))));
            }
        }
    }

    fn array(&mut self, depth: usize, how: How) -> Result<Value, ParseError> {
        if self.open(depth, b']')? {
            return Ok(Value::Array(Vec::new()));
        }
        let base = self.items.len();
        let item = if how == How::Member { How::Item } else { How::Tree };
        loop {
            let value = self.value(depth, item)?;
            self.items.push(value);
            if self.next_or_close(b']')? {
                return Ok(Value::Array(self.items.split_off(base)));
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    /// Reads past a number, checking its grammar.
    fn number_end(&mut self) -> Result<(), ParseError> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("expected a digit after '.'"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        Ok(())
    }

    /// A string starting at the opening quote; escapes decoded. A lone surrogate escape becomes
    /// U+FFFD, as it cannot be held in a Rust string. Plain runs are found by one tight scan and copied
    /// at once, so a string without escapes is one exact allocation. Without `build` it is only
    /// checked, and the empty string returned allocates nothing.
    fn string(&mut self, build: bool) -> Result<String, ParseError> {
        self.pos += 1;
        let start = self.pos;
        self.pos = self.plain_run(start);
        if self.peek() == Some(b'"') {
            self.pos += 1;
            if !build {
                return Ok(String::new());
            }
            return Ok(self.text.get(start..self.pos - 1).unwrap_or_default().to_owned());
        }
        let mut out = String::new();
        if build {
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
        }
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = self.escape()?;
                    if build {
                        out.push(c);
                    }
                }
                Some(_) => return Err(self.error("control character in a string")),
            }
            let run = self.pos;
            self.pos = self.plain_run(run);
            if build {
                out.push_str(self.text.get(run..self.pos).unwrap_or_default());
            }
        }
    }

    /// The end of the run of string bytes from `from` that need no attention: not a quote, a backslash
    /// or a control character. Every byte of a multi-byte UTF-8 character is ≥ 0x80, so a run ends on
    /// a character boundary. Eight bytes at a time (strings are most of a large answer's bytes), read
    /// as one little-endian word, so the first byte that needs attention is the lowest flagged one;
    /// the last few bytes of the text byte by byte.
    fn plain_run(&self, from: usize) -> usize {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        let mut at = from;
        // `first_chunk`, not `copy_from_slice` or `try_into`, whose length checks bring panic paths.
        while let Some(chunk) = self.bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
            let v = u64::from_le_bytes(*chunk);
            // The lowest byte whose high bit is set in `flags` is the first one below 0x20 or `"` or `\\`
            // (`x - 1` borrows into the high bit only from a zero byte; `"` and `\\` have it clear, so
            // `!v` masks as `!quote` would). Borrows run upwards only: a flag above it may be false.
            let quote = v ^ (ONES * u64::from(b'"'));
            let backslash = v ^ (ONES * u64::from(b'\\'));
            let low = v.wrapping_sub(ONES * 0x20) | quote.wrapping_sub(ONES) | backslash.wrapping_sub(ONES);
            let flags = low & !v & HIGHS;
            if flags != 0 {
                return at + (flags.trailing_zeros() / 8) as usize;
            }
            at += 8;
        }
        let rest = self.bytes.get(at..).unwrap_or_default();
        at + rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(rest.len())
    }

    /// The character an escape stands for, the backslash read.
    fn escape(&mut self) -> Result<char, ParseError> {
        let Some(byte) = self.peek() else {
            return Err(self.error("unterminated string"));
        };
        self.pos += 1;
        let c = match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF if self.bytes[self.pos..].starts_with(b"\\u") => {
                        let save = self.pos;
                        self.pos += 2;
                        let low = self.hex4()?;
                        if (0xDC00..=0xDFFF).contains(&low) {
                            let code = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        } else {
                            self.pos = save;
                            '\u{FFFD}'
                        }
                    }
                    _ => char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'),
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape in a string"));
            }
        };
        Ok(c)
    }

    fn hex4(&mut self) -> Result<u16, ParseError> {
        let digits = self.bytes.get(self.pos..self.pos + 4).ok_or_else(|| self.error("short \\u escape"))?;
        let mut unit = 0u16;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.error("invalid \\u escape")),
            };
            unit = unit << 4 | u16::from(v);
        }
        self.pos += 4;
        Ok(unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_kind_of_value() {
        let v =
            from_str(r#" {"a": [1, -2.5e3, true, false, null], "b": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "c": {}} "#)
                .unwrap();
        assert_eq!(v["a"][0].as_i64(), Some(1));
        assert_eq!(v["a"][1].as_f64(), Some(-2500.0));
        assert_eq!(v["a"][1].as_number().unwrap().as_str(), "-2.5e3");
        assert_eq!(v["a"][2], Value::Bool(true));
        assert!(v["a"][4].is_null());
        assert_eq!(v["b"].as_str(), Some("x\"\\/\u{8}\u{c}\n\r\té😀"));
        assert_eq!(v["c"].as_object().map(Map::len), Some(0));
    }

    #[test]
    fn strings_are_read_in_runs_between_escapes() {
        let cases = [
            (r#""plain text é 😀""#, "plain text é 😀"),
            (r#""\n""#, "\n"),
            (r#""a\nb\"c\\""#, "a\nb\"c\\"),
            (r#""\u00e9 then text, then \t""#, "é then text, then \t"),
            (r#""""#, ""),
        ];
        for (text, want) in cases {
            assert_eq!(from_str(text).unwrap(), Value::from(want), "{text}");
        }
        for (text, offset, what) in [
            ("\"run then\ttab\"", 9, "control character in a string"),
            ("\"run\\n then\ttab\"", 11, "control character in a string"),
            ("\"run then end", 13, "unterminated string"),
            ("\"run\\n then end", 15, "unterminated string"),
            ("\"run\\q\"", 5, "invalid escape in a string"),
        ] {
            let err = from_str(text).unwrap_err();
            assert_eq!((err.offset, err.what), (offset, what), "{text:?}");
        }
    }

    #[test]
    fn a_run_ends_at_the_first_byte_that_needs_attention_wherever_it_is() {
        for len in [0, 1, 7, 8, 9, 16, 23, 40] {
            for at in 0..len {
                for (byte, special) in [
                    ("\"", true),
                    ("\\", true),
                    ("\u{0}", true),
                    ("\u{1f}", true),
                    (" ", false),
                    ("\u{7f}", false),
                    ("é", false),
                ] {
                    let text = format!("{}{byte}{}", "a".repeat(at), "b".repeat(len - at));
                    let parser = Parser {
                        text: &text,
                        bytes: text.as_bytes(),
                        pos: 0,
                        paths: &[],
                        max_depth: MAX_DEPTH,
                        max_members: usize::MAX,
                        values_left: usize::MAX,
                        members: Vec::new(),
                        items: Vec::new(),
                    };
                    let want = if special { at } else { text.len() };
                    assert_eq!(parser.plain_run(0), want, "{text:?}");
                    assert_eq!(parser.plain_run(at.min(1)), want.max(at.min(1)), "{text:?} from 1");
                }
            }
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(from_str(r#""\ud800x""#).unwrap(), Value::from("\u{FFFD}x"));
        assert_eq!(from_str(r#""\udc00\ud800\u0041""#).unwrap(), Value::from("\u{FFFD}\u{FFFD}A"));
    }

    #[test]
    fn refuses_what_is_not_json_with_a_position() {
        for (text, offset) in [
            ("", 0),
            ("{", 1),
            ("[1,]", 3),
            ("{\"a\" 1}", 5),
            ("01", 1),
            ("1.", 2),
            ("-", 1),
            ("\"a", 2),
            ("\"\t\"", 1),
            ("\"\\x\"", 2),
            ("nul", 0),
            ("{} {}", 3),
            ("{'a':1}", 1),
            ("NaN", 0),
        ] {
            let err = from_str(text).unwrap_err();
            assert_eq!(err.offset, offset, "{text:?}: {err}");
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(from_str(&deep).unwrap_err().what, "JSON nested too deeply");
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(from_str(&ok).is_ok());
    }
}
