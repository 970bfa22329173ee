// The Chromium cells of the interop matrix: TaskClient in headless Chromium (playwright-core, the system
// /usr/bin/chromium) on a host page (pages/) served from a loopback static server of its own, talking
// cross-origin to each peer in servers.mjs — reload mid-task, offline and back, two tabs. What the
// pages send is seen through Playwright's request events (per tab), so nothing needs the server's help.
//
//   node --test tests/interop/matrix/chromium.test.mjs      (MATRIX_SERVERS=fastmcp4 to pick peers)
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { CELLS, cellSelected, pkgDir, selectedServers } from "./servers.mjs";
import { cells, sleep, startChromium } from "./support.mjs";

/** The package directories the selected servers' cells load, served at /pkg-<n>/ (see pkgPath). */
const PKG_DIRS = [...new Set(selectedServers().map(pkgDir))];
const pkgPath = (server) => `/pkg-${PKG_DIRS.indexOf(pkgDir(server))}/`;
const MIN_POLL = 100; // the host page's minPollIntervalMs


const wanted = selectedServers().length > 0 && CELLS.some(([name, runtime]) => runtime === "chromium" && cellSelected(name));
const { browser, statics } = wanted ? await startChromium(PKG_DIRS) : {};

/** The JSON-RPC message a request posts (`{}` if none). */
function rpcOf(request) {
  try {
    return JSON.parse(request.postData() ?? "{}");
  } catch {
    return {};
  }
}

/**
 * A fresh browser context (own IndexedDB) with `tabs` recorded: every POST to the peer as
 * `{ tab, at, method, taskId, listens, failure?, status? }`, and uncaught page errors.
 */
async function rig(server, peer) {
  const context = await browser.newContext();
  const requests = [];
  const errors = [];
  const watch = (page, tab) => {
    page.on("pageerror", (error) => errors.push(`${tab}: ${error?.stack ?? error}`));
    page.on("console", (m) => { if (process.env.MATRIX_VERBOSE) console.error(`  [${tab} ${m.type()}] ${m.text()}`); });
    page.on("request", (request) => {
      if (request.url() !== peer.url || request.method() !== "POST") return;
      const rpc = rpcOf(request);
      const entry = { tab, at: Date.now(), method: rpc.method, taskId: rpc.params?.taskId, listens: rpc.method === "subscriptions/listen" ? (rpc.params?.notifications?.taskIds ?? []) : [] };
      requests.push(entry);
      request.__matrix = entry;
    });
    page.on("requestfailed", (request) => { if (request.__matrix) Object.assign(request.__matrix, { failure: request.failure()?.errorText, failedAt: Date.now() }); });
    page.on("response", (response) => { if (response.request().__matrix) response.request().__matrix.status = response.status(); });
  };
  return {
    context,
    requests,
    errors,
    async open(tab, ns, query = "") {
      const page = await context.newPage();
      watch(page, tab);
      await page.goto(`${statics.origin}/index.html?mcp=${encodeURIComponent(peer.url)}&ns=${encodeURIComponent(ns)}&minPoll=${MIN_POLL}&pkg=${encodeURIComponent(pkgPath(server))}${query}`);
      await hostReady(page);
      return page;
    },
    describe() {
      const t0 = requests[0]?.at ?? 0;
      return requests.map((r) => `+${r.at - t0} ${r.tab} ${r.method} ${r.taskId ?? r.listens.join(",")} → ${r.failure ?? r.status ?? "…"}`).join("\n");
    },
    close: () => context.close().catch(() => {}),
  };
}

async function hostReady(page) {
  await page.waitForFunction(() => window.host && (window.host.ready || window.host.error), null, { timeout: 15_000 });
  const error = await page.evaluate(() => window.host.error);
  assert.equal(error, null, "the host page opened its TaskClient");
}

const snapshotOf = (page, id) => page.evaluate((taskId) => window.host.tasks().find((t) => t.taskId === taskId) ?? null, id);

function waitDone(page, id, ms) {
  return page.evaluate(
    ([taskId, timeout]) => Promise.race([window.host.wait(taskId), new Promise((_, reject) => setTimeout(() => reject(new Error(`task ${taskId} did not settle within ${timeout} ms: ${JSON.stringify(window.host.tasks())}`)), timeout))]),
    [id, ms],
  );
}

/** The first recorded task event for `id` whose snapshot has `field === value`, or a timeout. */
async function waitSnapshot(page, id, field, value, ms) {
  const handle = await page.waitForFunction(
    ([taskId, f, v]) => window.host.events.find((e) => e.kind === "task" && e.detail.taskId === taskId && e.detail[f] === v) ?? false,
    [id, field, value],
    { timeout: ms, polling: 50 },
  );
  return handle.jsonValue();
}

