/**
 * A group-less reader of every partition of some topics, from their latest (or earliest) offsets
 * on: what a live view needs (each API instance sees every record, nothing is committed, nothing
 * rebalances). The same fetch path as BatchConsumer (fetcher.ts, record-batch-reader.ts), batches
 * handed over one partition at a time, decoded in place.
 *
 *   created -> starting (partitions found, positions known) -> tailing -> stopping -> stopped
 *                      \-> failed (start gave up: TIMEOUT, or the broker serves no usable Fetch)
 *
 * - `start()` resolves once every partition that exists now has its position, so whatever is
 *   produced after it resolves is handed over.
 * - Partitions and topics that appear later (checked every `metadataRefreshMs`) are read from
 *   their earliest offset: each of their records is newer than the start. A topic missing at the
 *   start is simply not there yet.
 * - A position that fell out of the log (retention, a recreated topic) moves to the earliest offset.
 * - Backpressure as BatchConsumer: the next fetch round goes out once eachBatch finished this one.
 *   A handler that throws is told (HANDLER_FAILED) and gets the same records after a backoff.
 * - Fetch failures (broker restarts, moved leaders) are retried with backoff on fresh metadata.
 */

import type { OptionsSchema } from '@feedpipe/config';
import { Backoff } from '@feedpipe/retry';
import { metadataV12 } from '@platformatic/kafka';
import { AssignedPartitions } from '../consumer/assigned-partitions.js';
import { type FetchPath, openFetchPath } from '../consumer/fetch-path.js';
import { DEFAULT_FETCH_MARGIN_MS, type FetchRound } from '../consumer/fetcher.js';
import { EARLIEST, LATEST, listOffsets } from '../consumer/offset-lookup.js';
import { describe, KafkaClientError } from '../errors.js';
import {
  type ConnectionOptions,
  DURATION_MS,
  FETCH_OPTIONS,
  type Resolved,
  readClientOptions,
} from '../options.js';
import { BrokerError, LEADER_MOVED } from '../protocol/broker-errors.js';
import type { PartitionBatch } from '../protocol/partition-batch.js';
import { readPartitionRecords } from '../protocol/record-batch-reader.js';

export type TopicTailState = 'created' | 'starting' | 'tailing' | 'stopping' | 'stopped' | 'failed';

export interface TopicTailOptions extends ConnectionOptions {
  topics: readonly string[];
  /** Called once per partition batch, one at a time; nothing more is fetched until it resolves. */
  eachBatch: (batch: PartitionBatch) => Promise<void> | void;
  /** Where the partitions found at `start()` begin. Default 'latest'. */
  from?: 'latest' | 'earliest';
  /**
   * Exact positions (the next offset to hand over) of partitions found at `start()`, e.g. a
   * reader resuming where a store's contents end; a partition it gives no position for starts per
   * `from`. A position that fell out of the log moves to the earliest offset, as any other.
   */
  startAt?: (topic: string, partition: number) => number | undefined;
  /** How often to look for new partitions and topics (ms). Default 5,000. */
  metadataRefreshMs?: number;
  /** Bytes per fetch request (per broker). Default 4 MiB. */
  maxBytes?: number;
  /** Bytes per partition in a fetch. Default 1 MiB. */
  maxBytesPerPartition?: number;
  /** Longest a fetch waits for data (ms): also the longest a record waits to be handed over. Default 100. */
  maxWaitMs?: number;
  /** Check each record batch's CRC-32C. Default true. */
  checkCrcs?: boolean;
  /** First and longest delay of the retry backoff (ms). Defaults 100 and 5,000. */
  retryBackoffMs?: number;
  maxRetryBackoffMs?: number;
  /** How long `start()` keeps trying to find the partitions and their positions (ms). Default 30,000. */
  startTimeoutMs?: number;
  /** Something failed and is being retried (or, with `retriable` false, stopped the tail). */
  onError?: (error: KafkaClientError) => void;
}

export interface TopicTailStats {
  state: TopicTailState;
  partitions: number;
  fetches: number;
  records: number;
  batches: number;
  fetchErrors: number;
  handlerErrors: number;
}

