// Streamable HTTP for the TypeScript test peers on 127.0.0.1 (tests/peers_ts/elicit_server.ts,
// check_server.ts): 2026-07-28 requests through createMcpHandler (a fresh server per request);
// 2025-era requests sessionful, since pushed elicitation needs the session the answer comes
// back on (createMcpHandler's own legacy fallback is stateless).

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import { createMcpHandler, isLegacyRequest, type McpRequestContext, type McpServer } from '@modelcontextprotocol/server';
import { localhostHostValidation, NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';

export type Era = McpRequestContext['era'];

export function serveHttp(port: number, name: string, build: (options: { era: Era }) => McpServer): void {
    const modern = toNodeHandler(createMcpHandler(build, { legacy: 'reject' }));
    const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
    const validateHost = localhostHostValidation();

    async function legacy(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
        const id = req.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? sessions.get(id) : undefined;
        if (transport === undefined) {
            if (typeof id === 'string') {
                res.writeHead(404).end('unknown session');
                return;
            }
            const created = new NodeStreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: sessionId => void sessions.set(sessionId, created)
            });
            created.onclose = () => {
                if (created.sessionId !== undefined) sessions.delete(created.sessionId);
            };
            await build({ era: 'legacy' }).connect(created);
            transport = created;
        }
        await transport.handleRequest(req, res, body);
    }

    createServer((req, res) => {
        if (!validateHost(req, res)) return;
        if (!req.url?.startsWith('/mcp')) {
            res.writeHead(404).end('not found');
            return;
        }
        void (async () => {
            const request = await toWebRequest(req);
            const body = req.method === 'POST' ? await request.clone().json().catch(() => undefined) : undefined;
            if (await isLegacyRequest(request, body)) await legacy(req, res, body);
            else await modern(req, res, body);
        })().catch(error => {
            console.error(`${name}: ${error?.stack ?? error}`);
            if (!res.headersSent) res.writeHead(500).end('internal error');
        });
    }).listen(port, '127.0.0.1', () => console.error(`${name}: listening on http://127.0.0.1:${port}/mcp`));
}
