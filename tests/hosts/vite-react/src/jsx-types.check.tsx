// Compile-time only (`tsc` runs before `vite build`; nothing imports this file): the JSX types of
// mcp-tasks-web/react accept the element's real props and reject wrong ones.
import type { TaskClient } from "mcp-tasks-web/element";
import type {} from "mcp-tasks-web/react";

export const accepted = (client: TaskClient) => [
  <mcp-task client={client} taskId="t" labels={{ "action.accept": "OK" }} onmcp-task-input={(e) => e.detail.responses} />,
  <mcp-task task-id="t" onmcp-task-settled={(e) => e.detail.status === "completed"} />,
  <mcp-task-list client={client} labels={{ th: { "list.empty": "ว่าง" } }} onmcp-task-change={(e) => e.detail.taskId} />,
];

export const rejected = (client: TaskClient) => [
  // @ts-expect-error taskId is a string
  <mcp-task taskId={42} />,
  // @ts-expect-error client is a TaskClient, not a URL
  <mcp-task client="http://127.0.0.1:8787/mcp" />,
  // @ts-expect-error an event's detail is a TaskSnapshot, whose status is not a number
  <mcp-task onmcp-task-change={(e: CustomEvent<{ status: number }>) => e} />,
  // @ts-expect-error no such label key
  <mcp-task-list client={client} labels={{ "action.launch": "Go" }} />,
];
