/**
 * The limits of every HTTP server of the project, set in this one place: the query API's and the
 * trading gateway's (through packages/service-http's fastify options) and the ops endpoints of
 * every process (ops-server.ts, the history loader's metrics port). It lives here, not in
 * service-http, because the ops endpoints of the ingestor and the sink must not pull fastify in.
 *
 * Why: a connection that sends nothing was kept forever (Node's default socket timeout is none,
 * and its request and header deadlines only start with a request's first byte), so 19,600 idle
 * connections exhausted the descriptors of a process whose sink then failed every insert with "too
 * many open files"; a body sent a byte every 5 s stayed open past 150 s. Here:
 *
 * - idle: a connection is closed after `idleTimeoutMs` of silence when it has no request in
 *   progress (it never sent one, or it is between keep-alive requests), when the request's head or
 *   body stalls, or when the client stops reading its answer. A request whose answer is still being
 *   computed or streamed is left to the route's own bounds (query time limits, stream heartbeats).
 * - headers: the request head must arrive within `headersTimeoutMs` of its first byte (Node's
 *   `headersTimeout`), the whole request, body included, within `requestTimeoutMs`
 *   (`requestTimeout`; answered 408 and closed). Node checks both every `checkIntervalMs`.
 * - keep-alive: an idle keep-alive connection is closed after `keepAliveTimeoutMs`.
 * - connections: at most `maxConnections` at once for all the servers of the process that share
 *   a budget (the API servers do), by default half the process's open-file limit, so the rest of
 *   the descriptors stay the pipeline's (Kafka, ClickHouse, the engine's files). At the cap a new
 *   connection takes the place of the oldest idle one (ConnectionBudget); when every connection
 *   is being answered it is closed as soon as it is accepted, and the answers go on.
 * - per address: at most `maxConnectionsPerAddress` of those from one client address
 *   (address-cap.ts). Both checks run on the accepted socket before Node's HTTP server sees it
 *   (gateBeforeHttp), and a refused socket is reset rather than closed: no parser, no timer, no
 *   FIN handshake and no TIME_WAIT entry is spent on a client that is over its share.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { EnvSchema, EnvValues } from '@feedpipe/config';
import { AddressCap } from './address-cap.js';

export interface HttpServerLimits {
  /** Silence after which a connection with no request in progress (or a stalled one) is closed. */
  idleTimeoutMs: number;
  /** The request head must be complete this long after its first byte (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the head and request deadlines (its connectionsCheckingInterval). */
  checkIntervalMs: number;
  /** Connections at once for the servers sharing this cap in the process. */
  maxConnections: number;
  /** Of those, connections at once from one client address. */
  maxConnectionsPerAddress: number;
  /** Request bodies larger than this are refused with 413 (fastify's bodyLimit). */
  bodyLimitBytes: number;
}

/** Where the open-file limit cannot be read (not Linux): the cap of the API servers' connections. */
export const FALLBACK_MAX_CONNECTIONS = 4_096;

export const DEFAULT_HTTP_SERVER_LIMITS: Readonly<Omit<HttpServerLimits, 'maxConnections'>> = {
  idleTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  bodyLimitBytes: 1_048_576,
  // Far above what one honest client opens (a browser keeps 6 per host, a JDBC pool tens, an
  // office behind one NAT address a few hundred at most), far below the thousands of a flood.
  maxConnectionsPerAddress: 256,
};

/**
 * An ops endpoint (/metrics, /healthz, /readyz): a scraper and a probe or two, never a crowd, so
 * a small cap of its own (outside the API servers' budget: a flood of an API never starves the
 * probes, and a flood of the ops port never takes the process's descriptors).
 */
export const OPS_SERVER_LIMITS: Readonly<HttpServerLimits> = {
  ...DEFAULT_HTTP_SERVER_LIMITS,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  maxConnections: 64,
  // The cap itself: the scraper and the probes often share one address (npm start: loopback).
  maxConnectionsPerAddress: 64,
  bodyLimitBytes: 0,
};

/**
 * The soft limit on open files of this process (`ulimit -n`), from /proc/self/limits; undefined
 * where it cannot be read (not Linux) or is unlimited.
 */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  const value = soft === undefined ? Number.NaN : Number(soft);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The most connections the API servers of a process may hold: half its open-file limit, the other
 * half left to the pipeline; FALLBACK_MAX_CONNECTIONS where the limit is unknown.
 */
export function connectionCeiling(fileLimit: number | undefined): number {
  return fileLimit === undefined ? FALLBACK_MAX_CONNECTIONS : Math.max(1, Math.floor(fileLimit / 2));
}

