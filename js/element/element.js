// @ts-check
// <mcp-task> and <mcp-task-list>: the elements' DOM half. The decisions stay in Rust: the wasm module's
// model (src/element/model/, tested natively) says what a card shows, in the user's words, and checks
// a form's answers; these classes only create elements and set texts and attributes. Server text only
// ever enters the DOM as textContent or attribute values, never as markup. Importing this module
// registers nothing: call defineMcpTask() after init().
//
// This module is also the whole API for a page with cards: it re-exports the package's main entry
// (client.js), init() included, and makes that init() load the module with the element's model
// (mcp_tasks_web_bg.wasm) instead of the client's. A page whose data layer imports "mcp-tasks-web" and
// whose UI imports this module loads one driver and one module: its TaskClients are the element's.
//
// Page code may call back at any time (a `focusin` or `mcp-task-*` listener that reads the element,
// sets `labels` or a client, on this element or another): a card records what it draws before the
// DOM work that runs page code, and a draw that a listener re-entered leaves the rest to the newer
// draw (docs/element.md, "Page code may call back at any time").
import {
  ELEMENT,
  TaskClient,
  elementAnswer as answer,
  elementElapsed,
  elementWords as words,
  setDoor,
} from "../driver/task_client.js";

export * from "../driver/task_client.js";
export { default } from "../driver/task_client.js";

// The module with the element's model, for `init()` without a module (written `new URL("…",
// import.meta.url)`, which bundlers emit as an asset), and the glue of the one with the 2025-11-25 flow
// as well, for when a server needs it.
setDoor(new URL("./mcp_tasks_web_bg.wasm", import.meta.url), () => import("#pkg/mcp_tasks_web_full.js"));

// The element's questions to the Rust model (its card, list rows, form checks and words). Values
// cross as JSON text, so numbers keep their digits.

/**
 * Every word for `lang`, with `layers` (`[shared, own]` overrides) over the shipped ones.
 * @param {string} lang
 * @param {unknown} layers
 * @returns {Record<string, string>}
 */
const elementWords = (lang, layers) => {
  // Over the client's module (init() ran before this module was imported, or was given it) this throws
  // a TypeError: that module has the name but not the card model.
  return JSON.parse(words(lang, JSON.stringify(layers ?? null)));
};

/**
 * `{ answer }` (JSON text), `{ errors }` or null for what the user entered in a form of `schema`.
 * @param {string} schema
 * @param {unknown} entered
 * @param {unknown} w
 * @returns {{ answer: string, errors?: undefined } | { errors: Record<string, string>, answer?: undefined } | null}
 */
const elementAnswer = (schema, entered, w) =>
  JSON.parse(answer(schema, JSON.stringify(entered ?? null), JSON.stringify(w ?? null)));

/**
 * The card of task `id` of `client` (else of `snapshot`), or null; without its snapshot when that is
 * the one of digest `drawn`. The clients are checked when set (`checkClient`).
 * @param {TaskClient} client
 * @param {string} id
 * @param {unknown} snapshot
 * @param {string | null} drawn
 * @param {unknown} w
 * @returns {Card | null}
 */
const elementCard = (client, id, snapshot, drawn, w) => client[ELEMENT]("card", { id, snapshot, drawn, words: w });

/**
 * The rows of `client`'s list.
 * @param {TaskClient} client
 * @param {unknown} w
 * @returns {DoneValues["list"]}
 */
const elementList = (client, w) => client[ELEMENT]("list", { words: w });

/**
 * Sends a form's `responses` (JSON text) for task `id`.
 * @param {unknown} client
 * @param {string} id
 * @param {string} responses
 * @returns {Promise<unknown>}
 */
const elementRespond = (client, id, responses) =>
  /** @type {TaskClient} */ (client)[ELEMENT]("respond", { id, answersText: responses });

/**
 * @import { TaskSnapshot } from "#pkg/mcp_tasks_web.js"
 * @import { DefineMcpTaskOptions, McpTaskElement } from "#pkg/element.js"
 * @import { Card, CardResult, DoneValues, FieldView, ListRow, QuestionView, UrlView } from "../../types/door-protocol.js"
 */
// (`#pkg/element.js` in a type import is the published declaration, element.d.ts.)
/** A host's drawing of a result's content block (`renderContent`). */
/** @typedef {((content: unknown, index: number) => Node | null | undefined) | null} RenderContent */
/** The words of an element, by key (`elementWords`). */
/** @typedef {Record<string, string>} Words */
/** `wordsFor`'s memo: the last table's key, its JSON text and the words. */
/** @typedef {{ key?: unknown, text?: string, words?: Words }} WordsMemo */
/** A form control the model reads (`entered`). */
/** @typedef {HTMLInputElement | HTMLSelectElement} Control */
/** A field drawn: its property, widget, controls and error line. */
/** @typedef {{ name: string, widget: FieldView["widget"], controls: Control[], error: HTMLElement }} DrawnField */
/** A question drawn as a note. */
/** @typedef {{ key: string, el: HTMLElement, fields?: undefined, schema?: undefined, href?: undefined, status?: undefined, first?: undefined }} NoteQuestion */
/**
 * A question drawn as a form: its fields, schema (JSON text, a form's) or `href` (a URL's), status line
 * and the control that takes focus.
 * @typedef {{ key: string, el: HTMLFormElement, fields: DrawnField[], schema: string | undefined, href: string | null | undefined,
 *   status?: HTMLElement, first?: HTMLElement | null }} FormQuestion
 */
/** @typedef {NoteQuestion | FormQuestion} DrawnQuestion */
/** A list's row with the index of its client and a key unique across clients. */
/** @typedef {ListRow & { client: number, key: string }} KeyedRow */
/** The parts of a card every snapshot updates. */
/**
 * @typedef {Record<"card" | "title" | "server" | "status" | "elapsed" | "connectivity" | "message" | "progress" | "questions"
 *   | "result" | "error" | "actions" | "cancel" | "cancelHint", HTMLElement>} Parts
 */

/**
 * The stylesheet of both elements, adopted into each shadow root as one shared constructable sheet, so
 * it works under `style-src 'self'` (no `<style>` element, no `style` attribute). Hosts restyle through
 * `::part(...)` and these custom properties (light defaults; a dark set follows `prefers-color-scheme`):
 * `--mcp-task-font`, `--mcp-task-radius`, `--mcp-task-bg`, `--mcp-task-fg`, `--mcp-task-muted`,
 * `--mcp-task-border`, `--mcp-task-accent`, `--mcp-task-accent-fg`, `--mcp-task-danger`, and per state
 * `--mcp-task-{working,input,success,danger,neutral}-{bg,fg}`.
 */
