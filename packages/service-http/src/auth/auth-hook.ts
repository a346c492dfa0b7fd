/**
 * Authentication, scopes and rate limiting as one onRequest hook. Routes declare
 * `config: { scope: 'open' | 'read' | 'trade' | 'admin' }`; a route without one (including unknown
 * paths, which any valid key may ask about) needs `read`, so nothing is reachable without a key by
 * accident. No scope implies another:
 * a trading system that also reads data gets both `read` and `trade`; `admin` manages keys only.
 * The key is taken from headers only, never from the URL, so it cannot end up in a logged path.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { QueryApiError } from '../errors.js';
import type { ApiKeyInfo, ApiKeyStore } from './api-keys.js';
import type { Scope } from './key-format.js';
import type { KeyRateLimiter } from './rate-limiter.js';

export type RouteScope = Scope | 'open';

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: RouteScope;
  }
  interface FastifyRequest {
    apiKey?: ApiKeyInfo;
  }
}

export const API_KEY_HEADER = 'x-api-key';

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers[API_KEY_HEADER];
  if (typeof header === 'string' && header.length > 0) return header;
  const auth = request.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7).trim();
  return undefined;
}

export function installAuth(app: FastifyInstance, keys: ApiKeyStore, limiter: KeyRateLimiter): void {
  app.addHook('onRequest', async (request, reply) => {
    const scope: RouteScope = request.routeOptions.config?.scope ?? 'read';
    if (scope === 'open') return;
    const presented = presentedKey(request);
    if (presented === undefined) {
      throw new QueryApiError(
        'UNAUTHENTICATED',
        `an API key is required: send it in the ${API_KEY_HEADER} header (or Authorization: Bearer)`,
      );
    }
    let key: ApiKeyInfo | undefined;
    try {
      key = await keys.verify(presented);
    } catch (error) {
      throw new QueryApiError('STORE_UNAVAILABLE', 'API keys cannot be read right now', {
        cause: error,
        retryable: true,
      });
    }
    if (!key) throw new QueryApiError('UNAUTHENTICATED', 'the API key is unknown or revoked');
    request.apiKey = key;
    // No route matched: any valid key may learn that (404) or which methods the path has (405).
    if (!request.is404 && !key.scopes.includes(scope)) {
      throw new QueryApiError(
        'FORBIDDEN',
        `this route needs the "${scope}" scope; the key has: ${key.scopes.join(', ') || 'none'}`,
      );
    }
    const decision = limiter.take(key.keyId);
    reply.header('x-ratelimit-remaining', decision.remaining);
    if (!decision.allowed) {
      reply.header('retry-after', decision.retryAfterSec);
      throw new QueryApiError(
        'RATE_LIMITED',
        `rate limit of this key exceeded; retry in ${decision.retryAfterSec} s`,
        {
          retryable: true,
        },
      );
    }
  });
}
