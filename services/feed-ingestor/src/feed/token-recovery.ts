/**
 * What the pool does when the feed refuses the token (spec: Error 807 "access token expired", 808
 * "authentication failed", 809 "access token invalid"). The token is shared by every connection of
 * the client id, so one refusal means all of them need the renewed token:
 *
 * - 807: ask the source for a renewed token (`TokenSource.tokenRejected`, one renewal per refused
 *   token however many connections report it), then reconnect every connection the feed closed on
 *   the refused token ('renewing'), at once or as soon as it closes; subscriptions are re-sent on
 *   open. A connection is never cut while the feed still sends on it: what it sent before its
 *   Error packet is read to the end, so nothing sent before the refusal is lost;
 * - 808/809: the refused token may be one a renewal just replaced (here or in another process that
 *   shares the account): when the source now gives another token, reconnect with it; when it gives
 *   the same one shortly after a renewal of ours, renew again; otherwise the credential is wrong;
 * - no renewal path (a fixed token, a source without `tokenRejected`, a renewal that fails, or more
 *   renewals than `maxRenewals` in `renewalWindowMs`, a source that keeps handing out refused
 *   tokens): fatal, with a message saying what to do.
 */
import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import { IngestorError } from '../errors.js';
import type { FeedConnection, FeedCredentials } from './feed-connection.js';

export interface TokenRecoveryOptions {
  credentials: () => FeedCredentials;
  connections: readonly FeedConnection[];
  /** 808/809 within this long after a renewal are taken for a renewal race. Default 60 000 ms. */
  raceWindowMs?: number;
  /** Renewals allowed within `renewalWindowMs` before the refusals count as fatal. Default 20. */
  maxRenewals?: number;
  /** Default 600 000 ms. */
  renewalWindowMs?: number;
  /**
   * A renewed token is in; the connections on the refused one are reconnecting. `here`: this
   * process renewed it (not: another holder of the account had, found by a 808/809).
   */
  onRenewed?: (here: boolean) => void;
  /** No renewed token can come: every connection stops; `reason` says what to do. */
  onUnrenewable?: (reason: string) => void;
  now?: () => number;
}

/** Every option, with its range and default (TokenRecoveryOptions documents each). */
const TOKEN_RECOVERY_OPTIONS = {
  credentials: { kind: 'given', required: true },
  connections: { kind: 'list', required: true },
  raceWindowMs: { kind: 'number', min: 0, max: Number.MAX_SAFE_INTEGER, default: 60_000 },
  maxRenewals: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, default: 20 },
  renewalWindowMs: { kind: 'number', min: 1, max: Number.MAX_SAFE_INTEGER, default: 600_000 },
  ...given('onRenewed', 'onUnrenewable', 'now'),
} as const satisfies OptionsSchema;

const EXPIRED = 807;
const WHAT_TO_DO =
  'configure a renewing token source (docs/operations.md, IngestorTokenUnrenewable) or start again with a fresh token';

export class TokenRecovery {
  readonly #o: TokenRecoveryOptions;
  readonly #inFlight = new Map<string, Promise<string>>();
  /** Refused tokens already replaced (the latest few): a late report of one renews nothing. */
  readonly #replaced = new Set<string>();
  /** Times of recent renewals, oldest first (at most `maxRenewals`). */
  readonly #renewals: number[] = [];
  #gaveUp = false;

  constructor(options: TokenRecoveryOptions) {
    const { raceWindowMs, maxRenewals, renewalWindowMs } = readOptions(TOKEN_RECOVERY_OPTIONS, options, {
      where: 'token recovery',
      fail: (message) => new IngestorError('CONFIG_INVALID', message),
    });
    this.#o = { ...options, raceWindowMs, maxRenewals, renewalWindowMs };
  }

  /** The feed refused `token` with `code` on one connection. */
  refused(code: number, token: string): void {
    if (this.#gaveUp) return;
    const source = this.#o.credentials().token;
    if (typeof source === 'string' || source.tokenRejected === undefined) {
      this.#giveUp(`the feed refused the access token (${code}) and nothing can renew it: ${WHAT_TO_DO}`);
      return;
    }
    if (this.#inFlight.has(token) || this.#replaced.has(token)) return;
    if (code === EXPIRED) {
      this.#renew(token);
      return;
    }
    // 808/809: a race with a renewal, or a wrong credential? The source knows which token is current.
    const check = source.getToken().then(
      (current) => {
        if (current !== token) this.#renewed(token, false);
        else if (this.#renewedWithin(this.#o.raceWindowMs as number)) this.#renew(token);
        else
          this.#giveUp(`the feed refused the credential with error ${code}: check the client id and token`);
        return current;
      },
      (error: unknown) => {
        this.#giveUp(
          `the feed refused the token (${code}) and no token could be had: ${(error as Error).message}`,
        );
        return token;
      },
    );
    this.#inFlight.set(token, check);
    void check.finally(() => this.#inFlight.delete(token));
  }

  #renew(token: string): void {
    const source = this.#o.credentials().token;
    if (typeof source === 'string' || source.tokenRejected === undefined) return;
    const now = (this.#o.now ?? Date.now)();
    while (
      this.#renewals.length > 0 &&
      now - (this.#renewals[0] as number) > (this.#o.renewalWindowMs as number)
    )
      this.#renewals.shift();
    if (this.#renewals.length >= (this.#o.maxRenewals as number)) {
      this.#giveUp(
        `the token was refused again after ${this.#renewals.length} renewals within ${this.#o.renewalWindowMs} ms: ${WHAT_TO_DO}`,
      );
      return;
    }
    this.#renewals.push(now);
    const renewal = source.tokenRejected(token).then(
      (fresh) => {
        if (fresh === token) this.#giveUp(`the token source gave back the refused token: ${WHAT_TO_DO}`);
        else this.#renewed(token, true);
        return fresh;
      },
      (error: unknown) => {
        this.#giveUp(`the token expired and its renewal failed (${(error as Error).message}): ${WHAT_TO_DO}`);
        return token;
      },
    );
    this.#inFlight.set(token, renewal);
    void renewal.finally(() => this.#inFlight.delete(token));
  }

  #renewedWithin(ms: number): boolean {
    const last = this.#renewals.at(-1);
    return last !== undefined && (this.#o.now ?? Date.now)() - last <= ms;
  }

  /**
   * A connection closed on a refused token ('renewing'): reconnects now when that token has been
   * replaced already; otherwise the running renewal reconnects it when it is done.
   */
  renewing(connection: FeedConnection): void {
    if (this.#gaveUp || !this.#replaced.has(connection.lastToken)) return;
    // Called while the connection reports its new state: reconnect once that step is complete.
    queueMicrotask(() => {
      if (connection.state === 'renewing') connection.reconnectNow('token renewed', 'token_renewal');
    });
  }

  /** Every connection waiting for the renewed token reconnects; the others when they close. */
  #renewed(refused: string, byUs: boolean): void {
    if (this.#gaveUp) return;
    this.#replaced.add(refused);
    if (this.#replaced.size > 16) this.#replaced.delete(this.#replaced.values().next().value as string);
    for (const connection of this.#o.connections) {
      if (connection.state === 'renewing') connection.reconnectNow('token renewed', 'token_renewal');
    }
    this.#o.onRenewed?.(byUs);
  }

  #giveUp(reason: string): void {
    if (this.#gaveUp) return;
    this.#gaveUp = true;
    this.#o.onUnrenewable?.(reason);
    for (const connection of this.#o.connections) connection.giveUp(reason);
  }
}
