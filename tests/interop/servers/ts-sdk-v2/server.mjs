// Interop peer for the client: an MCP server built on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/core 2.4.0), protocol 2026-07-28.
//
// SDK 2.4.0 ships no tasks server for the 2026-07-28 Tasks extension
// (`io.modelcontextprotocol/tasks`). This file adds a small tasks layer of our own on the SDK's
// hooks:
//   - `capabilities.extensions["io.modelcontextprotocol/tasks"] = {}` (the SDK's server/discover
//     advertises it as given);
//   - the tools return a flat CreateTaskResult (`resultType: "task"`) from McpServer.registerTool
//     handlers when the request's envelope declares the extension;
//   - tasks/get, tasks/update, tasks/cancel as custom request handlers (3-argument
//     setRequestHandler with a params schema). The SDK lifts `params.inputResponses` off
//     tasks/update before dispatch; the handler reads them from `ctx.mcpReq.inputResponses`.
// The HTTP side is the SDK's createMcpHandler (a fresh McpServer per request, no sessions); the
// task table lives at module level so it outlives the per-request instances.
//
// subscriptions/listen is answered by the SDK itself (createMcpHandler's listen router) and is
// left exactly as shipped: it honours no `taskIds` (ack `{"notifications":{}}`) and ends the
// stream at once with the listen result. See README.md.
//
//   node server.mjs [--port N] [--auth-token-ms N]      (port 0 or absent: a free port)
//
// `--auth-token-ms N` puts /mcp behind the SDK's own bearer-auth gate (`requireBearerAuth`, with a
// verifier of ours): `POST /token` mints a token the verifier accepts for N ms, after which the gate
// answers 401 `Bearer error="invalid_token", error_description="Token has expired",
// resource_metadata=…`. `GET /auth-stats` tells how many requests the gate refused (`{ refused }`).
//
// Binds 127.0.0.1 only and prints exactly one line, `listening on http://127.0.0.1:PORT/mcp`,
// once ready. Exits on SIGTERM / SIGINT.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import * as z from 'zod';
import {
    McpServer,
    createMcpHandler,
    ProtocolError,
    MissingRequiredClientCapabilityError,
    OAuthError,
    OAuthErrorCode,
    requireBearerAuth
} from '@modelcontextprotocol/server';

const SERVER_INFO = { name: 'mcp-tasks-interop-ts-sdk-v2', version: '0.1.0' };
const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPS_KEY = 'io.modelcontextprotocol/clientCapabilities';
const TASK_TTL_MS = 10 * 60 * 1000;
const POLL_INTERVAL_MS = 500;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

// ---------------------------------------------------------------------------------------------
// command line

function parseArgs(argv) {
    const out = { port: 0, authTokenMs: undefined };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const [flag, inline] = a.split('=', 2);
        const v = inline ?? argv[++i];
        const n = Number(v);
        if (flag === '--port' && Number.isInteger(n) && n >= 0 && n <= 65535) out.port = n;
        else if (flag === '--auth-token-ms' && Number.isInteger(n) && n > 0) out.authTokenMs = n;
        else {
            console.error(`unknown argument or bad value: ${a} ${inline === undefined ? (v ?? '') : ''}`);
            process.exit(2);
        }
    }
    return out;
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

function corsHeaders(req) {
    const origin = req.headers.origin;
    const headers = { Vary: 'Origin' };
    if (typeof origin === 'string' && LOOPBACK_ORIGIN.test(origin)) {
        headers['Access-Control-Allow-Origin'] = origin;
        headers['Access-Control-Expose-Headers'] = EXPOSE_HEADERS;
    }
    return headers;
}

function answerPreflight(req, res) {
    const requested = String(req.headers['access-control-request-headers'] ?? '')
        .split(',')
        .map(h => h.trim().toLowerCase())
        .filter(h => /^mcp-param-[a-z0-9-]+$/.test(h));
    const allow = [...ALLOW_HEADERS, ...requested.filter(h => !ALLOW_HEADERS.includes(h))];
    res.writeHead(204, {
        ...corsHeaders(req),
        'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': allow.join(', '),
        'Access-Control-Max-Age': '600'
    });
    res.end();
}

// ---------------------------------------------------------------------------------------------
// the tasks layer

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** taskId -> record; the wire fields plus the private state of the running work. */
const tasks = new Map();

function now() {
    return new Date().toISOString();
}

function createTask(statusMessage) {
    const at = now();
    const record = {
        taskId: randomUUID(),
        status: 'working',
        statusMessage,
        createdAt: at,
        lastUpdatedAt: at,
        ttlMs: TASK_TTL_MS,
        pollIntervalMs: POLL_INTERVAL_MS,
        // private
        nextInputKey: 1,
        inputRequests: undefined, // key -> {method, params}
        inputWaiter: undefined, // key -> resolve(response)
        result: undefined,
        error: undefined,
        cancelled: new AbortController()
    };
    tasks.set(record.taskId, record);
    setTimeout(() => tasks.delete(record.taskId), TASK_TTL_MS).unref();
    return record;
}

