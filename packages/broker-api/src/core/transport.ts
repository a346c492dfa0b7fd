import type { RateCategory } from '../rate/categories.js';
import type { RateLimiter, Release } from '../rate/limiter.js';
import { type BodyEncoding, encodeBody, encodeQuery, type QueryValue } from './body.js';
import type { Clock } from './clock.js';
import { BrokerApiError } from './errors.js';
import { clip, redact } from './redact.js';
import { type WrittenOn, whenWritten } from './socket-write.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Where the access token comes from: a fixed string or a holder that renews it. */
export interface TokenSource {
  /** The token to use now. */
  getToken(): Promise<string>;
  /**
   * The service refused `rejected` (REST 401 DH-901; feed Error 807, or 808/809 right after a
   * renewal): resolve to a token other than `rejected`, with at most one renewal in flight however
   * many callers wait. A source with no way to renew rejects with `BrokerApiError` code
   * `TOKEN_EXPIRED`. Optional: a source without it is treated as one that cannot renew.
   */
  tokenRejected?(rejected: string): Promise<string>;
}

/** The subset of `fetch` the client uses; injectable for tests and instrumentation. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface TransportConfig {
  apiRoot: string;
  authUrl: string | undefined;
  clientId: string | undefined;
  token: TokenSource | undefined;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  bodyEncoding: BodyEncoding;
  limiter: RateLimiter;
  clock: Clock;
  fetch: FetchLike;
}

export interface CallSpec {
  method: HttpMethod;
  /** `METHOD /path-template`: selects the rate category and names the call in errors. */
  route: string;
  /** The concrete path, with path parameters already encoded. */
  path: string;
  /** `api` = `{api_root}` (default), `auth` = `{auth_url}`. */
  base?: 'api' | 'auth';
  query?: Readonly<Record<string, QueryValue>>;
  headers?: Readonly<Record<string, string>>;
  body?: unknown;
  bodyEncoding?: BodyEncoding;
  /** Default true: send `access-token`. */
  withToken?: boolean;
  /** Send `client-id` (option chain, expiry list, market snapshot, as the spec's examples do). */
  withClientIdHeader?: boolean;
  /**
   * Whether repeating the call after a lost answer is harmless. Only such calls are retried on
   * network errors, timeouts and 5xx; all calls are retried on 429, which the service refused.
   */
  idempotent: boolean;
  /** Values to keep out of error messages besides the access token (PIN, TOTP, secrets). */
  secrets?: readonly string[];
  /** Identical-request pacing key (option chain). */
  paceKey?: string;
  /** Order id whose modification count this call takes. */
  modifiesOrder?: string;
  /** Extra words for a failed non-idempotent call, e.g. how to look the order up. */
  lostAnswerHint?: string;
  signal?: AbortSignal;
}

/** The answer: parsed JSON, or undefined for an empty body (202 Accepted and similar). */
export interface CallResult {
  status: number;
  body: unknown;
}

const RATE_LIMIT_CODE = 'DH-904';

/**
 * One HTTP exchange with the service, with pacing, timeouts, retries and typed errors. Endpoint
 * modules describe calls as CallSpecs and never touch fetch themselves.
 */
export class Transport {
  readonly #config: TransportConfig;

  constructor(config: TransportConfig) {
    this.#config = config;
  }

  get clientId(): string | undefined {
    return this.#config.clientId;
  }

  get limiter(): RateLimiter {
    return this.#config.limiter;
  }

