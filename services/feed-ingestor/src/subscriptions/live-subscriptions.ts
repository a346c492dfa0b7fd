/**
 * Subscriptions changed while the ingestor runs: through the ops route, the watched universe file or
 * the library's `subscribe`/`unsubscribe`. A change is checked whole before anything moves (valid
 * security ids, none both added and removed, room for all of it within 5,000 per connection over
 * the pool's connections), then carried out: unsubscribed first (their
 * room is free for what comes), then each new instrument placed on the connection with the most room
 * (the subscription book), in feed requests of at most 100 instruments (the codec splits them).
 *
 * Kept right in the ledger of gaps: an instrument removed while its connection's gap is open gets
 * that gap up to the removal (the connection's own gap, written when it closes, no longer holds it);
 * one added counts its gaps and its quiet time from its subscription (subscription-book.ts). A
 * re-added instrument's snapshot repeats a trade produced already: the repeat guard expects it.
 * Counted (ingestor_subscription_changes_total) and saved as overrides of the universe
 * (overrides-file.ts), so a restart subscribes the same.
 */
import { IngestorError } from '../errors.js';
import type { ConnectionPool } from '../feed/connection-pool.js';
import type { SubscriptionBook, SubscriptionKind } from '../feed/subscription-book.js';
import type { GapLedger } from '../gaps/gap-ledger.js';
import type { IngestorMetrics } from '../ingestor-metrics.js';
import type { TradeMemory } from '../pipeline/trade-memory.js';
import type { OverridesFile } from './overrides-file.js';
import type { Overrides, SubscriptionDiff, SubscriptionPlan } from './subscription-plan.js';

export type ChangeSource = 'ops_route' | 'universe_file' | 'api';

/** The feed's security ids are int32 (the packet header): 1..2^31-1, written in decimal. */
const SECURITY_ID = /^[1-9]\d{0,9}$/;
const MAX_SECURITY_ID = 2 ** 31 - 1;

export interface ChangeOutcome {
  kind: SubscriptionKind;
  /** Newly subscribed. */
  added: string[];
  /** Unsubscribed. */
  removed: string[];
  /** Subscriptions held after the change, by kind. */
  held: Record<SubscriptionKind, number>;
}

export interface LiveSubscriptionsDeps {
  /** What to subscribe at start (the universe with the saved overrides). */
  plan: SubscriptionPlan;
  book: SubscriptionBook;
  pool: ConnectionPool;
  ledger: GapLedger;
  trades: TradeMemory;
  metrics: IngestorMetrics;
  /** Where the overrides are saved; unset: not kept across restarts. */
  file: OverridesFile | undefined;
  /** Told the overrides after every change (a leader tells its standbys). */
  changed?: (overrides: Overrides) => void;
  log: (message: string) => void;
}

const NONE: ReadonlySet<string> = new Set();

export class LiveSubscriptions {
  readonly #d: LiveSubscriptionsDeps;
  #plan: SubscriptionPlan;

  constructor(deps: LiveSubscriptionsDeps) {
    this.#d = deps;
    this.#plan = deps.plan;
  }

  /** At start: everything the plan holds (the universe with the saved overrides). */
  subscribePlanned(): void {
    for (const kind of ['trade', 'ohlc'] as const) {
      const ids = this.#plan.effective(kind);
      if (ids.length > 0) this.#d.pool.subscribe(kind, ids);
    }
    this.#refreshGauge();
  }

  /** Adds and removes instruments of `kind`; throws INVALID_REQUEST or SUBSCRIPTION_LIMIT, changing nothing. */
  change(
    kind: SubscriptionKind,
    add: readonly string[],
    remove: readonly string[],
    source: ChangeSource,
  ): ChangeOutcome {
    this.#check(add, remove);
    const next = this.#plan.copy();
    return this.#commit(kind, next, next.change(kind, add, remove), source);
  }

  /** The universe of `kind` now holds `ids` (the universe file changed). */
  setUniverse(kind: SubscriptionKind, ids: readonly string[]): ChangeOutcome {
    this.#check(ids, []);
    const next = this.#plan.copy();
    return this.#commit(kind, next, next.setUniverse(kind, ids), 'universe_file');
  }

  overrides(): Overrides {
    return this.#plan.overrides();
  }

  /**
   * A standby takes its leader's overrides (changes made through the leader's ops route), kept in
   * its own file, so it subscribes the same when it leads. Nothing is subscribed now: a standby
   * holds no connection.
   */
  adoptOverrides(overrides: Overrides): void {
    this.#plan = this.#plan.withOverrides(overrides);
    void this.#d.file?.save(overrides);
  }

