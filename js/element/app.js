// @ts-check
// `mcp-tasks-web/app`: shows a task's MCP App (the Apps extension's `ui://` document of the tool that
// started it) fed with the task's result, through the official host bridge (`AppBridge` and
// `PostMessageTransport` of @modelcontextprotocol/ext-apps, bundled into pkg/app.js). Loaded only when
// an app is met: `<mcp-task app-sandbox>` imports it then, and a host may import it itself.
//
// The app's document runs in the sandbox proxy (sandbox.html, served by the host on an origin of its
// own), in an inner frame without `allow-same-origin`; its calls back to the server go through the
// same TaskClient, so they carry the host's headers.
// First: zod set to jitless before the SDK's modules build their schemas.
import "./app_jitless.js";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

/**
 * @import { TaskClient, TaskSnapshot, CallToolResult, ReadResourceResult } from "#pkg/client.js"
 * @import { ShowAppOptions, AppHandle, AppErrorCode, AppUi } from "#pkg/app.js"
 */
/**
 * One content of a `resources/read` result, as sent.
 * @typedef {{ uri?: unknown, mimeType?: unknown, text?: unknown, blob?: unknown, _meta?: { ui?: AppUi } }} ResourceContent
 * @typedef {Parameters<AppBridge["sendToolResult"]>[0]} BridgeToolResult
 * @typedef {ReturnType<NonNullable<AppBridge["onreadresource"]>>} BridgeRead
 */

/** The MIME type of an app's document (the Apps spec). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The largest app document shown, in UTF-8 bytes. */
export const MAX_APP_BYTES = 1 << 20;
/** The tallest the app's frame grows when the app asks (px). */
export const MAX_APP_HEIGHT = 4000;

/** Why an app is not shown. */
export class AppError extends Error {
  /**
   * @param {AppErrorCode} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = "AppError";
    /** @type {AppErrorCode} */
    this.code = code;
  }
}

/**
 * The app's document and its `_meta.ui` from a `resources/read` result: the content of `uri` (else
 * the first), which must be `text/html;profile=mcp-app` text (or base64 `blob`) of at most
 * MAX_APP_BYTES.
 * @param {ReadResourceResult} read
 * @param {string} uri
 * @returns {{ html: string, ui: AppUi }}
 */
export function appDocument(read, uri) {
  const contents = Array.isArray(read?.contents) ? read.contents : [];
  /** @type {ResourceContent | undefined} */
  const content = contents.find((c) => c?.uri === uri) ?? contents[0];
  if (!content) throw new AppError("not_an_app", `${uri} has no contents`);
  const mime = String(content.mimeType ?? "")
    .replace(/\s/g, "")
    .toLowerCase();
  if (mime !== APP_MIME_TYPE) throw new AppError("not_an_app", `${uri} is ${mime || "untyped"}, not ${APP_MIME_TYPE}`);
  /** @type {Uint8Array} */
  let bytes;
  if (typeof content.text === "string") {
    // A UTF-16 unit is at most 3 UTF-8 bytes: a text surely within the cap is not encoded to tell.
    if (content.text.length * 3 <= MAX_APP_BYTES) return { html: content.text, ui: content._meta?.ui ?? {} };
    bytes = new TextEncoder().encode(content.text);
  } else if (typeof content.blob === "string") {
    if ((content.blob.length / 4) * 3 > MAX_APP_BYTES + 3) bytes = new Uint8Array(MAX_APP_BYTES + 1);
    else {
      try {
        bytes = Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0));
      } catch {
        throw new AppError("not_an_app", `${uri}'s blob is not base64`);
      }
    }
  } else throw new AppError("not_an_app", `${uri} has neither text nor blob`);
  if (bytes.length > MAX_APP_BYTES) throw new AppError("too_large", `${uri} is over ${MAX_APP_BYTES} bytes`);
  return { html: new TextDecoder().decode(bytes), ui: content._meta?.ui ?? {} };
}

/**
 * What the app's call of a tool returns: the tool's result, or a task's once it ends (an error when
 * it ends without one).
 * @param {TaskClient} client
 * @param {string} name
 * @param {Record<string, unknown> | undefined} args
 * @returns {Promise<CallToolResult>}
 */
async function callFor(client, name, args) {
  const outcome = await client.callTool(name, args ?? {});
  if (outcome.kind === "result") return outcome.result;
  const done = await client.wait(outcome.task.taskId);
  if (done.result) return done.result;
  throw new Error(done.error?.message ?? `${name}: the task ended ${done.status}`);
}

/**
 * Shows the MCP App of `snapshot`'s tool in `container`, fed with the task's result: reads its
 * `ui.resourceUri` once, frames `sandbox` (the host's sandbox.html, on another origin than the page)
 * and speaks the Apps protocol with the app through the official AppBridge. Rejects with an AppError
 * when there is no app to show, and with the client's error when the read fails.
 * @param {ShowAppOptions} options
 * @returns {Promise<AppHandle>}
 */
export async function showApp({ container, client, snapshot, sandbox, signal }) {
  const uri = snapshot?.ui?.resourceUri;
  if (typeof uri !== "string" || !uri.startsWith("ui://"))
    throw new AppError("no_app", "the task's tool declares no ui:// app");
  if (!snapshot.result) throw new AppError("no_result", "the task has no result yet");
  const where = new URL(String(sandbox), location.href);
  if (where.origin === location.origin || !/^https?:$/.test(where.protocol))
    throw new AppError("sandbox_origin", "the sandbox must be served over http(s) from another origin than the page");
  const { html, ui } = appDocument(await client.readResource(uri, { signal }), uri);
  signal?.throwIfAborted();
  const result = snapshot.result;

  const frame = document.createElement("iframe");
  frame.setAttribute("title", snapshot.toolName);
  frame.setAttribute("part", "app");
  frame.style.cssText = "display:block;width:100%;border:0;height:150px";
  container.append(frame);
  const view = /** @type {Window} */ (frame.contentWindow);

  const bridge = new AppBridge(
    null,
    { name: "mcp-tasks-web", version: "1" },
    { serverTools: {}, serverResources: {}, sandbox: { csp: ui.csp } },
  );
  bridge.onsandboxready = () => {
    bridge.sendSandboxResourceReady({ html, sandbox: "allow-scripts", csp: ui.csp });
  };
  bridge.oninitialized = () => {
    bridge.sendToolInput({ arguments: {} });
    bridge.sendToolResult(/** @type {BridgeToolResult} */ (result));
  };
  // The server's answers go to the app as sent (the same shapes, typed apart).
  bridge.oncalltool = async (params) =>
    /** @type {BridgeToolResult} */ (await callFor(client, params.name, params.arguments));
  bridge.onreadresource = (params) =>
    /** @type {BridgeRead} */ (/** @type {unknown} */ (client.readResource(params.uri)));
  bridge.onsizechange = ({ height }) => {
    if (typeof height === "number" && height >= 0)
      frame.style.height = `${Math.min(Math.ceil(height), MAX_APP_HEIGHT)}px`;
  };
  // An app opens nothing by itself: a link is the person's to follow, not the app's.
  bridge.onopenlink = async () => ({ isError: true });
  await bridge.connect(new PostMessageTransport(view, view));
  // Framed once the bridge listens, so the sandbox's first message is heard.
  frame.src = where.href;

  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    bridge.close().catch(() => {});
    frame.remove();
  };
  signal?.addEventListener("abort", close, { once: true });
  if (signal?.aborted) close();
  return { frame, close };
}