  async call(spec: CallSpec): Promise<CallResult> {
    const cfg = this.#config;
    const category = cfg.limiter.categoryOf(spec.route);
    let lastError: BrokerApiError | undefined;
    let modificationTaken = false;
    let tokenRenewed = false;
    for (let attempt = 0; attempt <= cfg.maxRetries; attempt++) {
      if (spec.modifiesOrder !== undefined && !modificationTaken) {
        // Checked before waiting for a slot so a refused modification costs no order-rate slot.
        cfg.limiter.modifications.check(spec.modifiesOrder, spec.route);
      }
      const release = await this.#acquire(category, spec);
      const used: { token?: string } = {};
      let outcome: CallResult | BrokerApiError;
      try {
        if (spec.modifiesOrder !== undefined && !modificationTaken) {
          cfg.limiter.modifications.take(spec.modifiesOrder, spec.route);
          modificationTaken = true;
        }
        outcome = await this.#send(spec, used, category);
      } finally {
        release();
      }
      if (!(outcome instanceof BrokerApiError)) return outcome;
      lastError = outcome;
      if (!tokenRenewed && used.token !== undefined && isTokenRefusal(outcome)) {
        // The service refused the token (expired, or replaced by a renewal elsewhere): one fresh
        // token, one more try, outside the retry budget. A 401 means nothing was done, so even a
        // non-idempotent call is safe to send again.
        tokenRenewed = true;
        await this.#freshToken(used.token, outcome);
        attempt--;
        continue;
      }
      const again = attempt < cfg.maxRetries && this.#shouldRetry(outcome, spec);
      if (!again) break;
      await cfg.clock.sleep(this.#backoff(attempt, outcome), spec.signal);
    }
    throw lastError ?? new BrokerApiError({ code: 'NETWORK', message: `${spec.route} was not sent` });
  }

  /** Asks the token source for a token other than `rejected`; without a renewal path, the 401 stands. */
  async #freshToken(rejected: string, refusal: BrokerApiError): Promise<void> {
    const source = this.#config.token;
    if (source?.tokenRejected === undefined) throw refusal;
    try {
      await source.tokenRejected(rejected);
    } catch (error) {
      if (error instanceof BrokerApiError && error.code === 'TOKEN_EXPIRED') throw error;
      throw new BrokerApiError({
        code: 'TOKEN_EXPIRED',
        message: `${refusal.route ?? 'the call'}: the access token was refused and no fresh one could be obtained`,
        ...(refusal.route === undefined ? {} : { route: refusal.route }),
        cause: error,
      });
    }
  }

  async #acquire(category: RateCategory, spec: CallSpec): Promise<Release> {
    const limiter = this.#config.limiter;
    try {
      if (spec.paceKey !== undefined) {
        return await limiter.acquireKeyed(category, spec.route, spec.paceKey, spec.signal);
      }
      return await limiter.acquire(category, spec.route, spec.signal);
    } catch (error) {
      if (error instanceof BrokerApiError || !spec.signal?.aborted) throw error;
      // An abort while waiting for a slot: nothing was sent.
      throw new BrokerApiError({
        code: 'ABORTED',
        message: `${spec.route} was aborted before it was sent`,
        route: spec.route,
        cause: error,
      });
    }
  }

  #shouldRetry(error: BrokerApiError, spec: CallSpec): boolean {
    if (error.code === 'RATE_LIMITED') return true;
    if (!spec.idempotent) return false;
    if (error.code === 'NETWORK' || error.code === 'TIMEOUT') return true;
    return error.code === 'HTTP_ERROR' && error.status !== undefined && error.status >= 500;
  }

  /** Exponential backoff with jitter, capped; a Retry-After from the service wins when later. */
  #backoff(attempt: number, error: BrokerApiError): number {
    const cfg = this.#config;
    const exp = Math.min(cfg.retryMaxDelayMs, cfg.retryBaseDelayMs * 2 ** attempt);
    const jittered = exp / 2 + Math.random() * (exp / 2);
    const fromServer = error.retryAt === undefined ? 0 : error.retryAt - cfg.clock.now();
    return Math.max(jittered, Math.min(fromServer, cfg.retryMaxDelayMs * 4));
  }

  /** One exchange; `used.token` is set to the token sent, so a refusal can name it. */
  async #send(
    spec: CallSpec,
    used: { token?: string },
    category: RateCategory,
  ): Promise<CallResult | BrokerApiError> {
    const cfg = this.#config;
    const secrets: string[] = [...(spec.secrets ?? [])];
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
    if (spec.withToken !== false) {
      if (cfg.token === undefined) {
        return new BrokerApiError({
          code: 'INVALID_ARGUMENT',
          message: `${spec.route} needs an access token and none is configured`,
          route: spec.route,
        });
      }
      let token: string;
      try {
        token = await cfg.token.getToken();
      } catch (error) {
        // TOKEN_EXPIRED and friends come from the token holder already typed.
        if (error instanceof BrokerApiError) return error;
        return new BrokerApiError({
          code: 'TOKEN_EXPIRED',
          message: `${spec.route}: no access token available`,
          route: spec.route,
          cause: error,
        });
      }
      headers['access-token'] = token;
      used.token = token;
      secrets.push(token);
    }
    if (spec.withClientIdHeader === true && cfg.clientId !== undefined) headers['client-id'] = cfg.clientId;
    let body: string | undefined;
    if (spec.body !== undefined) {
      const encoded = encodeBody(spec.body, spec.bodyEncoding ?? cfg.bodyEncoding);
      headers['content-type'] = encoded.contentType;
      body = encoded.text;
    }
    const root = spec.base === 'auth' ? cfg.authUrl : cfg.apiRoot;
    if (root === undefined) {
      return new BrokerApiError({
        code: 'INVALID_ARGUMENT',
        message: `${spec.route} needs authUrl and none is configured`,
        route: spec.route,
      });
    }
    const url = `${root}${spec.path}${encodeQuery(spec.query)}`;
    const timeout = AbortSignal.timeout(cfg.timeoutMs);
    const signal = spec.signal === undefined ? timeout : AbortSignal.any([timeout, spec.signal]);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    cfg.limiter.markSent(category, cfg.clock.now());
    try {
      // Marked again when the request is written to its socket (socket-write.ts).
      const written = (connection: WrittenOn): void =>
        cfg.limiter.markSent(category, cfg.clock.now(), connection);
      const response = await whenWritten(url, written, () =>
        cfg.fetch(url, {
          method: spec.method,
          headers,
          ...(body === undefined ? {} : { body }),
          signal,
          redirect: 'manual',
        }),
      );
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (error) {
      return this.#transportError(spec, error, timeout, secrets);
    }
    return interpret(spec, status, text, retryAfter, secrets, cfg.clock.now());
  }

  #transportError(
    spec: CallSpec,
    error: unknown,
    timeout: AbortSignal,
    secrets: readonly string[],
  ): BrokerApiError {
    const hint = spec.idempotent
      ? ''
      : ` ${spec.lostAnswerHint ?? 'the call may or may not have taken effect'}`;
    if (spec.signal?.aborted) {
      return new BrokerApiError({ code: 'ABORTED', message: `${spec.route} was aborted`, route: spec.route });
    }
    if (timeout.aborted) {
      return new BrokerApiError({
        code: 'TIMEOUT',
        message: `${spec.route} got no answer within ${this.#config.timeoutMs} ms;${hint}`,
        retryable: spec.idempotent,
        route: spec.route,
      });
    }
    const reason = describeNetworkError(error);
    return new BrokerApiError({
      code: 'NETWORK',
      message: redact(`${spec.route} failed: ${reason};${hint}`, secrets),
      retryable: spec.idempotent,
      route: spec.route,
      cause: error,
    });
  }
}

