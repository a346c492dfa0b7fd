/**
 * The configuration every HTTP service shares (listen address, logging, /docs, per-key rate limit,
 * key cache), documented and validated once here; each service's own config extends it with its
 * sections and resolves these keys through `resolveHttpServiceConfig`.
 */
import { bool, int, num, type Options, oneOf, section, str } from './config-readers.js';
import { HttpError } from './http-error.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug';

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug'];

export interface HttpServiceConfig {
  /** Listen address. Default 127.0.0.1. */
  host?: string;
  /** Listen port. Default: the service's own (query API 8080, trading gateway 8090); 0 picks a free port. */
  port?: number;
  /**
   * fastify logger level, or false for none. Default false. Requests are logged by method and
   * matched route pattern only (no query string, no headers), and every line is scrubbed of API
   * keys and the process's known secrets (log-redaction.ts).
   */
  logLevel?: LogLevel | false;
  /** Serve the OpenAPI document at /docs/json and the interactive docs at /docs. Default true. */
  docs?: boolean;
  /** Per-key token bucket. */
  rateLimit?: {
    /** Sustained requests per second per key. Default 50. */
    perSecond?: number;
    /** Bucket size (requests allowed in a burst). Default 100. */
    burst?: number;
  };
  /**
   * How long a looked-up API key is trusted before it is read again. A revocation through this
   * instance (the admin routes) takes effect at once; other instances see it within this time.
   * Default 5,000 ms.
   */
  keyCacheMs?: number;
}

export interface ResolvedHttpServiceConfig {
  host: string;
  port: number;
  logLevel: LogLevel | false;
  docs: boolean;
  rateLimit: { perSecond: number; burst: number };
  keyCacheMs: number;
}

/** The top-level keys of HttpServiceConfig: a service lists them with its own sections. */
export const HTTP_SERVICE_KEYS = ['host', 'port', 'logLevel', 'docs', 'rateLimit', 'keyCacheMs'] as const;

/**
 * Resolves the shared keys of `top` (already checked for unknown keys by the service's `section`)
 * with their defaults; `where` names the service's config in messages.
 */
export function resolveHttpServiceConfig(
  top: Options,
  where: string,
  defaultPort: number,
): ResolvedHttpServiceConfig {
  const rl = section(top.rateLimit, `${where}.rateLimit`, ['perSecond', 'burst']);
  if (top.logLevel !== undefined && top.logLevel !== false && typeof top.logLevel !== 'string') {
    throw new HttpError(
      'CONFIG_INVALID',
      `${where}: "logLevel" must be false or one of ${LOG_LEVELS.join(', ')}`,
    );
  }
  return {
    host: str(top, 'host', where, '127.0.0.1'),
    port: int(top, 'port', where, defaultPort, 0, 65_535),
    logLevel:
      top.logLevel === undefined || top.logLevel === false
        ? false
        : oneOf(top, 'logLevel', where, LOG_LEVELS, 'info'),
    docs: bool(top, 'docs', where, true),
    rateLimit: {
      perSecond: num(rl, 'perSecond', `${where}.rateLimit`, 50, 0.001),
      burst: int(rl, 'burst', `${where}.rateLimit`, 100, 1, 1_000_000),
    },
    keyCacheMs: int(top, 'keyCacheMs', where, 5_000, 0, 3_600_000),
  };
}
