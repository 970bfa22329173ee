// A host store that breaks its contract makes open() reject, naming the method and the shape it must
// give — never a client that reports itself durable while the stored tasks are not loaded, nor one
// that quietly keeps tasks in memory. (Only IndexedDB falls back to memory; Node has none.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { TaskClient } from "./support.mjs";

const url = "http://127.0.0.1:9/mcp"; // never contacted: open() reads the store only
const key = "mcp-tasks/2/contract/http:%2F%2F127.0.0.1:9%2Fmcp/task/t1"; // the client's key of task t1

/** A store over a Map holding one stored record under the client's prefix. */
function storeWith(overrides = {}) {
  const map = new Map([[key, "{}"]]);
  return {
    async get(key) { return map.get(key); },
    async put(key, value) { map.set(key, value); },
    async delete(key) { map.delete(key); },
    async list(prefix) { return [...map.entries()].filter(([k]) => k.startsWith(prefix)); },
    ...overrides,
  };
}

test("a host store whose list() gives bare keys makes open() reject, naming list and the shape", async () => {
  const store = storeWith({ async list(prefix) { return [key].filter((k) => k.startsWith(prefix)); } });
  await assert.rejects(TaskClient.open({ url, namespace: "contract", store }), (e) => {
    assert.equal(e.name, "StorageError", `${e.name}: ${e.message}`);
    assert.match(e.message, /list\(/);
    assert.match(e.message, /\[key, value\] pair/);
    return true;
  });
});

test("a host store without delete() makes open() reject, naming the method", async () => {
  const store = storeWith();
  delete store.delete;
  await assert.rejects(TaskClient.open({ url, namespace: "contract", store }), (e) => {
    assert.equal(e.name, "StorageError", `${e.name}: ${e.message}`);
    assert.match(e.message, /`delete`/);
    return true;
  });
});

test("a host store that keeps its contract opens durable", async () => {
  const client = await TaskClient.open({ url, namespace: "contract-ok", store: storeWith() });
  assert.equal(client.durable, true);
  client.close();
});
