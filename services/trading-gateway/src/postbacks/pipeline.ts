/**
 * The receiver's hand-off. `accept` writes the update to the write-ahead log and resolves only
 * once it is synced there: that is the moment the receiver may answer 202. Accepted records then
 * wait in memory (bounded by the log's limits) and are flushed in batches of log order: first to
 * Kafka, then to ClickHouse, then to live stream subscribers; the log is told after each step, so
 * a restart neither loses a record nor sends it to Kafka again once Kafka acknowledged it.
 *
 * Exactly once in the table, by construction: before each insert the batch's event keys are
 * looked up in the table and only the missing ones are inserted, so a batch replayed after a
 * crash between the insert and the log's checkpoint (or retried after an insert whose answer was
 * lost) cannot add a row twice. Kafka gets each record at least once, with the same `eventKey` and
 * `seq` on a repeat (only a crash between Kafka's ack and the checkpoint can repeat one).
 *
 * A record that cannot be stored must not stop the others: each is serialised on its own first
 * (a failure there is the record's fault), and a batch that keeps failing in ClickHouse is split
 * until the failing record is alone; if ClickHouse then answers a probe, that record goes to the
 * dead-letter table with the reason and its raw body, and the rest go on.
 */
import { Backoff } from '@feedpipe/retry';
import { PostbackError } from './errors.js';
import { type OrderEvent, toOrderEvent } from './order-event.js';
import type { SeenKeys } from './seen-keys.js';
import type { WalStats, WriteAheadLog } from './wal.js';
import type { WalRecord } from './wal-record.js';

/** One record ready for the sinks. */
export interface PreparedEvent {
  readonly event: OrderEvent;
  readonly seq: number;
  /** The `orders.updates` value. */
  readonly wire: string;
  /** The order-events row. */
  readonly row: unknown[];
}

export interface DeadLetter {
  readonly seq: number;
  readonly receivedAtMs: number;
  readonly source: string;
  readonly stage: 'parse' | 'serialize' | 'store';
  readonly reason: string;
  readonly body: string;
}

export interface EventSinks {
  /** Builds the Kafka value and the table row; throws when the record cannot be serialised. */
  prepare(event: OrderEvent, seq: number): PreparedEvent;
  kafka(events: readonly PreparedEvent[]): Promise<void>;
  /** Which of these event keys the table holds already. */
  storedKeys(events: readonly PreparedEvent[]): Promise<Set<string>>;
  clickhouse(events: readonly PreparedEvent[]): Promise<void>;
  deadLetters(letters: readonly DeadLetter[]): Promise<void>;
  /** Answers whether ClickHouse takes queries at all (tells a sick store from a poisoned record). */
  probe(): Promise<boolean>;
  /** Told after the rows are stored (only rows that were new). */
  published(events: readonly PreparedEvent[]): void;
}

export interface PipelineOptions {
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  /** Largest wait between retries of a failed batch. */
  readonly retryMaxMs: number;
}

export type AcceptResult = 'accepted' | 'duplicate' | 'full';

export interface PipelineStats {
  accepted: number;
  duplicates: number;
  /** Refused with 503 because the log was full. */
  queueFull: number;
  /** Records stored in ClickHouse (new rows). */
  persisted: number;
  /** Records that were in the table already when their batch was written (replays). */
  alreadyStored: number;
  deadLetters: number;
  batches: number;
  persistErrors: number;
  /** Accepted and not yet stored. */
  queued: number;
  /** Receive time of the oldest record not yet stored (epoch ms), undefined when none. */
  oldestPendingMs: number | undefined;
  /** Records handed back by the log on start. */
  replayed: number;
  lastError: string | undefined;
  wal: WalStats;
}

interface Item {
  readonly record: WalRecord;
  /** Undefined when the body could not be read back (dead-lettered). */
  readonly event: OrderEvent | undefined;
  readonly parseError?: string;
}

/** Failed attempts of a batch of several records before it is split in two. */
const SPLIT_AFTER = 3;
/**
 * Failed attempts of a single record before it may be dead-lettered (and only if ClickHouse
 * answers a probe meanwhile): high enough that a passing overload is waited out.
 */
const POISON_AFTER = 5;

