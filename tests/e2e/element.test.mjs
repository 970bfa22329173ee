// End-to-end tests of the <mcp-task> / <mcp-task-list> web component (docs/element.md) in real headless
// Chromium (playwright-core, the system /usr/bin/chromium): the `survey` form's controls, validation and
// verbatim answers, Decline / Cancel, hostile server text, reload while a form is shown and right after
// Accept, sampling/roots notes, URL mode, a host that takes over answering (preventDefault), cancelling
// a task, and the list's order. Accessibility, keyboard, phone, CSP and Thai: element-a11y.test.mjs.
//
// Run from the repo root after `cargo xtask build` and `cargo build -p mcp-tasks-server`:
//   node --test tests/e2e/
// One reference server and one browser for the file; every test gets a fresh browser context on
// tests/e2e/pages/element.html (see element-rig.mjs), and ends asserting no console error, uncaught
// error or CSP violation. What reached the server is counted in its stderr request log.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { elementSuite, withSession, until, sleep } from "./element-rig.mjs";
import { startServer } from "./rig.mjs";

let suite;
before(async () => {
  suite = await elementSuite();
});
after(async () => {
  await suite?.close();
});

const SURVEY = "survey-1";

/** The trimmed text of every node `locator` matches, joined by " | ". */
const texts = (locator) => locator.evaluateAll((els) => els.map((e) => e.textContent.trim()).filter(Boolean).join(" | "));

/** A form control as plain data, with the texts of its labels and of what aria-describedby points at. */
const control = (locator) =>
  locator.evaluate((el) => {
    const root = el.getRootNode();
    const ref = (attr) => (el.getAttribute(attr) || "").split(/\s+/).filter(Boolean).map((id) => root.getElementById?.(id)?.textContent.trim() ?? `(#${id} missing)`);
    return {
      tag: el.localName,
      type: el.getAttribute("type"),
      name: el.getAttribute("name"),
      id: el.id,
      value: "value" in el ? el.value : null,
      checked: "checked" in el ? el.checked : null,
      min: el.getAttribute("min"),
      max: el.getAttribute("max"),
      step: el.getAttribute("step"),
      ariaRequired: el.getAttribute("aria-required"),
      ariaInvalid: el.getAttribute("aria-invalid"),
      labels: [...(el.labels ?? [])].map((l) => l.textContent.trim()),
      described: ref("aria-describedby"),
    };
  });

/**
 * How the field shows it is required: `aria` (aria-required="true" or `required` on the field or a
 * control in it) and `mark` (its label or legend text ends with "*").
 */
const requiredMarks = (field) =>
  field.evaluate((f) => ({
    aria: !!(f.matches('[aria-required="true"], [required]') || f.querySelector('[aria-required="true"], [required]')),
    mark: /\*\s*$/.test((f.querySelector("legend") ?? f.querySelector("label"))?.textContent ?? ""),
  }));

/** The field's validation message ("" when none). */
const fieldError = (field) => texts(field.locator('[part~="field-error"]'));

/** Every element with tag `tag` in the page, its shadow roots included (recursively). */
const deepCount = (page, tag) =>
  page.evaluate((t) => {
    let n = 0;
    const walk = (root) => {
      n += root.querySelectorAll(t).length;
      for (const el of root.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return n;
  }, tag);

test("survey: numbers reach the server as typed, not rewritten the way JavaScript reads them", { timeout: 60_000 }, async () => {
  await withSession(suite, "survey-numbers", {}, async (s) => {
    await s.open();
    const updates = [];
    s.page.on("request", (request) => {
      const body = request.method() === "POST" && request.url().endsWith("/mcp") ? request.postData() ?? "" : "";
      if (body.includes('"tasks/update"')) updates.push(body);
    });
    const id = await s.start("survey");
    await s.form(id, SURVEY).waitFor();
    const f = (name) => s.field(id, name);
    await f("email").locator("input").fill("ada@example.com");
    await f("rating").locator("input").fill("4.50"); // JSON.parse + JSON.stringify would send 4.5
    await f("count").locator("input").fill("7.0"); // an integer field: sent as the plain integer 7
    await f("topics").getByRole("checkbox", { name: "Rust" }).check();
    await s.button(id, "accept").click();
    assert.equal((await s.settled(id)).status, "completed");
    assert.equal(updates.length, 1, "one tasks/update");
    assert.match(updates[0], /"rating":4\.50[,}]/, `the rating as typed: ${updates[0]}`);
    assert.match(updates[0], /"count":7[,}]/, `the count as a plain integer: ${updates[0]}`);
  });
});

