/**
 * Up to 5 connections per client id, up to 5000 subscriptions each (spec limits): instruments are
 * sharded onto the connection with the most room, so 25,000 instruments spread evenly over 5
 * connections. Each instrument lives on exactly one connection per kind, which is what keeps its
 * order intact from socket to Kafka partition. A fatal error on one connection is fatal for the
 * credential, so the pool stops all of them and reports why. A refused token is the pool's to
 * renew, for all its connections at once (token-recovery.ts).
 */
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '@feedpipe/codec';
import { IngestorError } from '../errors.js';
import { type AttemptBudget, sharedAttemptBudget } from './attempt-budget.js';
import {
  type ConnectionState,
  FeedConnection,
  type FeedConnectionEvents,
  type FeedConnectionOptions,
  type FeedCredentials,
} from './feed-connection.js';
import { TokenRecovery } from './token-recovery.js';

export const MAX_CONNECTIONS_PER_CLIENT = 5;

export type SubscriptionKind = 'trade' | 'ohlc';

export interface ConnectionPoolOptions {
  url: string;
  credentials: FeedCredentials;
  /** Connections to open. Default 5 (the per-client maximum). */
  connections?: number;
  /** Subscriptions per connection. Default 5000 (the per-connection maximum). */
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

export class ConnectionPool {
  private readonly connections: FeedConnection[] = [];
  private readonly owner = {
    trade: new Map<string, FeedConnection>(),
    ohlc: new Map<string, FeedConnection>(),
  };
  private credentials: FeedCredentials;
  private readonly maxPerConnection: number;
  private fatalReason: string | undefined;

  constructor(options: ConnectionPoolOptions) {
    const count = options.connections ?? MAX_CONNECTIONS_PER_CLIENT;
    if (!Number.isInteger(count) || count < 1 || count > MAX_CONNECTIONS_PER_CLIENT) {
      throw new IngestorError(
        'CONFIG_INVALID',
        `connections must be 1..${MAX_CONNECTIONS_PER_CLIENT}, got ${count}`,
      );
    }
    this.maxPerConnection = options.maxSubscriptionsPerConnection ?? MAX_SUBSCRIPTIONS_PER_CONNECTION;
    if (this.maxPerConnection < 1 || this.maxPerConnection > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      throw new IngestorError(
        'CONFIG_INVALID',
        `maxSubscriptionsPerConnection must be 1..${MAX_SUBSCRIPTIONS_PER_CONNECTION}`,
      );
    }
    this.credentials = options.credentials;
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
        }),
      );
    }
  }

  get capacity(): number {
    return this.connections.length * this.maxPerConnection;
  }

  get fatal(): string | undefined {
    return this.fatalReason;
  }

  start(): void {
    for (const connection of this.connections) connection.start();
  }

  stop(): void {
    for (const connection of this.connections) connection.stop();
  }

  /** Adds instruments; throws SUBSCRIPTION_LIMIT (and subscribes nothing) if they do not all fit. */
  subscribe(kind: SubscriptionKind, securityIds: readonly string[]): void {
    const owners = this.owner[kind];
    const fresh = [...new Set(securityIds)].filter((id) => !owners.has(id));
    const room = this.connections.reduce((sum, c) => sum + (this.maxPerConnection - c.subscriptionCount), 0);
    if (fresh.length > room) {
      throw new IngestorError(
        'SUBSCRIPTION_LIMIT',
        `cannot subscribe ${fresh.length} more ${kind} instruments: ${room} slots left of ${this.capacity}`,
      );
    }
    const batches = new Map<FeedConnection, string[]>();
    for (const id of fresh) {
      let best = this.connections[0] as FeedConnection;
      let bestLoad = Number.POSITIVE_INFINITY;
      for (const c of this.connections) {
        const load = c.subscriptionCount + (batches.get(c)?.length ?? 0);
        if (load < bestLoad) {
          best = c;
          bestLoad = load;
        }
      }
      owners.set(id, best);
      const list = batches.get(best) ?? [];
      list.push(id);
      batches.set(best, list);
    }
    for (const [connection, ids] of batches) connection.subscribe(kind, ids);
  }

  unsubscribe(kind: SubscriptionKind, securityIds: readonly string[]): void {
    const owners = this.owner[kind];
    const batches = new Map<FeedConnection, string[]>();
    for (const id of securityIds) {
      const connection = owners.get(id);
      if (!connection) continue;
      owners.delete(id);
      const list = batches.get(connection) ?? [];
      list.push(id);
      batches.set(connection, list);
    }
    for (const [connection, ids] of batches) connection.unsubscribe(kind, ids);
  }

  /** New credentials (e.g. a renewed token): every connection reconnects cleanly with them. */
  updateCredentials(credentials: FeedCredentials): void {
    this.credentials = credentials;
    for (const connection of this.connections) connection.reconnectNow('token renewed', 'token_renewal');
  }

  setPaused(paused: boolean): void {
    for (const connection of this.connections) connection.setPaused(paused);
  }

  /** Every instrument held, by kind. */
  held(): { trade: Iterable<string>; ohlc: Iterable<string> } {
    return { trade: this.owner.trade.keys(), ohlc: this.owner.ohlc.keys() };
  }

  /** The instruments a connection holds, by kind (for the ledger of gaps). */
  instrumentsOf(index: number): { trade: ReadonlySet<string>; ohlc: ReadonlySet<string> } {
    const connection = this.connections[index];
    return connection
      ? { trade: connection.trade, ohlc: connection.ohlc }
      : { trade: new Set(), ohlc: new Set() };
  }

  snapshot(): ConnectionSnapshot[] {
    return this.connections.map((c) => ({
      index: c.index,
      state: c.state,
      reason: c.reason,
      trade: c.trade.size,
      ohlc: c.ohlc.size,
      reconnects: c.reconnects,
      lastDataAt: c.lastDataAt,
      stateSince: c.stateSince,
    }));
  }
}