function taskFields(t) {
    return {
        taskId: t.taskId,
        status: t.status,
        ...(t.statusMessage !== undefined && { statusMessage: t.statusMessage }),
        createdAt: t.createdAt,
        lastUpdatedAt: t.lastUpdatedAt,
        ttlMs: t.ttlMs,
        pollIntervalMs: t.pollIntervalMs
    };
}

/** The flat CreateTaskResult a tools/call returns. */
function createTaskResult(t) {
    return { resultType: 'task', ...taskFields(t) };
}

/** A tasks/get result: the task plus its status-specific extra. */
function detailedTask(t) {
    const out = taskFields(t);
    if (t.status === 'input_required' && t.inputRequests) out.inputRequests = { ...t.inputRequests };
    if (t.status === 'completed') out.result = t.result;
    if (t.status === 'failed') out.error = t.error;
    return out;
}

function running(t) {
    return !TERMINAL.has(t.status);
}

function update(t, status, statusMessage) {
    if (!running(t)) return false;
    t.status = status;
    if (statusMessage !== undefined) t.statusMessage = statusMessage;
    t.lastUpdatedAt = now();
    return true;
}

function complete(t, result, statusMessage) {
    if (!running(t)) return;
    t.result = { resultType: 'complete', ...result };
    update(t, 'completed', statusMessage);
}

function fail(t, error, statusMessage) {
    if (!running(t)) return;
    t.error = error;
    update(t, 'failed', statusMessage);
}

/** Sleep `ms`; false when the task stopped running (cancelled) meanwhile. */
async function runningAfter(t, ms) {
    if (!running(t)) return false;
    await new Promise(resolve => {
        const timer = setTimeout(resolve, ms);
        t.cancelled.signal.addEventListener(
            'abort',
            () => {
                clearTimeout(timer);
                resolve();
            },
            { once: true }
        );
    });
    return running(t);
}

/**
 * Ask the client for input: the task goes input_required with one inputRequests entry under a
 * fresh key; resolves with the client's response from tasks/update (or undefined if cancelled).
 */
