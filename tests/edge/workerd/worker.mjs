// The Worker the workerd edge test (tests/edge/workerd.test.mjs) runs in Miniflare: a Durable Object
// that holds one `TaskClient` in edge mode (`autoPoll: false`, tasks in the object's storage through
// `durableObjectStore`) and lets its alarm drive `client.step()`. Nothing here polls on its own: only
// `/start`, `/respond`, the probes and the alarm call `step()`; `GET /tasks`, `/log`, `/alarm` only read.
//
//   POST /start   {tool, args}         → callTool, step, setAlarm(nextWakeAt)  → {taskId, outcome, step}
//   POST /respond {taskId, responses}  → respond, step, re-arm                 → {step}
//        probe options: via: "fresh" (queue through a second TaskClient on the same storage),
//        step: false (only queue), alarmInMs (move the alarm to now + alarmInMs first)
//   POST /step                         → one step() of a fresh TaskClient       → {step, trace, at, done}
//   POST /race    {taskId, responses, mode}  → queue, then two step()s at once in this request → {a, b, trace}
//   GET  /tasks                        → client.tasks()
//   GET  /log                          → {instance, opened, log}: the steps run (stored in the object):
//                                        {at, done, reason, instance, nextWakeAt, live, settled, polled, sent} or {at, reason, error}
//   GET  /alarm                        → {alarm}: the alarm time set, or null
//
// The server URL comes from the `MCP_URL` binding. The Worker's fetch sends everything to one object.
import { TaskClient } from "./workerd.mjs";
import { durableObjectStore } from "./stores.js";

const LOG_KEY = "edge-test/log"; // outside the client's `mcp-tasks/2/…` keys
const LOG_MAX = 200;

/** `inner` with every call run one at a time through `lock.chain` (an atomic compareAndPut within this isolate). */
function lockedStore(inner, lock) {
  const run = (fn) => {
    const result = lock.chain.then(fn, fn);
    lock.chain = result.catch(() => {});
    return result;
  };
  return {
    get: (key) => run(() => inner.get(key)),
    put: (key, value) => run(() => inner.put(key, value)),
    delete: (key) => run(() => inner.delete(key)),
    list: (prefix) => run(() => inner.list(prefix)),
    compareAndPut: (key, expected, value) => run(() => inner.compareAndPut(key, expected, value)),
  };
}

/** `inner` with its compareAndPut results counted in `trace` ({ok, conflict}). */
function tracedStore(inner, trace) {
  return {
    get: (key) => inner.get(key),
    put: (key, value) => inner.put(key, value),
    delete: (key) => inner.delete(key),
    list: (prefix) => inner.list(prefix),
    compareAndPut: async (key, expected, value) => {
      const ok = await inner.compareAndPut(key, expected, value);
      trace[ok ? "ok" : "conflict"] += 1;
      return ok;
    },
  };
}

const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function describe(error) {
  return { name: error?.name ?? null, message: String(error?.message ?? error), code: error?.code ?? null, stack: error?.stack ?? null };
}

export class TasksObject {
  constructor(state, env) {
    this.state = state;
    this.env = env;
    this.clientPromise = null;
    // Steps of this object run one after another (an alarm and a /respond may arrive together while
    // one of them awaits the network).
    this.queue = Promise.resolve();
    this.opened = 0;
  }

  client() {
    if (this.clientPromise === null) {
      this.opened += 1;
      this.clientPromise = TaskClient.open({
        url: this.env.MCP_URL,
        namespace: "edge",
        store: durableObjectStore(this.state.storage),
        autoPoll: false,
        clientInfo: { name: "workerd-edge-test", version: "0.0.0" },
      }).catch((error) => {
        this.clientPromise = null;
        throw error;
      });
    }
    return this.clientPromise;
  }

  openFresh(store) {
    return TaskClient.open({ url: this.env.MCP_URL, namespace: "edge", store, autoPoll: false });
  }

  async appendLog(entry) {
    const log = (await this.state.storage.get(LOG_KEY)) ?? [];
    log.push(entry);
    await this.state.storage.put(LOG_KEY, log.slice(-LOG_MAX));
  }

  /** One `step()`, logged, then the alarm set to `nextWakeAt` (or deleted when nothing is live). */
  stepAndArm(reason) {
    const run = async () => {
      const client = await this.client();
      const at = Date.now();
      let result;
      try {
        result = await client.step();
      } catch (error) {
        await this.appendLog({ at, reason, error: describe(error) });
        throw error;
      }
      const { nextWakeAt, live, settled, polled, sent } = result;
      await this.appendLog({ at, done: Date.now(), reason, instance: this.instance, nextWakeAt, live, settled, polled, sent });
      if (nextWakeAt !== null && nextWakeAt !== undefined) await this.state.storage.setAlarm(nextWakeAt);
      else await this.state.storage.deleteAlarm();
      return result;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => {});
    return next;
  }

