// Helpers for the Node tests of TaskClient: load the built package, start reference servers.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export const SERVER_BIN = process.env.MCP_TASKS_SERVER;
if (!SERVER_BIN) throw new Error("set MCP_TASKS_SERVER to the reference server binary (cargo xtask test does)");

const pkg = await import(new URL("../../pkg/node.mjs", import.meta.url));
await pkg.default();
export const { TaskClient } = pkg;

/** Starts a reference server on a free loopback port; resolves with { url, base, stop }. */
export async function startServer(args = []) {
  const child = spawn(SERVER_BIN, ["--listen", "127.0.0.1:0", "--memory", "--quiet", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  const url = first.split(/\s+/).find((w) => w.startsWith("http://"));
  return { url, base: url.replace(/\/mcp$/, ""), stop: () => child.kill() };
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

export async function admin(server, path, body) {
  const response = await fetch(`${server.base}${path}`, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}
