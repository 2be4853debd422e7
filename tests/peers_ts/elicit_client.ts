// A test peer: an MCP client on the official TypeScript SDK v2 (@modelcontextprotocol/client)
// that calls one tool and answers the server's elicitations from a script, for mcp-elicit's
// server tests (tests/server/test_typescript_client.py).
//
//   node tests/peers_ts/elicit_client.ts [options] TOOL http://127.0.0.1:PORT/mcp
//   node tests/peers_ts/elicit_client.ts [options] TOOL -- COMMAND ARGS...   # stdio
//
// Options:
//   --answers JSON       the answers, used in order (else the ELICIT_ANSWERS environment
//                        variable): [{"action": "accept", "content": {...}}, {"action": "accept"},
//                        {"action": "decline"}, {"action": "cancel"}]. For a URL elicitation
//                        (pushed, in an input request, or in a -32042 error) "accept" is consent:
//                        nothing is opened. An accept without content sends {} (with
//                        --apply-defaults the SDK fills in the schema's defaults). When the list
//                        runs out, the next request is cancelled.
//   --args JSON          the tool's arguments
//   --protocol P         legacy (the SDK's default: initialize, offering 2025-11-25), auto
//                        (server/discover, falling back to initialize), 2025-06-18 (initialize
//                        offering only it), 2025-11-25, or 2026-07-28 (pinned: no fallback)
//   --form-only          declare elicitation form mode only (default: form and URL)
//   --apply-defaults     declare form.applyDefaults (the SDK fills in defaults left out)
//   --completion-wait MS after consenting to a -32042 link, how long to wait for
//                        notifications/elicitation/complete before retrying anyway (default 3000)
//
// It prints one JSON object on stdout: the negotiated revision and era, the tools, every
// elicitation it answered, every completion notice, and the tool's result (or the error, with
// its code and data). Exit status 0 with a result, 1 with an error, 2 for bad usage. Each
// elicitation is also written to stderr as it arrives, as a line `ts-client-event {json}`, so
// a test can act on a link (open the page) while the call is still running.

import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
    Client,
    StreamableHTTPClientTransport,
    UrlElicitationRequiredError,
    type ClientOptions,
    type Transport
} from '@modelcontextprotocol/client';

type Entry = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
type Logged = Record<string, unknown>;

function usage(message: string): never {
    console.error(`elicit_client.ts: ${message}`);
    process.exit(2);
}

// -- arguments -------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const words = dash >= 0 ? argv.slice(0, dash) : argv;
const command = dash >= 0 ? argv.slice(dash + 1) : [];
const options: Record<string, string | true> = {};
const positional: string[] = [];
for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === '--form-only' || word === '--apply-defaults') options[word.slice(2)] = true;
    else if (word.startsWith('--')) {
        if (i + 1 >= words.length) usage(`${word} needs a value`);
        options[word.slice(2)] = words[++i];
    } else positional.push(word);
}
const [tool, target] = positional;
if (tool === undefined || (target === undefined) === (command.length === 0)) {
    usage('give TOOL and either an http(s) URL or -- COMMAND ARGS...');
}
const answersText = (options.answers as string | undefined) ?? process.env.ELICIT_ANSWERS ?? '[]';
const answers: Entry[] = JSON.parse(answersText);
const toolArgs: Record<string, unknown> = options.args ? JSON.parse(options.args as string) : {};
const protocol = (options.protocol as string | undefined) ?? 'legacy';
const completionWait = Number(options['completion-wait'] ?? 3000);

// -- the client ------------------------------------------------------------------------------