/** REST's answer to a token that is expired, revoked or unknown (beyond-the-spec: DH-901). */
function isTokenRefusal(error: BrokerApiError): boolean {
  return error.status === 401 && error.errorCode === 'DH-901';
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (cause !== undefined && typeof cause.code === 'string') return `network error ${cause.code}`;
  return 'network error';
}

interface ServiceErrorBody {
  errorType?: string;
  errorCode?: string;
  errorMessage?: string;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function interpret(
  spec: CallSpec,
  status: number,
  text: string,
  retryAfter: string | null,
  secrets: readonly string[],
  now: number,
): CallResult | BrokerApiError {
  const trimmed = text.trim();
  const parsed = trimmed.length === 0 ? undefined : parseJson(trimmed);
  if (status >= 200 && status < 300) {
    if (parsed === undefined) return { status, body: undefined };
    if (!parsed.ok) {
      return new BrokerApiError({
        code: 'INVALID_RESPONSE',
        message: `${spec.route} answered ${status} with a body that is not JSON`,
        status,
        route: spec.route,
      });
    }
    return { status, body: parsed.value };
  }
  const fields: ServiceErrorBody = {};
  if (parsed?.ok === true && typeof parsed.value === 'object' && parsed.value !== null) {
    const v = parsed.value as Record<string, unknown>;
    if (typeof v.errorType === 'string') fields.errorType = clip(redact(v.errorType, secrets));
    if (typeof v.errorCode === 'string' || typeof v.errorCode === 'number')
      fields.errorCode = String(v.errorCode);
    if (typeof v.errorMessage === 'string') fields.errorMessage = clip(redact(v.errorMessage, secrets));
  }
  const rateLimited = status === 429 || fields.errorCode === RATE_LIMIT_CODE;
  const retryAt = parseRetryAfter(retryAfter, now);
  const detail = [fields.errorCode, fields.errorMessage].filter((s) => s !== undefined).join(': ');
  const hint =
    status >= 500 && !spec.idempotent
      ? ` ${spec.lostAnswerHint ?? 'the call may or may not have taken effect'}`
      : '';
  return new BrokerApiError({
    code: rateLimited ? 'RATE_LIMITED' : 'HTTP_ERROR',
    message: `${spec.route} failed with HTTP ${status}${detail.length > 0 ? ` ${detail}` : ''}${hint}`,
    status,
    ...fields,
    retryable: rateLimited || status >= 500,
    ...(retryAt === undefined ? {} : { retryAt }),
    route: spec.route,
  });
}

function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return now + seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}
