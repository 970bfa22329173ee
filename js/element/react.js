// @ts-check
// mcp-tasks-web/react is types only (react.d.ts: <mcp-task> and <mcp-task-list> in React 19's JSX).
// This empty module lets `import "mcp-tasks-web/react"` resolve at run time as well; it does nothing.
export {};
