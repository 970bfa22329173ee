// Interop peer for the client: an MCP server built on the official TypeScript SDK v1
// (@modelcontextprotocol/sdk 1.32.2), protocol 2025-11-25, with the SDK's experimental tasks
// (InMemoryTaskStore, InMemoryTaskMessageQueue, experimental.tasks.registerToolTask).
//
// Transport: the SDK's StreamableHTTPServerTransport with sessions (Mcp-Session-Id), one
// McpServer + transport per session, all sessions sharing one task store and one message queue
// (the store binds every task to the session that created it).
//
//   node server.mjs [--port N]      (0 or absent: a free port)
//
// Binds 127.0.0.1 only and prints exactly one line, `listening on http://127.0.0.1:PORT/mcp`,
// once ready. Exits on SIGTERM / SIGINT.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';
import { ElicitResultSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const SERVER_INFO = { name: 'mcp-tasks-interop-ts-sdk-v1', version: '0.1.0' };
const TASK_TTL_MS = 10 * 60 * 1000;
const POLL_INTERVAL_MS = 500;

// ---------------------------------------------------------------------------------------------
// command line

function parsePort(argv) {
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        let v;
        if (a === '--port') v = argv[++i];
        else if (a.startsWith('--port=')) v = a.slice('--port='.length);
        else {
            console.error(`unknown argument: ${a}`);
            process.exit(2);
        }
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 65535) {
            console.error(`bad --port value: ${v}`);
            process.exit(2);
        }
        return n;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// CORS for browser pages served from loopback origins

const LOOPBACK_ORIGIN = /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?$/;
const ALLOW_HEADERS = [
    'content-type',
    'accept',
    'mcp-session-id',
    'mcp-protocol-version',
    'mcp-method',
    'mcp-name',
    'authorization',
    'last-event-id'
];
const EXPOSE_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, Retry-After, Content-Type, WWW-Authenticate';

function applyCors(req, res) {
    const origin = req.headers.origin;
    if (typeof origin === 'string' && LOOPBACK_ORIGIN.test(origin)) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
    res.setHeader('Vary', 'Origin');
}

function answerPreflight(req, res) {
    applyCors(req, res);
    const requested = String(req.headers['access-control-request-headers'] ?? '')
        .split(',')
        .map(h => h.trim().toLowerCase())
        .filter(h => /^mcp-param-[a-z0-9-]+$/.test(h));
    const allow = [...ALLOW_HEADERS, ...requested.filter(h => !ALLOW_HEADERS.includes(h))];
    res.writeHead(204, {
        'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': allow.join(', '),
        'Access-Control-Max-Age': '600'
    });
    res.end();
}

// ---------------------------------------------------------------------------------------------
// task helpers

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

async function isTerminal(store, taskId) {
    const task = await store.getTask(taskId).catch(() => null);
    return !task || TERMINAL.has(task.status);
}

// Sleep `ms`, waking early when the task was cancelled (or otherwise ended). Returns false when
// the task is no longer running.
async function runningAfter(store, taskId, ms) {
    const until = Date.now() + ms;
    while (Date.now() < until) {
        await sleep(Math.min(200, until - Date.now()));
        if (await isTerminal(store, taskId)) return false;
    }
    return !(await isTerminal(store, taskId));
}

// Status updates and results can race a tasks/cancel: the store refuses to leave a terminal
// state, which we take as "stop".
async function setStatus(store, taskId, status, message) {
    try {
        await store.updateTaskStatus(taskId, status, message);
        return true;
    } catch {
        return false;
    }
}

async function finish(store, taskId, status, result) {
    try {
        await store.storeTaskResult(taskId, status, result);
    } catch {
        // the task was cancelled meanwhile; its result is dropped
    }
}

async function newTask(extra, statusMessage) {
    const task = await extra.taskStore.createTask({
        ttl: extra.taskRequestedTtl ?? TASK_TTL_MS,
        pollInterval: POLL_INTERVAL_MS
    });
    await extra.taskStore.updateTaskStatus(task.taskId, 'working', statusMessage);
    return await extra.taskStore.getTask(task.taskId);
}

function background(work) {
    work().catch(error => console.error(`task work failed: ${error?.stack ?? error}`));
}

// getTask / getTaskResult of a task tool: the SDK's own tasks/get and tasks/result handlers
// serve those methods from the store, these are what McpServer calls for the tool itself.
const fromStore = {
    getTask: async (_args, extra) => await extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_args, extra) => await extra.taskStore.getTaskResult(extra.taskId)
};

// ---------------------------------------------------------------------------------------------
// the tools

