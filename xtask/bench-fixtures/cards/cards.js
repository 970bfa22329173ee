// The cards figure's page (served with /pkg/ by the reference server, beside the resume figure's pages,
// whose ours.html seeds the store):
//
//   cards.html?ns=NS&n=N&list=1   loads the package, opens a TaskClient on the N stored tasks and puts a
//                                 <mcp-task-list> of it in the page; times from navigation start (every
//                                 time is performance.now(), whose origin is the navigation's start):
//                                 `drawnMs`, the frame in which every card in the viewport shows its
//                                 stored state, and `freshMs`, the first frame after each of those cards'
//                                 tasks had its first tasks/get answered (the server's fresh answer).
//   cards.html?ns=NS&n=N&list=0   the same page without the list: `paintMs`, its first contentful paint.
//
// server/discover and subscriptions/listen are answered -32601 in the page (probe.js), so it polls.
// The result goes to `window.bench` (`{ done, error?, ... }`), which the runner reads.
import { probe, until } from "./probe.js";

const params = new URLSearchParams(location.search);
const namespace = params.get("ns") || "bench";
const n = Number(params.get("n") || 0);
const withList = params.get("list") === "1";
const waitMs = Number(params.get("wait") || 15000);
const status = (text) => (document.getElementById("status").textContent = text);
const options = { url: `${location.origin}/mcp`, namespace, store: "indexeddb" };

window.bench = { done: false };
probe.noListen = true;
probe.mark();

/** The page's first contentful paint, ms from navigation start. */
const firstPaint = () =>
  new Promise((resolve) => {
    new PerformanceObserver((list, observer) => {
      const entry = list.getEntriesByName("first-contentful-paint")[0];
      if (entry) {
        observer.disconnect();
        resolve(entry.startTime);
      }
    }).observe({ type: "paint", buffered: true });
  });

/** The time of the first animation frame in which `test()` holds (null after `ms`). */
const frameWhen = (test, ms) =>
  new Promise((resolve) => {
    const deadline = performance.now() + ms;
    const frame = (at) => (test() ? resolve(at) : at > deadline ? resolve(null) : requestAnimationFrame(frame));
    requestAnimationFrame(frame);
  });

/** The list's items in the viewport, each with its card if it has one. */
function visible(list) {
  const out = [];
  for (const item of list.shadowRoot?.querySelectorAll("li") ?? []) {
    const box = item.getBoundingClientRect();
    if (box.bottom > 0 && box.top < innerHeight) out.push({ id: item.getAttribute("data-id"), card: item.firstElementChild });
  }
  return out;
}

/** A card shows a task's state: its status line has text. */
const drawn = (card) => Boolean(card?.shadowRoot?.querySelector("[part~=status]")?.textContent);

async function measure() {
  const pkg = await import("/pkg/mcp_tasks_web.js");
  await pkg.default();
  pkg.defineMcpTask();
  const client = await pkg.TaskClient.open(options);
  if (!withList) {
    const paintMs = await firstPaint();
    client.close();
    return { done: true, paintMs };
  }
  const list = document.createElement("mcp-task-list");
  list.client = client;
  document.body.append(list);
  const ready = (items) => items.length > 0 && items.length >= Math.min(n, 1) && items.every((i) => drawn(i.card));
  const drawnMs = await frameWhen(() => ready(visible(list)), waitMs);
  const shown = visible(list);
  const freshMs = await frameWhen(() => shown.every((i) => probe.answeredAt.has(i.id)), waitMs);
  // Every stored task is in the list by the end (the later pages come after open() resolved).
  await until(() => list.shadowRoot.querySelectorAll("li").length >= n, waitMs);
  const listed = list.shadowRoot.querySelectorAll("li").length;
  const built = list.shadowRoot.querySelectorAll("li > *").length;
  client.close();
  return { done: true, drawnMs, freshMs, visible: shown.length, listed, built, paintMs: await firstPaint() };
}

try {
  window.bench = await measure();
  status("done");
} catch (error) {
  window.bench = { done: true, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
  status(window.bench.error);
}
