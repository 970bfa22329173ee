// Helpers for the Node tests of TaskClient: load the built package, start reference servers.
import { startServer as startReferenceServer } from "../support/server.mjs";

export const SERVER_BIN = process.env.MCP_TASKS_SERVER;
if (!SERVER_BIN) throw new Error("set MCP_TASKS_SERVER to the reference server binary (cargo xtask test does)");

// `MCP_TASKS_PKG`: another build's Node entry, to run this suite on it.
const pkg = await import(new URL(process.env.MCP_TASKS_PKG ?? "../../pkg/node.mjs", import.meta.url));
await pkg.default();
export const { TaskClient } = pkg;

/**
 * Starts a reference server (--quiet, `args` after it) on a free loopback port, its stderr passed
 * through; resolves with { url, base, admin, stop }.
 */
export function startServer(args = []) {
  return startReferenceServer({ quiet: true, args, stderr: "inherit", bin: SERVER_BIN });
}

/** A host store over a Map, as an edge worker or a test would give it. */
export function mapStore(map = new Map()) {
  return {
    map,
    async get(key) { return map.get(key); },
    async put(key, value) { map.set(key, value); },
    async delete(key) { map.delete(key); },
    async list(prefix) { return [...map.entries()].filter(([k]) => k.startsWith(prefix)).sort(); },
  };
}

/** Resolves with the first `task` event whose snapshot satisfies `test`. */
export function nextTask(client, test, ms = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no matching task event")), ms);
    const listener = (event) => {
      if (test(event.detail)) {
        clearTimeout(timer);
        client.removeEventListener("task", listener);
        resolve(event.detail);
      }
    };
    client.addEventListener("task", listener);
  });
}

/** POSTs `body` to the admin endpoint `path` of `server` (see tests/support/server.mjs). */
export const admin = (server, path, body) => server.admin(path, body);
