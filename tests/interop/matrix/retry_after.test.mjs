// The matrix's Retry-After cells: TaskClient behind a gateway (tests/interop/gateway.mjs) that answers
// every third `tasks/get` with `503` + `Retry-After: 1` (a plain-text body and a JSON-RPC error body in
// turn) in front of a server that sends no task notifications, so every task is polled. In each
// runtime — Node (the client polls by itself), step mode (a fresh client per `step()`), a Chromium page
// and a dedicated worker — two tasks run at once, and the gateway's own log (its clock, its side of
// the wire) must show that after each 503 nothing reached the server for a full second, and both
// tasks completed. A cell has two tabs: the one that does not poll must keep to the pause too. The
// "call" cells refuse a `tools/call` instead (a request of no task yet): the pause it starts holds in
// the next clients of step mode, and in the other tab, which polls.
//
//   node --test tests/interop/matrix/retry_after.test.mjs      (MATRIX_VERBOSE=1 for the gateway log)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { CELLS, ROOT, cellSelected, pkgDir, runsOn, selectedServers } from "./servers.mjs";
import { cells, sleep, startChromium, within } from "./support.mjs";

const GATEWAY = join(ROOT, "tests/interop/gateway.mjs");
/** The least gap the log must show after a refusal: the `Retry-After` less 10 ms (clock granularity). */
const leastGap = (retryAfterS) => retryAfterS * 1000 - 10;
/**
 * A request that reached the gateway within this long after a 503 was sent before the client could
 * have read it (two tasks are polled at once): it is listed, not counted as a request in the pause.
 */
const IN_FLIGHT_MS = 50;
/** Two builds of this long each see several refusals. */
const BUILD = { seconds: 5 };

/**
 * Starts the gateway in front of `upstream`, asking for `retryAfterS` seconds; `{ url, log, retryAfterS,
 * stop() }`, `log` growing with its JSON lines.
 */
