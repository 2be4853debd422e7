// A test peer: an MCP client on the official TypeScript SDK v1 (@modelcontextprotocol/sdk
// 1.32.2, the released SDK with a 2025-11-25 task runtime) that calls one tool as a task over
// Streamable HTTP with the SDK's own task API and answers the questions the tool asks, for
// mcp-elicit's server tests (tests/server/test_tasks_ts_v1.py).
//
//   node tests/peers_ts/task_client_v1.ts [--answers JSON] [--args JSON] TOOL http://127.0.0.1:PORT/mcp
//
// --answers is the list of answers, used in order: [{"action": "accept", "content": {...}},
// {"action": "accept"}, {"action": "decline"}, ...]; when it runs out the next question is
// cancelled. For a URL-mode question "accept" is consent: the link is written to stderr as a
// line `ts-client-event {json}` (mode, answer, url, elicitationId) and nothing is opened, so
// a test can act as the person's browser and complete the page while the task waits.
//
// It declares elicitation form and url, and the 2025-11-25 client `tasks` capability (list and
// cancel, backed by the SDK's InMemoryTaskStore, as v1 pairs them). It calls
// `client.experimental.tasks.callToolStream(..., { task: { ttl } })`: the SDK sends the
// task-augmented tools/call, polls tasks/get, and on `input_required` (or once terminal) calls
// tasks/result itself. Every HTTP exchange goes through a fetch that records what the SDK sent
// and on which stream each server message arrived (the GET stream, or the response stream of
// a POST), without changing anything.
//
// It prints one JSON object on stdout: the negotiated revision, the server's capabilities, the
// tool's taskSupport, the task from the CreateTaskResult, every status the SDK saw, each
// elicitation (its params with `_meta`, the answer, the stream it came on), each
// notifications/elicitation/complete, the final result (or the error), the task's last
// tasks/get, and the wire log. Exit 0 with a result, 1 with an error, 2 for bad usage.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
    CallToolResultSchema,
    ElicitationCompleteNotificationSchema,
    ElicitRequestSchema
} from '@modelcontextprotocol/sdk/types.js';

type Entry = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
type Logged = Record<string, unknown>;

function usage(message: string): never {
    console.error(`task_client_v1.ts: ${message}`);
    process.exit(2);
}

// -- arguments -------------------------------------------------------------------------------

const options: Record<string, string> = {};
const positional: string[] = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) {
        if (i + 1 >= argv.length) usage(`${argv[i]} needs a value`);
        options[argv[i].slice(2)] = argv[++i];
    } else positional.push(argv[i]);
}
const [tool, url] = positional;
if (tool === undefined || url === undefined) usage('give TOOL and an http(s) URL');
const answers: Entry[] = JSON.parse(options.answers ?? '[]');
const toolArgs: Record<string, unknown> = JSON.parse(options.args ?? '{}');
const TTL_MS = 60_000;

// -- the wire, as the SDK's transport sees it ------------------------------------------------

const sent: Logged[] = []; // each JSON-RPC request the SDK POSTed: method, id, whether it had `task`
const arrived: Logged[] = []; // each server request or notification: method, id, stream
const reading: Promise<void>[] = [];

function messagesOf(text: string): Logged[] {
    const parsed = JSON.parse(text) as Logged | Logged[];
    return Array.isArray(parsed) ? parsed : [parsed];
}

async function readEvents(body: ReadableStream<Uint8Array>, stream: string): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    const flush = (block: string) => {
        const data = block
            .split(/\r?\n/)
            .filter(line => line.startsWith('data:'))
            .map(line => line.slice(5).trimStart())
            .join('\n');
        if (!data) return;
        try {
            for (const message of messagesOf(data)) {
                if (typeof message.method === 'string') {
                    arrived.push({ method: message.method, id: message.id ?? null, stream });
                }
            }
        } catch {
            // not JSON: not ours to judge here
        }
    };
    try {
        for await (const chunk of body) {
            buffer += decoder.decode(chunk, { stream: true });
            let end: number;
            while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
                flush(buffer.slice(0, end));
                buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
            }
        }
    } catch {
        // the stream was closed under us (the client closing): what was read is recorded
    }
}

