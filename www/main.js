// The demo host: a chat-like page where each tool button is a "message" to an assistant that calls an MCP
// tool through `TaskClient`; a tool that runs as a task answers with an `<mcp-task>` card, which keeps
// working across reloads (the client restores its tasks from IndexedDB, and this page re-creates a bubble
// for each one, oldest first). The side panel is an `<mcp-task-list>`.
//
// The page plays the host's part of MCP too: when a task asks for `sampling/createMessage` or `roots/list`
// (the `ask_model` tool), the element leaves those to the host, and this page answers them itself.
//
// A chat host talks to several MCP servers, one TaskClient each: with `?second=<MCP URL>` (what
// `cargo xtask demo` opens, with a second reference server) the page opens a second client, a switch
// picks which server the buttons call, and the side list shows both servers' tasks as one list.
//
// A tool with an MCP App (`report`) is called with its `_meta.ui` from `listTools()`, and its card has
// `app-sandbox`: the package's sandbox.html from the other loopback name (localhost beside 127.0.0.1),
// so the app runs on another origin than this page, as the Apps spec asks.
//
// Loaded from a file, never inline, and it sets no inline styles: the server's CSP forbids both.
// `window.demo` (`{ ready, error, client, clients }`) lets the end-to-end test wait for the page.

const STORAGE_PREFIX = "mcp-tasks-demo/";
const NAMESPACE = "demo";
/** How long the page "thinks" before answering a model or roots request, so you can see it happen. */
const HOST_ANSWER_DELAY_MS = 1200;
const SAMPLING_ANSWER = {
  role: "assistant",
  content: { type: "text", text: "(demo host) The build succeeded." },
  model: "demo-host",
};
const ROOTS_ANSWER = { roots: [{ uri: "file:///demo", name: "demo" }] };

const demo = { ready: false, error: null, client: null, clients: [] };
window.demo = demo;
/** The client each task or call id belongs to (the first client for anything not recorded). */
const owners = new Map();
/** Each client's tools' `_meta.ui` by tool name (their MCP Apps), from `listTools()`. */
const toolApps = new WeakMap();
const ownerOf = (id) => owners.get(id) ?? demo.client;
/** The client the tool buttons call: the picked server's. */
let picked = 0;

// ---------------------------------------------------------------------------------------------------
// Words. The element has its own label sets (en, th) and picks them from the nearest `lang`.

