// The <mcp-task> element in the engine of this run (ENGINE=firefox|webkit, see rig.mjs), on the host page
// tests/e2e/pages/element.html: a form answered with real clicks and key presses (WebDriver pointer
// actions and Element Send Keys on the controls inside the element's shadow root; not Element Click,
// which WebKitWebDriver refuses as "intercepted" for the card's inputs although the point it would
// click is the input itself), with the client-side validation
// refusing a bad value first; and the engine features the element uses, each asserted present and
// working (constructable stylesheets, ElementInternals with CustomStateSet and `:state()`), so that an
// engine missing one shows here by name. Their fallbacks: fallbacks.test.mjs. The Chromium version of
// the element tests is tests/e2e/element.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ENGINE, withBrowser, waitFor, assertNoPageErrors, sleep } from "./rig.mjs";
import { openElementHost, shadowControl, cardStatus, waitStatus } from "./element-rig.mjs";

test(`${ENGINE.name}: a form answered, validation first, then exactly the values typed reach the server`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    await openElementHost(browser, server.base, "form");
    const { taskId: id } = await browser.run("return window.__host.start('deploy', { service: 'api', environment: 'staging' });");
    await waitStatus(browser, id, "input_required");
    await waitFor(browser, "the approval form", "return !!document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`)?.shadowRoot?.querySelector('form[data-key=\"approval-1\"]');", [id]);

    const replicas = await shadowControl(browser, id, '[data-field="replicas"] input');
    await browser.clear(replicas);
    await browser.type(replicas, "11");
    await browser.pointerClick(await shadowControl(browser, id, '[data-field="reason"] input'));
    await browser.type(await shadowControl(browser, id, '[data-field="reason"] input'), "engine test ✓");
    await browser.pointerClick(await shadowControl(browser, id, '[data-field="strategy"] input[value="canary"]'));
    await browser.pointerClick(await shadowControl(browser, id, '[data-field="confirm"] input'));
    await browser.pointerClick(await shadowControl(browser, id, 'form[data-key="approval-1"] button[data-action="accept"]'));

    const refused = await waitFor(
      browser,
      "the replicas field's validation message",
      "const f = document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`).shadowRoot.querySelector('[data-field=\"replicas\"]'); const m = f.querySelector('[part~=\"field-error\"]')?.textContent.trim(); return m ? { message: m, invalid: f.querySelector('input').getAttribute('aria-invalid') } : null;",
      [id],
    );
    assert.equal(refused.invalid, "true", "the field is marked invalid");
    await sleep(300);
    assert.equal(server.lines("tasks/update", id).length, 0, `nothing was sent while a field is invalid (${refused.message})`);

    await browser.clear(replicas);
    await browser.type(replicas, "3");
    await browser.pointerClick(await shadowControl(browser, id, 'form[data-key="approval-1"] button[data-action="accept"]'));
    await waitStatus(browser, id, "completed", 15_000);

    const snap = await browser.run("return window.__client.tasks().find((t) => t.taskId === arguments[0]);", id);
    assert.equal(snap.status, "completed");
    const result = snap.result.structuredContent;
    assert.equal(result.deployed, true, `deployed: ${JSON.stringify(result)}`);
    assert.equal(result.strategy, "canary", "the radio clicked");
    assert.equal(result.replicas, 3, "the corrected number, as a number");
    assert.equal(result.reason, "engine test ✓", "the text typed, exactly");
    const updates = server.lines("tasks/update", id);
    assert.equal(updates.length, 1, `one tasks/update reached the server: ${updates.map((l) => l.text).join(" | ")}`);
    const sent = await browser.run("return window.__mcpRequests.filter((r) => r.method === 'tasks/update');");
    assert.equal(sent.length, 1, "the page sent one tasks/update");
    const events = await browser.run("return window.__events.filter((e) => e.taskId === arguments[0]).map((e) => e.type);", id);
    assert.ok(events.includes("mcp-task-input") && events.at(-1) === "mcp-task-settled", `the element told the page: ${events.join(", ")}`);
    const answered = await browser.run(
      "const f = document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`).shadowRoot; return { forms: f.querySelectorAll('form').length, status: f.querySelector('[part~=\"card\"]').dataset.status };",
      id,
    );
    assert.deepEqual(answered, { forms: 0, status: "completed" }, "the card shows completed and no form");
    console.error(`  ${ENGINE.name} (${browser.browser}): validation said "${refused.message}"; deployed ${JSON.stringify(result)}`);
    await assertNoPageErrors(browser);
  });
});

test(`${ENGINE.name}: the element's engine features are present and used (constructable stylesheet, :state())`, { timeout: 60_000 }, async () => {
  await withBrowser(async ({ server, browser }) => {
    await openElementHost(browser, server.base, "features");
    const features = await browser.run(`return {
      adoptedStyleSheets: "adoptedStyleSheets" in ShadowRoot.prototype && typeof CSSStyleSheet.prototype.replaceSync === "function",
      elementInternals: typeof HTMLElement.prototype.attachInternals === "function",
      customStateSet: typeof ElementInternals === "function" && "states" in ElementInternals.prototype,
      stateSelector: CSS.supports("selector(:state(x))"),
      webLocks: typeof navigator.locks?.request === "function",
      broadcastChannel: typeof BroadcastChannel === "function",
      indexedDB: typeof indexedDB === "object",
    };`);
    console.error(`  ${ENGINE.name} (${browser.browser}) features: ${JSON.stringify(features)}`);
    const missing = Object.keys(features).filter((name) => !features[name]);
    assert.deepEqual(missing, [], `${ENGINE.name} lacks ${missing.join(", ")}: test its fallback in fallbacks.test.mjs`);

    const { taskId: id } = await browser.run("return window.__host.start('build', { seconds: 2, target: 'features' });");
    await waitStatus(browser, id, "working");
    const styled = await browser.run(
      "const el = document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`); const card = el.shadowRoot.querySelector('[part~=\"card\"]'); return { sheets: el.shadowRoot.adoptedStyleSheets.length, radius: getComputedStyle(card).borderTopLeftRadius, working: el.matches(':state(working)') };",
      id,
    );
    assert.equal(styled.sheets, 1, "one adopted stylesheet in the shadow root");
    assert.equal(styled.radius, "12px", "the card is styled by it (--mcp-task-radius default)");
    assert.equal(styled.working, true, "the element matches :state(working) while working");
    await waitStatus(browser, id, "completed");
    const after = await browser.run("const el = document.querySelector(`#tasks mcp-task[data-task='${arguments[0]}']`); return { completed: el.matches(':state(completed)'), working: el.matches(':state(working)') };", id);
    assert.deepEqual(after, { completed: true, working: false }, "the state follows the task");
    assert.equal(await cardStatus(browser, id), "completed");
    await assertNoPageErrors(browser);
  });
});