const CSS = `:host { display: block; font: 1rem/1.5 var(--mcp-task-font, system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans Thai", "Noto Sans", sans-serif);
  color: var(--mcp-task-fg, #111827); --_bg: var(--mcp-task-bg, #fff); --_muted: var(--mcp-task-muted, #4b5563);
  --_border: var(--mcp-task-border, #d1d5db); --_accent: var(--mcp-task-accent, #1d4ed8); --_accent-fg: var(--mcp-task-accent-fg, #fff);
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
.server, .elapsed, .connectivity, .hint, .askedby { color: var(--_muted); font-size: .875rem; }
.elapsed { font-variant-numeric: tabular-nums; margin-inline-start: auto; }
.connectivity:empty, .message:empty { display: none; }
.message { margin: 0; white-space: pre-wrap; }
.progress { height: .375rem; border-radius: 999px; background: var(--_working-bg); overflow: hidden; }
.progress > span { display: block; height: 100%; width: 40%; border-radius: inherit; background: var(--_working-fg); animation: mcp-slide 1.4s ease-in-out infinite; }
@keyframes mcp-slide { from { transform: translateX(-100%); } to { transform: translateX(250%); } }
@media (prefers-reduced-motion: reduce) { .progress > span { animation: none; width: 100%; opacity: .45; } }
.progress.determinate > span { animation: none; opacity: 1; transition: width .3s; }
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
.result img, audio { max-width: 100%; }
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
.list li:empty { height: 6rem; }
.list .unknown { display: grid; gap: .5rem; border: 1px dashed var(--_border); border-radius: var(--_radius); padding: .75rem; }
.empty { color: var(--_muted); margin: 0; }`;

/** @type {CSSStyleSheet | null} */
let sheet = null;

/**
 * Styles `root` with the shared sheet (built on first use).
 * @param {ShadowRoot} root
 */
function adopt(root) {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  root.adoptedStyleSheets = [sheet];
}

/**
 * `<tag>` with `attrs` set and `text` (set as text, never parsed) as its only content.
 * @template {string} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {string | null} [text]
 * @returns {K extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[K] : HTMLElement}
 */
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const name in attrs) e.setAttribute(name, attrs[name]);
  if (text != null) e.textContent = text;
  return /** @type {K extends keyof HTMLElementTagNameMap ? HTMLElementTagNameMap[K] : HTMLElement} */ (e);
}

/**
 * Sets `text` unless it is already exactly that (a live region is not re-announced for nothing).
 * @param {Node} e
 * @param {string} text
 */
function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

/**
 * Sets attribute `name` to `value`, or removes it for `null`; untouched when unchanged.
 * @param {Element} e
 * @param {string} name
 * @param {string | null} value
 */
function setAttr(e, name, value) {
  if (value == null) {
    if (e.hasAttribute(name)) e.removeAttribute(name);
  } else if (e.getAttribute(name) !== value) e.setAttribute(name, value);
}

/**
 * Shows or hides `e` with the `hidden` attribute.
 * @param {HTMLElement} e
 * @param {boolean} visible
 */
function show(e, visible) {
  if (e.hidden === visible) e.hidden = !visible;
}

/**
 * `template` (a word) with its `{name}` placeholders filled from `values`; unknown ones stay as written.
 * @param {string} template
 * @param {Record<string, string>} values
 */
function fill(template, values) {
  return template.replace(/\{([^{}]*)\}/g, (hole, /** @type {string} */ name) =>
    Object.hasOwn(values, name) ? values[name] : hole,
  );
}

/** The text of a rejection (the client rejects with Error objects). */
const errorText = (/** @type {unknown} */ e) =>
  /** @type {{ message?: string } | null | undefined} */ (e)?.message ?? String(e);

/**
 * Labels the host passed to `defineMcpTask({ labels })`, under every element's own.
 * @type {unknown}
 */
let shared = null;

/**
 * The language of `host`'s words: the nearest non-empty `lang` attribute, looking through shadow roots
 * to their hosts, else `navigator.language`, else English.
 * @param {Element} host
 */
function hostLang(host) {
  for (
    let node = /** @type {Element | undefined} */ (host);
    node;
    node = /** @type {{ host?: Element }} */ (node.getRootNode()).host
  ) {
    for (
      let e = /** @type {Element | null | undefined} */ (node.closest("[lang]"));
      e;
      e = e.parentElement?.closest("[lang]")
    ) {
      const lang = /** @type {string} */ (e.getAttribute("lang"));
      if (lang.trim()) return lang;
    }
  }
  return globalThis.navigator?.language || "en";
}

/**
 * The words of an element: `{ key: word }` for its language and labels. `memo` keeps the last table
 * (`key`, `text`, `words`): the table is asked again only when the language or a layer changed, and
 * `true` comes back only when the words themselves did.
 * @param {Element} host
 * @param {unknown} own
 * @param {WordsMemo} memo
 */
function wordsFor(host, own, memo) {
  const lang = hostLang(host);
  let key;
  try {
    key = lang + "\n" + JSON.stringify([shared, own]);
  } catch {
    key = {}; // labels JSON cannot hold: never equal, so asked each time (and read as none)
  }
  if (key === memo.key) return false;
  memo.key = key;
  const words = elementWords(lang, [shared, own]);
  const text = JSON.stringify(words);
  if (text === memo.text) return false;
  Object.assign(memo, { text, words });
  return true;
}

/** The focused element, looking into open shadow roots. */
function deepActive() {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/**
 * Focus moves to a new form unless the user is typing in another control on the page.
 * @param {HTMLElement} host
 */
function mayTakeFocus(host) {
  const active = deepActive();
  if (!active || host.contains(active) || /** @type {ShadowRoot} */ (host.shadowRoot).contains(active)) return true;
  return !/^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName) && !active.hasAttribute("contenteditable");
}

/**
 * Dispatches a bubbling, composed `CustomEvent`; false when a listener called `preventDefault()`.
 * @param {EventTarget} target
 * @param {string} type
 * @param {unknown} detail
 */
function tell(target, type, detail, cancelable = false) {
  return target.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, cancelable, detail }));
}

/**
 * Refreshers of the connected elements, called when a `lang` attribute changes anywhere.
 * @type {Set<() => void>}
 */
const live = new Set();
/** @type {MutationObserver | null} */
let langObserver = null;

function watchLang() {
  if (langObserver || typeof MutationObserver === "undefined") return;
  // biome-ignore lint/suspicious/useIterableCallbackReturn: a refresher returns nothing; the arrow only calls it.
  langObserver = new MutationObserver(() => live.forEach((refresh) => refresh()));
  langObserver.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"], subtree: true });
}

/**
 * Properties set on an element before its tag was defined shadow the class's setters; replay them.
 * @param {object} element
 * @param {string[]} names
 */
function upgradeProperties(element, names) {
  for (const name of names) {
    if (Object.hasOwn(element, name)) {
      const value = /** @type {Record<string, unknown>} */ (element)[name];
      delete (/** @type {Record<string, unknown>} */ (element)[name]);
      /** @type {Record<string, unknown>} */ (element)[name] = value;
    }
  }
}

/**
 * The client or `null`; anything else is refused (a card is its client's own door's answer).
 * @param {unknown} client
 * @returns {TaskClient | null}
 */
function checkClient(client) {
  if (client == null || client instanceof TaskClient) return client ?? null;
  throw new TypeError("client must be a TaskClient");
}

