// A Deno "edge worker" for tests/edge/deno.test.mjs: one process per command, as a Deno Deploy
// isolate woken by a cron would run. Everything that must outlive the process is in Deno KV.
//
//   deno run --unstable-kv --allow-net=127.0.0.1 --allow-read=<pkg>,<kvdir> --allow-write=<kvdir> \
//     worker.ts <kvFile> <url> <command> [args...]
//
// commands (stdout: one JSON line each, unless said otherwise):
//   start <tool> <argsJSON>      client.callTool(tool, args)            → {kind, taskId, status}
//   step [--barrier] [--fail-next-cas] [--repeat N]
//                                client.step()                          → the step's JSON, then a 2nd line:
//                                                                          client.tasks() after the step
//                                --barrier: open, write "ready" to stderr, wait for a line on stdin,
//                                  then step, so two processes can be released at the same moment;
//                                --fail-next-cas: the store's next compareAndPut throws (as a local
//                                  Deno KV does with "database is locked" while another process writes);
//                                --repeat N: up to N steps in this one isolate (a long-lived isolate),
//                                  sleeping until nextWakeAt between them (50..1000 ms), two lines each;
//                                  stops after a step that leaves nothing live
//   tasks                        client.tasks()
//   respond <taskId> <json>      client.respond(taskId, answers)        → {ok: true}
//   kv                           the raw KV entries under ["mcp-tasks"] → [{key, bytes, value}]
// stderr carries markers the harness reads: "ready" (opened), "stepping" (step() called), and
// "storage-event {detail}" for every `storage` event (a store call failed, or a record was unreadable).
// A failure prints `error: {name, message, code}` to stderr and exits 1. If anything keeps the event
// loop alive after the work is done, an unref'd timer exits with 3 ("lingering").
import { TaskClient } from "../../../pkg/deno.mjs";
import { denoKvStore } from "../../../pkg/stores.js";

const [kvFile, url, command, ...rest] = Deno.args;
const out = (value: unknown) => console.log(JSON.stringify(value));
const mark = (text: string) => console.error(`${text} ${Date.now()}`);

async function readLine(): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of Deno.stdin.readable) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes("\n")) break;
  }
  return text.trim();
}

const kv = await Deno.openKv(kvFile);
const store = denoKvStore(kv);
let failNextCas = false;
const faulty = {
  ...store,
  compareAndPut(key: string, expected: string | null, value: string) {
    if (failNextCas) {
      failNextCas = false;
      return Promise.reject(new TypeError("database is locked (injected by the test)"));
    }
    return store.compareAndPut(key, expected, value);
  },
};
const option = (name: string) => {
  const at = rest.indexOf(name);
  return at < 0 ? undefined : rest[at + 1];
};
let client: any;
try {
  client = await TaskClient.open({ url, namespace: "edge", store: rest.includes("--fail-next-cas") ? faulty : store, autoPoll: false });
  // A store failure or fallback is reported as a `storage` event: pass it on (the harness asserts none).
  client.addEventListener("storage", (e: any) => console.error(`storage-event ${JSON.stringify(e.detail)}`));
  mark("ready");
  switch (command) {
    case "start": {
      const [tool, args] = rest;
      const outcome = await client.callTool(tool, JSON.parse(args ?? "{}"));
      out({ kind: outcome.kind, taskId: outcome.task?.taskId ?? null, status: outcome.task?.status ?? null });
      break;
    }
    case "step": {
      if (rest.includes("--barrier")) await readLine();
      failNextCas = rest.includes("--fail-next-cas");
      const repeat = Number(option("--repeat") ?? 1);
      for (let i = 0; i < repeat; i++) {
        mark("stepping");
        const result = await client.step();
        out(result);
        out(client.tasks());
        if (result.live === 0 || i === repeat - 1) break;
        const wait = Math.min(1000, Math.max(50, (result.nextWakeAt ?? 0) - Date.now()));
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      break;
    }
    case "tasks":
      out(client.tasks());
      break;
    case "respond": {
      const [taskId, answers] = rest;
      await client.respond(taskId, JSON.parse(answers));
      out({ ok: true });
      break;
    }
    case "kv": {
      const entries = [];
      for await (const entry of kv.list({ prefix: ["mcp-tasks"] })) {
        const text = typeof entry.value === "string" ? entry.value : JSON.stringify(entry.value);
        entries.push({ key: entry.key, bytes: text.length, value: entry.value });
      }
      out(entries);
      break;
    }
    default:
      throw new Error(`unknown command ${command}`);
  }
} catch (error: any) {
  console.error(`error: ${JSON.stringify({ name: error?.name, message: error?.message ?? String(error), code: error?.code ?? null })}`);
  if (error?.stack) console.error(error.stack);
  Deno.exitCode = 1;
} finally {
  try { client?.close(); } catch (error) { console.error(`close: ${error}`); Deno.exitCode = 1; }
  kv.close();
}
// Nothing should keep the isolate alive now; if something does (a timer, a stream), say so and exit.
const lingering = setTimeout(() => {
  console.error("lingering: the event loop stayed alive 3 s after the command finished");
  Deno.exit(3);
}, 3000);
Deno.unrefTimer(lingering);
