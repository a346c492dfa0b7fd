import { given, type OptionsSchema } from '@feedpipe/config';
import { type Clock, systemClock } from '../core/clock.js';
import { BrokerApiError, invalidArgument } from '../core/errors.js';
import { readApiOptions, UNBOUNDED } from '../core/options.js';
import type { TokenSource } from '../core/transport.js';
import { jwtExpiry, TOKEN_LIFETIME_MS } from './expiry.js';

/** A token and when it stops working. */
export interface HeldToken {
  accessToken: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface TokenHolderOptions {
  accessToken: string;
  /** Epoch ms. Default: the JWT's `exp` claim, else 24 hours from construction. */
  expiresAt?: number;
  /** Default false. Only tokens issued from the web console can be renewed (RenewToken). */
  renewable?: boolean;
  /** Renews a renewable token; usually `(t) => auth.renewToken(t)`. Required when renewable. */
  renew?: (accessToken: string) => Promise<HeldToken>;
  /**
   * Obtains a fresh token when the current one cannot be renewed, e.g. by generating one with
   * PIN and TOTP. Optional: without it a non-renewable token is used until it expires.
   */
  regenerate?: () => Promise<HeldToken>;
  /** Default 30 minutes. How long before expiry to renew or regenerate. */
  refreshAheadMs?: number;
  /** Default 60,000. Pause after a failed renewal before trying again (the old token still works). */
  retryAfterFailureMs?: number;
  /** Default: the system clock. */
  clock?: Clock;
}

/** Every key of TokenHolderOptions (documented there), with its range and default. */
const TOKEN_HOLDER_OPTIONS = {
  accessToken: { kind: 'string', required: true },
  expiresAt: { kind: 'number', min: 0, max: Number.MAX_VALUE },
  renewable: { kind: 'boolean', default: false },
  ...given('renew', 'regenerate', 'clock'),
  refreshAheadMs: { kind: 'integer', min: 0, max: TOKEN_LIFETIME_MS, default: 30 * 60_000 },
  retryAfterFailureMs: { kind: 'integer', min: 0, max: UNBOUNDED, default: 60_000 },
} as const satisfies OptionsSchema;

/**
 * Holds the access token of one account and knows when it expires. Ahead of expiry it renews a
 * web-console token (RenewToken) or obtains a new one through `regenerate`; concurrent callers
 * share one renewal. A token past expiry that cannot be replaced fails with TOKEN_EXPIRED.
 */
export class TokenHolder implements TokenSource {
  readonly #renewable: boolean;
  readonly #renew: ((token: string) => Promise<HeldToken>) | undefined;
  readonly #regenerate: (() => Promise<HeldToken>) | undefined;
  readonly #aheadMs: number;
  readonly #pauseMs: number;
  readonly #clock: Clock;
  #current: HeldToken;
  #inFlight: Promise<HeldToken> | undefined;
  #nextAttemptAt = 0;

  constructor(options: TokenHolderOptions) {
    const where = 'TokenHolder options';
    const v = readApiOptions(TOKEN_HOLDER_OPTIONS, options, where);
    this.#clock = options.clock ?? systemClock;
    this.#renewable = v.renewable;
    this.#aheadMs = v.refreshAheadMs;
    this.#pauseMs = v.retryAfterFailureMs;
    this.#renew = options.renew;
    this.#regenerate = options.regenerate;
    if (this.#renewable && typeof this.#renew !== 'function') {
      throw invalidArgument(`${where}: a renewable token needs "renew"`);
    }
    if (this.#regenerate !== undefined && typeof this.#regenerate !== 'function') {
      throw invalidArgument(`${where}: "regenerate" must be a function`);
    }
    const expiresAt =
      options.expiresAt ?? jwtExpiry(options.accessToken) ?? this.#clock.now() + TOKEN_LIFETIME_MS;
    // A JWT's `exp` is checked here, not by the schema: 1e306 seconds is a number but no epoch ms.
    if (!Number.isFinite(expiresAt)) throw invalidArgument(`${where}: "expiresAt" must be epoch ms`);
    this.#current = { accessToken: options.accessToken, expiresAt };
  }

  /** Epoch ms at which the current token expires. */
  get expiresAt(): number {
    return this.#current.expiresAt;
  }

  get renewable(): boolean {
    return this.#renewable;
  }

  async getToken(): Promise<string> {
    const now = this.#clock.now();
    const { accessToken, expiresAt } = this.#current;
    const due = now >= expiresAt - this.#aheadMs;
    const expired = now >= expiresAt;
    if (!due) return accessToken;
    const canReplace = (this.#renewable && !expired) || this.#regenerate !== undefined;
    if (!canReplace || (!expired && now < this.#nextAttemptAt)) {
      if (!expired) return accessToken;
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message: `the access token expired at ${new Date(expiresAt).toISOString()} and cannot be renewed`,
      });
    }
    try {
      return (await this.#replace(expired)).accessToken;
    } catch (error) {
      this.#nextAttemptAt = this.#clock.now() + this.#pauseMs;
      // A token that is still valid keeps working; renewal is tried again after the pause.
      if (this.#clock.now() < this.#current.expiresAt) return this.#current.accessToken;
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message: 'the access token expired and replacing it failed',
        cause: error,
      });
    }
  }

  /**
   * The service refused `rejected`: a token other than it, replacing the current one only when it is
   * the refused one (a caller late with an old token gets the newer one). One replacement in flight.
   */
  async tokenRejected(rejected: string): Promise<string> {
    if (this.#current.accessToken !== rejected) return this.#current.accessToken;
    if (this.#inFlight !== undefined) return (await this.#inFlight).accessToken;
    // Refused means unusable now: an expired-style replacement (regenerate), unless only renew exists.
    const canReplace = this.#regenerate !== undefined || (this.#renewable && this.#renew !== undefined);
    if (!canReplace) {
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message: 'the access token was refused and this holder has no way to replace it',
      });
    }
    try {
      return (await this.#replace(this.#regenerate !== undefined)).accessToken;
    } catch (error) {
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message: 'the access token was refused and replacing it failed',
        cause: error,
      });
    }
  }

  /** Replaces the token now (renew if possible, else regenerate); shared by concurrent callers. */
  refresh(): Promise<HeldToken> {
    return this.#replace(this.#clock.now() >= this.#current.expiresAt);
  }

  #replace(expired: boolean): Promise<HeldToken> {
    if (this.#inFlight !== undefined) return this.#inFlight;
    const old = this.#current.accessToken;
    const run = async (): Promise<HeldToken> => {
      const next =
        this.#renewable && !expired && this.#renew !== undefined
          ? await this.#renew(old)
          : this.#regenerate !== undefined
            ? await this.#regenerate()
            : undefined;
      if (next === undefined || typeof next.accessToken !== 'string' || next.accessToken.length === 0) {
        throw invalidArgument('no way to replace the access token');
      }
      this.#current = next;
      return next;
    };
    this.#inFlight = run().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }
}