/** Whether a request talks to the server about `id` (a poll of it, or a listen stream covering it). */
const covers = (r, id) => (r.method === "tasks/get" && r.taskId === id) || (r.method === "subscriptions/listen" && r.listens.includes(id));

/** Runs `body(rig)` in a fresh context, adding the request log to a failure, always closing the context. */
async function inContext(server, peer, body) {
  const r = await rig(server, peer);
  try {
    await body(r);
    assert.deepEqual(r.errors, [], `no uncaught page errors:\n${r.errors.join("\n")}`);
  } catch (error) {
    error.message += `\n--- requests the pages sent to ${peer.url} ---\n${r.describe()}`;
    throw error;
  } finally {
    await r.close();
  }
}

cells("reload mid-task", (server, peer) => inContext(server, peer, async (r) => {
  const page = await r.open("A", "reload");
  const out = await page.evaluate(() => window.host.start("build", { seconds: 6, target: "reload" }));
  assert.equal(out.kind, "task");
  const id = out.task.taskId;
  await sleep(1500);
  assert.equal((await snapshotOf(page, id))?.status, "working", "still working when the page reloads");
  const reloadAt = Date.now();
  await page.reload();
  await hostReady(page);
  const restored = await snapshotOf(page, id);
  assert.ok(restored, `the task is back after the reload (IndexedDB): ${JSON.stringify(await page.evaluate(() => window.host.tasks()))}`);
  assert.equal(restored.restored, true, "marked restored");
  assert.equal(restored.status, "working", "restored mid-task");
  const done = await waitDone(page, id, 20_000);
  assert.equal(done.taskId, id);
  assert.equal(done.status, "completed", `completed: ${JSON.stringify(done)}`);
  assert.equal(done.restored, true);
  assert.equal(done.result?.structuredContent?.ok, true);
  assert.equal(done.result.structuredContent.target, "reload");
  assert.equal(r.requests.filter((x) => x.method === "tools/call" && x.status === 200).length, 1, "build was called once (the reload did not call it again)");
  assert.ok(r.requests.some((x) => x.at >= reloadAt && covers(x, id)), "the reloaded page polled or listened to the same task");
}), { timeout: 40_000 });

cells("offline and back", (server, peer) => inContext(server, peer, async (r) => {
  const page = await r.open("A", "offline");
  const out = await page.evaluate(() => window.host.start("build", { seconds: 6, target: "offline" }));
  const id = out.task.taskId;
  await sleep(1200);
  assert.ok(r.requests.some((x) => covers(x, id)), "the task was polled or listened to before going offline");

  const offAt = Date.now();
  await r.context.setOffline(true);
  const offline = await waitSnapshot(page, id, "connectivity", "offline", 3000).catch(() => null);
  const whileOff = await snapshotOf(page, id);
  await sleep(Math.max(0, 2500 - (Date.now() - offAt)));
  const onAt = Date.now();
  await r.context.setOffline(false);

  assert.ok(offline, `a snapshot showed connectivity "offline" while offline (snapshot then: ${JSON.stringify(whileOff)})`);
  assert.equal(offline.online, false, "navigator.onLine was false when it did");
  const attempts = r.requests.filter((x) => covers(x, id) && x.at > offAt + 100 && x.at < onAt);
  assert.ok(attempts.length <= 1, `the page did not keep trying while offline (${attempts.length} attempts)`);

  const done = await waitDone(page, id, 20_000);
  assert.equal(done.status, "completed", `completed after going back online: ${JSON.stringify(done)}`);
  assert.equal(done.result?.structuredContent?.target, "offline");
  assert.notEqual(done.connectivity, "offline", "online again");
  const back = r.requests.find((x) => x.at >= onAt && covers(x, id));
  // A listen stream opened before going offline may stay open through Chromium's offline emulation
  // (it only fails new requests) and carry the task to its end: then nothing new is needed.
  const survived = r.requests.find((x) => x.method === "subscriptions/listen" && x.listens.includes(id) && x.at < offAt && (!x.failure || x.failedAt >= onAt));
  assert.ok(back || survived, "talked to the server about the task again after going online (or its listen stream survived)");
  if (back) assert.ok(back.at - onAt <= 2000, `first request about the task ${back.at - onAt} ms after going online (≤ 2000)`);
  console.error(`  ${server.name} offline: ${back ? `first request ${back.at - onAt} ms after online` : "the listen stream opened before going offline carried the task"}; ${attempts.length} attempt(s) while offline`);
}), { timeout: 40_000 });

