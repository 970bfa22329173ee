//! The SSE parser: events split anywhere across chunks, CRLF and CR line ends, comments, multi-line data.
use mcp_tasks_web::protocol::sse::{SseEvent, SseParser};
use proptest::prelude::*;

fn ev(data: &str) -> SseEvent {
    SseEvent { event: "message".into(), data: data.into() }
}

#[test]
fn parses_events_with_comments_and_fields() {
    let mut p = SseParser::new();
    let stream = ": keep-alive\n\nevent: message\ndata: {\"a\":1}\nid: 7\nretry: 10\n\ndata: line1\ndata: line2\n\n";
    assert_eq!(p.push(stream.as_bytes()), vec![ev("{\"a\":1}"), ev("line1\nline2")]);
}

#[test]
fn handles_crlf_cr_bom_and_no_space_after_colon() {
    let mut p = SseParser::new();
    assert_eq!(p.push(b"\xef\xbb\xbfdata:x\r\n\r\ndata: y\r\rdata\n\n"), vec![ev("x"), ev("y"), ev("")]);
}

#[test]
fn an_unterminated_event_is_not_dispatched() {
    let mut p = SseParser::new();
    assert!(p.push(b"data: half").is_empty());
    assert!(p.finish().is_empty());
    assert!(p.push(b"\n\n").is_empty());
}

#[test]
fn transcript_stream_yields_its_four_messages() {
    let body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{}}\n\n\
event: message\ndata: {\"n\":1}\n\nevent: message\ndata: {\"n\":2}\n\nevent: message\ndata: {\"n\":3}\n\n";
    let mut p = SseParser::new();
    assert_eq!(p.push(body.as_bytes()).len(), 4);
}

proptest! {
    /// However the bytes are split, the same events come out.
    #[test]
    fn chunking_does_not_change_the_events(cuts in proptest::collection::vec(0usize..200, 0..12)) {
        let body = "data: é{\"x\":1}\r\n\r\n: c\nevent: other\ndata: a\ndata: b\n\ndata: ✓ last\r\r".as_bytes();
        let mut one = SseParser::new();
        let mut whole = one.push(body);
        whole.extend(one.finish());
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (body.len() + 1)).collect();
        cuts.sort_unstable();
        let mut p = SseParser::new();
        let mut got = Vec::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([body.len()]) {
            got.extend(p.push(&body[start..cut]));
            start = cut;
        }
        got.extend(p.finish());
        prop_assert_eq!(got, whole.clone());
        prop_assert_eq!(whole.len(), 3);
    }
}