const STRINGS = {
  en: {
    skip: "Skip to the tools",
    tag: "demo",
    language: "Language",
    online: "Online",
    offline: "Offline — tasks resume when you reconnect",
    offlineShort: "Offline",
    dismiss: "Dismiss",
    conversation: "Conversation",
    hint: "Reload the page now — your tasks survive.",
    hintRestored: "Welcome back: the tasks below were restored after the reload.",
    gotIt: "Got it",
    assistant: "Assistant",
    you: "You",
    welcome1: "Hi! I’m a demo assistant connected to an MCP server. Pick a tool below and I’ll call it.",
    welcome2: "Long jobs run as MCP tasks: you see their progress live, they ask you when they need input, and they keep going if you reload or close this page.",
    toolsHeading: "Ask the assistant to…",
    serverPick: "Server",
    loading: "Loading the task client…",
    ready: "Each button calls a tool on the MCP server (the reference server at /mcp, or ?server=).",
    notReady: "The tools are unavailable until the task client loads.",
    allTasks: "All tasks",
    sideText: "Everything this browser is tracking, restored ones included. Tasks that need you come first.",
    empty: "No tasks yet. Start one from the conversation.",
    forgetAll: "Forget all",
    forgetting: "Forgetting…",
    forgetText: "Removes the records from this browser. Tasks already running on the server are not stopped.",
    aboutHeading: "About this page",
    protocol: "Protocol",
    extension: "Extension",
    storage: "Storage",
    durable: "IndexedDB (survives a reload)",
    memoryOnly: "Memory only (lost on reload)",
    count: (n, waiting) => (n === 0 ? "" : waiting > 0 ? `${n} · ${waiting} need you` : `${n}`),
    calling: (tool) => `Calling ${tool}…`,
    startedTask: (tool) => `Started ${tool} as a task:`,
    restoredTask: (tool) => `Restored ${tool} after the reload:`,
    otherTabTask: (tool) => `Another tab started ${tool}; following it here too:`,
    inlineResult: (tool) => `${tool} answered right away (no task needed):`,
    failedCall: (tool) => `I couldn’t start ${tool}.`,
    unknownCall: (tool) => `The page closed before the server answered my call to ${tool}, so I can’t tell whether it started. If it did, it will not show up here.`,
    forget: "Forget",
    hostAnswering: "The page is answering the server’s model and roots request…",
    hostAnswered: "The page answered as the model (demo-host) and shared one root, file:///demo.",
    hostFailed: (message) => `The page could not answer the model request: ${message}`,
    fallbackPrompt: (tool) => `Run ${tool}`,
    loadFailedTitle: "The demo could not start",
    loadFailed: "The task client (WebAssembly from /pkg/) did not load. Build it with “cargo xtask demo” (or “cargo xtask build”), then reload this page.",
    openFailedTitle: "Can’t reach the MCP server",
    openFailed: (url) => `The task client could not open for ${url}. Is “cargo xtask demo” still running? Reload the page once it is.`,
    networkTitle: "Can’t reach the MCP server",
    network: (url) => `The server at ${url} did not answer. Tasks already started resume when it is back; check that “cargo xtask demo” is running.`,
    storageTitle: "Tasks will not survive a reload",
    storage2: "This browser could not use IndexedDB, so tasks are kept in memory only.",
    forgetFailedTitle: "Forget all did not finish",
    forgetFailed: "The records could not be removed. Try again.",
  },
  th: {
    skip: "ข้ามไปที่เครื่องมือ",
    tag: "เดโม",
    language: "ภาษา",
    online: "ออนไลน์",
    offline: "ออฟไลน์ — งานจะทำต่อเมื่อกลับมาเชื่อมต่อ",
    offlineShort: "ออฟไลน์",
    dismiss: "ปิด",
    conversation: "บทสนทนา",
    hint: "ลองโหลดหน้านี้ใหม่ตอนนี้เลย — งานของคุณจะยังอยู่",
    hintRestored: "ยินดีต้อนรับกลับ: งานด้านล่างถูกกู้คืนหลังจากโหลดหน้าใหม่",
    gotIt: "เข้าใจแล้ว",
    assistant: "ผู้ช่วย",
    you: "คุณ",
    welcome1: "สวัสดี! ฉันเป็นผู้ช่วยตัวอย่างที่เชื่อมต่อกับเซิร์ฟเวอร์ MCP เลือกเครื่องมือด้านล่าง แล้วฉันจะเรียกใช้ให้",
    welcome2: "งานที่ใช้เวลานานจะทำงานเป็นงาน MCP: คุณเห็นความคืบหน้าแบบสด งานจะถามเมื่อต้องการข้อมูลจากคุณ และยังทำงานต่อแม้คุณโหลดหน้าใหม่หรือปิดหน้านี้",
    toolsHeading: "ขอให้ผู้ช่วย…",
    serverPick: "เซิร์ฟเวอร์",
    loading: "กำลังโหลดไคลเอนต์งาน…",
    ready: "แต่ละปุ่มเรียกเครื่องมือบนเซิร์ฟเวอร์ MCP (เซิร์ฟเวอร์อ้างอิงที่ /mcp หรือ ?server=)",
    notReady: "ยังใช้เครื่องมือไม่ได้จนกว่าไคลเอนต์งานจะโหลดเสร็จ",
    allTasks: "งานทั้งหมด",
    sideText: "ทุกงานที่เบราว์เซอร์นี้ติดตามอยู่ รวมถึงงานที่กู้คืนมา งานที่รอคุณจะอยู่ด้านบน",
    empty: "ยังไม่มีงาน เริ่มงานได้จากบทสนทนา",
    forgetAll: "ลืมทั้งหมด",
    forgetting: "กำลังลืม…",
    forgetText: "ลบบันทึกออกจากเบราว์เซอร์นี้ งานที่กำลังทำบนเซิร์ฟเวอร์จะไม่ถูกหยุด",
    aboutHeading: "เกี่ยวกับหน้านี้",
    protocol: "โปรโตคอล",
    extension: "ส่วนขยาย",
    storage: "ที่เก็บข้อมูล",
    durable: "IndexedDB (อยู่รอดหลังโหลดหน้าใหม่)",
    memoryOnly: "ในหน่วยความจำเท่านั้น (หายเมื่อโหลดใหม่)",
    count: (n, waiting) => (n === 0 ? "" : waiting > 0 ? `${n} · รอคุณ ${waiting}` : `${n}`),
    calling: (tool) => `กำลังเรียก ${tool}…`,
    startedTask: (tool) => `เริ่ม ${tool} เป็นงานแล้ว:`,
    restoredTask: (tool) => `กู้คืน ${tool} หลังโหลดหน้าใหม่:`,
    otherTabTask: (tool) => `แท็บอื่นเริ่ม ${tool} ติดตามงานนี้ที่นี่ด้วย:`,
    inlineResult: (tool) => `${tool} ตอบกลับทันที (ไม่ต้องสร้างงาน):`,
    failedCall: (tool) => `ฉันเริ่ม ${tool} ไม่ได้`,
    unknownCall: (tool) => `หน้านี้ถูกปิดก่อนที่เซิร์ฟเวอร์จะตอบการเรียก ${tool} จึงไม่ทราบว่างานเริ่มแล้วหรือไม่ ถ้าเริ่มแล้ว งานจะไม่แสดงที่นี่`,
    forget: "ลืม",
    hostAnswering: "หน้านี้กำลังตอบคำขอโมเดลและ roots จากเซิร์ฟเวอร์…",
    hostAnswered: "หน้านี้ตอบในฐานะโมเดล (demo-host) และแชร์ root หนึ่งรายการ คือ file:///demo",
    hostFailed: (message) => `หน้านี้ตอบคำขอโมเดลไม่ได้: ${message}`,
    fallbackPrompt: (tool) => `เรียกใช้ ${tool}`,
    loadFailedTitle: "เริ่มเดโมไม่ได้",
    loadFailed: "โหลดไคลเอนต์งาน (WebAssembly จาก /pkg/) ไม่สำเร็จ ให้บิลด์ด้วย “cargo xtask demo” (หรือ “cargo xtask build”) แล้วโหลดหน้านี้ใหม่",
    openFailedTitle: "ติดต่อเซิร์ฟเวอร์ MCP ไม่ได้",
    openFailed: (url) => `เปิดไคลเอนต์งานสำหรับ ${url} ไม่สำเร็จ “cargo xtask demo” ยังทำงานอยู่หรือไม่ ถ้าทำงานแล้วให้โหลดหน้านี้ใหม่`,
    networkTitle: "ติดต่อเซิร์ฟเวอร์ MCP ไม่ได้",
    network: (url) => `เซิร์ฟเวอร์ที่ ${url} ไม่ตอบสนอง งานที่เริ่มไปแล้วจะทำต่อเมื่อเซิร์ฟเวอร์กลับมา ตรวจสอบว่า “cargo xtask demo” ยังทำงานอยู่`,
    storageTitle: "งานจะไม่อยู่รอดหลังโหลดหน้าใหม่",
    storage2: "เบราว์เซอร์นี้ใช้ IndexedDB ไม่ได้ จึงเก็บงานไว้ในหน่วยความจำเท่านั้น",
    forgetFailedTitle: "ลืมทั้งหมดไม่สำเร็จ",
    forgetFailed: "ลบบันทึกไม่สำเร็จ ลองอีกครั้ง",
  },
};

