/** What every token source offers the credentials manager. */
import { jwtExpiry, TOKEN_LIFETIME_MS } from '@feedpipe/broker-api';
import type { TokenSourceKind } from '../config.js';

/** A token and when it stops working (epoch ms). */
export interface IssuedToken {
  accessToken: string;
  expiresAt: number;
}

/** Why a replacement is asked for: ahead of expiry, or because the service refused the token. */
export type RenewReason = 'due' | 'refused';

export interface TokenIssuer {
  readonly kind: TokenSourceKind;
  /** Whether `next` can ever produce a token other than the current one. */
  readonly canRenew: boolean;
  /** The token to start with. */
  first(): Promise<IssuedToken>;
  /** A token replacing `current`; rejects when none can be had now. */
  next(current: IssuedToken, why: RenewReason): Promise<IssuedToken>;
  /** A newer token found without asking (the `file` source's watched file); undefined if none. */
  poll?(current: IssuedToken): IssuedToken | undefined;
}

/**
 * When a token expires: its JWT `exp` claim, else the grant's statement, else the spec's 24 hours
 * from now (a token of unknown shape is assumed to last as long as the spec says).
 */
export function expiryOf(accessToken: string, stated: number | undefined, now: number): number {
  return jwtExpiry(accessToken) ?? stated ?? now + TOKEN_LIFETIME_MS;
}