cells("two tabs", (server, peer) => inContext(server, peer, async (r) => {
  const a = await r.open("A", "shared");
  const b = await r.open("B", "shared");
  const out = await a.evaluate(() => window.host.start("build", { seconds: 4, target: "tabs" }));
  assert.equal(out.kind, "task");
  const id = out.task.taskId;
  const seen = await waitSnapshot(b, id, "taskId", id, 5000);
  assert.equal(seen.detail.toolName, "build", "tab B learned of the task started in tab A");

  const [doneA, doneB] = await Promise.all([waitDone(a, id, 20_000), waitDone(b, id, 20_000)]);
  assert.equal(doneA.status, "completed");
  assert.equal(doneB.status, "completed", "tab B sees completion too");
  assert.equal(doneB.result?.structuredContent?.target, "tabs", "tab B has the result");
  await sleep(200);

  const talkers = [...new Set(r.requests.filter((x) => covers(x, id)).map((x) => x.tab))];
  const gets = r.requests.filter((x) => x.method === "tasks/get" && x.taskId === id);
  const starts = gets.map((x) => x.at).sort((p, q) => p - q);
  const span = starts.length > 1 ? starts.at(-1) - starts[0] : 0;
  const perSecond = span ? ((starts.length - 1) * 1000) / span : 0;
  const interval = Math.max(doneA.pollIntervalMs ?? MIN_POLL, MIN_POLL);
  const summary = `tabs that talked: ${talkers.join(", ")}; tasks/get ${gets.length} (A ${gets.filter((x) => x.tab === "A").length}, B ${gets.filter((x) => x.tab === "B").length}) over ${span} ms = ${perSecond.toFixed(2)}/s at pollIntervalMs ${interval}`;
  console.error(`  ${server.name} two tabs: ${summary}`);
  assert.equal(talkers.length, 1, `exactly one tab polled or listened for the task: ${summary}`);
  // One poller at `interval` makes 1000/interval polls a second; two independent pollers twice that.
  if (gets.length > 2) assert.ok(perSecond <= 1.5 * (1000 / interval), `tasks/get came at one poller's rate: ${summary}`);
  if (!server.quirks.listen) assert.ok(gets.length >= 3, `a server without listen is polled while the task runs: ${summary}`);
  assert.equal(r.requests.filter((x) => x.method === "tools/call" && x.status === 200).length, 1, "build was called once");
}), { timeout: 40_000 });

cells("element approval", (server, peer) => inContext(server, peer, async (r) => {
  // A person answers the approval through the <mcp-task> card: its form is built from the server's
  // requestedSchema (whatever the generation: 2026-07-28 inputRequests or a 2025-11-25
  // elicitation/create on the tasks/result stream), Accept sends it, and the card shows the end.
  const page = await r.open("A", "element");
  const out = await page.evaluate(() => window.host.start("deploy", { service: "api", environment: "staging" }));
  assert.equal(out.kind, "task");
  const id = out.task.taskId;
  await page.evaluate((taskId) => window.host.mount(taskId), id);
  const card = page.locator(`#cards mcp-task[data-task="${id}"]`);
  const form = card.locator("form[data-key]");
  await form.first().waitFor({ timeout: 15_000 });
  assert.equal(await form.count(), 1, "one form for the one approval");
  await card.locator('[part~="field"][data-field="confirm"] input').check();
  const reason = card.locator('[part~="field"][data-field="reason"] input, [part~="field"][data-field="reason"] textarea');
  if (await reason.count()) await reason.first().fill("interop");
  await card.locator('button[data-action="accept"]').click();
  const done = await waitDone(page, id, 20_000);
  assert.equal(done.status, "completed", `completed after the card's answer: ${JSON.stringify(done)}`);
  assert.equal(done.result?.structuredContent?.reason, "interop", `the tool got what was typed: ${JSON.stringify(done.result)}`);
  await card.locator('[part~="card"][data-status="completed"]').waitFor({ state: "attached", timeout: 5_000 });
  assert.equal(done.protocol, server.protocol, "the snapshot names the task's protocol");
}), { timeout: 40_000 });

