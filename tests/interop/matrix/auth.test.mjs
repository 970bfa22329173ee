// The matrix's sign-in cell: TaskClient against ts-sdk-v2 with `/mcp` behind the SDK's own bearer-auth
// gate (`requireBearerAuth` of @modelcontextprotocol/server, `--auth-token-ms`), whose tokens expire
// before the task ends. The host's `headers` callback hands out the token it holds; when the client
// says the server wants sign-in (the `auth` event, with the SDK's challenge), the host gets a fresh
// token from the server's `/token` and signals it with a request of its own (`listTools`), as a host
// would after its OAuth flow. The task must complete with its result, the client must tell the host
// that sign-in was needed and then that it no longer is, and the gate must have refused only a few
// requests (no storm): the server counts them.
//
//   MATRIX_SERVERS=ts-sdk-v2 node --test tests/interop/matrix/auth.test.mjs
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { pkgDir } from "./servers.mjs";
import { cells, within } from "./support.mjs";

/** How long a minted token lives; more than the client's first wait before it probes again (2 s). */
const TOKEN_MS = 3_000;
/** A build that outlives two tokens. */
const BUILD = { seconds: 8, target: "signed-in" };

cells(
  "token expires mid-task",
  async (server, peer) => {
    const pkg = await import(pathToFileURL(join(pkgDir(server), "node.mjs")).href);
    await pkg.default();
    const base = peer.url.replace(/\/mcp$/, "");
    const mint = async () => {
      const reply = await fetch(`${base}/token`, { method: "POST" });
      return /** @type {{ access_token: string }} */ (await reply.json()).access_token;
    };
    const stats = async () => /** @type {{ refused: number, minted: number }} */ (await (await fetch(`${base}/auth-stats`)).json());
    let token = await mint();
    let asked = 0;
    const client = await pkg.TaskClient.open({
      url: peer.url,
      store: "memory",
      minPollIntervalMs: 100,
      namespace: "matrix-auth",
      headers: async () => {
        asked += 1;
        return { Authorization: `Bearer ${token}` };
      },
    });
    const events = [];
    const signIns = [];
    client.addEventListener("auth", (event) => {
      events.push(event.detail);
      if (event.detail.resolved) return;
      // The host's sign-in: a fresh token, then one request of its own, which ends the pause.
      signIns.push(
        (async () => {
          token = await mint();
          await client.listTools();
        })(),
      );
    });
    try {
      const out = await client.callTool("build", BUILD);
      assert.equal(out.kind, "task", `build returns a task handle: ${JSON.stringify(out)}`);
      const done = await within(client.wait(out.task.taskId), 30_000, "wait(build)");
      await Promise.all(signIns);
      assert.equal(done.status, "completed", JSON.stringify(done));
      assert.equal(done.result?.structuredContent?.target, BUILD.target, "the task's own result");
      const { refused, minted } = await stats();
      console.error(`  ${server.name} token expires mid-task: ${refused} refused, ${minted} tokens, ${asked} headers asked, auth events ${JSON.stringify(events.map((e) => e.resolved ? "resolved" : e.error))}`);
      const needed = events.filter((e) => !e.resolved);
      assert.ok(needed.length >= 1, `the client said the server wants sign-in: ${JSON.stringify(events)}`);
      assert.deepEqual(
        { status: needed[0].status, error: needed[0].error, description: needed[0].description, scope: needed[0].scope },
        { status: 401, error: "invalid_token", description: "Token has expired", scope: "mcp" },
        "the SDK's challenge, as the host gets it",
      );
      assert.match(needed[0].resourceMetadata ?? "", /\/\.well-known\/oauth-protected-resource\/mcp$/);
      assert.equal(events.at(-1)?.resolved, true, `and then that it no longer does: ${JSON.stringify(events)}`);
      // Each expiry costs the requests in flight when it came and nothing more: one task, polled.
      assert.ok(refused >= 1 && refused <= 2 * needed.length + 1, `${refused} requests refused for ${needed.length} sign-ins`);
      assert.ok(asked > refused + 2, `headers asked for every request (${asked})`);
    } finally {
      client.close();
    }
  },
  { timeout: 40_000, args: ["--auth-token-ms", String(TOKEN_MS)] },
);