export class OrderEventPipeline {
  private queue: Item[] = [];
  private batch: { items: Item[]; failures: number; backoff: Backoff } | undefined;
  private readonly appending = new Map<string, Promise<boolean>>();
  private draining: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wake: (() => void) | undefined;
  private closed = false;
  private readonly counters = {
    accepted: 0,
    duplicates: 0,
    queueFull: 0,
    persisted: 0,
    alreadyStored: 0,
    deadLetters: 0,
    batches: 0,
    persistErrors: 0,
    replayed: 0,
  };
  private lastError: string | undefined;

  constructor(
    private readonly options: PipelineOptions,
    private readonly seen: SeenKeys,
    private readonly wal: WriteAheadLog,
    private readonly sinks: EventSinks,
  ) {}

  stats(): PipelineStats {
    const head = this.batch?.items[0] ?? this.queue[0];
    return {
      ...this.counters,
      queued: this.queue.length + (this.batch?.items.length ?? 0),
      oldestPendingMs: head?.record.receivedAtMs,
      lastError: this.lastError,
      wal: this.wal.stats(),
    };
  }

  /** Queues what the log handed back on start (in log order), ahead of anything new. */
  restore(records: readonly WalRecord[]): void {
    for (const record of records) {
      let item: Item;
      try {
        const body = JSON.parse(record.body) as Record<string, unknown>;
        const event = toOrderEvent(body, record.source, record.receivedAtMs);
        this.seen.add(event.eventKey);
        item = { record, event };
      } catch (error) {
        item = { record, event: undefined, parseError: `cannot read the body back: ${message(error)}` };
      }
      this.queue.push(item);
      this.counters.replayed += 1;
    }
    if (this.queue.length > 0) this.kick();
  }

  /**
   * Resolves once the update is durable ('accepted'), or known already ('duplicate'), or
   * 'full' (the log has no room: answer 503). Rejects with POSTBACK_WAL_FAILED when the disk fails.
   */
  async accept(event: OrderEvent, body: string): Promise<AcceptResult> {
    const key = event.eventKey;
    const inflight = this.appending.get(key);
    // The same update arriving twice at once: the second is a duplicate only once the first is durable.
    if (inflight && (await inflight)) {
      this.counters.duplicates += 1;
      return 'duplicate';
    }
    if (this.seen.has(key)) {
      this.counters.duplicates += 1;
      return 'duplicate';
    }
    if (this.closed) {
      this.counters.queueFull += 1;
      return 'full';
    }
    const appended = this.wal.append(event.source, Math.floor(event.receivedAtUs / 1000), body);
    const settled = appended.then(
      () => true,
      () => false,
    );
    this.appending.set(key, settled);
    let record: WalRecord;
    try {
      record = await appended;
    } catch (error) {
      if (error instanceof PostbackError && error.code === 'POSTBACK_BUSY') {
        this.counters.queueFull += 1;
        return 'full';
      }
      throw error;
    } finally {
      if (this.appending.get(key) === settled) this.appending.delete(key);
    }
    this.seen.add(key);
    this.queue.push({ record, event });
    this.counters.accepted += 1;
    if (this.queue.length >= this.options.batchSize) this.kick();
    else if (this.timer === undefined && this.draining === undefined) {
      this.timer = setTimeout(() => this.kick(), this.options.flushIntervalMs);
      this.timer.unref?.();
    }
    return 'accepted';
  }