function askInput(t, request, statusMessage) {
    const key = `input-${t.nextInputKey++}`;
    return new Promise(resolve => {
        t.inputRequests = { [key]: request };
        t.inputWaiter = { key, resolve };
        update(t, 'input_required', statusMessage);
        t.cancelled.signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
}

function background(work) {
    work().catch(error => console.error(`task work failed: ${error?.stack ?? error}`));
}

function lookup(taskId) {
    const t = tasks.get(taskId);
    if (!t) throw new ProtocolError(INVALID_PARAMS, `Task not found: ${taskId}`);
    return t;
}

function declaresTasks(ctx) {
    const caps = ctx.mcpReq.envelope?.[CLIENT_CAPS_KEY];
    return caps?.extensions?.[TASKS_EXT] !== undefined;
}

function requireTasks(ctx, what) {
    if (!declaresTasks(ctx)) {
        throw new MissingRequiredClientCapabilityError(
            { requiredCapabilities: { extensions: { [TASKS_EXT]: {} } } },
            `${what} requires the ${TASKS_EXT} extension; declare it in _meta["${CLIENT_CAPS_KEY}"].extensions`
        );
    }
}

// ---------------------------------------------------------------------------------------------
// the tools' work

function buildWork(t, { seconds, target }) {
    background(async () => {
        const steps = 3;
        for (let i = 1; i <= steps; i++) {
            if (!update(t, 'working', `compiling ${i}/${steps} ${target}`)) return;
            if (!(await runningAfter(t, (seconds * 1000) / steps))) return;
        }
        complete(
            t,
            {
                content: [{ type: 'text', text: `Built ${target} in ${seconds}s` }],
                structuredContent: { ok: true, target, seconds }
            },
            `built ${target}`
        );
    });
}

function deployWork(t, { service, environment }) {
    background(async () => {
        if (!(await runningAfter(t, 300))) return;
        const answer = await askInput(
            t,
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
            `waiting for approval to deploy ${service} to ${environment}`
        );
        if (answer === undefined || !running(t)) return;
        const confirm = answer.action === 'accept' && answer.content?.confirm === true;
        const reason = typeof answer.content?.reason === 'string' ? answer.content.reason : undefined;
        if (!confirm) {
            fail(
                t,
                {
                    code: -32000,
                    message: `Deployment of ${service} to ${environment} not approved`,
                    data: { service, environment, action: answer.action, ...(reason !== undefined && { reason }) }
                },
                'deployment rejected'
            );
            return;
        }
        if (!update(t, 'working', `deploying ${service} to ${environment}`)) return;
        if (!(await runningAfter(t, 300))) return;
        complete(
            t,
            {
                content: [{ type: 'text', text: `Deployed ${service} to ${environment}` }],
                structuredContent: { service, environment, confirm: true, ...(reason !== undefined && { reason }) }
            },
            'deployed'
        );
    });
}

const FLAKY_ERROR = { code: INTERNAL_ERROR, message: 'Internal error: build cache unavailable', data: { retryable: true } };

function flakyWork(t, { seconds }) {
    background(async () => {
        if (!(await runningAfter(t, seconds * 1000))) return;
        fail(t, FLAKY_ERROR, 'failed: build cache unavailable');
    });
}

function longJobWork(t, { seconds }) {
    background(async () => {
        for (let s = 1; s <= seconds; s++) {
            if (!(await runningAfter(t, 1000))) return;
            update(t, 'working', `${s}s of ${seconds}s`);
        }
        complete(t, { content: [{ type: 'text', text: `long_job ran ${seconds}s` }], structuredContent: { ok: true, seconds } });
    });
}

// ---------------------------------------------------------------------------------------------
// the per-request server instance

function newServer() {
    const server = new McpServer(SERVER_INFO, {
        capabilities: { tools: {}, extensions: { [TASKS_EXT]: {} } }
    });

    server.registerTool(
        'build',
        {
            description:
                'Build `target` for `seconds` seconds, updating statusMessage (compiling i/3). A task when the ' +
                'request declares the tasks extension, else runs inline.',
            inputSchema: z.object({ seconds: z.number().min(0).max(600).default(5), target: z.string().default('app') })
        },
        async (args, ctx) => {
            if (!declaresTasks(ctx)) {
                await sleep(args.seconds * 1000);
                return {
                    content: [{ type: 'text', text: `Built ${args.target} in ${args.seconds}s` }],
                    structuredContent: { ok: true, target: args.target, seconds: args.seconds }
                };
            }
            const t = createTask(`queued ${args.target}`);
            buildWork(t, args);
            return createTaskResult(t);
        }
    );

    server.registerTool(
        'deploy',
        {
            description:
                'Deploy `service` to `environment`; the task goes input_required with a form elicitation ' +
                '(confirm: boolean, reason?: string). Task only.',
            inputSchema: z.object({ service: z.string(), environment: z.string() })
        },
        async (args, ctx) => {
            requireTasks(ctx, 'Tool "deploy"');
            const t = createTask(`preparing deployment of ${args.service} to ${args.environment}`);
            deployWork(t, args);
            return createTaskResult(t);
        }
    );

    server.registerTool(
        'flaky',
        {
            description: 'Fails after `seconds` seconds with a JSON-RPC error (task ends failed).',
            inputSchema: z.object({ seconds: z.number().min(0).max(60).default(1) })
        },
        async (args, ctx) => {
            if (!declaresTasks(ctx)) {
                await sleep(args.seconds * 1000);
                throw new ProtocolError(FLAKY_ERROR.code, FLAKY_ERROR.message, FLAKY_ERROR.data);
            }
            const t = createTask('attempt 1: contacting build cache');
            flakyWork(t, args);
            return createTaskResult(t);
        }
    );

    server.registerTool(
        'long_job',
        {
            description: 'Runs for `seconds` seconds (default 300) unless cancelled with tasks/cancel. Task only.',
            inputSchema: z.object({ seconds: z.number().min(1).max(3600).default(300) })
        },
        async (args, ctx) => {
            requireTasks(ctx, 'Tool "long_job"');
            const t = createTask(`0s of ${args.seconds}s`);
            longJobWork(t, args);
            return createTaskResult(t);
        }
    );

    server.registerTool(
        'inline_progress',
        {
            description:
                'Runs inline for `seconds` seconds (never a task). When the request carries a progress token it ' +
                'sends notifications/progress every `everyMs` ms on the call\'s stream; without one it is silent ' +
                'until the result.',
            inputSchema: z.object({
                seconds: z.number().min(0).max(600).default(3),
                everyMs: z.number().min(50).max(60_000).default(250)
            })
        },
        async (args, ctx) => {
            const token = ctx.mcpReq._meta?.progressToken;
            const steps = Math.max(1, Math.ceil((args.seconds * 1000) / args.everyMs));
            for (let step = 1; step <= steps; step++) {
                await sleep(args.everyMs);
                if (token === undefined) continue;
                await ctx.mcpReq.notify({
                    method: 'notifications/progress',
                    params: { progressToken: token, progress: step, total: steps, message: `step ${step} of ${steps}` }
                });
            }
            return {
                content: [{ type: 'text', text: `ran ${args.seconds}s inline` }],
                structuredContent: { ok: true, steps, reported: token !== undefined }
            };
        }
    );

    const low = server.server;
    const TaskIdParams = z.object({ taskId: z.string() });

    low.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) => {
        requireTasks(ctx, 'tasks/get');
        return detailedTask(lookup(params.taskId));
    });

    low.setRequestHandler('tasks/update', { params: TaskIdParams }, async (params, ctx) => {
        requireTasks(ctx, 'tasks/update');
        const t = lookup(params.taskId);
        // inputResponses were lifted off params by the SDK (bare responses only).
        const responses = ctx.mcpReq.inputResponses ?? {};
        const waiter = t.inputWaiter;
        if (t.status === 'input_required' && waiter && Object.hasOwn(responses, waiter.key)) {
            t.inputWaiter = undefined;
            t.inputRequests = undefined;
            update(t, 'working', 'input received');
            waiter.resolve(responses[waiter.key]);
        }
        // unknown, answered or superseded keys are ignored
        return {};
    });

    low.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
        requireTasks(ctx, 'tasks/cancel');
        const t = lookup(params.taskId);
        if (running(t)) {
            t.inputWaiter = undefined;
            t.inputRequests = undefined;
            update(t, 'cancelled', 'cancelled by tasks/cancel');
            t.cancelled.abort();
        }
        // cancelling a terminal task is acknowledged and changes nothing
        return {};
    });

    return server;
}