const TOPIC_TAIL_OPTIONS = {
  ...FETCH_OPTIONS,
  clientId: { kind: 'string', default: 'feedpipe-tail' },
  maxWaitMs: { ...DURATION_MS, default: 100 },
  startTimeoutMs: { ...DURATION_MS, default: 30_000 },
  from: { kind: 'enum', values: ['latest', 'earliest'], default: 'latest' },
  startAt: { kind: 'given' },
  metadataRefreshMs: { ...DURATION_MS, default: 5_000 },
} as const satisfies OptionsSchema;

type TopicTailSettings = Resolved<TopicTailOptions, typeof TOPIC_TAIL_OPTIONS>;

/** Position of a partition found after the start: its earliest offset. */
const FROM_EARLIEST = -2;
/** Position of a partition found at the start of a 'latest' tail. */
const FROM_LATEST = -3;

function settle(options: TopicTailOptions): TopicTailSettings {
  return readClientOptions('topic tail', TOPIC_TAIL_OPTIONS, options, ['eachBatch', 'startAt', 'onError']);
}

export class TopicTail {
  /** Client, long-poll pool, leader source and fetcher (consumer/fetch-path.ts). */
  readonly #fetch: FetchPath;
  readonly #o: TopicTailSettings;
  readonly #partitions = new AssignedPartitions();
  readonly #backoff: Backoff;
  readonly #stats = { fetches: 0, records: 0, batches: 0, fetchErrors: 0, handlerErrors: 0 };
  #state: TopicTailState = 'created';
  #nextRefresh = 0;
  #starting: Promise<void> | undefined;
  #running: Promise<void> | undefined;
  readonly #wakers = new Set<() => void>();

