#!/usr/bin/env node
// Interop check: the official TypeScript Tasks requester (@modelcontextprotocol/ext-tasks 0.2.2,
// `withTasks`, generation v2) driving an MCP Tasks server (protocol 2026-07-28) over a small
// fetch-based session port written here.
//
//   node tests/interop/ext-tasks-interop.mjs http://127.0.0.1:PORT/mcp [--trace]
//
// Cases: discover (precondition), build, deploy (input_required -> form accept), flaky (failed),
// long_job (cancel). One `ok …` / `FAIL …` line per case on stdout, then
// `interop: N passed, M failed`. Exit 1 on any failure. Global timeout 60 s.
// On a failure the wire exchanges of that case are dumped to stderr; --trace (or
// INTEROP_TRACE=1) dumps every exchange.

import {
  withTasks,
  DispatchError,
  JsonRpcResponseError,
  TaskFailedError,
} from "@modelcontextprotocol/ext-tasks/client";
import { CreateTaskResultV2Schema, hasTaskServerCapabilityV2 } from "@modelcontextprotocol/ext-tasks/core/v2";

const PROTOCOL_VERSION = "2026-07-28";
const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";
const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = { name: "ext-tasks-interop", version: "0.2.2" };
// Form elicitation only (no URL mode), plus the tasks extension on every request.
const CLIENT_CAPABILITIES = {
  elicitation: { form: {} },
  extensions: { [TASKS_EXTENSION_ID]: {} },
};
const GLOBAL_TIMEOUT_MS = 60_000;
const CASE_TIMEOUT_MS = 20_000;

// ---------------------------------------------------------------------------------------------
// Command line

