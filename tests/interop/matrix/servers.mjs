// The peers of the interop matrix: one entry per MCP Tasks server, each built on a real SDK (or, for
// `reference`, this repository's own server). Every entry offers the same four tools — `build`
// (status messages), `deploy` (an approval that asks for input), `flaky` (a failure) and `long_job` (a
// cancellable job) — and starts on a free loopback port.
//
//   { name, sdk, version, protocol, enabled, reason?, pkg?, only?, prepare?, installed(), start(), quirks }
//
// `only` names the cells a peer runs when it cannot run them all (a server without the four tools).
//
// `pkg` is the package directory the client is loaded from (default `pkg`, which speaks both task
// generations).
//
// `start()` resolves with `{ url, stop(), lines? }`; `lines(method, name)` exists only for the
// reference server, whose stderr request log tells what reached the server (the others are counted
// client-side, by the harness's fetch wrapper or Playwright's request events).
//
// `prepare` tells `cargo xtask test` / `cargo xtask interop` how to install the peer from its lockfile
// (xtask reads it through `node servers.mjs --list`):
//   { kind: "python-venv", dir, lock, venv }   python3 -m venv VENV && VENV/bin/pip install --require-hashes -r LOCK
//   { kind: "npm", dir, lock }                 npm ci in DIR
//
// Enabling a peer is one line: its `enabled`. `KNOWN_FAILURES` lists cells that fail because of the
// client (not the server); they still run, and xtask prints them as "known failing, not counted as pass".
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ROOT, SERVER_BIN, startServer as startReferenceServer } from "../../support/server.mjs";

export { ROOT };

const SERVERS_DIR = join(ROOT, "tests/interop/servers");
/** Where xtask puts Python venvs (not in the source tree, so `git clean` and copies stay small). */
export const INTEROP_TARGET = process.env.MATRIX_TARGET_DIR || join(ROOT, "target/interop");

/**
 * Cells that fail because of OUR client, as `"server/cell"` → what happens. They still run; a pass is
 * reported as "known failure now passes", a failure is printed and not counted as a pass.
 */
export const KNOWN_FAILURES = {
  // "fastmcp4/offline and back": "…",
};

/** The package directory a server's cells load the client from. */
// `MCP_TASKS_PKG_DIR` puts another build laid out as pkg/ in pkg/'s place for the peers that load
// pkg/.
export const pkgDir = (server) =>
  server.pkg === undefined && process.env.MCP_TASKS_PKG_DIR ? process.env.MCP_TASKS_PKG_DIR : join(ROOT, server.pkg ?? "pkg");

/**
 * The cells, in table order: [id, runtime, servers?]. `servers` names the only servers a cell runs
 * against (the Retry-After cells put a gateway in front of a server without task notifications, so
 * that every task is polled); without it, every server.
 */
export const CELLS = [
  ["tools listed first", "node"],
  ["app resource read", "node", ["reference", "apps-basic"]],
  ["result", "node"],
  ["approval answered once", "node"],
  ["failure", "node"],
  ["cancel", "node"],
  ["step mode", "node"],
  ["listen cost", "node"],
  ["status stream", "node"],
  ["extension entry", "node"],
  ["reload mid-task", "chromium"],
  ["offline and back", "chromium"],
  ["two tabs", "chromium"],
  ["element approval", "chromium"],
  ["element progress", "chromium"],
  ["retry-after node", "node", ["ts-sdk-v2"]],
  ["retry-after steps", "node", ["ts-sdk-v2"]],
  ["retry-after page", "chromium", ["ts-sdk-v2"]],
  ["retry-after worker", "chromium", ["ts-sdk-v2"]],
  ["retry-after tabs", "chromium", ["ts-sdk-v2"]],
  ["retry-after call steps", "node", ["ts-sdk-v2"]],
  ["retry-after call tabs", "chromium", ["ts-sdk-v2"]],
  ["long inline call", "node", ["ts-sdk-v2", "ts-sdk-v1"]],
  ["token expires mid-task", "node", ["ts-sdk-v2"]],
  ["one download per load", "chromium", ["ts-sdk-v2", "ts-sdk-v1"]],
];

/** Whether `cell` runs against the server named `name`: CELLS' third field (the servers a cell needs) and the server's `only` (the cells a peer can run). */
export const runsOn = (cell, name) => {
  const servers = CELLS.find(([id]) => id === cell)?.[2];
  const only = SERVERS.find((s) => s.name === name)?.only;
  return (!servers || servers.includes(name)) && (!only || only.includes(cell));
};

/** A sleep that does not keep the process alive (for deadlines in races). */
const unrefSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** The endpoint a peer's first stdout line names: `listening on http://127.0.0.1:PORT/mcp`. */
const listeningOn = (line) => /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line)?.[1];

