// The data layer of a host split in modules (split.html): TaskClient and init from the main entry,
// "mcp-tasks-web" (pkg/client.js), as a chat host's store would import them. Knows nothing of the UI.
import init, { TaskClient } from "/pkg/client.js";

await init();
const namespace = new URLSearchParams(location.search).get("ns") || "split";
export const client = await TaskClient.open({ url: `${location.origin}/mcp`, namespace, minPollIntervalMs: 100 });
