/**
 * The configuration every HTTP service shares (listen address, logging, /docs, per-key rate limit,
 * key table refresh, address and secret throttles, server limits), documented and declared once here;
 * each service reads its config with these keys and its own sections (`readServiceConfig`) and
 * resolves the shared ones through `resolveHttpServiceConfig`.
 */
import { type OptionsSchema, type OptionValues, readOptions, section } from '@feedpipe/config';
import {
  connectionCeiling,
  DEFAULT_HTTP_SERVER_LIMITS,
  type HttpServerLimits,
  openFileLimit,
} from '@feedpipe/service-kit';
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
   * Per client address, asked before a presented key is looked at (auth/address-gate.ts): every
   * request that needs a key takes a request; every refused key (malformed, unknown, revoked, wrong
   * secret) takes a failure too, and an address out of failures is refused whatever it presents.
   */
  addressLimit?: {
    /** Sustained requests per second per address. Default 500. */
    perSecond?: number;
    /** Requests at once per address. Default 1,000. */
    burst?: number;
    /** Refused keys per second per address, sustained. Default 1. */
    failuresPerSecond?: number;
    /** Refused keys in a row before the address is refused (429). Default 50. */
    failureBurst?: number;
  };
  /** Wrong secrets per key id (auth/secret-throttle.ts): the id is refused (429) for a while. */
  failedSecrets?: {
    /** Wrong secrets within `windowMs` that block the key id. Default 10. */
    maxFailures?: number;
    /** Default 60,000 ms. */
    windowMs?: number;
    /** How long the key id is then refused, whatever secret comes with it. Default 60,000 ms. */
    blockMs?: number;
  };
  /**
   * How often the whole key table is re-read in the background (no request reads it): how late
   * another instance's revocation or new key takes effect here. A revocation through this instance
   * (the admin routes) takes effect at once. Default 5,000 ms; below 1,000 is taken as 1,000.
   */
  keyCacheMs?: number;
  /**
   * The server's connection limits (service-kit's http-server-limits.ts; the CLIs fill them from
   * the HTTP_* variables, docs/configuration.md "HTTP servers").
   */
  server?: {
    /** Silence after which a connection with no request in progress, or a stalled one, is closed. Default 10,000 ms. */
    idleTimeoutMs?: number;
    /** The request head must arrive within this. Default 10,000 ms. */
    headersTimeoutMs?: number;
    /** The whole request, body included, must arrive within this (408). Default 30,000 ms. */
    requestTimeoutMs?: number;
    /** An idle keep-alive connection is closed after this. Default 5,000 ms. */
    keepAliveTimeoutMs?: number;
    /** How often the head and request deadlines are checked. Default 1,000 ms. */
    checkIntervalMs?: number;
    /**
     * Connections at once, for all the servers of the process configured with the same cap.
     * Default, and at most: half the process's open-file limit (4,096 where it cannot be read).
     */
    maxConnections?: number;
    /**
     * Of those, connections at once from one client address: beyond it a connection is reset as
     * it is accepted, before any HTTP parsing. Default 256.
     */
    maxConnectionsPerAddress?: number;
    /** Request bodies above this are refused (413). Default 1 MiB; a service may raise it for its routes. */
    bodyLimitBytes?: number;
  };
}

export interface ResolvedHttpServiceConfig {
  host: string;
  port: number;
  logLevel: LogLevel | false;
  docs: boolean;
  rateLimit: { perSecond: number; burst: number };
  addressLimit: { perSecond: number; burst: number; failuresPerSecond: number; failureBurst: number };
  failedSecrets: { maxFailures: number; windowMs: number; blockMs: number };
  keyCacheMs: number;
  server: HttpServerLimits;
}

/** A rate, per second: above zero, with no ceiling of ours. */
const PER_SECOND = { kind: 'number', min: 0.001, max: Number.MAX_SAFE_INTEGER } as const;
const d = DEFAULT_HTTP_SERVER_LIMITS;

