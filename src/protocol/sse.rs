//! An incremental `text/event-stream` parser: feed it chunks as they arrive, take complete events out.
//! I/O-free, so the same parser serves fetch bodies in the browser and tests on the host.

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`message` when absent).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Parser state between chunks.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of an incomplete line (UTF-8 may be split across chunks).
    pending: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
    started: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk; returns the events it completed. Comment lines (`:` keep-alives), `id:` and
    /// `retry:` are ignored, as 2026-07-28 has no resumption.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n' || *b == b'\r') {
            // A CR may be followed by LF in the next chunk; wait for it unless more bytes follow.
            if self.pending[end] == b'\r' && end + 1 == self.pending.len() {
                break;
            }
            let skip = if self.pending[end] == b'\r' && self.pending.get(end + 1) == Some(&b'\n') { 2 } else { 1 };
            let line: Vec<u8> = self.pending.drain(..end + skip).take(end).collect();
            let mut text = String::from_utf8_lossy(&line).into_owned();
            if !self.started {
                self.started = true;
                if let Some(rest) = text.strip_prefix('\u{feff}') {
                    text = rest.to_owned();
                }
            }
            if let Some(event) = self.line(&text) {
                events.push(event);
            }
        }
        events
    }

    /// Ends the stream. A line ended by a lone CR at the very end counts as ended; a final event
    /// without its blank line is not dispatched (per the SSE spec).
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if self.pending.last() == Some(&b'\r') {
            self.pending.push(b'\n');
            events = self.push(&[]);
        }
        self.pending.clear();
        self.event = None;
        self.data = None;
        events
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            let data = self.data.take()?;
            let event = self.event.take().unwrap_or_else(|| "message".into());
            return Some(SseEvent { event, data });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
        None
    }
}
