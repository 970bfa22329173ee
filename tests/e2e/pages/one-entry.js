// A host with cards that imports everything from "mcp-tasks-web/element" (pkg/element.js): the page
// split.html is measured against.
import init, { TaskClient, defineMcpTask } from "/pkg/element.js";
import { expose } from "./split-host.js";

await init();
const namespace = new URLSearchParams(location.search).get("ns") || "one-entry";
expose(await TaskClient.open({ url: `${location.origin}/mcp`, namespace, minPollIntervalMs: 100 }), defineMcpTask);
