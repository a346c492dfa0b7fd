/**
 * The ledger of gaps, the ingestor's half: closed intervals (gap-tracker.ts) become one `gap`
 * record per instrument subscription the connection holds (GAP_LAYOUT of @feedpipe/contracts),
 * produced to the status topic keyed by security id; the sink stores them in market.feed_gaps.
 *
 * Off the hot path: gaps are rare and a record is small, so they go through a plain JSON producer of
 * their own, one send at a time in batches. Bounded: at most `maxPending` records wait for Kafka;
 * beyond that the oldest are dropped, counted and logged (a Kafka outage long enough for that has
 * left its own, larger mark). While Kafka is down sends are retried with capped backoff.
 */

import { SEGMENT_INX_EQ } from '@feedpipe/codec';
import { FEED_SCHEMA_IDS, type GapRecord, SCHEMA_HEADER } from '@feedpipe/contracts';
import { JsonProducer, type JsonRecord } from '@feedpipe/kafka-client';
import { Backoff, sleep } from '@feedpipe/retry';
import type { Counter, Gauge } from 'prom-client';
import { type GapInterval, GapTracker, type OpenGap } from './gap-tracker.js';

export interface GapLedgerOptions {
  brokers: readonly string[];
  /** The status topic. */
  topic: string;
  /** The instruments a connection holds now. */
  instrumentsOf: (connection: number) => { trade: ReadonlySet<string>; ohlc: ReadonlySet<string> };
  /**
   * When an instrument was subscribed (epoch ms): one subscribed while its connection's gap was
   * open misses only the part from then on. Unset: every instrument held for the whole gap.
   */
  subscribedAt?: (subscription: 'trade' | 'ohlc', securityId: string) => number | undefined;
  metrics: { gaps: Counter<'cause'>; gapRecordsPending: Gauge; gapRecordsDropped: Counter };
  log: (message: string) => void;
  /** Records waiting for Kafka at most. Default 1 000 000. */
  maxPending?: number;
}

/**
 * Records per send. A connection's gap is one record per instrument (up to 5,000), and a send
 * encodes its records on the event loop in one go: in slices this small the feed sockets' events
 * (a handover's next connection opening, above all) wait for one slice, not for all of them.
 */
const BATCH = 250;
/** Closed intervals kept for stats() (per connection, not per instrument). */
const RECENT = 50;
const HEADERS = Object.freeze({ [SCHEMA_HEADER]: FEED_SCHEMA_IDS.status });

export class GapLedger {
  readonly tracker: GapTracker;
  readonly #o: GapLedgerOptions;
  readonly #producer: JsonProducer;
  readonly #pending: JsonRecord[] = [];
  readonly #recent: GapInterval[] = [];
  #sending: Promise<void> | undefined;
  #closing = false;
  #written = 0;
  #dropped = 0;

  constructor(options: GapLedgerOptions) {
    this.#o = options;
    this.tracker = new GapTracker((interval) => this.#closed(interval));
    this.#producer = new JsonProducer({ brokers: options.brokers, clientId: 'feedpipe-ingestor-gaps' });
  }

  /** Gap records acknowledged by Kafka, waiting, dropped at the bound; the latest closed intervals. */
  stats(): { written: number; pending: number; dropped: number; recent: GapInterval[]; open: OpenGap[] } {
    return {
      written: this.#written,
      pending: this.#pending.length,
      dropped: this.#dropped,
      recent: this.#recent.map((g) => ({ ...g })),
      open: this.tracker.openGaps(),
    };
  }

  /** Adds intervals found outside the connections' own states (stale instruments). */
  record(interval: GapInterval): void {
    this.#closed(interval);
  }

  /**
   * Shutdown: open gaps end at `atMs`, then waits up to `timeoutMs` for Kafka to take what is
   * pending (what it does not take is reported).
   */
  async close(atMs: number, timeoutMs = 10_000): Promise<void> {
    this.tracker.closeAll(atMs);
    const deadline = Date.now() + timeoutMs;
    while (this.#pending.length > 0 && Date.now() < deadline) {
      this.#kick();
      await Promise.race([this.#sending, sleep(Math.max(0, deadline - Date.now()))]);
    }
    this.#closing = true;
    if (this.#pending.length > 0)
      this.#o.log(`${this.#pending.length} gap records not written to Kafka at shutdown`);
    await this.#producer.close();
  }

  #closed(interval: GapInterval): void {
    this.#o.metrics.gaps.inc({ cause: interval.cause });
    this.#recent.push(interval);
    if (this.#recent.length > RECENT) this.#recent.shift();
    const held = this.#o.instrumentsOf(interval.connection);
    for (const subscription of ['trade', 'ohlc'] as const) {
      // Walk the smaller side: one stale instrument need not visit the connection's 5000.
      const only = interval.only?.[subscription];
      const ids = only ?? held[subscription];
      for (const id of ids) {
        if (only && !held[subscription].has(id)) continue;
        // Intervals of chosen instruments (`only`) carry their own start; a connection's gap starts
        // for each instrument no earlier than its subscription.
        const since = only ? undefined : this.#o.subscribedAt?.(subscription, id);
        const startedAtMs = Math.max(interval.startedAtMs, since ?? 0);
        if (startedAtMs > interval.startedAtMs && startedAtMs >= interval.endedAtMs) continue;
        const record: GapRecord = {
          type: 'gap',
          segment: SEGMENT_INX_EQ,
          securityId: Number(id),
          subscription,
          cause: interval.cause,
          startedAt: startedAtMs * 1000,
          endedAt: interval.endedAtMs * 1000,
          connection: interval.connection,
        };
        this.#pending.push({ key: id, value: record, headers: HEADERS });
      }
    }
    const over = this.#pending.length - (this.#o.maxPending ?? 1_000_000);
    if (over > 0) {
      this.#pending.splice(0, over);
      if (this.#dropped === 0) this.#o.log(`gap records: ${over} dropped, Kafka has not taken them for long`);
      this.#dropped += over;
      this.#o.metrics.gapRecordsDropped.inc(over);
    }
    this.#o.metrics.gapRecordsPending.set(this.#pending.length);
    this.#kick();
  }

  #kick(): void {
    if (this.#sending || this.#closing || this.#pending.length === 0) return;
    this.#sending = this.#drain().finally(() => {
      this.#sending = undefined;
    });
  }

  /** Sends batch after batch until nothing is pending; a failed send waits and goes again. */
  async #drain(): Promise<void> {
    const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
    // Not inside the caller's turn: a gap closes while a socket event or a control message is
    // being handled, which should end before the first slice is encoded.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#pending.length > 0 && !this.#closing) {
      const batch = this.#pending.slice(0, BATCH);
      try {
        await this.#producer.send(this.#o.topic, batch);
        // Only what was sent leaves the queue: drops at the bound take from its front meanwhile.
        const sent = this.#pending.indexOf(batch[batch.length - 1] as JsonRecord);
        this.#pending.splice(0, sent + 1);
        this.#written += batch.length;
        backoff.reset();
      } catch (error) {
        const delay = backoff.next();
        if (backoff.attempts === 1)
          this.#o.log(`gap records: Kafka send failed (${(error as Error).message}); retrying`);
        await sleep(delay);
      }
      this.#o.metrics.gapRecordsPending.set(this.#pending.length);
    }
  }
}
