//! The element's stylesheet, adopted into each shadow root as one shared constructable stylesheet, so
//! it works under `style-src 'self'` (no `<style>` element, no `style` attribute).
//!
//! Hosts restyle through `::part(...)` and these custom properties (light defaults; a dark set follows
//! `prefers-color-scheme`): `--mcp-task-font`, `--mcp-task-radius`, `--mcp-task-bg`, `--mcp-task-fg`,
//! `--mcp-task-muted`, `--mcp-task-border`, `--mcp-task-accent`, `--mcp-task-accent-fg`,
//! `--mcp-task-danger`, and per state `--mcp-task-{working,input,success,danger,neutral}-{bg,fg}`.
use std::cell::RefCell;

use js_sys::{Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CssStyleSheet, ShadowRoot};

/// The CSS of `<mcp-task>` and `<mcp-task-list>`.
pub const CSS: &str = r#"
:host { display: block; font: 1rem/1.5 var(--mcp-task-font, system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans Thai", "Noto Sans", sans-serif);
  color: var(--mcp-task-fg, #111827); --_bg: var(--mcp-task-bg, #ffffff); --_muted: var(--mcp-task-muted, #4b5563);
  --_border: var(--mcp-task-border, #d1d5db); --_accent: var(--mcp-task-accent, #1d4ed8); --_accent-fg: var(--mcp-task-accent-fg, #ffffff);
  --_danger: var(--mcp-task-danger, #b91c1c); --_radius: var(--mcp-task-radius, 12px);
  --_working-bg: var(--mcp-task-working-bg, #dbeafe); --_working-fg: var(--mcp-task-working-fg, #1e3a8a);
  --_input-bg: var(--mcp-task-input-bg, #fef3c7); --_input-fg: var(--mcp-task-input-fg, #78350f);
  --_success-bg: var(--mcp-task-success-bg, #dcfce7); --_success-fg: var(--mcp-task-success-fg, #14532d);
  --_danger-bg: var(--mcp-task-danger-bg, #fee2e2); --_danger-fg: var(--mcp-task-danger-fg, #7f1d1d);
  --_neutral-bg: var(--mcp-task-neutral-bg, #e5e7eb); --_neutral-fg: var(--mcp-task-neutral-fg, #1f2937); }
@media (prefers-color-scheme: dark) {
  :host { color: var(--mcp-task-fg, #f3f4f6); --_bg: var(--mcp-task-bg, #111827); --_muted: var(--mcp-task-muted, #d1d5db);
    --_border: var(--mcp-task-border, #4b5563); --_accent: var(--mcp-task-accent, #93c5fd); --_accent-fg: var(--mcp-task-accent-fg, #0b1220);
    --_danger: var(--mcp-task-danger, #fca5a5);
    --_working-bg: var(--mcp-task-working-bg, #1e3a8a); --_working-fg: var(--mcp-task-working-fg, #dbeafe);
    --_input-bg: var(--mcp-task-input-bg, #78350f); --_input-fg: var(--mcp-task-input-fg, #fef3c7);
    --_success-bg: var(--mcp-task-success-bg, #14532d); --_success-fg: var(--mcp-task-success-fg, #dcfce7);
    --_danger-bg: var(--mcp-task-danger-bg, #7f1d1d); --_danger-fg: var(--mcp-task-danger-fg, #fee2e2);
    --_neutral-bg: var(--mcp-task-neutral-bg, #374151); --_neutral-fg: var(--mcp-task-neutral-fg, #f3f4f6); } }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.card { background: var(--_bg); border: 1px solid var(--_border); border-radius: var(--_radius); padding: 1rem; display: grid; gap: .75rem;
  min-width: 0; overflow-wrap: anywhere; }
.card[data-status="input_required"] { border-color: var(--_input-fg); }
.header { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem .75rem; }
.title { font-weight: 600; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin: 0; }
.status { display: inline-flex; align-items: center; gap: .375rem; padding: .125rem .625rem; border-radius: 999px; font-size: .875rem; font-weight: 600;
  background: var(--_neutral-bg); color: var(--_neutral-fg); }
.status::before { content: ""; width: .5rem; height: .5rem; border-radius: 50%; background: currentColor; }
.card[data-status="working"] .status { background: var(--_working-bg); color: var(--_working-fg); }
.card[data-status="input_required"] .status { background: var(--_input-bg); color: var(--_input-fg); }
.card[data-status="completed"] .status { background: var(--_success-bg); color: var(--_success-fg); }
.card[data-status="failed"] .status, .card[data-status="expired"] .status { background: var(--_danger-bg); color: var(--_danger-fg); }
.elapsed, .connectivity, .hint, .askedby { color: var(--_muted); font-size: .875rem; }
.elapsed { font-variant-numeric: tabular-nums; margin-inline-start: auto; }
.connectivity:empty, .message:empty { display: none; }
.message { margin: 0; white-space: pre-wrap; }
.progress { height: .375rem; border-radius: 999px; background: var(--_working-bg); overflow: hidden; }
.progress > span { display: block; height: 100%; width: 40%; border-radius: inherit; background: var(--_working-fg); animation: mcp-slide 1.4s ease-in-out infinite; }
@keyframes mcp-slide { from { transform: translateX(-100%); } to { transform: translateX(250%); } }
@media (prefers-reduced-motion: reduce) { .progress > span { animation: none; width: 100%; opacity: .45; } }
.questions { display: grid; gap: .75rem; }
form { display: grid; gap: .75rem; border: 1px solid var(--_border); border-radius: calc(var(--_radius) - 4px); padding: .75rem; margin: 0; }
.prompt { margin: 0; font-weight: 600; white-space: pre-wrap; }
.askedby { margin: 0; }
.field { display: grid; gap: .25rem; min-width: 0; }
fieldset.field { border: 0; padding: 0; margin: 0; }
.field > label:not(.choice), legend { font-weight: 600; padding: 0; }
.req { color: var(--_danger); }
.hint { margin: 0; }
input:not([type=checkbox]):not([type=radio]), select { font: inherit; font-size: 1rem; width: 100%; min-height: 44px; padding: .5rem .625rem;
  color: inherit; background: var(--_bg); border: 1px solid var(--_muted); border-radius: 8px; }
input[aria-invalid="true"], select[aria-invalid="true"] { border-color: var(--_danger); border-width: 2px; }
.choice { display: flex; align-items: center; gap: .625rem; min-height: 44px; cursor: pointer; }
.choice input { width: 1.25rem; height: 1.25rem; margin: 0; accent-color: var(--_accent); flex: none; }
.field-error { color: var(--_danger); font-size: .875rem; margin: 0; font-weight: 600; }
.field-error:empty { display: none; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
button { font: inherit; font-weight: 600; min-height: 44px; min-width: 44px; padding: .5rem 1rem; border-radius: 8px; cursor: pointer;
  border: 1px solid var(--_muted); background: var(--_bg); color: inherit; }
button.primary { background: var(--_accent); color: var(--_accent-fg); border-color: var(--_accent); }
button:disabled { opacity: .6; cursor: default; }
:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
.note { margin: 0; padding: .625rem .75rem; border-radius: 8px; background: var(--_neutral-bg); color: var(--_neutral-fg); }
.warn { margin: 0; padding: .625rem .75rem; border-radius: 8px; background: var(--_input-bg); color: var(--_input-fg); }
.url { display: block; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875rem; padding: .5rem; border-radius: 8px;
  background: var(--_neutral-bg); color: var(--_neutral-fg); word-break: break-all; }
.domain { font-weight: 700; }
.result { display: grid; gap: .5rem; }
.result p { margin: 0; white-space: pre-wrap; }
.result[data-error] { border-inline-start: 4px solid var(--_danger); padding-inline-start: .75rem; }
dl { display: grid; grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: .25rem .75rem; margin: 0; }
dt { font-weight: 600; color: var(--_muted); }
dd { margin: 0; }
details summary { cursor: pointer; min-height: 44px; display: flex; align-items: center; color: var(--_accent); font-weight: 600; }
pre { margin: 0; padding: .5rem; overflow: auto; max-height: 20rem; font-size: .8125rem; background: var(--_neutral-bg); color: var(--_neutral-fg); border-radius: 8px; }
.error { margin: 0; padding: .625rem .75rem; border-radius: 8px; background: var(--_danger-bg); color: var(--_danger-fg); }
.error:empty { display: none; }
.card-actions .hint { flex: 1 1 12rem; }
:host([compact]) .card { padding: .75rem; gap: .5rem; }
:host([compact]) .card-actions .hint, :host([compact]) .result dl, :host([compact]) .result details { display: none; }
.list { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem; }
.list .unknown { display: grid; gap: .5rem; border: 1px dashed var(--_border); border-radius: var(--_radius); padding: .75rem; }
.empty { color: var(--_muted); margin: 0; }
"#;

thread_local! {
    static SHEET: RefCell<Option<CssStyleSheet>> = const { RefCell::new(None) };
}

/// Adopts the shared stylesheet into `root` (built once per thread).
pub fn adopt(root: &ShadowRoot) -> Result<(), JsValue> {
    let sheet = SHEET.with(|cell| -> Result<CssStyleSheet, JsValue> {
        if let Some(sheet) = cell.borrow().as_ref() {
            return Ok(sheet.clone());
        }
        let sheet = CssStyleSheet::new()?;
        sheet.replace_sync(CSS)?;
        *cell.borrow_mut() = Some(sheet.clone());
        Ok(sheet)
    })?;
    let sheets = Array::of1(sheet.unchecked_ref());
    Reflect::set(root, &JsValue::from_str("adoptedStyleSheets"), &sheets)?;
    Ok(())
}
