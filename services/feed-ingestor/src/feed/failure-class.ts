/**
 * The one place that decides what a feed failure means (spec: Events, Global stocks live feed;
 * Errors; the data-API codes of beyond-the-spec.md). Everything else asks here, so "fatal" cannot
 * drift between the connection, the pool and the ingestor.
 *
 * - fatal: cannot heal without an operator: stop all connections of the credential and say why;
 * - token: the token was refused (807-809, HTTP 401/403) and a renewal path exists: the connection
 *   waits for a renewed token (token-recovery.ts), without it the same failure is fatal;
 * - transient: retry, with backoff, within the shared attempt budget;
 * - evicted: error 805, another session took the slot or the account is over its connection/request
 *   limit: wait long (jittered per connection) instead of fighting for it;
 * - blocked: HTTP 429, the server is refusing this address for a while: hold every attempt off for
 *   the budget's whole window.
 */

export type FeedFailure =
  /** An Error packet (code 805-814) received on an open connection. */
  | { kind: 'error-packet'; code: number }
  /** The upgrade was answered with an HTTP status instead of 101. */
  | { kind: 'http'; status: number }
  /** No HTTP answer at all: refused, reset, EOF, DNS, handshake timeout. */
  | { kind: 'network' }
  /** A connection that was open closed (abnormal close, server restart, stale and terminated). */
  | { kind: 'closed'; code: number };

/** Feed error codes that refuse the token itself (expired, authentication failed, invalid). */
export const TOKEN_ERROR_CODES: ReadonlySet<number> = new Set([807, 808, 809]);

export type FailureVerdict = 'fatal' | 'transient' | 'evicted' | 'blocked' | 'token';

export interface FailureClass {
  verdict: FailureVerdict;
  /**
   * Whether the server may count this as an invalid connection attempt toward its IP block. Counted
   * generously: the spec names the limit, not what counts, so every attempt that did not end in a
   * working connection is charged.
   */
  invalidAttempt: boolean;
  reason: string;
}

export interface ClassifyOptions {
  /**
   * Whether a new token can be obtained (token renewal). Without one, an expired or refused token
   * cannot heal and is fatal; with it those are 'token' (reconnect once a renewed token is in).
   */
  canRenewToken?: boolean;
}

const NOT_SUBSCRIBED = 806;
const CLIENT_ID_INVALID = 810;

export function classifyFeedFailure(failure: FeedFailure, options: ClassifyOptions = {}): FailureClass {
  const renewable = options.canRenewToken === true;
  switch (failure.kind) {
    case 'error-packet': {
      const code = failure.code;
      if (code === 805)
        return { verdict: 'evicted', invalidAttempt: false, reason: 'connection limit exceeded (805)' };
      if (code === NOT_SUBSCRIBED)
        return {
          verdict: 'fatal',
          invalidAttempt: true,
          reason: 'the account has no feed subscription (806)',
        };
      if (code === CLIENT_ID_INVALID)
        return { verdict: 'fatal', invalidAttempt: true, reason: 'the client id is invalid (810)' };
      if (TOKEN_ERROR_CODES.has(code)) {
        return renewable
          ? {
              verdict: 'token',
              invalidAttempt: true,
              reason: `the token was refused (${code}); waiting for a renewed token`,
            }
          : {
              verdict: 'fatal',
              invalidAttempt: true,
              reason: `the feed refused the credential with error ${code}`,
            };
      }
      return { verdict: 'transient', invalidAttempt: true, reason: `feed error ${code}` };
    }
    case 'http': {
      const status = failure.status;
      if (status === 400)
        return {
          verdict: 'fatal',
          invalidAttempt: true,
          reason: 'the server rejected the connection parameters (HTTP 400)',
        };
      if (status === 401 || status === 403) {
        return renewable
          ? {
              verdict: 'token',
              invalidAttempt: true,
              reason: `upgrade refused (HTTP ${status}); waiting for a renewed token`,
            }
          : {
              verdict: 'fatal',
              invalidAttempt: true,
              reason: `the server refused the credential (HTTP ${status})`,
            };
      }
      if (status === 429)
        return {
          verdict: 'blocked',
          invalidAttempt: true,
          reason: 'the server is refusing this address (HTTP 429)',
        };
      return { verdict: 'transient', invalidAttempt: true, reason: `upgrade refused (HTTP ${status})` };
    }
    case 'network':
      return { verdict: 'transient', invalidAttempt: true, reason: 'the upgrade got no answer' };
    case 'closed':
      return { verdict: 'transient', invalidAttempt: false, reason: `closed with code ${failure.code}` };
  }
}
