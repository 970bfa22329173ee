//! Redirects. Every request goes out with `redirect: "manual"`: followed blindly, a 307 or 308 would
//! have the runtime re-POST the body (tool arguments, a person's answers) to wherever the server
//! points. A redirect is followed only to the same origin and only with the method kept (307, 308);
//! anything else ends the request with [`TransportError::Redirect`].
//!
//! Node, Deno and workers show a manual redirect as the 3xx itself, `Location` included. Browsers
//! hide it (an "opaqueredirect" response with status 0), so there the target cannot be checked and
//! every redirect is refused: the host opens the client with the server's final URL.
use web_sys::{Response, Url};

use super::TransportError;

/// The most same-origin redirects one request follows.
pub(crate) const MAX_HOPS: u32 = 5;

/// What to do with a response.
pub(crate) enum Hop {
    /// Not a redirect: this is the answer.
    Arrived,
    /// A same-origin 307/308: send the request again to this URL.
    Follow(String),
    /// A redirect this client does not follow.
    Refuse(TransportError),
}

/// The next step after `response` to a request sent to `from`.
pub(crate) fn next_hop(response: &Response, from: &str) -> Hop {
    let status = response.status();
    if status == 0 {
        return Hop::Refuse(TransportError::Redirect { status, to: None });
    }
    if !(300..400).contains(&status) {
        return Hop::Arrived;
    }
    let location = response.headers().get("location").ok().flatten();
    let target = location.and_then(|to| Url::new_with_base(&to, from).ok());
    let Some(target) = target else { return Hop::Refuse(TransportError::Redirect { status, to: None }) };
    let same_origin = Url::new(from).is_ok_and(|own| own.origin() == target.origin());
    if same_origin && (status == 307 || status == 308) {
        Hop::Follow(target.href())
    } else {
        // Only the origin is named: the path or query of a hostile target may carry anything.
        Hop::Refuse(TransportError::Redirect { status, to: Some(target.origin()) })
    }
}
