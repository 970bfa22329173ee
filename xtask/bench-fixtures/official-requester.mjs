// The official requester doing the job mcp-tasks-web does, as a browser host would ship it:
// `cargo xtask bench size` bundles this file with esbuild (minified, platform browser, ESM,
// tree-shaken) and measures the bundle, which holds what a host needs of
// @modelcontextprotocol/ext-tasks 0.2.2 and @modelcontextprotocol/client 2.4.0. The bench does not
// run it; the bundle was checked by hand under Node against the reference server (`build` to its
// result, `deploy` with its form answered), with a stand-in localStorage.
//
// The job: connect an MCP client to a 2026-07-28 Tasks server over Streamable HTTP, call a tool as
// a task, answer the server's form input (elicitation), follow the task to its result, keep
// resumable task references in localStorage (as the ext-tasks docs suggest) and resume them after
// a reload, list and cancel tasks. The raw request path ext-tasks requires for 2026-07-28 servers
// is host code (the docs' `rawDispatch`), so a minimal one is part of the job too.

import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";

import { openTaskSession } from "./official-wire.mjs";

const STORE_KEY = "mcp-tasks";

function loadReferences() {
  try {
    return JSON.parse(localStorage.getItem(STORE_KEY) ?? "[]");
  } catch {
    return [];
  }
}

function saveReferences(references) {
  localStorage.setItem(STORE_KEY, JSON.stringify(references));
}

/**
 * Connects to `url`; `askUser(requestedSchema, message)` fills a form (the host's UI) and
 * `onStatus(taskId, status, message)` shows progress.
 */
export async function connect(url, { askUser, onStatus }) {
  const session = await openTaskSession(url, async (request) => {
    if (request.kind !== "elicitation" || (request.params.mode ?? "form") !== "form") return { action: "cancel" };
    const content = await askUser(request.params.requestedSchema, request.params.message);
    return content === undefined ? { action: "decline" } : { action: "accept", content };
  });

  /** Follows one execution to its end, keeping its reference stored while it runs. */
  async function follow(execution) {
    if (execution.kind === "task") {
      const reference = execution.serializeReference();
      saveReferences([...loadReferences().filter((r) => r.taskId !== reference.taskId), reference]);
    }
    const { outcome } = await execution.settle({
      onEvent: (event) => {
        if (event.type === "task") onStatus(event.task.taskId, event.task.status, event.task.statusMessage);
      },
    });
    if (execution.kind === "task") saveReferences(loadReferences().filter((r) => r.taskId !== execution.handle.taskId));
    return resultFromTaskOutcome(outcome);
  }

  return {
    /** Calls `tool` as a task and resolves with its result. */
    async run(tool, args) {
      return follow(await session.callTool(tool, args, { task: { preference: "prefer" } }));
    },
    /** After a reload: resumes every stored task. */
    resumeAll() {
      return loadReferences().map(async (reference) => follow(await session.resumeTask(reference)));
    },
    /** The current state of one task. */
    status(taskId) {
      return session.task(taskId).snapshot();
    },
    list(cursor) {
      return session.listTasks(cursor);
    },
    cancel(taskId) {
      return session.cancelTask(taskId);
    },
    close() {
      return session.close();
    },
  };
}