async function startGateway(upstream, retryAfterS, extra = []) {
  const argv = [GATEWAY, "--upstream", upstream, "--port", "0", "--retry-after", String(retryAfterS), ...extra];
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
  const stderr = [];
  createInterface({ input: child.stderr }).on("line", (line) => stderr.push(line));
  const log = [];
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    lines.once("line", (first) => {
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(first)?.[1];
      if (found) resolve(found);
      else reject(new Error(`gateway: unexpected first line "${first}"`));
    });
    exited.then((how) => reject(new Error(`gateway exited (${how}) before listening:\n${stderr.join("\n")}`)));
  });
  lines.on("line", (line) => {
    try {
      log.push(JSON.parse(line));
    } catch {
      stderr.push(line);
    }
    if (process.env.MATRIX_VERBOSE) console.error(`  [gateway] ${line}`);
  });
  return {
    url,
    log,
    retryAfterS,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/**
 * What the gateway's log says of the pauses: per 503, the first request after it and how long after
 * the 503 was sent it came, and the requests (any method; preflights are the browser's and never
 * reach the server) that came sooner than `least` ms.
 */
function pauses(log, least) {
  const requests = log.filter((e) => e.method !== "OPTIONS");
  const refusals = requests.filter((e) => e.refused);
  const rows = refusals.map((r) => {
    const later = requests.filter((e) => e !== r && e.at > r.answeredAt);
    const inFlight = later.filter((e) => e.at - r.answeredAt < IN_FLIGHT_MS);
    const next = later.find((e) => e.at - r.answeredAt >= IN_FLIGHT_MS) ?? null;
    const gap = next ? Math.round(next.at - r.answeredAt) : null;
    return { body: r.body, taskId: r.taskId, gap, next: next && `${next.method} ${next.taskId ?? ""}`.trim(), inFlight: inFlight.length };
  });
  const early = rows.filter((row) => row.gap !== null && row.gap < least);
  const t0 = log[0]?.at ?? 0;
  const transcript = log.map((e) => `+${Math.round(e.at - t0)} ${e.method} ${e.taskId ?? ""} → ${e.status}${e.refused ? ` (refused, ${e.body} body)` : ""}`).join("\n");
  const summary = `${refusals.length} × 503 (${rows.map((r) => r.body).join(", ")}); next request after each: ${rows.map((r) => (r.gap === null ? "none" : `${r.gap} ms`)).join(", ")}`;
  return { refusals, rows, early, transcript, summary };
}

/** The assertions every cell shares, on the gateway's log once both tasks ended. */
function assertPausesHeld(server, cell, gateway) {
  const least = leastGap(gateway.retryAfterS);
  const p = pauses(gateway.log, least);
  console.error(`  ${server.name} ${cell}: ${p.summary}`);
  const context = `\n--- what reached the gateway (its clock) ---\n${p.transcript}`;
  assert.ok(p.refusals.length >= 2, `the gateway refused at least two tasks/get: ${p.summary}${context}`);
  assert.ok(p.rows.some((r) => r.body === "jsonrpc") && p.rows.some((r) => r.body === "text"), `503s with either body: ${p.summary}${context}`);
  assert.deepEqual(
    p.early.map((r) => `${r.next} ${r.gap} ms after a 503 (${r.body} body)`),
    [],
    `no request reached the server within ${least} ms of a 503 with Retry-After: ${gateway.retryAfterS} (${p.summary})${context}`,
  );
}

/** Runs `body(gateway)` with a gateway in front of `peer`, adding its log to any failure. */
async function behindGateway(peer, body, retryAfterS = 1, extra = []) {
  const gateway = await startGateway(peer.url, retryAfterS, extra);
  try {
    await body(gateway);
  } catch (error) {
    if (!error.message.includes("--- what reached the gateway")) error.message += `\n--- what reached the gateway ---\n${pauses(gateway.log, 0).transcript}`;
    throw error;
  } finally {
    await gateway.stop();
  }
}

/** Both builds completed, each with its own target. */
function assertCompleted(done, targets) {
  assert.deepEqual(done.map((d) => d?.status), targets.map(() => "completed"), `both tasks completed: ${JSON.stringify(done)}`);
  assert.deepEqual(done.map((d) => d.result?.structuredContent?.target), targets, "each with its result");
}

// ---- Node: the client polls by itself; step mode: a fresh client per step ----

const nodeClients = new Map();
/** The server's package's `TaskClient` and `mapStore`, loaded once. */
function nodeClient(server) {
  const dir = pkgDir(server);
  if (!nodeClients.has(dir)) {
    nodeClients.set(dir, (async () => {
      const pkg = await import(pathToFileURL(join(dir, "node.mjs")).href);
      await pkg.default();
      const { mapStore } = await import(pathToFileURL(join(dir, "stores.js")).href);
      return { TaskClient: pkg.TaskClient, mapStore };
    })());
  }
  return nodeClients.get(dir);
}

cells("retry-after node", (server, peer) => behindGateway(peer, async (gateway) => {
  const { TaskClient } = await nodeClient(server);
  const client = await TaskClient.open({ url: gateway.url, store: "memory", minPollIntervalMs: 100, namespace: "matrix-retry" });
  try {
    const targets = ["retry-1", "retry-2"];
    const ids = [];
    for (const target of targets) {
      if (ids.length) await sleep(250);
      const out = await client.callTool("build", { ...BUILD, target });
      assert.equal(out.kind, "task", `build returns a task handle: ${JSON.stringify(out)}`);
      ids.push(out.task.taskId);
    }
    const done = await within(Promise.all(ids.map((id) => client.wait(id))), 30_000, "wait(both builds)");
    assertCompleted(done, targets);
    assertPausesHeld(server, "retry-after node", gateway);
  } finally {
    client.close();
  }
}), { timeout: 45_000 });

cells("retry-after steps", (server, peer) => behindGateway(peer, async (gateway) => {
  const { TaskClient, mapStore } = await nodeClient(server);
  const store = mapStore();
  // A fresh client (a new isolate) per step, over the same store; the platform may call step() before
  // the wake-up the last step asked for (another request came in), here every 300 ms at most.
  const stepOpen = () => TaskClient.open({ url: gateway.url, store, autoPoll: false, minPollIntervalMs: 50, namespace: "matrix-retry-steps" });
  const targets = ["steps-1", "steps-2"];
  const ids = [];
  for (const target of targets) {
    if (ids.length) await sleep(250);
    const out = await (await stepOpen()).callTool("build", { ...BUILD, target });
    assert.equal(out.kind, "task", `build returns a task handle: ${JSON.stringify(out)}`);
    ids.push(out.task.taskId);
  }
  let done = [];
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const client = await stepOpen();
    const result = await client.step();
    done = ids.map((id) => client.tasks().find((t) => t.taskId === id) ?? null);
    if (done.every((t) => t?.status === "completed")) break;
    assert.ok(result.nextWakeAt !== null, `live tasks have a next wake-up: ${JSON.stringify(result)}`);
    await sleep(Math.max(0, Math.min(300, result.nextWakeAt - Date.now())));
  }
  assertCompleted(done, targets);
  assertPausesHeld(server, "retry-after steps", gateway);
}), { timeout: 45_000 });

