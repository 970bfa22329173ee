// What a page did, recorded in the page itself, for the engine tests (tests/engines/) that drive Firefox
// and WebKit over plain WebDriver: WebDriver classic has no request events and (in those drivers) no
// console log, which Playwright gives the Chromium tests. A classic script, so it runs before the
// module scripts of the page and sees everything they do. Loaded from a file: the strict CSP allows no
// inline script.
//
//   window.__pageErrors   uncaught errors and unhandled rejections (always), and console.error calls
//                         (with ?observe=1), as text
//   window.__mcpRequests  with ?observe=1: every POST to /mcp the page sent, as
//                         { at, method, taskId, tool, listens } (`listens`: the task ids a
//                         subscriptions/listen covers), in the order they were sent
//
// Observing only: the requests go out unchanged (the client looks `fetch` up on the global object at
// each call, so it calls this wrapper, which calls the browser's own fetch with the same arguments).
(() => {
  const errors = [];
  window.__pageErrors = errors;
  const text = (value) => (value instanceof Error ? `${value.name}: ${value.message}` : String(value));
  window.addEventListener("error", (event) => errors.push(`error: ${text(event.error ?? event.message)}`));
  window.addEventListener("unhandledrejection", (event) => errors.push(`unhandledrejection: ${text(event.reason)}`));
  if (!new URLSearchParams(location.search).has("observe")) return;

  const consoleError = console.error.bind(console);
  console.error = (...args) => {
    errors.push(`console.error: ${args.map(text).join(" ")}`);
    consoleError(...args);
  };

  const requests = [];
  window.__mcpRequests = requests;
  const realFetch = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = request ? request.url : String(input);
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    if (method === "POST" && new URL(url, location.href).pathname === "/mcp") {
      const entry = { at: Date.now(), method: null, taskId: null, tool: null, listens: [] };
      requests.push(entry);
      const body = init?.body !== undefined ? Promise.resolve(String(init.body)) : request ? request.clone().text() : Promise.resolve("");
      body.then((raw) => {
        const rpc = JSON.parse(raw);
        entry.method = rpc.method ?? null;
        entry.taskId = rpc.params?.taskId ?? null;
        entry.tool = rpc.params?.name ?? null;
        entry.listens = rpc.method === "subscriptions/listen" ? (rpc.params?.notifications?.taskIds ?? []) : [];
      }).catch(() => { /* not JSON: recorded without a method */ });
    }
    return realFetch(input, init);
  };
})();
