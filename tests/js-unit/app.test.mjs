// The pure parts of mcp-tasks-web/app and its sandbox proxy, from js/ in Node: which resource is an
// app's document (type, size, encoding), the Content-Security-Policy the sandbox gives it, where that
// policy goes in the document, and the inner frame's sandbox tokens.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError, MAX_APP_BYTES, appDocument } from "../../js/element/app.js";
import { cspFor, sandboxFor, withCsp } from "../../js/element/sandbox.js";

const URI = "ui://s/app.html";
const MIME = "text/html;profile=mcp-app";
/** A `resources/read` result of one content. */
const read = (content) => ({ contents: [{ uri: URI, ...content }] });
/** The AppError code `f` throws. */
const codeOf = (f) => {
  try {
    f();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error.code;
  }
  return "none";
};

test("an app's document is text/html;profile=mcp-app text or base64 blob, with its _meta.ui", () => {
  const ui = { csp: { connectDomains: ["https://api.example.com"] } };
  assert.deepEqual(appDocument(read({ mimeType: MIME, text: "<p>hi</p>", _meta: { ui } }), URI), {
    html: "<p>hi</p>",
    ui,
  });
  const blob = Buffer.from("<p>é</p>").toString("base64");
  assert.equal(
    appDocument(read({ mimeType: "text/html; profile=mcp-app", blob }), URI).html,
    "<p>é</p>",
    "UTF-8, type spaced",
  );
  const two = {
    contents: [
      { uri: "ui://s/other", mimeType: "text/plain", text: "x" },
      { uri: URI, mimeType: MIME, text: "mine" },
    ],
  };
  assert.equal(appDocument(two, URI).html, "mine", "the content of the URI asked for");
});

test("anything else is refused with a typed error", () => {
  assert.equal(
    codeOf(() => appDocument(read({ mimeType: "text/html", text: "<p>hi</p>" }), URI)),
    "not_an_app",
  );
  assert.equal(
    codeOf(() => appDocument(read({ text: "<p>hi</p>" }), URI)),
    "not_an_app",
  );
  assert.equal(
    codeOf(() => appDocument({ contents: [] }, URI)),
    "not_an_app",
  );
  assert.equal(
    codeOf(() => appDocument(read({ mimeType: MIME }), URI)),
    "not_an_app",
  );
  assert.equal(
    codeOf(() => appDocument(read({ mimeType: MIME, blob: "%%%" }), URI)),
    "not_an_app",
  );
  assert.equal(
    codeOf(() => appDocument(read({ mimeType: MIME, text: "é".repeat(MAX_APP_BYTES / 2 + 1) }), URI)),
    "too_large",
  );
  assert.equal(
    codeOf(() => appDocument(read({ mimeType: MIME, blob: "A".repeat(MAX_APP_BYTES * 2) }), URI)),
    "too_large",
  );
  assert.equal(
    codeOf(() => appDocument(read({ mimeType: MIME, text: "a".repeat(MAX_APP_BYTES) }), URI)),
    "none",
    "exactly the cap is shown",
  );
});

test("the app's policy is the Apps spec's default, widened only by well-formed origins", () => {
  const none = cspFor(undefined);
  assert.match(none, /^default-src 'none'; script-src 'self' 'unsafe-inline'; /);
  assert.match(none, /connect-src 'none'/);
  assert.match(none, /frame-src 'none'/);
  const some = cspFor({
    connectDomains: ["https://api.example.com", "wss://live.example.com"],
    resourceDomains: [
      "https://*.cdn.example.com",
      "https://x.example.com; script-src *",
      "'unsafe-eval'",
      "*",
      "data:",
    ],
    frameDomains: ["https://www.youtube.com"],
  });
  assert.match(some, /connect-src https:\/\/api\.example\.com wss:\/\/live\.example\.com(;|$)/);
  assert.match(some, /script-src 'self' 'unsafe-inline' https:\/\/\*\.cdn\.example\.com;/);
  assert.match(some, /frame-src https:\/\/www\.youtube\.com;/);
  assert.ok(!some.includes("unsafe-eval") && !some.includes("script-src *") && !/ \*( |;)/.test(some), some);
});

test("the policy goes first in the document's head, and the inner frame never gets allow-same-origin", () => {
  const meta = (p) => `<meta http-equiv="Content-Security-Policy" content="${p}">`;
  assert.equal(
    withCsp("<!doctype html><html><HEAD lang=x><title>t</title>", "a"),
    `<!doctype html><html><HEAD lang=x>${meta("a")}<title>t</title>`,
  );
  assert.equal(withCsp("<html><body>x", "a"), `<html>${meta("a")}<body>x`);
  assert.equal(withCsp("<p>x</p>", `a "b"`), `${meta("a &quot;b&quot;")}<p>x</p>`);
  assert.equal(sandboxFor(undefined), "allow-scripts");
  assert.equal(
    sandboxFor("allow-scripts allow-same-origin allow-top-navigation allow-forms allow-popups"),
    "allow-scripts allow-forms",
  );
});