// ---------------------------------------------------------------------------------------------
// HTTP: node:http in front of the SDK's web-standard handler

// ---------------------------------------------------------------------------------------------
// --auth-token-ms: the SDK's bearer-auth gate, with tokens that expire

const { port, authTokenMs } = parseArgs(process.argv.slice(2));
/** token -> when it expires (Unix ms). */
const tokens = new Map();
const authStats = { refused: 0, minted: 0 };
const gate =
    authTokenMs === undefined
        ? undefined
        : requireBearerAuth({
              verifier: {
                  async verifyAccessToken(token) {
                      const expires = tokens.get(token);
                      if (expires === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown token');
                      return { token, clientId: 'interop', scopes: ['mcp'], expiresAt: expires / 1000 };
                  }
              },
              requiredScopes: ['mcp'],
              resourceMetadataUrl: 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp'
          });

function mintToken(req, res) {
    const token = `tok-${randomUUID()}`;
    tokens.set(token, Date.now() + authTokenMs);
    authStats.minted += 1;
    res.writeHead(200, { ...corsHeaders(req), 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: authTokenMs / 1000 }));
}

const mcp = createMcpHandler(() => newServer(), {
    onerror: error => {
        if (process.env.INTEROP_SERVER_DEBUG) console.error(`mcp: ${error?.message ?? error}`);
    }
});

async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'OPTIONS') return answerPreflight(req, res);
    if (gate && url.pathname === '/token' && req.method === 'POST') return mintToken(req, res);
    if (gate && url.pathname === '/auth-stats') {
        res.writeHead(200, { ...corsHeaders(req), 'Content-Type': 'application/json' });
        res.end(JSON.stringify(authStats));
        return;
    }
    if (url.pathname !== '/mcp') {
        res.writeHead(404, { ...corsHeaders(req), 'Content-Type': 'text/plain' });
        res.end('not found\n');
        return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
        if (Array.isArray(value)) for (const v of value) headers.append(name, v);
        else if (value !== undefined) headers.set(name, value);
    }
    const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined,
        signal: aborted.signal
    });
    const auth = gate ? await gate(request) : undefined;
    if (auth instanceof Response) authStats.refused += 1;
    const response = auth instanceof Response ? auth : await mcp.fetch(request, auth ? { authInfo: auth } : undefined);
    const out = { ...corsHeaders(req) };
    response.headers.forEach((value, name) => {
        out[name] = value;
    });
    res.writeHead(response.status, out);
    if (response.body) {
        const body = Readable.fromWeb(response.body);
        body.on('error', () => res.destroy());
        res.on('close', () => body.destroy());
        body.pipe(res);
    } else {
        res.end();
    }
}

const httpServer = http.createServer((req, res) => {
    handle(req, res).catch(error => {
        console.error(`request failed: ${error?.stack ?? error}`);
        if (!res.headersSent) {
            res.writeHead(500, { 'Content-Type': 'application/json' });
            res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: INTERNAL_ERROR, message: 'Internal error' }, id: null }));
        } else {
            res.end();
        }
    });
});

function shutdown() {
    mcp.close().catch(() => {});
    for (const t of tasks.values()) t.cancelled.abort();
    httpServer.closeAllConnections?.();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

httpServer.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
