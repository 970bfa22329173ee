//! The element's DOM half (cargo feature `element`): the views draw the [`super::model`] through web-sys.
//!
//! - [`list`]: `<mcp-task-list>`, every task of a client as compact cards.
//! - `nodes`: creating and updating elements, text only (never `innerHTML`).
//! - `style`: the shadow root's stylesheet.
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

thread_local! {
    /// Labels the host passed to `defineMcpTask({ labels })`, under every element's own.
    static SHARED_LABELS: std::cell::RefCell<crate::json::Value> = const { std::cell::RefCell::new(crate::json::Value::Null) };
}

/// Sets the labels every element starts from (`defineMcpTask({ labels })`).
pub fn set_shared_labels(labels: crate::json::Value) {
    SHARED_LABELS.with(|l| *l.borrow_mut() = labels);
}

/// The label set for `host`: the shipped language of its nearest `lang`, shared then own overrides.
pub fn labels_for(host: &web_sys::Element, own: &crate::json::Value) -> crate::element::model::labels::Labels {
    SHARED_LABELS
        .with(|shared| crate::element::model::labels::Labels::resolve(&host_lang(host), &[&shared.borrow(), own]))
}
