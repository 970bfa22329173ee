// Types of mcp-tasks-web/stores.
import type { TaskStore } from "./client.js";

/** A TaskStore with the atomic version check step mode relies on. */
export type VersionedTaskStore = TaskStore & Required<Pick<TaskStore, "compareAndPut">>;

/** Anything with Map's get / set / delete and entries() (or iteration) over string → string. */
export interface MapLike {
  get(key: string): string | undefined | null;
  set(key: string, value: string): unknown;
  delete(key: string): unknown;
  entries?(): Iterable<[string, string]>;
  [Symbol.iterator]?(): Iterator<[string, string]>;
}

/** The slice of Durable Object storage the store uses (`ctx.storage`). */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<boolean>;
  list(options: { prefix: string }): Promise<Map<string, unknown>>;
}

/** The slice of Deno KV the store uses (`await Deno.openKv()`). */
export interface DenoKvLike {
  get(key: unknown[]): Promise<{ key: unknown[]; value: unknown; versionstamp: string | null }>;
  set(key: unknown[], value: unknown): Promise<unknown>;
  delete(key: unknown[]): Promise<void>;
  list(selector: { start: unknown[]; end: unknown[] }): AsyncIterable<{ key: unknown[]; value: unknown }>;
  atomic(): { check(...entries: Array<{ key: unknown[]; versionstamp: string | null }>): any; set(key: unknown[], value: unknown): any; commit(): Promise<{ ok: boolean }> };
}

export function mapStore(map?: MapLike): VersionedTaskStore;
export function durableObjectStore(storage: DurableObjectStorageLike): VersionedTaskStore;
export function denoKvStore(kv: DenoKvLike, prefix?: unknown[]): VersionedTaskStore;
