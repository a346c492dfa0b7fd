/** What every route group of the REST simulator shares. */
import type { FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import type { AccountRegistry } from '../accounts/registry.js';
import type { HistoryService } from '../history/service.js';
import type { ConsentStore } from './consents.js';
import { authError, orderError } from './errors.js';
import type { MarketSource } from './market-source.js';
import type { RateDecisionEvent } from './options.js';
import type { RateLimiter } from './rate-limits.js';
import type { TokenClaims, TokenStore } from './tokens.js';

export interface SimContext {
  readonly market: MarketSource;
  readonly accounts: AccountRegistry;
  readonly tokens: TokenStore;
  readonly consents: ConsentStore;
  /** Undefined when rate limits are switched off. */
  readonly limiter: RateLimiter | undefined;
  readonly onRateDecision: ((decision: RateDecisionEvent) => void) | undefined;
  readonly history: HistoryService;
  readonly now: () => number;
}

declare module 'fastify' {
  interface FastifyRequest {
    simAccount: Account | null;
    simClaims: TokenClaims | null;
    /** When the request's head arrived (the simulator's clock): what the rate limits count. */
    simArrivedAt: number;
  }
}

/** The authenticated account of a /v2 request (the auth hook has already run). */
export function accountOf(request: FastifyRequest): Account {
  if (!request.simAccount) throw authError('Missing access token');
  return request.simAccount;
}

/** The caller's address, without the IPv4-mapped IPv6 prefix. */
export function sourceIp(request: FastifyRequest): string {
  const ip = request.ip;
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** Static IP rule: order placement/modification/cancellation and the risk controls. */
export function requireStaticIp(request: FastifyRequest, account: Account): void {
  if (!account.ipAllowed(sourceIp(request))) {
    throw orderError(
      `Static IP not whitelisted: requests from ${sourceIp(request)} are not allowed for this call`,
      403,
    );
  }
}

/** Kill switch rule: no order entry or modification while it is active. */
function requireTradingEnabled(account: Account): void {
  if (account.killSwitch) throw orderError('Kill switch is active: trading is disabled for the day', 403);
}

/**
 * The account of a request that enters or changes orders: authenticated, from a whitelisted static
 * IP, with the kill switch off, refused in that order.
 */
export function tradingAccountOf(request: FastifyRequest): Account {
  const account = accountOf(request);
  requireStaticIp(request, account);
  requireTradingEnabled(account);
  return account;
}
