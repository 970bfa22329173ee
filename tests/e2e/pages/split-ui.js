// The UI of a host split in modules (split.html): the data layer's client (split-data.js), imported
// first, and <mcp-task> from "mcp-tasks-web/element" (pkg/element.js).
import { client } from "./split-data.js";
import { defineMcpTask } from "/pkg/element.js";
import { expose } from "./split-host.js";

expose(client, defineMcpTask);
