// TaskClient in Node against the reference server's hostile mode (`--hostile`): each
// `hostile_*` tool misbehaves on purpose (server/src/http/hostile/). For every case the test asserts
// that the failure has a name (the error's `name`, or the task's `lastError.failure.kind`), that the
// module did not trap (the same client answers an `echo` call afterwards), and that a normal `build`
// task started alongside still runs to completion. The numbers cases assert that each number's text
// reaches the snapshot as JavaScript reads that text (`Object.is(value, Number(text))`).
//
// The stalled listen needs the client's 90 s idle limit to pass, so it runs concurrently with the
// other cases, which run one after another.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { TaskClient, startServer, nextTask } from "./support.mjs";

const server = await startServer(["--hostile", "--poll-interval-ms", "100"]);
after(() => server.stop());

const LIMIT = 8 << 20;
const tooLarge = /larger than this client accepts \(8388608 bytes\)/;

/** The first snapshot of `client` satisfying `test`: one it holds now, or the next `task` event's. */
const whenTask = async (client, test, ms) => {
  const now = client.tasks().find((s) => s.taskId && test(s));
  if (now) return now;
  try {
    return await nextTask(client, test, ms);
  } catch (e) {
    throw new Error(`${e.message} within ${ms} ms; the client holds ${JSON.stringify(client.tasks())}`);
  }
};

const open = (options = {}) => TaskClient.open({ url: server.url, store: "memory", minPollIntervalMs: 50, ...options });

/** Starts a 1 s `build` task; resolves with its id. */
async function startBuild(client) {
  const out = await client.callTool("build", { seconds: 1, target: "alongside" });
  assert.equal(out.kind, "task");
  return out.task.taskId;
}

/** The `build` task runs to its end, and the module still answers a call (it did not trap). */
async function assertStillWorking(client, buildId, what) {
  const done = await Promise.race([
    client.wait(buildId),
    new Promise((_, reject) => setTimeout(() => reject(new Error(`the build alongside ${what} did not finish`)), 20_000)),
  ]);
  assert.equal(done.status, "completed", `the build alongside ${what} completed`);
  assert.match(done.result.content[0].text, /Built alongside/);
  const echo = await client.callTool("echo", { text: `after ${what}` });
  assert.equal(echo.result.content[0].text, `after ${what}`, `the client still works after ${what}`);
}

/** Asserts `promise` rejects with an error named `name` whose message matches `message`. */
async function rejectsNamed(promise, name, message) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.name, name, `${e.name}: ${e.message}`);
    assert.match(e.message, message);
    return true;
  });
}

/**
 * Calls `tool` with `{ at: "poll", ...args }`, waits for its task's first failed poll, and returns
 * that snapshot (the task is cancelled afterwards by the caller's close).
 */
async function failingPoll(client, tool, args = {}) {
  const out = await client.callTool(tool, { at: "poll", ...args });
  assert.equal(out.kind, "task", `${tool} at: poll created a task`);
  const id = out.task.taskId;
  return whenTask(client, (s) => s.taskId === id && s.lastError !== null, 20_000);
}

/**
 * Runs `body(client)` with a fresh client and a `build` started first, then asserts the build
 * completes and the client still answers.
 */
async function withBuildAlongside(what, body, options) {
  const client = await open(options);
  try {
    const buildId = await startBuild(client);
    await body(client);
    await assertStillWorking(client, buildId, what);
  } finally {
    client.close();
  }
}

