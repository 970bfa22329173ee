// End-to-end durability tests of TaskClient in real headless Chromium (playwright-core, the system
// /usr/bin/chromium): a task survives a reload, a browser restart, going offline, a reload while an
// answer is in flight, and a call cut off by a reload is reported as outcome unknown.
//
// Run from the repo root after `cargo xtask build` and `cargo build -p mcp-tasks-server`:
//   node --test tests/e2e/
// Each test starts its own reference server (memory store, --faults, 200 ms poll interval) serving
// tests/e2e/pages at / and pkg/ at /pkg/, and its own persistent Chromium profile in a fresh temp dir.
// The server's stderr request log (`<method> <taskId|tool> <status> <code|ok> <ms>ms`) is captured with
// the time each line arrived, so tests can count what actually reached the server. The rig (server,
// browser, page watching, waits) is shared with tabs.test.mjs: see rig.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  VERBOSE, sleep, startServer, makeProfileDir, removeProfileDir, launchContext, watchPage, forcePolling, hostReady,
  assertNoErrorsIn, waitEvent, waitDone, events,
} from "./rig.mjs";

const SHOTS = process.env.E2E_SCREENSHOTS || "/tmp/mcp-tasks-e2e";

/**
 * A persistent Chromium profile in a fresh temp dir, launched (and relaunched) on demand. Console
 * errors and uncaught page errors of every page are collected in `errors`.
 */