function registerTools(server) {
    const tasks = server.experimental.tasks;

    tasks.registerToolTask(
        'build',
        {
            description:
                'Build `target` for `seconds` seconds, updating statusMessage (compiling i/3) and reporting ' +
                'notifications/progress (i of 3) for the call\'s progressToken, then complete.',
            inputSchema: {
                seconds: z.number().min(0).max(600).default(5),
                target: z.string().default('app')
            },
            execution: { taskSupport: 'optional' }
        },
        {
            createTask: async ({ seconds, target }, extra) => {
                const task = await newTask(extra, `queued ${target}`);
                const store = extra.taskStore;
                const progressToken = extra._meta?.progressToken;
                background(async () => {
                    const steps = 3;
                    for (let i = 1; i <= steps; i++) {
                        // After the handle the call's own stream has closed, so progress goes out on the
                        // session's standalone GET stream (sent with no related request), for the token the
                        // call carried, which stays valid for the task's whole life.
                        if (progressToken !== undefined) {
                            await server.server
                                .notification({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } })
                                .catch(() => {});
                        }
                        if (!(await setStatus(store, task.taskId, 'working', `compiling ${i}/${steps} ${target}`))) return;
                        if (!(await runningAfter(store, task.taskId, (seconds * 1000) / steps))) return;
                    }
                    await finish(store, task.taskId, 'completed', {
                        content: [{ type: 'text', text: `Built ${target} in ${seconds}s` }],
                        structuredContent: { ok: true, target, seconds }
                    });
                });
                return { task };
            },
            ...fromStore
        }
    );

    tasks.registerToolTask(
        'deploy',
        {
            description:
                'Deploy `service` to `environment` after a form elicitation (confirm: boolean, reason?: string). ' +
                'The elicitation/create request is queued for the task and delivered on the tasks/result stream.',
            inputSchema: {
                service: z.string(),
                environment: z.string()
            },
            execution: { taskSupport: 'required' }
        },
        {
            createTask: async ({ service, environment }, extra) => {
                const task = await newTask(extra, `preparing deployment of ${service} to ${environment}`);
                const store = extra.taskStore;
                background(async () => {
                    if (!(await runningAfter(store, task.taskId, 300))) return;
                    // The SDK moves the task to input_required without touching statusMessage,
                    // so say what is awaited first.
                    if (!(await setStatus(store, task.taskId, 'working', `waiting for approval to deploy ${service} to ${environment}`))) return;
                    // extra.sendRequest with relatedTask: the SDK sets the task to input_required,
                    // stamps _meta["io.modelcontextprotocol/related-task"] and queues the request for
                    // delivery on the tasks/result response stream; the client's JSON-RPC response
                    // (a separate POST) resolves this promise.
                    let answer;
                    try {
                        answer = await extra.sendRequest(
                            {
                                method: 'elicitation/create',
                                params: {
                                    mode: 'form',
                                    message: `Approve deployment of ${service} to ${environment}?`,
                                    requestedSchema: {
                                        type: 'object',
                                        properties: {
                                            confirm: { type: 'boolean', title: 'Approve', description: 'Approve this deployment' },
                                            reason: { type: 'string', title: 'Reason', description: 'Why approve or reject?' }
                                        },
                                        required: ['confirm']
                                    }
                                }
                            },
                            ElicitResultSchema,
                            { relatedTask: { taskId: task.taskId }, timeout: TASK_TTL_MS }
                        );
                    } catch (error) {
                        if (await isTerminal(store, task.taskId)) return;
                        await finish(store, task.taskId, 'failed', {
                            content: [{ type: 'text', text: `Deployment input failed: ${error?.message ?? error}` }],
                            isError: true
                        });
                        return;
                    }
                    const confirm = answer.action === 'accept' && answer.content?.confirm === true;
                    const reason = typeof answer.content?.reason === 'string' ? answer.content.reason : undefined;
                    if (!confirm) {
                        await finish(store, task.taskId, 'failed', {
                            content: [
                                {
                                    type: 'text',
                                    text: `Deployment of ${service} to ${environment} not approved (action ${answer.action})`
                                }
                            ],
                            isError: true
                        });
                        return;
                    }
                    if (!(await setStatus(store, task.taskId, 'working', `deploying ${service} to ${environment}`))) return;
                    if (!(await runningAfter(store, task.taskId, 300))) return;
                    const structuredContent = { service, environment, confirm: true };
                    if (reason !== undefined) structuredContent.reason = reason;
                    await finish(store, task.taskId, 'completed', {
                        content: [{ type: 'text', text: `Deployed ${service} to ${environment}` }],
                        structuredContent
                    });
                });
                return { task };
            },
            ...fromStore
        }
    );

    tasks.registerToolTask(
        'flaky',
        {
            description: 'Fails after `seconds` seconds: the tool result has isError: true and the task ends failed.',
            inputSchema: { seconds: z.number().min(0).max(60).default(1) },
            execution: { taskSupport: 'optional' }
        },
        {
            createTask: async ({ seconds }, extra) => {
                const task = await newTask(extra, 'attempt 1: contacting build cache');
                const store = extra.taskStore;
                background(async () => {
                    if (!(await runningAfter(store, task.taskId, seconds * 1000))) return;
                    await finish(store, task.taskId, 'failed', {
                        content: [{ type: 'text', text: 'build cache unavailable' }],
                        isError: true
                    });
                });
                return { task };
            },
            ...fromStore
        }
    );

    tasks.registerToolTask(
        'long_job',
        {
            description: 'Runs for `seconds` seconds (default 300) unless cancelled with tasks/cancel.',
            inputSchema: { seconds: z.number().min(1).max(3600).default(300) },
            execution: { taskSupport: 'required' }
        },
        {
            createTask: async ({ seconds }, extra) => {
                const task = await newTask(extra, `0s of ${seconds}s`);
                const store = extra.taskStore;
                background(async () => {
                    for (let t = 1; t <= seconds; t++) {
                        if (!(await runningAfter(store, task.taskId, 1000))) return;
                        if (!(await setStatus(store, task.taskId, 'working', `${t}s of ${seconds}s`))) return;
                    }
                    await finish(store, task.taskId, 'completed', {
                        content: [{ type: 'text', text: `long_job ran ${seconds}s` }],
                        structuredContent: { ok: true, seconds }
                    });
                });
                return { task };
            },
            ...fromStore
        }
    );

    server.registerTool(
        'inline_progress',
        {
            description:
                'Runs inline for `seconds` seconds (never a task). When the request carries a progress token it ' +
                'sends notifications/progress every `everyMs` ms on the call\'s stream; without one it is silent ' +
                'until the result.',
            inputSchema: {
                seconds: z.number().min(0).max(600).default(3),
                everyMs: z.number().min(50).max(60_000).default(250)
            }
        },
        async ({ seconds, everyMs }, extra) => {
            const token = extra._meta?.progressToken;
            const steps = Math.max(1, Math.ceil((seconds * 1000) / everyMs));
            for (let step = 1; step <= steps; step++) {
                await sleep(everyMs);
                if (token === undefined) continue;
                await extra.sendNotification({
                    method: 'notifications/progress',
                    params: { progressToken: token, progress: step, total: steps, message: `step ${step} of ${steps}` }
                });
            }
            return {
                content: [{ type: 'text', text: `ran ${seconds}s inline` }],
                structuredContent: { ok: true, steps, reported: token !== undefined }
            };
        }
    );
}

