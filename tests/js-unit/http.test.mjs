// The request timeout of js/transport/http.js against a loopback server that answers slowly: without
// `quiet` it limits the whole exchange; with it, only silence, so a stream whose chunks keep coming may
// outlast it, and one that goes quiet is ended. One timer per request serves both.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, test } from "node:test";
import { send } from "../../js/transport/http.js";

/** `/stream?every=MS&count=N`: N chunks of an event stream, one every MS; `/hang`: a head, then nothing. */
const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/hang") {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(": open\n\n");
    return;
  }
  const every = Number(url.searchParams.get("every"));
  let left = Number(url.searchParams.get("count"));
  response.writeHead(200, { "content-type": "application/json" });
  const tick = () => {
    if (left-- === 0) return response.end("{}");
    response.write(" ");
    setTimeout(tick, every);
  };
  tick();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
after(() => server.closeAllConnections() || server.close());
const address = server.address();
const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

/** `send` of a POST to `path` with a timeout of `ms`; its failure's `kind`, or "ok" with the body. */
async function outcome(path, ms, quiet) {
  try {
    const reply = await send(`${base}${path}`, "{}", [], undefined, ms, new AbortController(), 1 << 20, quiet);
    if (reply.next) {
      while ((await reply.next()) !== undefined);
    }
    reply.close();
    return "ok";
  } catch (failure) {
    return failure.kind;
  }
}

test("a body that keeps arriving outlasts a silence limit, not a limit on the whole exchange", async () => {
  // 8 chunks 60 ms apart: about 480 ms in all, never 200 ms quiet.
  assert.equal(await outcome("/stream?every=60&count=8", 200, true), "ok");
  assert.equal(await outcome("/stream?every=60&count=8", 200, false), "timeout");
});

test("a silence limit ends a stream that goes quiet, counted from its last bytes", async () => {
  const started = Date.now();
  assert.equal(await outcome("/hang", 150, true), "timeout");
  const took = Date.now() - started;
  assert.ok(took >= 150 && took < 1_000, `ended after ${took} ms`);
});

test("the caller's controller ends the exchange as an abort, not a timeout", async () => {
  const controller = new AbortController();
  const pending = send(`${base}/hang`, "{}", [], undefined, 5_000, controller, 1 << 20, true).then(async (reply) => {
    await reply.next?.();
    return reply.next?.();
  });
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(pending, (failure) => failure.kind === "aborted");
});
