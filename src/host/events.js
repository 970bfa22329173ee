// The client's events and system notifications, the JS half of src/host/events.rs and
// src/runtime/client/notify.rs: constructors, listeners and bound calls are a few bytes here and a
// reflective call each in the .wasm.

/**
 * The client's events: `target`, a fresh EventTarget the host listens on through `listen` (null where
 * the runtime has none: events are skipped, not fatal), and `emit(kind, detail)`, which queues a
 * CustomEvent. The queue goes out in order on the next macrotask, so listeners added right after
 * `await TaskClient.open()` still hear what `open()` found.
 */
export class EventQueue {
  constructor() {
    this.target = typeof EventTarget === "function" ? new EventTarget() : null;
    this.queue = [];
  }

  emit(kind, detail) {
    this.queue.push([kind, detail]);
    if (this.queue.length > 1) return;
    setTimeout(() => {
      const pending = this.queue;
      this.queue = [];
      for (const [kind, detail] of pending) dispatch(this.target, kind, detail);
    }, 0);
  }

  listen(add, kind, listener, options) {
    this.target?.[add ? "addEventListener" : "removeEventListener"](kind, listener, options);
  }
}

function dispatch(target, kind, detail) {
  if (target !== null && typeof CustomEvent === "function") target.dispatchEvent(new CustomEvent(kind, { detail }));
}

/**
 * The page's language (the root element's `lang`, else the browser's), or undefined when the person
 * has not allowed this origin's notifications (or there is no Notification API): no notice is shown.
 */
export function noticeLanguage() {
  if (typeof Notification !== "function" || Notification.permission !== "granted") return undefined;
  return globalThis.document?.documentElement?.lang || globalThis.navigator?.language || "";
}

/**
 * Shows a notification titled `title` (the caller checked `noticeLanguage()`) (one per `tag`: a later one replaces it). A click brings the tab
 * forward, closes it and dispatches `notificationclick` with `{ taskId }` on `events`' target.
 */
export function showNotice(title, body, lang, tag, events, taskId) {
  let shown;
  try {
    shown = new Notification(title, { body, lang, tag });
  } catch {
    return;
  }
  shown.addEventListener("click", () => {
    globalThis.focus?.();
    shown.close();
    dispatch(events.target, "notificationclick", { taskId });
  });
}