/** A gateway that refuses the second `tools/call` only, with `Retry-After: 2`. */
const CALL_REFUSED = ["--every", "1000000", "--refuse-call", "2"];

/** The refused call's pause held: nothing reached the server within it (the gateway's clock). */
function assertCallPauseHeld(server, cell, gateway) {
  const least = leastGap(gateway.retryAfterS);
  const p = pauses(gateway.log, least);
  console.error(`  ${server.name} ${cell}: ${p.summary}`);
  const context = `\n--- what reached the gateway (its clock) ---\n${p.transcript}`;
  assert.deepEqual(p.refusals.map((r) => r.method), ["tools/call"], `the gateway refused the second call: ${p.summary}${context}`);
  assert.deepEqual(
    p.early.map((r) => `${r.next} ${r.gap} ms after the 503`),
    [],
    `no request reached the server within ${least} ms of the call's 503 (Retry-After: ${gateway.retryAfterS})${context}`,
  );
}

/** `promise`'s rejection as `{ name, retryable, message }`, or `{ value }`. */
const outcome = (promise) =>
  promise.then(
    (value) => ({ value }),
    (e) => ({ name: e?.name, retryable: e?.retryable, message: e?.message }),
  );

// Step mode: one isolate's `callTool` meets the 503; every later isolate reads the pause from the store,
// so its steps send nothing and its calls are refused until the pause ends.
cells("retry-after call steps", (server, peer) => behindGateway(peer, async (gateway) => {
  const { TaskClient, mapStore } = await nodeClient(server);
  const store = mapStore();
  const stepOpen = () => TaskClient.open({ url: gateway.url, store, autoPoll: false, minPollIntervalMs: 50, namespace: "matrix-call-steps" });
  const first = await (await stepOpen()).callTool("build", { ...BUILD, target: "call-steps" });
  assert.equal(first.kind, "task", `build returns a task handle: ${JSON.stringify(first)}`);
  const refused = await outcome((await stepOpen()).callTool("build", { seconds: 1, target: "refused" }));
  assert.equal(refused.name, "HttpError", `the second call met the 503: ${JSON.stringify(refused)}`);
  const again = await outcome((await stepOpen()).callTool("build", { seconds: 1, target: "refused-again" }));
  assert.equal(again.name, "HttpError", `a call from the next isolate during the pause is refused: ${JSON.stringify(again)}`);
  assert.equal(again.retryable, true);
  assert.match(again.message, /Retry-After/);
  let done = null;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const client = await stepOpen();
    const result = await client.step();
    done = client.tasks().find((t) => t.taskId === first.task.taskId) ?? null;
    if (done?.status === "completed") break;
    await sleep(Math.max(0, Math.min(300, (result.nextWakeAt ?? Date.now()) - Date.now())));
  }
  assert.equal(done?.status, "completed", `the task completed: ${JSON.stringify(done)}`);
  assert.equal(gateway.log.filter((e) => e.method === "tools/call").length, 2, "the refused isolate's successor sent no call");
  assertCallPauseHeld(server, "retry-after call steps", gateway);
}, 2, CALL_REFUSED), { timeout: 45_000 });

