// Results drawn in <mcp-task> as a chat host draws them (Chromium): images and audio from `blob:` URLs
// the card makes and revokes, an embedded binary offered as a download, a resource link opened only
// through the same checked Open button as a URL-mode address, the host's `renderContent` hook, and
// hostile content (SVG, a wrong type, an oversized image, data that is not base64, a `javascript:`
// link) refused with words. The page runs under the strict CSP with the directives media needs
// (`img-src blob:`, `media-src blob:`); any CSP violation fails the test (element-rig.mjs).
//
// The results are handed to the card as a `task` event of its client with a completed snapshot (the
// client does not have the task, so the card draws the event's): the reference server's tools return
// no media, and this is the path a snapshot takes from the client to the card.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { elementSuite, withSession, until, assertAxeClean } from "./element-rig.mjs";
import { STRICT_CSP } from "./rig.mjs";

/** @type {Awaited<ReturnType<typeof elementSuite>>} */
let suite;
before(async () => {
  suite = await elementSuite();
});
after(() => suite?.close());

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/** A WAV of 800 silent samples at 8 kHz (a tenth of a second). */
const WAV = (() => {
  const samples = 800;
  const b = Buffer.alloc(44 + samples);
  b.write("RIFF", 0);
  b.writeUInt32LE(36 + samples, 4);
  b.write("WAVEfmt ", 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write("data", 36);
  b.writeUInt32LE(samples, 40);
  b.fill(128, 44);
  return b.toString("base64");
})();
const PDF = Buffer.from("%PDF-1.4\n% a test file\n").toString("base64");
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=1"><script>window.__pwned=1</script></svg>').toString("base64");
/** The reference server's strict CSP, which allows what the card's media need: `blob:` images and audio. */
const MEDIA_CSP = STRICT_CSP;
assert.ok(MEDIA_CSP.includes("img-src 'self' data: blob:; media-src blob:"), "the strict CSP allows blob: media");

/** A completed task snapshot with `content`. */
function completed(taskId, content) {
  return {
    taskId, toolName: "render", status: "completed", statusMessage: "done",
    createdAt: "2026-12-02T10:00:00Z", lastUpdatedAt: "2026-12-02T10:00:02Z",
    inputRequests: {}, result: { content }, error: null, connectivity: "online",
    cancelRequested: false, expired: null, restored: false,
  };
}

/**
 * Opens element.html under MEDIA_CSP, keeps every other request on this machine (`sites`: origin →
 * HTML served for it; the rest refused), and returns `show(snapshot)`, which mounts an <mcp-task> for
 * the snapshot's task (with `window.__render` as its `renderContent`, if set) and hands it the
 * snapshot as its client's `task` event.
 */
async function host(s, sites = {}) {
  const base = new URL(s.server.base);
  await s.context.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    if (url.host === base.host) {
      if (!url.pathname.endsWith("/element.html")) return route.continue();
      const response = await route.fetch();
      return route.fulfill({ response, headers: { ...response.headers(), "content-security-policy": MEDIA_CSP } });
    }
    if (sites[url.origin]) return route.fulfill({ contentType: "text/html", body: sites[url.origin] });
    return route.abort();
  });
  const response = await s.open();
  assert.equal((await response.headerValue("content-security-policy")), MEDIA_CSP);
  return async (snapshot) => {
    await s.page.evaluate((snap) => {
      const client = window.__client;
      // The card subscribes through the client's addEventListener: its `task` listener is kept so the
      // test can hand it a snapshot as the client would.
      if (!client.__taskListeners) {
        const listen = client.addEventListener.bind(client);
        client.__taskListeners = [];
        client.addEventListener = (type, listener, options) => {
          if (type === "task") client.__taskListeners.push(listener);
          return listen(type, listener, options);
        };
      }
      const card = document.createElement("mcp-task");
      card.dataset.task = snap.taskId;
      card.client = client;
      card.taskId = snap.taskId;
      if (window.__render) card.renderContent = window.__render;
      document.querySelector("#tasks").append(card);
      for (const listener of client.__taskListeners) listener(new CustomEvent("task", { detail: snap }));
    }, snapshot);
    await s.task(snapshot.taskId).locator('[part~="result"]').waitFor();
    return s.task(snapshot.taskId);
  };
}

