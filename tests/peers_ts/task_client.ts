// A test peer: an MCP client on the official TypeScript SDK v2 (@modelcontextprotocol/client)
// that calls one tool as a 2025-11-25 task (tools/call with `task`) over Streamable HTTP and
// answers the question the tool asks, for mcp-elicit's server tests
// (tests/server/test_tasks.py).
//
//   node tests/peers_ts/task_client.ts TOOL http://127.0.0.1:PORT/mcp ANSWER_JSON
//
// The SDK has the task types but no task methods (2025-11-25 wire vocabulary "with no SDK
// runtime"), so tools/call with `task` and tasks/* go through its schema-typed `request()`.
// While a question is open, the handler asks tasks/get for the task's status before it
// answers. It prints one JSON object on stdout: the server's capabilities, the CreateTaskResult,
// each elicitation's params (with `_meta`) and the task's status while it was open, the
// tasks/result, and the final tasks/get (or the error). Exit 0 with a result, 1 with an error.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';

const [tool, url, answerText] = process.argv.slice(2);
if (tool === undefined || url === undefined || answerText === undefined) {
    console.error('task_client.ts: give TOOL URL ANSWER_JSON');
    process.exit(2);
}
const answer = JSON.parse(answerText) as Record<string, unknown>;
const anything = z.looseObject({});

const client = new Client(
    { name: 'ts-task-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } } }
);
const report: Record<string, unknown> = { elicitations: [] as unknown[] };
let taskId: string | undefined;

client.setRequestHandler('elicitation/create', async request => {
    const params = request.params as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, { taskId?: string }>;
    const related = meta['io.modelcontextprotocol/related-task']?.taskId ?? taskId;
    let statusWhileOpen: unknown = null;
    if (related !== undefined) {
        const got = await client.request({ method: 'tasks/get', params: { taskId: related } } as never, anything);
        statusWhileOpen = (got as Record<string, unknown>).status;
    }
    (report.elicitations as unknown[]).push({ params, statusWhileOpen });
    return answer as never;
});

try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
    report.capabilities = client.getServerCapabilities();
    const created = (await client.request(
        { method: 'tools/call', params: { name: tool, arguments: {}, task: { ttl: 60000 } } } as never,
        anything
    )) as Record<string, { taskId: string }>;
    report.created = created;
    taskId = created.task.taskId;
    report.result = await client.request({ method: 'tasks/result', params: { taskId } } as never, anything, {
        timeout: 60000
    });
    report.final = await client.request({ method: 'tasks/get', params: { taskId } } as never, anything);
    console.log(JSON.stringify(report));
    await client.close();
    process.exit(0);
} catch (error) {
    const e = error as { code?: number; message?: string; data?: unknown };
    report.error = { code: e.code ?? null, message: e.message ?? String(error), data: e.data ?? null };
    console.log(JSON.stringify(report));
    await client.close().catch(() => {});
    process.exit(1);
}
