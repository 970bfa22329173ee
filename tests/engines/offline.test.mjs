// Offline in the engine of this run (ENGINE=firefox|webkit, see rig.mjs), two ways:
//
// - The browser goes offline (Firefox only): Firefox's own offline switch (`Services.io.offline`, its
//   "Work Offline"), set from the privileged context geckodriver opens with --allow-system-access. The
//   page then really sees `navigator.onLine === false` and the `offline`/`online` events, as in Chromium
//   with Playwright's setOffline. WebKitWebDriver offers no such switch (no network emulation, no
//   privileged context), and faking `navigator.onLine` in the page would test nothing of WebKit, so for
//   WebKit this test is skipped, saying why.
// - The server goes away (both engines): the reference server is stopped (its connections cut, new ones
//   refused), then started again on the same port and the same SQLite file. The browser stays "online";
//   the client must see its requests fail, back off, and finish the task once the server is back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENGINE, sleep, startServer, withBrowser, openHost, waitFor, waitEvent, waitDone, requestsOf, assertNoPageErrors } from "./rig.mjs";

/** Firefox's offline switch, flipped in the browser's privileged (chrome) context. */
async function setFirefoxOffline(browser, offline) {
  await browser.vendor("POST", "/moz/context", { context: "chrome" });
  try {
    await browser.run("Services.io.manageOfflineStatus = false; Services.io.offline = arguments[0]; return Services.io.offline;", offline);
  } finally {
    await browser.vendor("POST", "/moz/context", { context: "content" });
  }
}

test(`${ENGINE.name}: the browser goes offline: nothing is sent while offline, the task resumes when back online`, { timeout: 60_000, skip: ENGINE.canGoOffline ? false : `${ENGINE.name}'s WebDriver cannot take the browser offline (see the server-outage test instead)` }, async () => {
  await withBrowser(async ({ server, browser }) => {
    await openHost(browser, server.base, "offline");
    const out = await browser.run("return window.host.start('build', { seconds: 4, target: 'offline' });");
    const id = out.task.taskId;
    await sleep(700);

    const offAt = Date.now();
    await setFirefoxOffline(browser, true);
    const offSet = Date.now();
    const onLine = await browser.run("return navigator.onLine;");
    assert.equal(onLine, false, "the page sees navigator.onLine === false");
    await waitEvent(browser, { kind: "task", taskId: id, connectivity: "offline" }, 3000);
    await sleep(2000 - (Date.now() - offAt));
    const onAt = Date.now();
    await setFirefoxOffline(browser, false);
    assert.equal(await browser.run("return navigator.onLine;"), true, "online again");

    // Back online: the snapshot leaves "offline" at once (the `online` event), whether the task is then
    // covered by the listen stream that stayed open on loopback or by a new request.
    const back = await waitFor(
      browser,
      "a snapshot that is no longer offline",
      "const [taskId, since] = arguments; return window.host.events.find((e) => e.kind === 'task' && e.detail.taskId === taskId && e.at >= since && e.detail.connectivity !== 'offline') ?? null;",
      [id, onAt],
      3000,
    );
    const done = await waitDone(browser, id, 10_000);
    assert.equal(done.status, "completed");
    assert.equal(done.result.structuredContent.target, "offline");
    const sent = await requestsOf(browser);
    const whileOffline = sent.filter((r) => r.at > offSet + 30 && r.at < onAt);
    assert.deepEqual(whileOffline, [], "the page sent no /mcp request while offline");
    const startedAtServer = server.log.filter((l) => l.start > offSet + 30 && l.start < onAt);
    assert.deepEqual(startedAtServer.map((l) => l.text), [], "no request reached the server while offline");
    const firstBack = sent.find((r) => r.at >= onAt);
    const how = firstBack ? `first request (${firstBack.method}) ${firstBack.at - onAt} ms after online` : "no new request needed (the listen stream on loopback stayed open)";
    console.error(`  ${ENGINE.name}: offline 2 s, nothing sent; ${back.detail.connectivity} ${back.at - onAt} ms after online; ${how}`);
    assert.ok(back.at - onAt <= 1500, `connectivity left offline ${back.at - onAt} ms after going online (≤ 1500)`);
    if (firstBack) assert.ok(firstBack.at - onAt <= 1500, `the first request after going online came ${firstBack.at - onAt} ms later (≤ 1500)`);
    await assertNoPageErrors(browser);
  });
});

test(`${ENGINE.name}: the server goes away: the client backs off, and finishes the task when the server is back`, { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "mcp-tasks-engines-outage-"));
  const db = join(dir, "tasks.sqlite");
  let second = null;
  try {
    const first = await startServer(["--db", db]);
    const address = first.base.replace(/^http:\/\//, "");
    await withBrowser(
      async ({ browser }) => {
        await openHost(browser, first.base, "outage");
        const out = await browser.run("return window.host.start('build', { seconds: 5, target: 'outage' });");
        const id = out.task.taskId;
        await sleep(500);

        const cutAt = Date.now();
        await first.stop();
        const backoff = await waitEvent(browser, { kind: "task", taskId: id, connectivity: "backoff" }, 8000);
        assert.ok(backoff.at >= cutAt, "the client noticed the server was gone");
        assert.equal(backoff.detail.status, "working", "the task is still working as far as the client knows");
        assert.equal(await browser.run("return navigator.onLine;"), true, "the browser itself stayed online");
        const lastError = backoff.detail.lastError;
        await sleep(1500);

        second = await startServer(["--db", db, "--listen", address]);
        const backAt = Date.now();
        const done = await waitDone(browser, id, 20_000);
        assert.equal(done.status, "completed");
        assert.equal(done.result.structuredContent.target, "outage");
        assert.equal(first.lines("tools/call", "build").length + second.lines("tools/call", "build").length, 1, "the tool was called once");
        const resumed = second.log.find((l) => l.name === id || l.method === "subscriptions/listen");
        assert.ok(resumed, "the client reached the restarted server about the task");
        console.error(`  ${ENGINE.name}: backoff ${backoff.at - cutAt} ms after the cut (lastError ${JSON.stringify(lastError)}); back in touch ${resumed.start - backAt} ms after the restart`);
        await assertNoPageErrors(browser);
      },
      { server: first },
    );
  } finally {
    await second?.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
