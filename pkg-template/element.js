// <mcp-task> and <mcp-task-list>: thin custom-element classes around the Rust views in the wasm module.
// wasm-bindgen cannot subclass HTMLElement, so these classes own the lifecycle callbacks and the shadow
// root and hand everything else to McpTaskView / McpTaskListView. Importing this module registers
// nothing: call defineMcpTask() after init().
import { McpTaskListView, McpTaskView } from "./mcp_tasks_web.js";

/** Connected views, redrawn when a `lang` attribute changes anywhere in the document. */
const live = new Set();
let langObserver = null;

function watchLang() {
  if (langObserver || typeof MutationObserver === "undefined") return;
  langObserver = new MutationObserver(() => live.forEach((view) => view.refresh()));
  langObserver.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"], subtree: true });
}

/** An element entered a document: its view listens, draws, and follows `lang` changes. */
function connect(view) {
  view.connected();
  live.add(view);
  watchLang();
}

/** An element left its document: its view stops listening and ticking. */
function disconnect(view) {
  live.delete(view);
  view.disconnected();
}

/** Properties set on an element before its tag was defined shadow the class's setters; replay them. */
function upgradeProperties(element, names) {
  for (const name of names) {
    if (Object.prototype.hasOwnProperty.call(element, name)) {
      const value = element[name];
      delete element[name];
      element[name] = value;
    }
  }
}

function makeTaskElement() {
  return class McpTaskElement extends HTMLElement {
    static observedAttributes = ["task-id", "compact"];
    #view;
    #client = null;
    #labels = null;
    #internals = null;

    constructor() {
      super();
      const root = this.attachShadow({ mode: "open", delegatesFocus: false });
      this.#view = new McpTaskView(this, root);
      try {
        this.#internals = this.attachInternals();
      } catch {
        this.#internals = null; // ElementInternals is optional: only the :state() styling hooks need it.
      }
      this.addEventListener("mcp-task-change", (event) => this.#setState(event.detail?.status));
      upgradeProperties(this, ["client", "taskId", "labels"]);
    }

    #setState(status) {
      const states = this.#internals?.states;
      if (!states || typeof status !== "string") return;
      try {
        for (const s of [...states]) states.delete(s);
        states.add(status.replace(/_/g, "-"));
      } catch {
        // Older engines accept only `--dashed` custom states; styling by state is then unavailable.
      }
    }

    connectedCallback() {
      connect(this.#view);
    }

    disconnectedCallback() {
      disconnect(this.#view);
    }

    attributeChangedCallback(name, _old, value) {
      if (name === "task-id" && value !== this.#view.taskId) this.#view.taskId = value ?? undefined;
      if (name === "compact") this.#view.refresh();
    }

    /** The TaskClient whose task is shown. */
    get client() {
      return this.#client;
    }
    set client(client) {
      this.#client = client ?? null;
      if (this.#client) this.#view.setClient(this.#client);
      else this.#view.clearClient();
    }

    /** The id of the task shown (mirrors the `task-id` attribute). */
    get taskId() {
      return this.#view.taskId ?? null;
    }
    set taskId(id) {
      const value = id == null || id === "" ? null : String(id);
      if (value === null) this.removeAttribute("task-id");
      else this.setAttribute("task-id", value);
      this.#view.taskId = value ?? undefined;
    }

    /** The latest TaskSnapshot shown, or null. */
    get snapshot() {
      return this.#view.snapshot;
    }

    /** Words for this element only: `{ key: word }` or `{ [lang]: { key: word } }`. */
    get labels() {
      return this.#labels;
    }
    set labels(labels) {
      this.#labels = labels ?? null;
      this.#view.setLabels(this.#labels);
    }
  };
}

function makeListElement(taskTag) {
  return class McpTaskListElement extends HTMLElement {
    #view;
    #client = null;
    #labels = null;

    constructor() {
      super();
      this.#view = new McpTaskListView(this, this.attachShadow({ mode: "open" }), taskTag);
      upgradeProperties(this, ["client", "labels"]);
    }

    connectedCallback() {
      connect(this.#view);
    }

    disconnectedCallback() {
      disconnect(this.#view);
    }

    /** The TaskClient whose tasks are listed. */
    get client() {
      return this.#client;
    }
    set client(client) {
      this.#client = client ?? null;
      if (this.#client) this.#view.setClient(this.#client, this.#client);
      else this.#view.clearClient();
    }

    /** Words for the list and its items. */
    get labels() {
      return this.#labels;
    }
    set labels(labels) {
      this.#labels = labels ?? null;
      this.#view.setLabels(this.#labels);
    }
  };
}

/**
 * Registers `<mcp-task>` and `<mcp-task-list>` (or the tag names given). Call after `init()`.
 * Registering a tag that is already defined is skipped, so calling twice is harmless.
 * @param {{ tagName?: string, listTagName?: string, labels?: Record<string, Record<string, string>> }} [options]
 */
export function defineMcpTask(options = {}) {
  const tagName = options.tagName ?? "mcp-task";
  const listTagName = options.listTagName ?? `${tagName}-list`;
  try {
    McpTaskView.setSharedLabels(options.labels ?? null);
  } catch (cause) {
    throw new TypeError("defineMcpTask: the wasm module is not initialised; await init() first", { cause });
  }
  if (!customElements.get(tagName)) customElements.define(tagName, makeTaskElement());
  if (!customElements.get(listTagName)) customElements.define(listTagName, makeListElement(tagName));
}