/** The tool buttons: what each calls, and its words in each language. */
const PRESETS = [
  {
    id: "build", tool: "build", args: { target: "web", seconds: 8 },
    en: { name: "Build", desc: "8 s with live progress", prompt: "Build the web target" },
    th: { name: "บิลด์", desc: "8 วินาที เห็นความคืบหน้า", prompt: "บิลด์เป้าหมาย web" },
  },
  {
    id: "deploy-staging", tool: "deploy", args: { service: "api", environment: "staging" },
    en: { name: "Deploy to staging", desc: "Asks you to approve", prompt: "Deploy api → staging" },
    th: { name: "ดีพลอยไป staging", desc: "ขอให้คุณอนุมัติ", prompt: "ดีพลอย api → staging" },
  },
  {
    id: "deploy-production", tool: "deploy", args: { service: "api", environment: "production" },
    en: { name: "Deploy to production", desc: "Two approval rounds", prompt: "Deploy api → production" },
    th: { name: "ดีพลอยไป production", desc: "อนุมัติสองรอบ", prompt: "ดีพลอย api → production" },
  },
  {
    id: "survey", tool: "survey", args: { label: "Survey" },
    en: { name: "Survey", desc: "A form with every field type", prompt: "Ask me the survey questions" },
    th: { name: "แบบสอบถาม", desc: "ฟอร์มที่มีช่องกรอกทุกแบบ", prompt: "ขอทำแบบสอบถาม" },
  },
  {
    id: "login", tool: "login", args: { provider: "example-idp" },
    en: { name: "Sign in", desc: "Opens a sign-in link", prompt: "Sign me in to example-idp" },
    th: { name: "เข้าสู่ระบบ", desc: "เปิดลิงก์เข้าสู่ระบบ", prompt: "พาฉันเข้าสู่ระบบ example-idp" },
  },
  {
    id: "ask_model", tool: "ask_model", args: {},
    en: { name: "Ask the model", desc: "This page answers as the model", prompt: "Summarize the build log" },
    th: { name: "ถามโมเดล", desc: "หน้านี้ตอบแทนโมเดล", prompt: "สรุปบันทึกการบิลด์" },
  },
  {
    id: "long_job", tool: "long_job", args: { seconds: 300 },
    en: { name: "Long job", desc: "5 minutes, cancellable", prompt: "Start the five-minute job" },
    th: { name: "งานยาว", desc: "5 นาที ยกเลิกได้", prompt: "เริ่มงานห้านาที" },
  },
  {
    id: "flaky", tool: "flaky", args: { seconds: 2 },
    en: { name: "Flaky job", desc: "Fails after 2 s", prompt: "Run the flaky job" },
    th: { name: "งานไม่เสถียร", desc: "ล้มเหลวหลัง 2 วินาที", prompt: "รันงานที่ไม่เสถียร" },
  },
  {
    id: "tool_error", tool: "tool_error", args: {},
    en: { name: "Tool error", desc: "Ends with an error result", prompt: "Push the image" },
    th: { name: "เครื่องมือผิดพลาด", desc: "จบด้วยผลลัพธ์ที่ผิดพลาด", prompt: "พุชอิมเมจ" },
  },
  {
    id: "report", tool: "report", args: { seconds: 3, title: "Weekly report" },
    en: { name: "Report with an app", desc: "Its MCP App shows the result", prompt: "Write the weekly report" },
    th: { name: "รายงานพร้อมแอป", desc: "แอป MCP แสดงผลลัพธ์", prompt: "เขียนรายงานประจำสัปดาห์" },
  },
  {
    id: "echo", tool: "echo", args: { text: "Hello, MCP!" },
    en: { name: "Echo", desc: "Answers at once, no task", prompt: "Echo “Hello, MCP!”" },
    th: { name: "เอคโค", desc: "ตอบทันที ไม่ต้องสร้างงาน", prompt: "เอคโค “Hello, MCP!”" },
  },
];
const presetById = new Map(PRESETS.map((p) => [p.id, p]));