  /** The change tried on a copy of the plan goes ahead only when all of it fits. */
  #commit(
    kind: SubscriptionKind,
    next: SubscriptionPlan,
    diff: SubscriptionDiff,
    source: ChangeSource,
  ): ChangeOutcome {
    this.#checkRoom(kind, diff);
    this.#plan = next;
    return this.#apply(kind, diff, source);
  }

  #check(add: readonly string[], remove: readonly string[]): void {
    const refuse = (message: string): never => {
      this.#d.metrics.subscriptionChangesRefused.inc({ reason: 'invalid' });
      throw new IngestorError('INVALID_REQUEST', message);
    };
    for (const id of [...add, ...remove]) {
      if (typeof id !== 'string' || !SECURITY_ID.test(id) || Number(id) > MAX_SECURITY_ID)
        refuse(`"${String(id).slice(0, 20)}" is not a security id (a decimal integer 1..${MAX_SECURITY_ID})`);
    }
    const removing = new Set(remove);
    const both = add.find((id) => removing.has(id));
    if (both !== undefined) refuse(`${both} is both added and removed`);
  }

  #checkRoom(kind: SubscriptionKind, diff: SubscriptionDiff): void {
    const { book } = this.#d;
    const room = book.capacity - book.count('trade') - book.count('ohlc') + diff.remove.length;
    if (diff.add.length <= room) return;
    this.#d.metrics.subscriptionChangesRefused.inc({ reason: 'limit' });
    throw new IngestorError(
      'SUBSCRIPTION_LIMIT',
      `cannot subscribe ${diff.add.length} more ${kind} instruments: ${room} slots left of ${book.capacity} (${book.connections} connections x ${book.maxPerConnection})`,
    );
  }

  #apply(kind: SubscriptionKind, diff: SubscriptionDiff, source: ChangeSource): ChangeOutcome {
    const { pool, metrics } = this.#d;
    if (diff.remove.length > 0) {
      this.#endOpenGaps(kind, diff.remove, Date.now());
      pool.unsubscribe(kind, diff.remove);
      metrics.subscriptionChanges.inc({ kind, action: 'remove', source }, diff.remove.length);
    }
    if (diff.add.length > 0) {
      const placed = pool.subscribe(kind, diff.add);
      if (kind === 'trade')
        for (const [connection, ids] of placed) this.#d.trades.subscribed(connection, ids);
      metrics.subscriptionChanges.inc({ kind, action: 'add', source }, diff.add.length);
    }
    if (diff.add.length + diff.remove.length > 0) {
      this.#refreshGauge();
      const overrides = this.#plan.overrides();
      void this.#d.file?.save(overrides);
      this.#d.changed?.(overrides);
      this.#d.log(
        `subscriptions (${source}): ${kind} +${diff.add.length} -${diff.remove.length}; now ${this.#d.book.count(kind)}`,
      );
    }
    return {
      kind,
      added: diff.add,
      removed: diff.remove,
      held: { trade: this.#d.book.count('trade'), ohlc: this.#d.book.count('ohlc') },
    };
  }

  /**
   * Instruments about to be removed from connections whose gap is open: their share of that gap
   * ends now (from their subscription at the earliest), written while the book still holds them.
   */
  #endOpenGaps(kind: SubscriptionKind, ids: readonly string[], atMs: number): void {
    const open = new Map(this.#d.ledger.tracker.openGaps().map((g) => [g.connection, g]));
    if (open.size === 0) return;
    const { book } = this.#d;
    const groups = new Map<string, { connection: number; startedAtMs: number; ids: Set<string> }>();
    for (const id of ids) {
      const connection = book.connectionOf(kind, id);
      const gap = connection === undefined ? undefined : open.get(connection);
      if (connection === undefined || !gap) continue;
      const startedAtMs = Math.max(gap.startedAtMs, book.subscribedAt(kind, id) ?? 0);
      const key = `${connection}:${startedAtMs}`;
      const group = groups.get(key) ?? { connection, startedAtMs, ids: new Set<string>() };
      group.ids.add(id);
      groups.set(key, group);
    }
    for (const { connection, startedAtMs, ids: only } of groups.values()) {
      const cause = open.get(connection)?.cause ?? 'connection_down';
      this.#d.ledger.record({
        connection,
        cause,
        startedAtMs,
        endedAtMs: Math.max(atMs, startedAtMs),
        only: kind === 'trade' ? { trade: only, ohlc: NONE } : { trade: NONE, ohlc: only },
      });
    }
  }

  #refreshGauge(): void {
    for (const kind of ['trade', 'ohlc'] as const)
      this.#d.metrics.subscriptions.set({ kind }, this.#d.book.count(kind));
  }
}