/** Every shared key, with its range and default (HttpServiceConfig documents each). */
export const HTTP_SERVICE_CONFIG = {
  host: { kind: 'string', default: '127.0.0.1' },
  // The default is the service's own (resolveHttpServiceConfig).
  port: { kind: 'integer', min: 0, max: 65_535 },
  logLevel: { kind: 'enum', values: [false, ...LOG_LEVELS], default: false },
  docs: { kind: 'boolean', default: true },
  rateLimit: section({
    perSecond: { ...PER_SECOND, default: 50 },
    burst: { kind: 'integer', min: 1, max: 1_000_000, default: 100 },
  }),
  addressLimit: section({
    perSecond: { ...PER_SECOND, default: 500 },
    burst: { kind: 'integer', min: 1, max: 1_000_000, default: 1_000 },
    failuresPerSecond: { ...PER_SECOND, default: 1 },
    failureBurst: { kind: 'integer', min: 1, max: 1_000_000, default: 50 },
  }),
  failedSecrets: section({
    maxFailures: { kind: 'integer', min: 1, max: 1_000_000, default: 10 },
    windowMs: { kind: 'integer', min: 1, max: 86_400_000, default: 60_000 },
    blockMs: { kind: 'integer', min: 1, max: 86_400_000, default: 60_000 },
  }),
  keyCacheMs: { kind: 'integer', min: 0, max: 3_600_000, default: 5_000 },
  server: section({
    idleTimeoutMs: { kind: 'integer', min: 1, max: 3_600_000, default: d.idleTimeoutMs },
    headersTimeoutMs: { kind: 'integer', min: 1, max: 600_000, default: d.headersTimeoutMs },
    requestTimeoutMs: { kind: 'integer', min: 1, max: 3_600_000, default: d.requestTimeoutMs },
    keepAliveTimeoutMs: { kind: 'integer', min: 1, max: 600_000, default: d.keepAliveTimeoutMs },
    checkIntervalMs: { kind: 'integer', min: 1, max: 60_000, default: d.checkIntervalMs },
    // The default, and the ceiling, is the process's (resolveHttpServiceConfig).
    maxConnections: { kind: 'integer', min: 1, max: 10_000_000 },
    maxConnectionsPerAddress: {
      kind: 'integer',
      min: 1,
      max: 10_000_000,
      default: d.maxConnectionsPerAddress,
    },
    bodyLimitBytes: { kind: 'integer', min: 1, max: 1_073_741_824, default: d.bodyLimitBytes },
  }),
} as const satisfies OptionsSchema;

export type HttpServiceValues = OptionValues<typeof HTTP_SERVICE_CONFIG>;

/**
 * Reads a service's config once: the shared keys and the service's `own` ones in one pass, an
 * unknown key refused with the allowed list (CONFIG_INVALID); `where` names the config in messages.
 */
export function readServiceConfig<S extends OptionsSchema>(
  own: S,
  config: object | undefined,
  where: string,
): OptionValues<typeof HTTP_SERVICE_CONFIG & S> {
  return readOptions({ ...HTTP_SERVICE_CONFIG, ...own }, config, {
    where,
    fail: (message) => new HttpError('CONFIG_INVALID', message),
  });
}

/**
 * The shared keys as read by `readServiceConfig`, with the two defaults that are not constants: the
 * service's port, and the connection cap (never above half the open-file limit).
 */
export function resolveHttpServiceConfig(
  values: HttpServiceValues,
  where: string,
  defaultPort: number,
  connectionLimit: number = connectionCeiling(openFileLimit()),
): ResolvedHttpServiceConfig {
  const server = {
    ...values.server,
    maxConnections: Math.min(connectionLimit, values.server.maxConnections ?? connectionLimit),
  };
  // Node refuses a head deadline beyond the whole request's.
  if (server.headersTimeoutMs > server.requestTimeoutMs) {
    throw new HttpError(
      'CONFIG_INVALID',
      `${where}: "server.headersTimeoutMs" (${server.headersTimeoutMs}) must not exceed "server.requestTimeoutMs" (${server.requestTimeoutMs})`,
    );
  }
  return {
    host: values.host,
    port: values.port ?? defaultPort,
    logLevel: values.logLevel,
    docs: values.docs,
    rateLimit: values.rateLimit,
    addressLimit: values.addressLimit,
    failedSecrets: values.failedSecrets,
    keyCacheMs: values.keyCacheMs,
    server,
  };
}