async function browserProfile(name) {
  const dir = await makeProfileDir(name);
  const errors = [];
  const requests = []; // /mcp requests seen by the pages: { at, method, taskId, tool, failedAt?, failure?, doneAt? }
  let context = null;
  const watch = (page) => watchPage(page, { errors, requests });
  const profile = {
    dir,
    errors,
    requests,
    get context() { return context; },
    async launch() {
      context = await launchContext(dir);
      context.on("page", watch);
      for (const page of context.pages()) watch(page);
      return context;
    },
    /** Opens (or navigates the first tab to) the host page and waits until its client is open. */
    async openHost(base, ns) {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${base}/?ns=${encodeURIComponent(ns)}`);
      await hostReady(page);
      return page;
    },
    async close() {
      if (context) await context.close().catch(() => {});
      context = null;
    },
    async dispose() {
      await profile.close();
      await removeProfileDir(dir);
    },
  };
  return profile;
}

const snapshotOf = (page, id) => page.evaluate((taskId) => window.host.tasks().find((t) => t.taskId === taskId) ?? null, id);

function assertNoPageErrors(profile) {
  assertNoErrorsIn({ errors: profile.errors, pages: profile.context?.pages() ?? [], labelled: false, where: "the page" });
}

/** Runs `body` with a fresh server and profile, and always cleans both up. */
async function withRig(name, body) {
  const server = await startServer();
  const profile = await browserProfile(name);
  try {
    await profile.launch();
    await body({ server, profile });
  } catch (error) {
    if (!VERBOSE) {
      error.message += `\n--- server log (${server.log.length} lines) ---\n${server.log.map((l) => `${l.at % 100_000} ${l.text}`).join("\n")}${server.other.length ? `\n--- server other ---\n${server.other.join("\n")}` : ""}`;
    }
    throw error;
  } finally {
    await profile.dispose();
    await server.stop();
  }
}

test("reload mid-task: the restored client finishes the same task", { timeout: 20_000 }, async () => {
  await withRig("reload", async ({ server, profile }) => {
    let page = await profile.openHost(server.base, "reload");
    const out = await page.evaluate(() => window.host.start("build", { seconds: 3, target: "reload" }));
    assert.equal(out.kind, "task");
    const id = out.task.taskId;
    await sleep(1000);
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "host-midtask.png") });
    const before = await snapshotOf(page, id);
    assert.equal(before.status, "working", "still working when the page reloads");

    const reloadAt = Date.now();
    await page.reload();
    await hostReady(page);
    const restored = await snapshotOf(page, id);
    assert.ok(restored, `the task ${id} is in the reloaded client: ${JSON.stringify(await page.evaluate(() => window.host.tasks()))}`);
    assert.equal(restored.restored, true, "marked restored");
    assert.equal(restored.status, "working", "restored mid-task, not yet finished");

    const done = await waitDone(page, id, 8000);
    assert.equal(done.taskId, id, "the same taskId");
    assert.equal(done.status, "completed");
    assert.equal(done.restored, true);
    assert.equal(done.result.structuredContent.target, "reload");
    assert.equal(server.lines("tools/call", "build").length, 1, "the tool was called once (the reload did not call it again)");
    // The reloaded client reaches the task again either by polling it or by covering it with a
    // subscriptions/listen stream (whichever it starts first; both are correct).
    const resumed = profile.requests.some((r) => r.at >= reloadAt && (r.taskId === id || r.listens.includes(id)));
    assert.ok(resumed, "the reloaded page polled or listened to the same task");
    assertNoPageErrors(profile);
  });
});

test("browser restart: the relaunched profile finishes the task", { timeout: 25_000 }, async () => {
  await withRig("restart", async ({ server, profile }) => {
    const page = await profile.openHost(server.base, "restart");
    const out = await page.evaluate(() => window.host.start("build", { seconds: 3, target: "restart" }));
    const id = out.task.taskId;
    await sleep(600);

    await profile.close(); // the whole browser goes away
    const closedAt = Date.now();
    await sleep(300);
    assert.ok(!server.lines("tasks/get", id).some((l) => l.start > closedAt + 50), "nothing polls while the browser is closed");

    await profile.launch();
    const reopened = await profile.openHost(server.base, "restart");
    const restored = await snapshotOf(reopened, id);
    assert.ok(restored, "the task survived the browser restart (IndexedDB on disk)");
    assert.equal(restored.restored, true);
    const done = await waitDone(reopened, id, 8000);
    assert.equal(done.status, "completed");
    assert.equal(done.result.structuredContent.target, "restart");
    assert.equal(server.lines("tools/call", "build").length, 1, "called once");
    assertNoPageErrors(profile);
  });
});

test("offline: no polls while offline, resumes at once when back online", { timeout: 25_000 }, async () => {
  await withRig("offline", async ({ server, profile }) => {
    // Polling mode: answer server/discover and subscriptions/listen as a server without them would, so
    // the client polls and the server log shows whether it stays quiet while offline.
    await forcePolling(profile.context);
    const page = await profile.openHost(server.base, "offline");
    const out = await page.evaluate(() => window.host.start("build", { seconds: 4, target: "offline" }));
    const id = out.task.taskId;
    await sleep(700);
    assert.ok(server.lines("tasks/get", id).length >= 2, "polling before going offline");

    const offAt = Date.now();
    await profile.context.setOffline(true);
    const offSet = Date.now();
    await waitEvent(page, { kind: "task", taskId: id, connectivity: "offline" }, 2000);
    await sleep(2000 - (Date.now() - offAt));
    const onAt = Date.now();
    await profile.context.setOffline(false);

    const done = await waitDone(page, id, 8000);
    assert.equal(done.status, "completed");

    const gets = server.lines("tasks/get", id);
    const whileOffline = gets.filter((l) => l.at > offSet && l.at < onAt);
    // One request may have been in flight at the switch (it arrived before offAt); none may start later.
    assert.ok(whileOffline.length <= 1, `at most one tasks/get reached the server while offline, got ${whileOffline.length}: ${whileOffline.map((l) => l.text)}`);
    const startedOffline = gets.filter((l) => l.start > offSet + 30 && l.start < onAt);
    assert.deepEqual(startedOffline.map((l) => l.text), [], "no tasks/get started while offline");
    const attempted = profile.requests.filter((r) => r.taskId === id && r.at > offSet + 30 && r.at < onAt);
    assert.ok(attempted.length <= 1, `the page did not even try while offline (${attempted.length} attempts: ${JSON.stringify(attempted)})`);

    const firstBack = gets.find((l) => l.start >= onAt);
    assert.ok(firstBack, "polled again after going online");
    const delay = firstBack.start - onAt;
    assert.ok(delay <= 1000, `the first tasks/get after going online came ${delay} ms later (≤ 1000)`);
    console.error(`  offline: ${whileOffline.length} tasks/get during the 2 s offline; first poll ${delay} ms after online`);
    assertNoPageErrors(profile);
  });
});

test("reload while an answer is in flight: it is sent, applied once, and never asked again", { timeout: 25_000 }, async () => {
  await withRig("answer", async ({ server, profile }) => {
    let page = await profile.openHost(server.base, "answer");
    const out = await page.evaluate(() => window.host.start("deploy", { service: "api" }));
    const id = out.task.taskId;
    const asking = await waitEvent(page, { kind: "task", taskId: id, status: "input_required" });
    assert.ok(asking.detail.inputRequests["approval-1"], "asks approval-1");
    await page.screenshot({ path: join(SHOTS, "host-input-required.png") });

    // Every /mcp request now takes 1.5 s, so the tasks/update is still in flight when the page goes.
    await server.faults({ latencyMs: 1500 });
    const answeredAt = Date.now();
    await page.evaluate((taskId) => window.host.respond(taskId, { "approval-1": { action: "accept", content: { confirm: true, strategy: "rolling" } } }), id);
    const updateSeen = Date.now() + 400;
    while (!profile.requests.some((r) => r.method === "tasks/update" && r.taskId === id) && Date.now() < updateSeen) await sleep(10);
    await page.reload();
    const reloadedAt = Date.now();
    await hostReady(page);
    await server.faults({});

    const firstUpdate = profile.requests.find((r) => r.method === "tasks/update" && r.taskId === id);
    assert.ok(firstUpdate, "the first page sent the tasks/update before it reloaded");
    const cutOff = !!firstUpdate.failedAt || !firstUpdate.doneAt || firstUpdate.doneAt >= reloadedAt;
    console.error(`  answer: first tasks/update sent ${firstUpdate.at - answeredAt} ms after respond(); in flight at reload: ${cutOff}${firstUpdate.failure ? ` (${firstUpdate.failure})` : ""}`);

    const restored = await snapshotOf(page, id);
    assert.ok(restored, "the task is restored after the reload");
    assert.equal(restored.restored, true);
    assert.ok(!("approval-1" in restored.inputRequests), `approval-1 is not asked again after the reload: ${JSON.stringify(restored.inputRequests)}`);

    const done = await waitDone(page, id, 10_000);
    assert.equal(done.status, "completed", `completed: ${JSON.stringify(done.error)}`);
    assert.equal(done.result.structuredContent.strategy, "rolling", "completed with the answered values");

    const all = await events(page);
    const askedAgain = all.filter((e) => e.kind === "task" && e.detail.taskId === id && "approval-1" in (e.detail.inputRequests ?? {}));
    assert.deepEqual(askedAgain, [], "no snapshot after the reload shows approval-1 again");
    assert.ok(all.filter((e) => e.detail.taskId === id).every((e) => e.detail.restored === true), "every snapshot of the reloaded page is restored");

    const updates = server.lines("tasks/update", id);
    assert.ok(updates.length >= 1, "a tasks/update for the task reached the server");
    assert.ok(updates.some((l) => l.status === 200 && l.code === "ok"), `an update was accepted: ${updates.map((l) => l.text)}`);
    assert.equal(server.lines("tools/call", "deploy").length, 1, "deploy was called once");
    const sent = profile.requests.filter((r) => r.method === "tasks/update" && r.taskId === id);
    console.error(`  answer: the pages sent ${sent.length} tasks/update (${sent.map((r) => r.failure ?? (r.doneAt ? "answered" : "no answer")).join(", ")}); lines at the server: ${updates.map((l) => l.text).join(" | ")}`);
    assert.ok(updates.length <= sent.length, "the server saw no update the pages did not send");
    assertNoPageErrors(profile);
  });
});

test("early polls: after a reload the hinted task is polled before IndexedDB opens, and its answer is not asked again", { timeout: 25_000 }, async () => {
  await withRig("early", async ({ server, profile }) => {
    const page = profile.context.pages()[0] ?? (await profile.context.newPage());
    await page.goto(`${server.base}/?ns=early&minPoll=100`);
    await hostReady(page);
    const out = await page.evaluate(() => window.host.start("build", { seconds: 20, target: "early" }));
    assert.equal(out.kind, "task");
    const id = out.task.taskId;
    // The polling tab keeps its hint of live tasks in localStorage.
    await page.waitForFunction(
      (taskId) => Object.keys(localStorage).some((k) => k.startsWith("mcp-tasks-web|early|") && localStorage.getItem(k).includes(taskId)),
      id,
      { timeout: 5_000 },
    );
    await sleep(300); // the stored record is due for a poll again when the next page opens

    // The next page's IndexedDB open succeeds 400 ms late (its success event is held back), and it
    // polls every 5 s at most: a second tasks/get within a second would mean the early answer was lost.
    await profile.context.addInitScript(() => {
      const open = IDBFactory.prototype.open;
      const onsuccess = Object.getOwnPropertyDescriptor(IDBRequest.prototype, "onsuccess");
      IDBFactory.prototype.open = function (...args) {
        const request = open.apply(this, args);
        Object.defineProperty(request, "onsuccess", {
          configurable: true,
          get() { return onsuccess.get.call(this); },
          set(handler) {
            onsuccess.set.call(this, handler && ((event) => setTimeout(() => {
              window.__idbOpenedAt = Date.now();
              handler.call(this, event);
            }, 400)));
          },
        });
        return request;
      };
    });
    const navigatedAt = Date.now();
    await page.goto(`${server.base}/?ns=early&minPoll=5000`);
    await hostReady(page);
    const openedAt = await page.evaluate(() => window.__idbOpenedAt);
    assert.ok(openedAt > navigatedAt, "the page opened IndexedDB (late)");
    const gets = () => profile.requests.filter((r) => r.at >= navigatedAt && r.method === "tasks/get" && r.taskId === id);
    assert.ok(gets().length >= 1, "the task was polled after the navigation");
    assert.ok(gets()[0].at < openedAt, `the first tasks/get (${gets()[0].at - navigatedAt} ms) came before IndexedDB opened (${openedAt - navigatedAt} ms)`);
    await sleep(1_000);
    assert.equal(gets().length, 1, `one tasks/get: the early answer was applied when the record was read (${gets().map((r) => r.at - navigatedAt).join(", ")} ms)`);
    const restored = await snapshotOf(page, id);
    assert.ok(restored, "the task is restored");
    assert.equal(restored.restored, true);
    assert.equal(restored.status, "working");
    assertNoPageErrors(profile);
  });
});

test("a call cut off by a reload is reported as outcome unknown", { timeout: 20_000 }, async () => {
  await withRig("unknown", async ({ server, profile }) => {
    let page = await profile.openHost(server.base, "unknown");
    await server.faults({ latencyMs: 2000 });
    await page.evaluate(() => {
      // Not awaited: the page reloads before the answer comes. The rejection is expected, not an error.
      window.host.start("build", { seconds: 1, target: "unknown" }).catch(() => {});
    });
    const deadline = Date.now() + 2000;
    while (!profile.requests.some((r) => r.method === "tools/call") && Date.now() < deadline) await sleep(10);
    assert.ok(profile.requests.some((r) => r.method === "tools/call"), "the tools/call went out");
    await sleep(150);
    await page.reload();
    await hostReady(page);
    await server.faults({});

    const call = await waitEvent(page, { kind: "call" }, 5000);
    assert.equal(call.detail.status, "outcome_unknown");
    assert.equal(call.detail.taskId, null);
    assert.equal(call.detail.toolName, "build");
    assert.deepEqual(call.detail.arguments, { seconds: 1, target: "unknown" });
    const listed = await page.evaluate(() => window.host.tasks().filter((t) => t.status === "outcome_unknown"));
    assert.equal(listed.length, 1, "tasks() lists the unknown call");
    assert.equal(listed[0].callId, call.detail.callId);
    const reached = server.lines("tools/call", "build");
    console.error(`  unknown: the cut-off tools/call ${reached.length ? "reached the server" : "never reached the server's tool"} (${reached.map((l) => l.text).join(" | ") || "no log line"})`);
    assertNoPageErrors(profile);
  });
});

test("a record that is not text is left out and told once; the rest of the namespace stays durable", { timeout: 25_000 }, async () => {
  await withRig("not-text", async ({ server, profile }) => {
    let page = await profile.openHost(server.base, "not-text");
    const out = await page.evaluate(() => window.host.start("build", { seconds: 2, target: "kept" }));
    const id = out.task.taskId;
    // Another app version writes an object (not text) under a task key of the same namespace.
    const planted = await page.evaluate((taskId) => new Promise((resolve, reject) => {
      const open = indexedDB.open("mcp-tasks-web");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const records = open.result.transaction("records", "readwrite").objectStore("records");
        const keys = records.getAllKeys();
        keys.onsuccess = () => {
          const key = keys.result.find((k) => k.endsWith(`/${taskId}`));
          if (!key) return reject(new Error(`no key for ${taskId} in ${keys.result}`));
          const other = key.slice(0, -taskId.length) + "aaa-planted";
          records.put({ not: "text" }, other).onsuccess = () => { open.result.close(); resolve(other); };
        };
      };
    }), id);

    await page.reload();
    await hostReady(page);
    assert.equal(await page.evaluate(() => window.host.client.durable), true, "still durable");
    const restored = await snapshotOf(page, id);
    assert.ok(restored, "the text record beside it is restored");
    await sleep(300);
    const told = (await events(page)).filter((e) => e.kind === "storage");
    assert.equal(told.length, 1, JSON.stringify(told));
    assert.equal(told[0].detail.durable, true);
    assert.ok(told[0].detail.reason.includes(planted), told[0].detail.reason);
    const done = await waitDone(page, id, 8000);
    assert.equal(done.status, "completed");
    // Written durably still: a reload reads the finished task back, and the planted record is told once more.
    await page.reload();
    await hostReady(page);
    assert.equal((await snapshotOf(page, id))?.status, "completed");
    assert.equal(await page.evaluate(() => window.host.client.durable), true);
    page = null;
    assertNoPageErrors(profile);
  });
});
