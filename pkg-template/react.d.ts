// Types of mcp-tasks-web/react: <mcp-task> and <mcp-task-list> as React 19 JSX, with typed props and
// event props. Types only: `import type {} from "mcp-tasks-web/react"` once (or list it in tsconfig
// "types") and the JSX below type-checks.
//
// React 19 sets a prop of a custom element as a property when the element has one by that name
// (`client`, `taskId`, `labels`), so call defineMcpTask() before the first render: an element not yet
// defined gets `client="[object Object]"` as an attribute instead. A prop that starts with `on` and
// holds a function becomes an event listener for the event named by the rest, exactly as written:
// `onmcp-task-change` listens to "mcp-task-change" (`onMcpTaskChange` would listen to "McpTaskChange").
// A card tells its first snapshot as it is connected, which React does while it commits: a handler that
// sets state of a component mounting in that same commit (cards restored into a parent's first render)
// makes React warn in development ("Can't perform a React state update on a component that hasn't
// mounted yet").
import type { DetailedHTMLProps, HTMLAttributes } from "react";
import type { TaskClient, TaskSnapshot } from "./mcp_tasks_web.js";
import type { Labels, McpTaskElement, McpTaskInputDetail, McpTaskListElement } from "./element.js";

/** Listeners for the elements' events; they bubble and are composed, so a list hears its cards'. */
export interface McpTaskEventProps {
  /** Every change of the task's snapshot. */
  "onmcp-task-change"?: (event: CustomEvent<TaskSnapshot>) => void;
  /** An answer about to be sent; `event.preventDefault()` and the element sends nothing. */
  "onmcp-task-input"?: (event: CustomEvent<McpTaskInputDetail>) => void;
  /** The task reached completed, failed, cancelled or expired. */
  "onmcp-task-settled"?: (event: CustomEvent<TaskSnapshot>) => void;
}

/** Props of `<mcp-task>`: set as the element's properties (see element.d.ts). */
export interface McpTaskProps extends DetailedHTMLProps<HTMLAttributes<McpTaskElement>, McpTaskElement>, McpTaskEventProps {
  client?: TaskClient | null;
  taskId?: string | null;
  /** The attribute form of `taskId`. */
  "task-id"?: string;
  /** Names the task's server in the header (a list sets it when it holds several clients). */
  "show-server"?: boolean | "";
  /** Words for this element: `{ key: word }` or `{ [lang]: { key: word } }`. */
  labels?: Labels | Record<string, Labels> | null;
}

/** Props of `<mcp-task-list>`. */
export interface McpTaskListProps extends DetailedHTMLProps<HTMLAttributes<McpTaskListElement>, McpTaskListElement>, McpTaskEventProps {
  client?: TaskClient | null;
  /** One TaskClient per MCP server, listed together (pass a stable array: a new one redraws the list). */
  clients?: TaskClient[];
  /** System notifications while the page is hidden (sets `client.notify` on each client). */
  notify?: boolean | "";
  labels?: Labels | Record<string, Labels> | null;
}

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "mcp-task": McpTaskProps;
      "mcp-task-list": McpTaskListProps;
    }
  }
}