test("survey: every field type renders, client-side validation blocks sending, Accept sends exactly what was typed", { timeout: 60_000 }, async (t) => {
  await withSession(suite, "survey", {}, async (s) => {
    await s.open();
    const id = await s.start("survey");
    await s.form(id, SURVEY).waitFor();
    const f = (name) => s.field(id, name);

    await t.test("controls, labels, defaults and required marks", async () => {
      // Every check runs; the differences from the contract are reported together at the end.
      const problems = [];
      const expect = {
        equal(actual, expected, what) {
          if (!isDeepStrictEqual(actual, expected)) problems.push(`${what ?? "value"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
        },
        ok(value, what) {
          if (!value) problems.push(what);
        },
        match(text, re, what) {
          if (!re.test(text)) problems.push(`${what ?? re}: ${JSON.stringify(text)} does not match ${re}`);
        },
      };
      const form = s.form(id, SURVEY);
      expect.equal(await form.getAttribute("data-mode"), "form");
      expect.match(await texts(s.task(id).locator('[part~="prompt"]')), /Survey: tell us about yourself/);
      expect.equal(await s.task(id).locator('[part~="message"]').getAttribute("aria-live"), "polite", "the status message is a polite live region");
      expect.match(await texts(s.task(id).locator('[part~="status"]')), /Needs your input/);
      expect.equal(await s.task(id).locator('[part~="title"]').textContent().then((x) => x.trim()), "survey");

      const fields = await s.task(id).locator('[part~="field"]').evaluateAll((els) => els.map((e) => e.dataset.field));
      expect.equal(fields, ["email", "website", "birthday", "nickname", "rating", "count", "subscribe", "size", "country", "topics"], "one field per property, in schema order");

      const expectInput = async (name, type, extra = {}) => {
        const inputs = f(name).locator("input, select, textarea");
        assert.equal(await inputs.count(), 1, `${name}: one control`);
        const c = await control(inputs);
        expect.equal(c.tag, "input", `${name}: an <input>`);
        expect.equal(c.type, type, `${name}: type=${type}`);
        expect.equal(c.name, name, `${name}: name is the property`);
        expect.ok(c.id, `${name}: has an id`);
        expect.ok(c.labels.length >= 1, `${name}: has a <label for>`);
        for (const [k, v] of Object.entries(extra)) expect.equal(c[k], v, `${name}: ${k}`);
        return c;
      };
      const email = await expectInput("email", "email", { value: "", ariaRequired: "true" });
      expect.match(email.labels.join(" "), /Email/);
      expect.ok(email.described.some((d) => d.includes("Where we send the summary")), `email: aria-describedby points at its description (${JSON.stringify(email.described)})`);
      await expectInput("website", "url", { value: "" });
      await expectInput("birthday", "date", { value: "" });
      await expectInput("nickname", "text", { value: "sam" });
      await expectInput("rating", "number", { min: "0", max: "5", value: "" });
      const count = await expectInput("count", "number", { min: "1", max: "10", value: "3" });
      expect.ok(count.step === "1" || count.step === null, `count (integer): step 1 (got ${count.step})`);
      await expectInput("subscribe", "checkbox", { checked: false });

      // A titled single select with 3 options: a radio group in a fieldset, the default checked.
      const isFieldset = (field) => field.evaluate((e) => e.localName === "fieldset" || e.querySelectorAll("fieldset").length === 1);
      expect.ok(await isFieldset(f("size")), "size: a <fieldset>");
      expect.match(await texts(f("size").locator("legend")), /Size/);
      const radios = await f("size").locator('input[type="radio"]').evaluateAll((els) => els.map((e) => ({ name: e.name, checked: e.checked, label: [...e.labels].map((l) => l.textContent.trim()).join(" ") })));
      expect.equal(radios.map((r) => r.label), ["Small", "Medium", "Large"], "size: one radio per option, labelled by title");
      expect.equal(radios.map((r) => r.name), ["size", "size", "size"], "size: name is the property");
      expect.equal(radios.map((r) => r.checked), [false, true, false], "size: the default (m) is checked");
      expect.equal(await f("size").getByRole("radio", { name: "Medium" }).isChecked(), true);

      // 8 options: a <select>, nothing chosen (no default).
      expect.equal(await f("country").locator("select").count(), 1, "country: a <select>");
      const country = await control(f("country").locator("select"));
      expect.equal(country.name, "country");
      expect.ok(country.labels.length >= 1, "country: labelled");
      expect.equal(country.value, "", "country: no option chosen (there is no default)");
      const countryOptions = await f("country").locator("option").evaluateAll((els) => els.filter((e) => e.value !== "").map((e) => e.textContent.trim()));
      expect.equal(countryOptions, ["Thailand", "Japan", "Germany", "Brazil", "Kenya", "Canada", "India", "Australia"]);

      // A multi select: a checkbox group in a fieldset, nothing checked.
      expect.ok(await isFieldset(f("topics")), "topics: a <fieldset>");
      const topics = await f("topics").locator('input[type="checkbox"]').evaluateAll((els) => els.map((e) => ({ name: e.name, checked: e.checked, label: [...e.labels].map((l) => l.textContent.trim()).join(" ") })));
      expect.equal(topics.map((x) => x.label), ["Rust", "WebAssembly", "The web", "MCP"]);
      expect.ok(topics.every((x) => !x.checked), "topics: nothing checked");
      expect.equal(topics.map((x) => x.name), ["topics", "topics", "topics", "topics"], "topics: name is the property");

      // Required: a visible mark on every required field; aria-required where ARIA allows it (a text
      // input, a radiogroup; not a group of checkboxes).
      for (const name of ["email", "size", "topics"]) expect.equal((await requiredMarks(f(name))).mark, true, `${name} shows a required mark`);
      for (const name of ["email", "size"]) expect.equal((await requiredMarks(f(name))).aria, true, `${name} has aria-required`);
      for (const name of ["website", "nickname", "rating", "subscribe", "country"]) expect.equal(await requiredMarks(f(name)), { aria: false, mark: false }, `${name} is not marked required`);
      for (const action of ["accept", "decline", "cancel"]) expect.equal(await s.button(id, action).count(), 1, `a ${action} button`);
      assert.deepEqual(problems, [], `differences from docs/element.md:\n  ${problems.join("\n  ")}`);
    });

    await t.test("validation: messages next to the fields, nothing sent", async () => {
      await s.button(id, "accept").click();
      await until(async () => (await fieldError(f("email"))) && (await fieldError(f("topics"))), "errors on email and topics");
      assert.equal(await fieldError(f("email")), "This field is required.", "missing required email: problem.required");
      assert.equal(await f("email").locator("input").getAttribute("aria-invalid"), "true");
      const describedEmail = await control(f("email").locator("input"));
      assert.ok(describedEmail.described.includes("This field is required."), `the error is in aria-describedby: ${JSON.stringify(describedEmail.described)}`);
      assert.notEqual(await fieldError(f("topics")), "", "too few topics (none)");
      for (const name of ["website", "nickname", "rating", "count", "size", "country"]) assert.equal(await fieldError(f(name)), "", `no error on ${name}`);

      await f("email").locator("input").fill("not-an-email");
      await f("rating").locator("input").fill("7");
      for (const topic of ["Rust", "WebAssembly", "The web", "MCP"]) await f("topics").getByRole("checkbox", { name: topic }).check();
      await s.button(id, "accept").click();
      await until(async () => (await fieldError(f("rating"))) !== "", "an error on rating");
      const emailError = await fieldError(f("email"));
      assert.ok(emailError && emailError !== "This field is required.", `bad email has a format message (${emailError})`);
      assert.notEqual(await fieldError(f("rating")), "", "rating above the maximum");
      assert.equal(await f("rating").locator("input").getAttribute("aria-invalid"), "true");
      assert.notEqual(await fieldError(f("topics")), "", "too many topics (4 > 3)");

      await sleep(500);
      assert.deepEqual(await s.events(id, "mcp-task-input"), [], "no mcp-task-input event for an invalid form");
      assert.deepEqual(s.sent("tasks/update", id), [], "the page sent no tasks/update");
      assert.deepEqual(s.updates(id).map((l) => l.text), [], "no tasks/update reached the server");
      assert.equal(await s.form(id, SURVEY).count(), 1, "the form is still shown");
    });

    await t.test("valid answers: Accept sends them verbatim (numbers as numbers, topics as an array)", async () => {
      await f("email").locator("input").fill("ada@example.com");
      await f("website").locator("input").fill("https://example.com/ada");
      await f("birthday").locator("input").fill("1990-12-10");
      await f("nickname").locator("input").fill("Ada");
      await f("rating").locator("input").fill("4.5");
      await f("count").locator("input").fill("7");
      await f("subscribe").locator("input").check();
      await f("size").getByRole("radio", { name: "Large" }).check();
      await f("country").locator("select").selectOption({ label: "Japan" });
      await f("topics").getByRole("checkbox", { name: "WebAssembly" }).uncheck();
      await f("topics").getByRole("checkbox", { name: "The web" }).uncheck();
      await s.button(id, "accept").click();

      const expected = {
        email: "ada@example.com", website: "https://example.com/ada", birthday: "1990-12-10", nickname: "Ada",
        rating: 4.5, count: 7, subscribe: true, size: "l", country: "jp", topics: ["rust", "mcp"],
      };
      const done = await s.settled(id);
      assert.equal(done.status, "completed");
      assert.deepEqual(done.result.structuredContent, { action: "accept", content: expected }, "the server received exactly what was typed");
      assert.ok(Number.isInteger(done.result.structuredContent.content.count), "count is an integer");

      const inputs = await s.events(id, "mcp-task-input");
      assert.equal(inputs.length, 1, "one mcp-task-input event");
      assert.deepEqual(inputs[0].detail, { taskId: id, responses: { [SURVEY]: { action: "accept", content: expected } } });
      assert.equal(s.updates(id).length, 1, `one tasks/update reached the server: ${s.updates(id).map((l) => l.text)}`);

      await s.status(id, "completed");
      assert.equal(await s.task(id).locator("form[data-key]").count(), 0, "no form once answered");
      assert.match(await texts(s.task(id).locator('[part~="status"]')), /Completed/);
      assert.match(await texts(s.task(id).locator('[part~="result"]')), /ada@example\.com/, "the result shows the structured content");
      await sleep(300);
      assert.equal((await s.events(id, "mcp-task-settled")).length, 1, "mcp-task-settled fired once");
      const changes = await s.events(id, "mcp-task-change");
      assert.ok(changes.some((e) => e.detail.status === "input_required") && changes.at(-1).detail.status === "completed", "mcp-task-change followed the task to completed");
      const el = await s.task(id).evaluate((e) => ({ status: e.snapshot?.status, taskId: e.taskId }));
      assert.deepEqual(el, { status: "completed", taskId: id }, "el.snapshot and el.taskId");
    });
  });
});

test("survey: Decline sends {action: decline}, the form's Cancel sends {action: cancel} (required fields empty)", { timeout: 30_000 }, async () => {
  await withSession(suite, "decline", {}, async (s) => {
    await s.open();
    const declined = await s.start("survey");
    const cancelled = await s.start("survey");
    await s.form(declined, SURVEY).waitFor();
    await s.form(cancelled, SURVEY).waitFor();

    await s.button(declined, "decline").click();
    await s.button(cancelled, "cancel").click();
    const [d, c] = [await s.settled(declined), await s.settled(cancelled)];
    assert.equal(d.status, "completed");
    assert.deepEqual(d.result.structuredContent, { action: "decline", content: null }, "decline, no content");
    assert.deepEqual(c.result.structuredContent, { action: "cancel", content: null }, "cancel, no content");
    assert.deepEqual((await s.events(declined, "mcp-task-input")).map((e) => e.detail.responses), [{ [SURVEY]: { action: "decline" } }]);
    assert.deepEqual((await s.events(cancelled, "mcp-task-input")).map((e) => e.detail.responses), [{ [SURVEY]: { action: "cancel" } }]);
    assert.equal(s.updates(declined).length, 1);
    assert.equal(s.updates(cancelled).length, 1);
    assert.equal(s.server.lines("tasks/cancel", cancelled).length, 0, "the form's Cancel answers the request; it does not cancel the task");
  });
});

test("hostile text from the server is shown as text, never as markup", { timeout: 30_000 }, async () => {
  // bypassCSP: the page's CSP would block an inline onerror anyway; without it, markup injected into
  // the shadow DOM would run and set window.__pwned, and an <img> would exist.
  await withSession(suite, "hostile", { bypassCSP: true }, async (s) => {
    const label = "<img src=x onerror=window.__pwned=1>";
    await s.open();
    const id = await s.start("survey", { label });
    await s.form(id, SURVEY).waitFor();
    await sleep(300);

    assert.ok((await texts(s.task(id).locator('[part~="message"]'))).includes(`${label}: waiting for your answers`), "statusMessage as literal text");
    assert.ok((await texts(s.task(id).locator('[part~="prompt"]'))).includes(`${label}: tell us about yourself`), "the form's message as literal text");
    const nickname = await s.field(id, "nickname").textContent();
    assert.ok(nickname.includes(label), `the field title as literal text: ${nickname}`);
    assert.ok(nickname.includes(`What should ${label} call you?`), `the field description as literal text: ${nickname}`);
    assert.equal(await deepCount(s.page, "img"), 0, "no <img> anywhere (shadow roots included)");
    assert.equal(await s.page.evaluate(() => typeof window.__pwned), "undefined", "nothing ran");

    // What the user types comes back in the result: also text.
    const typed = "<b>x</b><img src=x>";
    await s.field(id, "email").locator("input").fill("eve@example.com");
    await s.field(id, "nickname").locator("input").fill(typed);
    await s.field(id, "topics").getByRole("checkbox", { name: "Rust" }).check();
    await s.button(id, "accept").click();
    const done = await s.settled(id);
    assert.equal(done.result.structuredContent.content.nickname, typed);
    await s.status(id, "completed");
    assert.ok((await texts(s.task(id).locator('[part~="result"]'))).includes(typed), "the typed markup is shown as text in the result");
    assert.ok((await texts(s.task(id).locator('[part~="message"]'))).includes(`${label}: answered (accept)`));
    assert.equal(await deepCount(s.page, "img"), 0, "still no <img>");
    assert.equal(await deepCount(s.page, "b"), 0, "no <b> either");
    assert.equal(await s.page.evaluate(() => typeof window.__pwned), "undefined");
  });
});

test("reload: the form comes back; an answer followed at once by a reload is sent once and not asked again", { timeout: 40_000 }, async () => {
  await withSession(suite, "reload", {}, async (s) => {
    await s.open();
    const id = await s.start("survey");
    await s.form(id, SURVEY).waitFor();

    await s.reload();
    await s.form(id, SURVEY).waitFor({ timeout: 10_000 });
    assert.equal(await s.task(id).locator("form[data-key]").getAttribute("data-key"), SURVEY, "the same request is asked after the reload");
    assert.equal((await s.snapshot(id)).restored, true, "the task was restored");

    await s.field(id, "email").locator("input").fill("reload@example.com");
    await s.field(id, "topics").getByRole("checkbox", { name: "MCP" }).check();
    const update = s.page.waitForRequest((r) => r.url().endsWith("/mcp") && /"tasks\/update"/.test(r.postData() ?? ""), { timeout: 5000 });
    await s.button(id, "accept").click();
    await update; // the answer is on its way: reload now, without waiting for its response
    const reloadAt = Date.now();
    await s.reload();

    // Until the task settles, the form must never be shown again.
    let formSeen = 0;
    const done = await until(async () => {
      formSeen += await s.task(id).locator("form[data-key]").count();
      const snap = await s.snapshot(id);
      return snap && ["completed", "failed", "cancelled", "expired"].includes(snap.status) ? snap : null;
    }, "the task to settle after the reload", 10_000, 40);
    assert.equal(done.status, "completed");
    assert.equal(done.result.structuredContent.action, "accept");
    assert.equal(done.result.structuredContent.content.email, "reload@example.com");
    assert.deepEqual(done.result.structuredContent.content.topics, ["mcp"]);
    assert.equal(formSeen, 0, "the form was not shown again after the reload");
    await s.status(id, "completed");
    const askedAgain = (await s.events(id, "mcp-task-change")).filter((e) => SURVEY in (e.detail.inputRequests ?? {}));
    assert.deepEqual(askedAgain, [], "no snapshot after the reload asks survey-1 again");
    const updates = s.updates(id);
    assert.equal(updates.length, 1, `the answer reached the server exactly once: ${updates.map((l) => l.text).join(" | ")}`);
    console.error(`  reload: the tasks/update was logged ${updates[0].at - reloadAt} ms after the reload began`);
  });
});

test("ask_model: sampling and roots get a note; the host answers them with client.respond", { timeout: 30_000 }, async () => {
  await withSession(suite, "ask-model", {}, async (s) => {
    await s.open();
    const id = await s.start("ask_model");
    await s.status(id, "input_required");
    const notes = s.task(id).locator('[part~="note"]');
    await notes.first().waitFor();
    const noteText = await texts(notes);
    console.error(`  ask_model: ${await notes.count()} note(s): ${noteText}`);
    assert.ok((await notes.count()) >= 1, "a note for the requests the element does not answer");
    assert.match(noteText, /sampl|model/i, "the note mentions sampling");
    assert.match(noteText, /root/i, "the note mentions roots");
    assert.equal(await s.task(id).locator("form[data-key]").count(), 0, "no form for sampling or roots");
    await sleep(600);
    assert.equal(s.updates(id).length, 0, "the element answers neither");

    const sampling = { role: "assistant", content: { type: "text", text: "The build passed." }, model: "e2e-model", stopReason: "endTurn" };
    const roots = { roots: [{ uri: "file:///work/project", name: "project" }] };
    await s.page.evaluate(([taskId, answers]) => window.__client.respond(taskId, answers), [id, { "sampling-1": sampling, "roots-1": roots }]);
    const done = await s.settled(id);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.result.structuredContent, { sampling, roots });
    await s.status(id, "completed");
    assert.equal(await notes.count(), 0, "no notes once answered");
  });
});

test("URL mode: the full URL and its host are shown, nothing opens before Open, Open opens it and the task goes on", { timeout: 30_000 }, async () => {
  await withSession(suite, "login", {}, async (s) => {
    const visits = [];
    s.context.on("request", (r) => {
      if (r.url().includes("/fake-login")) visits.push(r.url());
    });
    let popups = 0;
    s.page.on("popup", () => { popups += 1; });
    await s.open();
    const id = await s.start("login");
    const form = s.task(id).locator('form[data-key="login-1"]');
    await form.waitFor();
    assert.equal(await form.getAttribute("data-mode"), "url");
    const url = (await s.snapshot(id)).inputRequests["login-1"].params.url;
    assert.ok(url.startsWith(`${s.server.base}/fake-login?task=`), url);
    assert.equal((await s.task(id).locator('[part~="url"]').textContent()).trim(), url, "the full URL as text");
    const domain = (await s.task(id).locator('[part~="domain"]').textContent()).trim();
    const host = new URL(url);
    assert.ok(domain === host.host || domain === host.hostname, `the domain part shows the host (${domain})`);
    assert.equal(await s.task(id).locator("a[href]").count(), 0, "the URL is not a link");
    assert.equal(await s.button(id, "open").count(), 1, "an Open button");
    assert.equal(await s.button(id, "decline").count(), 1, "a Decline button");
    assert.equal(await s.button(id, "cancel").count(), 1, "a Cancel button");

    await sleep(800);
    assert.deepEqual(visits, [], "nothing fetched the URL before Open");
    assert.equal(popups, 0, "nothing opened before Open");
    assert.equal(s.updates(id).length, 0, "nothing answered before Open");

    // The sign-in page answers only once the accept reached the server, as a real sign-in takes longer
    // than sending it (visiting the page completes the task, which would make the answer moot).
    await s.context.route("**/fake-login*", async (route) => {
      await until(() => s.updates(id).length > 0, "the accept to reach the server", 5000).catch(() => {});
      await route.continue();
    });
    const [popup] = await Promise.all([s.page.waitForEvent("popup", { timeout: 5000 }), s.button(id, "open").click()]);
    await popup.waitForURL(url, { timeout: 5000 });
    assert.equal(popup.url(), url, "the new page is the URL");
    assert.equal(await popup.evaluate(() => window.opener), null, "opened without an opener (noopener)");
    assert.equal(await popup.evaluate(() => document.referrer), "", "and without a referrer (noreferrer)");
    const done = await s.settled(id);
    assert.equal(done.status, "completed", JSON.stringify(done.error));
    assert.deepEqual(done.result.structuredContent, { user: "demo-user", provider: "example-idp" });
    assert.deepEqual((await s.events(id, "mcp-task-input")).map((e) => e.detail.responses), [{ "login-1": { action: "accept" } }], "Open sends {action: accept} without content");
    assert.equal(s.updates(id).length, 1);
    assert.equal(popups, 1, "one page opened");
    await popup.close();
  });
});

/**
 * Keeps every request of `s.context` on this machine: pages on `fakes` (origin → HTML) are answered
 * here, as if they existed; any other non-loopback request is aborted before it is sent (no DNS either).
 */
async function fakeSites(s, fakes) {
  const reached = [];
  await s.context.route((url) => !["127.0.0.1", "localhost", "[::1]"].includes(url.hostname), async (route) => {
    const url = new URL(route.request().url());
    reached.push(route.request().headers().referer ? `${url.href} (referer ${route.request().headers().referer})` : url.href);
    if (fakes[url.origin]) await route.fulfill({ contentType: "text/html", body: fakes[url.origin] });
    else await route.abort();
  });
  return reached;
}

test("URL mode, hostile addresses: the card names and opens the host the browser parses, refuses user info, warns of look-alikes", { timeout: 40_000 }, async () => {
  await withSession(suite, "url-spoof", {}, async (s) => {
    const reached = await fakeSites(s, { "https://evil.example": "<!doctype html><title>evil</title>" });
    let popups = 0;
    s.page.on("popup", () => { popups += 1; });
    await s.open();
    const part = async (id, name) => (await s.task(id).locator(`[part~="${name}"]`).textContent()).trim();
    const warnings = (id) => texts(s.task(id).locator(".warn"));

    // The backslash ends the authority for the browser's parser: the page is evil.example's.
    const spoof = await s.start("login", { url: "https://evil.example\\@bank.example/login" });
    await s.form(spoof, "login-1").waitFor();
    const href = "https://evil.example/@bank.example/login";
    assert.equal(await part(spoof, "domain"), "evil.example", "the site is the host the browser will open");
    assert.equal(await part(spoof, "url"), href, "the URL shown is the one opened");
    assert.equal((await s.button(spoof, "open").textContent()).trim(), "Open evil.example");
    const [popup] = await Promise.all([s.page.waitForEvent("popup", { timeout: 5000 }), s.button(spoof, "open").click()]);
    await popup.waitForURL(href, { timeout: 5000 });
    assert.equal(popup.url(), href, "the new page is the one named");
    assert.equal(await popup.evaluate(() => window.opener), null, "the new page cannot reach this one");
    assert.equal(await popup.evaluate(() => document.referrer), "", "nor learn its address");
    await until(() => s.updates(spoof).length === 1, "the accept after the page opened");
    assert.deepEqual(reached, [href], "the only page left loopback for is the one opened (answered here)");
    await popup.close();

    // User info before the host: refused, with a warning.
    const userinfo = await s.start("login", { url: "https://bank.example@evil.example/login" });
    await s.form(userinfo, "login-1").waitFor();
    assert.equal(await part(userinfo, "domain"), "evil.example");
    assert.equal(await s.button(userinfo, "open").count(), 0, "no Open button");
    assert.match(await warnings(userinfo), /user name/);

    // A Cyrillic look-alike: the punycode host beside the Unicode one, and a mixed-alphabet warning.
    const lookalike = await s.start("login", { url: "https://\u0430pple.com/signin" });
    await s.form(lookalike, "login-1").waitFor();
    assert.equal(await part(lookalike, "domain"), "xn--pple-43d.com");
    assert.equal(await part(lookalike, "domain-unicode"), "\u0430pple.com");
    assert.equal(await part(lookalike, "url"), "https://xn--pple-43d.com/signin");
    assert.equal((await s.button(lookalike, "open").textContent()).trim(), "Open xn--pple-43d.com");
    const warned = await warnings(lookalike);
    assert.match(warned, /mixes alphabets/);
    assert.match(warned, /punycode/);

    // A percent-encoded dot: the host as the parser decodes it.
    const encoded = await s.start("login", { url: "https://bank.example%2eevil.com/" });
    await s.form(encoded, "login-1").waitFor();
    assert.equal(await part(encoded, "domain"), "bank.example.evil.com");

    assert.equal(popups, 1, "one page opened");
    for (const id of [userinfo, lookalike, encoded]) assert.equal(s.updates(id).length, 0, "nothing answered");
  });
});

test("URL mode, pop-up blocked: no accept is sent, the card says so, Open works once allowed", { timeout: 30_000 }, async () => {
  await withSession(suite, "url-blocked", {}, async (s) => {
    await s.open();
    const id = await s.start("login");
    await s.form(id, "login-1").waitFor();
    // As a pop-up blocker does: window.open returns null.
    await s.page.evaluate(() => {
      window.__open = window.open;
      window.open = () => null;
    });
    await s.button(id, "open").click();
    await sleep(600);
    assert.equal(s.updates(id).length, 0, "no accept without an open page");
    assert.deepEqual(await s.events(id, "mcp-task-input"), [], "not even offered to the host");
    assert.match(await texts(s.form(id, "login-1")), /blocked the new tab/, "the card says the tab was blocked");
    assert.equal(await s.button(id, "open").isEnabled(), true, "Open can be pressed again");

    await s.page.evaluate(() => { window.open = window.__open; });
    // As in the test above: the sign-in page completes the task, so it answers once the accept is in.
    await s.context.route("**/fake-login*", async (route) => {
      await until(() => s.updates(id).length > 0, "the accept to reach the server", 5000).catch(() => {});
      await route.continue();
    });
    const [popup] = await Promise.all([s.page.waitForEvent("popup", { timeout: 5000 }), s.button(id, "open").click()]);
    await until(() => s.updates(id).length === 1, "the accept once the page opened");
    const done = await s.settled(id);
    assert.equal(done.status, "completed", JSON.stringify(done.error));
    await popup.close();
  });
});

test("mcp-task-input preventDefault: the element sends nothing, the host answers", { timeout: 30_000 }, async () => {
  await withSession(suite, "prevent", {}, async (s) => {
    await s.open();
    // Capture phase on document: before element.js's recorder, so the record shows defaultPrevented.
    await s.page.evaluate(() => {
      window.__prevented = [];
      document.addEventListener("mcp-task-input", (e) => {
        window.__prevented.push({ cancelable: e.cancelable, detail: JSON.parse(JSON.stringify(e.detail)) });
        e.preventDefault();
      }, true);
    });
    const id = await s.start("survey");
    await s.form(id, SURVEY).waitFor();
    await s.field(id, "email").locator("input").fill("host@example.com");
    await s.field(id, "topics").getByRole("checkbox", { name: "Rust" }).check();
    await s.button(id, "accept").click();

    const prevented = await until(() => s.page.evaluate(() => (window.__prevented.length ? window.__prevented : null)), "the mcp-task-input event");
    assert.equal(prevented.length, 1);
    assert.equal(prevented[0].cancelable, true, "the event is cancelable");
    assert.equal(prevented[0].detail.taskId, id);
    const responses = prevented[0].detail.responses;
    assert.equal(responses[SURVEY].action, "accept");
    assert.equal(responses[SURVEY].content.email, "host@example.com");
    assert.deepEqual(responses[SURVEY].content.topics, ["rust"]);

    await sleep(1500);
    assert.deepEqual(s.updates(id).map((l) => l.text), [], "no tasks/update reached the server within 1.5 s");
    assert.deepEqual(s.sent("tasks/update", id), [], "the page sent none");
    assert.equal((await s.snapshot(id)).status, "input_required", "the task still waits");

    await s.page.evaluate(([taskId, r]) => window.__client.respond(taskId, r), [id, responses]);
    const done = await s.settled(id);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.result.structuredContent, responses[SURVEY], "the host's answer is what the element prepared");
    assert.equal(s.updates(id).length, 1);
  });
});

test("Cancel task: the card's button cancels the task", { timeout: 30_000 }, async () => {
  await withSession(suite, "cancel-task", {}, async (s) => {
    await s.open();
    const id = await s.start("long_job", { seconds: 120 });
    await s.status(id, "working");
    await s.task(id).locator('[part~="progress"][role="progressbar"]').waitFor();
    await s.button(id, "cancel-task").click();
    const done = await s.settled(id);
    assert.equal(done.status, "cancelled");
    await s.status(id, "cancelled");
    assert.match(await texts(s.task(id).locator('[part~="status"]')), /Cancelled/);
    assert.equal(s.server.lines("tasks/cancel", id).length, 1, "one tasks/cancel");
    assert.equal(await s.button(id, "cancel-task").isVisible(), false, "no Cancel task button once cancelled");
    assert.equal(await s.task(id).locator('[part~="progress"]').isVisible(), false, "no progress bar once cancelled");
  });
});

test("<mcp-task-list>: the task needing input first, then the others newest first", { timeout: 30_000 }, async () => {
  await withSession(suite, "list", {}, async (s) => {
    await s.open();
    const deploy = await s.start("deploy", { service: "api", environment: "staging" }); // oldest, will need input
    await sleep(60);
    const build = await s.start("build", { seconds: 60, target: "list" });
    await sleep(60);
    const long = await s.start("long_job", { seconds: 60 });
    await s.page.evaluate(() => window.__host.showList());
    await until(async () => (await s.snapshot(deploy))?.status === "input_required", "deploy to need input");

    const order = () => s.page.locator("mcp-task-list [part~='item'] mcp-task").evaluateAll((els) => els.map((e) => e.taskId));
    const expected = [deploy, long, build];
    await until(async () => JSON.stringify(await order()) === JSON.stringify(expected), `list order ${expected}`, 5000).catch(async (e) => {
      assert.deepEqual(await order(), expected, `input_required first, then newest first (deploy, long_job, build): ${e.message}`);
    });
    assert.equal(await s.page.locator("mcp-task-list [part~='list']").count(), 1, "an <ol part=list>");
    assert.equal(await s.page.locator("mcp-task-list [part~='list']").evaluate((e) => e.localName), "ol");
    const compact = await s.page.locator("mcp-task-list [part~='item'] mcp-task").evaluateAll((els) => els.map((e) => e.hasAttribute("compact")));
    assert.deepEqual(compact, [true, true, true], "list children are compact");
    assert.match(await texts(s.page.locator(`mcp-task-list mcp-task >> nth=0`).locator('[part~="status"]')), /Needs your input/);
  });
});

test("<mcp-task-list> of many tasks makes the cards near the viewport only, and the others as they come near", { timeout: 60_000 }, async () => {
  await withSession(suite, "list-many", {}, async (s) => {
    await s.open();
    const ids = [];
    for (let i = 0; i < 40; i++) ids.push(await s.start("long_job", { seconds: 60 }));
    // Only the list on the page, its top at the viewport's.
    await s.page.evaluate(() => {
      document.getElementById("tasks").replaceChildren();
      window.__host.showList().scrollIntoView();
    });
    const items = s.page.locator("mcp-task-list [part~='item']");
    const cards = s.page.locator("mcp-task-list [part~='item'] mcp-task");
    await until(async () => (await items.count()) === 40 && (await cards.count()) > 0, "40 items, the first cards made", 10_000);
    await sleep(300);
    const made = await cards.count();
    assert.ok(made < 40, `only the cards within a screen of the viewport are made: ${made} of 40`);
    const last = items.nth(39);
    assert.equal(await last.locator("mcp-task").count(), 0, "the last item has no card yet");
    assert.ok((await last.boundingBox()).height >= 48, "an item without its card keeps a block size");
    await last.scrollIntoViewIfNeeded();
    await until(async () => (await last.locator("mcp-task").count()) === 1, "the last card made once near", 5000);
    assert.match(await texts(last.locator("mcp-task").locator('[part~="status"]')), /Working|\S/);
    assert.equal(await last.locator("mcp-task").evaluate((e) => e.taskId), await last.getAttribute("data-id"));
  });
});

test("<mcp-task-list> with two servers' clients: one list in one order, each card naming its server", { timeout: 40_000 }, async () => {
  const other = await startServer();
  try {
    await withSession(suite, "list-two-servers", {}, async (s) => {
      await s.open({ second: other.url, list: "1" });
      const deploysBefore = s.server.lines("tools/call", "deploy").length; // the suite's server is shared
      const startOn2 = (tool, args) => s.page.evaluate(([t, a]) => window.__client2.callTool(t, a).then((o) => o.task.taskId), [tool, args]);
      const a = await s.start("build", { seconds: 60, target: "first" }); // oldest
      await sleep(60);
      const b = await startOn2("deploy", { service: "api", environment: "staging" }); // will need input
      await sleep(60);
      const c = await startOn2("long_job", { seconds: 60 }); // newest
      await until(async () => (await s.page.evaluate((id) => window.__client2.tasks().find((t) => t.taskId === id)?.status, b)) === "input_required", "the second server's deploy to need input");

      const cards = () => s.page.locator("mcp-task-list [part~='item'] mcp-task").evaluateAll((els) => els.map((e) => ({
        task: e.taskId,
        server: e.shadowRoot.querySelector('[part~="server"]').hidden ? null : e.shadowRoot.querySelector('[part~="server"]').textContent,
      })));
      const host = (base) => new URL(base).host;
      const expected = [
        { task: b, server: host(other.base) },
        { task: c, server: host(other.base) },
        { task: a, server: host(s.server.base) },
      ];
      await until(async () => isDeepStrictEqual(await cards(), expected), "both servers' tasks in one order", 10_000).catch(async (e) => {
        assert.deepEqual(await cards(), expected, `input first, then newest first, across servers: ${e.message}`);
      });
      assert.equal(other.lines("tools/call", "deploy").length, 1, "the deploy went to the second server");
      assert.equal(s.server.lines("tools/call", "deploy").length, deploysBefore, "and not to the first");

      // One client again: the server is not named.
      await s.page.evaluate(() => {
        document.querySelector("mcp-task-list").clients = [window.__client];
      });
      await until(async () => isDeepStrictEqual(await cards(), [{ task: a, server: null }]), "the first client's task alone, unnamed");
    });
  } finally {
    await other.stop();
  }
});

test("offline: the card says so while the browser is offline and clears it when back online", { timeout: 30_000 }, async () => {
  await withSession(suite, "offline", {}, async (s) => {
    await s.open();
    const id = await s.start("long_job", { seconds: 120 });
    await s.status(id, "working");
    const connectivity = s.task(id).locator('[part~="connectivity"]');
    await s.context.setOffline(true);
    await until(async () => /Offline/.test(await connectivity.textContent()), "the card to say Offline");
    assert.equal((await s.snapshot(id)).connectivity, "offline");
    await s.context.setOffline(false);
    await until(async () => !/Offline/.test(await connectivity.textContent()), "the Offline note to go");
    await s.status(id, "working");
  });
});

test("labels: defineMcpTask({ labels }) adds a language, el.labels overrides single words", { timeout: 30_000 }, async () => {
  await withSession(suite, "labels", {}, async (s) => {
    await s.open();
    const id = await s.start("deploy", { service: "api", environment: "staging" });
    await s.form(id, "approval-1").waitFor();
    // A host language: registering again is harmless and only adds the shared labels.
    await s.page.evaluate(async () => {
      const { defineMcpTask } = await import("/pkg/element.js");
      defineMcpTask({ labels: { fr: { "action.accept": "Accepter", "status.input_required": "Votre réponse est attendue" } } });
      document.documentElement.lang = "fr";
    });
    await until(async () => (await texts(s.button(id, "accept"))) === "Accepter", "the French Accept");
    assert.equal(await texts(s.task(id).locator('[part~="status"]')), "Votre réponse est attendue");
    assert.equal(await texts(s.button(id, "decline")), "Decline", "a word the host did not give falls back to English");
    await s.task(id).evaluate((el) => {
      el.labels = { "action.decline": "Non merci" };
    });
    await until(async () => (await texts(s.button(id, "decline"))) === "Non merci", "the element's own word");
    assert.equal(await texts(s.button(id, "accept")), "Accepter", "shared words stay under the element's own");
  });
});

test("one driver: element.js and mcp_tasks_web.js re-export the main entry's init and TaskClient, and a client of the main entry is accepted", { timeout: 30_000 }, async () => {
  await withSession(suite, "one-driver", {}, async (s) => {
    await s.open();
    const seen = await s.page.evaluate(async (url) => {
      const element = await import("/pkg/element.js");
      const cardHost = await import("/pkg/mcp_tasks_web.js");
      const main = await import("/pkg/client.js");
      const other = await main.TaskClient.open({ url, namespace: "one-driver-other", autoPoll: false });
      const el = document.createElement("mcp-task");
      let refused = null;
      try {
        el.client = other;
      } catch (e) {
        refused = `${e.name}: ${e.message}`;
      }
      const kept = el.client === other;
      other.close();
      let stranger = null;
      try {
        el.client = { constructor: { name: "TaskClient" } };
      } catch (e) {
        stranger = `${e.name}: ${e.message}`;
      }
      return {
        sameClass: element.TaskClient === main.TaskClient && cardHost.TaskClient === main.TaskClient,
        sameInit: element.default === main.default && cardHost.default === main.default,
        refused,
        kept,
        stranger,
      };
    }, `${s.server.base}/mcp`);
    assert.ok(seen.sameClass && seen.sameInit, "one TaskClient class and one init() behind every entry");
    assert.equal(seen.refused, null, "a client of the main entry is accepted");
    assert.ok(seen.kept, "and kept");
    assert.equal(seen.stranger, "TypeError: client must be a TaskClient", "anything else is refused");
  });
});

test("<mcp-task-list>: a forgotten task leaves the list", { timeout: 30_000 }, async () => {
  await withSession(suite, "list-forget", {}, async (s) => {
    await s.open();
    const a = await s.start("long_job", { seconds: 60 });
    const b = await s.start("long_job", { seconds: 60 });
    await s.page.evaluate(() => window.__host.showList());
    const ids = () => s.page.locator("mcp-task-list [part~='item'] mcp-task").evaluateAll((els) => els.map((e) => e.taskId));
    await until(async () => (await ids()).length === 2, "two items");
    await s.page.evaluate((id) => window.__client.forget(id), a);
    await until(async () => JSON.stringify(await ids()) === JSON.stringify([b]), "only the other task left");
  });
});

test("hostile page listeners: a focusin or mcp-task-change listener that re-enters the elements does not trap them", { timeout: 40_000 }, async () => {
  await withSession(suite, "reentrant", {}, async (s) => {
    await s.open();
    await s.page.evaluate(() => {
      window.__reentered = { focus: 0, change: 0 };
      // On focus moving into a card (its form takes focus as it appears): read the card and give it
      // new words, which redraws it, from inside the card's own focus() call.
      document.addEventListener("focusin", (e) => {
        for (const node of e.composedPath()) {
          if (node.localName !== "mcp-task") continue;
          void node.taskId;
          void node.client;
          window.__reentered.focus++;
          node.labels = { "status.input_required": "Your turn" };
        }
      }, true);
      // On every card change: relabel the list, which redraws it, while the list is inserting cards.
      document.addEventListener("mcp-task-change", (e) => {
        void e.target.taskId;
        const list = document.querySelector("mcp-task-list");
        window.__reentered.change++;
        if (list) list.labels = { "list.label": "Tasks (relabelled)" };
      });
    });
    await s.page.evaluate(() => window.__host.showList());
    const id = await s.start("deploy", { service: "api", environment: "staging" });
    await s.form(id, "approval-1").waitFor();
    await until(async () => (await s.page.evaluate(() => window.__reentered.focus)) > 0, "focusin to reach the card");
    const counts = await s.page.evaluate(() => window.__reentered);
    assert.ok(counts.change > 0, `mcp-task-change reached the host listener (${JSON.stringify(counts)})`);
    assert.match(await texts(s.task(id).locator('[part~="status"]')), /Your turn/, "the card took the new words");
    // Still alive: the list holds the task, and the card answers and completes.
    assert.equal(await s.page.locator("mcp-task-list mcp-task").count(), 1, "the list shows the task once");
    await s.field(id, "confirm").locator("input").check();
    await s.button(id, "accept").click();
    assert.equal((await s.settled(id)).status, "completed");
    assert.equal(s.updates(id).length, 1, "answered once");
  });
});