const clientOptions: ClientOptions = {
    capabilities: {
        elicitation: {
            form: options['apply-defaults'] ? { applyDefaults: true } : {},
            ...(options['form-only'] ? {} : { url: {} })
        }
    }
};
switch (protocol) {
    case 'legacy':
    case '2025-11-25':
        break;
    case '2025-06-18':
        clientOptions.supportedProtocolVersions = ['2025-06-18'];
        break;
    case 'auto':
        clientOptions.versionNegotiation = { mode: 'auto' };
        break;
    case '2026-07-28':
        clientOptions.versionNegotiation = { mode: { pin: '2026-07-28' } };
        break;
    default:
        usage(`unknown --protocol ${protocol}`);
}
const client = new Client({ name: 'ts-elicit-client', version: '1.0.0' }, clientOptions);

const elicitations: Logged[] = [];
const completions: string[] = [];
const urlRequired: Logged[] = [];
const waiting = new Map<string, () => void>();
let used = 0;

function next(): Entry {
    const entry = answers[used++];
    return entry ?? { action: 'cancel' };
}

function event(logged: Logged): void {
    console.error(`ts-client-event ${JSON.stringify(logged)}`);
}

client.setRequestHandler('elicitation/create', async request => {
    const params = request.params as Record<string, unknown>;
    const entry = next();
    const mode = (params.mode as string | undefined) ?? 'form';
    const logged: Logged = { mode, message: params.message, answer: entry.action };
    if (mode === 'url') Object.assign(logged, { url: params.url, elicitationId: params.elicitationId });
    else logged.requestedSchema = params.requestedSchema;
    elicitations.push(logged);
    event(logged);
    if (entry.action !== 'accept') return { action: entry.action };
    if (mode === 'url') return { action: 'accept' };
    return { action: 'accept', content: entry.content ?? {} };
});

client.setNotificationHandler('notifications/elicitation/complete', notification => {
    const id = notification.params.elicitationId;
    completions.push(id);
    event({ completed: id });
    waiting.get(id)?.();
});

function completed(id: string | undefined): Promise<boolean> {
    if (id === undefined) return new Promise(resolve => setTimeout(() => resolve(false), completionWait));
    if (completions.includes(id)) return Promise.resolve(true);
    return new Promise(resolve => {
        const timer = setTimeout(() => {
            waiting.delete(id);
            resolve(false);
        }, completionWait);
        waiting.set(id, () => {
            clearTimeout(timer);
            waiting.delete(id);
            resolve(true);
        });
    });
}

/** The call, with -32042 handled: consent to each link, wait for its completion, retry. */
async function call(): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
        try {
            return await client.callTool({ name: tool, arguments: toolArgs }, { timeout: 120_000 });
        } catch (error) {
            if (!(error instanceof UrlElicitationRequiredError) || attempt >= 3) throw error;
            const links = (error.data as { elicitations?: Logged[] } | undefined)?.elicitations ?? [];
            for (const link of links) {
                const entry = next();
                const logged: Logged = { ...link, answer: entry.action, requiredBy: tool };
                urlRequired.push(logged);
                event(logged);
                if (entry.action !== 'accept') throw error;
                logged.completedByServer = await completed(link.elicitationId as string | undefined);
            }
        }
    }
}

function transport(): Transport {
    if (target !== undefined) return new StreamableHTTPClientTransport(new URL(target));
    const [program, ...args] = command;
    return new StdioClientTransport({ command: program, args, env: process.env as Record<string, string>, stderr: 'inherit' });
}

const report: Logged = {};
let status = 0;
try {
    await client.connect(transport(), { timeout: 60_000 });
    Object.assign(report, {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        era: client.getProtocolEra(),
        server: client.getServerVersion()?.name
    });
    report.tools = (await client.listTools()).tools.map(t => t.name);
    report.result = await call();
} catch (error) {
    const e = error as { name?: string; code?: unknown; message?: string; data?: unknown };
    report.error = { name: e?.name, code: e?.code, message: e?.message ?? String(error), data: e?.data };
    status = 1;
}
Object.assign(report, { elicitations, urlRequired, completions, answersLeft: Math.max(0, answers.length - used) });
process.stdout.write(JSON.stringify(report) + '\n');
await client.close().catch(() => undefined);
process.exit(status);
