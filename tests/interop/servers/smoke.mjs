#!/usr/bin/env node
// Raw-wire smoke test for the interop servers in this folder: starts one of them and drives it
// with plain fetch (no SDK client), checking the bytes each step returns.
//
//   node tests/interop/servers/smoke.mjs v1|v2 [--trace]
//
// v1: ts-sdk-v1 (@modelcontextprotocol/sdk 1.32.2, protocol 2025-11-25, sessions, experimental
//     tasks; input through an elicitation/create request on the tasks/result stream).
// v2: ts-sdk-v2 (@modelcontextprotocol/server 2.4.0, protocol 2026-07-28, tasks extension;
//     input through inputRequests + tasks/update; the SDK's own subscriptions/listen).
//
// Prints `ok <check>` per check and `smoke <v>: N passed, M failed` at the end; exits 1 with
// `FAIL <check>: <reason>` on the first mismatch. The server's dependencies must be installed
// (`npm ci` in its folder). --trace (or INTEROP_TRACE=1) dumps every exchange to stderr.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const which = args.find(a => !a.startsWith('--'));
const TRACE = args.includes('--trace') || process.env.INTEROP_TRACE === '1';
if (which !== 'v1' && which !== 'v2') {
    console.error('usage: node smoke.mjs v1|v2 [--trace]');
    process.exit(2);
}
const SERVER_DIR = path.join(HERE, which === 'v1' ? 'ts-sdk-v1' : 'ts-sdk-v2');
const ORIGIN = 'http://127.0.0.1:5173';
const TASKS_EXT = 'io.modelcontextprotocol/tasks';
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const RUN_LIMIT_MS = 120_000;

let passed = 0;
class CheckFailed extends Error {}

function ok(name, detail) {
    passed++;
    console.log(detail === undefined ? `ok ${name}` : `ok ${name} (${detail})`);
}
function fail(name, reason) {
    throw new CheckFailed(`FAIL ${name}: ${reason}`);
}
function check(name, condition, reason, detail) {
    if (!condition) fail(name, typeof reason === 'function' ? reason() : reason);
    ok(name, detail);
}
const j = v => JSON.stringify(v);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
function trace(...lines) {
    if (TRACE) for (const l of lines) process.stderr.write(`${l}\n`);
}

// ---------------------------------------------------------------------------------------------
// server process

let child;
async function startServer() {
    child = spawn(process.execPath, ['server.mjs', '--port', '0'], {
        cwd: SERVER_DIR,
        stdio: ['ignore', 'pipe', 'pipe']
    });
    child.stderr.on('data', d => trace(`[server stderr] ${String(d).trimEnd()}`));
    return await new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`server did not print its listening line in 15 s (got ${j(out)})`)), 15_000);
        child.on('exit', code => {
            clearTimeout(timer);
            reject(new Error(`server exited early with code ${code}; stdout ${j(out)}`));
        });
        child.stdout.on('data', d => {
            out += String(d);
            const nl = out.indexOf('\n');
            if (nl < 0) return;
            clearTimeout(timer);
            const line = out.slice(0, nl);
            const m = /^listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)$/.exec(line);
            if (!m) reject(new Error(`unexpected first stdout line: ${j(line)}`));
            else resolve(m[1]);
        });
    });
}

async function stopServer() {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise(resolve => child.once('exit', resolve));
    child.kill('SIGTERM');
    const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
    if (!done) child.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// wire helpers

let URL_;
let nextId = 1;

/** Parse SSE text frames from a fetch body, yielding each `data:` payload parsed as JSON. */
async function* sseMessages(body, rawSink) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
        for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            const text = decoder.decode(value, { stream: true });
            rawSink?.push(text);
            buf += text.replace(/\r\n?/g, '\n');
            let idx;
            while ((idx = buf.indexOf('\n\n')) >= 0) {
                const frame = buf.slice(0, idx);
                buf = buf.slice(idx + 2);
                const data = frame
                    .split('\n')
                    .filter(l => l.startsWith('data:'))
                    .map(l => l.slice(5).replace(/^ /, ''))
                    .join('\n');
                if (data.length > 0) yield JSON.parse(data);
            }
        }
    } finally {
        reader.releaseLock();
    }
}

