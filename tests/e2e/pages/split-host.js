// What split.html and one-entry.html share (no package import of its own): registers the elements,
// and exposes for Playwright window.__split = { ready, start(tool, args) }, which calls the tool
// with the page's client and mounts an <mcp-task data-task=id> for the task.
/**
 * @param {{ callTool(tool: string, args: object): Promise<{ kind: string, task?: { taskId: string } }> }} client
 * @param {() => void} defineMcpTask
 */
export function expose(client, defineMcpTask) {
  defineMcpTask();
  window.__split = {
    ready: true,
    async start(tool, args = {}) {
      const outcome = await client.callTool(tool, args);
      if (outcome.kind !== "task") return null;
      const card = document.createElement("mcp-task");
      card.dataset.task = outcome.task.taskId;
      card.client = client;
      card.taskId = outcome.task.taskId;
      document.getElementById("tasks").append(card);
      return outcome.task.taskId;
    },
  };
}