describe("TaskClient against the reference server's hostile mode", { concurrency: true }, () => {
  test("a listen stream that acknowledges and then stays silent is dropped after 90 s; the task is then polled to its end", { timeout: 180_000 }, async () => {
    // pushedBackstopMs 10 min: only the idle limit can end the stall's coverage within this test.
    const client = await open({ pushedBackstopMs: 600_000 });
    try {
      const buildId = await startBuild(client);
      const out = await client.callTool("hostile_listen_stall", { workMs: 20_000 });
      const id = out.task.taskId;
      const covered = await whenTask(client, (s) => s.taskId === id && s.connectivity === "listening", 15_000);
      assert.equal(covered.status, "working");
      // The build is not covered by the stalled stream (its acknowledgement names only the stall), so
      // it is polled and completes while the stall's stream says nothing.
      await assertStillWorking(client, buildId, "a stalled listen");
      const done = await client.wait(id);
      const doneAt = Date.now();
      assert.equal(done.status, "completed");
      assert.equal(done.result.content[0].text, "done after the listen stalled");
      assert.notEqual(done.connectivity, "listening");
      // The silence is counted from the latest stalled listen the server acknowledged (the set of live
      // tasks changed when the build ended, so the client opened a new stream for the stall alone).
      const { stallAcks } = (await client.callTool("hostile_stats", {})).result.structuredContent;
      const silentFor = doneAt - Math.max(...stallAcks.filter((at) => at <= doneAt));
      assert.ok(silentFor >= 85_000, `the stalled stream was trusted until the idle limit (${silentFor} ms; acks ${stallAcks})`);
      assert.ok(silentFor < 115_000, `and dropped soon after it (${silentFor} ms)`);
    } finally {
      client.close();
    }
  });

  test("the other hostile cases, one after another", { timeout: 300_000 }, async (t) => {
    await t.test("a gzip bomb answering tools/call fails it with ProtocolError", () =>
      withBuildAlongside("a gzip bomb", async (client) => {
        await rejectsNamed(client.callTool("hostile_gzip_bomb", {}), "ProtocolError", tooLarge);
      }));

    await t.test("a gzip bomb answering tasks/get: the task backs off with a badResponse failure", () =>
      withBuildAlongside("a polled gzip bomb", async (client) => {
        const failed = await failingPoll(client, "hostile_gzip_bomb");
        assert.equal(failed.lastError.failure.kind, "badResponse", JSON.stringify(failed.lastError));
        assert.equal(failed.status, "working");
        assert.equal(failed.connectivity, "backoff");
      }));

    await t.test("an SSE event that never ends fails the call with ProtocolError", () =>
      withBuildAlongside("an endless event", async (client) => {
        await rejectsNamed(client.callTool("hostile_endless_event", {}), "ProtocolError", tooLarge);
      }));

    await t.test("an endless SSE event answering tasks/get: badResponse", () =>
      withBuildAlongside("a polled endless event", async (client) => {
        const failed = await failingPoll(client, "hostile_endless_event");
        assert.equal(failed.lastError.failure.kind, "badResponse", JSON.stringify(failed.lastError));
      }));

    for (const [chunkBytes, totalBytes, size] of [[1, 64 << 10, "1 B"], [1 << 20, 64 << 20, "1 MiB"]]) {
      await t.test(`a newline flood in ${size} chunks that ends without an answer fails the call with a named error`, () =>
        withBuildAlongside(`a ${size} newline flood`, async (client) => {
          const started = Date.now();
          await rejectsNamed(client.callTool("hostile_newline_flood", { chunkBytes, totalBytes }), "NetworkError", /could not reach the MCP server/);
          assert.ok(Date.now() - started < 30_000, `read in ${Date.now() - started} ms`);
        }));
    }

    await t.test("a 64 MiB newline flood in 1 MiB chunks followed by the answer: the answer is read", () =>
      withBuildAlongside("a flood then an answer", async (client) => {
        const out = await client.callTool("hostile_newline_flood", { chunkBytes: 1 << 20, totalBytes: 64 << 20, then: "answer" });
        assert.equal(out.result.content[0].text, "after the flood");
      }));

    await t.test("a newline flood answering tasks/get: the task backs off (network)", () =>
      withBuildAlongside("a polled newline flood", async (client) => {
        const failed = await failingPoll(client, "hostile_newline_flood", { chunkBytes: 1 << 20, totalBytes: 4 << 20 });
        assert.equal(failed.lastError.failure.kind, "network", JSON.stringify(failed.lastError));
      }));

    await t.test("10,000 inputRequests in an MRTR answer fail the call with ProtocolError", () =>
      withBuildAlongside("an MRTR input flood", async (client) => {
        await rejectsNamed(client.callTool("hostile_input_flood", {}, { onInputRequired: () => assert.fail("no question may be asked") }),
          "ProtocolError", /more requests at once than the 256 this client takes/);
      }));

    await t.test("10,000 inputRequests on a task: refused with badResponse, no question taken", () =>
      withBuildAlongside("a task's input flood", async (client) => {
        const failed = await failingPoll(client, "hostile_input_flood");
        assert.equal(failed.lastError.failure.kind, "badResponse", JSON.stringify(failed.lastError));
        assert.equal(failed.status, "working", "the refused answer changed nothing");
        assert.deepEqual(Object.keys(failed.inputRequests), []);
      }));

    await t.test("maxInputRequests: a host that allows 300 questions gets a task's 300; the default client refuses them", async () => {
      await withBuildAlongside("300 questions within maxInputRequests", async (client) => {
        const out = await client.callTool("hostile_input_flood", { at: "poll", count: 300 });
        const asking = await whenTask(client, (s) => s.taskId === out.task.taskId && s.status === "input_required", 20_000);
        assert.equal(Object.keys(asking.inputRequests).length, 300);
        assert.equal(asking.lastError, null);
      }, { maxInputRequests: 300 });
      await withBuildAlongside("300 questions past the default", async (client) => {
        const failed = await failingPoll(client, "hostile_input_flood", { count: 300 });
        assert.equal(failed.lastError.failure.kind, "badResponse", JSON.stringify(failed.lastError));
        await rejectsNamed(client.callTool("hostile_input_flood", { count: 300 }, { onInputRequired: () => assert.fail("no question may be asked") }),
          "ProtocolError", /more requests at once than the 256 this client takes/);
      });
      // Out of range is clamped (1 … 4096), not refused: 0 takes one question, and not two.
      await withBuildAlongside("maxInputRequests clamped to 1", async (client) => {
        const out = await client.callTool("hostile_input_flood", { at: "poll", count: 1 });
        await whenTask(client, (s) => s.taskId === out.task.taskId && s.status === "input_required", 20_000);
        await rejectsNamed(client.callTool("hostile_input_flood", { count: 2 }, { onInputRequired: () => assert.fail("no question may be asked") }),
          "ProtocolError", /more requests at once than the 1 this client takes/);
      }, { maxInputRequests: 0 });
    });

    await t.test("10,000 nested arrays in a result fail the call with ProtocolError", () =>
      withBuildAlongside("deep nesting", async (client) => {
        await rejectsNamed(client.callTool("hostile_deep_nesting", {}), "ProtocolError", /JSON nested too deeply/);
      }));

    await t.test("10,000 nested arrays in a task's result: badResponse", () =>
      withBuildAlongside("polled deep nesting", async (client) => {
        const failed = await failingPoll(client, "hostile_deep_nesting");
        assert.equal(failed.lastError.failure.kind, "badResponse", JSON.stringify(failed.lastError));
      }));

    await t.test("a 307 to the other loopback origin fails with RedirectError and nothing arrives there", () =>
      withBuildAlongside("a cross-origin redirect", async (client) => {
        const before = (await client.callTool("hostile_stats", {})).result.structuredContent.redirectedArrivals;
        await rejectsNamed(client.callTool("hostile_redirect", { secret: "s3cret" }), "RedirectError", /HTTP 307\) to http:\/\/localhost:\d+/);
        const failed = await failingPoll(client, "hostile_redirect");
        assert.deepEqual(failed.lastError.failure, { kind: "http", status: 307, retryAfterMs: null });
        const afterwards = (await client.callTool("hostile_stats", {})).result.structuredContent.redirectedArrivals;
        assert.equal(afterwards, before, "no request followed the redirect to the other origin");
      }));

    await t.test("numbers at the edges of f64 in a result reach the snapshot as JavaScript reads their text", async () => {
      const client = await open();
      try {
        const buildId = await startBuild(client);
        const direct = await client.callTool("hostile_numbers", {});
        assertNumbersSurvive(direct.result.structuredContent, "a call's result");
        const out = await client.callTool("hostile_numbers", { at: "poll" });
        const done = await client.wait(out.task.taskId);
        assert.equal(done.status, "completed");
        assertNumbersSurvive(done.result.structuredContent, "a task's result");
        assertNumbersSurvive(client.tasks().find((s) => s.taskId === out.task.taskId).result.structuredContent, "tasks()");
        await assertStillWorking(client, buildId, "edge numbers");
      } finally {
        client.close();
      }
    });

    await t.test("numbers at the edges of f64 as a form's defaults and bounds: read as JavaScript reads them, answers echoed", async () => {
      const client = await open();
      try {
        const buildId = await startBuild(client);
        const out = await client.callTool("hostile_number_form", {});
        const id = out.task.taskId;
        const asking = await whenTask(client, (s) => s.taskId === id && s.status === "input_required", 20_000);
        const properties = asking.inputRequests.edges.params.requestedSchema.properties;
        const checked = [];
        for (const [name, field] of Object.entries(properties)) {
          for (const [keyword, text] of Object.entries(field["x-hostile-texts"])) {
            assert.ok(Object.is(field[keyword], Number(text)), `${name}.${keyword}: ${text} read as ${field[keyword]}, JavaScript reads ${Number(text)}`);
            checked.push(`${name}.${keyword}`);
          }
        }
        assert.equal(checked.length, 19, checked.join(", "));
        // Answers that are themselves edge numbers go back to the server as JSON writes them.
        const content = { tenth: 0.1, smallest: 5e-324, minNormal: 2.2250738585072014e-308, largest: 1.7976931348623157e308, beyondSafe: 9007199254740993, negativeZero: -0 };
        await client.respond(id, { edges: { action: "accept", content } });
        const done = await client.wait(id);
        assert.equal(done.status, "completed");
        const echoed = done.result.structuredContent.inputResponses.edges;
        assert.equal(JSON.stringify(echoed.content), JSON.stringify(content), done.result.content[0].text);
        assert.match(done.result.content[0].text, /"smallest":5e-324/);
        await assertStillWorking(client, buildId, "an edge-number form");
      } finally {
        client.close();
      }
    });
  });
});

/** Each `numbers[i]` is what JavaScript reads from `texts[i]` (-0 kept, 1e400 → Infinity, 2^53 + 1 rounded). */
function assertNumbersSurvive(structured, where) {
  const { numbers, texts } = structured;
  assert.equal(numbers.length, 20, `${where}: every number arrived`);
  assert.equal(texts.length, numbers.length);
  texts.forEach((text, i) => {
    assert.ok(Object.is(numbers[i], Number(text)), `${where}: ${text} arrived as ${Object.is(numbers[i], -0) ? "-0" : numbers[i]}, JavaScript reads ${Number(text)}`);
  });
  assert.ok(Object.is(numbers[texts.indexOf("-0")], -0), `${where}: -0 stays negative zero`);
  assert.equal(numbers[texts.indexOf("1e400")], Infinity);
}