  constructor(options: TopicTailOptions) {
    const o = settle(options);
    this.#o = o;
    this.#backoff = new Backoff({ initialMs: o.retryBackoffMs, maxMs: o.maxRetryBackoffMs, floor: 0.5 });
    this.#fetch = openFetchPath({
      clientId: o.clientId,
      brokers: o.brokers,
      requestTimeoutMs: o.requestTimeoutMs,
      maxWaitMs: o.maxWaitMs,
      // A tail hands records over as soon as any arrive, and gives its polls the fetcher's margin.
      fetchMarginMs: DEFAULT_FETCH_MARGIN_MS,
      minBytes: 1,
      maxBytes: o.maxBytes,
      maxBytesPerPartition: o.maxBytesPerPartition,
    });
  }

  get state(): TopicTailState {
    return this.#state;
  }

  get stats(): TopicTailStats {
    return { state: this.#state, partitions: this.#partitions.size, ...this.#stats };
  }

  /**
   * Finds the partitions and their positions, then tails them until `stop()`. Resolves once every
   * partition that exists now has its position; TIMEOUT (the tail is closed) when that takes
   * longer than `startTimeoutMs`.
   */
  async start(): Promise<void> {
    if (this.#state !== 'created')
      throw new KafkaClientError('CONFIG_INVALID', `start() called in state ${this.#state}`);
    this.#state = 'starting';
    this.#starting = this.#begin();
    await this.#starting;
  }

  async #begin(): Promise<void> {
    const limit = this.#o.startTimeoutMs;
    const deadline = Date.now() + limit;
    let lastError: unknown;
    let started = false;
    while (!this.#stopRequested()) {
      try {
        await this.#fetch.fetcher.version();
        await this.#discover(this.#o.from === 'earliest' ? FROM_EARLIEST : FROM_LATEST, this.#o.startAt);
        await this.#resolvePositions();
        started = true;
        break;
      } catch (error) {
        lastError = error;
        // No usable Fetch version: no retry helps.
        if (error instanceof KafkaClientError && error.code === 'CONSUMER_FAILED') break;
      }
      if (Date.now() + 100 >= deadline) break;
      await this.#idle(Math.min(this.#backoff.next(), deadline - Date.now()));
    }
    if (!started || this.#stopRequested()) {
      const stopped = this.#stopRequested();
      this.#state = 'failed';
      await this.#close();
      if (stopped) throw new KafkaClientError('CLOSED', 'the tail was stopped while starting');
      if (lastError instanceof KafkaClientError && !lastError.retriable) throw lastError;
      throw new KafkaClientError(
        'TIMEOUT',
        `tail of ${this.#o.topics.join(', ')}: not started within ${limit} ms: ${describe(lastError)}`,
        { retriable: true, cause: lastError },
      );
    }
    this.#backoff.reset();
    this.#nextRefresh = Date.now() + this.#o.metadataRefreshMs;
    this.#state = 'tailing';
    this.#running = this.#run();
  }

  /** Lets the current batch finish and closes the connections. */
  async stop(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'failed') return;
    if (this.#state === 'created') {
      this.#state = 'stopped';
      await this.#close();
      return;
    }
    this.#state = 'stopping';
    this.#wake();
    // A start under way sees the request, closes and rejects; a running loop ends after its batch.
    await this.#starting?.catch(() => undefined);
    await this.#running;
    await this.#close();
    this.#state = 'stopped';
  }

  #stopRequested(): boolean {
    return this.#state === 'stopping';
  }

  async #close(): Promise<void> {
    await Promise.allSettled([
      this.#fetch.fetchPool.close(),
      this.#fetch.client.close(),
      this.#fetch.metadata.close(),
    ]);
  }

  /** Fetch rounds until stopped; new partitions looked for every `metadataRefreshMs`. */
  async #run(): Promise<void> {
    let refresh = false;
    while (this.#state === 'tailing') {
      let trouble = false;
      if (Date.now() >= this.#nextRefresh) {
        this.#nextRefresh = Date.now() + this.#o.metadataRefreshMs;
        try {
          await this.#discover(FROM_EARLIEST);
        } catch (error) {
          this.#fetchFailed(error);
        }
      }
      if (this.#partitions.unresolved().length > 0) trouble = !(await this.#tryResolvePositions());
      const targets = this.#partitions.fetchable();
      if (targets.length === 0) {
        await this.#idle(trouble ? this.#backoff.next() : Math.max(0, this.#nextRefresh - Date.now()));
        continue;
      }
      let round: FetchRound | undefined;
      try {
        round = await this.#fetch.fetcher.fetch(targets, refresh);
      } catch (error) {
        this.#fetchFailed(error);
      }
      refresh = !round || round.failures.length > 0 || round.leaderless.length > 0;
      trouble ||= refresh;
      if (round) {
        for (const failure of round.failures) this.#fetchFailed(failure);
        const outcome = await this.#handOver(round);
        refresh ||= outcome.refresh;
        trouble ||= outcome.trouble;
      }
      if (trouble && this.#state === 'tailing') await this.#idle(this.#backoff.next());
      else this.#backoff.reset();
    }
  }

  /** Decodes and hands over a round's partitions in turn; stops at a handler error. */
  async #handOver(round: FetchRound): Promise<{ refresh: boolean; trouble: boolean }> {
    this.#stats.fetches += 1;
    let refresh = false;
    for (const { target, answer } of round.answers) {
      if (this.#state !== 'tailing') break;
      const state = this.#partitions.get(target.topic, target.partition);
      if (!state || state.position !== target.offset) continue;
      if (answer.errorCode !== BrokerError.NONE) {
        if (answer.errorCode === BrokerError.OFFSET_OUT_OF_RANGE) state.position = FROM_EARLIEST;
        else if (LEADER_MOVED.has(answer.errorCode)) refresh = true;
        else
          this.#fetchFailed(
            new KafkaClientError(
              'FETCH_FAILED',
              `${target.topic}:${target.partition}: broker error ${answer.errorCode}`,
              { retriable: true },
            ),
          );
        return { refresh, trouble: true };
      }
      let batch: PartitionBatch;
      try {
        batch = readPartitionRecords(answer, target.offset, this.#o.checkCrcs);
        if (batch.count > 0) await this.#o.eachBatch(batch);
      } catch (error) {
        if (error instanceof KafkaClientError && error.code === 'RECORDS_CORRUPT') this.#fetchFailed(error);
        else this.#handlerFailed(target, error);
        return { refresh, trouble: true };
      }
      this.#stats.batches += batch.count > 0 ? 1 : 0;
      this.#stats.records += batch.count;
      const next = Number(batch.nextOffset);
      if (next > state.position) state.position = next;
    }
    return { refresh, trouble: false };
  }

  /**
   * Adds the partitions not held yet, at `position` (FROM_LATEST or FROM_EARLIEST) unless
   * `startAt` names an exact one (only at the start: later partitions are newer than it).
   */
  async #discover(
    position: number,
    startAt?: (topic: string, partition: number) => number | undefined,
  ): Promise<void> {
    const counts = await this.#partitionCounts();
    for (const topic of this.#o.topics) {
      for (let partition = 0; partition < (counts.get(topic) ?? 0); partition++) {
        const exact = startAt?.(topic, partition);
        const valid = exact !== undefined && Number.isSafeInteger(exact) && exact >= 0;
        this.#partitions.add(topic, partition, valid ? exact : position);
      }
    }
  }

  /**
   * Partitions of each topic that exists now, from a Metadata request for all topics: asking for
   * the topics by name would fail the whole request while one of them does not exist yet.
   */
  async #partitionCounts(): Promise<Map<string, number>> {
    const cluster = await this.#fetch.client.metadata({ topics: [] });
    const broker = cluster.brokers.values().next().value;
    if (!broker)
      throw new KafkaClientError('FETCH_FAILED', 'the cluster named no broker', { retriable: true });
    const connection = await this.#fetch.client.connections.get(broker);
    const answer = await metadataV12.api.async(connection, null, false, false);
    const wanted = new Set(this.#o.topics);
    const out = new Map<string, number>();
    for (const t of answer.topics) {
      // A topic still being created answers with an error: it is looked at again at the next refresh.
      if (t.name && wanted.has(t.name) && t.errorCode === BrokerError.NONE)
        out.set(t.name, t.partitions.length);
    }
    return out;
  }

  /** Offsets of the partitions without a position yet (throws on failure). */
  async #resolvePositions(): Promise<void> {
    const pending = this.#partitions.unresolved();
    for (const [mark, at] of [
      [FROM_LATEST, LATEST],
      [FROM_EARLIEST, EARLIEST],
    ] as const) {
      const list = pending.filter((s) => s.position === mark);
      const offsets = await listOffsets(this.#fetch.client, this.#fetch.metadata, list, at);
      for (const s of list) s.position = Number(offsets.get(`${s.topic}:${s.partition}`) ?? 0n);
    }
  }

  /** As #resolvePositions, failures reported: false when the positions are still unknown. */
  async #tryResolvePositions(): Promise<boolean> {
    try {
      await this.#resolvePositions();
      return true;
    } catch (error) {
      this.#fetchFailed(error);
      return false;
    }
  }

  #handlerFailed(target: { topic: string; partition: number }, error: unknown): void {
    this.#stats.handlerErrors += 1;
    this.#report(
      new KafkaClientError(
        'HANDLER_FAILED',
        `eachBatch of ${target.topic}:${target.partition} failed: ${describe(error)}`,
        { retriable: true, cause: error },
      ),
    );
  }

  #fetchFailed(error: unknown): void {
    this.#stats.fetchErrors += 1;
    this.#report(
      error instanceof KafkaClientError
        ? error
        : new KafkaClientError('FETCH_FAILED', `fetch: ${describe(error)}`, {
            retriable: true,
            cause: error,
          }),
    );
  }

  #report(error: KafkaClientError): void {
    if (this.#state === 'stopping') return;
    try {
      this.#o.onError?.(error);
    } catch {
      // The owner's error callback must not break the loop.
    }
  }

  /** Waits `ms`, or less if stop() wakes the loop. */
  #idle(ms: number): Promise<void> {
    if (this.#state !== 'starting' && this.#state !== 'tailing') return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakers.add(done);
    });
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}
