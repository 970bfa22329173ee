// The scale figure's host page for the official requester (@modelcontextprotocol/ext-tasks 0.2.2 with
// @modelcontextprotocol/client 2.4.0). `cargo xtask bench scale` bundles this file with esbuild (platform
// browser, ESM, minified) into official.js next to official.html. Like ours.js it exposes `window.scale`
// for the driver (runner.mjs).
//
// The session is set up exactly as ../official-requester.mjs does (the same client, capabilities, pinned
// version and raw request path, copied here because that file exports only its host object). The host
// object is not used: its follow() rewrites the whole localStorage list of references when a task starts
// and when it ends, which at 10,000 tasks is 10,000 rewrites of a 1.5 MB list — a cost of that host code,
// not of the requester. Here the references are read once and every task is followed with
// `session.resumeTask(reference)` + `execution.settle()`, which is what resumeAll() does per reference.
//
// Setup (a first page):   template() starts one idle_job task as a task and keeps its serialized
//                         reference; clone(ids) stores one copy per id (ids from idle_seed) in localStorage.
// Measure (a fresh page): open() connects and resumes every stored reference (100 at a time);
//                         mark() and round(...) count since a mark, until every task was answered (or a
//                         window ends).
import { probe, round, watch } from "./probe.js";
import { openTaskSession } from "../official-wire.mjs";

const STORE_KEY = "mcp-tasks-scale";
const RESUME_CHUNK = 100;
const url = `${location.origin}/mcp`;
const status = (text) => (document.getElementById("status").textContent = text);

/** The session official-requester.mjs's connect() builds; input requests are declined. */
function openSession() {
  return openTaskSession(url, async () => ({ action: "decline" }));
}

const stored = () => JSON.parse(localStorage.getItem(STORE_KEY) ?? "[]");
let markedAt = 0;
let template = null;
let session = null;
let executions = [];
const ended = new Set();

window.scale = {

  async template() {
    const setup = await openSession();
    const execution = await setup.callTool("idle_job", {}, { task: { preference: "prefer" } });
    if (execution.kind !== "task") throw new Error(`idle_job answered ${execution.kind}, not a task`);
    template = execution.serializeReference();
    localStorage.setItem(STORE_KEY, JSON.stringify([template]));
    // Not settled or closed: closing would cancel it. The runner closes the page.
    return { templateId: template.taskId };
  },

  async clone(ids) {
    const text = JSON.stringify(template);
    const references = [template, ...ids.map((id) => JSON.parse(text.replaceAll(template.taskId, id)))];
    localStorage.setItem(STORE_KEY, JSON.stringify(references));
    return { stored: references.length, referenceBytes: text.length };
  },

  // As ours opens and closes a client before its baseline: the library's lazy setup (schemas) is done.
  async baseline() {
    const warm = await openSession();
    await warm.close();
    return {};
  },

  // Resumes RESUME_CHUNK references at a time: all 10,000 at once, the browser refuses the requests beyond
  // its limit of outstanding requests per page (net::ERR_INSUFFICIENT_RESOURCES) and resumeTask rejects.
  async open() {
    probe.mark();
    markedAt = performance.now();
    const references = stored();
    session = await openSession();
    executions = [];
    for (let i = 0; i < references.length; i += RESUME_CHUNK) {
      const chunk = await Promise.all(references.slice(i, i + RESUME_CHUNK).map((reference) => session.resumeTask(reference)));
      for (const execution of chunk) {
        const id = execution.handle?.taskId;
        execution.settle().then(() => ended.add(id), () => ended.add(id));
      }
      executions.push(...chunk);
    }
    const openMs = performance.now() - markedAt;
    watch(references.map((r) => r.taskId));
    return { openMs, restored: executions.length, live: executions.length - ended.size };
  },

  mark() {
    probe.mark();
    markedAt = performance.now();
  },

  round(windowMs, timeoutMs) {
    return round({ since: markedAt, windowMs: windowMs ?? Infinity, timeoutMs });
  },
};

window.scaleReady = true;
status("ready");
