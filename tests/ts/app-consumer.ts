// A host that shows a task's MCP App itself, written against the shipped app.d.ts; type-checked by
// `cargo xtask test` (tsc --strict), never run. It fails compilation if the app module's types drift.
import { TaskClient } from "../../pkg/client.js";
import { APP_MIME_TYPE, AppError, showApp } from "../../pkg/app.js";
import type { AppErrorCode, AppHandle } from "../../pkg/app.js";

export async function show(container: HTMLElement, signal: AbortSignal): Promise<AppHandle | AppErrorCode> {
  const client = await TaskClient.open({ url: "/mcp", namespace: "me", headers: { authorization: "Bearer t" } });
  const { tools } = await client.listTools();
  const ui = (tools.find((t) => t.name === "report")?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui;
  const out = await client.callTool("report", {}, { ui });
  if (out.kind !== "task") {
    // A tool that answered at once: its app is shown with that result.
    return showApp({ container, client, snapshot: { toolName: "report", ui: ui ?? null, result: out.result }, sandbox: "https://sandbox.example/sandbox.html" });
  }
  const done = await client.wait(out.task.taskId);
  const mime: "text/html;profile=mcp-app" = APP_MIME_TYPE;
  void mime;
  try {
    const app = await showApp({ container, client, snapshot: done, sandbox: new URL("https://sandbox.example/sandbox.html"), signal });
    const frame: HTMLIFrameElement = app.frame;
    void frame;
    return app;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}
