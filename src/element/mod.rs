//! The `<mcp-task>` and `<mcp-task-list>` web components.
//!
//! The pure half — words ([`labels`]), what a card shows ([`card_model`]), URL checks ([`url_check`]),
//! time display ([`elapsed`]), validation messages ([`problem_text`]) — builds and is tested natively.
//! The DOM half (cargo feature `element`) draws it through web-sys into the shadow root that the thin
//! JS class in `pkg/element.js` hands over (wasm-bindgen cannot subclass `HTMLElement`).
pub mod card_model;
pub mod elapsed;
pub mod labels;
pub mod problem_text;
pub mod url_check;

#[cfg(feature = "element")]
pub mod card;
#[cfg(feature = "element")]
mod dom;
#[cfg(feature = "element")]
mod form_view;
#[cfg(feature = "element")]
pub mod list;
#[cfg(feature = "element")]
mod style;

/// The language for `host`'s words: the nearest non-empty `lang` attribute, looking through shadow
/// roots to their hosts, else `navigator.language`, else English.
#[cfg(feature = "element")]
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