// ---------------------------------------------------------------------------------------------
// sessions and HTTP

const taskStore = new InMemoryTaskStore();
const taskMessageQueue = new InMemoryTaskMessageQueue();
const sessions = new Map(); // Mcp-Session-Id -> transport

function newSessionServer() {
    const server = new McpServer(SERVER_INFO, {
        capabilities: {
            tools: {},
            tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }
        },
        taskStore,
        taskMessageQueue,
        defaultTaskPollInterval: POLL_INTERVAL_MS
    });
    registerTools(server);
    return server;
}

async function readJson(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.length === 0) return undefined;
    try {
        return JSON.parse(text);
    } catch {
        return undefined; // the transport answers the parse error itself
    }
}

function noSession(res) {
    // What the SDK's own session examples answer for a request that neither carries a known
    // Mcp-Session-Id nor is an initialize request.
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(
        JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
            id: null
        })
    );
}

async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'OPTIONS') return answerPreflight(req, res);
    applyCors(req, res);
    if (url.pathname !== '/mcp') {
        res.writeHead(404, { 'Content-Type': 'text/plain' });
        res.end('not found\n');
        return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;

    if (req.method === 'POST') {
        const body = await readJson(req);
        if (known) return await known.handleRequest(req, res, body);
        if (sessionId === undefined && body !== undefined && isInitializeRequest(body)) {
            const transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: id => {
                    sessions.set(id, transport);
                }
            });
            transport.onclose = () => {
                if (transport.sessionId) sessions.delete(transport.sessionId);
            };
            const server = newSessionServer();
            await server.connect(transport);
            return await transport.handleRequest(req, res, body);
        }
        return noSession(res);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
        if (known) return await known.handleRequest(req, res);
        return noSession(res);
    }
    res.writeHead(405, { Allow: 'GET, POST, DELETE, OPTIONS', 'Content-Type': 'text/plain' });
    res.end('method not allowed\n');
}

const port = parsePort(process.argv.slice(2));
const httpServer = http.createServer((req, res) => {
    handle(req, res).catch(error => {
        console.error(`request failed: ${error?.stack ?? error}`);
        if (!res.headersSent) {
            res.writeHead(500, { 'Content-Type': 'application/json' });
            res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
        } else {
            res.end();
        }
    });
});

function shutdown() {
    for (const transport of sessions.values()) transport.close().catch(() => {});
    taskStore.cleanup();
    httpServer.closeAllConnections?.();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

httpServer.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