const args = process.argv.slice(2);
const TRACE = args.includes("--trace") || process.env.INTEROP_TRACE === "1";
const endpoint = args.find((a) => !a.startsWith("--"));
if (endpoint === undefined || !/^https?:\/\//.test(endpoint)) {
  console.error("usage: node tests/interop/ext-tasks-interop.mjs http://127.0.0.1:PORT/mcp [--trace]");
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const clip = (s, n = 1500) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

/** Header values that are not plain visible ASCII are sent as =?base64?…?= (SEP-2243). */
function encodeHeaderValue(value) {
  const s = String(value);
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(s) && !/^=\?base64\?.*\?=$/.test(s);
  return plain ? s : `=?base64?${Buffer.from(s, "utf8").toString("base64")}?=`;
}

/** zod issues as text; union failures list what each alternative rejected. */
function formatIssues(issues, prefix = []) {
  return issues.map((i) => {
    const path = [...prefix, ...(i.path ?? [])].join(".") || "<root>";
    if (i.code === "invalid_union" && Array.isArray(i.errors) && i.errors.length > 0) {
      return `${path}: no union alternative matched (${i.errors.map((branch, n) => `#${n + 1}: ${formatIssues(branch, [...prefix, ...(i.path ?? [])])}`).join(" | ")})`;
    }
    return `${path}: ${i.message}`;
  }).join("; ");
}

/** One readable line for any error ext-tasks or the port can throw, following `cause` links. */
function describeError(error) {
  const parts = [];
  let e = error;
  for (let depth = 0; e !== undefined && e !== null && depth < 5; depth += 1) {
    if (e instanceof JsonRpcResponseError || e instanceof TaskFailedError) {
      parts.push(`${e.name}(code=${e.code ?? "none"}): ${e.message}${e.data === undefined ? "" : ` data=${JSON.stringify(e.data)}`}`);
    } else if (Array.isArray(e.issues)) {
      // zod error (schema validation inside ext-tasks)
      parts.push(`schema issues: ${formatIssues(e.issues)}`);
    } else if (e instanceof Error) {
      parts.push(`${e.name}: ${e.message}`);
    } else {
      parts.push(String(e));
    }
    e = e?.cause;
  }
  return parts.join(" <- ");
}

// ---------------------------------------------------------------------------------------------
// The fetch adapter: a ConnectedMcpSessionPort (the interface `withTasks` drives) that sends
// every JSON-RPC request as its own POST, framed for 2026-07-28 (per-request _meta, routing
// headers, no initialize, no session), and accepts a JSON or an SSE response.

class FetchSessionPort {
  constructor(url) {
    this.url = url;
    this.endpointId = url;
    this.taskCapabilities = { generation: "v2", capabilities: {} };
    this.invalidated = false;
    this.nextId = 0;
    this.notificationListeners = new Set();
    this.serverRequestListeners = new Set();
    this.invalidationListeners = new Set();
    this.toolSchemas = new Map(); // tool name -> inputSchema, for Mcp-Param-* headers
    this.log = []; // wire exchanges
    this.currentCase = "setup";
  }

  onServerRequest(handler) {
    // 2026-07-28 servers never send requests to the client; kept for the interface.
    this.serverRequestListeners.add(handler);
    return () => this.serverRequestListeners.delete(handler);
  }

  onNotification(listener) {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  onInvalidated(listener) {
    this.invalidationListeners.add(listener);
    return () => this.invalidationListeners.delete(listener);
  }

  /** Adds the required per-request _meta; merges (never drops) what ext-tasks put there. */
  frameParams(params) {
    const meta = isObject(params._meta) ? params._meta : {};
    const caps = isObject(meta[META_CLIENT_CAPABILITIES]) ? meta[META_CLIENT_CAPABILITIES] : {};
    const extensions = isObject(caps.extensions) ? caps.extensions : {};
    return {
      ...params,
      _meta: {
        ...meta,
        [META_PROTOCOL_VERSION]: PROTOCOL_VERSION,
        [META_CLIENT_INFO]: CLIENT_INFO,
        [META_CLIENT_CAPABILITIES]: {
          ...CLIENT_CAPABILITIES,
          ...caps,
          extensions: { ...CLIENT_CAPABILITIES.extensions, ...extensions },
        },
      },
    };
  }

  routingHeaders(method, params) {
    const headers = {};
    let name;
    if (method === "tools/call" || method === "prompts/get") name = params.name;
    else if (method === "resources/read") name = params.uri;
    else if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") name = params.taskId;
    if (typeof name === "string") headers["Mcp-Name"] = encodeHeaderValue(name);
    if (method === "tools/call" && isObject(params.arguments)) {
      const properties = this.toolSchemas.get(params.name)?.properties;
      if (isObject(properties)) {
        for (const [prop, schema] of Object.entries(properties)) {
          const header = isObject(schema) ? schema["x-mcp-header"] : undefined;
          const value = params.arguments[prop];
          if (typeof header === "string" && header.length > 0 && value !== undefined && value !== null
            && ["string", "number", "boolean"].includes(typeof value)) {
            headers[`Mcp-Param-${header}`] = encodeHeaderValue(value);
          }
        }
      }
    }
    return headers;
  }

  async dispatch(request, options = {}) {
    if (!isObject(request) || typeof request.method !== "string") throw new DispatchError("request must be an object with a method");
    const method = request.method;
    const params = this.frameParams(isObject(request.params) ? request.params : {});
    const id = ++this.nextId;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });

    // Caller headers first (ext-tasks sends Mcp-Name for tasks/*), then the protocol headers,
    // which always win so headers and body can never disagree.
    const callerHeaders = Object.fromEntries(Object.entries(options.context?.headers ?? {}));
    const routing = this.routingHeaders(method, params);
    const callerMcpName = Object.entries(callerHeaders).find(([k]) => k.toLowerCase() === "mcp-name")?.[1];
    if (callerMcpName !== undefined && routing["Mcp-Name"] !== undefined && callerMcpName !== routing["Mcp-Name"]) {
      throw new DispatchError(`ext-tasks asked for Mcp-Name ${callerMcpName} but the body names ${routing["Mcp-Name"]}`);
    }
    const headers = {};
    for (const [k, v] of Object.entries(callerHeaders)) if (k.toLowerCase() !== "mcp-name") headers[k] = v;
    Object.assign(headers, {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": PROTOCOL_VERSION,
      "Mcp-Method": method,
      ...routing,
    });

    const signals = [options.signal, options.context?.requestTimeoutMs ? AbortSignal.timeout(options.context.requestTimeoutMs) : undefined].filter(Boolean);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);

    const entry = { case: this.currentCase, id, method, reqHeaders: headers, reqBody: body, status: undefined, resContentType: undefined, resBody: "" };
    this.log.push(entry);
    let response;
    try {
      response = await fetch(this.url, { method: "POST", headers, body, signal });
    } catch (error) {
      entry.resBody = `<fetch failed: ${describeError(error)}>`;
      this.trace(entry);
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : error;
      // tasks/get is a pure read, safe for ext-tasks to retry once.
      throw new DispatchError(`POST ${method} failed`, method === "tasks/get", { cause: error });
    }
    entry.status = response.status;
    const contentType = response.headers.get("content-type") ?? "";
    entry.resContentType = contentType;

    try {
      let message;
      if (contentType.toLowerCase().startsWith("text/event-stream")) {
        message = await this.readSse(response, id, entry);
      } else {
        entry.resBody = await response.text();
        if (entry.resBody.trim() === "") throw new DispatchError(`HTTP ${response.status} ${method}: empty body (content-type ${contentType || "none"})`);
        try {
          message = JSON.parse(entry.resBody);
        } catch {
          throw new DispatchError(`HTTP ${response.status} ${method}: body is not JSON (content-type ${contentType || "none"})`);
        }
      }
      return this.toResponse(message, id, method, response.status);
    } finally {
      this.trace(entry);
    }
  }

  toResponse(message, id, method, status) {
    if (!isObject(message) || message.jsonrpc !== "2.0") throw new DispatchError(`HTTP ${status} ${method}: not a JSON-RPC 2.0 message`);
    if (isObject(message.error)) {
      // An error for this request (an id-less error is allowed when the server could not read the id).
      if (message.id !== undefined && message.id !== null && message.id !== id) throw new DispatchError(`${method}: error response id ${JSON.stringify(message.id)} != request id ${id}`);
      const { code, message: text, data } = message.error;
      return { kind: "error", error: { code, message: text, ...(data === undefined ? {} : { data }) } };
    }
    if (message.id !== id) throw new DispatchError(`${method}: response id ${JSON.stringify(message.id)} != request id ${id}`);
    if (!("result" in message)) throw new DispatchError(`${method}: response has neither result nor error`);
    if (status < 200 || status > 299) throw new DispatchError(`${method}: HTTP ${status} with a JSON-RPC result`);
    if (method === "tools/list" && isObject(message.result) && Array.isArray(message.result.tools)) {
      for (const tool of message.result.tools) if (isObject(tool) && typeof tool.name === "string") this.toolSchemas.set(tool.name, tool.inputSchema);
    }
    return { kind: "result", result: message.result };
  }

  /** Reads an SSE response until the JSON-RPC response for `id`; forwards notifications. */
  async readSse(response, id, entry) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let data = [];
    const dispatchEvent = () => {
      if (data.length === 0) return undefined;
      const text = data.join("\n");
      data = [];
      let message;
      try {
        message = JSON.parse(text);
      } catch {
        throw new DispatchError(`SSE event data is not JSON: ${clip(text, 200)}`);
      }
      if (isObject(message) && typeof message.method === "string" && !("id" in message)) {
        for (const listener of [...this.notificationListeners]) listener(message);
        return undefined;
      }
      if (isObject(message) && ("result" in message || "error" in message)) return message;
      throw new DispatchError(`unexpected SSE message (servers must not send requests in 2026-07-28): ${clip(text, 200)}`);
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (value !== undefined) {
          const chunk = decoder.decode(value, { stream: true });
          entry.resBody += chunk;
          buffer += chunk;
        }
        if (done) buffer += "\n\n";
        let newline;
        while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
          if (line === "") {
            const message = dispatchEvent();
            if (message !== undefined) return message;
          } else if (line.startsWith(":")) {
            // keep-alive comment
          } else {
            const colon = line.indexOf(":");
            const field = colon < 0 ? line : line.slice(0, colon);
            let val = colon < 0 ? "" : line.slice(colon + 1);
            if (val.startsWith(" ")) val = val.slice(1);
            if (field === "data") data.push(val);
          }
        }
        if (done) throw new DispatchError(`SSE stream ended without the response for request ${id}`);
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }

  trace(entry) {
    if (TRACE) process.stderr.write(formatExchange(entry));
  }
}

