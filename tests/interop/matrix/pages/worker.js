// A dedicated worker that drives TaskClient (the client-only build, `<pkg>client.js`) for the matrix's
// worker cells: it opens a client (IndexedDB) on `url`, calls `tool` once per entry of `calls` (the
// calls `gapMs` apart), waits for every task to settle and answers with the settled snapshots.
self.addEventListener("message", async ({ data }) => {
  const { pkg, url, namespace, minPollIntervalMs, tool, calls, gapMs = 0 } = data;
  try {
    const { default: init, TaskClient } = await import(`${pkg}client.js`);
    await init();
    const client = await TaskClient.open({ url, namespace, minPollIntervalMs });
    const ids = [];
    for (const args of calls) {
      if (ids.length) await new Promise((resolve) => setTimeout(resolve, gapMs));
      const out = await client.callTool(tool, args);
      if (out.kind !== "task") throw new Error(`not a task: ${JSON.stringify(out)}`);
      ids.push(out.task.taskId);
    }
    const done = await Promise.all(ids.map((id) => client.wait(id)));
    self.postMessage({ ok: true, value: { durable: client.durable, done } });
    client.close();
  } catch (e) {
    self.postMessage({ ok: false, error: `${e?.name}: ${e?.message}` });
  }
});