/**
 * Starts `argv` (cwd `cwd`), waits for its first stdout line, which `urlOf` reads the endpoint from
 * (by default `listening on http://127.0.0.1:PORT/mcp`), and returns `{ url, stop() }`. Its stderr is
 * kept (last 200 lines) for failure messages; stop() SIGTERMs the child by its PID and waits up to 5 s
 * (then SIGKILL).
 */
async function startProcess(label, argv, { cwd, env, urlOf = listeningOn } = {}) {
  const child = spawn(argv[0], argv.slice(1), { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const stderr = [];
  createInterface({ input: child.stderr }).on("line", (line) => {
    stderr.push(line);
    if (stderr.length > 200) stderr.shift();
    if (process.env.MATRIX_VERBOSE) console.error(`  [${label}] ${line}`);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    new Promise((resolve) => lines.once("line", resolve)),
    exited.then((how) => { throw new Error(`${label} exited (${how}) before listening:\n${stderr.join("\n")}`); }),
    unrefSleep(60_000).then(() => { throw new Error(`${label}: no "listening on" line within 60 s`); }),
  ]);
  lines.on("line", () => {}); // keep draining stdout
  const url = urlOf(first);
  if (!url) {
    child.kill("SIGKILL");
    throw new Error(`${label}: unexpected first stdout line "${first}"`);
  }
  return {
    url,
    stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const how = await Promise.race([exited, unrefSleep(5000).then(() => "timeout")]);
      if (how === "timeout") {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

/** The Version field of an installed Python distribution in `venv`, or null. */
function pythonDistVersion(venv, dist) {
  const lib = join(venv, "lib");
  if (!existsSync(lib)) return null;
  const norm = dist.replace(/-/g, "_").toLowerCase();
  for (const py of readdirSync(lib)) {
    const site = join(lib, py, "site-packages");
    if (!existsSync(site)) continue;
    for (const entry of readdirSync(site)) {
      const m = /^(.+)-([^-]+)\.dist-info$/.exec(entry);
      if (m && m[1].toLowerCase() === norm) return m[2];
    }
  }
  return null;
}

/** The version of npm package `name` installed under `dir`/node_modules, or null. */
function npmVersion(dir, name) {
  try {
    return JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

const FASTMCP4_DIR = join(SERVERS_DIR, "fastmcp4");
const FASTMCP4_VENV = join(INTEROP_TARGET, "fastmcp4-venv");
const TS_V1_DIR = join(SERVERS_DIR, "ts-sdk-v1");
const TS_V2_DIR = join(SERVERS_DIR, "ts-sdk-v2");
const APPS_DIR = join(SERVERS_DIR, "apps-basic");
const APPS_PACKAGE = "@modelcontextprotocol/server-basic-vanillajs";

/** A loopback port free a moment ago (for a peer that takes its port from the environment). */
async function freePort() {
  const { createServer } = await import("node:net");
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = /** @type {import("node:net").AddressInfo} */ (probe.address());
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts `node server.mjs --port 0` in a TS SDK peer's directory, with the cell's `args` if any. */
const startNodePeer = (label, dir) => (args = []) =>
  startProcess(label, [process.execPath, "server.mjs", "--port", "0", ...args], { cwd: dir });

export const SERVERS = [
  {
    name: "reference",
    sdk: "mcp-tasks-server (this repository, Rust)",
    version: readFileSync(join(ROOT, "server/Cargo.toml"), "utf8").match(/^version = "([^"]+)"/m)?.[1] ?? "?",
    protocol: "2026-07-28",
    enabled: true,
    installed: () => (existsSync(SERVER_BIN) ? "built" : null),
    async start() {
      // Not quiet: its stderr request log counts what reached the server.
      const server = await startReferenceServer({ bin: SERVER_BIN });
      return { url: server.url, stop: () => server.stop(), lines: (method, name) => server.lines(method, name) };
    },
    quirks: {
      listen: true, // offers subscriptions/listen: the client is pushed, tasks/get is rare
      inputKeyMinted: false, // deploy asks under its own key ("approval-1")
    },
  },
  {
    name: "fastmcp4",
    sdk: "FastMCP + fastmcp-tasks (Python)",
    version: "4.1.4",
    protocol: "2026-07-28",
    enabled: true,
    prepare: { kind: "python-venv", dir: FASTMCP4_DIR, lock: join(FASTMCP4_DIR, "requirements.lock"), venv: FASTMCP4_VENV },
    installed: () => {
      const a = pythonDistVersion(FASTMCP4_VENV, "fastmcp");
      const b = pythonDistVersion(FASTMCP4_VENV, "fastmcp-tasks");
      return a && b ? `fastmcp ${a}, fastmcp-tasks ${b}` : null;
    },
    start: () => startProcess("fastmcp4", [join(FASTMCP4_VENV, "bin/python"), "server.py", "--port", "0"], { cwd: FASTMCP4_DIR }),
    quirks: {
      listen: false, // subscriptions/listen → HTTP 404 -32601: the client must poll
      inputKeyMinted: true, // input keys are `<taskId>:<16 hex>`, new per leg
      lastUpdatedAtIsPollTime: true,
      resultTypeEverywhere: true,
    },
  },
  {
    name: "ts-sdk-v1",
    sdk: "@modelcontextprotocol/sdk (TypeScript)",
    version: "1.32.2",
    protocol: "2025-11-25",
    enabled: true,
    prepare: { kind: "npm", dir: TS_V1_DIR, lock: join(TS_V1_DIR, "package-lock.json") },
    installed: () => npmVersion(TS_V1_DIR, "@modelcontextprotocol/sdk"),
    start: startNodePeer("ts-sdk-v1", TS_V1_DIR),
    quirks: { listen: false, inputKeyMinted: true },
  },
  {
    name: "ts-sdk-v2",
    sdk: "@modelcontextprotocol/server + tasks layer (TypeScript)",
    version: "2.4.0",
    protocol: "2026-07-28",
    enabled: true,
    prepare: { kind: "npm", dir: TS_V2_DIR, lock: join(TS_V2_DIR, "package-lock.json") },
    installed: () => npmVersion(TS_V2_DIR, "@modelcontextprotocol/server"),
    start: startNodePeer("ts-sdk-v2", TS_V2_DIR),
    quirks: { listen: false, inputKeyMinted: true },
  },
  {
    // The official MCP Apps example: a stateless 2025-11-25 server without tasks, one tool (`get-time`)
    // that declares a `ui://` resource. It refuses a 2026-07-28 request as "Unsupported protocol version".
    name: "apps-basic",
    sdk: APPS_PACKAGE,
    version: "2.0.3",
    protocol: "2025-11-25",
    enabled: true,
    only: ["tools listed first", "app resource read"],
    tools: ["get-time"],
    prepare: { kind: "npm", dir: APPS_DIR, lock: join(APPS_DIR, "package-lock.json") },
    installed: () => npmVersion(APPS_DIR, APPS_PACKAGE),
    async start() {
      const port = await freePort();
      const bin = join(APPS_DIR, "node_modules", APPS_PACKAGE, "dist/index.js");
      // It listens on every interface and names localhost; the client reaches it on loopback.
      const urlOf = (line) => (/listening on http:\/\/localhost:(\d+)\/mcp/.test(line) ? `http://127.0.0.1:${port}/mcp` : undefined);
      return startProcess("apps-basic", [process.execPath, bin], { cwd: APPS_DIR, env: { PORT: String(port) }, urlOf });
    },
    quirks: { listen: false, inputKeyMinted: false },
  },
];

/**
 * The enabled peers, narrowed by `MATRIX_SERVERS` (comma-separated names) when set. A name there
 * that is disabled or unknown is an error, so a typo does not silently test nothing.
 */
export function selectedServers() {
  const wanted = (process.env.MATRIX_SERVERS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!wanted.length) return SERVERS.filter((s) => s.enabled);
  for (const name of wanted) {
    const entry = SERVERS.find((s) => s.name === name);
    if (!entry) throw new Error(`MATRIX_SERVERS names unknown server "${name}" (known: ${SERVERS.map((s) => s.name).join(", ")})`);
    if (!entry.enabled) throw new Error(`MATRIX_SERVERS names "${name}", which is disabled: ${entry.reason}`);
  }
  return SERVERS.filter((s) => wanted.includes(s.name));
}

/** Whether `MATRIX_CELLS` (comma-separated cell names; unset: all) selects `cell`. */
export function cellSelected(cell) {
  const wanted = (process.env.MATRIX_CELLS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return !wanted.length || wanted.includes(cell);
}

// `node servers.mjs --list`: the table as JSON, for xtask.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes("--list")) {
  const list = SERVERS.map((s) => ({
    name: s.name, sdk: s.sdk, version: s.version, protocol: s.protocol, enabled: s.enabled, reason: s.reason ?? null, pkg: s.pkg ?? "pkg",
    prepare: s.prepare ?? null, installed: s.installed(),
  }));
  console.log(JSON.stringify({ servers: list, cells: CELLS.map(([name, runtime]) => ({ name, runtime, servers: SERVERS.filter((s) => runsOn(name, s.name)).map((s) => s.name) })), knownFailures: KNOWN_FAILURES }));
}
