// The decode figure's page (`cargo xtask bench decode`; runner.mjs serves it with the bench build of our
// package at /ours/ and the bundled official side beside it). It times what a host pays per tasks/get
// response body, from a JS string to a decoded task in JS, for the three bodies of benches/core.rs
// (inputs.json, written by that bench):
//
//   ours            the package's path: benchDecodeTasksGetBytes(taskId, bytes, true): the body's bytes
//                   (as fetch's arrayBuffer gives them, as the JS driver hands them to the door) into
//                   wasm, decoded as the door does, the task back out as JSON text that JS parses (the
//                   door's effects cross the same way);
//   official        officialDecode(taskId, text): JSON.parse + ext-tasks' GetTaskResultV2Schema parse
//                   and taskId check (official-entry.mjs);
//   officialBytes   the same from the body's bytes through TextDecoder, as its transport's
//                   response.json() reads them (printed beside; the rows' reference is official);
//   oursDecodeOnly  the package's path, only the status string back (what the JS object costs);
//   jsonParse       JSON.parse(text) alone (the floor for anything that hands JS an object).
//
// Each subject runs in batches: a batch repeats one decode a fixed number of times (doubled beforehand,
// after the warm-up, until a batch takes at least `batchMs`) and yields µs per decode; the subjects'
// batches interleave, in a rotating order, so a slow moment hits all of them. Before that, ours and
// official are checked to decode each body alike. The result goes to `window.bench`
// (`{ done, error?, ... }`), which the runner reads.
import init, { benchDecodeTasksGetBytes } from "/ours/mcp_tasks_web.js";
import { officialDecode } from "./official.js";

const params = new URLSearchParams(location.search);
const BATCHES = Number(params.get("batches") || 21);
const BATCH_MS = Number(params.get("batchMs") || 20);
const WARMUP_MS = Number(params.get("warmupMs") || 300);
const status = (text) => (document.getElementById("status").textContent = text);

// Each takes (taskId, text, bytes): the body as a JS string and as the bytes fetch would give.
const SUBJECTS = {
  ours: (taskId, _text, bytes) => benchDecodeTasksGetBytes(taskId, bytes, true),
  official: (taskId, text) => officialDecode(taskId, text),
  officialBytes: (taskId, _text, bytes) => officialDecode(taskId, utf8.decode(bytes)),
  oursDecodeOnly: (taskId, _text, bytes) => benchDecodeTasksGetBytes(taskId, bytes, false),
  jsonParse: (_taskId, text) => JSON.parse(text),
};

// As a fetch Response's text() and json() read a body: UTF-8, a BOM dropped.
const utf8 = new TextDecoder();

// Every result is touched, so no decode can be skipped as unused.
let sink = 0;

/** Runs `fn` `n` times; ms taken. */
function repeat(fn, taskId, text, bytes, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) {
    const value = fn(taskId, text, bytes);
    if (value === undefined) sink += 1;
  }
  return performance.now() - t0;
}

/** Repetitions for one batch of at least BATCH_MS, by doubling. */
function calibrate(fn, taskId, text, bytes) {
  let n = 1;
  while (repeat(fn, taskId, text, bytes, n) < BATCH_MS && n < 1 << 24) n *= 2;
  return n;
}

function spread(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return { median: v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2, min: v[0], max: v[v.length - 1] };
}

/** The decoded task, whichever side decoded it, reduced to what both must agree on. */
function gist(task) {
  return JSON.stringify({
    taskId: task.taskId,
    status: task.status,
    statusMessage: task.statusMessage,
    inputRequests: Object.keys(task.inputRequests ?? {}),
    content: task.result?.content?.length ?? null,
    text: task.result?.content?.[1]?.text?.length ?? null,
  });
}

async function main() {
  await init();
  const inputs = await (await fetch("./inputs.json")).json();
  const { taskId } = inputs;
  const names = Object.keys(SUBJECTS);
  const results = [];
  for (const { name, body } of inputs.cases) {
    status(`${name}…`);
    const bytes = new TextEncoder().encode(body);
    const official = SUBJECTS.official(taskId, body, bytes);
    for (const subject of ["ours", "officialBytes"]) {
      const ours = SUBJECTS[subject](taskId, body, bytes);
      if (gist(ours) !== gist(official)) throw new Error(`${name}: ${subject} and official decode differently: ${gist(ours)} vs ${gist(official)}`);
    }
    if (SUBJECTS.oursDecodeOnly(taskId, body, bytes) !== official.status) throw new Error(`${name}: decode-only status differs`);
    // Ours refuses what the client refuses (each mutation breaks one check).
    const mutations = {
      "another task": (m) => (m.result.taskId = "tsk_other"),
      "status a number": (m) => (m.result.status = 3),
      "unknown status": (m) => (m.result.status = "paused"),
      "fractional ttlMs": (m) => (m.result.ttlMs = 1.5),
      "no createdAt": (m) => delete m.result.createdAt,
      "an error beside the result": (m) => (m.error = { code: 1, message: "x" }),
    };
    for (const [what, mutate] of Object.entries(mutations)) {
      const message = JSON.parse(body);
      mutate(message);
      const text = JSON.stringify(message);
      let refused = false;
      try {
        SUBJECTS.ours(taskId, text, new TextEncoder().encode(text));
      } catch {
        refused = true;
      }
      if (!refused) throw new Error(`${name}: ours accepted a body with ${what}`);
    }
    const counts = {};
    for (const subject of names) {
      const fn = SUBJECTS[subject];
      // Warm up (wasm tiers up from its baseline compiler, JS functions get optimised), then size the batch.
      const warmup = calibrate(fn, taskId, body, bytes);
      const until = performance.now() + WARMUP_MS;
      while (performance.now() < until) repeat(fn, taskId, body, bytes, warmup);
      counts[subject] = calibrate(fn, taskId, body, bytes);
    }
    const perOpUs = Object.fromEntries(names.map((s) => [s, []]));
    for (let round = 0; round < BATCHES; round += 1) {
      for (let k = 0; k < names.length; k += 1) {
        const subject = names[(round + k) % names.length];
        const ms = repeat(SUBJECTS[subject], taskId, body, bytes, counts[subject]);
        perOpUs[subject].push((ms * 1000) / counts[subject]);
      }
    }
    const subjects = Object.fromEntries(
      names.map((s) => [s, { perBatch: counts[s], perOpUs: perOpUs[s], ...spread(perOpUs[s]) }]),
    );
    results.push({ name, bytes: bytes.length, status: official.status, subjects });
  }
  return {
    done: true,
    batches: BATCHES,
    batchMs: BATCH_MS,
    warmupMs: WARMUP_MS,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sink,
    results,
  };
}

window.bench = { done: false };
try {
  window.bench = await main();
  status("done");
} catch (error) {
  window.bench = { done: true, error: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
  status(window.bench.error);
}