test("images, audio, downloads and embedded text are drawn; blob: URLs are revoked when the card goes", { timeout: 60_000 }, async () => {
  await withSession(suite, "results-media", {}, async (s) => {
    const show = await host(s);
    const card = await show(completed("media-1", [
      { type: "text", text: "<b>not markup</b>" },
      { type: "image", data: PNG, mimeType: "image/png", alt: "A red dot" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "audio", data: WAV, mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///out/report.pdf", mimeType: "application/pdf", blob: PDF } },
      { type: "resource", resource: { uri: "file:///out/notes.txt", mimeType: "text/plain", text: "<i>notes</i>" } },
    ]));
    const result = card.locator('[part~="result"]');
    assert.deepEqual(await result.locator("p").allTextContents(), ["<b>not markup</b>", "<i>notes</i>"], "text stays text");
    assert.equal(await result.locator("b, i, script").count(), 0);

    const images = result.locator('img[part~="image"]');
    assert.deepEqual(await images.evaluateAll((list) => list.map((i) => i.alt)), ["A red dot", "Image (image/png)"], "alt text, else worded");
    await until(async () => (await images.evaluateAll((list) => list.every((i) => i.complete && i.naturalWidth === 1))), "the images to load");
    const srcs = await images.evaluateAll((list) => list.map((i) => i.src));
    assert.ok(srcs.every((src) => src.startsWith("blob:")), srcs.join(" "));

    const audio = result.locator('audio[part~="audio"]');
    assert.equal(await audio.getAttribute("aria-label"), "Audio (audio/wav)");
    assert.equal(await audio.evaluate((a) => a.controls), true, "the platform's controls");
    await until(async () => (await audio.evaluate((a) => a.readyState >= 1 && a.duration > 0.09)), "the audio's metadata to load");

    await assertAxeClean(s.page, "#tasks", "a card with text, images, audio and a download");

    const link = result.locator('a[part~="download"]');
    assert.equal(await link.textContent(), "Download report.pdf (application/pdf)");
    const [download] = await Promise.all([s.page.waitForEvent("download"), link.click()]);
    assert.equal(download.suggestedFilename(), "report.pdf");
    const saved = await download.createReadStream();
    const chunks = [];
    for await (const chunk of saved) chunks.push(chunk);
    assert.equal(Buffer.concat(chunks).toString("base64"), PDF, "the bytes as sent");

    // Loaded anew as the CSP allows (`img-src blob:`, `media-src blob:`): an image, and audio.
    const media = [...srcs.map((src) => ["img", src]), ["audio", await audio.getAttribute("src")]];
    const loads = (list) =>
      s.page.evaluate(
        (l) =>
          Promise.all(
            l.map(([kind, url]) => new Promise((resolve) => {
              const e = kind === "img" ? new Image() : new Audio();
              e.addEventListener(kind === "img" ? "load" : "loadedmetadata", () => resolve(true));
              e.addEventListener("error", () => resolve(false));
              e.src = url;
            })),
          ),
        list,
      );
    assert.deepEqual(await loads(media), [true, true, true], "the blob: URLs work while the card shows them");
    await card.evaluate((el) => el.remove());
    assert.deepEqual(await loads(media), [false, false, false], "and are revoked when the card goes");
    // Those failed loads are the browser's report of the revocation, not a page error.
    await until(async () => s.errors.filter((e) => e.includes("ERR_FILE_NOT_FOUND")).length === 3, "the three failed loads");
    const expected = (e) => e.includes("ERR_FILE_NOT_FOUND") && media.some(([, url]) => e.includes(url));
    s.errors.splice(0, s.errors.length, ...s.errors.filter((e) => !expected(e)));
  });
});

test("hostile media is refused with words and nothing of it is drawn", { timeout: 60_000 }, async () => {
  await withSession(suite, "results-hostile", {}, async (s) => {
    const show = await host(s);
    const big = "A".repeat(4 * 1024 * 1024 / 3 * 4 + 8);
    const card = await show(completed("hostile-1", [
      { type: "image", data: SVG, mimeType: "image/svg+xml" },
      { type: "image", data: WAV, mimeType: "audio/wav" },
      { type: "image", data: big, mimeType: "image/png" },
      { type: "image", data: "iVBO*w==", mimeType: "image/png" },
      { type: "audio", data: PNG, mimeType: "text/html" },
    ]));
    const result = card.locator('[part~="result"]');
    assert.deepEqual(await result.locator("p").allTextContents(), [
      "Not shown: the type “image/svg+xml” is not allowed",
      "Not shown: the type “audio/wav” is not allowed",
      "Not shown: image/png larger than 4 MB",
      "Not shown: image/png data that is not base64",
      "Not shown: the type “text/html” is not allowed",
    ]);
    assert.equal(await result.locator("img, audio, a, svg, iframe, object").count(), 0, "nothing drawn");
    await assertAxeClean(s.page, "#tasks", "a card refusing hostile media");
    assert.equal(await s.page.evaluate(() => typeof window.__pwned), "undefined", "nothing ran");
  });
});

test("resource links: the address and its host are shown, nothing opens before Open, javascript: and credentials are refused", { timeout: 60_000 }, async () => {
  await withSession(suite, "results-links", {}, async (s) => {
    const show = await host(s, { "https://docs.example": "<!doctype html><title>docs</title>" });
    const card = await show(completed("links-1", [
      { type: "resource_link", uri: "https://docs.example/guide?x=1", name: "Guide" },
      { type: "resource_link", uri: "https://xn--80ak6aa92e.com/", name: "Look-alike" },
      { type: "resource_link", uri: "javascript:alert(document.domain)", name: "Run me" },
      { type: "resource_link", uri: "https://user:secret@docs.example/", name: "Creds" },
    ]));
    const links = card.locator('[part~="link"]');
    assert.equal(await links.count(), 4);
    assert.equal(await card.locator('a[href^="javascript:"], a[href*="secret"]').count(), 0, "no link to follow without the check");

    await assertAxeClean(s.page, "#tasks", "a card with resource links");

    const guide = links.nth(0);
    assert.ok((await guide.textContent()).includes("Resource: Guide"));
    assert.equal(await guide.locator('[part~="url"]').textContent(), "https://docs.example/guide?x=1");
    assert.equal(await guide.locator('[part~="domain"]').textContent(), "docs.example");
    const open = guide.getByRole("button", { name: "Open docs.example" });
    const [popup] = await Promise.all([s.context.waitForEvent("page"), open.click()]);
    await popup.waitForURL("https://docs.example/guide?x=1");
    assert.equal(popup.url(), "https://docs.example/guide?x=1", "the address checked is the one opened");
    assert.equal(await popup.evaluate(() => window.opener), null, "no way back to the page");
    await popup.close();

    const lookalike = links.nth(1);
    assert.equal(await lookalike.locator('[part~="domain-unicode"]').textContent(), "аррӏе.com", "the punycode host's other form");
    assert.ok((await lookalike.locator(".warn").count()) >= 1, "a look-alike warning");

    for (const [i, what] of [[2, "javascript:"], [3, "user info"]]) {
      const refused = links.nth(i);
      assert.equal(await refused.locator("button").count(), 0, `${what}: no Open button`);
      assert.ok((await refused.locator(".warn").count()) >= 1, `${what}: a warning says why`);
    }
    assert.equal(s.context.pages().length, 1, "nothing else opened");
  });
});

test("renderContent: the host draws the blocks it wants, the card the rest", { timeout: 30_000 }, async () => {
  await withSession(suite, "results-hook", {}, async (s) => {
    const show = await host(s);
    await s.page.evaluate(() => {
      window.__seen = [];
      window.__render = (content, index) => {
        window.__seen.push([content.type, index]);
        if (content.type !== "text") return null;
        const b = document.createElement("strong");
        b.textContent = content.text.toUpperCase();
        return b;
      };
    });
    const card = await show(completed("hook-1", [
      { type: "text", text: "**markdown**" },
      { type: "image", data: PNG, mimeType: "image/png", alt: "dot" },
    ]));
    const result = card.locator('[part~="result"]');
    assert.equal(await result.locator("strong").textContent(), "**MARKDOWN**", "the host's node");
    assert.equal(await result.locator("p").count(), 0, "instead of the card's paragraph");
    assert.equal(await result.locator("img").getAttribute("alt"), "dot", "the card draws what the host left");
    assert.deepEqual(await s.page.evaluate(() => window.__seen.slice(-2)), [["text", 0], ["image", 1]]);
  });
});
