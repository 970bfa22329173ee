//! An incremental `text/event-stream` parser: feed it chunks as they arrive, take complete events out.
//! I/O-free, so the same parser serves fetch bodies in the browser and tests on the host.
use super::DecodeError;

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`message` when absent).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The longest event (or line) a parser accepts by default: 8 MiB of data. A task result larger than
/// that is not one a browser client should hold; a server that streams a line without end must not
/// fill the page's memory.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

/// Parser state between chunks.
#[derive(Debug)]
pub struct SseParser {
    /// Bytes of an incomplete line (UTF-8 may be split across chunks).
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no line end, so a long line is scanned once, not once
    /// per chunk.
    scanned: usize,
    event: Option<String>,
    data: Option<String>,
    started: bool,
    max_event_bytes: usize,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_limit(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser that refuses a line or an event's data longer than `max_event_bytes`.
    pub fn with_limit(max_event_bytes: usize) -> Self {
        Self { pending: Vec::new(), scanned: 0, event: None, data: None, started: false, max_event_bytes }
    }

    /// Feeds a chunk; returns the events it completed. Comment lines (`:` keep-alives), `id:` and
    /// `retry:` are ignored, as 2026-07-28 has no resumption. Linear in the bytes fed however they are
    /// split: each byte is scanned once and the consumed lines are dropped once per chunk. A line or an
    /// event's data over the limit is an error (the stream cannot be read on safely).
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, DecodeError> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(offset) = self.pending[from..].iter().position(|b| *b == b'\n' || *b == b'\r') {
            let end = from + offset;
            // A CR may be followed by LF in the next chunk; wait for it unless more bytes follow.
            if self.pending[end] == b'\r' && end + 1 == self.pending.len() {
                from = end;
                break;
            }
            let skip = if self.pending[end] == b'\r' && self.pending.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
            let line = &self.pending[start..end];
            start = end + skip;
            from = start;
            // A comment, or a blank line with no data to dispatch, changes nothing (once past the first
            // line, which may carry a BOM): skipped without making a string of it, so a server flooding
            // blank lines or keep-alives costs a few instructions a line, not a conversion each (in the
            // size-optimised .wasm a 2 MiB chunk of newlines took some 80 ms of the page's main thread).
            if self.started && (line.first() == Some(&b':') || (line.is_empty() && self.data.is_none())) {
                // The blank lines right after it are as inert while no data is pending: a newline
                // flood is crossed in one tight loop rather than a line at a time.
                if self.data.is_none() {
                    let rest = &self.pending[start..];
                    start += rest.iter().position(|b| *b != b'\n').unwrap_or(rest.len());
                    from = start;
                }
                continue;
            }
            let mut text = crate::text::lossy_utf8(line).into_owned();
            if !self.started {
                self.started = true;
                if let Some(rest) = text.strip_prefix('\u{feff}') {
                    text = rest.to_owned();
                }
            }
            if let Some(event) = self.line(&text)? {
                events.push(event);
            }
        }
        if from < start {
            from = start;
        }
        self.pending.drain(..start);
        // Everything before `from` was scanned: no line end there (but a trailing CR waits for its LF).
        self.scanned = if self.pending.last() == Some(&b'\r') { from - start } else { self.pending.len() };
        // The line being read counts now, not once it ends: a data line's value joins the event's data.
        let line = self.pending.strip_suffix(b"\r").unwrap_or(&self.pending);
        let value = match line.strip_prefix(b"data:") {
            Some(value) => value.strip_prefix(b" ").unwrap_or(value).len(),
            None if self.pending.len() > self.max_event_bytes => return Err(self.too_large("line")),
            None => 0,
        };
        if self.data.as_ref().map_or(0, |data| data.len() + 1) + value > self.max_event_bytes {
            return Err(self.too_large("event"));
        }
        Ok(events)
    }

    /// Ends the stream. A line ended by a lone CR at the very end counts as ended; a final event
    /// without its blank line is not dispatched (per the SSE spec).
    pub fn finish(&mut self) -> Result<Vec<SseEvent>, DecodeError> {
        let mut events = Vec::new();
        if self.pending.last() == Some(&b'\r') {
            self.pending.push(b'\n');
            events = self.push(&[])?;
        }
        self.pending.clear();
        self.scanned = 0;
        self.event = None;
        self.data = None;
        Ok(events)
    }

    fn too_large(&self, what: &'static str) -> DecodeError {
        DecodeError::TooLarge { what, limit: self.max_event_bytes }
    }

    fn line(&mut self, line: &str) -> Result<Option<SseEvent>, DecodeError> {
        if line.is_empty() {
            let Some(data) = self.data.take() else { return Ok(None) };
            let event = self.event.take().unwrap_or_else(|| "message".into());
            return Ok(Some(SseEvent { event, data }));
        }
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match crate::text::split_once(line, b':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) if data.len() + 1 + value.len() > self.max_event_bytes => {
                    return Err(self.too_large("event"));
                }
                None if value.len() > self.max_event_bytes => return Err(self.too_large("event")),
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
        Ok(None)
    }
}
