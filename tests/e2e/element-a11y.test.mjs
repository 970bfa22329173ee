// End-to-end accessibility and environment tests of the <mcp-task> web component (docs/element.md) in
// real headless Chromium: axe-core (@axe-core/playwright, shadow DOM included) in every state, a
// keyboard-only approval, a phone (375 px, touch, 2x), the reference server's strict CSP, and Thai.
// The form behaviour itself is tested in element.test.mjs; the rig is element-rig.mjs.
//
// Run from the repo root after `cargo xtask build` and `cargo build -p mcp-tasks-server`:
//   node --test tests/e2e/
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { elementSuite, withSession, assertAxeClean, until, sleep } from "./element-rig.mjs";
import { deepActive, STRICT_CSP } from "./rig.mjs";

let suite;
before(async () => {
  suite = await elementSuite();
});
after(async () => {
  await suite?.close();
});

const texts = (locator) => locator.evaluateAll((els) => els.map((e) => e.textContent.trim()).filter(Boolean).join(" | "));
const one = async (locator) => (await locator.textContent()).trim();
const sel = (id) => `#tasks mcp-task[data-task="${id}"]`;

test("axe-core: no violations in the working, input, invalid input, completed, failed, tool error and cancelled states", { timeout: 90_000 }, async (t) => {
  await withSession(suite, "axe", {}, async (s) => {
    await s.open();
    const working = await s.start("long_job", { seconds: 120 });
    const input = await s.start("survey");
    const invalid = await s.start("survey");
    const completed = await s.start("build", { seconds: 0.2, target: "axe" });
    const failed = await s.start("flaky", { seconds: 0.2 });
    const toolError = await s.start("tool_error");
    await s.status(working, "working");
    await s.form(input, "survey-1").waitFor();
    await s.form(invalid, "survey-1").waitFor();
    await s.button(invalid, "accept").click(); // required fields empty: error messages shown
    await s.field(invalid, "email").locator('[part~="field-error"]').filter({ hasText: /\S/ }).waitFor();
    await s.status(completed, "completed");
    await s.status(failed, "failed");
    await s.task(failed).locator('[part~="error"]').filter({ hasText: /\S/ }).waitFor();
    await s.settled(toolError);
    await s.task(toolError).locator('[part~="result"]').waitFor();
    assert.match(await texts(s.task(failed).locator('[part~="error"]')), /build cache unavailable/, "the failed task's error");
    await t.test("an isError result is shown in part=error", async () => {
      const error = await texts(s.task(toolError).locator('[part~="error"]'));
      const result = await texts(s.task(toolError).locator('[part~="result"]'));
      assert.match(error, /\S/, `part="error" shows the isError result (it is empty; part="result" shows: ${result.slice(0, 160)})`);
    });

    for (const [state, id] of [["working", working], ["input", input], ["invalid input", invalid], ["completed", completed], ["failed", failed], ["tool error", toolError]]) {
      await t.test(`${state}`, async () => {
        await assertAxeClean(s.page, sel(id), `the ${state} task`);
      });
    }
    await t.test("cancelled", async () => {
      await s.button(working, "cancel-task").click();
      await s.status(working, "cancelled");
      await assertAxeClean(s.page, sel(working), "the cancelled task");
    });
    await t.test("the whole page", async () => {
      await assertAxeClean(s.page, null, "the page with every state");
    });
  });
});

