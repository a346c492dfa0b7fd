/**
 * The stopping leader's half of a planned handover (the successor's: handover-successor.ts). The
 * leader offers its connections; the first standby to claim takes them one at a time, oldest first.
 * The successor opens its connection for the next one as soon as the previous one is closed:
 *
 * - **spare** (the client id has a free connection slot: this process uses fewer than 5): the
 *   successor's connection is the 5th; the leader closes its own once the successor's is live.
 *   Make-before-break: every trade reaches one process or both; none is missed.
 * - **no spare** (all 5 in use): the successor's connection is the 6th, and the service evicts the
 *   client's oldest with 805 (the spec's rule), which is the leader's connection being handed over:
 *   offered oldest first, each one is the oldest left when its turn comes. The leader takes that
 *   805 as its close. The instruments are live nowhere from the eviction to the successor's first
 *   frame: its subscription round trip, recorded in the ledger. Should the service evict another
 *   connection, the handover stops (the rest moves by failover).
 *
 * After closing a connection the leader waits until Kafka acknowledged everything it read there and
 * sends the cut: each instrument's last trade produced (and the connection's quantity bases). The
 * successor produces only what is newer, so what both processes read during the overlap goes to
 * Kafka once, and reckons its trades' quantities from where the leader's stopped. The leader records no gap of
 * its own for a connection handed over (the successor records the handover's).
 */

import { randomUUID } from 'node:crypto';
import { MAX_CONNECTIONS_PER_CLIENT } from '../feed/connection-pool.js';
import type { BaseEntry } from '../pipeline/quantity-bases.js';
import type { ControlInbox } from './control-inbox.js';
import type { ControlMessage, HandoverConnection } from './control-messages.js';

export type HandoverOutcome = 'done' | 'unclaimed' | 'aborted';

export interface HandoverLeaderDeps {
  member: string;
  send: (message: ControlMessage) => Promise<void>;
  inbox: ControlInbox;
  pool: {
    snapshot(): Array<{ index: number; state: string; stateSince: number }>;
    isRunning(index: number): boolean;
    stopConnection(index: number): void;
    watchStates(watcher: (index: number, state: string, sinceMs: number) => void): () => void;
  };
  book: {
    connections: number;
    instrumentsOf(connection: number): { trade: ReadonlySet<string>; ohlc: ReadonlySet<string> };
  };
  drainConnection: (connection: number) => Promise<void>;
  lastTradesOf: (securityIds: Iterable<string>) => Array<[number, number, number]>;
  /** The connection's quantity bases, settled once it is drained. */
  basesOf: (connection: number) => BaseEntry[];
  /** The connection is the successor's from now on: no gap of this process's. */
  release: (connection: number) => void;
  /** How long to wait for a claim. */
  claimMs: number;
  /** How long to wait for the successor's connection to be live, each. Default 15 000 ms. */
  stepMs?: number;
  log: (message: string) => void;
}

/** The running connections, oldest first (the order the service would evict them in). */
function offeredConnections(deps: HandoverLeaderDeps): HandoverConnection[] {
  return deps.pool
    .snapshot()
    .filter((c) => deps.pool.isRunning(c.index))
    .sort(
      (a, b) => (a.state === 'open' ? 0 : 1) - (b.state === 'open' ? 0 : 1) || a.stateSince - b.stateSince,
    )
    .map((c) => {
      const held = deps.book.instrumentsOf(c.index);
      return { index: c.index, trade: [...held.trade], ohlc: [...held.ohlc] };
    });
}

/** Offers the connections and hands them over one by one; resolves when the leader holds none. */
export async function handOverConnections(deps: HandoverLeaderDeps): Promise<HandoverOutcome> {
  const id = randomUUID();
  const connections = offeredConnections(deps);
  if (connections.length === 0) return 'unclaimed';
  const spare = deps.book.connections < MAX_CONNECTIONS_PER_CLIENT;
  const stepMs = deps.stepMs ?? 15_000;
  const ofThis =
    <T extends ControlMessage['type']>(type: T, connection?: number) =>
    (m: ControlMessage): boolean =>
      m.type === type &&
      'id' in m &&
      m.id === id &&
      (connection === undefined || ('connection' in m && m.connection === connection));

  // Every answer of this handover is looked for from the offer on: a successor may answer for the
  // next connection before this loop reaches it (it opens that one as soon as a slot is free).
  const from = deps.inbox.mark();
  await deps.send({ type: 'handover-offer', id, from: deps.member, spare, connections });
  const claim = await deps.inbox.next(ofThis('handover-claim'), deps.claimMs, from);
  if (claim?.type !== 'handover-claim') {
    deps.log(`handover: no standby claimed the connections within ${deps.claimMs} ms; stopping without one`);
    return 'unclaimed';
  }
  deps.log(
    `handover: ${claim.by} takes over ${connections.length} connections (${spare ? 'spare slot, make-before-break' : "no spare slot: each of its connections evicted by the successor's, 805"})`,
  );
  const live = (index: number) => deps.inbox.next(ofThis('handover-ready', index), stepMs, from);
  const evictions = new EvictionWatch(deps.pool);
  try {
    for (const { index } of connections) {
      let closedAtMs: number;
      if (spare) {
        if (!(await live(index)))
          return abort(deps, id, `the successor's connection ${index} was not live within ${stepMs} ms`);
        closedAtMs = Date.now();
      } else {
        const evicted = await evictions.next(stepMs);
        if (evicted?.index !== index) {
          const what = evicted
            ? `evicted connection ${evicted.index}`
            : `evicted nothing within ${stepMs} ms`;
          return abort(deps, id, `the service ${what} where connection ${index} (the oldest) was due`);
        }
        closedAtMs = evicted.atMs;
      }
      deps.release(index);
      deps.pool.stopConnection(index);
      await deps.send({ type: 'handover-closed', id, connection: index, closedAtMs });
      await deps.drainConnection(index);
      const held = deps.book.instrumentsOf(index);
      await deps.send({
        type: 'handover-cut',
        id,
        connection: index,
        last: deps.lastTradesOf(held.trade),
        bases: deps.basesOf(index),
      });
    }
  } finally {
    evictions.stop();
  }
  await deps.send({ type: 'handover-done', id });
  return 'done';
}

/** The leader's connections evicted with 805 since the handover began, in order. */
class EvictionWatch {
  readonly #seen: Array<{ index: number; atMs: number }> = [];
  readonly #unwatch: () => void;
  #taken = 0;

  constructor(pool: HandoverLeaderDeps['pool']) {
    this.#unwatch = pool.watchStates((index, state, sinceMs) => {
      if (state === 'evicted') this.#seen.push({ index, atMs: sinceMs });
    });
  }

  /** The next eviction not taken yet; undefined after `timeoutMs`. Polls: a handover step is rare. */
  async next(timeoutMs: number): Promise<{ index: number; atMs: number } | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#taken >= this.#seen.length) {
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.#seen[this.#taken++];
  }

  stop(): void {
    this.#unwatch();
  }
}

async function abort(deps: HandoverLeaderDeps, id: string, why: string): Promise<HandoverOutcome> {
  deps.log(`handover aborted: ${why}; the successor takes the rest over once this process left`);
  await deps.send({ type: 'handover-abort', id, why }).catch(() => undefined);
  return 'aborted';
}
