//! The element's DOM half (cargo feature `element`): the views draw the [`super::model`] through web-sys.
//!
//! - [`card`]: `<mcp-task>`, one task kept live from the client's events.
//! - [`list`]: `<mcp-task-list>`, every task of a client as compact cards.
//! - `form_view`: one question of a card (a form, a URL consent, a note).
//! - `nodes`: creating and updating elements, text only (never `innerHTML`).
//! - `style`: the shadow root's stylesheet.
pub mod card;
mod form_view;
pub mod list;
mod nodes;
mod style;

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
