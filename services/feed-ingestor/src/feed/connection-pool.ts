/**
 * Up to 5 connections per client id (spec limit), each holding what the subscription book placed on
 * it (subscription-book.ts: up to 5,000 each, on the connection with the most room). The pool carries
 * out the book's placements as subscribe and unsubscribe requests on the right connection. A fatal
 * error on one connection is fatal for the credential, so the pool stops all of them and reports
 * why. A refused token is the pool's to renew, for all its connections at once (token-recovery.ts).
 */
import { IngestorError } from '../errors.js';
import { type AttemptBudget, sharedAttemptBudget } from './attempt-budget.js';
import {
  type ConnectionState,
  FeedConnection,
  type FeedConnectionEvents,
  type FeedConnectionOptions,
  type FeedCredentials,
} from './feed-connection.js';
import { SocketThread } from './socket-thread.js';
import { type Placement, SubscriptionBook, type SubscriptionKind } from './subscription-book.js';
import { TokenRecovery } from './token-recovery.js';

export const MAX_CONNECTIONS_PER_CLIENT = 5;

export interface ConnectionPoolOptions {
  url: string;
  credentials: FeedCredentials;
  /** Connections to open. Default 5 (the per-client maximum). */
  connections?: number;
  /**
   * Which instrument is on which connection; its connection count must be `connections`. Default: a
   * book of its own with `maxSubscriptionsPerConnection` (default 5000, the per-connection maximum).
   */
  book?: SubscriptionBook;
  maxSubscriptionsPerConnection?: number;
  events: FeedConnectionEvents;
  /** Called once when the credential was refused for good. */
  onFatal?: (reason: string) => void;
  /** A refused token was renewed (`here`: by this process) and the connections are reconnecting. */
  onTokenRenewed?: (here: boolean) => void;
  /** The feed refused the token and no renewed one can come (`reason` says what to do); fatal follows. */
  onTokenUnrenewable?: (reason: string) => void;
  connection?: FeedConnectionTuning;
  /**
   * Hold the sockets on a thread of their own (socket-thread.ts) rather than this one. Default false
   * here; the ingestor turns it on.
   */
  socketThread?: boolean;
  /**
   * Connection attempts of the client id, shared by every connection. Default: the process-wide
   * budget of the client id (`sharedAttemptBudget`), so two pools of one client id share it too.
   */
  attemptBudget?: AttemptBudget;
}

/** The per-connection options a pool user may set. */
export type FeedConnectionTuning = Pick<
  FeedConnectionOptions,
  'staleTimeoutMs' | 'evictionBackoffMs' | 'evictionJitterMs' | 'random' | 'handshakeTimeoutMs'
>;

/**
 * Told a connection's new state, and since when it holds (epoch ms): for a socket's event, when the
 * socket's thread saw it, which may be well before this thread got to it.
 */
export type StateWatcher = (index: number, state: ConnectionState, sinceMs: number) => void;

export interface ConnectionSnapshot {
  index: number;
  state: ConnectionState;
  reason: string;
  trade: number;
  ohlc: number;
  reconnects: number;
  /** Epoch ms of the last market-data message, 0 before the first. */
  lastDataAt: number;
  /** Epoch ms since the connection is in `state`. */
  stateSince: number;
}

/** The number of connections to open, 1..5 (default 5); anything else is CONFIG_INVALID. */
function checkConnectionCount(connections: number = MAX_CONNECTIONS_PER_CLIENT): number {
  if (!Number.isInteger(connections) || connections < 1 || connections > MAX_CONNECTIONS_PER_CLIENT) {
    throw new IngestorError(
      'CONFIG_INVALID',
      `connections must be 1..${MAX_CONNECTIONS_PER_CLIENT}, got ${connections}`,
    );
  }
  return connections;
}

export class ConnectionPool {
  readonly book: SubscriptionBook;
  private readonly connections: FeedConnection[] = [];
  private credentials: FeedCredentials;
  private fatalReason: string | undefined;
  /** Connections started and not stopped since (a handover starts and stops them one at a time). */
  private readonly running = new Set<number>();
  private readonly stateWatchers = new Set<StateWatcher>();
  /** The sockets' thread, with `socketThread`. */
  private readonly socketThread: SocketThread | undefined;