function formatExchange(e) {
  const headers = Object.entries(e.reqHeaders).map(([k, v]) => `> ${k}: ${v}`).join("\n");
  return `>>> [${e.case}] POST ${e.method} (id ${e.id})\n${headers}\n> ${clip(e.reqBody)}\n<<< HTTP ${e.status ?? "-"} ${e.resContentType ?? ""}\n< ${clip(e.resBody.trim())}\n\n`;
}

// ---------------------------------------------------------------------------------------------
// Elicitation: fill a form generically from requestedSchema, every property (required or not):
// booleans true, strings "interop", integers/numbers their minimum or 1, enums (enum or titled
// oneOf) the first option.

function valueForProperty(p) {
  if (!isObject(p)) return "interop";
  if (Array.isArray(p.enum) && p.enum.length > 0) return p.enum[0];
  if (Array.isArray(p.oneOf) && p.oneOf.length > 0 && isObject(p.oneOf[0]) && "const" in p.oneOf[0]) return p.oneOf[0].const;
  switch (p.type) {
    case "boolean":
      return true;
    case "integer":
    case "number": {
      let v = typeof p.minimum === "number" ? p.minimum : 1;
      if (typeof p.maximum === "number" && v > p.maximum) v = p.maximum;
      return p.type === "integer" ? Math.ceil(v) : v;
    }
    case "array": {
      const items = isObject(p.items) ? p.items : {};
      if (Array.isArray(items.enum) && items.enum.length > 0) return [items.enum[0]];
      if (Array.isArray(items.anyOf) && items.anyOf.length > 0 && isObject(items.anyOf[0])) return [items.anyOf[0].const];
      return [];
    }
    default: {
      if (p.format === "email") return "interop@example.com";
      if (p.format === "uri") return "urn:interop";
      if (p.format === "date") return "2026-07-28";
      if (p.format === "date-time") return "2026-07-28T00:00:00Z";
      let s = "interop";
      if (typeof p.minLength === "number") while (s.length < p.minLength) s += "-interop";
      if (typeof p.maxLength === "number") s = s.slice(0, p.maxLength);
      return s;
    }
  }
}

