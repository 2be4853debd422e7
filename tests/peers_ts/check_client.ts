// The official TypeScript SDK v2's client for `mcp-elicit check client`, written the way the
// SDK's documentation shows, without mcp-elicit: a column of the compatibility matrix
// (docs/compatibility.md).
//
//   node tests/peers_ts/check_client.ts [--protocol legacy|auto] SERVER_URL
//
// Its elicitation handler is the application a person answers through: a form gets the fields
// the form requires, filled in (the SDK fills in the defaults: form.applyDefaults); a link is
// agreed to (and not opened here). After -32042 it waits for the completion notice (up to
// 10 s), then calls again. It calls every tool the server lists.

import { Client, StreamableHTTPClientTransport, UrlElicitationRequiredError, type ClientOptions } from '@modelcontextprotocol/client';

const TYPED: Record<string, unknown> = { email: 'person@example.com', age: 42, plan: 'basic' };

const argv = process.argv.slice(2);
const at = argv.indexOf('--protocol');
const protocol = at >= 0 ? argv[at + 1] : 'legacy';
const url = argv[argv.length - 1];

const options: ClientOptions = { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } } };
if (protocol === 'auto') options.versionNegotiation = { mode: 'auto' };
const client = new Client({ name: 'ts-check-client', version: '1.0.0' }, options);

client.setRequestHandler('elicitation/create', async request => {
    const params = request.params as Record<string, unknown>;
    if (params.mode === 'url') return { action: 'accept' };
    const schema = (params.requestedSchema ?? {}) as { required?: string[] };
    const content: Record<string, unknown> = {};
    for (const name of schema.required ?? []) content[name] = TYPED[name] ?? 'check';
    return { action: 'accept', content };
});

const completed = new Set<string>();
client.setNotificationHandler('notifications/elicitation/complete', notification => {
    completed.add(notification.params.elicitationId);
});

async function waitFor(id: string | undefined): Promise<void> {
    for (let waited = 0; waited < 10_000 && !(id && completed.has(id)); waited += 100) {
        await new Promise(resolve => setTimeout(resolve, 100));
    }
}

await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 60_000 });
for (const tool of (await client.listTools()).tools) {
    try {
        await client.callTool({ name: tool.name, arguments: {} }, { timeout: 60_000 });
    } catch (error) {
        if (!(error instanceof UrlElicitationRequiredError)) {
            console.error(`${tool.name}: ${error}`);
            process.exit(1); // as the official suite expects of the clients it runs
        }
        const links = (error.data as { elicitations?: { elicitationId?: string }[] } | undefined)?.elicitations ?? [];
        for (const link of links) await waitFor(link.elicitationId);
        await client.callTool({ name: tool.name, arguments: {} }, { timeout: 60_000 }).catch(again => console.error(`${tool.name}: ${again}`));
    }
}
await client.close().catch(() => undefined);
process.exit(0);
