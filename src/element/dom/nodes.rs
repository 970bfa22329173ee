//! A few DOM helpers over web-sys. Server text only ever enters the DOM through `textContent` or
//! attribute values (never `innerHTML`), so markup in it stays text.
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Element};

/// Creates `<tag>` with `attrs` set.
pub fn el(doc: &Document, tag: &str, attrs: &[(&str, &str)]) -> Result<Element, JsValue> {
    let element = doc.create_element(tag)?;
    for (name, value) in attrs {
        element.set_attribute(name, value)?;
    }
    Ok(element)
}

/// Sets `text` as the only content of `element` unless it is already exactly that (keeps screen
/// readers from re-announcing an unchanged live region).
pub fn set_text(element: &Element, text: &str) {
    if element.text_content().as_deref() != Some(text) {
        element.set_text_content(Some(text));
    }
}

/// Shows or hides `element` with the `hidden` attribute.
pub fn show(element: &Element, visible: bool) {
    if element.has_attribute("hidden") == visible {
        let _ = element.toggle_attribute_with_force("hidden", !visible);
    }
}

/// Appends each child to `parent`.
pub fn append(parent: &Element, children: &[&Element]) -> Result<(), JsValue> {
    for child in children {
        parent.append_child(child)?;
    }
    Ok(())
}

/// The nearest element (from `target` up) with attribute `name`, searching within one shadow root.
pub fn closest_with(target: &JsValue, selector: &str) -> Option<Element> {
    let element = target.dyn_ref::<Element>()?;
    element.closest(selector).ok().flatten()
}
