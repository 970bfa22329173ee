// A host written against the shipped .d.ts; `cargo xtask test` type-checks it with tsc --strict.
// It is never run: its job is to fail compilation if the published types drift from the API contract.
import init, { TaskClient, protocolVersion } from "../../pkg/client.js";
import type { CallToolOutcome, InputResponses, TaskSnapshot, TaskStore, UnknownCallSnapshot } from "../../pkg/client.js";

const store: TaskStore = {
  get: async (key) => localStorage.getItem(key),
  put: async (key, value) => localStorage.setItem(key, value),
  delete: async (key) => localStorage.removeItem(key),
  list: async (prefix) => Object.keys(localStorage).filter((k) => k.startsWith(prefix)).map((k): [string, string] => [k, localStorage.getItem(k) ?? ""]),
};

export async function host(): Promise<void> {
  await init();
  const version: string = protocolVersion();
  const client = await TaskClient.open({
    url: "http://127.0.0.1:8787/mcp",
    namespace: "user-42",
    headers: async () => ({ Authorization: "Bearer token" }),
    store: "indexeddb",
    clientInfo: { name: "my-host", version },
    minPollIntervalMs: 250,
    maxBackoffMs: 60000,
  });
  const other = await TaskClient.open({ url: "/mcp", store });
  other.close();

  const out: CallToolOutcome = await client.callTool("build", { target: "web" });
  if (out.kind === "result") {
    const text: unknown = out.result.content[0];
    console.log(text, out.result.isError === true);
    return;
  }
  const taskId: string = out.task.taskId;
  client.addEventListener("task", (e) => {
    const s: TaskSnapshot = e.detail;
    console.log(s.status, s.statusMessage, s.connectivity, s.nextPollAt, Object.keys(s.inputRequests));
  });
  client.addEventListener("call", (e) => {
    const c: UnknownCallSnapshot = e.detail;
    console.log(c.status === "outcome_unknown", c.toolName);
  });
  client.addEventListener("storage", (e) => console.log(e.detail.durable, e.detail.reason));
  const answers: InputResponses = { "approval-1": { action: "accept", content: { confirm: true } } };
  // @ts-expect-error respond takes a task id string
  await client.respond(42, answers);
  await client.respond(taskId, answers);
  await client.cancel(taskId);
  const final: TaskSnapshot = await client.wait(taskId);
  if (final.status === "failed" && final.error) console.log(final.error.code);
  if (final.status === "expired") console.log(final.expired?.reason);
  const all: Array<TaskSnapshot | UnknownCallSnapshot> = client.tasks();
  const controller = new AbortController();
  await client.callTool("ask_first", {}, {
    signal: controller.signal,
    onInputRequired: (requests) => Object.fromEntries(Object.keys(requests).map((k) => [k, { action: "decline" }])),
  });
  try {
    await client.callTool("nope");
  } catch (err) {
    const e = err as import("../../pkg/client.js").TaskClientError;
    console.log(e.name, e.code, e.retryable);
  }
  await client.forget(taskId);
  await client.clear();
  console.log(all.length, client.durable);
  client.close();
}
