// Types of mcp-tasks-web/app: a task's MCP App shown with its result, through the official host bridge
// (@modelcontextprotocol/ext-apps AppBridge, bundled). Loaded on demand; `<mcp-task app-sandbox>` uses it.
import type { TaskClient, TaskSnapshot, ReadResourceResult } from "./client.js";

/** The MIME type of an app's document: "text/html;profile=mcp-app". */
export const APP_MIME_TYPE: "text/html;profile=mcp-app";
/** The largest app document shown, in UTF-8 bytes (1 MiB). */
export const MAX_APP_BYTES: number;
/** The tallest the app's frame grows when the app asks, in px. */
export const MAX_APP_HEIGHT: number;

/**
 * Why an app is not shown: the task's tool declares no `ui://` app (`no_app`), the task has no result
 * (`no_result`), the sandbox URL is not http(s) on another origin than the page (`sandbox_origin`), the
 * resource is not `text/html;profile=mcp-app` (`not_an_app`), or its document is over MAX_APP_BYTES
 * (`too_large`).
 */
export type AppErrorCode = "no_app" | "no_result" | "sandbox_origin" | "not_an_app" | "too_large";

export class AppError extends Error {
  readonly name: "AppError";
  readonly code: AppErrorCode;
  constructor(code: AppErrorCode, message: string);
}

/** A resource's `_meta.ui` (the Apps spec): its `csp` is applied to the app's document. */
export interface AppUi {
  csp?: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] };
  [key: string]: unknown;
}

export interface ShowAppOptions {
  /** Where the app's frame goes (appended). */
  container: Element | ShadowRoot;
  /** The client the task lives in: it reads the app's resource and carries the app's calls to the server. */
  client: TaskClient;
  /**
   * The task, settled with a result, whose `ui.resourceUri` names the app; for a tool that answered at
   * once, `{ toolName, ui, result }` (the tool's `_meta.ui` from `listTools()` and `callTool`'s result).
   */
  snapshot: Pick<TaskSnapshot, "toolName" | "ui" | "result">;
  /** The URL of the host's sandbox.html (shipped in this package), served from another origin than the page. */
  sandbox: string | URL;
  /** Aborts the resource read, and closes the app once shown. */
  signal?: AbortSignal;
}

export interface AppHandle {
  /** The outer frame (the sandbox proxy). */
  readonly frame: HTMLIFrameElement;
  /** Removes the app and ends its bridge. */
  close(): void;
}

/**
 * Shows the app of `snapshot`'s tool: reads its `ui.resourceUri` once (with `client`), frames the
 * sandbox, hands the app the task's result (`ui/notifications/tool-result`), and answers the app's
 * `tools/call` (a task's final result) and `resources/read` through `client`. Links the app asks to
 * open are refused. Rejects with an `AppError`, or the client's error when the read fails.
 */
export function showApp(options: ShowAppOptions): Promise<AppHandle>;

/** The app's document and its `_meta.ui` from a `resources/read` result (the content of `uri`, else the first). */
export function appDocument(read: ReadResourceResult, uri: string): { html: string; ui: AppUi };