  get instance() {
    this._instance ??= crypto.randomUUID().slice(0, 8);
    return this._instance;
  }

  async fetch(request) {
    const { pathname } = new URL(request.url);
    try {
      if (request.method === "POST" && pathname === "/start") {
        const { tool, args } = await request.json();
        const client = await this.client();
        const outcome = await client.callTool(tool, args ?? {});
        const step = await this.stepAndArm("start");
        return json({ taskId: outcome.kind === "task" ? outcome.task.taskId : null, outcome, step });
      }
      if (request.method === "POST" && pathname === "/respond") {
        // Options for the probes: `via: "fresh"` queues the answer through a second TaskClient opened
        // on the same storage (as another isolate would), then closes it; `step: false` only queues
        // (no step) and, with `alarmInMs`, moves the alarm to now + alarmInMs.
        const { taskId, responses, via, step: doStep = true, alarmInMs } = await request.json();
        if (alarmInMs !== undefined) {
          // Push the alarm out first, then let a step already running finish (it would re-arm sooner).
          await this.state.storage.setAlarm(Date.now() + alarmInMs);
          await this.queue;
        }
        if (via === "fresh") {
          const other = await this.openFresh(durableObjectStore(this.state.storage));
          try {
            await other.respond(taskId, responses);
          } finally {
            other.close();
          }
        } else {
          await (await this.client()).respond(taskId, responses);
        }
        if (alarmInMs !== undefined) await this.state.storage.setAlarm(Date.now() + alarmInMs);
        const step = doStep ? await this.stepAndArm("respond") : null;
        return json({ step });
      }
      if (request.method === "POST" && pathname === "/race") {
        // Queues the answers (the alarm pushed out 3 s, a running step finished first), then runs two
        // step()s at once inside this one request. `mode`: "same-client" — two step()s of this object's
        // client; "two-clients" — two fresh TaskClients on durableObjectStore(storage); "two-clients-locked"
        // — the same with each store call (compareAndPut included) run one at a time across both.
        // → {a, b} (the two step results); the alarm is then set to the earlier nextWakeAt.
        const { taskId, responses, mode } = await request.json();
        await this.state.storage.setAlarm(Date.now() + 3000);
        await this.queue;
        await (await this.client()).respond(taskId, responses);
        let a;
        let b;
        const trace = { ok: 0, conflict: 0 };
        const at = Date.now();
        if (mode === "same-client") {
          const client = await this.client();
          [a, b] = await Promise.all([client.step(), client.step()]);
        } else {
          const lock = { chain: Promise.resolve() };
          const store = () => tracedStore(mode === "two-clients-locked" ? lockedStore(durableObjectStore(this.state.storage), lock) : durableObjectStore(this.state.storage), trace);
          const [one, two] = await Promise.all([this.openFresh(store()), this.openFresh(store())]);
          try {
            [a, b] = await Promise.all([one.step(), two.step()]);
          } finally {
            one.close();
            two.close();
          }
        }
        await this.appendLog({ at, reason: `race-${mode}`, instance: this.instance, a, b, trace });
        const wake = [a.nextWakeAt, b.nextWakeAt].filter((t) => t !== null);
        if (wake.length) await this.state.storage.setAlarm(Math.min(...wake));
        return json({ a, b, trace });
      }
      if (request.method === "POST" && pathname === "/step") {
        // One step() of a fresh TaskClient (as a request in another isolate would run it); no alarm change.
        const trace = { ok: 0, conflict: 0 };
        const other = await this.openFresh(tracedStore(durableObjectStore(this.state.storage), trace));
        const at = Date.now();
        try {
          const step = await other.step();
          await this.appendLog({ at, done: Date.now(), reason: "fresh-step", instance: this.instance, ...step, trace });
          return json({ step, trace, at, done: Date.now() });
        } finally {
          other.close();
        }
      }
      if (request.method === "GET" && pathname === "/tasks") {
        const client = await this.client();
        return json(client.tasks());
      }
      if (request.method === "GET" && pathname === "/log") {
        return json({ instance: this.instance, opened: this.opened, log: (await this.state.storage.get(LOG_KEY)) ?? [] });
      }
      if (request.method === "GET" && pathname === "/alarm") {
        return json({ alarm: await this.state.storage.getAlarm() });
      }
      return json({ error: `no route ${request.method} ${pathname}` }, 404);
    } catch (error) {
      return json({ error: describe(error) }, 500);
    }
  }

  async alarm() {
    // A throw makes workerd retry the alarm (with backoff); the error is in the log.
    await this.stepAndArm("alarm");
  }
}

export default {
  async fetch(request, env) {
    const stub = env.TASKS.get(env.TASKS.idFromName("edge"));
    return stub.fetch(request);
  },
};
