/**
 * Authentication, scopes and rate limiting as one onRequest hook, in this order, cheapest refusal
 * first: the client address's rate limit (before the key is even parsed), the key's shape, the
 * throttle on wrong secrets of its key id from this address, the key itself (from the key table
 * held in memory: no store query per request, see key-table.ts), its scope, then the key's own rate
 * limit. Every refused key is counted against its address; every wrong secret against its key id
 * and address. Routes declare `config: { scope: 'open' | <a scope of the service> }`; a route
 * without one (including unknown paths, which any valid key may ask about) needs the service's
 * default scope (`read` in the query API, `trade` in the trading gateway), so nothing is reachable
 * without a key by accident. No scope implies another: `admin` manages keys only. The key is taken from headers only, never from the
 * URL, so it cannot end up in a logged path.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, isHttpError } from '../http-error.js';
import type { AddressGate } from './address-gate.js';
import type { ApiKeyInfo, ApiKeyStore, KeyCheck } from './api-keys.js';
import { parseKey } from './key-format.js';
import type { KeyRateLimiter } from './rate-limiter.js';
import type { SecretThrottle } from './secret-throttle.js';

/**
 * `open` (no key), one of the service's scopes, or a list of them: a key holding any one may call
 * the route (which may then decide by the key's scopes, as the gateway's kill switch does).
 */
export type RouteScope = string | readonly string[];
export const OPEN_SCOPE = 'open';

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

export interface AuthOptions {
  /** The scope of routes that declare none (and of unknown paths). */
  defaultScope: string;
  /**
   * Other places a route may take the key from, asked when neither x-api-key nor a bearer token is
   * sent (the query API's ClickHouse endpoint: the basic-auth password, X-ClickHouse-Key). Headers
   * only: a key in a URL ends up in logs and browser histories.
   */
  keyFrom?: (request: FastifyRequest) => string | undefined;
}

/** The limits the hook applies (auth-limits.ts builds them from a service's configuration). */
export interface AuthLimits {
  /** Requests per key, once the key is known. */
  perKey: KeyRateLimiter;
  /** Requests and refused keys per client address, before any lookup. */
  perAddress: AddressGate;
  /** Wrong secrets per key id and address. */
  secrets: SecretThrottle;
}

function rateLimited(message: string, retryAfterSec: number): HttpError {
  return new HttpError('RATE_LIMITED', message, { retryable: true, retryAfterSec });
}

async function checkKey<S extends string>(keys: ApiKeyStore<S>, presented: string): Promise<KeyCheck<S>> {
  try {
    return await keys.check(presented);
  } catch (error) {
    if (isHttpError(error)) throw error;
    throw new HttpError('STORE_UNAVAILABLE', 'API keys cannot be read right now', {
      cause: error,
      retryable: true,
      retryAfterSec: 1,
    });
  }
}

export function installAuth<S extends string>(
  app: FastifyInstance,
  keys: ApiKeyStore<S>,
  limits: AuthLimits,
  options: AuthOptions,
): void {
  if (!(keys.scopes as readonly string[]).includes(options.defaultScope)) {
    throw new HttpError(
      'CONFIG_INVALID',
      `default scope "${options.defaultScope}" is not one of ${keys.scopes.join(', ')}`,
    );
  }
  app.addHook('onRequest', async (request, reply) => {
    const scope: RouteScope = request.routeOptions.config?.scope ?? options.defaultScope;
    if (scope === OPEN_SCOPE) return;
    const presented = presentedKey(request) ?? options.keyFrom?.(request);
    if (presented === undefined) {
      throw new HttpError(
        'UNAUTHENTICATED',
        `an API key is required: send it in the ${API_KEY_HEADER} header (or Authorization: Bearer)`,
      );
    }
    const address = request.ip;
    const admitted = limits.perAddress.admit(address);
    if (!admitted.allowed) {
      throw rateLimited(
        `too many requests or refused keys from this address; retry in ${admitted.retryAfterSec} s`,
        admitted.retryAfterSec,
      );
    }
    const keyId = parseKey(presented)?.keyId;
    const blocked = keyId === undefined ? 0 : limits.secrets.blockedFor(keyId, address);
    if (blocked > 0) {
      limits.perAddress.failed(address);
      throw rateLimited(
        `too many wrong secrets for this key id from this address; retry in ${blocked} s`,
        blocked,
      );
    }
    const checked = await checkKey(keys, presented);
    if (checked.outcome !== 'valid') {
      limits.perAddress.failed(address);
      if (checked.outcome === 'wrong-secret') limits.secrets.failed(checked.keyId, address);
      throw new HttpError('UNAUTHENTICATED', 'the API key is unknown or revoked');
    }
    const key: ApiKeyInfo = checked.key;
    request.apiKey = key;
    // No route matched: any valid key may learn that (404) or which methods the path has (405).
    const anyOf: readonly string[] = typeof scope === 'string' ? [scope] : scope;
    if (!request.is404 && !anyOf.some((needed) => (key.scopes as readonly string[]).includes(needed))) {
      throw new HttpError(
        'FORBIDDEN',
        `this route needs the "${anyOf.join('" or "')}" scope; the key has: ${key.scopes.join(', ') || 'none'}`,
      );
    }
    const decision = limits.perKey.take(key.keyId);
    reply.header('x-ratelimit-remaining', decision.remaining);
    if (!decision.allowed) {
      reply.header('retry-after', decision.retryAfterSec);
      throw new HttpError(
        'RATE_LIMITED',
        `rate limit of this key exceeded; retry in ${decision.retryAfterSec} s`,
        {
          retryable: true,
        },
      );
    }
  });
}