/**
 * Connections at once across the servers that share it. At the cap, a new connection takes the
 * place of the oldest one that is not being answered (it sent nothing yet, is between keep-alive
 * requests, or its request is still arriving), which is closed; only when every connection is
 * being answered is the new one refused. So a flood of idle connections cannot keep a client out
 * (each new connection pushes the oldest idle one out, and a client that sends its request at once
 * is being answered before the flood comes round to it), while answers in progress are never cut.
 */
export class ConnectionBudget {
  readonly capacity: number;
  /** Open connections, oldest first, each with whether it may make room (not being answered). */
  readonly #open = new Map<Socket, () => boolean>();
  #refused = 0;
  #evicted = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be an integer >= 1');
    this.capacity = capacity;
  }

  get open(): number {
    return this.#open.size;
  }

  /** Connections refused because every open one was being answered. */
  get refused(): number {
    return this.#refused;
  }

  /** Idle connections closed to make room for a new one. */
  get evicted(): number {
    return this.#evicted;
  }

  /** Counts `socket` in (closing an idle one if the budget is full); false: refused. */
  admit(socket: Socket, idle: () => boolean): boolean {
    if (this.#open.size >= this.capacity && !this.#makeRoom()) {
      this.#refused += 1;
      return false;
    }
    this.#open.set(socket, idle);
    socket.once('close', () => this.#open.delete(socket));
    return true;
  }

  /**
   * Closes the oldest idle connection. Busy ones met on the way go to the back, so the next search
   * starts past them; at most SCAN are looked at, so a full budget of busy connections costs a
   * bounded search per refused connection, not one over all of them.
   */
  #makeRoom(): boolean {
    const scan = Math.min(MAX_SCAN, this.#open.size);
    for (let i = 0; i < scan; i += 1) {
      const oldest = this.#open.entries().next().value;
      if (oldest === undefined) return true;
      const [socket, idle] = oldest;
      this.#open.delete(socket);
      if (idle()) {
        this.#evicted += 1;
        socket.destroy();
        return true;
      }
      this.#open.set(socket, idle);
    }
    return false;
  }
}

/** Connections looked at to find an idle one to close, per new connection at the cap. */
const MAX_SCAN = 256;

const processBudgets = new Map<number, ConnectionBudget>();
const processAddressCaps = new Map<number, AddressCap>();

function perProcess<T>(made: Map<number, T>, key: number, make: () => T): T {
  let value = made.get(key);
  if (value === undefined) {
    value = make();
    made.set(key, value);
  }
  return value;
}

/**
 * The budget of this process for a cap: servers resolved with the same cap (the query API and the
 * trading gateway of one process, configured by the same variables) share one, so the cap holds
 * for the process, not per server.
 */
export function processConnectionBudget(capacity: number): ConnectionBudget {
  return perProcess(processBudgets, capacity, () => new ConnectionBudget(capacity));
}

/** The per-address cap of this process, shared the same way (one client, one share, whatever the port). */
export function processAddressCap(perAddress: number): AddressCap {
  return perProcess(processAddressCaps, perAddress, () => new AddressCap(perAddress));
}

/** What a limited server has done, for its service's metrics. */
export interface LimitedServerStats {
  /** The budget it counts in (shared with the other servers of the process with the same cap). */
  readonly budget: ConnectionBudget;
  /** The per-address cap it counts in (shared the same way). */
  readonly addressCap: AddressCap;
  /** Connections it closed for silence. */
  readonly idleClosed: number;
}

const serverStats = new WeakMap<Server, LimitedServerStats>();

/** The stats of a server made by createLimitedServer; undefined for any other server. */
export function limitedServerStats(server: Server): LimitedServerStats | undefined {
  return serverStats.get(server);
}

export interface LimitedServerOptions {
  /** Default: the process's budget for `limits.maxConnections`. */
  budget?: ConnectionBudget;
  /** Default: the process's cap for `limits.maxConnectionsPerAddress`. */
  addressCap?: AddressCap;
  /** Told of each connection closed for silence (for a metric). */
  onIdleClose?: () => void;
}

/** An http.Server with `limits` applied; `handler` as for http.createServer (fastify's serverFactory). */
export function createLimitedServer(
  handler: RequestListener | undefined,
  limits: HttpServerLimits,
  options: LimitedServerOptions = {},
): Server {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  });
  // Before anything can answer: every answer of every server of the project carries nosniff
  // (caller text in a text answer must never be sniffed as HTML by a browser).
  server.on('request', (_request, response) => response.setHeader('x-content-type-options', 'nosniff'));
  if (handler) server.on('request', handler);
  const budget = options.budget ?? processConnectionBudget(limits.maxConnections);
  const addressCap = options.addressCap ?? processAddressCap(limits.maxConnectionsPerAddress);
  const stats = { budget, addressCap, idleClosed: 0 };
  serverStats.set(server, stats);
  limitConnections(server, limits.idleTimeoutMs, stats, () => {
    stats.idleClosed += 1;
    options.onIdleClose?.();
  });
  return server;
}