test("keyboard only: focus moves into the form, and a deploy approval is completed with Tab, Space, arrows and Enter", { timeout: 40_000 }, async () => {
  await withSession(suite, "keyboard", {}, async (s) => {
    const { page } = s;
    await s.open({ tool: "deploy", args: JSON.stringify({ service: "api", environment: "staging" }) });
    const id = await until(() => page.evaluate(() => window.__host.started[0]?.taskId ?? null), "the deploy task id");
    await s.form(id, "approval-1").waitFor();
    await sleep(250);
    const first = await deepActive(page);
    const movedIn = first?.formKey === "approval-1";

    const KEY = "approval-1";
    const describe = (a) => (a ? `${a.hostChain.join(">")}${a.hostChain.length ? ">" : ""}${a.tag}${a.field ? `[field=${a.field}]` : ""}${a.type ? `[type=${a.type}]` : ""}${a.action ? `[action=${a.action}]` : ""}${a.id && !a.formKey ? `#${a.id}` : ""}` : "null");
    // Keyboard only from here: reading where the focus is decides which key to press next.
    if (!movedIn) {
      for (let i = 0; i < 40 && (await deepActive(page))?.formKey !== KEY; i++) await page.keyboard.press("Tab");
    }
    const done = { confirm: false, reason: false, replicas: false, strategy: false };
    const visited = [];
    let submitted = false;
    let shiftTabChecked = false;
    for (let step = 0; step < 60 && !submitted; step++) {
      const a = await deepActive(page);
      if (visited.at(-1) !== describe(a)) visited.push(describe(a));
      if (a?.formKey !== KEY) {
        await page.keyboard.press("Tab");
        continue;
      }
      if (a.field === "confirm" && a.type === "checkbox" && !a.checked) {
        await page.keyboard.press("Space");
        done.confirm = true;
        continue;
      }
      if (a.field === "reason" && !done.reason) {
        await page.keyboard.type("ship it");
        done.reason = true;
      } else if (a.field === "replicas" && !done.replicas) {
        await page.keyboard.press("ArrowUp"); // 2 → 3
        done.replicas = true;
      } else if (a.field === "strategy" && a.type === "radio" && !done.strategy) {
        await page.keyboard.press("ArrowDown"); // rolling → blue-green
        done.strategy = true;
        continue;
      } else if (a.action === "accept" && Object.values(done).every(Boolean)) {
        if (!shiftTabChecked) {
          // Shift+Tab goes back to the control before Accept, Tab returns.
          const before = visited.filter((v) => v !== describe(a)).at(-1);
          await page.keyboard.press("Shift+Tab");
          const back = describe(await deepActive(page));
          assert.equal(back, before, `Shift+Tab from Accept returns to the previous control (visited: ${visited.join(" → ")})`);
          await page.keyboard.press("Tab");
          assert.equal((await deepActive(page))?.action, "accept", "Tab comes back to Accept");
          shiftTabChecked = true;
        }
        const state = await s.form(id, KEY).evaluate((f) => ({
          confirm: f.querySelector('[data-field="confirm"] input')?.checked,
          reason: f.querySelector('[data-field="reason"] input')?.value,
          replicas: f.querySelector('[data-field="replicas"] input')?.value,
          strategy: f.querySelector('[data-field="strategy"] input:checked')?.value,
        }));
        assert.deepEqual(state, { confirm: true, reason: "ship it", replicas: "3", strategy: "blue-green" }, "the keys set the form");
        await page.keyboard.press("Enter");
        submitted = true;
        break;
      }
      await page.keyboard.press("Tab");
    }
    assert.ok(submitted, `reached Accept with every field set (${JSON.stringify(done)}); focus went: ${visited.join(" → ")}`);
    const order = ["confirm", "reason", "replicas", "strategy"].map((n) => visited.findIndex((v) => v.includes(`[field=${n}]`)));
    const accept = visited.findIndex((v) => v.includes("[action=accept]"));
    assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])) && accept > order[3], `tab order confirm, reason, replicas, strategy, Accept: ${visited.join(" → ")}`);

    const result = await s.settled(id, 15_000);
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    const sc = result.result.structuredContent;
    assert.deepEqual({ deployed: sc.deployed, strategy: sc.strategy, replicas: sc.replicas, reason: sc.reason }, { deployed: true, strategy: "blue-green", replicas: 3, reason: "ship it" });
    console.error(`  keyboard: focus ${movedIn ? "moved into the form by itself" : "did NOT move into the form"} (${describe(first)}); path: ${visited.join(" → ")}; after Accept: ${describe(await deepActive(page))}`);
    assert.ok(movedIn, `when input is needed, focus moves into the form (the active element was ${describe(first)})`);
  });
});

