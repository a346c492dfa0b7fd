/**
 * The configuration every HTTP service shares (listen address, logging, /docs, per-key rate limit,
 * key table refresh, address and secret throttles, server limits), documented and validated once here; each service's own config extends it with its
 * sections and resolves these keys through `resolveHttpServiceConfig`.
 */
import {
  connectionCeiling,
  DEFAULT_HTTP_SERVER_LIMITS,
  type HttpServerLimits,
  openFileLimit,
} from '@feedpipe/service-kit';
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

/** The top-level keys of HttpServiceConfig: a service lists them with its own sections. */
export const HTTP_SERVICE_KEYS = [
  'host',
  'port',
  'logLevel',
  'docs',
  'rateLimit',
  'addressLimit',
  'failedSecrets',
  'keyCacheMs',
  'server',
] as const;

const SERVER_KEYS = [
  'idleTimeoutMs',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'keepAliveTimeoutMs',
  'checkIntervalMs',
  'maxConnections',
  'maxConnectionsPerAddress',
  'bodyLimitBytes',
];

/** The `server` section, with the connection cap never above half the open-file limit. */
function resolveServerLimits(value: unknown, where: string, ceiling: number): HttpServerLimits {
  const o = section(value, where, SERVER_KEYS);
  const d = DEFAULT_HTTP_SERVER_LIMITS;
  const limits: HttpServerLimits = {
    idleTimeoutMs: int(o, 'idleTimeoutMs', where, d.idleTimeoutMs, 1, 3_600_000),
    headersTimeoutMs: int(o, 'headersTimeoutMs', where, d.headersTimeoutMs, 1, 600_000),
    requestTimeoutMs: int(o, 'requestTimeoutMs', where, d.requestTimeoutMs, 1, 3_600_000),
    keepAliveTimeoutMs: int(o, 'keepAliveTimeoutMs', where, d.keepAliveTimeoutMs, 1, 600_000),
    checkIntervalMs: int(o, 'checkIntervalMs', where, d.checkIntervalMs, 1, 60_000),
    maxConnections: Math.min(ceiling, int(o, 'maxConnections', where, ceiling, 1, 10_000_000)),
    maxConnectionsPerAddress: int(
      o,
      'maxConnectionsPerAddress',
      where,
      d.maxConnectionsPerAddress,
      1,
      10_000_000,
    ),
    bodyLimitBytes: int(o, 'bodyLimitBytes', where, d.bodyLimitBytes, 1, 1_073_741_824),
  };
  // Node refuses a head deadline beyond the whole request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new HttpError(
      'CONFIG_INVALID',
      `${where}: "headersTimeoutMs" (${limits.headersTimeoutMs}) must not exceed "requestTimeoutMs" (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

/**
 * Resolves the shared keys of `top` (already checked for unknown keys by the service's `section`)
 * with their defaults; `where` names the service's config in messages.
 */
export function resolveHttpServiceConfig(
  top: Options,
  where: string,
  defaultPort: number,
  connectionLimit: number = connectionCeiling(openFileLimit()),
): ResolvedHttpServiceConfig {
  const rl = section(top.rateLimit, `${where}.rateLimit`, ['perSecond', 'burst']);
  const al = section(top.addressLimit, `${where}.addressLimit`, [
    'perSecond',
    'burst',
    'failuresPerSecond',
    'failureBurst',
  ]);
  const fs = section(top.failedSecrets, `${where}.failedSecrets`, ['maxFailures', 'windowMs', 'blockMs']);
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
    addressLimit: {
      perSecond: num(al, 'perSecond', `${where}.addressLimit`, 500, 0.001),
      burst: int(al, 'burst', `${where}.addressLimit`, 1_000, 1, 1_000_000),
      failuresPerSecond: num(al, 'failuresPerSecond', `${where}.addressLimit`, 1, 0.001),
      failureBurst: int(al, 'failureBurst', `${where}.addressLimit`, 50, 1, 1_000_000),
    },
    failedSecrets: {
      maxFailures: int(fs, 'maxFailures', `${where}.failedSecrets`, 10, 1, 1_000_000),
      windowMs: int(fs, 'windowMs', `${where}.failedSecrets`, 60_000, 1, 86_400_000),
      blockMs: int(fs, 'blockMs', `${where}.failedSecrets`, 60_000, 1, 86_400_000),
    },
    keyCacheMs: int(top, 'keyCacheMs', where, 5_000, 0, 3_600_000),
    server: resolveServerLimits(top.server, `${where}.server`, connectionLimit),
  };
}