// ---- Chromium: a host page and a dedicated worker, cross-origin to the gateway ----

const browserCells = CELLS.filter(([name, runtime]) => runtime === "chromium" && name.startsWith("retry-after") && cellSelected(name));
const browserServers = selectedServers().filter((s) => browserCells.some(([name]) => runsOn(name, s.name)));
const PKG_DIRS = [...new Set(browserServers.map(pkgDir))];
const pkgPath = (server) => `/pkg-${PKG_DIRS.indexOf(pkgDir(server))}/`;

const { browser, statics } = browserServers.length > 0 ? await startChromium(PKG_DIRS) : {};

/** A fresh context's page at `path`; uncaught errors (the page's and its workers') go to `errors`. */
async function pageAt(context, path, errors) {
  const page = await context.newPage();
  page.on("pageerror", (error) => errors.push(String(error?.stack ?? error)));
  page.on("console", (m) => {
    if (process.env.MATRIX_VERBOSE) console.error(`  [page ${m.type()}] ${m.text()}`);
  });
  await page.goto(`${statics.origin}${path}`);
  return page;
}

/** The host page (`index.html`) over the gateway in namespace `ns`, once its TaskClient is open. */
async function hostPage(context, gateway, server, ns, errors) {
  const page = await pageAt(context, `/index.html?mcp=${encodeURIComponent(gateway.url)}&ns=${ns}&minPoll=100&pkg=${encodeURIComponent(pkgPath(server))}`, errors);
  await page.waitForFunction(() => window.host && (window.host.ready || window.host.error), null, { timeout: 15_000 });
  assert.equal(await page.evaluate(() => window.host.error), null, "the host page opened its TaskClient");
  return page;
}

cells("retry-after page", (server, peer) => behindGateway(peer, async (gateway) => {
  const context = await browser.newContext();
  const errors = [];
  try {
    const page = await hostPage(context, gateway, server, "retry", errors);
    const targets = ["page-1", "page-2"];
    const done = await page.evaluate(async ([build, targets]) => {
      const ids = [];
      for (const target of targets) {
        if (ids.length) await new Promise((resolve) => setTimeout(resolve, 250));
        const out = await window.host.start("build", { ...build, target });
        ids.push(out.task.taskId);
      }
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`not settled within 30 s: ${JSON.stringify(window.host.tasks())}`)), 30_000));
      return Promise.race([Promise.all(ids.map((id) => window.host.wait(id))), timeout]);
    }, [BUILD, targets]);
    assertCompleted(done, targets);
    assertPausesHeld(server, "retry-after page", gateway);
    assert.deepEqual(errors, [], "no uncaught page errors");
  } finally {
    await context.close().catch(() => {});
  }
}), { timeout: 45_000 });

cells("retry-after worker", (server, peer) => behindGateway(peer, async (gateway) => {
  const context = await browser.newContext();
  const errors = [];
  try {
    const page = await pageAt(context, "/worker.html", errors);
    await page.waitForFunction(() => window.workerReady === true, null, { timeout: 15_000 });
    const targets = ["worker-1", "worker-2"];
    const reply = await page.evaluate((message) => window.inWorker(message), {
      pkg: pkgPath(server),
      url: gateway.url,
      namespace: "retry-worker",
      minPollIntervalMs: 100,
      tool: "build",
      calls: targets.map((target) => ({ ...BUILD, target })),
      gapMs: 250,
    });
    assert.ok(reply.ok, `the worker ran the tasks: ${reply.error}`);
    assert.equal(reply.value.durable, true, "IndexedDB in the worker");
    assertCompleted(reply.value.done, targets);
    assertPausesHeld(server, "retry-after worker", gateway);
    assert.deepEqual(errors, [], "no uncaught page errors");
  } finally {
    await context.close().catch(() => {});
  }
}), { timeout: 45_000 });