function fillForm(requestedSchema) {
  const properties = isObject(requestedSchema?.properties) ? requestedSchema.properties : {};
  const required = Array.isArray(requestedSchema?.required) ? requestedSchema.required : [];
  const names = [...new Set([...Object.keys(properties), ...required])];
  return Object.fromEntries(names.map((name) => [name, valueForProperty(properties[name])]));
}

// Every input request ext-tasks routes to the application is recorded here.
const inputLog = [];
const backgroundErrors = [];

async function onInputRequest(request, context) {
  const record = { kind: request.kind, params: request.params, scope: context.scope, delivery: context.delivery, taskId: context.taskId, inputId: context.inputId };
  inputLog.push(record);
  if (request.kind !== "elicitation") throw new Error(`unexpected ${request.kind} input request`);
  const mode = request.params?.mode ?? "form";
  if (mode !== "form") return { action: "cancel" };
  const content = fillForm(request.params.requestedSchema);
  record.answer = { action: "accept", content };
  return record.answer;
}

// ---------------------------------------------------------------------------------------------
// Cases

class CaseFailure extends Error {}
function check(condition, message) {
  if (!condition) throw new CaseFailure(message);
}

function textOf(result) {
  const block = Array.isArray(result?.content) ? result.content.find((c) => c?.type === "text" && typeof c.text === "string") : undefined;
  return block?.text;
}

