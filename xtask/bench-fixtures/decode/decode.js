// The decode figure's page (`cargo xtask bench decode`; runner.mjs serves it with the bench build of our
// package at /ours/ and the bundled official side beside it). It times what a host pays per tasks/get
// response body, from a JS string to a decoded task in JS, for the three bodies of benches/core.rs
// (inputs.json, written by that bench):
//
//   ours            benchDecodeTasksGet(taskId, text, true): the text into wasm, decoded as the client's
//                   transport does, the task back out as a JS object (src/bindings/bench.rs);
//   official        officialDecode(taskId, text): JSON.parse + ext-tasks' GetTaskResultV2Schema parse
//                   and taskId check (official-entry.mjs);
//   oursDecodeOnly  the same wasm decode, only the status string back (what the JS object costs);
//   jsonParse       JSON.parse(text) alone (the floor for anything that hands JS an object).
//
// Each subject runs in batches: a batch repeats one decode a fixed number of times (doubled beforehand,
// after the warm-up, until a batch takes at least `batchMs`) and yields µs per decode; the subjects'
// batches interleave, in a rotating order, so a slow moment hits all of them. Before that, ours and
// official are checked to decode each body alike. The result goes to `window.bench`
// (`{ done, error?, ... }`), which the runner reads.
import init, { benchDecodeTasksGet } from "/ours/mcp_tasks_web.js";
import { officialDecode } from "./official.js";

const params = new URLSearchParams(location.search);
const BATCHES = Number(params.get("batches") || 21);
const BATCH_MS = Number(params.get("batchMs") || 20);
const WARMUP_MS = Number(params.get("warmupMs") || 300);
const status = (text) => (document.getElementById("status").textContent = text);

const SUBJECTS = {
  ours: (taskId, text) => benchDecodeTasksGet(taskId, text, true),
  official: officialDecode,
  oursDecodeOnly: (taskId, text) => benchDecodeTasksGet(taskId, text, false),
  jsonParse: (_taskId, text) => JSON.parse(text),
};

// Every result is touched, so no decode can be skipped as unused.
let sink = 0;

/** Runs `fn` `n` times; ms taken. */
function repeat(fn, taskId, text, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) {
    const value = fn(taskId, text);
    if (value === undefined) sink += 1;
  }
  return performance.now() - t0;
}

/** Repetitions for one batch of at least BATCH_MS, by doubling. */
function calibrate(fn, taskId, text) {
  let n = 1;
  while (repeat(fn, taskId, text, n) < BATCH_MS && n < 1 << 24) n *= 2;
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
    const ours = SUBJECTS.ours(taskId, body);
    const official = SUBJECTS.official(taskId, body);
    if (gist(ours) !== gist(official)) throw new Error(`${name}: ours and official decode differently: ${gist(ours)} vs ${gist(official)}`);
    if (SUBJECTS.oursDecodeOnly(taskId, body) !== ours.status) throw new Error(`${name}: decode-only status differs`);
    const counts = {};
    for (const subject of names) {
      const fn = SUBJECTS[subject];
      // Warm up (wasm tiers up from its baseline compiler, JS functions get optimised), then size the batch.
      const warmup = calibrate(fn, taskId, body);
      const until = performance.now() + WARMUP_MS;
      while (performance.now() < until) repeat(fn, taskId, body, warmup);
      counts[subject] = calibrate(fn, taskId, body);
    }
    const perOpUs = Object.fromEntries(names.map((s) => [s, []]));
    for (let round = 0; round < BATCHES; round += 1) {
      for (let k = 0; k < names.length; k += 1) {
        const subject = names[(round + k) % names.length];
        const ms = repeat(SUBJECTS[subject], taskId, body, counts[subject]);
        perOpUs[subject].push((ms * 1000) / counts[subject]);
      }
    }
    const subjects = Object.fromEntries(
      names.map((s) => [s, { perBatch: counts[s], perOpUs: perOpUs[s], ...spread(perOpUs[s]) }]),
    );
    results.push({ name, bytes: new TextEncoder().encode(body).length, status: ours.status, subjects });
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