// ---------------------------------------------------------------------------------------------------
// Small helpers.

const $ = (id) => document.getElementById(id);
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

let lang = "en";
const t = (key, ...args) => {
  const value = STRINGS[lang][key] ?? STRINGS.en[key];
  return typeof value === "function" ? value(...args) : value;
};

function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) el.append(child);
  }
  return el;
}

const store = {
  get(key, fallback) {
    try {
      const raw = localStorage.getItem(STORAGE_PREFIX + key);
      return raw === null ? fallback : JSON.parse(raw);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(STORAGE_PREFIX + key, JSON.stringify(value));
    } catch {
      /* private mode or full: the page works without it */
    }
  },
  remove(key) {
    try {
      localStorage.removeItem(STORAGE_PREFIX + key);
    } catch {
      /* see set */
    }
  },
};

/**
 * Which preset started each task (task id → preset id), so a restored bubble says what was asked. Kept in
 * localStorage, shared with other tabs of this page (their `storage` events keep it fresh here).
 */
let prompts = store.get("prompts", {});
const savePrompts = () => store.set("prompts", prompts);
window.addEventListener("storage", (event) => {
  if (event.key !== `${STORAGE_PREFIX}prompts`) return;
  prompts = store.get("prompts", {});
  for (const turn of document.querySelectorAll(".turn-user[data-turn-render]")) turn.render?.();
});

const formatTime = (at) => {
  try {
    return new Intl.DateTimeFormat(lang, { hour: "numeric", minute: "2-digit" }).format(new Date(at));
  } catch {
    return "";
  }
};

const describeError = (error) => {
  const name = error?.name && error.name !== "Error" ? `${error.name}: ` : "";
  return `${name}${error?.message ?? String(error)}`;
};

const isNetworkError = (error) => ["NetworkError", "TimeoutError", "HttpError"].includes(error?.name);

// ---------------------------------------------------------------------------------------------------
// Banner, hint, connectivity.

let bannerState = null;

/** Shows the banner: a title, a sentence saying what to do, and the technical detail (if any) apart. */
function showBanner(titleKey, textKey, args = [], detail = "") {
  bannerState = { titleKey, textKey, args, detail };
  renderBanner();
  $("banner").hidden = false;
}

function renderBanner() {
  if (!bannerState) return;
  $("banner-title").textContent = t(bannerState.titleKey);
  $("banner-text").textContent = t(bannerState.textKey, ...bannerState.args);
  $("banner-detail").textContent = bannerState.detail;
  $("banner-detail").hidden = !bannerState.detail;
}

$("banner-close").addEventListener("click", () => {
  $("banner").hidden = true;
  bannerState = null;
});

let restoredAtOpen = 0;

function renderHint() {
  const hint = $("hint");
  const count = demo.clients.reduce((n, client) => n + client.tasks().length, 0);
  hint.hidden = count === 0 || store.get("hint-dismissed", false);
  hint.querySelector(".hint-text").textContent = t(restoredAtOpen > 0 ? "hintRestored" : "hint");
}

$("hint-close").addEventListener("click", () => {
  store.set("hint-dismissed", true);
  renderHint();
  $("tools-heading").parentElement.focus({ preventScroll: true });
});

function renderNet() {
  const online = navigator.onLine;
  $("net").dataset.state = online ? "online" : "offline";
  $("net-text").textContent = online ? t("online") : t("offlineShort");
  $("net").title = online ? "" : t("offline");
}
window.addEventListener("online", renderNet);
window.addEventListener("offline", renderNet);

// ---------------------------------------------------------------------------------------------------
// Language.

