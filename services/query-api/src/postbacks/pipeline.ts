/**
 * The receiver's hand-off: accepted events wait in a bounded in-memory queue and are flushed in
 * batches, first to Kafka, then to ClickHouse, then to live stream subscribers. One batch is in
 * flight at a time, so per order id the order of acceptance is the order in Kafka, in the table's
 * arrival columns and on the stream. A batch that fails is kept and retried with capped backoff
 * (the Kafka step is not repeated once it succeeded); meanwhile the queue fills, and at
 * `maxQueue` the receiver answers 503 so the sender retries later: backpressure, never silent loss.
 */
import { PostbackError } from './errors.js';
import type { OrderEvent } from './order-event.js';
import type { SeenKeys } from './seen-keys.js';

export interface EventSinks {
  kafka(events: readonly OrderEvent[], firstSeq: number): Promise<void>;
  clickhouse(events: readonly OrderEvent[], firstSeq: number): Promise<void>;
  /** Told after both writes succeeded. */
  published(events: readonly OrderEvent[], firstSeq: number): void;
}

export interface PipelineOptions {
  readonly maxQueue: number;
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  /** Largest wait between retries of a failed batch. */
  readonly retryMaxMs: number;
}

export type AcceptResult = 'accepted' | 'duplicate' | 'full';

export interface PipelineStats {
  accepted: number;
  duplicates: number;
  /** Refused with 503 because the queue was full. */
  queueFull: number;
  /** Events written to Kafka and ClickHouse. */
  persisted: number;
  batches: number;
  persistErrors: number;
  /** Waiting plus in the batch being written. */
  queued: number;
  lastError: string | undefined;
}

interface Batch {
  readonly events: OrderEvent[];
  readonly firstSeq: number;
  kafkaDone: boolean;
}

export class OrderEventPipeline {
  private queue: OrderEvent[] = [];
  private batch: Batch | undefined;
  private seq = 0;
  private draining: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wake: (() => void) | undefined;
  private closed = false;
  private readonly counters = {
    accepted: 0,
    duplicates: 0,
    queueFull: 0,
    persisted: 0,
    batches: 0,
    persistErrors: 0,
  };
  private lastError: string | undefined;

  constructor(
    private readonly options: PipelineOptions,
    private readonly seen: SeenKeys,
    private readonly sinks: EventSinks,
  ) {}

  stats(): PipelineStats {
    return {
      ...this.counters,
      queued: this.queue.length + (this.batch?.events.length ?? 0),
      lastError: this.lastError,
    };
  }

  accept(event: OrderEvent): AcceptResult {
    if (this.seen.has(event.eventKey)) {
      this.counters.duplicates += 1;
      return 'duplicate';
    }
    if (this.closed || this.queue.length >= this.options.maxQueue) {
      this.counters.queueFull += 1;
      return 'full';
    }
    this.seen.add(event.eventKey);
    this.queue.push(event);
    this.counters.accepted += 1;
    if (this.queue.length >= this.options.batchSize) this.kick();
    else if (this.timer === undefined && this.draining === undefined) {
      this.timer = setTimeout(() => this.kick(), this.options.flushIntervalMs);
      this.timer.unref?.();
    }
    return 'accepted';
  }

  /** Resolves once everything accepted so far is persisted; PostbackError after `timeoutMs`. */
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

  /** Tries to flush for up to `graceMs`, then stops; whatever is left is reported, not written. */
  async close(graceMs = 5_000): Promise<number> {
    await this.flush(graceMs).catch(() => undefined);
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.draining;
    return this.queue.length + (this.batch?.events.length ?? 0);
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
    let failures = 0;
    while (!this.closed) {
      if (!this.batch) {
        if (this.queue.length === 0) return;
        const events = this.queue.splice(0, this.options.batchSize);
        this.batch = { events, firstSeq: this.seq, kafkaDone: false };
        this.seq += events.length;
      }
      const b = this.batch;
      try {
        if (!b.kafkaDone) {
          await this.sinks.kafka(b.events, b.firstSeq);
          b.kafkaDone = true;
        }
        await this.sinks.clickhouse(b.events, b.firstSeq);
      } catch (error) {
        failures += 1;
        this.counters.persistErrors += 1;
        this.lastError = error instanceof Error ? error.message : String(error);
        await this.sleep(Math.min(this.options.retryMaxMs, 50 * 2 ** Math.min(failures, 10)));
        continue;
      }
      failures = 0;
      this.batch = undefined;
      this.counters.batches += 1;
      this.counters.persisted += b.events.length;
      this.sinks.published(b.events, b.firstSeq);
    }
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
