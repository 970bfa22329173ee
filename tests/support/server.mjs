// The reference MCP server (server/) as the Node test suites start it: tests/e2e (rig.mjs, demo), tests/js
// (support.mjs) and tests/edge (deno, workerd). Plain Node: no Playwright, so the edge tests need no
// Chromium. Not a test file itself: `node --test` and xtask pick `*.test.mjs`.
//
// The server listens on a free loopback port (`--listen 127.0.0.1:0`, memory store) and prints its
// `http://127.0.0.1:PORT/mcp` URL as the first stdout line; with `--faults` that line also ends in
// `; admin token: TOKEN`, the token its `/admin/*` endpoints require (generated at start, so it never
// appears in the process list the way an `--admin-token` flag would). Unless `--quiet`, its stderr
// carries one request log line per answered request, `<method> <taskId|tool> <status> <code|ok> <ms>ms`;
// these are parsed into `log` with the time each line arrived, so tests can count what actually reached
// the server.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** `$MCP_TASKS_SERVER`, or the debug build of `cargo build -p mcp-tasks-server`. */
export const SERVER_BIN = process.env.MCP_TASKS_SERVER || join(ROOT, "target/debug/mcp-tasks-server");
/** The entry for `requireFiles` that names the server binary. */
export const SERVER_BUILT = ["server binary (cargo build -p mcp-tasks-server)", SERVER_BIN];

/** Throws `missing <what>: <path>` for the first `[what, path]` whose path does not exist. */
export function requireFiles(entries) {
  for (const [what, path] of entries) {
    if (!existsSync(path)) throw new Error(`missing ${what}: ${path}`);
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const LOG_LINE = /^(\S+) (\S+) (\d{3}) (\S+) (\d+)ms$/;

/**
 * Starts a reference server on a free loopback port with
 * `--listen 127.0.0.1:0 --memory [--www DIR] [--pkg DIR] [--poll-interval-ms N] [--faults] [--quiet] ...args`.
 *
 * Options: `www`, `pkg` (directories served at / and /pkg/), `pollMs`, `faults` (the /admin endpoints),
 * `quiet` (no request log), `args` (more flags, last), `stderr` ("capture", the default: each line is
 * parsed into `log` or kept in `other`; "inherit": the server writes to this process's stderr),
 * `verbose` (echo each captured line), `bin` (default SERVER_BIN).
 *
 * Resolves with `{ url, base, adminToken, log, other, lines, admin, faults, stop }`. A `log` entry is
 * `{ at, start, method, name, status, code, ms, text }`: `at` when the line arrived, `start` when the
 * request did (the line is written when it is answered).
 */
export async function startServer({ www, pkg, pollMs, faults = false, quiet = false, args = [], stderr = "capture", verbose = false, bin = SERVER_BIN } = {}) {
  const argv = ["--listen", "127.0.0.1:0", "--memory"];
  if (www !== undefined) argv.push("--www", www);
  if (pkg !== undefined) argv.push("--pkg", pkg);
  if (pollMs !== undefined) argv.push("--poll-interval-ms", String(pollMs));
  if (faults) argv.push("--faults");
  if (quiet) argv.push("--quiet");
  argv.push(...args);
  const inherit = stderr === "inherit";
  const child = spawn(bin, argv, { stdio: ["ignore", "pipe", inherit ? "inherit" : "pipe"] });
  const log = [];
  const other = [];
  if (!inherit) {
    createInterface({ input: child.stderr }).on("line", (text) => {
      const at = Date.now();
      const m = LOG_LINE.exec(text);
      if (m) {
        const ms = Number(m[5]);
        log.push({ at, start: at - ms, method: m[1], name: m[2], status: Number(m[3]), code: m[4], ms, text });
      } else {
        other.push(text);
      }
      if (verbose) console.error(`  [server ${at % 100_000}] ${text}`);
    });
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const first = await Promise.race([
    new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve)),
    exited.then((code) => { throw new Error(`server exited with ${code}${other.length ? `: ${other.join("\n")}` : ""}`); }),
  ]);
  const url = first.split(/\s+/).find((w) => w.startsWith("http://"));
  assert.ok(url?.startsWith("http://127.0.0.1:") && url.endsWith("/mcp"), `server URL from "${first}"`);
  const base = url.replace(/\/mcp$/, "");
  // Only with --faults: the generated token from the first line, or the one `args` gave with
  // --admin-token (not echoed); undefined without --faults (and then there is no /admin to call).
  const given = argv.indexOf("--admin-token");
  const adminToken = /; admin token: (\S+)/.exec(first)?.[1] ?? (given >= 0 ? argv[given + 1] : undefined);
  return {
    url,
    base,
    adminToken,
    log,
    other,
    /**
     * Log entries of `method` and `name` (task id or tool; null or undefined: any), from log index
     * `from` on and arrived at `since` (ms) or later.
     */
    lines(method, name, { from = 0, since = 0 } = {}) {
      return log.slice(from).filter((l) => l.at >= since && (method == null || l.method === method) && (name == null || l.name === name));
    },
    /** POSTs `body` (JSON, if given) to the admin endpoint `path` with the admin token; its JSON answer. */
    async admin(path, body) {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
      return response.json();
    },
    /** Sets the fault injection (needs `faults: true`). */
    faults(settings) {
      return this.admin("/admin/faults", settings);
    },
    /** SIGTERMs the server (the child spawned here, by its PID) and waits up to 3 s for it to exit. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await Promise.race([exited, sleep(3000)]);
      }
    },
  };
}
