// The decode figure's official side: what @modelcontextprotocol/ext-tasks 0.2.2 does with a tasks/get
// response body under 2026-07-28 (task generation v2), bundled for the page by esbuild
// (`cargo xtask bench decode`).
//
// The requester's raw request path (the host's `rawDispatch`, as in ../official-requester.mjs) reads the
// body as JSON (`response.json()`: JSON.parse of the text) and hands ext-tasks `{ kind: "result", result }`;
// ext-tasks' task RPC (dist/client/port.js: dispatchTaskRpc) then unwraps it with `responseResult`,
// validates it with `parseResult(GetTaskResultV2Schema, …)` (zod `safeParse`), and checks the taskId
// (`assertTaskIdentity`, a private function there, written out below). `responseResult` and `parseResult`
// are imported from the package's own file: they are not in its export map, hence the relative path.
import { GetTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { parseResult, responseResult } from "../../../node_modules/@modelcontextprotocol/ext-tasks/dist/client/port.js";

/** JSON text of a tasks/get response → the validated task, as ext-tasks returns it from `rpc.get()`. */
export function officialDecode(taskId, text) {
  const message = JSON.parse(text);
  const response = message?.error ? { kind: "error", error: message.error } : { kind: "result", result: message?.result };
  const task = parseResult(GetTaskResultV2Schema, responseResult(response));
  if (task.taskId !== taskId) throw new Error(`Task response identity mismatch: requested ${taskId}, received ${task.taskId}`);
  return task;
}