/**
 * Appends to `box` an address as the model checked it (a URL-mode question's, a resource link's):
 * `intro`, the address, its site (and the site's international form), the warnings; returns the Open
 * button (`data-action` `action`), or null when it may not be opened.
 * @param {HTMLElement} box
 * @param {UrlView} v
 * @param {Words} w
 * @param {string} intro
 * @param {string} action
 */
function address(box, v, w, intro, action) {
  const site = el("p", {}, `${w["url.site"]}: `);
  site.append(el("strong", { part: "domain", class: "domain" }, v.host));
  // <bdi>: a right-to-left name must not reorder the text around it.
  if (v.unicode != null) site.append(" (", el("bdi", { part: "domain-unicode" }, v.unicode), ")");
  box.append(el("p", { class: "hint" }, intro), el("code", { part: "url", class: "url" }, v.url), site);
  for (const warning of v.warnings) box.append(el("p", { class: "warn", role: "note" }, warning));
  // `href` is set when `open` is.
  return v.open == null
    ? null
    : el(
        "button",
        { type: "button", class: "primary", "data-action": action, "data-href": /** @type {string} */ (v.href) },
        v.open,
      );
}

/**
 * Opens `href` in a new tab that has no way back to this page; whether a tab opened. Accept is sent only
 * after it did, so this cannot be `window.open(href, "_blank", "noopener,noreferrer")`: with those
 * features the browser returns null whether or not it opened anything. Instead a blank tab is opened
 * (its window, or null when blocked) and its `opener` cut; then a `rel="noreferrer"` link of the blank
 * tab's own document is followed, so the tab, not this page, navigates, and `href` learns neither this
 * page's window nor its address.
 * @param {string} href
 */
function openTab(href) {
  let tab = null;
  try {
    tab = window.open("about:blank", "_blank");
    if (!tab) return false;
    tab.opener = null;
    // Created by the tab's own document (another realm): the tab, not this page, follows it.
    const link = tab.document.createElement("a");
    link.setAttribute("href", href);
    link.setAttribute("rel", "noreferrer");
    link.click();
    return true;
  } catch {
    tab?.close();
    return false;
  }
}

/**
 * Shows `text` in a question's status line and enables or disables its buttons.
 * @param {FormQuestion} q
 * @param {string} text
 * @param {boolean} busy
 */
function setBusy(q, text, busy) {
  if (q.status) setText(q.status, text);
  for (const button of q.el.querySelectorAll("button")) setAttr(button, "disabled", busy ? "" : null);
}

/**
 * What the user entered in a form, by property: text as typed (blank controls left out, and a number
 * input's text it cannot read as `?`, which the model refuses), a checkbox's state, the values chosen.
 * A prototype-less object, so a property named `__proto__` stays a property.
 * @param {FormQuestion} q
 */