function applyLanguage(next) {
  lang = STRINGS[next] ? next : "en";
  document.documentElement.lang = lang;
  store.set("lang", lang);
  for (const button of document.querySelectorAll(".lang-button")) {
    button.setAttribute("aria-pressed", String(button.dataset.lang === lang));
  }
  for (const el of document.querySelectorAll("[data-i18n]")) {
    if (el.id === "tools-note" && demo.ready) el.textContent = t("ready");
    else if (el.id === "tools-note" && demo.error) el.textContent = t("notReady");
    else el.textContent = t(el.dataset.i18n);
  }
  for (const el of document.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  }
  renderToolButtons();
  for (const turn of document.querySelectorAll("[data-turn-render]")) turn.render?.();
  for (const el of document.querySelectorAll("time[data-at]")) el.textContent = formatTime(Number(el.dataset.at));
  renderNet();
  renderBanner();
  renderHint();
  renderFacts();
  renderCount();
}

$("lang-switch").addEventListener("click", (event) => {
  const button = event.target.closest(".lang-button");
  if (button) applyLanguage(button.dataset.lang);
});

// ---------------------------------------------------------------------------------------------------
// The tool buttons.

function renderToolButtons() {
  const grid = $("tool-grid");
  const focused = document.activeElement?.dataset?.preset;
  grid.replaceChildren(
    ...PRESETS.map((preset) => {
      const words = preset[lang] ?? preset.en;
      return h(
        "button",
        { type: "button", class: "tool", dataset: { preset: preset.id, tool: preset.tool }, disabled: !demo.ready },
        h("span", { class: "tool-name", text: words.name }),
        h("span", { class: "tool-desc", text: words.desc }),
      );
    }),
  );
  if (focused) grid.querySelector(`[data-preset="${focused}"]`)?.focus();
}

$("tool-grid").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-preset]");
  if (button && !button.disabled) startPreset(presetById.get(button.dataset.preset));
});

// ---------------------------------------------------------------------------------------------------
// The conversation.

const log = $("log");
/** Assistant bubbles by task id (or call id for calls of unknown outcome). */
const bubbles = new Map();
let pendingCalls = 0;

function scrollIntoViewGently(el) {
  el.scrollIntoView({ block: "nearest", behavior: reducedMotion.matches ? "auto" : "smooth" });
}

function timeEl(at) {
  const ms = typeof at === "number" ? at : Date.parse(at);
  const when = Number.isFinite(ms) ? ms : Date.now();
  return h("time", { class: "bubble-time", datetime: new Date(when).toISOString(), dataset: { at: String(when) } }, formatTime(when));
}

/** A "user" message: what the person asked for (the preset, else the one recorded for `id`). */
function addUserTurn({ presetId, id, toolName, at }) {
  const text = h("p", { class: "bubble-text" });
  const author = h("p", { class: "bubble-author" });
  const li = h(
    "li",
    { class: "turn turn-user", dataset: { turnRender: "" } },
    h("div", { class: "bubble bubble-user" }, author, text, timeEl(at)),
  );
  li.render = () => {
    const preset = presetById.get(presetId ?? prompts[id]);
    author.textContent = t("you");
    text.textContent = preset ? (preset[lang] ?? preset.en).prompt : t("fallbackPrompt", toolName);
  };
  li.render();
  log.append(li);
  return li;
}

/** An assistant message; `render` fills the lead line from the current language. */
function addAssistantTurn(at) {
  const author = h("p", { class: "bubble-author" });
  const lead = h("p", { class: "bubble-text bubble-lead" });
  const body = h("div", { class: "bubble bubble-assistant" }, author, lead);
  const li = h(
    "li",
    { class: "turn turn-assistant", dataset: { turnRender: "" } },
    h("div", { class: "avatar", "aria-hidden": "true" }, "AI"),
    body,
  );
  const turn = {
    li,
    body,
    lead,
    leadKey: "calling",
    leadArgs: [],
    setLead(key, ...args) {
      this.leadKey = key;
      this.leadArgs = args;
      li.render();
    },
  };
  li.render = () => {
    author.textContent = t("assistant");
    lead.textContent = t(turn.leadKey, ...turn.leadArgs);
    turn.renderExtra?.();
  };
  body.append(timeEl(at));
  li.render();
  log.append(li);
  return turn;
}

/** The MCP server the demo talks to: `?server=` (an http(s) URL), else the reference server at /mcp. */
function serverUrl() {
  const asked = new URLSearchParams(location.search).get("server");
  try {
    const parsed = asked ? new URL(asked) : null;
    if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:")) return parsed.href;
  } catch {
    // not a URL: the default below
  }
  return new URL("/mcp", location).href;
}

