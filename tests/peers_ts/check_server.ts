// The official TypeScript SDK v2's server with the tools `mcp-elicit check server` calls,
// written the way the SDK's documentation shows, without mcp-elicit: a column of the
// compatibility matrix (docs/compatibility.md).
//
//   node tests/peers_ts/check_server.ts --http PORT   # http://127.0.0.1:PORT/mcp
//
// 2025-era connections: ctx.mcpReq.elicitInput, UrlElicitationRequiredError and the SDK's
// completion notifier. 2026-07-28: inputRequired(...) with the SDK's opt-in requestState codec
// (HMAC, bound to the method as its documentation's example does), answers read with
// inputResponse(...).

import { randomUUID } from 'node:crypto';

import {
    createRequestStateCodec,
    inputRequired,
    inputResponse,
    McpServer,
    UrlElicitationRequiredError,
    type CallToolResult,
    type ElicitRequestFormParams,
    type InputRequiredResult,
    type McpRequestContext,
    type ServerContext
} from '@modelcontextprotocol/server';
import { z } from 'zod';

import { serveHttp } from './serve_http.ts';

type Era = McpRequestContext['era'];
type FormParams = Omit<ElicitRequestFormParams, 'mode'>;

const LINK = 'https://check.invalid/done';
const codec = createRequestStateCodec<Record<string, unknown>>({
    key: randomUUID() + randomUUID(),
    bind: ctx => ctx.mcpReq.method
});

const USER_INFO: FormParams = {
    message: 'Please answer',
    requestedSchema: {
        type: 'object',
        properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', format: 'email', description: "User's email address" }
        },
        required: ['username', 'email']
    }
};
const ENUMS: FormParams = {
    message: 'Please pick some options',
    requestedSchema: {
        type: 'object',
        properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
                type: 'string',
                oneOf: [
                    { const: 'value1', title: 'First Option' },
                    { const: 'value2', title: 'Second Option' }
                ]
            },
            untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2'] } }
        }
    }
};
const NAME: FormParams = {
    message: 'What is your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
};
const CONFIRM: FormParams = {
    message: 'Please confirm',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }
};

function text(value: unknown, isError = false): CallToolResult {
    return { content: [{ type: 'text', text: JSON.stringify(value) }], ...(isError && { isError: true }) };
}

/** One form, each era the SDK's way: pushed, or an input request answered on the retry. */
async function form(era: Era, ctx: ServerContext, key: string, params: FormParams): Promise<CallToolResult | InputRequiredResult> {
    if (era === 'legacy') return text(await ctx.mcpReq.elicitInput({ mode: 'form', ...params }));
    const answer = inputResponse(ctx.mcpReq.inputResponses, key);
    if (answer.kind === 'missing') {
        return inputRequired({ inputRequests: { [key]: inputRequired.elicit(params) }, requestState: await codec.mint({ key }, ctx) });
    }
    if (answer.kind !== 'elicit') return text({ error: `unexpected answer to ${key}` }, true);
    return text(answer); // the SDK checks a pushed answer against the schema; this one it does not
}

const opened = new Set<string>();

function build({ era }: { era: Era }): McpServer {
    const server = new McpServer({ name: 'ts-check-server', version: '1.0.0' }, { requestState: { verify: codec.verify } });

    server.registerTool('test_elicitation', { inputSchema: z.object({ message: z.string() }) }, async ({ message }, ctx) =>
        form(era, ctx, 'form', { ...USER_INFO, message })
    );
    server.registerTool('test_elicitation_sep1330_enums', {}, async ctx => form(era, ctx, 'form', ENUMS));
    server.registerTool('test_input_required_result_elicitation', {}, async ctx => form(era, ctx, 'user_name', NAME));
    server.registerTool('test_input_required_result_request_state', {}, async ctx => form(era, ctx, 'confirm', CONFIRM));

    server.registerTool('test_url_elicitation', {}, async ctx => {
        if (era === 'modern') {
            const answer = inputResponse(ctx.mcpReq.inputResponses, 'link');
            if (answer.kind === 'missing') {
                return inputRequired({
                    inputRequests: { link: inputRequired.elicitUrl({ message: 'Open the check page.', url: LINK }) },
                    requestState: await codec.mint({ key: 'link' }, ctx)
                });
            }
            return text(answer);
        }
        const elicitationId = randomUUID();
        const complete = server.server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: ctx.mcpReq.id });
        const answer = await ctx.mcpReq.elicitInput({ mode: 'url', message: 'Open the check page.', url: LINK, elicitationId });
        if (answer.action === 'accept') await complete();
        return text(answer);
    });

    server.registerTool('test_url_elicitation_required', { inputSchema: z.object({ key: z.string() }) }, async ({ key }, ctx) => {
        if (era === 'modern') {
            const answer = inputResponse(ctx.mcpReq.inputResponses, 'link');
            if (answer.kind === 'missing') {
                return inputRequired({
                    inputRequests: { link: inputRequired.elicitUrl({ message: 'Open the check page first.', url: LINK }) },
                    requestState: await codec.mint({ key }, ctx)
                });
            }
            return text({ done: true });
        }
        if (opened.has(key)) {
            opened.delete(key);
            return text({ done: true });
        }
        const elicitationId = randomUUID();
        const notify = server.server.createElicitationCompletionNotifier(elicitationId);
        setTimeout(() => {
            opened.add(key);
            notify().catch(error => console.error(`ts-check-server: notice failed: ${error}`));
        }, 500);
        throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Open the check page first.', url: LINK, elicitationId }]);
    });
    return server;
}


const at = process.argv.indexOf('--http');
const port = at >= 0 ? Number(process.argv[at + 1]) : NaN;
if (!Number.isInteger(port) || port <= 0) {
    console.error('usage: check_server.ts --http PORT');
    process.exit(2);
}
serveHttp(port, 'ts-check-server', build);
