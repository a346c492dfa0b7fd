/**
 * Which instrument is subscribed on which connection, apart from the connections themselves.
 *
 * The spec allows 5,000 subscriptions per connection; each instrument lives on exactly one connection
 * per kind (that keeps its order intact from socket to Kafka partition). A new instrument goes to the
 * connection with the most room, so a universe spreads evenly. The book only decides and remembers:
 * sending the requests is the pool's job, and everything that needs to know what a connection holds
 * (the gap ledger, the stale watch, the repeat guard, the run state) reads it here, not through the pool.
 */
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '@feedpipe/codec';
import { IngestorError } from '../errors.js';

export type SubscriptionKind = 'trade' | 'ohlc';

export const SUBSCRIPTION_KINDS: readonly SubscriptionKind[] = ['trade', 'ohlc'];

/** The instruments one connection holds, by kind. */
export interface HeldByConnection {
  readonly trade: ReadonlySet<string>;
  readonly ohlc: ReadonlySet<string>;
}

/** What the book's readers need: the instruments of a connection, all of them, and since when. */
export interface SubscriptionView {
  instrumentsOf(connection: number): HeldByConnection;
  held(): { trade: string[]; ohlc: string[] };
  /** When the instrument was subscribed (epoch ms), undefined when it is not held. */
  subscribedAt(kind: SubscriptionKind, securityId: string): number | undefined;
}

/** Security ids per connection index: what to send where. */
export type Placement = Map<number, string[]>;

interface Entry {
  trade: Set<string>;
  ohlc: Set<string>;
}

const NOTHING: HeldByConnection = { trade: new Set(), ohlc: new Set() };

export class SubscriptionBook implements SubscriptionView {
  readonly maxPerConnection: number;
  readonly #entries: Entry[] = [];
  readonly #owner = { trade: new Map<string, number>(), ohlc: new Map<string, number>() };
  readonly #since = { trade: new Map<string, number>(), ohlc: new Map<string, number>() };

  constructor(connections: number, maxPerConnection: number = MAX_SUBSCRIPTIONS_PER_CONNECTION) {
    if (
      !Number.isInteger(maxPerConnection) ||
      maxPerConnection < 1 ||
      maxPerConnection > MAX_SUBSCRIPTIONS_PER_CONNECTION
    ) {
      throw new IngestorError(
        'CONFIG_INVALID',
        `maxSubscriptionsPerConnection must be 1..${MAX_SUBSCRIPTIONS_PER_CONNECTION}, got ${maxPerConnection}`,
      );
    }
    this.maxPerConnection = maxPerConnection;
    for (let i = 0; i < connections; i++) this.#entries.push({ trade: new Set(), ohlc: new Set() });
  }

  get connections(): number {
    return this.#entries.length;
  }

  get capacity(): number {
    return this.#entries.length * this.maxPerConnection;
  }

  /** Subscriptions of both kinds on one connection. */
  loadOf(connection: number): number {
    const entry = this.#entries[connection];
    return entry ? entry.trade.size + entry.ohlc.size : 0;
  }

  /** Subscriptions of one kind, all connections. */
  count(kind: SubscriptionKind): number {
    return this.#owner[kind].size;
  }

  has(kind: SubscriptionKind, securityId: string): boolean {
    return this.#owner[kind].has(securityId);
  }

  /**
   * Places the instruments not held yet, each on the connection with the most room; throws
   * SUBSCRIPTION_LIMIT (and places nothing) when they do not all fit. Returns what was placed where.
   * `atMs`: when they are subscribed (the ledger of gaps counts their gaps from then on).
   */
  add(kind: SubscriptionKind, securityIds: readonly string[], atMs: number = Date.now()): Placement {
    const owners = this.#owner[kind];
    const fresh = [...new Set(securityIds)].filter((id) => !owners.has(id));
    const room = this.capacity - this.#entries.reduce((sum, _e, i) => sum + this.loadOf(i), 0);
    if (fresh.length > room) {
      throw new IngestorError(
        'SUBSCRIPTION_LIMIT',
        `cannot subscribe ${fresh.length} more ${kind} instruments: ${room} slots left of ${this.capacity}`,
      );
    }
    const placement: Placement = new Map();
    for (const id of fresh) {
      const connection = this.#roomiest();
      owners.set(id, connection);
      this.#since[kind].set(id, atMs);
      (this.#entries[connection] as Entry)[kind].add(id);
      const list = placement.get(connection) ?? [];
      list.push(id);
      placement.set(connection, list);
    }
    return placement;
  }

  /**
   * Places instruments on one given connection (a handover's successor holds exactly what the old
   * leader's connection held). Those held already, anywhere, are skipped; SUBSCRIPTION_LIMIT (and
   * nothing placed) when the connection cannot take the rest.
   */
  place(
    connection: number,
    kind: SubscriptionKind,
    securityIds: readonly string[],
    atMs = Date.now(),
  ): string[] {
    const entry = this.#entries[connection];
    if (!entry) throw new IngestorError('INVALID_REQUEST', `no connection ${connection} in the book`);
    const owners = this.#owner[kind];
    const fresh = [...new Set(securityIds)].filter((id) => !owners.has(id));
    if (this.loadOf(connection) + fresh.length > this.maxPerConnection) {
      throw new IngestorError(
        'SUBSCRIPTION_LIMIT',
        `connection ${connection} cannot take ${fresh.length} more ${kind} instruments`,
      );
    }
    for (const id of fresh) {
      owners.set(id, connection);
      this.#since[kind].set(id, atMs);
      entry[kind].add(id);
    }
    return fresh;
  }

  /** Forgets the instruments held; returns which connection held each (the ones not held are skipped). */
  remove(kind: SubscriptionKind, securityIds: readonly string[]): Placement {
    const owners = this.#owner[kind];
    const placement: Placement = new Map();
    for (const id of securityIds) {
      const connection = owners.get(id);
      if (connection === undefined) continue;
      owners.delete(id);
      this.#since[kind].delete(id);
      (this.#entries[connection] as Entry)[kind].delete(id);
      const list = placement.get(connection) ?? [];
      list.push(id);
      placement.set(connection, list);
    }
    return placement;
  }

  instrumentsOf(connection: number): HeldByConnection {
    return this.#entries[connection] ?? NOTHING;
  }

  subscribedAt(kind: SubscriptionKind, securityId: string): number | undefined {
    return this.#since[kind].get(securityId);
  }

  /** The connection holding the instrument, undefined when it is not held. */
  connectionOf(kind: SubscriptionKind, securityId: string): number | undefined {
    return this.#owner[kind].get(securityId);
  }

  held(): { trade: string[]; ohlc: string[] } {
    return { trade: [...this.#owner.trade.keys()], ohlc: [...this.#owner.ohlc.keys()] };
  }

  /** The connection with the fewest subscriptions (the lowest index among equals). */
  #roomiest(): number {
    let best = 0;
    for (let i = 1; i < this.#entries.length; i++) if (this.loadOf(i) < this.loadOf(best)) best = i;
    return best;
  }
}