/** The JSON-RPC message a logged exchange received (JSON body or the last SSE data event). */
function loggedMessage(entry) {
  const body = entry.resBody.trim();
  const candidates = (entry.resContentType ?? "").startsWith("text/event-stream")
    ? body.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).reverse()
    : [body];
  for (const text of candidates) {
    try {
      const message = JSON.parse(text);
      if (isObject(message) && ("result" in message || "error" in message)) return message;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

/** session.callTool, adding a hint when a resultType:"task" answer was not accepted as a task. */
async function callTool(session, tool, toolArgs, signal) {
  try {
    return await session.callTool(tool, toolArgs, { signal });
  } catch (error) {
    const entry = port.log.filter((e) => e.method === "tools/call" && e.case === port.currentCase).at(-1);
    const result = entry === undefined ? undefined : loggedMessage(entry)?.result;
    if (isObject(result) && result.resultType === "task") {
      const parsed = CreateTaskResultV2Schema.safeParse(result);
      if (!parsed.success) throw new CaseFailure(`tools/call ${tool} answered resultType:"task" but ext-tasks rejects it as a CreateTaskResult (${formatIssues(parsed.error.issues)}), so it was decoded as an ordinary result: ${describeError(error)}`);
    }
    throw error;
  }
}

/** callTool + settle, recording every status ext-tasks observed. */
async function runTask(session, tool, toolArgs, signal) {
  const statuses = [];
  const execution = await callTool(session, tool, toolArgs, signal);
  check(execution.kind === "task", `tools/call ${tool} returned an immediate result, not a task (resultType:"task")`);
  const taskId = execution.handle.taskId;
  const { outcome, lastTask } = await execution.settle({
    signal,
    onEvent: (event) => {
      if (event.type === "task") statuses.push(event.task.status);
    },
  });
  return { execution, taskId, outcome, lastTask, statuses };
}

function outcomeSummary(outcome) {
  if (outcome.status === "failed") return `failed (${describeError(outcome.error)})`;
  return outcome.status;
}

async function caseBuild(session, signal) {
  const { taskId, outcome, statuses } = await runTask(session, "build", { seconds: 1, target: "interop" }, signal);
  check(outcome.status === "completed", `task ${taskId} ended ${outcomeSummary(outcome)}, expected completed (statuses seen: ${statuses.join(">")})`);
  const result = outcome.result;
  const text = textOf(result);
  check(typeof text === "string", `completed result has no text content block: ${clip(JSON.stringify(result), 300)}`);
  check(isObject(result.structuredContent), `completed result has no structuredContent object: ${clip(JSON.stringify(result), 300)}`);
  return `task=${taskId} statuses=${statuses.join(">")} text=${JSON.stringify(clip(text, 80))} structuredContent=${clip(JSON.stringify(result.structuredContent), 160)}`;
}

async function caseDeploy(session, signal) {
  const before = inputLog.length;
  const { taskId, outcome, statuses } = await runTask(session, "deploy", { service: "api", environment: "staging" }, signal);
  const inputs = inputLog.slice(before);
  check(inputs.length > 0, `no input request reached the application (statuses seen: ${statuses.join(">")}; outcome ${outcomeSummary(outcome)})`);
  const first = inputs[0];
  check(first.kind === "elicitation", `first input request was ${first.kind}, expected elicitation`);
  check(first.scope === "task" && first.delivery === "task-update", `input arrived as scope=${first.scope} delivery=${first.delivery}, expected task/task-update (inside the task, answered with tasks/update)`);
  check(first.answer !== undefined, `elicitation was not answered (mode ${first.params?.mode})`);
  check(statuses.includes("input_required"), `status input_required never observed (statuses seen: ${statuses.join(">")})`);
  check(outcome.status === "completed", `task ${taskId} ended ${outcomeSummary(outcome)} after answering key ${first.inputId} with ${JSON.stringify(first.answer)} (statuses seen: ${statuses.join(">")})`);
  const text = textOf(outcome.result);
  check(typeof text === "string", `completed result has no text content block: ${clip(JSON.stringify(outcome.result), 300)}`);
  // Where the result echoes an answered field, it must be the value we sent.
  const echoed = isObject(outcome.result.structuredContent) ? outcome.result.structuredContent : {};
  for (const [field, value] of Object.entries(first.answer.content)) {
    if (field in echoed) check(JSON.stringify(echoed[field]) === JSON.stringify(value), `result.structuredContent.${field}=${JSON.stringify(echoed[field])} but the form answer was ${JSON.stringify(value)}`);
  }
  const keys = inputs.map((i) => i.inputId).join(",");
  return `task=${taskId} statuses=${statuses.join(">")} input key(s)=${keys} answered=${JSON.stringify(first.answer.content)} text=${JSON.stringify(clip(text, 80))}`;
}

async function caseFlaky(session, signal) {
  const { taskId, outcome, statuses, lastTask } = await runTask(session, "flaky", { seconds: 1 }, signal);
  check(outcome.status === "failed", `task ${taskId} ended ${outcomeSummary(outcome)}, expected failed (statuses seen: ${statuses.join(">")})`);
  const terminal = outcome.task ?? lastTask;
  check(terminal?.status === "failed", `failure did not come from a server snapshot with status failed (local error: ${describeError(outcome.error)})`);
  const code = outcome.error?.code;
  check(Number.isInteger(code), `failed outcome carries no integer JSON-RPC error code: ${describeError(outcome.error)}`);
  return `task=${taskId} statuses=${statuses.join(">")} error.code=${code} message=${JSON.stringify(clip(outcome.error.message, 80))}${outcome.error.data === undefined ? "" : ` data=${clip(JSON.stringify(outcome.error.data), 120)}`}`;
}

async function caseLongJob(session, signal) {
  const statuses = [];
  const execution = await callTool(session, "long_job", { seconds: 300 }, signal);
  check(execution.kind === "task", "tools/call long_job returned an immediate result, not a task");
  const taskId = execution.handle.taskId;
  let sawPoll;
  const polled = new Promise((resolve) => { sawPoll = resolve; });
  const settled = execution.settle({
    signal,
    onEvent: (event) => {
      if (event.type === "task") {
        statuses.push(event.task.status);
        // The first event is the creation snapshot; the second one came from a tasks/get.
        if (statuses.length >= 2) sawPoll();
      }
    },
  });
  // Let ext-tasks poll at least once (or wait 3 s), then cancel through ext-tasks.
  await Promise.race([polled, sleep(3000, signal)]);
  check(!statuses.some((s) => ["completed", "failed", "cancelled"].includes(s)), `task ended before cancel: statuses ${statuses.join(">")}`);
  await execution.cancel(signal); // tasks/cancel; resolves on the server's ack
  const { outcome } = await settled;
  check(outcome.status === "cancelled", `after the cancel ack the execution settled ${outcomeSummary(outcome)}, expected cancelled`);
  // The ack is only an acknowledgement; observe the server's view through ext-tasks' task
  // controller (tasks/get) until it is terminal, for up to 10 s.
  const controller = session.task(taskId);
  const deadline = Date.now() + 10_000;
  let view = await controller.snapshot(signal);
  const after = [view.status];
  while (!["completed", "failed", "cancelled"].includes(view.status) && Date.now() < deadline) {
    await sleep(Math.min(1000, view.suggestedPollIntervalMs ?? 500), signal);
    view = await controller.snapshot(signal);
    if (after[after.length - 1] !== view.status) after.push(view.status);
  }
  check(view.status === "cancelled", `after tasks/cancel was acked, tasks/get showed ${after.join(">")}${view.status === "working" || view.status === "input_required" ? " for 10 s" : ""} (statusMessage ${JSON.stringify(view.statusMessage)}), expected cancelled`);
  return `task=${taskId} statuses=${statuses.join(">")} cancel acked; tasks/get status=cancelled statusMessage=${JSON.stringify(clip(view.statusMessage ?? "", 80))}`;
}

// ---------------------------------------------------------------------------------------------
// Main

const results = [];
let running = "setup";
const port = new FetchSessionPort(endpoint);

function report(name, ok, detail) {
  results.push({ name, ok });
  console.log(`${ok ? "ok" : "FAIL"} ${name}${detail ? `: ${detail}` : ""}`.replace(/^ok (\S+): /, "ok $1 "));
}

function dumpCase(name) {
  const exchanges = port.log.filter((e) => e.case === name);
  if (TRACE || exchanges.length === 0) return;
  process.stderr.write(`---- wire exchanges of ${name} (last ${Math.min(8, exchanges.length)} of ${exchanges.length}) ----\n`);
  for (const e of exchanges.slice(-8)) process.stderr.write(formatExchange(e));
}

function finish(extraFailures = 0) {
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed + extraFailures;
  console.log(`interop: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

const CASES = [
  ["build", caseBuild],
  ["deploy", caseDeploy],
  ["flaky", caseFlaky],
  ["long_job", caseLongJob],
];

setTimeout(() => {
  report(running, false, `global ${GLOBAL_TIMEOUT_MS / 1000} s timeout hit while running ${running}`);
  dumpCase(running);
  const done = new Set(results.map((r) => r.name));
  finish(CASES.filter(([n]) => !done.has(n)).length);
}, GLOBAL_TIMEOUT_MS);

// Precondition: server/discover advertises the extension (decides generation v2 for ext-tasks).
port.currentCase = "discover";
running = "discover";
try {
  const response = await port.dispatch({ method: "server/discover", params: {} }, { signal: AbortSignal.timeout(10_000) });
  if (response.kind === "error") throw new JsonRpcResponseError(response.error);
  const result = response.result;
  check(isObject(result), "server/discover result is not an object");
  check(Array.isArray(result.supportedVersions) && result.supportedVersions.includes(PROTOCOL_VERSION), `supportedVersions ${JSON.stringify(result.supportedVersions)} lacks ${PROTOCOL_VERSION}`);
  check(hasTaskServerCapabilityV2(result.capabilities), `capabilities.extensions does not advertise ${TASKS_EXTENSION_ID}: {} (got ${JSON.stringify(result.capabilities)})`);
  const info = result._meta?.["io.modelcontextprotocol/serverInfo"];
  report("discover", true, `supportedVersions=${JSON.stringify(result.supportedVersions)} tasks extension advertised${info ? ` server=${info.name}@${info.version}` : ""}`);
} catch (error) {
  report("discover", false, `${describeError(error)} (continuing with generation v2 assumed)`);
  dumpCase("discover");
}

// The ext-tasks session: it lists tools itself (tools/list) and drives every task.
port.currentCase = "tools/list";
const session = withTasks(port, {
  onInputRequest,
  onError: (error) => backgroundErrors.push({ case: running, error }),
});

let dumpedToolsList = false;
for (const [name, run] of CASES) {
  running = name;
  port.currentCase = name;
  const errorsBefore = backgroundErrors.length;
  const signal = AbortSignal.timeout(CASE_TIMEOUT_MS);
  try {
    const detail = await run(session, signal);
    report(name, true, detail);
  } catch (error) {
    const unanswered = port.log.filter((e) => e.case === name && e.status === undefined).map((e) => `${e.method} id ${e.id}`);
    const why = error instanceof CaseFailure ? error.message : signal.aborted
      ? `no result within ${CASE_TIMEOUT_MS / 1000} s${unanswered.length ? ` (requests that never got an HTTP response: ${unanswered.join(", ")})` : ""}`
      : describeError(error);
    const bg = backgroundErrors.slice(errorsBefore).map((b) => describeError(b.error));
    report(name, false, `${why}${bg.length ? ` [ext-tasks reported: ${bg.join(" | ")}]` : ""}`);
    dumpCase(name);
    if (!dumpedToolsList) {
      dumpedToolsList = true;
      dumpCase("tools/list");
    }
  }
}

await Promise.race([session.close(), sleep(2000)]).catch(() => {});
finish();
