// @ts-check
// The sandbox proxy of an MCP App (`sandbox.html` loads it): the page a host serves on an origin of its
// own, which `mcp-tasks-web/app` frames. It tells the host it is ready
// (`ui/notifications/sandbox-proxy-ready`), takes the app's document from the first
// `ui/notifications/sandbox-resource-ready`, draws it in an inner `srcdoc` frame sandboxed without
// `allow-same-origin` (an opaque origin) under the resource's Content-Security-Policy, and relays every
// other message between the host and that frame. The host's origin is pinned from its first message;
// messages from any other window or origin are dropped.
//
// An inner `srcdoc` document inherits this page's own policy as well, so the headers it is served
// with bound what any app may do (docs/element.md, "MCP Apps").

const READY = "ui/notifications/sandbox-proxy-ready";
const RESOURCE = "ui/notifications/sandbox-resource-ready";
/** The inner frame's sandbox tokens a host may ask for; it always has `allow-scripts`, never more than these. */
const TOKENS = ["allow-scripts", "allow-forms"];

/**
 * The origins of one CSP directive, as the resource listed them: each a scheme, `://` and a host (a
 * `*.` wildcard allowed) with an optional port and path; anything else (spaces, `;`, `,` or quotes
 * that would end the directive, keywords, bare schemes) is left out.
 * @param {unknown} list
 * @returns {string}
 */
function origins(list) {
  if (!Array.isArray(list)) return "";
  const ok = list.filter(
    (o) => typeof o === "string" && /^(https?|wss?):\/\/(\*\.)?[a-z0-9.-]+(:\d+)?(\/[^\s;,'"]*)?$/i.test(o),
  );
  return ok.length ? ` ${ok.join(" ")}` : "";
}

/**
 * The Content-Security-Policy of an app's document, from its resource's `_meta.ui.csp` (the Apps
 * spec's default when it names nothing): inline script and style, images and media from data:
 * URLs, no connections, frames or other origins but those the resource lists.
 * @param {{ connectDomains?: unknown, resourceDomains?: unknown, frameDomains?: unknown, baseUriDomains?: unknown } | null | undefined} csp
 * @returns {string}
 */
export function cspFor(csp) {
  const c = csp && typeof csp === "object" ? csp : {};
  const res = origins(c.resourceDomains);
  const connect = origins(c.connectDomains);
  const frame = origins(c.frameDomains);
  const base = origins(c.baseUriDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${res}`,
    `style-src 'self' 'unsafe-inline'${res}`,
    `img-src 'self' data:${res}`,
    `font-src 'self'${res}`,
    `media-src 'self' data:${res}`,
    `connect-src ${connect ? connect.trim() : "'none'"}`,
    `frame-src ${frame ? frame.trim() : "'none'"}`,
    `base-uri ${base ? base.trim() : "'self'"}`,
  ].join("; ");
}

/**
 * `html` with a `<meta http-equiv="Content-Security-Policy">` of `policy` first in its head (after
 * `<head>`, else after `<html>`, else before everything), so it governs the whole document.
 * @param {string} html
 * @param {string} policy
 * @returns {string}
 */
export function withCsp(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, "&quot;")}">`;
  for (const tag of [/<head(\s[^>]*)?>/i, /<html(\s[^>]*)?>/i]) {
    const m = tag.exec(html);
    if (m) {
      const at = m.index + m[0].length;
      return html.slice(0, at) + meta + html.slice(at);
    }
  }
  return meta + html;
}

/**
 * The inner frame's `sandbox` value: `allow-scripts`, and of the tokens `asked` names only those in
 * TOKENS (never `allow-same-origin`, top navigation or popups).
 * @param {unknown} asked
 * @returns {string}
 */
export function sandboxFor(asked) {
  const words = typeof asked === "string" ? asked.split(/\s+/) : [];
  return TOKENS.filter((t) => t === "allow-scripts" || words.includes(t)).join(" ");
}

/** Relays between the host (the parent window) and the app's frame; the document's one job. */
function start() {
  /** @type {string | null} */
  let host = null;
  /** @type {HTMLIFrameElement | null} */
  let inner = null;
  window.addEventListener("message", (event) => {
    if (event.source === window.parent) {
      if (host === null) host = event.origin;
      if (event.origin !== host) return;
      const data = event.data;
      if (data?.method === RESOURCE) {
        if (inner) return; // one document per sandbox
        const p = data.params ?? {};
        if (typeof p.html !== "string") return;
        inner = document.createElement("iframe");
        inner.setAttribute("sandbox", sandboxFor(p.sandbox));
        inner.setAttribute("title", "MCP App");
        inner.style.cssText = "display:block;border:0;width:100%;height:100vh";
        inner.srcdoc = withCsp(p.html, cspFor(p.csp));
        document.body.append(inner);
        return;
      }
      inner?.contentWindow?.postMessage(data, "*");
      return;
    }
    if (inner && event.source === inner.contentWindow && host !== null) window.parent.postMessage(event.data, host);
  });
  document.body.style.margin = "0";
  window.parent.postMessage({ jsonrpc: "2.0", method: READY, params: {} }, "*");
}

if (typeof window !== "undefined" && window.parent !== window) start();