// Two tabs of one namespace: only the tab holding the Web Lock polls, so the 503s reach it; the other
// tab hears of the pause with the record the polling tab shares, and a `callTool` made there during the
// pause is refused at once (a retryable HttpError) instead of being sent. Retry-After: 2, so the other
// tab's call surely falls inside the pause.
cells("retry-after tabs", (server, peer) => behindGateway(peer, async (gateway) => {
  const context = await browser.newContext();
  const errors = [];
  try {
    const open = () => hostPage(context, gateway, server, "retry-tabs", errors);
    const a = await open();
    const b = await open();
    const out = await a.evaluate((build) => window.host.start("build", { ...build, target: "tabs-1" }), BUILD);
    assert.equal(out.kind, "task", `build returns a task handle: ${JSON.stringify(out)}`);
    const id = out.task.taskId;
    // The first 503, then the other tab's call 300 ms later (the record reaches it first).
    const deadline = Date.now() + 15_000;
    while (!gateway.log.some((e) => e.refused) && Date.now() < deadline) await sleep(20);
    const refusal = gateway.log.find((e) => e.refused);
    assert.ok(refusal, "the gateway refused a tasks/get");
    await sleep(Math.max(0, refusal.answeredAt + 300 - Date.now()));
    const calledAt = Date.now();
    const refused = await b.evaluate(() => window.host.start("build", { seconds: 1, target: "tabs-2" }).then(
      (value) => ({ value }),
      (e) => ({ name: e?.name, retryable: e?.retryable, message: e?.message }),
    ));
    const inPause = calledAt < refusal.answeredAt + gateway.retryAfterS * 1000 - 200;
    if (inPause) {
      assert.equal(refused.name, "HttpError", `the other tab's call during the pause is refused: ${JSON.stringify(refused)}`);
      assert.equal(refused.retryable, true);
      assert.match(refused.message, /Retry-After/);
    }
    const done = await b.evaluate(([taskId, ms]) => Promise.race([
      window.host.wait(taskId),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms)),
    ]), [id, 30_000]);
    assert.equal(done.status, "completed", `the other tab sees the task complete: ${JSON.stringify(done)}`);
    assert.equal(done.result?.structuredContent?.target, "tabs-1");
    assertPausesHeld(server, "retry-after tabs", gateway);
    console.error(`  ${server.name} retry-after tabs: the other tab called ${Math.round(calledAt - refusal.answeredAt)} ms after the first 503: ${refused.name ?? "sent"}`);
    assert.ok(inPause, `the other tab's call came ${Math.round(calledAt - refusal.answeredAt)} ms after the 503, too late to test the pause`);
    assert.deepEqual(errors, [], "no uncaught page errors");
  } finally {
    await context.close().catch(() => {});
  }
}, 2), { timeout: 45_000 });

// Two tabs: the one that does not poll calls a tool and meets the 503; the polling tab, whose task is
// live, hears of the pause over the tabs' channel and sends no poll until it ends.
cells("retry-after call tabs", (server, peer) => behindGateway(peer, async (gateway) => {
  const context = await browser.newContext();
  const errors = [];
  try {
    const open = () => hostPage(context, gateway, server, "retry-call-tabs", errors);
    const a = await open();
    const b = await open();
    const out = await a.evaluate((build) => window.host.start("build", { ...build, target: "call-tabs" }), BUILD);
    assert.equal(out.kind, "task", `build returns a task handle: ${JSON.stringify(out)}`);
    await sleep(500);
    const refused = await b.evaluate(() => window.host.start("build", { seconds: 1, target: "refused" }).then(
      (value) => ({ value }),
      (e) => ({ name: e?.name, retryable: e?.retryable, message: e?.message }),
    ));
    assert.equal(refused.name, "HttpError", `the other tab's call met the 503: ${JSON.stringify(refused)}`);
    const done = await a.evaluate(([taskId, ms]) => Promise.race([
      window.host.wait(taskId),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms)),
    ]), [out.task.taskId, 30_000]);
    assert.equal(done.status, "completed", `the task completed: ${JSON.stringify(done)}`);
    assertCallPauseHeld(server, "retry-after call tabs", gateway);
    assert.deepEqual(errors, [], "no uncaught page errors");
  } finally {
    await context.close().catch(() => {});
  }
}, 2, CALL_REFUSED), { timeout: 45_000 });