/**
 * The idle rule and the cap, on what each socket is doing: which request, if any, it is serving is
 * tracked from 'request' to the response's 'close'. Node calls a server's 'timeout' listeners
 * instead of destroying the socket, so the decision is ours.
 */
function limitConnections(
  server: Server,
  idleTimeoutMs: number,
  caps: { budget: ConnectionBudget; addressCap: AddressCap },
  onIdleClose: (() => void) | undefined,
): void {
  const serving = new WeakMap<Socket, IncomingMessage>();
  /** Being answered: its request is in (the answer is computed or streamed by the route). */
  const answering = (socket: Socket): boolean => serving.get(socket)?.complete === true;
  // The address first: a client over its share must not push anyone's idle connection out.
  gateBeforeHttp(
    server,
    (socket) => caps.addressCap.admit(socket) && caps.budget.admit(socket, () => !answering(socket)),
  );
  server.on('request', (request: IncomingMessage, response) => {
    const socket = request.socket;
    serving.set(socket, request);
    response.once('close', () => {
      if (serving.get(socket) === request) serving.delete(socket);
    });
  });
  server.setTimeout(idleTimeoutMs);
  server.on('timeout', (socket: Socket) => {
    // Computing or streaming an answer the client reads: the route's own bounds apply.
    if (answering(socket) && socket.writableLength === 0) return;
    onIdleClose?.();
    socket.destroy();
  });
}

/**
 * Puts `admit` in front of the HTTP server's own 'connection' listener (the one http.Server
 * registers when it is made, which sets up the parser and the socket's timers): a refused socket
 * is reset there and never reaches HTTP. Node documents that 'connection' may be emitted by hand to
 * hand a socket to an HTTP server, which is all this does for the admitted ones.
 */
function gateBeforeHttp(server: Server, admit: (socket: Socket) => boolean): void {
  const httpListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (!admit(socket)) {
      socket.resetAndDestroy();
      return;
    }
    for (const listener of httpListeners) listener.call(server, socket);
  });
}

/** The variables of these limits, read by each HTTP service (docs/configuration.md, "HTTP servers"). */
export const HTTP_SERVER_ENV = {
  HTTP_IDLE_TIMEOUT_MS: {
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: DEFAULT_HTTP_SERVER_LIMITS.idleTimeoutMs,
    description: 'a connection silent this long with no request in progress, or a stalled one, is closed',
  },
  HTTP_HEADERS_TIMEOUT_MS: {
    type: 'integer',
    min: 100,
    max: 600_000,
    default: DEFAULT_HTTP_SERVER_LIMITS.headersTimeoutMs,
    description: 'the request head must arrive within this',
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: DEFAULT_HTTP_SERVER_LIMITS.requestTimeoutMs,
    description: 'the whole request, body included, must arrive within this (408)',
  },
  HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    type: 'integer',
    min: 100,
    max: 600_000,
    default: DEFAULT_HTTP_SERVER_LIMITS.keepAliveTimeoutMs,
    description: 'an idle keep-alive connection is closed after this',
  },
  HTTP_MAX_CONNECTIONS: {
    type: 'integer',
    min: 1,
    max: 10_000_000,
    unset: `half the process's open-file limit (\`ulimit -n\`), ${FALLBACK_MAX_CONNECTIONS} where it cannot be read`,
    description:
      'connections at once for all the API servers of the process; never more than half the open-file limit',
  },
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: {
    type: 'integer',
    min: 1,
    max: 10_000_000,
    default: DEFAULT_HTTP_SERVER_LIMITS.maxConnectionsPerAddress,
    description:
      'of those, connections at once from one client address; beyond it a connection is reset as it is accepted, before any HTTP parsing',
  },
} as const satisfies EnvSchema;

/** The limits the environment sets, as a service's `server` configuration section. */
export function httpServerConfigFromEnv(values: EnvValues<typeof HTTP_SERVER_ENV>): {
  idleTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections?: number;
  maxConnectionsPerAddress: number;
} {
  return {
    idleTimeoutMs: values.HTTP_IDLE_TIMEOUT_MS,
    headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxConnectionsPerAddress: values.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    ...(values.HTTP_MAX_CONNECTIONS === undefined ? {} : { maxConnections: values.HTTP_MAX_CONNECTIONS }),
  };
}
