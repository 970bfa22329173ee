// The page half of the matrix's worker cells: `window.inWorker(message)` starts a module worker
// (worker.js), sends it `message` and resolves with its reply (`{ ok, value }` or `{ ok: false, error }`).
window.inWorker = (message) => new Promise((resolve) => {
  const worker = new Worker("./worker.js", { type: "module" });
  worker.addEventListener("error", (e) => resolve({ ok: false, error: `worker error: ${e.message}` }));
  worker.addEventListener("message", ({ data }) => {
    resolve(data);
    worker.terminate();
  });
  worker.postMessage(message);
});
window.workerReady = true;