function attachTask(turn, snapshot, leadKey, client = ownerOf(snapshot.taskId)) {
  owners.set(snapshot.taskId, client);
  const card = document.createElement("mcp-task");
  card.client = client;
  card.taskId = snapshot.taskId;
  const sandbox = appSandboxUrl();
  if (sandbox) card.setAttribute("app-sandbox", sandbox);
  turn.card = card;
  turn.taskId = snapshot.taskId;
  turn.li.dataset.taskId = snapshot.taskId;
  turn.body.insertBefore(card, turn.body.querySelector(".bubble-time"));
  if (snapshot.protocol) {
    turn.body.insertBefore(h("p", { class: "task-protocol", text: `MCP ${snapshot.protocol}` }), turn.body.querySelector(".bubble-time"));
  }
  turn.body.classList.add("has-card");
  turn.setLead(leadKey, snapshot.toolName);
  bubbles.set(snapshot.taskId, turn);
  maybeAnswerHostRequests(snapshot);
  return card;
}

/**
 * The package's sandbox.html on this page's other loopback name (an MCP App's document must not share
 * the page's origin); null when the page is not on loopback.
 */
function appSandboxUrl() {
  const other = { "127.0.0.1": "localhost", localhost: "127.0.0.1" }[location.hostname];
  if (!other) return null;
  const url = new URL("/pkg/sandbox.html", location.href);
  url.hostname = other;
  return url.href;
}

