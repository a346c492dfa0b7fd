/**
 * The access token of one account for a whole process: every REST client, the feed connections and
 * the status page ask it. It implements broker-api's TokenSource: `getToken()` for the token now,
 * `tokenRejected(t)` after the service refused `t` (a token other than `t`, one renewal in flight
 * however many callers; TOKEN_EXPIRED when nothing can renew). Ahead of expiry it renews on its own
 * (web, totp), follows its file (file) or warns (static); `onChange` tells the feed to reconnect.
 *
 * With a shared directory the renewal is the lease holder's alone (shared-renewal.ts): the others
 * adopt what it publishes, so processes of one account never renew each other's token away.
 */
import { BrokerApiError, type TokenSource } from '@feedpipe/broker-api';
import type { Registry } from 'prom-client';
import type { CredentialsConfig, TokenSourceKind } from './config.js';
import { CredentialsError } from './errors.js';
import { MAX_TIMER_MS, nextWarningAt, renewAt, retryDelay } from './renewal-plan.js';
import { SharedRenewal } from './share/shared-renewal.js';
import type { IssuedToken, RenewReason, TokenIssuer } from './sources/issuer.js';
import { createTokenMetrics, type TokenMetrics } from './token-metrics.js';

export interface CredentialsOptions {
  config: CredentialsConfig;
  issuer: TokenIssuer;
  registry?: Registry;
  /** One line per event (renewal, takeover, warning); never a secret. Default: none. */
  log?: (message: string) => void;
}

export interface CredentialsStatus {
  source: TokenSourceKind;
  /** Epoch ms; undefined before start. */
  expiresAt: number | undefined;
  renewable: boolean;
  /** `alone`: no shared directory; `owner`: holds the lease and renews; `reader`: follows the owner. */
  role: 'alone' | 'owner' | 'reader';
  renewals: number;
  lastError: string | undefined;
}

interface Waiter {
  replacing: string | undefined;
  resolve: (token: IssuedToken) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** Attempts of one renewal after a refusal, for faults that a retry can cure (network, 5xx). */
const REFUSED_ATTEMPTS = 3;

export class Credentials implements TokenSource {
  readonly #config: CredentialsConfig;
  readonly #issuer: TokenIssuer;
  readonly #log: (message: string) => void;
  readonly #metrics: TokenMetrics;
  readonly #share: SharedRenewal | undefined;
  readonly #listeners = new Set<(token: string) => void>();
  #current: IssuedToken | undefined;
  #obtainedAt = 0;
  #previous: string[] = [];
  #inFlight: Promise<IssuedToken> | undefined;
  #waiters: Waiter[] = [];
  #renewTimer: NodeJS.Timeout | undefined;
  #warnTimer: NodeJS.Timeout | undefined;
  #pollTimer: NodeJS.Timeout | undefined;
  #renewals = 0;
  #lastWarnedAt: number | undefined;
  #lastError: string | undefined;
  #stopped = false;

  constructor(options: CredentialsOptions) {
    this.#config = options.config;
    this.#issuer = options.issuer;
    this.#log = options.log ?? (() => undefined);
    const sharing =
      options.config.shareDir !== undefined && (this.#issuer.kind === 'web' || this.#issuer.kind === 'totp');
    this.#share = sharing
      ? new SharedRenewal(options.config.shareDir as string, options.config.clientId, options.config.leaseMs)
      : undefined;
    this.#metrics = createTokenMetrics(options.registry, this.#issuer.kind, {
      expiresAt: () => this.#current?.expiresAt,
      renewable: () => this.#issuer.canRenew,
    });
  }

  /** Obtains the first token (or the shared one); resolves once a token is in hand. */
  async start(): Promise<void> {
    this.#pollTimer = setInterval(() => this.#poll(), this.#config.pollMs);
    this.#pollTimer.unref();
    try {
      if (this.#share === undefined) this.#adopt(await this.#issuer.first(), 'obtained');
      else await this.#startShared(this.#share);
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.#metrics.setOwner(this.status().role !== 'reader');
  }

  async #startShared(share: SharedRenewal): Promise<void> {
    share.acquire();
    const published = share.changedToken();
    if (published !== undefined && published.expiresAt > Date.now()) {
      this.#adopt(published, 'read from the shared directory');
      return;
    }
    if (share.isOwner) {
      const first = await this.#issuer.first();
      share.publish(first);
      this.#adopt(first, 'obtained and published');
      return;
    }
    this.#log('credentials: waiting for the renewal owner to publish a token');
    this.#adopt(await this.#awaitPublication(undefined), 'read from the shared directory');
  }

  async getToken(): Promise<string> {
    const current = this.#current;
    if (current === undefined) {
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message: 'credentials: no token yet (start() not done)',
      });
    }
    if (Date.now() >= current.expiresAt && this.#issuer.canRenew) {
      try {
        return (await this.#renew('due')).accessToken;
      } catch {
        // The renewal's failure is logged and counted; the service answers for the old token.
      }
    }
    return current.accessToken;
  }

