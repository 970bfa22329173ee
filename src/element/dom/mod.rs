//! The element's DOM half (cargo feature `element`): the views draw the [`super::model`] through web-sys.
//!
//! - [`card`]: `<mcp-task>`, one task kept live from the client's events.
//! - [`list`]: `<mcp-task-list>`, every task of a client as compact cards.
//! - `form_view`: one question of a card (a form, a URL consent, a note).
//! - `nodes`: creating and updating elements, text only (never `innerHTML`).
//! - `parse_url`: the platform's URL parser, for `model::url_check`.
//! - `style`: the shadow root's stylesheet.
pub mod card;
mod form_view;
pub mod list;
mod nodes;
mod style;

use crate::element::model::url_check::UrlParts;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

#[wasm_bindgen]
extern "C" {
    /// The platform's URL parser (JS `URL`): the one `window.open` and `fetch` use, so the card names
    /// what the browser opens. Bound here rather than through web-sys's `Url`: the fields are read
    /// with `Reflect::get`, which the package imports anyway, instead of one import per getter.
    #[wasm_bindgen(js_name = URL)]
    type JsUrl;
    #[wasm_bindgen(constructor, js_class = "URL", catch)]
    fn new(url: &str, base: Option<&str>) -> Result<JsUrl, JsValue>;
}

/// What the platform's parser reads of `url` (resolved against `base`, when given); `None` when it
/// does not parse.
pub(crate) fn parse_url(url: &str, base: Option<&str>) -> Option<UrlParts> {
    let parsed: JsValue = JsUrl::new(url, base).ok()?.into();
    // A parsed URL has every field as a string; reading one cannot fail short of page code replacing
    // `URL`, and then empty fields make the URL unopenable (no host).
    let field = |name: &str| {
        js_sys::Reflect::get(&parsed, &JsValue::from_str(name)).ok().and_then(|v| v.as_string()).unwrap_or_default()
    };
    Some(UrlParts {
        href: field("href"),
        protocol: field("protocol"),
        username: field("username"),
        password: field("password"),
        hostname: field("hostname"),
        host: field("host"),
    })
}

/// The language for `host`'s words: the nearest non-empty `lang` attribute, looking through shadow
/// roots to their hosts, else `navigator.language`, else English.
pub fn host_lang(host: &web_sys::Element) -> String {
    use wasm_bindgen::JsCast;
    let mut node = Some(host.clone());
    while let Some(element) = node {
        let mut probe = element.closest("[lang]").ok().flatten();
        while let Some(found) = probe {
            match found.get_attribute("lang").filter(|l| !l.trim().is_empty()) {
                Some(lang) => return lang,
                None => probe = found.parent_element().and_then(|p| p.closest("[lang]").ok().flatten()),
            }
        }
        node = element.get_root_node().dyn_ref::<web_sys::ShadowRoot>().map(web_sys::ShadowRoot::host);
    }
    crate::host::globals::global_property("navigator")
        .and_then(|n| js_sys::Reflect::get(&n, &wasm_bindgen::JsValue::from_str("language")).ok())
        .and_then(|l| l.as_string())
        .unwrap_or_else(|| "en".to_owned())
}