  /** Resolves once everything accepted so far is stored; PostbackError after `timeoutMs`. */
  async flush(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length > 0 || this.batch !== undefined) {
      if (this.closed) throw new PostbackError('POSTBACK_PERSIST_FAILED', 'pipeline closed before flushing');
      if (Date.now() >= deadline) {
        throw new PostbackError(
          'POSTBACK_PERSIST_FAILED',
          `not flushed within ${timeoutMs} ms: ${this.lastError ?? 'still writing'}`,
          { retryable: true },
        );
      }
      this.kick();
      await Promise.race([this.draining, new Promise((r) => setTimeout(r, 50))]);
    }
  }

  /**
   * Tries to flush for up to `graceMs`, then stops. Whatever is left stays in the log and is
   * replayed on the next start; answers how many records that is.
   */
  async close(graceMs = 5_000): Promise<number> {
    await this.flush(graceMs).catch(() => undefined);
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.draining;
    await Promise.all([...this.appending.values()]);
    await this.wal.close();
    return this.queue.length + (this.batch?.items.length ?? 0);
  }

  private kick(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // A running drain picks up whatever is queued before it ends; waking it from a retry wait
    // would defeat the backoff while Kafka or ClickHouse is down.
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (!this.closed) {
      if (!this.batch) {
        if (this.queue.length === 0) return;
        this.batch = {
          items: this.queue.splice(0, this.options.batchSize),
          failures: 0,
          backoff: this.backoff(),
        };
      }
      const batch = this.batch;
      try {
        await this.write(batch.items, batch.items.length === 1 && batch.failures >= POISON_AFTER);
      } catch (error) {
        batch.failures += 1;
        this.counters.persistErrors += 1;
        this.lastError = message(error);
        if (batch.failures >= SPLIT_AFTER && batch.items.length > 1) {
          // Split: the second half goes back to the front of the queue, in order.
          const half = Math.ceil(batch.items.length / 2);
          this.queue.unshift(...batch.items.slice(half));
          this.batch = { items: batch.items.slice(0, half), failures: 0, backoff: this.backoff() };
          continue;
        }
        await this.sleep(batch.backoff.next());
        continue;
      }
      this.batch = undefined;
    }
  }

  /** Writes one batch; `suspect` (a single record that failed repeatedly) may be dead-lettered. */
  private async write(items: readonly Item[], suspect: boolean): Promise<void> {
    const good: PreparedEvent[] = [];
    const dead: DeadLetter[] = [];
    const inBatch = new Set<string>();
    for (const item of items) {
      const { record, event } = item;
      const letter = (stage: DeadLetter['stage'], reason: string): DeadLetter => ({
        seq: record.seq,
        receivedAtMs: record.receivedAtMs,
        source: record.source,
        stage,
        reason,
        body: record.body,
      });
      if (!event) {
        dead.push(letter('parse', item.parseError ?? 'cannot read the body back'));
        continue;
      }
      // A delivery logged twice (a failed sync whose record still reached the disk, then the resend).
      if (inBatch.has(event.eventKey)) continue;
      inBatch.add(event.eventKey);
      try {
        good.push(this.sinks.prepare(event, record.seq));
      } catch (error) {
        dead.push(letter('serialize', `cannot serialise: ${message(error)}`));
      }
    }
    const last = items[items.length - 1]?.record.seq ?? 0;
    const toKafka = good.filter((p) => p.seq > this.wal.kafkaThrough);
    if (toKafka.length > 0) await this.sinks.kafka(toKafka);
    this.wal.markKafka(last);
    let fresh: PreparedEvent[] = [];
    if (good.length > 0) {
      const stored = await this.sinks.storedKeys(good);
      fresh = good.filter((p) => !stored.has(p.event.eventKey));
      this.counters.alreadyStored += good.length - fresh.length;
      try {
        await this.sinks.clickhouse(fresh);
      } catch (error) {
        const only = fresh[0];
        if (!suspect || fresh.length !== 1 || !only || !(await this.sinks.probe().catch(() => false)))
          throw error;
        // ClickHouse answers, yet refuses this one record again and again: it is the record.
        const item = items.find((i) => i.record.seq === only.seq);
        if (!item) throw error;
        dead.push({
          seq: only.seq,
          receivedAtMs: item.record.receivedAtMs,
          source: item.record.source,
          stage: 'store',
          reason: `ClickHouse refused the row: ${message(error)}`,
          body: item.record.body,
        });
        fresh = [];
      }
    }
    if (dead.length > 0) await this.sinks.deadLetters(dead);
    this.counters.batches += 1;
    this.counters.persisted += fresh.length;
    this.counters.deadLetters += dead.length;
    this.wal.markStored(
      last,
      items.length,
      items.reduce((n, i) => n + i.record.bytes, 0),
    );
    if (fresh.length > 0) this.sinks.published(fresh);
  }

  /** A batch's retry pacing: 100 ms doubling up to `retryMaxMs`, jittered in its upper half. */
  private backoff(): Backoff {
    return new Backoff({ initialMs: 100, maxMs: this.options.retryMaxMs, floor: 0.5 });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    }).then(() => {
      this.wake = undefined;
    });
  }
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