/**
 * POST one JSON-RPC message. Returns {status, headers, messages, json, raw}: `messages` are all
 * JSON-RPC messages of the body (one for JSON, any number for SSE), `json` the response whose id
 * matches (or the only message).
 */
async function post(message, headers = {}) {
    const res = await fetch(URL_, {
        method: 'POST',
        headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            Origin: ORIGIN,
            ...headers
        },
        body: JSON.stringify(message)
    });
    const type = res.headers.get('content-type') ?? '';
    let messages = [];
    let raw = '';
    if (type.startsWith('text/event-stream')) {
        const sink = [];
        for await (const m of sseMessages(res.body, sink)) messages.push(m);
        raw = sink.join('');
    } else {
        raw = await res.text();
        if (raw.length > 0) messages = [JSON.parse(raw)];
    }
    trace(`> POST ${j(headers)}`, `> ${j(message)}`, `< ${res.status} ${type}`, `< ${raw.trimEnd()}`, '');
    const json = messages.find(m => m.id !== undefined && m.id === message.id) ?? messages[messages.length - 1];
    return { status: res.status, headers: res.headers, messages, json, raw };
}

/** POST and return the open Response (for streams read while other requests go out). */
async function postStream(message, headers = {}, signal) {
    trace(`> POST (stream) ${j(headers)}`, `> ${j(message)}`);
    return await fetch(URL_, {
        method: 'POST',
        headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            Origin: ORIGIN,
            ...headers
        },
        body: JSON.stringify(message),
        signal
    });
}

async function preflight() {
    const res = await fetch(URL_, {
        method: 'OPTIONS',
        headers: {
            Origin: ORIGIN,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers':
                'content-type,mcp-session-id,mcp-protocol-version,mcp-method,mcp-name,authorization,last-event-id,mcp-param-region'
        }
    });
    trace(`> OPTIONS`, `< ${res.status} ${j(Object.fromEntries(res.headers))}`, '');
    check('preflight status 204', res.status === 204, `status ${res.status}`);
    check(
        'preflight echoes the loopback origin',
        res.headers.get('access-control-allow-origin') === ORIGIN,
        `access-control-allow-origin ${j(res.headers.get('access-control-allow-origin'))}`
    );
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    const need = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'authorization', 'last-event-id', 'mcp-param-region'];
    const missing = need.filter(h => !allowed.includes(h));
    check('preflight allows the MCP headers and mcp-param-*', missing.length === 0, `missing ${j(missing)} in ${j(allowed)}`);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    const needExposed = ['mcp-session-id', 'mcp-protocol-version', 'retry-after', 'content-type', 'www-authenticate'];
    const missingExposed = needExposed.filter(h => !exposed.includes(h));
    check('preflight exposes the MCP response headers', missingExposed.length === 0, `missing ${j(missingExposed)}`);
}

async function pollUntil(name, get, done, limitMs = 15_000) {
    const until = Date.now() + limitMs;
    const seen = [];
    for (;;) {
        const task = await get();
        seen.push(task);
        if (done(task)) return { task, seen };
        if (Date.now() > until) fail(name, `gave up after ${limitMs} ms; last ${j(task)}`);
        await sleep(Math.max(100, Math.min(task?.pollInterval ?? task?.pollIntervalMs ?? 300, 500)));
    }
}

// ---------------------------------------------------------------------------------------------
// v1: @modelcontextprotocol/sdk 1.32.2, 2025-11-25