async function watchedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const method = init?.method ?? 'GET';
    let stream = method;
    if (method === 'POST' && typeof init?.body === 'string') {
        const messages = messagesOf(init.body);
        for (const message of messages) {
            if (typeof message.method !== 'string') continue;
            const params = (message.params ?? {}) as Logged;
            sent.push({ method: message.method, id: message.id ?? null, task: 'task' in params });
        }
        stream = `POST ${messages.map(m => m.method ?? 'response').join(',')}`;
    }
    const response = await fetch(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (response.body === null || !type.includes('text/event-stream')) return response;
    const [mine, theirs] = response.body.tee();
    reading.push(readEvents(mine, stream));
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
}

// -- the client ------------------------------------------------------------------------------

const client = new Client(
    { name: 'ts-v1-task-client', version: '1.0.0' },
    {
        capabilities: { elicitation: { form: {}, url: {} }, tasks: { list: {}, cancel: {} } },
        taskStore: new InMemoryTaskStore()
    }
);
const report: Logged = {};
const elicitations: Logged[] = [];
const completions: Logged[] = [];
const statuses: string[] = [];

client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params as Logged;
    const entry = answers.shift() ?? { action: 'cancel' as const };
    elicitations.push({ params, requestId: extra.requestId, answer: entry.action });
    if (params.mode === 'url') {
        const event = { mode: 'url', answer: entry.action, url: params.url, elicitationId: params.elicitationId };
        console.error(`ts-client-event ${JSON.stringify(event)}`);
        return { action: entry.action };
    }
    console.error(`ts-client-event ${JSON.stringify({ mode: 'form', answer: entry.action })}`);
    return entry.content === undefined ? { action: entry.action } : { action: entry.action, content: entry.content };
});
client.setNotificationHandler(ElicitationCompleteNotificationSchema, notification => {
    completions.push(notification.params as Logged);
});

const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: watchedFetch });
let taskId: string | undefined;
let failed = false;
try {
    await client.connect(transport);
    report.protocolVersion = transport.protocolVersion ?? null;
    report.capabilities = client.getServerCapabilities() ?? null;
    const listed = await client.listTools(); // the SDK caches each tool's taskSupport
    report.taskSupport = listed.tools.find(t => t.name === tool)?.execution?.taskSupport ?? null;
    const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: toolArgs }, CallToolResultSchema, {
        task: { ttl: TTL_MS },
        timeout: 120_000
    });
    for await (const message of stream) {
        if (message.type === 'taskCreated') {
            taskId = message.task.taskId;
            report.created = message.task;
        } else if (message.type === 'taskStatus') {
            statuses.push(message.task.status);
        } else if (message.type === 'result') {
            report.result = message.result;
        } else if (message.type === 'error') {
            const e = message.error as { code?: number; message?: string; data?: unknown };
            report.error = { code: e.code ?? null, message: e.message ?? String(e), data: e.data ?? null };
            failed = true;
        }
    }
    if (taskId !== undefined) report.final = await client.experimental.tasks.getTask(taskId);
} catch (error) {
    const e = error as { code?: number; message?: string; data?: unknown };
    report.error = { code: e.code ?? null, message: e.message ?? String(error), data: e.data ?? null };
    failed = true;
}
await client.close().catch(() => {});
await Promise.race([Promise.all(reading), new Promise(resolve => setTimeout(resolve, 2000))]);
for (const asked of elicitations) {
    const came = arrived.find(a => a.method === 'elicitation/create' && a.id === asked.requestId);
    asked.stream = came?.stream ?? null;
}
Object.assign(report, { statuses, elicitations, completions, sent, arrived });
console.log(JSON.stringify(report));
process.exit(failed || !('result' in report) ? 1 : 0);