function entered(q) {
  /** @type {Record<string, unknown>} */
  const out = Object.create(null);
  for (const { name, widget, controls } of q.fields) {
    const [first] = controls;
    /** @type {unknown} */
    let value;
    // Checkboxes and radios are inputs.
    /** @typedef {HTMLInputElement} Input */
    if (widget === "checkbox") value = /** @type {Input} */ (first).checked;
    else if (widget === "radio") value = controls.find((c) => /** @type {Input} */ (c).checked)?.value;
    else if (widget === "checkboxes") {
      const chosen = controls.filter((c) => /** @type {Input} */ (c).checked).map((c) => c.value);
      if (chosen.length) value = chosen;
    } else value = first.value || (first.validity.badInput ? "?" : undefined);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

let cards = 0;
/**
 * `notificationclick` events a card already took focus for.
 * @type {WeakSet<Event>}
 */
const focusedFor = new WeakSet();

function makeTaskElement() {
  return class McpTaskElement extends HTMLElement {
    static observedAttributes = ["task-id", "compact", "show-server"];
    /**
     * `ElementInternals.states` (a CustomStateSet), read once and held here. Read anew each time, WebKit
     * (WebKitGTK 2.50) may hand out a fresh, empty set once the previous one was garbage collected, while
     * the element still matches the states added to the old one: the stale `:state(working)` would then
     * never go (tests/engines/element.test.mjs).
     * @type {CustomStateSet | null}
     */
    #states = null;
    /** @type {TaskClient | null} */
    #client = null;
    /** @type {string | null} */
    #taskId = null;
    /** @type {unknown} */
    #labels = null;
    /**
     * The words in use (`wordsFor`'s memo).
     * @type {WordsMemo}
     */
    #words = {};
    /**
     * The parts every snapshot updates.
     * @type {Parts}
     */
    #p;
    /** @type {string} */
    #prefix;
    #nextId = 0;
    /**
     * The snapshot shown (as the model read it), as its JSON text, and that text as compared for a
     * change ("null" before the first).
     * @type {string | null}
     */
    #snapshot = null;
    #snapshotJson = "null";
    /**
     * The door's digest of the snapshot shown: it leaves the snapshot out of a card drawn from the same.
     * @type {string | null}
     */
    #drawn = null;
    /**
     * The card view of the snapshot shown (`elementCard`).
     * @type {Card | null}
     */
    #view = null;
    /**
     * The questions drawn, by input key: built once, so what the user types survives every poll.
     * @type {Map<string, DrawnQuestion>}
     */
    #questions = new Map();
    /**
     * The JSON of the result drawn (`undefined`: draw it whatever it is).
     * @type {string | null | undefined}
     */
    #resultJson;
    /**
     * The `blob:` URLs of the result drawn, revoked when it is drawn again and when the card goes.
     * @type {string[]}
     */
    #urls = [];
    /** @type {RenderContent} */
    #renderContent = null;
    /**
     * Ends the MCP App shown (`app-sandbox`), or its loading.
     * @type {AbortController | undefined}
     */
    #app;
    #settledTold = false;
    #connected = false;
    /** @type {(() => void) | null} */
    #unsubscribe = null;
    /** @type {ReturnType<typeof setInterval> | 0} */
    #ticker = 0;
    /** @type {string | null} */
    #actionError = null;
    /** Counts draws, so a draw that page code re-entered stops and leaves the rest to the newer one. */
    #draws = 0;
    #refresh = () => this.#render(this.#snapshot);

    constructor() {
      super();
      const root = this.attachShadow({ mode: "open", delegatesFocus: false });
      adopt(root);
      this.#prefix = `mcp-task-${++cards}`;
      this.#p = this.#skeleton(root);
      try {
        this.#states = this.attachInternals().states ?? null;
      } catch {
        this.#states = null; // ElementInternals is optional: only the :state() styling hooks need it.
      }
      this.addEventListener("mcp-task-change", (event) => this.#setState(event.detail?.status));
      root.addEventListener("click", (event) => this.#onEvent(event));
      root.addEventListener("submit", (event) => this.#onEvent(event));
      upgradeProperties(this, ["client", "taskId", "labels", "renderContent"]);
    }

    /**
     * The card's parts in `root`.
     * @param {ShadowRoot} root
     * @returns {Parts}
     */
    #skeleton(root) {
      /**
       * @param {string} tag
       * @param {string} name
       * @param {Record<string, string>} [attrs]
       */
      const part = (tag, name, attrs) => el(tag, { part: name, class: name, ...attrs });
      const titleId = `${this.#prefix}-title`;
      const p = {
        card: part("article", "card", { "aria-labelledby": titleId, tabindex: "-1" }),
        title: part("p", "title", { id: titleId }),
        server: part("span", "server"),
        status: part("span", "status"),
        elapsed: part("span", "elapsed"),
        connectivity: part("span", "connectivity", { role: "status" }),
        message: part("p", "message", { "aria-live": "polite" }),
        progress: part("div", "progress", { role: "progressbar" }),
        questions: el("div", { class: "questions" }),
        result: part("div", "result", { hidden: "" }),
        error: part("p", "error", { role: "alert" }),
        actions: el("div", { part: "actions", class: "actions card-actions" }),
        cancel: el("button", { type: "button", "data-action": "cancel-task" }),
        cancelHint: el("span", { class: "hint" }),
      };
      const header = part("div", "header");
      header.append(p.title, p.server, p.status, p.elapsed, p.connectivity);
      p.progress.append(el("span"));
      p.actions.append(p.cancel, p.cancelHint);
      p.card.append(header, p.message, p.progress, p.questions, p.result, p.error, p.actions);
      root.append(p.card);
      return p;
    }

    /**
     * A determinate bar when the server reported progress out of a known total, else an indeterminate one (no `aria-valuenow`).
     * @param {Card["progress"]} progress
     */
    #drawProgress(progress) {
      // Missing or null numbers compare false, as JS compares them: an indeterminate bar.
      const [done, total] = /** @type {[number, number]} */ (progress ?? []);
      const known = total > 0 && done >= 0 && Number.isFinite(done / total);
      const bar = this.#p.progress;
      bar.classList.toggle("determinate", known);
      setAttr(bar, "aria-valuemin", known ? "0" : null);
      setAttr(bar, "aria-valuemax", known ? String(total) : null);
      setAttr(bar, "aria-valuenow", known ? String(Math.min(done, total)) : null);
      /** @type {HTMLElement} */ (bar.firstChild).style.width = known ? `${Math.min(100, (100 * done) / total)}%` : "";
    }

    /** @param {unknown} status */
    #setState(status) {
      const states = this.#states;
      if (!states || typeof status !== "string") return;
      try {
        for (const s of [...states]) states.delete(s);
        states.add(status.replace(/_/g, "-"));
      } catch {
        // Older engines accept only `--dashed` custom states; styling by state is then unavailable.
      }
    }

    connectedCallback() {
      this.#connected = true;
      this.#reset();
      live.add(this.#refresh);
      watchLang();
    }

    disconnectedCallback() {
      live.delete(this.#refresh);
      this.#connected = false;
      this.#stop();
      // The result's media go with the card (drawn again if it comes back).
      this.#drawResult(null);
      this.#resultJson = undefined;
    }

    /**
     * The host's drawing of a result's content block: called with each block (as the server sent it)
     * and its index; a Node it returns is shown instead of the card's own drawing of that block.
     */
    get renderContent() {
      return this.#renderContent;
    }
    /** @param {RenderContent} render */
    set renderContent(render) {
      this.#renderContent = render ?? null;
      this.#resultJson = undefined;
      this.#refresh();
    }

    /**
     * @param {string} name
     * @param {string | null} _old
     * @param {string | null} value
     */
    attributeChangedCallback(name, _old, value) {
      // `compact` and `show-server` change only how the card draws.
      if (name === "task-id") this.#setTaskId(value);
      else this.#refresh();
    }

    /** The TaskClient whose task is shown. */
    get client() {
      return this.#client;
    }
    /** @param {TaskClient | null} client */
    set client(client) {
      this.#client = checkClient(client);
      this.#reset();
    }

    /** The id of the task shown (mirrors the `task-id` attribute). */
    get taskId() {
      return this.#taskId;
    }
    /** @param {string | null} id */
    set taskId(id) {
      const value = id == null || id === "" ? null : String(id);
      if (value === null) this.removeAttribute("task-id");
      else this.setAttribute("task-id", value);
      this.#setTaskId(value);
    }

    /**
     * The latest TaskSnapshot shown, or null (a copy: changing it changes nothing here).
     * @returns {TaskSnapshot | null}
     */
    get snapshot() {
      return JSON.parse(this.#snapshotJson);
    }

    /** Words for this element only: `{ key: word }` or `{ [lang]: { key: word } }`. */
    get labels() {
      return this.#labels;
    }
    /** @param {unknown} labels */
    set labels(labels) {
      this.#labels = labels ?? null;
      this.#refresh();
    }

    /** @param {string | null} id */
    #setTaskId(id) {
      id ||= null;
      if (id === this.#taskId) return;
      this.#taskId = id;
      this.#reset();
    }

    /** Stops listening and ticking. */
    #stop() {
      this.#unsubscribe?.();
      this.#unsubscribe = null;
      this.#stopTicking();
    }

    /** Starts over for a new client or task: resubscribe, forget drawn forms, draw the current state. */
    #reset() {
      this.#stop();
      this.#snapshot = null;
      this.#snapshotJson = "null";
      this.#drawn = null;
      this.#view = null;
      this.#settledTold = false;
      this.#resultJson = undefined;
      this.#actionError = null;
      const gone = [...this.#questions.values()];
      this.#questions.clear();
      const client = this.#client;
      if (this.#connected && client) this.#subscribe(client);
      // After the state: removing a focused control fires focus events a host may listen to.
      for (const q of gone) q.el.remove();
      this.#render(client && this.#taskId ? undefined : null);
    }

    /** @param {TaskClient} client */
    #subscribe(client) {
      // Every card hears every task's events: the id alone is read before anything else.
      const on = (/** @type {CustomEvent<{ taskId?: string | null, id?: string } | null>} */ event) => {
        const d = event.detail;
        const id = d?.taskId ?? d?.id;
        if (this.#taskId !== null && id === this.#taskId)
          this.#render(event.type === "task" ? /** @type {TaskSnapshot} */ (d) : null);
      };
      // A click on this task's system notification (`notify`): show the person this card (the first
      // card of the task to hear it, when a page shows the task twice).
      const shown = (/** @type {CustomEvent<{ taskId: string }>} */ event) => {
        if (this.#taskId === null || event.detail?.taskId !== this.#taskId || focusedFor.has(event)) return;
        focusedFor.add(event);
        this.#p.card.focus();
      };
      client.addEventListener("task", on);
      client.addEventListener("forget", on);
      client.addEventListener("notificationclick", shown);
      this.#unsubscribe = () => {
        client.removeEventListener("task", on);
        client.removeEventListener("forget", on);
        client.removeEventListener("notificationclick", shown);
      };
    }

    /**
     * Draws the task (`null`: none) and then tells the host what changed. The model draws the client's
     * own snapshot of the task, which keeps numbers as the server wrote them; `snapshot` (the one drawn
     * last as its JSON text, or an event's) only when the client no longer has the task.
     * @param {TaskSnapshot | string | null | undefined} snapshot
     */
    #render(snapshot) {
      for (const [type, detail] of this.#draw(snapshot)) tell(this, type, detail);
    }

    /**
     * @param {TaskSnapshot | string | null | undefined} snapshot
     * @returns {Array<[string, unknown]>}
     */
    #draw(snapshot) {
      /** @type {Array<[string, unknown]>} */
      const out = [];
      const memo = this.#words;
      if (wordsFor(this, this.#labels, memo)) {
        // New words: the forms and the result are drawn again in them.
        this.#resultJson = undefined;
        const gone = [...this.#questions.values()];
        this.#questions.clear();
        for (const q of gone) q.el.remove();
      }
      const w = /** @type {Words} */ (memo.words);
      const p = this.#p;
      const client = this.#client;
      const id = this.#taskId;
      const view = snapshot !== null && client && id ? elementCard(client, id, snapshot, this.#drawn, w) : null;
      if (!view) {
        // `unknown` is the model's UNKNOWN_STATUS (src/element/model/card_model.rs).
        setAttr(p.card, "data-status", "unknown");
        setText(p.title, id ?? "");
        setText(p.status, w["status.unknown"]);
        setText(p.message, client && id ? fill(w["error.unknownTask"], { id }) : w["task.noClient"]);
        for (const part of [p.server, p.progress, p.actions]) show(part, false);
        this.#drawResult(null);
        setText(p.error, "");
        return out;
      }
      // What is drawn is recorded first: page code the drawing runs (a `focusin` listener, say) may
      // call back and redraw, and must see this snapshot, not the one before it.
      // The snapshot comes as its JSON text, parsed only for an event, and only when it is not the one
      // drawn last.
      const changed = view.snapshot !== undefined && view.snapshot !== this.#snapshotJson;
      const json = view.snapshot ?? this.#snapshotJson;
      const thisDraw = ++this.#draws;
      if (changed) out.push(["mcp-task-change", JSON.parse(json)]);
      if (view.settled && !this.#settledTold) {
        this.#settledTold = true;
        out.push(["mcp-task-settled", JSON.parse(json)]);
      }
      this.#snapshot = json;
      this.#snapshotJson = json;
      this.#drawn = view.digest;
      if (view.settled) this.#stopTicking();
      else if (this.#connected && !this.#ticker) this.#ticker = setInterval(() => this.#tick(), 1000);
      setAttr(p.card, "data-status", view.status);
      setText(p.title, view.title);
      // Which server the task runs on, where a list shows several servers' tasks.
      setText(p.server, view.server);
      show(p.server, this.hasAttribute("show-server"));
      setText(p.status, view.statusText);
      setText(p.connectivity, view.conn);
      setText(p.message, view.message);
      setAttr(p.progress, "aria-label", w["progress.label"]);
      show(p.progress, view.working);
      this.#drawProgress(view.progress);
      // A compact card (a list item) summarises: its questions are asked by the full card.
      this.#drawQuestions(this.hasAttribute("compact") ? [] : view.questions, w);
      if (this.#draws !== thisDraw) {
        // A host listener redrew the card from inside (a `focusin` handler that set labels): that
        // draw had the newest words and state, and finished the card.
        return out;
      }
      this.#drawResult(view.result, w);
      setText(p.error, this.#actionError ?? view.error ?? "");
      show(p.actions, view.live);
      setText(p.cancel, view.cancel);
      setAttr(p.cancel, "disabled", view.cancelRequested ? "" : null);
      setText(p.cancelHint, w["cancel.hint"]);
      this.#view = view;
      this.#tick();
      return out;
    }

    #stopTicking() {
      clearInterval(this.#ticker);
      this.#ticker = 0;
    }

    /** Updates the elapsed time (each second while live; once when settled). */
    #tick() {
      const view = this.#view;
      const w = this.#words.words;
      if (!view || !w) return;
      const start = view.created;
      if (start == null) return setText(this.#p.elapsed, "");
      const [key, end] = view.settled ? ["elapsed.took", view.updated ?? start] : ["elapsed.running", Date.now()];
      setText(this.#p.elapsed, fill(w[key], { time: elementElapsed(end - start) }));
    }

    /**
     * Keeps one question per unanswered key: drops the answered ones, adds the new ones, and moves focus
     * to the first new form unless the user is busy elsewhere. The state is updated first; the DOM work
     * that can run page code (removing a focused control fires focus events, `focus()` fires `focusin`,
     * and a host listener may read or redraw this card) comes after.
     * @param {QuestionView[]} wanted
     * @param {Words} w
     */
    #drawQuestions(wanted, w) {
      const active = deepActive();
      /** @type {HTMLElement[]} */
      const removed = [];
      for (const [key, q] of this.#questions) {
        if (!wanted.some((v) => v.key === key)) {
          this.#questions.delete(key);
          removed.push(q.el);
        }
      }
      /** @type {DrawnQuestion[]} */
      const added = [];
      /** @type {HTMLElement | null | undefined} */
      let focus = null;
      for (const v of wanted) {
        if (this.#questions.has(v.key)) continue;
        const q = this.#question(v, w);
        if (!focus && q.status) focus = q.first;
        added.push(q);
        this.#questions.set(v.key, q);
      }
      const lostFocus = active && removed.some((e) => e.contains(active));
      for (const e of removed) e.remove();
      // The answered form held focus: keep keyboard and screen-reader users on this card.
      if (lostFocus) this.#p.card.focus();
      for (const q of added) {
        // Unless page code run by the focus above redrew the card and dropped this question.
        if (this.#questions.get(q.key) === q) this.#p.questions.append(q.el);
      }
      if (focus?.isConnected && mayTakeFocus(this)) focus.focus();
    }

    #id() {
      return `${this.#prefix}-${++this.#nextId}`;
    }

    /**
     * One question: a note, or a `<form>` (data-mode `form` or `url`) with the server's message and who
     * asks. A form carries no accessible name on purpose: a named form is a landmark, and two cards
     * asking the same question would be duplicate landmarks.
     * @param {QuestionView} v
     * @param {Words} w
     * @returns {DrawnQuestion}
     */
    #question(v, w) {
      const key = v.key;
      if (v.note != null) return { key, el: el("p", { part: "note", class: "note", "data-key": key }, v.note) };
      const form = el("form", {
        part: "form",
        "data-key": key,
        "data-mode": /** @type {string} */ (v.mode),
        novalidate: "",
      });
      form.append(el("p", { part: "prompt", class: "prompt" }, v.message), el("p", { class: "askedby" }, v.asked));
      /** @type {FormQuestion} */
      const q = { key, el: form, fields: [], schema: v.schema, href: v.href };
      /** @type {HTMLButtonElement | null} */
      let primary = null;
      if (v.mode === "url") primary = address(form, v, w, w["url.intro"], "open");
      else {
        if (v.invalid != null) form.append(el("p", { part: "error", class: "error" }, v.invalid));
        for (const f of v.fields) form.append(this.#field(f, w, q));
        if (v.accept)
          primary = el("button", { type: "submit", class: "primary", "data-action": "accept" }, w["action.accept"]);
      }
      const row = el("div", { part: "actions", class: "actions" });
      if (primary) row.append(primary);
      for (const action of ["decline", "cancel"])
        row.append(el("button", { type: "button", "data-action": action }, w[`action.${action}`]));
      q.status = el("p", { class: "field-error", role: "status" });
      form.append(row, q.status);
      q.first = q.fields[0]?.controls[0] ?? form.querySelector("button");
      return q;
    }

    /**
     * One field, as the model's `widget` says: an `<input>` or `<select>` with its `<label for>`, a
     * checkbox inside its label, or a `<fieldset>` of radios or checkboxes with a `<legend>`. Every
     * control has an id and `name`, `aria-describedby` names the description and the error line, and a
     * required field shows a mark and says so where ARIA allows (not on a group of checkboxes: there
     * in words for screen readers).
     * @param {FieldView} f
     * @param {Words} w
     * @param {FormQuestion} q
     */
    #field(f, w, q) {
      const id = this.#id();
      const errorId = `${id}-error`;
      const describedby = f.hint != null ? `${id}-hint ${errorId}` : errorId;
      const hint = f.hint != null ? el("p", { class: "hint", id: `${id}-hint` }, f.hint) : null;
      /** @type {Control[]} */
      const controls = [];
      const mark = (/** @type {HTMLElement} */ parent) =>
        f.required && parent.append(el("span", { class: "req", "aria-hidden": "true" }, " *"));
      /**
       * @template {"input" | "select"} T
       * @param {T} tag
       */
      const control = (tag) => {
        const c = el(tag, { id, name: f.name, "aria-describedby": describedby });
        if (f.required && f.widget !== "checkbox") c.setAttribute("aria-required", "true");
        controls.push(c);
        return c;
      };
      /** @type {HTMLElement} */
      let wrapper;
      /** The choices of a group or drop-down (the model gives every such field its options). */
      /** @typedef {NonNullable<FieldView["options"]>} Options */
      if (f.widget === "radio" || f.widget === "checkboxes") {
        const radio = f.widget === "radio";
        wrapper = el("fieldset", {
          part: "field",
          class: "field",
          "data-field": f.name,
          role: radio ? "radiogroup" : "group",
          "aria-describedby": describedby,
        });
        if (radio && f.required) wrapper.setAttribute("aria-required", "true");
        const legend = el("legend", {}, f.label);
        if (f.required && !radio) legend.append(el("span", { class: "sr-only" }, ` (${w["form.required"]})`));
        mark(legend);
        wrapper.append(legend);
        if (hint) wrapper.append(hint);
        for (const [value, text, checked] of /** @type {Options} */ (f.options)) {
          const choiceId = this.#id();
          const input = el("input", { type: radio ? "radio" : "checkbox", id: choiceId, name: f.name, value });
          input.checked = checked;
          const label = el("label", { class: "choice", for: choiceId });
          label.append(input, text);
          wrapper.append(label);
          controls.push(input);
        }
      } else {
        wrapper = el("div", { part: "field", class: "field", "data-field": f.name });
        if (f.widget === "checkbox") {
          const label = el("label", { class: "choice", for: id });
          const c = control("input");
          c.type = "checkbox";
          c.checked = /** @type {boolean} */ (f.checked);
          label.append(c, f.label);
          mark(label);
          wrapper.append(label);
          if (hint) wrapper.append(hint);
        } else {
          const label = el("label", { for: id }, f.label);
          mark(label);
          wrapper.append(label);
          if (hint) wrapper.append(hint);
          const c = control(f.widget === "select" ? "select" : "input");
          if (f.widget === "select") {
            if (f.choose != null) c.append(el("option", { value: "" }, f.choose));
            for (const [value, text, chosen] of /** @type {Options} */ (f.options))
              c.append(el("option", chosen ? { value, selected: "" } : { value }, text));
          } else {
            // An input's: the model gives it its `attrs`.
            /** @typedef {Record<string, string>} Attrs */
            for (const name in f.attrs) c.setAttribute(name, /** @type {Attrs} */ (f.attrs)[name]);
            if (f.value != null) {
              c.value = f.value;
              // A number input empties a value that reads as ±infinity (`1e400`); a text input keeps
              // the default as the server wrote it (the model checks whatever is sent).
              if (c.value !== f.value) {
                /** @type {HTMLInputElement} */ (c).type = "text";
                c.value = f.value;
              }
            }
          }
          wrapper.append(c);
        }
      }
      const error = el("p", { part: "field-error", class: "field-error", id: errorId });
      wrapper.append(error);
      q.fields.push({ name: f.name, widget: f.widget, controls, error });
      return wrapper;
    }

    /**
     * Draws the result when it changed: its parts (paragraphs, images and audio from `blob:` URLs made
     * here, downloads, resource links; a host's `renderContent` first), structured rows, the whole
     * JSON collapsed.
     * @param {CardResult | null} result
     * @param {Words} [w]
     */
    #drawResult(result, w) {
      const json = result ? result.json : null;
      if (json === this.#resultJson) return;
      this.#resultJson = json;
      for (const url of this.#urls.splice(0)) URL.revokeObjectURL(url);
      this.#app?.abort();
      const section = this.#p.result;
      section.textContent = "";
      show(section, !!result);
      if (!result || !w) return;
      setAttr(section, "data-error", result.error ? "" : null);
      // `app-sandbox`: the tool's MCP App over the plain result, its module loaded only now.
      const sandbox = this.getAttribute("app-sandbox");
      const snapshot = JSON.parse(this.#snapshotJson);
      if (sandbox && snapshot.ui?.resourceUri) {
        const box = el("div", { part: "app" });
        const app = new AbortController();
        this.#app = app;
        section.append(box);
        // Why an app is not shown, in words (`AppError`); an abort leaves the box, already gone.
        import("./app.js")
          .then((module) =>
            module.showApp({
              container: box,
              client: /** @type {TaskClient} */ (this.#client),
              snapshot,
              sandbox,
              signal: app.signal,
            }),
          )
          .catch((e) => {
            box.textContent = e.message;
          });
      }
      const render = this.#renderContent;
      const content = render && snapshot.result?.content;
      for (const [i, part] of result.parts.entries()) {
        const own = content?.[i] && render?.(content[i], i);
        if (own) {
          section.append(own);
          continue;
        }
        if (typeof part === "string") {
          section.append(el("p", {}, part));
          continue;
        }
        if (part.tag === "a") {
          const box = el("div", { part: "link", class: "result" });
          const open = address(box, part, w, part.label, "link");
          if (open) box.append(open);
          section.append(box);
          continue;
        }
        // The model checked the type, the size (from the base64 length) and the alphabet.
        const url = URL.createObjectURL(
          new Blob([Uint8Array.from(atob(part.data), (c) => c.charCodeAt(0))], { type: part.mime }),
        );
        this.#urls.push(url);
        const { tag, label } = part;
        section.append(
          tag === "file"
            ? el("a", { part: "download", href: url, download: /** @type {string} */ (part.name) }, label)
            : el(
                tag,
                tag === "img"
                  ? { part: "image", src: url, alt: label }
                  : { part: tag, src: url, controls: "", "aria-label": label },
              ),
        );
      }
      if (result.fields.length) {
        const list = el("dl");
        for (const [key, value] of result.fields) list.append(el("dt", {}, key), el("dd", {}, value));
        section.append(list);
      }
      const details = el("details");
      details.append(el("summary", {}, w["result.json"]), el("pre", {}, result.json));
      section.append(details);
    }

    /**
     * Reads the form and has the model check it: the `accept` answer as JSON text (numbers as typed),
     * or `null` with the problems shown next to their fields and focus on the first wrong one.
     * @param {FormQuestion} q
     * @param {Words} w
     */
    #accept(q, w) {
      if (!q.schema) return null;
      for (const f of q.fields) {
        setText(f.error, "");
        for (const c of f.controls) c.removeAttribute("aria-invalid");
      }
      const checked = elementAnswer(q.schema, entered(q), w);
      if (!checked?.errors) return checked?.answer ?? null;
      /** @type {Control | null} */
      let first = null;
      for (const f of q.fields) {
        if (!Object.hasOwn(checked.errors, f.name)) continue;
        setText(f.error, checked.errors[f.name]);
        for (const c of f.controls) c.setAttribute("aria-invalid", "true");
        first ??= f.controls[0];
      }
      setText(/** @type {HTMLElement} */ (q.status), w["form.fixErrors"]);
      first?.focus();
      return null;
    }

    /** @param {Event} event */
    #onEvent(event) {
      const target = /** @type {Element} */ (event.target);
      let action;
      if (event.type === "submit") {
        event.preventDefault();
        action = "accept";
      } else {
        action = target.closest?.("[data-action]")?.getAttribute("data-action");
        // Accept is a submit button: its submit event answers (Enter in a field does the same).
        if (!action || action === "accept") return;
      }
      if (action === "cancel-task") return this.#cancelTask();
      // The user saw the address, its site and the warnings, and chose to leave for it.
      if (action === "link") return void openTab(/** @type {string} */ (target.getAttribute("data-href")));
      const key = target.closest?.("form[data-key]")?.getAttribute("data-key");
      // Only a form has `form[data-key]`.
      const q = key == null ? null : /** @type {FormQuestion | undefined} */ (this.#questions.get(key));
      const w = this.#words.words;
      if (!q || !w) return;
      let answer;
      if (action === "accept") {
        answer = this.#accept(q, w);
        if (!answer) return;
      } else if (action === "open") {
        if (!q.href) return;
        // Nothing opened (a pop-up blocker): the question stays asked, so the user may allow pop-ups
        // and press Open again, or decline.
        if (!openTab(q.href)) return setBusy(q, w["url.blocked"], false);
        setBusy(q, w["url.opened"], false);
        answer = JSON.stringify({ action: "accept" });
      } else if (action === "decline" || action === "cancel") answer = JSON.stringify({ action });
      else return;
      this.#send(/** @type {string} */ (key), answer);
    }

    /**
     * Tells the host (`mcp-task-input`, cancelable) and, unless it took over, sends the answer, JSON
     * text, as that text: through a JS value a number such as `4.50` would go out as `4.5`.
     * @param {string} key
     * @param {string} answer
     */
    #send(key, answer) {
      const client = this.#client;
      const taskId = this.#taskId;
      if (!client || !taskId) return;
      const responses = `{${JSON.stringify(key)}:${answer}}`;
      // The host gets a copy as a JS value (the page-facing API): what it does to it changes nothing sent.
      const taken = !tell(this, "mcp-task-input", { taskId, responses: JSON.parse(responses) }, true);
      const busy = (/** @type {string} */ text, /** @type {boolean} */ on) => {
        const q = /** @type {FormQuestion | undefined} */ (this.#questions.get(key));
        if (q) setBusy(q, text, on);
      };
      // Drawn: the words are there.
      /** @typedef {Words} Drawn */
      if (taken) return busy(/** @type {Drawn} */ (this.#words.words)["form.handled"], false);
      busy(/** @type {Drawn} */ (this.#words.words)["form.sending"], true);
      elementRespond(client, taskId, responses).catch((/** @type {unknown} */ e) =>
        busy(fill(/** @type {Drawn} */ (this.#words.words)["form.sendFailed"], { error: errorText(e) }), false),
      );
    }

    #cancelTask() {
      const client = this.#client;
      const taskId = this.#taskId;
      if (!client || !taskId) return;
      const cancel = this.#p.cancel;
      setAttr(cancel, "disabled", "");
      client.cancel(taskId).catch((/** @type {unknown} */ e) => {
        this.#actionError = fill(/** @type {Words} */ (this.#words.words)["error.action"], { error: errorText(e) });
        setAttr(cancel, "disabled", null);
        this.#refresh();
      });
    }
  };
}

/**
 * `<mcp-task-list>`: every task of its clients (a chat host has one TaskClient per MCP server) as
 * compact cards in one list, tasks needing input first, then newest first (the model's order; rows of
 * several clients merge by the model's rank), each card naming its server when there are several;
 * calls of unknown outcome as rows with a Forget button. Items are keyed by client and id and
 * reordered by moving only the ones out of place, so a form being typed into keeps its focus when
 * other tasks change. The `notify` attribute turns system notifications on for its clients.
 */
/** @param {string} taskTag */
function makeListElement(taskTag) {
  return class McpTaskListElement extends HTMLElement {
    static observedAttributes = ["notify"];
    /** @type {TaskClient[]} */
    #clients = [];
    /** @type {unknown} */
    #labels = null;
    /** @type {WordsMemo} */
    #words = {};
    #list;
    #empty;
    /**
     * The items shown, by task or call id.
     * @type {Map<string, HTMLElement>}
     */
    #items = new Map();
    #connected = false;
    /** @type {(() => void) | null} */
    #unsubscribe = null;
    /** A redraw already set for the task events of this turn. */
    #redraw = 0;
    /** A render is running (page code it runs may ask for another: that one runs after it). */
    #rendering = false;
    #again = false;
    #refresh = () => this.#render();
    /**
     * Makes an item's card once the item comes within a screen of the viewport: a card off screen
     * costs an empty item (1,000 cards cost each one's shadow root, model and listeners).
     */
    #near = new IntersectionObserver(
      (entries) => {
        for (const { target, isIntersecting } of entries) if (isIntersecting) this.#card(target);
      },
      { rootMargin: "100%" },
    );

    constructor() {
      super();
      const root = this.attachShadow({ mode: "open" });
      adopt(root);
      this.#list = el("ol", { part: "list", class: "list" });
      this.#empty = el("p", { part: "empty", class: "empty" });
      root.append(this.#list, this.#empty);
      root.addEventListener("click", (event) => {
        const button = /** @type {Element} */ (event.target).closest?.("[data-action=forget]");
        const id = button?.getAttribute("data-id");
        const client = this.#clients[Number(button?.getAttribute("data-client"))];
        if (id == null || !client) return;
        /** @type {Element} */ (button).setAttribute("disabled", "");
        client.forget(id).catch(() => {});
      });
      upgradeProperties(this, ["client", "clients", "labels"]);
    }

    /** `notify` set: each client notifies; taken off: they stop. */
    attributeChangedCallback() {
      const on = this.hasAttribute("notify");
      for (const client of this.#clients) client.notify = on;
    }

    connectedCallback() {
      this.#connected = true;
      this.#resubscribe();
      live.add(this.#refresh);
      watchLang();
    }

    disconnectedCallback() {
      live.delete(this.#refresh);
      this.#connected = false;
      this.#unsubscribe?.();
      this.#unsubscribe = null;
    }

    /** The TaskClient whose tasks are listed (the first of `clients`). */
    get client() {
      return this.#clients[0] ?? null;
    }
    /** @param {TaskClient | null} client */
    set client(client) {
      this.clients = client == null ? [] : [client];
    }

    /** The TaskClients whose tasks are listed together, one per server (a copy). */
    get clients() {
      return [...this.#clients];
    }
    /** @param {Iterable<TaskClient> | null | undefined} clients */
    set clients(clients) {
      this.#clients = /** @type {TaskClient[]} */ (
        [...new Set([...(clients ?? [])].map(checkClient))].filter((c) => c)
      );
      const gone = [...this.#items.values()];
      this.#items.clear();
      this.#near.disconnect();
      if (this.hasAttribute("notify")) this.attributeChangedCallback();
      // After the state: a removed `<mcp-task>` runs its callbacks, and a host listener may call back.
      for (const item of gone) item.remove();
      this.#resubscribe();
    }

    /** Words for the list and its items. */
    get labels() {
      return this.#labels;
    }
    /** @param {unknown} labels */
    set labels(labels) {
      this.#labels = labels ?? null;
      this.#render();
    }

    #resubscribe() {
      this.#unsubscribe?.();
      this.#unsubscribe = null;
      const clients = this.#clients;
      if (this.#connected && clients.length) {
        const on = () => this.#redrawSoon();
        /** @type {Array<"task" | "forget" | "call">} */
        const types = ["task", "forget", "call"];
        for (const client of clients) for (const type of types) client.addEventListener(type, on);
        this.#unsubscribe = () => {
          for (const client of clients) for (const type of types) client.removeEventListener(type, on);
        };
      }
      this.#render();
    }

    /**
     * The rows of every client, each with `client` (its index) and `key` (unique across clients: task
     * ids are only unique per server), in one order: one client's as the model gives it, several
     * merged by the model's `rank` (larger first; a stable sort keeps each client's own order).
     * @param {Words} w
     * @returns {KeyedRow[]}
     */
    #rows(w) {
      const rows = this.#clients.flatMap((client, index) =>
        elementList(client, w).map((row) => Object.assign(row, { client: index, key: `${index} ${row.id}` })),
      );
      if (this.#clients.length > 1) rows.sort((a, b) => b.rank - a.rank);
      return rows;
    }

    /**
     * One redraw for the events that arrive together (about one frame later): a reload with 1,000
     * tasks sends 1,000 task events, and each redraw reads every snapshot.
     */
    #redrawSoon() {
      this.#redraw ||= setTimeout(() => {
        this.#redraw = 0;
        this.#render();
      }, 16);
    }

    /**
     * Redraws the list. Creating, moving or removing an `<mcp-task>` runs page code (its constructor,
     * property setters, `connectedCallback` and the composed events it dispatches), and a host listener
     * may set `labels` or a client on this list then: a render asked for meanwhile runs once this one
     * ends.
     */
    #render() {
      if (this.#rendering) {
        this.#again = true;
        return;
      }
      this.#rendering = true;
      try {
        do {
          this.#again = false;
          this.#renderOnce();
        } while (this.#again);
      } finally {
        this.#rendering = false;
      }
    }

    #renderOnce() {
      const memo = this.#words;
      wordsFor(this, this.#labels, memo);
      const w = /** @type {Words} */ (memo.words);
      const rows = this.#rows(w);
      const several = this.#clients.length > 1;
      const items = this.#items;
      this.#items = new Map();
      const wanted = new Set(rows.map((row) => row.key));
      for (const [key, item] of items) {
        if (!wanted.has(key)) {
          items.delete(key);
          this.#near.unobserve(item);
          item.remove();
        }
      }
      rows.forEach((row, position) => {
        let item = items.get(row.key);
        if (!item) {
          item = this.#item(row);
          items.set(row.key, item);
        }
        const card = item.firstElementChild;
        if (card?.localName === taskTag) setAttr(card, "show-server", several ? "" : null);
        if (row.title != null) {
          const [title, status, message, forget] = item.children;
          setText(title, row.title);
          setText(status, row.status);
          setText(message, row.message);
          setText(forget, w["action.forget"]);
        }
        const here = this.#list.children[position] ?? null;
        if (here !== item) this.#list.insertBefore(item, here);
      });
      // Items a host listener's client setter took meanwhile were removed by it; ours go back.
      for (const [key, item] of this.#items) items.set(key, item);
      this.#items = items;
      setText(this.#empty, w["list.empty"]);
      show(this.#empty, !wanted.size);
      setAttr(this.#list, "aria-label", w["list.label"]);
    }

    /**
     * A compact card for a task; for a call of unknown outcome (a row with a `title`), its row.
     * @param {KeyedRow} row
     */
    #item(row) {
      const item = el("li", { part: "item", "data-id": row.id, "data-client": String(row.client) });
      if (row.title != null) {
        item.className = "unknown";
        for (const name of ["title", "status", "message"]) item.append(el("p", { class: name }));
        item.append(
          el("button", {
            type: "button",
            "data-action": "forget",
            "data-id": row.id,
            "data-client": String(row.client),
          }),
        );
        return item;
      }
      this.#near.observe(item);
      return item;
    }

    /**
     * Makes the card of `item`, which came near the viewport.
     * @param {Element} item
     */
    #card(item) {
      this.#near.unobserve(item);
      if (item.firstChild) return;
      const card = /** @type {McpTaskElement} */ (
        el(taskTag, { compact: "", "task-id": /** @type {string} */ (item.getAttribute("data-id")) })
      );
      card.client = this.#clients[Number(item.getAttribute("data-client"))];
      if (this.#labels != null) card.labels = /** @type {McpTaskElement["labels"]} */ (this.#labels);
      setAttr(card, "show-server", this.#clients.length > 1 ? "" : null);
      item.append(card);
    }
  };
}

/**
 * Registers `<mcp-task>` and `<mcp-task-list>` (or the tag names given). Call after this module's `init()`.
 * Registering a tag that is already defined is skipped, so calling twice is harmless.
 * @param {{ tagName?: string, listTagName?: string, labels?: Record<string, Record<string, string>> }} [options]
 */
export function defineMcpTask(options = {}) {
  const tagName = options.tagName ?? "mcp-task";
  const listTagName = options.listTagName ?? `${tagName}-list`;
  try {
    elementWords("en", null);
  } catch (cause) {
    throw new TypeError("defineMcpTask: init() has not loaded the card model", { cause });
  }
  shared = options.labels ?? null;
  if (!customElements.get(tagName)) customElements.define(tagName, makeTaskElement());
  if (!customElements.get(listTagName)) customElements.define(listTagName, makeListElement(tagName));
}