async function smokeV1() {
    await preflight();

    const noSession = await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} }, { 'MCP-Protocol-Version': '2025-11-25' });
    check(
        'request without a session: HTTP 400 -32000',
        noSession.status === 400 && noSession.json?.error?.code === -32000 && noSession.json?.id === null,
        () => `${noSession.status} ${noSession.raw}`,
        noSession.raw
    );

    const init = await post({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'initialize',
        params: {
            protocolVersion: '2025-11-25',
            capabilities: { elicitation: { form: {} } },
            clientInfo: { name: 'interop-smoke', version: '0.1.0' }
        }
    });
    const session = init.headers.get('mcp-session-id');
    check('initialize: 200 with Mcp-Session-Id', init.status === 200 && !!session, () => `${init.status} session ${session}`);
    check(
        'initialize: CORS origin echoed on the response',
        init.headers.get('access-control-allow-origin') === ORIGIN &&
            /mcp-session-id/i.test(init.headers.get('access-control-expose-headers') ?? ''),
        () => j(Object.fromEntries(init.headers))
    );
    const caps = init.json?.result?.capabilities;
    check('initialize: protocolVersion 2025-11-25', init.json?.result?.protocolVersion === '2025-11-25', () => init.raw);
    check(
        'initialize: capabilities.tasks has requests.tools.call, cancel, list',
        caps?.tasks?.requests?.tools?.call !== undefined && caps?.tasks?.cancel !== undefined && caps?.tasks?.list !== undefined,
        () => j(caps),
        j(caps?.tasks)
    );
    const S = { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' };

    const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, S);
    check('notifications/initialized: 202', initialized.status === 202, `status ${initialized.status}`);

    const list = await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} }, S);
    const tools = Object.fromEntries((list.json?.result?.tools ?? []).map(t => [t.name, t]));
    const want = { build: 'optional', deploy: 'required', flaky: 'optional', long_job: 'required' };
    for (const [name, support] of Object.entries(want)) {
        check(
            `tools/list: ${name} execution.taskSupport ${support}`,
            tools[name]?.execution?.taskSupport === support,
            () => j(tools[name] ?? list.raw)
        );
    }

    // the standalone GET stream: where the SDK's notifications/tasks/status go
    const getAbort = new AbortController();
    const getStream = await fetch(URL_, { method: 'GET', headers: { Accept: 'text/event-stream', Origin: ORIGIN, ...S }, signal: getAbort.signal });
    check(
        'GET opens the standalone SSE stream',
        getStream.status === 200 && (getStream.headers.get('content-type') ?? '').startsWith('text/event-stream'),
        `${getStream.status} ${getStream.headers.get('content-type')}`
    );
    const pushed = [];
    const pushedDone = (async () => {
        try {
            for await (const m of sseMessages(getStream.body)) {
                trace(`< (GET stream) ${j(m)}`);
                pushed.push(m);
            }
        } catch {
            // aborted below
        }
    })();

    const call = async (name, args, task = {}) =>
        await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, ...(task && { task }) } }, S);
    const get = async taskId => (await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/get', params: { taskId } }, S)).json?.result;

    // build: CreateTaskResult -> tasks/get polling -> tasks/result
    const build = await call('build', { seconds: 1, target: 'smoke' });
    const bt = build.json?.result?.task;
    check(
        'build: CreateTaskResult {task:{taskId,status:"working",ttl,createdAt,...}}',
        typeof bt?.taskId === 'string' && bt.status === 'working' && typeof bt.createdAt === 'string' && 'ttl' in bt,
        () => build.raw,
        `pollInterval ${bt?.pollInterval}, ttl ${bt?.ttl}`
    );
    const firstGet = (await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/get', params: { taskId: bt.taskId } }, S)).json;
    check(
        'tasks/get: the task flat in result, no resultType, no related-task _meta',
        firstGet?.result?.taskId === bt.taskId && !('resultType' in firstGet.result) && !('_meta' in firstGet.result),
        () => j(firstGet)
    );
    const { task: builtTask, seen: buildSeen } = await pollUntil('build: tasks/get until completed', () => get(bt.taskId), t => t?.status !== 'working');
    check('build: tasks/get reaches completed', builtTask.status === 'completed', () => j(builtTask));
    check(
        'build: statusMessage updates while working (compiling i/3)',
        buildSeen.some(t => /compiling \d\/3/.test(t?.statusMessage ?? '')),
        () => j(buildSeen.map(t => t?.statusMessage)),
        `last "${builtTask.statusMessage}"`
    );
    getAbort.abort();
    await pushedDone;
    const statusNotes = pushed.filter(m => m.method === 'notifications/tasks/status' && m.params?.taskId === bt.taskId);
    check(
        'build: notifications/tasks/status for each status change on the GET stream',
        statusNotes.length >= 3 && statusNotes[statusNotes.length - 1].params.status === 'completed',
        () => j(pushed),
        `${statusNotes.length} notifications, statuses ${j(statusNotes.map(m => m.params.status))}`
    );
    const buildResult = await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/result', params: { taskId: bt.taskId } }, S);
    const br = buildResult.json?.result;
    check(
        'build: tasks/result is the CallToolResult (text + structuredContent {ok,target,seconds})',
        br?.content?.[0]?.type === 'text' && j(br?.structuredContent) === j({ ok: true, target: 'smoke', seconds: 1 }),
        () => buildResult.raw
    );
    check(
        'build: tasks/result carries _meta related-task',
        br?._meta?.[RELATED_TASK]?.taskId === bt.taskId,
        () => j(br?._meta)
    );

    // deploy: input_required -> elicitation/create on the tasks/result stream -> POSTed response
    const deploy = await call('deploy', { service: 'api', environment: 'staging' });
    const dt = deploy.json?.result?.task;
    check('deploy: CreateTaskResult working', dt?.status === 'working', () => deploy.raw);
    const { task: waiting } = await pollUntil('deploy: tasks/get until input_required', () => get(dt.taskId), t => t?.status !== 'working');
    check('deploy: tasks/get reaches input_required', waiting.status === 'input_required', () => j(waiting));
    const abort = new AbortController();
    const stream = await postStream({ jsonrpc: '2.0', id: nextId++, method: 'tasks/result', params: { taskId: dt.taskId } }, S, abort.signal);
    const resultId = nextId - 1;
    check(
        'deploy: tasks/result answers with an SSE stream',
        stream.status === 200 && (stream.headers.get('content-type') ?? '').startsWith('text/event-stream'),
        `${stream.status} ${stream.headers.get('content-type')}`
    );
    const rawStream = [];
    const messages = sseMessages(stream.body, rawStream);
    const timer = setTimeout(() => abort.abort(), 15_000);
    let elicitation;
    let finalResponse;
    try {
        for await (const m of messages) {
            trace(`< (tasks/result stream) ${j(m)}`);
            if (m.method === 'elicitation/create') {
                elicitation = m;
                check(
                    'deploy: elicitation/create request on the tasks/result stream',
                    m.id !== undefined && m.params?.mode === 'form' && m.params?._meta?.[RELATED_TASK]?.taskId === dt.taskId,
                    () => j(m),
                    `id ${j(m.id)}`
                );
                const schema = m.params?.requestedSchema;
                check(
                    'deploy: requestedSchema has confirm (boolean, required) and reason (string)',
                    schema?.type === 'object' &&
                        schema.properties?.confirm?.type === 'boolean' &&
                        schema.properties?.reason?.type === 'string' &&
                        (schema.required ?? []).includes('confirm') &&
                        !(schema.required ?? []).includes('reason'),
                    () => j(schema)
                );
                const answer = await post(
                    { jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { confirm: true, reason: 'smoke' } } },
                    S
                );
                check('deploy: POSTed elicitation response accepted with 202', answer.status === 202, () => `${answer.status} ${answer.raw}`);
            } else if (m.id === resultId) {
                finalResponse = m;
                break;
            }
        }
    } catch (error) {
        if (!abort.signal.aborted) throw error;
    } finally {
        clearTimeout(timer);
    }
    if (!elicitation) fail('deploy: elicitation/create request on the tasks/result stream', `none in ${j(rawStream.join(''))}`);
    check(
        'deploy: the same tasks/result stream ends with the CallToolResult echoing the answer',
        j(finalResponse?.result?.structuredContent) === j({ service: 'api', environment: 'staging', confirm: true, reason: 'smoke' }),
        () => j(finalResponse ?? rawStream.join(''))
    );
    const deployed = await get(dt.taskId);
    check('deploy: tasks/get shows completed', deployed?.status === 'completed', () => j(deployed));

    // flaky: failed, tasks/result gives the isError result
    const flaky = await call('flaky', { seconds: 1 });
    const ft = flaky.json?.result?.task;
    const { task: flakyEnd } = await pollUntil('flaky: tasks/get until terminal', () => get(ft.taskId), t => !['working', 'input_required'].includes(t?.status));
    check('flaky: task ends failed', flakyEnd.status === 'failed', () => j(flakyEnd));
    const flakyResult = await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/result', params: { taskId: ft.taskId } }, S);
    check(
        'flaky: tasks/result is a CallToolResult with isError: true (not a JSON-RPC error)',
        flakyResult.json?.result?.isError === true && flakyResult.json?.error === undefined,
        () => flakyResult.raw
    );

    // long_job: tasks/cancel -> cancelled; a second cancel is an error
    const long = await call('long_job', { seconds: 300 });
    const lt = long.json?.result?.task;
    check('long_job: CreateTaskResult working', lt?.status === 'working', () => long.raw);
    await sleep(300);
    const stillWorking = await get(lt.taskId);
    check('long_job: tasks/get working before cancel', stillWorking?.status === 'working', () => j(stillWorking));
    const cancel = await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/cancel', params: { taskId: lt.taskId } }, S);
    check(
        'long_job: tasks/cancel answers the task, status cancelled',
        cancel.json?.result?.status === 'cancelled' && cancel.json.result.taskId === lt.taskId,
        () => cancel.raw,
        `statusMessage "${cancel.json?.result?.statusMessage}"`
    );
    const cancelled = await get(lt.taskId);
    check('long_job: tasks/get shows cancelled', cancelled?.status === 'cancelled', () => j(cancelled));
    const again = await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/cancel', params: { taskId: lt.taskId } }, S);
    check(
        'long_job: second tasks/cancel is JSON-RPC error -32602 (HTTP 200)',
        again.status === 200 && again.json?.error?.code === -32602,
        () => `${again.status} ${again.raw}`,
        j(again.json?.error)
    );

    // unknown task
    const unknown = await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/get', params: { taskId: 'no-such-task' } }, S);
    check('tasks/get of an unknown task: -32602', unknown.json?.error?.code === -32602, () => unknown.raw, j(unknown.json?.error));

    // tools/call without params.task
    const inline = await call('build', { seconds: 0, target: 'inline' }, null);
    check(
        'build without params.task (optional): the SDK runs the task and answers the CallToolResult',
        inline.json?.result?.structuredContent?.ok === true && inline.json.result.task === undefined,
        () => inline.raw
    );
    const required = await call('long_job', { seconds: 5 }, null);
    check(
        'long_job without params.task (required): a CallToolResult with isError, not a JSON-RPC error',
        required.json?.result?.isError === true,
        () => required.raw,
        j(required.json?.result?.content?.[0]?.text)
    );

    const list2 = await post({ jsonrpc: '2.0', id: nextId++, method: 'tasks/list', params: {} }, S);
    check(
        'tasks/list lists this session\'s tasks',
        Array.isArray(list2.json?.result?.tasks) && list2.json.result.tasks.some(t => t.taskId === bt.taskId),
        () => list2.raw,
        `${list2.json?.result?.tasks?.length} tasks`
    );

    const del = await fetch(URL_, { method: 'DELETE', headers: { Origin: ORIGIN, ...S } });
    trace(`> DELETE`, `< ${del.status}`);
    check('DELETE ends the session: 200', del.status === 200, `status ${del.status}`);
    const after = await post({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} }, S);
    check(
        'request with the ended session id: HTTP 400 -32000',
        after.status === 400 && after.json?.error?.code === -32000,
        () => `${after.status} ${after.raw}`
    );
}

