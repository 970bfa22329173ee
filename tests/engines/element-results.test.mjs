// Results drawn in <mcp-task> in the engine of this run (ENGINE=firefox|webkit, see rig.mjs): an image
// and audio from `blob:` URLs, an embedded binary as a download link, a resource link behind its checked
// Open button, and hostile content refused with words. The Chromium version, which also waits for the
// media to load, clicks the download and opens the link: tests/e2e/element-results.test.mjs.
//
// What this checks is what the card draws and that every `blob:` URL it made is revoked when the card
// leaves the page (URL.createObjectURL and revokeObjectURL are watched). The results are handed to the card as a `task` event of its client, as in the Chromium test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENGINE, withBrowser, waitFor, assertNoPageErrors } from "./rig.mjs";
import { openElementHost } from "./element-rig.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>window.__pwned=1</script></svg>').toString("base64");

/** Mounts a card for a completed task with `content`, watching the blob: URLs made and revoked. */
const SHOW = `
  const [taskId, content] = arguments;
  if (!window.__blobs) {
    window.__blobs = { made: [], revoked: [] };
    const make = URL.createObjectURL.bind(URL);
    const revoke = URL.revokeObjectURL.bind(URL);
    URL.createObjectURL = (o) => { const u = make(o); window.__blobs.made.push(u); return u; };
    URL.revokeObjectURL = (u) => { window.__blobs.revoked.push(u); revoke(u); };
    const client = window.__client;
    const listen = client.addEventListener.bind(client);
    client.__taskListeners = [];
    client.addEventListener = (type, listener, options) => {
      if (type === "task") client.__taskListeners.push(listener);
      return listen(type, listener, options);
    };
  }
  const client = window.__client;
  const card = document.createElement("mcp-task");
  card.dataset.task = taskId;
  card.client = client;
  card.taskId = taskId;
  document.querySelector("#tasks").append(card);
  const snapshot = {
    taskId, toolName: "render", status: "completed", statusMessage: "done",
    createdAt: "2026-12-02T10:00:00Z", lastUpdatedAt: "2026-12-02T10:00:02Z",
    inputRequests: {}, result: { content }, error: null, connectivity: "online",
    cancelRequested: false, expired: null, restored: false,
  };
  for (const listener of client.__taskListeners) listener(new CustomEvent("task", { detail: snapshot }));
  return true;`;

/** What the card of `taskId` drew in its result. */
const DRAWN = `
  const root = document.querySelector("#tasks mcp-task[data-task='" + arguments[0] + "']")?.shadowRoot;
  const result = root?.querySelector('[part~="result"]');
  if (!result || result.hidden) return null;
  return {
    texts: [...result.querySelectorAll(":scope > p")].map((p) => p.textContent),
    images: [...result.querySelectorAll("img")].map((i) => [i.alt, i.src.slice(0, 5)]),
    audio: [...result.querySelectorAll("audio")].map((a) => [a.getAttribute("aria-label"), a.controls, a.src.slice(0, 5)]),
    downloads: [...result.querySelectorAll("a[download]")].map((a) => [a.textContent, a.download, a.href.slice(0, 5)]),
    links: [...result.querySelectorAll('[part~="link"]')].map((l) => [l.querySelector('[part~="domain"]').textContent, l.querySelector("button")?.textContent ?? null, l.querySelectorAll(".warn").length]),
    anchors: result.querySelectorAll("a:not([download])").length,
  };`;

test(`${ENGINE.name}: results drawn (image, audio, download, link), hostile ones refused, blob: URLs revoked when the card goes`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    await openElementHost(browser, server.base, "results");
    await browser.run(SHOW, "r1", [
      { type: "text", text: "<b>text</b>" },
      { type: "image", data: PNG, mimeType: "image/png", alt: "A dot" },
      { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///out/report.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } },
      { type: "resource_link", uri: "https://docs.example/guide", name: "Guide" },
      { type: "resource_link", uri: "javascript:alert(1)", name: "Run" },
      { type: "image", data: SVG, mimeType: "image/svg+xml" },
      { type: "image", data: "A".repeat(4 * 1024 * 1024 / 3 * 4 + 8), mimeType: "image/png" },
    ]);
    const drawn = await waitFor(browser, "the result drawn", DRAWN, ["r1"]);
    assert.deepEqual(drawn.texts, [
      "<b>text</b>",
      "Not shown: the type “image/svg+xml” is not allowed",
      "Not shown: image/png larger than 4 MB",
    ]);
    assert.deepEqual(drawn.images, [["A dot", "blob:"]]);
    assert.deepEqual(drawn.audio, [["Audio (audio/wav)", true, "blob:"]]);
    assert.deepEqual(drawn.downloads, [["Download report.pdf (application/pdf)", "report.pdf", "blob:"]]);
    assert.deepEqual(drawn.links, [["docs.example", "Open docs.example", 0], ["", null, 1]], "javascript: has no Open, and a warning");
    assert.equal(drawn.anchors, 0, "no link to follow without the check");
    assert.equal(await browser.run("return typeof window.__pwned;"), "undefined");

    const blobs = await browser.run("return window.__blobs;");
    assert.equal(blobs.made.length, 3, "one blob: URL per image, audio and download");
    assert.deepEqual(blobs.revoked, [], "none revoked while shown");
    await browser.run("document.querySelector(\"#tasks mcp-task[data-task='r1']\").remove();");
    const after = await browser.run("return window.__blobs;");
    assert.deepEqual([...after.revoked].sort(), [...after.made].sort(), "every one revoked when the card goes");
    await assertNoPageErrors(browser, "the element host");
  });
});
