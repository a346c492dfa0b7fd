/**
 * Registering a postback URL "as the web console would". The spec takes the URL in the web
 * console, while an access token or an API key is generated; the simulator offers the same two
 * ways as calls:
 *   - with the access token: `POST {api_root}/postback` body `{ "postbackUrl": "..." }`,
 *     `GET {api_root}/postback` reads both URLs, `DELETE {api_root}/postback` removes the token's;
 *   - with the API key: `PUT {auth_url}/app/postback` with headers app_id and app_secret and the
 *     same body; `DELETE {auth_url}/app/postback` removes it.
 * Errors are the spec's JSON bodies (DH-901 for bad credentials, DH-905 for a bad URL).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import { accountOf, type SimContext } from '../rest/context.js';
import { authError, inputError } from '../rest/errors.js';
import { asFields, reqString } from '../rest/input.js';
import { MAX_POSTBACK_URL_LENGTH, type PostbackRegistry, type PostbackSource } from './registry.js';

function setUrl(registry: PostbackRegistry, account: Account, source: PostbackSource, body: unknown) {
  const url = reqString(asFields(body), 'postbackUrl', MAX_POSTBACK_URL_LENGTH);
  const refused = registry.set(account.clientId, source, url);
  if (refused) throw inputError(refused);
  return { svcClientId: account.clientId, postbackUrl: url, status: 'success' };
}

/** Routes under /v2 (the access-token hook has authenticated the account). */
export function registerPostbackRoutes(v2: FastifyInstance, registry: PostbackRegistry): void {
  v2.post('/postback', async (request) => setUrl(registry, accountOf(request), 'token', request.body));
  v2.get('/postback', async (request) => {
    const account = accountOf(request);
    return {
      svcClientId: account.clientId,
      postbackUrl: registry.get(account.clientId, 'token') ?? '',
      apiKeyPostbackUrl: registry.get(account.clientId, 'apiKey') ?? '',
    };
  });
  v2.delete('/postback', async (request) => {
    const account = accountOf(request);
    registry.clear(account.clientId, 'token');
    return { svcClientId: account.clientId, postbackUrl: '', status: 'success' };
  });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function same(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The account whose API key the app_id / app_secret headers name; one message for any mismatch. */
function apiKeyAccount(ctx: SimContext, request: FastifyRequest): Account {
  const appId = header(request, 'app_id');
  const account = appId ? ctx.accounts.byAppId(appId) : undefined;
  if (!account || !same(header(request, 'app_secret'), account.seed.appSecret)) {
    throw authError('Invalid app_id or app_secret');
  }
  return account;
}

/** Routes under /auth (API key credentials in headers). */
export function registerPostbackAuthRoutes(
  auth: FastifyInstance,
  ctx: SimContext,
  registry: PostbackRegistry,
): void {
  auth.put('/app/postback', async (request) =>
    setUrl(registry, apiKeyAccount(ctx, request), 'apiKey', request.body),
  );
  auth.delete('/app/postback', async (request) => {
    const account = apiKeyAccount(ctx, request);
    registry.clear(account.clientId, 'apiKey');
    return { svcClientId: account.clientId, postbackUrl: '', status: 'success' };
  });
}