test("phone (375×740, touch, 2x): axe clean, 44 px buttons, no horizontal overflow, a form answered by tapping", { timeout: 40_000 }, async () => {
  const phone = { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
  await withSession(suite, "phone", phone, async (s) => {
    const { page } = s;
    await s.open();
    const id = await s.start("survey");
    await s.form(id, "survey-1").waitFor();

    const fits = async (what) => {
      const m = await s.task(id).locator('[part~="card"]').evaluate((card) => ({ scrollWidth: card.scrollWidth, clientWidth: card.clientWidth }));
      assert.ok(m.scrollWidth <= m.clientWidth, `${what}: the card does not overflow horizontally (${JSON.stringify(m)})`);
      const doc = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
      assert.ok(doc.scrollWidth <= doc.innerWidth, `${what}: the page does not scroll sideways (${JSON.stringify(doc)})`);
    };
    const bigButtons = async (what) => {
      const buttons = s.task(id).locator("button");
      const small = [];
      let seen = 0;
      for (let i = 0; i < (await buttons.count()); i++) {
        const b = buttons.nth(i);
        if (!(await b.isVisible())) continue;
        seen += 1;
        const box = await b.boundingBox();
        if (!box || box.width < 44 || box.height < 44) small.push(`${await b.getAttribute("data-action")} "${(await b.textContent()).trim()}" ${box?.width}×${box?.height}`);
      }
      assert.deepEqual(small, [], `${what}: every button is at least 44×44 CSS px`);
      return seen;
    };

    await assertAxeClean(page, sel(id), "the input form on a phone");
    assert.ok((await bigButtons("input")) >= 3, "Accept, Decline, Cancel are visible");
    await fits("input");

    await s.field(id, "email").locator("input").tap();
    await s.field(id, "email").locator("input").fill("phone@example.com");
    await s.field(id, "topics").getByRole("checkbox", { name: "Rust" }).tap();
    await s.field(id, "size").getByRole("radio", { name: "Small" }).tap();
    assert.equal(await s.field(id, "topics").getByRole("checkbox", { name: "Rust" }).isChecked(), true, "tapping checked Rust");
    await s.button(id, "accept").tap();

    const done = await s.settled(id);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.result.structuredContent, {
      action: "accept",
      content: { email: "phone@example.com", nickname: "sam", count: 3, subscribe: false, size: "s", topics: ["rust"] },
    }, "what was tapped and typed, plus the pre-filled defaults; empty optional fields left out");
    await s.status(id, "completed");
    await fits("completed");
    await bigButtons("completed");
  });
});

