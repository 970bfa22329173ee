//! The SSE parser: events split anywhere across chunks, CRLF and CR line ends, comments, multi-line data.
use mcp_tasks_web::protocol::sse::{SseEvent, SseParser};
use mcp_tasks_web::protocol::DecodeError;
use proptest::prelude::*;

fn ev(data: &str) -> SseEvent {
    SseEvent { event: "message".into(), data: data.into() }
}

#[test]
fn parses_events_with_comments_and_fields() {
    let mut p = SseParser::new();
    let stream = ": keep-alive\n\nevent: message\ndata: {\"a\":1}\nid: 7\nretry: 10\n\ndata: line1\ndata: line2\n\n";
    assert_eq!(p.push(stream.as_bytes()).unwrap(), vec![ev("{\"a\":1}"), ev("line1\nline2")]);
}

#[test]
fn handles_crlf_cr_bom_and_no_space_after_colon() {
    let mut p = SseParser::new();
    assert_eq!(p.push(b"\xef\xbb\xbfdata:x\r\n\r\ndata: y\r\rdata\n\n").unwrap(), vec![ev("x"), ev("y"), ev("")]);
}

#[test]
fn an_unterminated_event_is_not_dispatched() {
    let mut p = SseParser::new();
    assert!(p.push(b"data: half").unwrap().is_empty());
    assert!(p.finish().unwrap().is_empty());
    assert!(p.push(b"\n\n").unwrap().is_empty());
}

#[test]
fn transcript_stream_yields_its_four_messages() {
    let body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{}}\n\n\
event: message\ndata: {\"n\":1}\n\nevent: message\ndata: {\"n\":2}\n\nevent: message\ndata: {\"n\":3}\n\n";
    let mut p = SseParser::new();
    assert_eq!(p.push(body.as_bytes()).unwrap().len(), 4);
}

proptest! {
    /// However the bytes are split, the same events come out.
    #[test]
    fn chunking_does_not_change_the_events(cuts in proptest::collection::vec(0usize..200, 0..12)) {
        let body = "data: é{\"x\":1}\r\n\r\n: c\nevent: other\ndata: a\ndata: b\n\ndata: ✓ last\r\r".as_bytes();
        let mut one = SseParser::new();
        let mut whole = one.push(body).unwrap();
        whole.extend(one.finish().unwrap());
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (body.len() + 1)).collect();
        cuts.sort_unstable();
        let mut p = SseParser::new();
        let mut got = Vec::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([body.len()]) {
            got.extend(p.push(&body[start..cut]).unwrap());
            start = cut;
        }
        got.extend(p.finish().unwrap());
        prop_assert_eq!(got, whole.clone());
        prop_assert_eq!(whole.len(), 3);
    }
}

/// A hostile server's newline flood: a million line ends in one chunk, and in one-byte chunks, cost
/// linear time (the old parser shifted the buffer per line: seconds for 1 MiB). Checked by count of
/// work, not time: the parse finishes well within a bound a quadratic parser cannot meet.
#[test]
fn a_newline_flood_is_parsed_in_linear_time() {
    let flood = vec![b'\n'; 1 << 20];
    let started = std::time::Instant::now();
    let mut p = SseParser::new();
    assert!(p.push(&flood).unwrap().is_empty(), "blank lines dispatch nothing");
    let mut p = SseParser::new();
    for byte in flood.iter().take(1 << 16) {
        assert!(p.push(std::slice::from_ref(byte)).unwrap().is_empty());
    }
    // A long line split into small chunks is scanned once, not once per chunk.
    let mut p = SseParser::with_limit(usize::MAX);
    let line = vec![b'x'; 1 << 20];
    for piece in line.chunks(64) {
        assert!(p.push(piece).unwrap().is_empty());
    }
    assert_eq!(p.push(b"\n").unwrap(), vec![]);
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "took {:?}", started.elapsed());
}

/// An endless line and an event whose data grows past the limit end the stream with a named error.
#[test]
fn a_line_or_event_over_the_limit_is_an_error() {
    let mut p = SseParser::with_limit(1_000);
    assert!(p.push(&[b'a'; 600]).unwrap().is_empty());
    assert_eq!(p.push(&[b'a'; 600]), Err(DecodeError::TooLarge { what: "line", limit: 1_000 }));

    let mut p = SseParser::with_limit(1_000);
    let line = format!("data: {}\n", "b".repeat(400));
    assert!(p.push(line.as_bytes()).unwrap().is_empty());
    assert!(p.push(line.as_bytes()).unwrap().is_empty());
    assert_eq!(p.push(line.as_bytes()), Err(DecodeError::TooLarge { what: "event", limit: 1_000 }));
    let message = DecodeError::TooLarge { what: "event", limit: 1_000 }.to_string();
    assert!(message.contains("1000 bytes"), "{message}");
}

/// Comments and blank lines with no data pending are skipped without being read as text (a flood of
/// them stays cheap); they still end an event that has data, and a BOM before the first line is still
/// dropped, whatever that line is.
#[test]
fn comments_and_blank_lines_change_nothing_but_still_end_events() {
    let mut p = SseParser::new();
    let events = p
        .push("\u{feff}: hello\n\n\n:\r\ndata: a\n\n\n\n: keep-alive\r\n\r\ndata: b\n: inside\ndata: c\n\n".as_bytes())
        .unwrap();
    assert_eq!(events, vec![ev("a"), ev("b\nc")]);
    let mut p = SseParser::new();
    assert_eq!(p.push("\u{feff}\ndata: d\n\n".as_bytes()).unwrap(), vec![ev("d")]);
    let mut p = SseParser::new();
    assert_eq!(p.push("\u{feff}data: e\n\n".as_bytes()).unwrap(), vec![ev("e")], "a BOM before a field line");
}

#[test]
fn the_event_cap_is_exact_for_the_first_data_line_and_before_a_line_ends() {
    let too_large = Err(DecodeError::TooLarge { what: "event", limit: 16 });
    // A first data line over the cap, ended within the chunk that brought it.
    let mut p = SseParser::with_limit(16);
    assert_eq!(p.push(format!("data: {}\n\n", "x".repeat(17)).as_bytes()), too_large);
    let mut p = SseParser::with_limit(16);
    assert_eq!(p.push(format!("data: {}\n\n", "x".repeat(16)).as_bytes()).unwrap(), vec![ev(&"x".repeat(16))]);
    // An event's data as buffered, its last line not ended yet: refused as soon as it is past the cap.
    let mut p = SseParser::with_limit(16);
    assert!(p.push(b"data: 0123456789\n").unwrap().is_empty());
    assert!(p.push(b"data: 01234").unwrap().is_empty(), "10 + 1 + 5 bytes: at the cap");
    assert_eq!(p.push(b"5"), too_large, "one byte past it, before its line ends");
    // Without a data line before it, the one being read counts alone.
    let mut p = SseParser::with_limit(16);
    assert!(p.push(format!("data:{}", "y".repeat(16)).as_bytes()).unwrap().is_empty());
    assert!(matches!(p.push(b"y"), Err(DecodeError::TooLarge { .. })));
}

#[test]
fn a_data_line_at_the_cap_waiting_for_its_lf_is_not_refused() {
    let mut p = SseParser::with_limit(16);
    assert!(p.push(format!("data: {}\r", "z".repeat(16)).as_bytes()).unwrap().is_empty());
    assert_eq!(p.push(b"\n\n").unwrap(), vec![ev(&"z".repeat(16))]);
}
