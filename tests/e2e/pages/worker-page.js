// The page half of tests/e2e/worker.test.mjs: starts dedicated workers that run worker.js and passes
// the test's requests to the newest one, as `window.workers = { start(), ask(message), stop() }`.
let worker = null;
let asked = 0;

window.workers = {
  /** A new module worker (the one before it is left running until `stop`). */
  start() {
    worker = new Worker("./worker.js", { type: "module" });
    worker.addEventListener("error", (e) => console.error(`worker error: ${e.message}`));
  },
  /** Sends `message` to the newest worker; resolves with its reply (`{ ok, ... }`). */
  ask(message) {
    const id = ++asked;
    return new Promise((resolve) => {
      const onReply = ({ data }) => {
        if (data.id !== id) return;
        worker.removeEventListener("message", onReply);
        resolve(data);
      };
      worker.addEventListener("message", onReply);
      worker.postMessage({ ...message, id });
    });
  },
  /** Ends the newest worker at once, whatever it is doing (as a closed tab ends its workers). */
  stop() {
    worker.terminate();
    worker = null;
  },
};
window.workersReady = true;
