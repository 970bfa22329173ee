// Notifications (opt-in `notify`) in real headless Chromium: with the permission granted
// through Playwright, two hidden tabs of one namespace: a task that ends and one that needs input
// each show exactly one system notification across the two tabs, with the tool name and the status
// in the page's language; nothing is shown while the page is visible; a click on the notification
// brings the tab forward and focuses the task's card.
//
// Headless Chromium reports every page as visible whatever is in front (also with a window
// minimised, headful under Xvfb, or with Playwright's backgrounding flags removed: tried), so `hide`
// makes a page report what a background tab reports (`visibilityState` "hidden", `hidden` true) and
// fires `visibilitychange`, as the browser does when a tab goes to the background. The page's real
// `Notification` is wrapped (a subclass that calls the real constructor) so the test can count what
// was shown and dispatch the click a person would make; `window.focus` is wrapped the same way.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { elementSuite, withSession, until, sleep } from "./element-rig.mjs";
import { elementHostReady } from "./rig.mjs";

let suite;
before(async () => {
  suite = await elementSuite();
});
after(async () => {
  await suite?.close();
});

/** Makes `page` report itself hidden (`true`) or visible again, with a `visibilitychange` event. */
function setHidden(page, hidden) {
  return page.evaluate((h) => {
    if (h) {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
      Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    } else {
      delete document.visibilityState;
      delete document.hidden;
    }
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

/** Wraps Notification and window.focus in every page of the context, reporting to `notices`. */
function spyOnNotifications() {
  const Real = window.Notification;
  window.__notices = [];
  window.__focusCalls = 0;
  const realFocus = window.focus;
  window.focus = function focus() {
    window.__focusCalls += 1;
    return realFocus.call(this);
  };
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notices.push(this);
      window.__notice({ title, body: options?.body, tag: options?.tag, lang: options?.lang, at: Date.now() });
    }
    static get permission() {
      return Real.permission;
    }
    static requestPermission(...args) {
      return Real.requestPermission(...args);
    }
  }
  window.Notification = Recorded;
}

test("notify: one notification across two hidden tabs when a task ends or needs input; none while visible; a click focuses the card", { timeout: 90_000 }, async () => {
  await withSession(suite, "notify", {}, async (s) => {
    const notices = [];
    await s.context.grantPermissions(["notifications"], { origin: s.server.base });
    await s.context.exposeBinding("__notice", ({ page }, notice) => {
      notices.push({ ...notice, tab: page === s.page ? "A" : "B" });
    });
    await s.context.addInitScript(spyOnNotifications);
    await s.open({ list: "1", notify: "1" });
    const tabB = await s.context.newPage();
    await tabB.goto(s.page.url());
    await elementHostReady(tabB);
    assert.equal(await s.page.evaluate(() => window.__client.notify), true, "<mcp-task-list notify> turned the client's notify on");

    // Visible: a task that ends says nothing.
    const seen = await s.start("build", { seconds: 1, target: "visible" });
    await s.settled(seen, 15_000);
    await sleep(500);
    assert.deepEqual(notices, [], "nothing is shown while the page is visible");

    // Both pages of the namespace go to the background.
    await setHidden(s.page, true);
    await setHidden(tabB, true);

    const built = await s.start("build", { seconds: 1, target: "hidden" });
    await until(async () => notices.some((n) => n.title === "build"), "a notification for the build", 20_000);
    const asking = await s.start("deploy", { service: "api", environment: "staging" });
    await until(async () => notices.some((n) => n.title === "deploy"), "a notification for the deploy", 20_000);
    await sleep(1_500); // a second notification, from either tab, would come by now
    assert.deepEqual(
      notices.map(({ title, body, lang, tab }) => ({ title, body, lang, tab })),
      [
        { title: "build", body: "Completed", lang: "en", tab: "A" },
        { title: "deploy", body: "Needs your input", lang: "en", tab: "A" },
      ],
      "one notification per task and status, from the polling tab (A) only",
    );
    assert.notEqual(notices[0].tag, notices[1].tag, "each task has its own tag");
    assert.ok(notices[1].tag.includes(encodeURIComponent(asking)) || notices[1].tag.includes(asking), `the tag names the task: ${notices[1].tag}`);
    assert.ok((await s.snapshot(built)).status === "completed");

    // The person clicks the deploy notification: the tab is asked forward and the card takes focus.
    await s.page.evaluate(() => window.__notices.find((n) => n.title === "deploy").dispatchEvent(new Event("click")));
    await until(async () => (await s.page.evaluate(() => window.__focusCalls)) > 0, "window.focus() to be called");
    // The page shows the task twice (its own <mcp-task> and the list's, in the list's shadow root) and
    // the first card to hear the click takes focus, so either may: the innermost <mcp-task> on the
    // path to the focused element is the one that has it.
    const focused = await s.page.evaluate(() => {
      let active = document.activeElement;
      let card = null;
      for (;;) {
        if (active?.localName === "mcp-task") card = active;
        if (!active?.shadowRoot?.activeElement) break;
        active = active.shadowRoot.activeElement;
      }
      return { task: card?.taskId ?? null, part: active?.getAttribute("part") ?? null };
    });
    assert.deepEqual(focused, { task: asking, part: "card" }, "a card of the deploy task has focus");

    // Visible again: a task that ends says nothing.
    await setHidden(s.page, false);
    const later = await s.start("build", { seconds: 1, target: "back" });
    await s.settled(later, 15_000);
    await sleep(500);
    assert.equal(notices.length, 2, "nothing new while visible");
  });
});

test("notify: the page's language, and the Thai words", { timeout: 60_000 }, async () => {
  await withSession(suite, "notify-th", {}, async (s) => {
    const notices = [];
    await s.context.grantPermissions(["notifications"], { origin: s.server.base });
    await s.context.exposeBinding("__notice", (_source, notice) => notices.push(notice));
    await s.context.addInitScript(spyOnNotifications);
    await s.open({ list: "1", notify: "1", lang: "th" });
    await setHidden(s.page, true);
    await s.start("build", { seconds: 1, target: "th" });
    await until(async () => notices.length > 0, "a notification", 20_000);
    assert.deepEqual(notices.map(({ title, body, lang }) => ({ title, body, lang })), [{ title: "build", body: "เสร็จสมบูรณ์", lang: "th" }]);
  });
});