  async tokenRejected(rejected: string): Promise<string> {
    const current = this.#current;
    if (current !== undefined && current.accessToken !== rejected) return current.accessToken;
    if (!this.#issuer.canRenew) {
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message:
          'the service refused the access token and SVC_TOKEN_SOURCE=static cannot renew it: put a new token in SVC_ACCESS_TOKEN and restart, or use the totp or web source',
      });
    }
    try {
      return (await this.#renew('refused')).accessToken;
    } catch (error) {
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message: `the service refused the access token and no new one could be had: ${(error as Error).message}`,
        cause: error,
      });
    }
  }

  /** Called with each new token (a renewal here, or one published by the renewal owner). */
  onChange(listener: (token: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): CredentialsStatus {
    return {
      source: this.#issuer.kind,
      expiresAt: this.#current?.expiresAt,
      renewable: this.#issuer.canRenew,
      role: this.#share === undefined ? 'alone' : this.#share.isOwner ? 'owner' : 'reader',
      renewals: this.#renewals,
      lastError: this.#lastError,
    };
  }

  /** Every secret this component holds, for log scrubbing: tokens (current and recent), PIN, TOTP secret. */
  secrets(): string[] {
    const c = this.#config;
    return [this.#current?.accessToken, ...this.#previous, c.accessToken, c.pin, c.totpSecret].filter(
      (s): s is string => typeof s === 'string' && s.length > 0,
    );
  }

  /** Stops timers and gives the lease up, so another process takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#pollTimer);
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#warnTimer);
    for (const w of this.#waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new CredentialsError('TIMEOUT', 'credentials stopped'));
    }
    this.#share?.lease.release();
  }

  /** Single flight: every caller of one renewal shares its outcome. */
  #renew(why: RenewReason): Promise<IssuedToken> {
    if (this.#inFlight !== undefined) return this.#inFlight;
    const share = this.#share;
    const run =
      share !== undefined && !share.isOwner ? this.#readerRenewal(share, why) : this.#ownerRenewal(why);
    this.#inFlight = run.finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /** A reader cannot renew (it would end the owner's token): it asks the owner and waits. */
  #readerRenewal(share: SharedRenewal, why: RenewReason): Promise<IssuedToken> {
    const current = this.#current;
    if (why === 'refused' && current !== undefined) share.noteRefused(current);
    return this.#awaitPublication(current?.accessToken);
  }

  async #ownerRenewal(why: RenewReason): Promise<IssuedToken> {
    const attempts = why === 'refused' ? REFUSED_ATTEMPTS : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const current = this.#current;
        const next =
          current === undefined ? await this.#issuer.first() : await this.#issuer.next(current, why);
        this.#share?.publish(next);
        this.#renewals++;
        this.#lastError = undefined;
        this.#metrics.renewed('ok');
        this.#adopt(next, why === 'due' ? 'renewed ahead of expiry' : 'renewed after the service refused it');
        return next;
      } catch (error) {
        this.#metrics.renewed('failed');
        this.#lastError = (error as Error).message;
        this.#log(`credentials: renewal failed (${this.#issuer.kind}): ${this.#lastError}`);
        const retryable = (error as { retryable?: boolean }).retryable === true;
        if (attempt >= attempts || !retryable || this.#stopped) throw error;
        await new Promise((r) => setTimeout(r, 1_000 * 4 ** (attempt - 1)));
      }
    }
  }

  /** Resolves with the next token other than `replacing` (adopted from any path), within a bound. */
  #awaitPublication(replacing: string | undefined): Promise<IssuedToken> {
    const waitMs = this.#config.leaseMs * 2 + 60_000;
    return new Promise<IssuedToken>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w.timer !== timer);
        reject(
          new CredentialsError(
            'TIMEOUT',
            `no new token was published in ${this.#config.shareDir} within ${Math.round(waitMs / 1000)} s (is a process holding the lease able to renew?)`,
          ),
        );
      }, waitMs);
      // Not unref'd: a process waiting for its first token has nothing else keeping it alive yet.
      this.#waiters.push({ replacing, resolve, reject, timer });
    });
  }

  #adopt(token: IssuedToken, how: string): void {
    const old = this.#current;
    if (old?.accessToken === token.accessToken) {
      this.#current = token;
      return;
    }
    if (old !== undefined) this.#previous = [old.accessToken, ...this.#previous].slice(0, 2);
    this.#current = token;
    this.#obtainedAt = Date.now();
    this.#lastWarnedAt = undefined;
    this.#log(
      `credentials: access token ${how} (source ${this.#issuer.kind}); expires ${new Date(token.expiresAt).toISOString()}`,
    );
    for (const w of this.#waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(token);
    }
    for (const listener of this.#listeners) {
      try {
        listener(token.accessToken);
      } catch (error) {
        this.#log(`credentials: a token listener failed: ${(error as Error).message}`);
      }
    }
    this.#schedule();
  }

  #schedule(): void {
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#warnTimer);
    const current = this.#current;
    if (current === undefined || this.#stopped) return;
    const renews = this.#issuer.canRenew && this.#issuer.kind !== 'file';
    if (renews && this.status().role !== 'reader') {
      const at = renewAt(
        { obtainedAt: this.#obtainedAt, expiresAt: current.expiresAt },
        this.#config.renewAheadMs,
      );
      this.#armRenewal(at - Date.now());
    }
    if (!renews) this.#armWarning();
  }

  #armRenewal(delayMs: number): void {
    clearTimeout(this.#renewTimer);
    this.#renewTimer = setTimeout(
      () => {
        this.#renew('due').catch(() => {
          const expiresAt = this.#current?.expiresAt ?? Date.now();
          if (!this.#stopped) this.#armRenewal(retryDelay(expiresAt, Date.now()));
        });
      },
      Math.min(MAX_TIMER_MS, Math.max(0, delayMs)),
    );
    this.#renewTimer.unref();
  }

  /** A token nothing renews: warn `warnAheadMs` before expiry, hourly after, and at expiry. */
  #armWarning(): void {
    const current = this.#current;
    if (current === undefined || this.#stopped) return;
    const now = Date.now();
    const at = nextWarningAt(current.expiresAt, this.#config.warnAheadMs, now, this.#lastWarnedAt);
    if (at === undefined) return;
    this.#warnTimer = setTimeout(
      () => {
        this.#lastWarnedAt = Date.now();
        const left = Math.round((current.expiresAt - Date.now()) / 60_000);
        this.#log(
          left > 0
            ? `credentials: WARNING the access token (source ${this.#issuer.kind}) expires in ${left} min at ${new Date(current.expiresAt).toISOString()} and nothing renews it: put a new one in place (see docs/operations.md)`
            : `credentials: WARNING the access token (source ${this.#issuer.kind}) has expired; calls will be refused until a new one is in place`,
        );
        this.#armWarning();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - now)),
    );
    this.#warnTimer.unref();
  }

  /** Every `pollMs`: the token file, the owner's heartbeat and refusal notes, a reader's takeover. */
  #poll(): void {
    if (this.#stopped) return;
    try {
      const current = this.#current;
      const fresh = current === undefined ? undefined : this.#issuer.poll?.(current);
      if (fresh !== undefined) this.#adopt(fresh, 'read from its changed file');
      const share = this.#share;
      if (share === undefined) return;
      if (share.isOwner) this.#ownerPoll(share);
      else this.#readerPoll(share);
    } catch (error) {
      this.#log(`credentials: ${(error as Error).message}`);
    }
  }

  #ownerPoll(share: SharedRenewal): void {
    if (!share.heartbeatIfDue()) {
      this.#log('credentials: another process holds the renewal lease now; following it');
      this.#metrics.setOwner(false);
      clearTimeout(this.#renewTimer);
      return;
    }
    const current = this.#current;
    if (current !== undefined && share.refusalOf(current)) {
      this.#renew('refused').catch(() => undefined);
    }
  }

  #readerPoll(share: SharedRenewal): void {
    const published = share.changedToken();
    if (published !== undefined) this.#adopt(published, 'published by the renewal owner');
    if (!share.lease.isStale() || !share.acquire()) return;
    this.#log('credentials: the renewal owner stopped heartbeating; this process took the lease over');
    this.#metrics.setOwner(true);
    const newer = share.changedToken();
    if (newer !== undefined) this.#adopt(newer, 'published by the previous owner');
    const waiting = this.#waiters.length > 0;
    if (waiting || this.#current === undefined) {
      // Someone here is waiting for a replacement the old owner never made: make it now.
      this.#ownerRenewal(this.#current === undefined ? 'due' : 'refused').catch(() => undefined);
    } else this.#schedule();
  }
}