test("strict CSP: served as a header, and the element runs under it with no violation", { timeout: 40_000 }, async () => {
  await withSession(suite, "csp", {}, async (s) => {
    const { page } = s;
    const response = await s.open();
    assert.equal(response.headers()["content-security-policy"], STRICT_CSP, "the page response carries the strict CSP header");
    const element = await page.request.get(`${s.server.base}/pkg/element.js`);
    assert.equal(element.status(), 200, "/pkg/element.js is served");
    assert.equal(element.headers()["content-security-policy"], STRICT_CSP);

    // The pipeline works: an inline script is refused and reported (then forgotten by this test).
    await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.__inline = 1";
      document.head.append(script);
    });
    await until(() => s.csp.length > 0, "the probe's violation report");
    assert.equal(await page.evaluate(() => typeof window.__inline), "undefined", "CSP blocked the inline script");
    assert.equal(s.csp.length, 1, JSON.stringify(s.csp));
    assert.equal(s.csp[0].directive.startsWith("script-src"), true);
    await sleep(100);
    s.csp.length = 0;
    await page.evaluate(() => { window.__csp.length = 0; });
    for (let i = s.errors.length - 1; i >= 0; i--) if (/Content Security Policy/.test(s.errors[i])) s.errors.splice(i, 1);

    // Every kind of view: form (answered), URL mode, working with progress, completed, failed.
    const survey = await s.start("survey");
    const login = await s.start("login");
    const build = await s.start("build", { seconds: 0.5, target: "csp" });
    const flaky = await s.start("flaky", { seconds: 0.3 });
    const working = await s.start("long_job", { seconds: 60 });
    await s.form(survey, "survey-1").waitFor();
    await s.task(login).locator('[part~="url"]').waitFor();
    await s.task(working).locator('[part~="progress"]').waitFor();
    await s.field(survey, "email").locator("input").fill("csp@example.com");
    await s.field(survey, "topics").getByRole("checkbox", { name: "The web" }).check();
    await s.button(survey, "accept").click();
    await s.settled(survey);
    await s.settled(build);
    await s.settled(flaky);
    await s.status(survey, "completed");
    await sleep(1200); // the elapsed clock ticks, the JSON result renders

    const styled = await s.task(survey).evaluate((el) => ({
      adopted: el.shadowRoot.adoptedStyleSheets.length,
      links: el.shadowRoot.querySelectorAll('link[rel="stylesheet"]').length,
      styleElements: el.shadowRoot.querySelectorAll("style").length,
      styleAttributes: el.shadowRoot.querySelectorAll("[style]").length,
    }));
    assert.ok(styled.adopted > 0 || styled.links > 0, `the shadow root is styled by an allowed sheet: ${JSON.stringify(styled)}`);
    assert.deepEqual(await page.evaluate(() => window.__csp), [], "no securitypolicyviolation on the page");
    assert.deepEqual(s.csp, [], "none reported either");
    console.error(`  csp: shadow styles ${JSON.stringify(styled)}`);
  });
});

test("lang=\"th\": Thai status words, buttons and messages", { timeout: 40_000 }, async () => {
  await withSession(suite, "thai", {}, async (s) => {
    await s.open({ lang: "th" });
    assert.equal(await s.page.evaluate(() => document.documentElement.lang), "th");
    const working = await s.start("long_job", { seconds: 60 });
    const deploy = await s.start("deploy", { service: "api", environment: "staging" });
    const survey = await s.start("survey");
    const status = (id) => one(s.task(id).locator('[part~="status"]'));

    await s.status(working, "working");
    assert.equal(await status(working), "กำลังทำงาน");
    assert.equal(await one(s.button(working, "cancel-task")), "ยกเลิกงาน");

    await s.form(deploy, "approval-1").waitFor();
    assert.equal(await status(deploy), "รอข้อมูลจากคุณ");
    assert.equal(await one(s.button(deploy, "accept")), "ยอมรับ");
    assert.equal(await one(s.button(deploy, "decline")), "ปฏิเสธ");
    assert.equal(await one(s.button(deploy, "cancel")), "ยกเลิก");

    await s.form(survey, "survey-1").waitFor();
    await s.button(survey, "accept").click();
    const emailError = s.field(survey, "email").locator('[part~="field-error"]');
    await emailError.filter({ hasText: /\S/ }).waitFor();
    assert.equal(await texts(emailError), "กรุณากรอกช่องนี้", "problem.required in Thai");

    await s.button(deploy, "decline").click();
    await s.status(deploy, "failed");
    assert.equal(await status(deploy), "ล้มเหลว");
    await s.button(survey, "decline").click();
    await s.status(survey, "completed");
    assert.equal(await status(survey), "เสร็จสมบูรณ์");
    await s.button(working, "cancel-task").click();
    await s.status(working, "cancelled");
    assert.equal(await status(working), "ยกเลิกแล้ว");
  });
});