  constructor(options: ConnectionPoolOptions) {
    const count = checkConnectionCount(options.connections);
    this.book = options.book ?? new SubscriptionBook(count, options.maxSubscriptionsPerConnection);
    if (this.book.connections !== count) {
      throw new IngestorError(
        'INTERNAL',
        `the subscription book has ${this.book.connections} connections, the pool ${count}`,
      );
    }
    this.credentials = options.credentials;
    this.socketThread = options.socketThread ? new SocketThread() : undefined;
    const budget = options.attemptBudget ?? sharedAttemptBudget(options.credentials.clientId);
    const recovery = new TokenRecovery({
      credentials: () => this.credentials,
      connections: this.connections,
      onRenewed: options.onTokenRenewed,
      onUnrenewable: options.onTokenUnrenewable,
    });
    const events: FeedConnectionEvents = {
      ...options.events,
      onTokenRefused: (index, code, token) => {
        options.events.onTokenRefused?.(index, code, token);
        recovery.refused(code, token);
      },
      onState: (index, state, reason) => {
        options.events.onState?.(index, state, reason);
        const connection = this.connections[index];
        for (const watcher of this.stateWatchers) watcher(index, state, connection?.stateSince ?? Date.now());
        if (state === 'renewing' && connection) recovery.renewing(connection);
        if (state === 'fatal' && this.fatalReason === undefined) {
          this.fatalReason = reason;
          for (const c of this.connections) if (c.index !== index) c.stop();
          options.onFatal?.(reason);
        }
      },
    };
    for (let index = 0; index < count; index++) {
      this.connections.push(
        new FeedConnection({
          ...options.connection,
          index,
          url: options.url,
          credentials: () => this.credentials,
          events,
          budget,
          subscriptions: this.book.instrumentsOf(index),
          ...(this.socketThread ? { openSocket: this.socketThread.open } : {}),
        }),
      );
    }
  }

  get capacity(): number {
    return this.book.capacity;
  }

  get fatal(): string | undefined {
    return this.fatalReason;
  }

  /** Starts the socket thread now rather than at the first socket (no thread: nothing to do). */
  warmSockets(): void {
    this.socketThread?.start();
  }

  /** Starts every connection not running yet. */
  start(): void {
    for (const connection of this.connections) this.startConnection(connection.index);
  }

  /** Stops every connection; the socket thread ends once their sockets have closed. */
  stop(): void {
    for (const connection of this.connections) this.stopConnection(connection.index);
    this.socketThread?.retire();
  }

  startConnection(index: number): void {
    const connection = this.connections[index];
    if (!connection || this.running.has(index)) return;
    this.running.add(index);
    connection.start();
  }

  /** Closes one connection for good (a handover moved it to another process). */
  stopConnection(index: number): void {
    this.running.delete(index);
    this.connections[index]?.stop();
  }

  isRunning(index: number): boolean {
    return this.running.has(index);
  }

  /** Told every state change of every connection; returns the way to stop being told. */
  watchStates(watcher: StateWatcher): () => void {
    this.stateWatchers.add(watcher);
    return () => this.stateWatchers.delete(watcher);
  }

  /** Adds instruments; throws SUBSCRIPTION_LIMIT (and subscribes nothing) if they do not all fit. */
  subscribe(kind: SubscriptionKind, securityIds: readonly string[]): Placement {
    const placed = this.book.add(kind, securityIds);
    for (const [index, ids] of placed) this.connections[index]?.sendSubscribe(kind, ids);
    return placed;
  }

  /** Removes instruments (those not held are skipped). */
  unsubscribe(kind: SubscriptionKind, securityIds: readonly string[]): Placement {
    const removed = this.book.remove(kind, securityIds);
    for (const [index, ids] of removed) this.connections[index]?.sendUnsubscribe(kind, ids);
    return removed;
  }

  /** New credentials (e.g. a renewed token): every connection reconnects cleanly with them. */
  updateCredentials(credentials: FeedCredentials): void {
    this.credentials = credentials;
    for (const connection of this.connections) connection.reconnectNow('token renewed', 'token_renewal');
  }

  setPaused(paused: boolean): void {
    for (const connection of this.connections) connection.setPaused(paused);
  }

  snapshot(): ConnectionSnapshot[] {
    return this.connections.map((c) => ({
      index: c.index,
      state: c.state,
      reason: c.reason,
      trade: this.book.instrumentsOf(c.index).trade.size,
      ohlc: this.book.instrumentsOf(c.index).ohlc.size,
      reconnects: c.reconnects,
      lastDataAt: c.lastDataAt,
      stateSince: c.stateSince,
    }));
  }
}
