// A host split in modules: its data layer imports TaskClient and init from "mcp-tasks-web" and its UI
// imports <mcp-task> from "mcp-tasks-web/element" (tests/e2e/pages/split.html). The element draws the
// data layer's client and answers its form, and the page downloads each file of the package once, the
// same files and bytes as a page that imports the element's entry alone (one-entry.html), whose
// budget `cargo xtask build` checks (xtask/src/sizes.rs; the gzip figures printed here are Node's
// zlib, a little larger than the build's).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { startServer, launchBrowser, watchPage, assertNoErrorsIn } from "./rig.mjs";

/** The survey tool's form (server/src/tools/survey.rs). */
const SURVEY = "survey-1";

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close().catch(() => {});
  await server?.stop();
});

/**
 * Opens `page` (split.html or one-entry.html) in a fresh context (its own cache and IndexedDB), starts
 * the survey, answers its form in the card and waits for the card to show the task completed.
 * Returns every /pkg/ response as `{ url, status, bytes, gzip }` (gzip -9 of its body).
 */
async function answerSurvey(pageName) {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  const errors = [];
  const requests = [];
  const fetched = [];
  const bodies = [];
  context.on("page", (p) => {
    watchPage(p, { errors, requests });
    p.on("response", (response) => {
      if (!new URL(response.url()).pathname.startsWith("/pkg/")) return;
      bodies.push(
        response.body().then((body) => {
          fetched.push({ url: new URL(response.url()).pathname, status: response.status(), bytes: body.length, gzip: gzipSync(body, { level: 9 }).length });
        }),
      );
    });
  });
  try {
    const page = await context.newPage();
    await page.goto(`${server.base}/${pageName}?ns=${pageName}-${Date.now() % 1_000_000}`);
    await page.waitForFunction(() => window.__split?.ready === true, null, { timeout: 10_000 }).catch((e) => {
      throw new Error(`${pageName} did not get ready: ${errors.join("\n") || e.message}`);
    });
    const id = await page.evaluate(() => window.__split.start("survey"));
    assert.ok(id, "the survey started a task");
    const card = page.locator(`mcp-task[data-task="${id}"]`);
    await card.locator(`form[data-key="${SURVEY}"]`).waitFor();
    await card.locator('[part~="field"][data-field="email"] input').fill("split@example.com");
    await card.locator('[part~="field"][data-field="topics"]').getByRole("checkbox", { name: "Rust" }).check();
    await card.locator('button[data-action="accept"]').click();
    await card.locator('[part~="card"][data-status="completed"]').waitFor({ state: "attached" });
    assert.equal(server.lines("tasks/update", id).length, 1, "the card sent the form's answer once");
    await Promise.all(bodies);
    assertNoErrorsIn({ errors, pages: context.pages(), labelled: false, where: pageName });
    return fetched;
  } finally {
    await context.close().catch(() => {});
  }
}

/** `fetched` summed, after asserting each URL was fetched once. */
function once(fetched, what) {
  const urls = fetched.map((f) => f.url);
  assert.deepEqual(urls.filter((u, i) => urls.indexOf(u) !== i), [], `${what}: each package file fetched once`);
  for (const f of fetched) assert.equal(f.status, 200, `${what}: ${f.url}`);
  return { urls: [...urls].sort(), bytes: fetched.reduce((n, f) => n + f.bytes, 0), gzip: fetched.reduce((n, f) => n + f.gzip, 0) };
}

test("a host split in modules draws the card of its data layer's client, answers its form, and downloads each file once", { timeout: 90_000 }, async () => {
  const split = once(await answerSurvey("split.html"), "split.html");
  const one = once(await answerSurvey("one-entry.html"), "one-entry.html");
  console.error(`  split.html: ${split.urls.join(" ")}: ${split.bytes} B, ${split.gzip} B gzip -9`);
  console.error(`  one-entry.html: ${one.urls.join(" ")}: ${one.bytes} B, ${one.gzip} B gzip -9`);
  assert.deepEqual(split.urls, one.urls, "the split page fetches the files of the one-entry page, no more");
  assert.equal(split.bytes, one.bytes, "and the same bytes");
});