/** Reads `client`'s tools once, keeping each one's `_meta.ui`; a server without tools/list has none. */
async function learnToolApps(client) {
  const apps = new Map();
  toolApps.set(client, apps);
  try {
    let cursor;
    for (let page = 0; page < 10; page += 1) {
      const listed = await client.listTools({ cursor });
      for (const tool of listed.tools) if (tool?._meta?.ui) apps.set(tool.name, tool._meta.ui);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
  } catch {
    // No apps then: the tools are still called, and their results shown as the card draws them.
  }
}

function showInlineResult(turn, toolName, result) {
  turn.setLead("inlineResult", toolName);
  const texts = (result?.content ?? []).filter((c) => c?.type === "text").map((c) => c.text);
  const box = h("div", { class: result?.isError ? "inline-result is-error" : "inline-result" });
  for (const text of texts.length ? texts : [JSON.stringify(result?.structuredContent ?? result)]) {
    box.append(h("p", { text }));
  }
  turn.body.insertBefore(box, turn.body.querySelector(".bubble-time"));
}

function showCallError(turn, toolName, error) {
  turn.setLead("failedCall", toolName);
  turn.body.classList.add("is-error");
  const code = typeof error?.code === "number" ? ` (${error.code})` : "";
  turn.body.insertBefore(h("p", { class: "call-error", text: `${describeError(error)}${code}` }), turn.body.querySelector(".bubble-time"));
}

function addUnknownCall(snapshot) {
  addUserTurn({ id: snapshot.callId, toolName: snapshot.toolName, at: snapshot.startedAt });
  const turn = addAssistantTurn(snapshot.startedAt);
  turn.setLead("unknownCall", snapshot.toolName);
  turn.body.classList.add("is-warning");
  const forget = h("button", { type: "button", class: "button-secondary button-small" });
  turn.renderExtra = () => {
    forget.textContent = t("forget");
  };
  turn.li.render();
  forget.addEventListener("click", async () => {
    forget.disabled = true;
    try {
      await ownerOf(snapshot.callId).forget(snapshot.callId);
      turn.li.previousElementSibling?.remove();
      turn.li.remove();
      bubbles.delete(snapshot.callId);
      refreshSide();
    } catch (error) {
      forget.disabled = false;
      showBanner("forgetFailedTitle", "forgetFailed", [], describeError(error));
    }
  });
  turn.body.insertBefore(h("p", { class: "bubble-actions" }, forget), turn.body.querySelector(".bubble-time"));
  bubbles.set(snapshot.callId, turn);
}

/** A bubble pair for a task this page did not start just now (restored, or from another tab). */
function addTaskTurns(snapshot, leadKey) {
  addUserTurn({ id: snapshot.taskId, toolName: snapshot.toolName, at: snapshot.createdAt });
  const turn = addAssistantTurn(snapshot.createdAt);
  attachTask(turn, snapshot, leadKey);
  return turn;
}

async function startPreset(preset) {
  const client = demo.clients[picked];
  if (!client) return;
  const now = Date.now();
  addUserTurn({ presetId: preset.id, toolName: preset.tool, at: now });
  const turn = addAssistantTurn(now);
  turn.setLead("calling", preset.tool);
  turn.body.classList.add("is-pending");
  scrollIntoViewGently(turn.li);
  pendingCalls += 1;
  try {
    const ui = toolApps.get(client)?.get(preset.tool);
    const outcome = await client.callTool(preset.tool, preset.args, ui ? { ui } : {});
    turn.body.classList.remove("is-pending");
    if (outcome.kind === "task") {
      const id = outcome.task.taskId;
      prompts[id] = preset.id;
      savePrompts();
      // A `task` event may have raced ahead of the call's answer and made a bubble already: keep ours.
      const raced = bubbles.get(id);
      if (raced && raced !== turn) {
        raced.li.previousElementSibling?.remove();
        raced.li.remove();
        raced.card?.remove();
      }
      attachTask(turn, outcome.task, "startedTask", client);
    } else {
      showInlineResult(turn, preset.tool, outcome.result);
    }
  } catch (error) {
    turn.body.classList.remove("is-pending");
    showCallError(turn, preset.tool, error);
    if (isNetworkError(error)) showBanner("networkTitle", "network", [serverUrl()]);
  } finally {
    pendingCalls -= 1;
    refreshSide();
    scrollIntoViewGently(turn.li);
  }
}

// ---------------------------------------------------------------------------------------------------
// The host's own answers: sampling and roots requests (the element leaves them to the host).

const HOST_METHODS = new Set(["sampling/createMessage", "roots/list"]);
const answeredKeys = new Set();

function maybeAnswerHostRequests(snapshot) {
  if (!snapshot?.taskId || snapshot.status !== "input_required") return;
  const asks = Object.entries(snapshot.inputRequests ?? {}).filter(
    ([key, request]) => HOST_METHODS.has(request?.method) && !answeredKeys.has(`${snapshot.taskId}\n${key}`),
  );
  if (asks.length === 0) return;
  for (const [key] of asks) answeredKeys.add(`${snapshot.taskId}\n${key}`);
  const note = hostNote(snapshot.taskId);
  note?.set("hostAnswering");
  setTimeout(async () => {
    const responses = {};
    for (const [key, request] of asks) {
      responses[key] = request.method === "roots/list" ? ROOTS_ANSWER : SAMPLING_ANSWER;
    }
    try {
      await ownerOf(snapshot.taskId).respond(snapshot.taskId, responses);
      note?.set("hostAnswered");
    } catch (error) {
      // Let the next change of this task try again.
      for (const [key] of asks) answeredKeys.delete(`${snapshot.taskId}\n${key}`);
      note?.set("hostFailed", describeError(error));
    }
  }, HOST_ANSWER_DELAY_MS);
}

/** The "the page is answering…" line inside a task's bubble. */
function hostNote(taskId) {
  const turn = bubbles.get(taskId);
  if (!turn) return null;
  if (!turn.hostNote) {
    const p = h("p", { class: "host-note", role: "status" });
    turn.body.insertBefore(p, turn.body.querySelector(".bubble-time"));
    turn.hostNote = {
      key: null,
      args: [],
      set(key, ...args) {
        this.key = key;
        this.args = args;
        p.dataset.state = key;
        p.textContent = t(key, ...args);
      },
    };
    const previous = turn.renderExtra;
    turn.renderExtra = () => {
      previous?.();
      if (turn.hostNote.key) p.textContent = t(turn.hostNote.key, ...turn.hostNote.args);
    };
  }
  return turn.hostNote;
}

// ---------------------------------------------------------------------------------------------------
// The side panel.

function renderCount() {
  if (!demo.client) return;
  const all = demo.clients.flatMap((client) => client.tasks());
  const waiting = all.filter((s) => s.status === "input_required").length;
  $("task-count").textContent = t("count", all.length, waiting);
  $("task-count").hidden = all.length === 0;
  $("forget-all").disabled = all.length === 0;
}

function renderFacts(pkg = renderFacts.pkg) {
  renderFacts.pkg = pkg;
  if (pkg) {
    $("fact-protocol").textContent = pkg.protocolVersion?.() ?? "—";
    $("fact-extension").textContent = pkg.tasksExtensionId?.() ?? "—";
  }
  if (demo.client) $("fact-storage").textContent = demo.client.durable ? t("durable") : t("memoryOnly");
}

function refreshSide() {
  renderCount();
  renderHint();
}

$("forget-all").addEventListener("click", async () => {
  const button = $("forget-all");
  button.disabled = true;
  button.textContent = t("forgetting");
  try {
    for (const client of demo.clients) await client.clear();
    for (const turn of bubbles.values()) {
      turn.li.previousElementSibling?.remove();
      turn.li.remove();
    }
    bubbles.clear();
    answeredKeys.clear();
    prompts = {};
    savePrompts();
    store.remove("hint-dismissed");
    restoredAtOpen = 0;
  } catch (error) {
    showBanner("forgetFailedTitle", "forgetFailed", [], describeError(error));
  } finally {
    button.textContent = t("forgetAll");
    refreshSide();
  }
});

// ---------------------------------------------------------------------------------------------------
// Start-up.

/** Hears `client`'s events: tasks started in another tab, calls of unknown outcome, storage. */
function watch(client) {
  client.addEventListener("task", (event) => {
    const snapshot = event.detail;
    if (snapshot?.taskId && !bubbles.has(snapshot.taskId) && pendingCalls === 0) {
      // Started in another tab of this namespace (the client shares changes between tabs).
      owners.set(snapshot.taskId, client);
      addTaskTurns(snapshot, "otherTabTask");
    }
    maybeAnswerHostRequests(snapshot);
    refreshSide();
  });
  client.addEventListener("call", (event) => {
    const snapshot = event.detail;
    if (snapshot?.callId && !bubbles.has(snapshot.callId)) {
      owners.set(snapshot.callId, client);
      addUnknownCall(snapshot);
    }
    refreshSide();
  });
  client.addEventListener("storage", (event) => {
    renderFacts();
    if (event.detail && event.detail.durable === false) showBanner("storageTitle", "storage2", [], event.detail.reason ?? "");
  });
}

/** `?second=` (an http(s) URL): the second MCP server the page also connects to; else none. */
function secondServerUrl() {
  try {
    const parsed = new URL(new URLSearchParams(location.search).get("second") ?? "");
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** With two servers: the switch that picks which one the tool buttons call (named by host). */
function renderServerPick(urls) {
  const pick = $("server-pick");
  if (urls.length < 2) return;
  pick.replaceChildren(
    h("legend", { dataset: { i18n: "serverPick" }, text: t("serverPick") }),
    ...urls.map((url, i) =>
      h("label", { class: "server-option" },
        h("input", { type: "radio", name: "server", value: String(i), checked: i === picked }),
        h("span", { text: new URL(url).host }))),
  );
  pick.hidden = false;
}

$("server-pick").addEventListener("change", (event) => {
  picked = Number(event.target.value) || 0;
});

const byAge = (s) => (s.taskId === null ? s.startedAt : Date.parse(s.createdAt)) || 0;

async function start() {
  applyLanguage(store.get("lang", null) ?? (navigator.language?.toLowerCase().startsWith("th") ? "th" : "en"));

  let pkg;
  let defineMcpTask;
  try {
    pkg = await import("/pkg/mcp_tasks_web.js");
    await pkg.default();
    ({ defineMcpTask } = await import("/pkg/element.js"));
    defineMcpTask();
  } catch (error) {
    demo.error = describeError(error);
    $("tools-note").textContent = t("notReady");
    showBanner("loadFailedTitle", "loadFailed", [], describeError(error));
    return;
  }
  renderFacts(pkg);

  // `?server=<MCP URL>` points the demo at another server (the interop peers under
  // tests/interop/servers/ offer the same tools); the package the demo loads drives both task
  // generations, and each card says which one its task lives under.
  const url = serverUrl();
  let client;
  try {
    client = await pkg.TaskClient.open({ url, namespace: NAMESPACE, clientInfo: { name: "mcp-tasks-web-demo", version: "1.0.0" } });
  } catch (error) {
    demo.error = describeError(error);
    $("tools-note").textContent = t("notReady");
    showBanner("openFailedTitle", "openFailed", [url], describeError(error));
    return;
  }
  // The second server (`?second=`), when asked: a failure to open it leaves the first one working.
  const second = secondServerUrl();
  const clients = [client];
  if (second) {
    try {
      clients.push(await pkg.TaskClient.open({ url: second, namespace: NAMESPACE, clientInfo: { name: "mcp-tasks-web-demo", version: "1.0.0" } }));
    } catch (error) {
      showBanner("openFailedTitle", "openFailed", [second], describeError(error));
    }
  }
  demo.client = client;
  demo.clients = clients;
  for (const each of clients) watch(each);
  await Promise.all(clients.map(learnToolApps));

  // Re-create the conversation from what the clients restored, oldest first.
  const restored = clients
    .flatMap((each) => each.tasks().map((snapshot) => {
      owners.set(snapshot.taskId ?? snapshot.callId, each);
      return snapshot;
    }))
    .sort((a, b) => byAge(a) - byAge(b));
  const known = new Set(restored.map((s) => s.taskId ?? s.callId));
  prompts = Object.fromEntries(Object.entries(store.get("prompts", {})).filter(([id]) => known.has(id)));
  savePrompts();
  restoredAtOpen = restored.length;
  for (const snapshot of restored) {
    if (bubbles.has(snapshot.taskId ?? snapshot.callId)) continue;
    if (snapshot.taskId === null) addUnknownCall(snapshot);
    else addTaskTurns(snapshot, "restoredTask");
  }
  renderServerPick(clients.map((each, i) => (i === 0 ? url : second)));

  // The list has its own empty state; the page's placeholder only stands in until it exists.
  const list = document.createElement("mcp-task-list");
  list.clients = clients;
  $("list-empty").remove();
  $("list-wrap").append(list);

  demo.ready = true;
  $("tools-note").textContent = t("ready");
  renderToolButtons();
  renderFacts();
  refreshSide();
  if (!client.durable && !bannerState) showBanner("storageTitle", "storage2");
}

renderNet();
start().catch((error) => {
  demo.error = describeError(error);
  showBanner("loadFailedTitle", "loadFailed", [], describeError(error));
});