cells("element progress", (server, peer) => inContext(server, peer, async (r) => {
  // The card's bar: determinate (aria-valuenow of aria-valuemax) where the server reports progress
  // with a total, as the 2025-11-25 build does (i of 3, for the call's progressToken, on the
  // session's GET stream); indeterminate (no aria-valuenow) for a 2026-07-28 task, which has none.
  const page = await r.open("A", "element");
  const out = await page.evaluate(() => window.host.start("build", { seconds: 4, target: "bar" }));
  assert.equal(out.kind, "task");
  const id = out.task.taskId;
  await page.evaluate((taskId) => window.host.mount(taskId), id);
  const bar = page.locator(`#cards mcp-task[data-task="${id}"] [part~="progress"]`);
  await bar.waitFor({ state: "visible", timeout: 10_000 });
  if (server.protocol === "2025-11-25") {
    const determinate = page.locator(`#cards mcp-task[data-task="${id}"] [part~="progress"][aria-valuemax="3"][aria-valuenow]`);
    await determinate.waitFor({ state: "attached", timeout: 10_000 });
    const now = Number(await determinate.getAttribute("aria-valuenow"));
    assert.ok(now >= 1 && now <= 3, `aria-valuenow within 1..3: ${now}`);
    assert.equal(await determinate.getAttribute("aria-valuemin"), "0");
  } else {
    assert.equal(await bar.getAttribute("aria-valuenow"), null, "no fraction known: an indeterminate bar");
  }
  const done = await waitDone(page, id, 20_000);
  assert.equal(done.status, "completed");
  await page.locator(`#cards mcp-task[data-task="${id}"] [part~="progress"]`).waitFor({ state: "hidden", timeout: 5_000 });
}), { timeout: 40_000 });

/**
 * The package files `page` fetches until `body()` resolves, as `{ file, gzip }` (gzip -9 of each body,
 * as a server would send it).
 */
async function fetchedBy(context, body) {
  const bodies = [];
  const pkgFile = (url) => new URL(url).pathname.match(/^\/pkg-\d+\/(.+)$/)?.[1];
  const onResponse = (response) => {
    const file = pkgFile(response.url());
    if (file) bodies.push(response.body().then((b) => ({ file, gzip: gzipSync(b, { level: 9 }).length })));
  };
  context.on("response", onResponse);
  try {
    await body();
    return await Promise.all(bodies);
  } finally {
    context.off("response", onResponse);
  }
}

/** The door files (`.wasm` and their glue) of `fetched`, sorted, and the gzip bytes of every file. */
const doorsAndBytes = (fetched) => ({
  doors: fetched.map((f) => f.file).filter((f) => f.endsWith(".wasm")).sort(),
  gzip: fetched.reduce((n, f) => n + f.gzip, 0),
});

cells("one download per load", (server, peer) => inContext(server, peer, async (r) => {
  // A page of the client alone: first contact, then two later loads in the same browser profile.
  const older = server.protocol === "2025-11-25";
  const load = async (ns) => {
    let page;
    const fetched = await fetchedBy(r.context, async () => {
      page = await r.open("A", ns, "&entry=client");
      const out = await page.evaluate(() => window.host.start("build", { seconds: 1, target: "bytes" }));
      const id = out.kind === "task" ? out.task.taskId : null;
      if (id) assert.equal((await waitDone(page, id, 20_000)).status, "completed");
    });
    await page.close();
    return doorsAndBytes(fetched);
  };
  const first = await load("bytes-1");
  const later = [await load("bytes-2"), await load("bytes-3")];
  console.error(`  ${server.name}: first contact ${first.doors.join(" + ")} ${first.gzip} B gzip; later loads ${later.map((l) => `${l.doors.join(" + ")} ${l.gzip} B`).join(", ")}`);
  const full = ["client_full_bg.wasm"];
  assert.deepEqual(first.doors, older ? ["client_bg.wasm", ...full] : ["client_bg.wasm"], "first contact");
  for (const l of later) {
    assert.deepEqual(l.doors, older ? full : ["client_bg.wasm"], "a later load fetches one door");
    assert.ok(l.gzip <= (older ? 125_000 : 96_000), `a later load fetches ${l.gzip} B gzip`);
  }
  // The card host's page in the same profile: its own full door alone, and the card draws from it.
  let drawn;
  const cards = doorsAndBytes(await fetchedBy(r.context, async () => {
    const page = await r.open("A", "bytes-3");
    const [task] = await page.evaluate(() => window.host.tasks());
    await page.evaluate((taskId) => window.host.mount(taskId), task.taskId);
    const card = page.locator(`#cards mcp-task[data-task="${task.taskId}"] [part~="card"][data-status="completed"]`);
    await card.waitFor({ state: "attached", timeout: 10_000 });
    drawn = await card.isVisible();
    await page.close();
  }));
  assert.ok(drawn, "the card of the stored task is drawn");
  assert.deepEqual(cards.doors, [older ? "mcp_tasks_web_full_bg.wasm" : "mcp_tasks_web_bg.wasm"], "the card host fetches one door");
}), { timeout: 60_000 });
