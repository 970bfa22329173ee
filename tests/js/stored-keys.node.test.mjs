// Store keys across the upgrade from the bare `mcp-tasks/1/…` keys: open() moves what the
// previous release stored to the escaped `mcp-tasks/2/…` keys, takes nothing of a client whose URL
// extends its own, and loses nothing when the store fails midway. Step mode (autoPoll: false): these
// clients read the store only, and send nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { TaskClient, mapStore } from "./support.mjs";

const url = "http://127.0.0.1:9/mcp"; // never contacted
const record = await readFile(new URL("../fixtures/task-record-v1.json", import.meta.url), "utf8");
const id = JSON.parse(record).taskId;
/** What the previous release wrote: every part bare. */
const previous = (namespace, url, rest) => `mcp-tasks/1/${namespace}/${url}/${rest}`;
const enc = (part) => part.replaceAll("%", "%25").replaceAll("/", "%2F");
const current = (namespace, url, rest) => `mcp-tasks/2/${enc(namespace)}/${enc(url)}/${rest}`;
const open = (store, extra = {}) => TaskClient.open({ url, namespace: "ns", store, autoPoll: false, ...extra });

test("records the previous release stored load after the upgrade, under the new keys", async () => {
  const store = mapStore(new Map([
    [previous("ns", url, `task/${id}`), record],
    [previous("ns", url, "call/call-1"), "{}"],
    // A client on `${url}/task`: its record sat under this client's bare prefix.
    [previous("ns", `${url}/task`, "task/t2"), record],
  ]));
  const client = await open(store);
  assert.deepEqual(client.tasks().map((t) => [t.taskId, t.restored]), [[id, true]]);
  client.close();
  assert.deepEqual([...store.map.keys()].sort(), [
    previous("ns", `${url}/task`, "task/t2"),
    current("ns", url, "call/call-1"),
    current("ns", url, `task/${id}`),
  ]);
  assert.equal(store.map.get(current("ns", url, `task/${id}`)), record);

  const other = await open(store, { url: `${url}/task` });
  assert.deepEqual(other.tasks().map((t) => t.restored), [true], "the other client's record is its own");
  other.close();
  assert.ok(store.map.has(current("ns", `${url}/task`, "task/t2")));
  assert.ok(![...store.map.keys()].some((k) => k.startsWith("mcp-tasks/1/")), [...store.map.keys()].join(", "));
});

test("user-info, query and fragment are left out of the new keys", async () => {
  const secretUrl = "http://alice:secret@127.0.0.1:9/mcp?token=secret#secret";
  const store = mapStore(new Map([[previous("ns", secretUrl, `task/${id}`), record]]));
  const client = await open(store, { url: secretUrl });
  assert.equal(client.tasks().length, 1);
  client.close();
  assert.deepEqual([...store.map.keys()], [current("ns", url, `task/${id}`)]);
});

for (const failing of ["put", "delete"]) {
  test(`a ${failing} that fails while records move rejects open(), loses nothing, and the next open finishes`, async () => {
    const store = mapStore(new Map([[previous("ns", url, `task/${id}`), record]]));
    const healthy = store[failing];
    store[failing] = async () => { throw new Error(`${failing} failed (injected by the test)`); };
    await assert.rejects(open(store), (e) => e.name === "StorageError" && e.message.includes("injected"));
    assert.equal(store.map.get(previous("ns", url, `task/${id}`)), record, "the old record is still there");
    store[failing] = healthy;
    const client = await open(store);
    assert.equal(client.tasks().length, 1);
    client.close();
    assert.deepEqual([...store.map.keys()], [current("ns", url, `task/${id}`)]);
  });
}

test("a record under the new key is kept over the previous release's copy (compareAndPut)", async () => {
  const store = mapStore(new Map([
    [previous("ns", url, `task/${id}`), "an older copy"],
    [current("ns", url, `task/${id}`), record],
  ]));
  store.compareAndPut = async (key, expected, value) => {
    if ((store.map.get(key) ?? null) !== expected) return false;
    store.map.set(key, value);
    return true;
  };
  const client = await open(store);
  assert.equal(client.tasks().length, 1);
  client.close();
  assert.deepEqual([...store.map.entries()], [[current("ns", url, `task/${id}`), record]]);
});