// ---------------------------------------------------------------------------------------------
// v2: @modelcontextprotocol/server 2.4.0, 2026-07-28

const V2 = '2026-07-28';
const CLIENT_INFO = { name: 'interop-smoke', version: '0.1.0' };
const CAPS_WITH_TASKS = { elicitation: { form: {} }, extensions: { [TASKS_EXT]: {} } };

function v2Request(method, params = {}, caps = CAPS_WITH_TASKS) {
    return {
        jsonrpc: '2.0',
        id: nextId++,
        method,
        params: {
            ...params,
            _meta: {
                'io.modelcontextprotocol/protocolVersion': V2,
                'io.modelcontextprotocol/clientCapabilities': caps,
                'io.modelcontextprotocol/clientInfo': CLIENT_INFO
            }
        }
    };
}
function v2Headers(method, name) {
    return { 'MCP-Protocol-Version': V2, 'Mcp-Method': method, ...(name !== undefined && { 'Mcp-Name': name }) };
}
async function v2(method, params = {}, { name, caps } = {}) {
    const msg = v2Request(method, params, caps);
    const nameHeader = name ?? (method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined);
    return await post(msg, v2Headers(method, nameHeader));
}

async function smokeV2() {
    await preflight();

    const disc = await v2('server/discover');
    const dr = disc.json?.result;
    check('server/discover: supportedVersions has 2026-07-28', dr?.supportedVersions?.includes(V2), () => disc.raw, j(dr?.supportedVersions));
    check(
        'server/discover: capabilities.extensions advertises the tasks extension as {}',
        j(dr?.capabilities?.extensions?.[TASKS_EXT]) === '{}',
        () => j(dr?.capabilities)
    );
    check('server/discover: CORS origin echoed', disc.headers.get('access-control-allow-origin') === ORIGIN, () => j(Object.fromEntries(disc.headers)));

    const list = await v2('tools/list');
    const names = (list.json?.result?.tools ?? []).map(t => t.name).sort();
    check('tools/list: build, deploy, flaky, long_job', j(names) === j(['build', 'deploy', 'flaky', 'long_job']), () => list.raw);

    const get = async taskId => await v2('tasks/get', { taskId });

    // build
    const build = await v2('tools/call', { name: 'build', arguments: { seconds: 1, target: 'smoke' } });
    const b = build.json?.result;
    check(
        'build: CreateTaskResult resultType "task", status working, ttlMs present',
        b?.resultType === 'task' && typeof b.taskId === 'string' && b.status === 'working' && 'ttlMs' in b,
        () => build.raw,
        `pollIntervalMs ${b?.pollIntervalMs}, ttlMs ${b?.ttlMs}`
    );
    check(
        'build: quirk: the SDK adds "content":[] to the CreateTaskResult',
        Array.isArray(b?.content) && b.content.length === 0,
        () => build.raw
    );
    const seen = [];
    const { task: built } = await pollUntil(
        'build: tasks/get until completed',
        async () => {
            const r = await get(b.taskId);
            seen.push(r.json?.result);
            return r.json?.result;
        },
        t => t?.status !== 'working'
    );
    check(
        'build: tasks/get resultType "complete", status completed with inline result',
        built.resultType === 'complete' && built.status === 'completed' && built.result?.content?.[0]?.type === 'text',
        () => j(built)
    );
    check(
        'build: result.structuredContent {ok:true,target,seconds}',
        j(built.result?.structuredContent) === j({ ok: true, target: 'smoke', seconds: 1 }),
        () => j(built.result)
    );
    check(
        'build: statusMessage updates while working (compiling i/3)',
        seen.some(t => /compiling \d\/3/.test(t?.statusMessage ?? '')),
        () => j(seen.map(t => t?.statusMessage))
    );

    // deploy
    const deploy = await v2('tools/call', { name: 'deploy', arguments: { service: 'api', environment: 'staging' } });
    const d = deploy.json?.result;
    check('deploy: CreateTaskResult', d?.resultType === 'task' && d.status === 'working', () => deploy.raw);
    const { task: waiting } = await pollUntil('deploy: tasks/get until input_required', async () => (await get(d.taskId)).json?.result, t => t?.status !== 'working');
    const keys = Object.keys(waiting.inputRequests ?? {});
    const ir = waiting.inputRequests?.[keys[0]];
    check(
        'deploy: input_required with one inputRequests entry (elicitation/create, form)',
        waiting.status === 'input_required' && keys.length === 1 && ir?.method === 'elicitation/create' && ir.params?.mode === 'form',
        () => j(waiting),
        `key "${keys[0]}"`
    );
    const schema = ir.params.requestedSchema;
    check(
        'deploy: requestedSchema has confirm (boolean, required) and reason (string)',
        schema?.properties?.confirm?.type === 'boolean' &&
            schema.properties?.reason?.type === 'string' &&
            (schema.required ?? []).includes('confirm') &&
            !(schema.required ?? []).includes('reason'),
        () => j(schema)
    );
    const upd = await v2('tasks/update', {
        taskId: d.taskId,
        inputResponses: { [keys[0]]: { action: 'accept', content: { confirm: true, reason: 'smoke' } } }
    });
    check(
        'deploy: tasks/update ack {resultType:"complete"}',
        upd.status === 200 && upd.json?.result?.resultType === 'complete' && !('taskId' in upd.json.result),
        () => upd.raw
    );
    const { task: deployed } = await pollUntil('deploy: tasks/get until terminal', async () => (await get(d.taskId)).json?.result, t => !['working', 'input_required'].includes(t?.status));
    check(
        'deploy: completed, structuredContent echoes the answer',
        deployed.status === 'completed' &&
            j(deployed.result?.structuredContent) === j({ service: 'api', environment: 'staging', confirm: true, reason: 'smoke' }),
        () => j(deployed)
    );

    // flaky
    const flaky = await v2('tools/call', { name: 'flaky', arguments: { seconds: 1 } });
    const f = flaky.json?.result;
    const { task: flakyEnd } = await pollUntil('flaky: tasks/get until terminal', async () => (await get(f.taskId)).json?.result, t => !['working', 'input_required'].includes(t?.status));
    check(
        'flaky: failed with a JSON-RPC error object (integer code)',
        flakyEnd.status === 'failed' && Number.isInteger(flakyEnd.error?.code) && typeof flakyEnd.error?.message === 'string' && flakyEnd.result === undefined,
        () => j(flakyEnd),
        j(flakyEnd.error)
    );

    // long_job
    const long = await v2('tools/call', { name: 'long_job', arguments: { seconds: 300 } });
    const l = long.json?.result;
    check('long_job: CreateTaskResult', l?.resultType === 'task' && l.status === 'working', () => long.raw);
    await sleep(300);
    const before = (await get(l.taskId)).json?.result;
    check('long_job: working before cancel', before?.status === 'working', () => j(before));

    // subscriptions/listen while long_job runs: record what the SDK answers
    const listen = v2Request('subscriptions/listen', { notifications: { taskIds: [l.taskId] } });
    const abort = new AbortController();
    const stream = await postStream(listen, v2Headers('subscriptions/listen'), abort.signal);
    const raw = [];
    const got = [];
    let ended = false;
    const timer = setTimeout(() => abort.abort(), 3000);
    try {
        for await (const m of sseMessages(stream.body, raw)) got.push(m);
        ended = true;
    } catch (error) {
        if (!abort.signal.aborted) throw error;
    } finally {
        clearTimeout(timer);
    }
    trace(`< (listen) ${stream.status} ${stream.headers.get('content-type')}`, raw.join(''));
    check(
        'listen: HTTP 200 text/event-stream',
        stream.status === 200 && (stream.headers.get('content-type') ?? '').startsWith('text/event-stream'),
        `${stream.status} ${stream.headers.get('content-type')}`
    );
    const ack = got[0];
    check(
        'listen: first message notifications/subscriptions/acknowledged honouring nothing: notifications {}',
        ack?.method === 'notifications/subscriptions/acknowledged' &&
            j(ack.params?.notifications) === '{}' &&
            ack.params?._meta?.[SUBSCRIPTION_ID] === listen.id,
        () => j(got),
        j(ack)
    );
    check(
        'listen: then the listen result {resultType:"complete"} and the stream ends at once (no notifications/tasks)',
        ended &&
            got.length === 2 &&
            got[1].id === listen.id &&
            got[1].result?.resultType === 'complete' &&
            got[1].result?._meta?.[SUBSCRIPTION_ID] === listen.id,
        () => `ended ${ended}, messages ${j(got)}`,
        j(got[1])
    );

    const cancel = await v2('tasks/cancel', { taskId: l.taskId });
    check(
        'long_job: tasks/cancel ack {resultType:"complete"}',
        cancel.status === 200 && cancel.json?.result?.resultType === 'complete' && !('status' in cancel.json.result),
        () => cancel.raw
    );
    const cancelled = (await get(l.taskId)).json?.result;
    check('long_job: tasks/get shows cancelled', cancelled?.status === 'cancelled', () => j(cancelled));
    const again = await v2('tasks/cancel', { taskId: l.taskId });
    check(
        'long_job: second tasks/cancel is acked too (terminal task unchanged)',
        again.status === 200 && again.json?.result?.resultType === 'complete',
        () => again.raw
    );

    // errors
    const unknown = await get('no-such-task');
    check('tasks/get of an unknown task: -32602 (HTTP 200)', unknown.status === 200 && unknown.json?.error?.code === -32602, () => `${unknown.status} ${unknown.raw}`);
    const noExt = await v2('tasks/get', { taskId: b.taskId }, { caps: {} });
    check(
        'tasks/get without the tasks extension: HTTP 400 -32021',
        noExt.status === 400 && noExt.json?.error?.code === -32021 && noExt.json.error.data?.requiredCapabilities?.extensions?.[TASKS_EXT] !== undefined,
        () => `${noExt.status} ${noExt.raw}`
    );
    const mismatch = await v2('tasks/get', { taskId: b.taskId }, { name: 'some-other-id' });
    check('tasks/get with a wrong Mcp-Name: HTTP 400 -32020', mismatch.status === 400 && mismatch.json?.error?.code === -32020, () => `${mismatch.status} ${mismatch.raw}`);
    const result = await v2('tasks/result', { taskId: b.taskId });
    check('tasks/result does not exist: HTTP 404 -32601', result.status === 404 && result.json?.error?.code === -32601, () => `${result.status} ${result.raw}`);

    // without the extension: the SDK's McpServer turns a thrown error into an isError result
    const inline = await v2('tools/call', { name: 'build', arguments: { seconds: 0, target: 'inline' } }, { caps: {} });
    check(
        'build without the tasks extension runs inline: resultType "complete"',
        inline.json?.result?.resultType === 'complete' && inline.json.result.structuredContent?.ok === true,
        () => inline.raw
    );
    const required = await v2('tools/call', { name: 'long_job', arguments: { seconds: 5 } }, { caps: {} });
    check(
        'long_job without the tasks extension: quirk: isError CallToolResult (HTTP 200), not -32021',
        required.status === 200 && required.json?.result?.isError === true,
        () => `${required.status} ${required.raw}`
    );
}

// ---------------------------------------------------------------------------------------------

const limit = setTimeout(() => {
    console.error(`FAIL run: still running after ${RUN_LIMIT_MS / 1000} s`);
    stopServer().finally(() => process.exit(1));
}, RUN_LIMIT_MS);

let failed = 0;
try {
    URL_ = await startServer();
    ok('server started', URL_);
    if (which === 'v1') await smokeV1();
    else await smokeV2();
} catch (error) {
    failed = 1;
    console.log(error instanceof CheckFailed ? error.message : `FAIL ${which}: ${error?.stack ?? error}`);
} finally {
    clearTimeout(limit);
    await stopServer();
}
console.log(`smoke ${which}: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
