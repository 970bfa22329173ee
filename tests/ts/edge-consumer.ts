// An edge-worker host written against the shipped .d.ts of mcp-tasks-web/workerd and /stores;
// type-checked by `cargo xtask test` (tsc --strict), never run.
import { TaskClient } from "../../pkg/workerd.js";
import type { StepResult, TaskStore } from "../../pkg/workerd.js";
import { denoKvStore, durableObjectStore, mapStore } from "../../pkg/stores.js";
import type { DurableObjectStorageLike, VersionedTaskStore } from "../../pkg/stores.js";

export async function alarm(storage: DurableObjectStorageLike & { setAlarm(at: number): Promise<void> }): Promise<void> {
  const store: VersionedTaskStore = durableObjectStore(storage);
  const client = await TaskClient.open({ url: "http://127.0.0.1:8787/mcp", namespace: "user-42", store, autoPoll: false });
  const result: StepResult = await client.step();
  if (result.nextWakeAt !== null) await storage.setAlarm(result.nextWakeAt);
  const live: number = result.live + result.settled + result.polled + result.sent;
  console.log(live);
  const plain: TaskStore = mapStore(new Map());
  const ok: boolean | Promise<boolean> | undefined = plain.compareAndPut?.("k", null, "v");
  console.log(ok);
  // @ts-expect-error: nextWakeAt may be null.
  const at: number = result.nextWakeAt;
  console.log(at, denoKvStore);
}
