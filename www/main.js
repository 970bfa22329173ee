// Placeholder demo host: loads the package built by `cargo xtask build` and shows what it reports.
// Kept out of index.html so the page works under a CSP without 'unsafe-inline'.
// Served by the reference server (coming in a later issue) with pkg/ reachable as ../pkg/.
import init, { protocolVersion, tasksExtensionId } from "../pkg/mcp_tasks_web.js";

const show = (id, text) => {
  document.getElementById(id).textContent = text;
};

try {
  await init();
  show("protocol-version", protocolVersion());
  show("tasks-extension", tasksExtensionId());
  show("status", "WebAssembly module loaded.");
} catch (err) {
  show("protocol-version", "unavailable");
  show("tasks-extension", "unavailable");
  show("status", `Could not load ../pkg/mcp_tasks_web.js — run \`cargo xtask build\` first. (${err})`);
}
