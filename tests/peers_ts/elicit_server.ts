// A test peer: an MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server)
// whose tools elicit, for mcp-elicit's client tests (tests/client/test_typescript_server.py).
//
//   node tests/peers_ts/elicit_server.ts              # stdio
//   node tests/peers_ts/elicit_server.ts --http PORT  # Streamable HTTP on http://127.0.0.1:PORT/mcp
//
// Run it with Node 22 from peers/ (it strips the types itself). Every tool answers with one text
// block: JSON of exactly what the client sent back, so a test can compare it byte for byte.
//
// Each protocol era is served the SDK's own way for it: on 2025-era connections (2025-06-18,
// 2025-11-25) the tools push `elicitation/create` with ctx.mcpReq.elicitInput and throw
// UrlElicitationRequiredError (-32042); on 2026-07-28 they return inputRequired(...) and read
// the answers from the retry. `form_and_link` is written once in the 2026-07-28 style on every
// era, so on 2025-era connections the SDK's legacy shim serves it.

import { randomUUID } from 'node:crypto';

import {
    inputRequired,
    CLIENT_CAPABILITIES_META_KEY,
    inputResponse,
    McpServer,
    PROTOCOL_VERSION_META_KEY,
    UrlElicitationRequiredError,
    type CallToolResult,
    type ElicitRequestFormParams,
    type InputRequest,
    type InputRequiredResult,
    type McpRequestContext,
    type ServerContext
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { serveHttp } from './serve_http.ts';

type Era = McpRequestContext['era'];
type Answer = { action: string; content?: Record<string, unknown> };
type Answers = Record<string, Answer>;
type FormParams = Omit<ElicitRequestFormParams, 'mode'>;

const LINK = 'https://example.com/ts-peer/connect';
// How long after a -32042 the "flow" behind it completes and the notice is sent.
const COMPLETE_AFTER_MS = 200;

// -- the questions ---------------------------------------------------------------------------

// Every field kind of 2025-11-25, with defaults, falsy ones among them (false, 0, "", []).
const ALL_KINDS: FormParams = {
    message: 'Every field kind of 2025-11-25',
    requestedSchema: {
        type: 'object',
        properties: {
            name: { type: 'string', title: 'Name', minLength: 0, maxLength: 40, default: '' },
            email: { type: 'string', title: 'Email', format: 'email' },
            homepage: { type: 'string', title: 'Homepage', format: 'uri' },
            birthday: { type: 'string', title: 'Birthday', format: 'date', default: '2000-01-31' },
            meeting: { type: 'string', title: 'Meeting', format: 'date-time' },
            ratio: { type: 'number', title: 'Ratio', minimum: 0, maximum: 1, default: 0.25 },
            count: { type: 'integer', title: 'Count', minimum: 0, maximum: 10, default: 0 },
            subscribe: { type: 'boolean', title: 'Subscribe', default: false },
            size: { type: 'string', title: 'Size', enum: ['s', 'm', 'l'], default: 'm' },
            colour: {
                type: 'string',
                title: 'Colour',
                oneOf: [
                    { const: 'r', title: 'Red' },
                    { const: 'g', title: 'Green' }
                ],
                default: 'g'
            },
            legacy: { type: 'string', title: 'Legacy', enum: ['a', 'b'], enumNames: ['Alpha', 'Beta'] },
            toppings: {
                type: 'array',
                title: 'Toppings',
                items: { type: 'string', enum: ['cheese', 'ham', 'olives'] },
                default: []
            },
            extras: {
                type: 'array',
                title: 'Extras',
                minItems: 0,
                maxItems: 2,
                items: {
                    anyOf: [
                        { const: 'p', title: 'Parking' },
                        { const: 'b', title: 'Breakfast' }
                    ]
                },
                default: ['b']
            }
        },
        required: ['email']
    }
};

// The field kinds 2025-06-18 has (no titled or multi-select enums; defaults on booleans only).
const BASIC_KINDS: FormParams = {
    message: 'Every field kind of 2025-06-18',
    requestedSchema: {
        type: 'object',
        properties: {
            name: { type: 'string', title: 'Name', minLength: 1, maxLength: 40 },
            email: { type: 'string', title: 'Email', format: 'email' },
            homepage: { type: 'string', format: 'uri' },
            birthday: { type: 'string', format: 'date' },
            meeting: { type: 'string', format: 'date-time' },
            ratio: { type: 'number', minimum: 0, maximum: 1 },
            count: { type: 'integer', minimum: 0, maximum: 10 },
            subscribe: { type: 'boolean', default: false },
            size: { type: 'string', enum: ['s', 'm', 'l'], enumNames: ['Small', 'Medium', 'Large'] }
        },
        required: ['name']
    }
};

const FIRST: FormParams = {
    message: 'Step 1: your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
};
const SECOND: FormParams = {
    message: 'Step 2: how many tickets?',
    requestedSchema: {
        type: 'object',
        properties: { tickets: { type: 'integer', minimum: 1, maximum: 4, default: 1 } },
        required: ['tickets']
    }
};
const CONFIRM: FormParams = {
    message: 'Connect the example account?',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', default: true } }, required: ['ok'] }
};

// -- asking, the same way in each era --------------------------------------------------------

/** Thrown on 2026-07-28 when an answer is not there yet: the tool returns inputRequired. */
class NeedInput extends Error {
    requests: Record<string, InputRequest>;
    answers: Answers;
    constructor(requests: Record<string, InputRequest>, answers: Answers) {
        super('input required');
        this.requests = requests;
        this.answers = answers;
    }
}

/** The answers of earlier rounds (carried in requestState) and of this one (inputResponses). */
function answersOf(ctx: ServerContext): Answers {
    const state = ctx.mcpReq.requestState<string>();
    const earlier: Answers = state ? JSON.parse(Buffer.from(state, 'base64url').toString('utf8')) : {};
    const now: Answers = {};
    for (const key of Object.keys(ctx.mcpReq.inputResponses ?? {})) {
        const view = inputResponse(ctx.mcpReq.inputResponses, key);
        if (view.kind === 'elicit') now[key] = view.content === undefined ? { action: view.action } : { action: view.action, content: view.content };
    }
    return { ...earlier, ...now };
}

class Asker {
    era: Era;
    server: McpServer;
    ctx: ServerContext;
    answers: Answers;
    constructor(era: Era, server: McpServer, ctx: ServerContext) {
        this.era = era;
        this.server = server;
        this.ctx = ctx;
        this.answers = era === 'modern' ? answersOf(ctx) : {};
    }

    /** The negotiated revision: the request's envelope on 2026-07-28, initialize's otherwise. */
    get revision(): string | undefined {
        const envelope: Record<string, unknown> | undefined = this.ctx.mcpReq.envelope;
        return (envelope?.[PROTOCOL_VERSION_META_KEY] as string | undefined) ?? this.server.server.getNegotiatedProtocolVersion();
    }

    async form(key: string, params: FormParams): Promise<Answer> {
        if (this.era === 'legacy') return await this.ctx.mcpReq.elicitInput({ mode: 'form', ...params });
        const answer = this.answers[key];
        if (answer !== undefined) return answer;
        throw new NeedInput({ [key]: inputRequired.elicit(params) }, this.answers);
    }

    /** A URL elicitation; on 2025-11-25 the flow "completes" as soon as the client accepts. */
    async url(key: string, message: string): Promise<Answer & { elicitationId?: string; completionSent?: boolean }> {
        if (this.era === 'modern') {
            const answer = this.answers[key];
            if (answer !== undefined) return answer;
            throw new NeedInput({ [key]: inputRequired.elicitUrl({ message, url: `${LINK}?key=${key}` }) }, this.answers);
        }
        const elicitationId = randomUUID();
        const complete = this.server.server.createElicitationCompletionNotifier(elicitationId, {
            relatedRequestId: this.ctx.mcpReq.id
        });
        const url = `${LINK}?id=${elicitationId}`;
        const answer = await this.ctx.mcpReq.elicitInput({ mode: 'url', message, url, elicitationId });
        if (answer.action !== 'accept') return { ...answer, elicitationId };
        await complete();
        return { ...answer, elicitationId, completionSent: true };
    }
}

function text(value: unknown, isError = false): CallToolResult {
    return { content: [{ type: 'text', text: JSON.stringify(value) }], ...(isError && { isError: true }) };
}

function state(answers: Answers): string {
    return Buffer.from(JSON.stringify(answers), 'utf8').toString('base64url');
}

/** Run a tool body that asks through an Asker; on 2026-07-28 a missing answer becomes inputRequired. */
function tool(era: Era, server: McpServer, body: (ask: Asker) => Promise<unknown>) {
    return async (ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
        const ask = new Asker(era, server, ctx);
        try {
            return text(await body(ask));
        } catch (error) {
            if (error instanceof NeedInput) {
                return inputRequired({ inputRequests: error.requests, requestState: state(error.answers) });
            }
            throw error;
        }
    };
}

// -- the server ------------------------------------------------------------------------------

function build({ era }: { era: Era }): McpServer {
    const server = new McpServer({ name: 'ts-elicit-peer', version: '1.0.0' });
    const register = (name: string, description: string, body: (ask: Asker) => Promise<unknown>) =>
        server.registerTool(name, { description }, tool(era, server, body));

    register('about', 'The era and revision this connection speaks, and what the client declared', async ask => ({
        era,
        revision: ask.revision,
        capabilities:
            (ask.ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] ??
            server.server.getClientCapabilities() ??
            null
    }));

    register('all_kinds', 'A form with every 2025-11-25 field kind; returns the answer', async ask => ask.form('form', ALL_KINDS));

    register('basic_kinds', 'A form with every 2025-06-18 field kind; returns the answer', async ask => ask.form('form', BASIC_KINDS));

    register('two_forms', 'Two forms, one after the other; returns both answers', async ask => {
        const first = await ask.form('first', FIRST);
        if (first.action !== 'accept') return { first };
        const second = await ask.form('second', SECOND);
        return { first, second };
    });

    register('url_mode', 'A URL elicitation (then the completion notice on 2025-11-25)', async ask => {
        if (ask.revision === '2025-06-18') return { error: 'URL mode needs 2025-11-25 or later' };
        return { link: await ask.url('link', 'Connect your example account in the browser') };
    });

    // One round with a form and a link: 2026-07-28's inputRequired, on every era (the SDK's
    // legacy shim pushes the two requests one after the other to 2025-era clients).
    server.registerTool('form_and_link', { description: 'A form and a link in one round' }, async ctx => {
        const responses = ctx.mcpReq.inputResponses;
        const form = inputResponse(responses, 'form');
        const link = inputResponse(responses, 'link');
        if (form.kind === 'missing' || link.kind === 'missing') {
            return inputRequired({
                inputRequests: {
                    form: inputRequired.elicit(CONFIRM),
                    link: inputRequired.elicitUrl({ message: 'And sign in', url: `${LINK}?key=link` })
                }
            });
        }
        return text({ form, link });
    });

    // 2025-11-25: -32042 first; the "flow" completes COMPLETE_AFTER_MS later (the notice is
    // sent) and the retry succeeds. A retry before that gets the same -32042 again.
    // 2026-07-28 has no -32042: the link is an input request, and the retry succeeds.
    let pending: { id: string; done: boolean } | undefined;
    register('url_required', 'Needs a URL elicitation first (-32042 on 2025-11-25)', async ask => {
        if (era === 'modern') return { link: await ask.url('link', 'Authorize the example service') };
        if (ask.revision === '2025-06-18') return { error: 'URL mode needs 2025-11-25 or later' };
        if (pending?.done) {
            const done = pending.id;
            pending = undefined;
            return { retried: true, elicitationId: done };
        }
        if (pending === undefined) {
            const flow = { id: randomUUID(), done: false };
            pending = flow;
            const notify = server.server.createElicitationCompletionNotifier(flow.id);
            setTimeout(() => {
                flow.done = true;
                notify().catch(error => console.error(`ts-elicit-peer: completion notice failed: ${error}`));
            }, COMPLETE_AFTER_MS);
        }
        throw new UrlElicitationRequiredError([
            { mode: 'url', message: 'Authorize the example service first', url: `${LINK}?id=${pending.id}`, elicitationId: pending.id }
        ]);
    });

    return server;
}

// -- transports ------------------------------------------------------------------------------


const at = process.argv.indexOf('--http');
if (at >= 0) {
    const port = Number(process.argv[at + 1]);
    if (!Number.isInteger(port) || port <= 0) {
        console.error('usage: elicit_server.ts [--http PORT]');
        process.exit(2);
    }
    serveHttp(port, 'ts-elicit-peer', build);
} else {
    serveStdio(build);
}
