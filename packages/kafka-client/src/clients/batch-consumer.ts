/**
 * A consumer-group member that hands records over one partition batch at a time, decoded in place
 * (PartitionBatch: columns over the fetched bytes, no object per record), with manual commits.
 *
 * Our own fetch path (fetch-records.ts, record-batch-reader.ts) and group membership
 * (group-member.ts) over @platformatic/kafka's connections, metadata and wire APIs. One loop runs
 * the member through its states:
 *
 *   joining -> assigned (onAssigned awaited) -> consuming -> revoking (onRevoked awaited) -> joining ...
 *                                                          \-> stopping -> stopped
 *   and `failed` when the group refuses this member for good (CONSUMER_FAILED, onError).
 *
 * - Backpressure: a fetch round (one request per leader) is sent only when the handler finished
 *   the previous round's batches, so at most one response per broker (maxBytes) is held.
 * - A position advances only when eachBatch resolved. A handler that throws is told (onError,
 *   HANDLER_FAILED) and gets the same records again after a backoff; the member stays in its group
 *   and keeps its partitions meanwhile (heartbeats run on their own timer).
 * - A rebalance: heartbeats learn of it; the current batch finishes, no more are handed over,
 *   `onRevoked` runs (flush and commit there: the group accepts commits of this generation until
 *   the member rejoins, and the rebalance cannot complete before it does), then the member rejoins.
 * - Broker restarts: fetch and heartbeat failures are retried with backoff on fresh connections,
 *   keeping the member id, so a member whose session outlived the outage goes on where it was.
 */

import type { OptionsSchema } from '@feedpipe/config';
import { Backoff } from '@feedpipe/retry';
import { ConnectionPool } from '@platformatic/kafka';
import { AssignedPartitions, FROM_COMMITTED, FROM_RESET_POLICY } from '../consumer/assigned-partitions.js';
import type { TopicPartitions } from '../consumer/consumer-protocol.js';
import { type FetchPath, openFetchPath } from '../consumer/fetch-path.js';
import { DEFAULT_FETCH_MARGIN_MS, type FetchRound } from '../consumer/fetcher.js';
import { GROUP_APIS, GroupMember } from '../consumer/group-member.js';
import { EARLIEST, LATEST, listOffsets } from '../consumer/offset-lookup.js';
import { describe, KafkaClientError } from '../errors.js';
import {
  brokerOf,
  type ConnectionOptions,
  DURATION_MS,
  FETCH_OPTIONS,
  type Resolved,
  readClientOptions,
  SIZE_BYTES,
} from '../options.js';
import { BrokerError, brokerErrorCodes, LEADER_MOVED, REJOIN_NEEDED } from '../protocol/broker-errors.js';
import type { PartitionBatch } from '../protocol/partition-batch.js';
import { readPartitionRecords } from '../protocol/record-batch-reader.js';

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  /** The next offset to read (the last stored record's offset + 1). */
  offset: bigint;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** Committed offset of the group (0 when it has none). */
  committed: bigint;
  highWatermark: bigint;
  lag: bigint;
}

export type ConsumerState =
  | 'created'
  | 'joining'
  | 'assigned'
  | 'consuming'
  | 'revoking'
  | 'stopping'
  | 'stopped'
  | 'failed';

export interface BatchConsumerStats {
  state: ConsumerState;
  memberId: string;
  generationId: number;
  fetches: number;
  fetchedBytes: number;
  records: number;
  batches: number;
  /** Rejoins after the first join (rebalances, lost sessions). */
  rejoins: number;
  fetchErrors: number;
  handlerErrors: number;
}

export interface BatchConsumerOptions extends ConnectionOptions {
  groupId: string;
  topics: readonly string[];
  /** Called once per partition batch, one at a time; nothing more is fetched until it resolves. */
  eachBatch: (batch: PartitionBatch) => Promise<void> | void;
  /** Where a partition without a committed offset starts (and where an out-of-range one goes): earliest if true. Default true. */
  fromBeginning?: boolean;
  /** Session timeout (ms): how long a vanished member holds its partitions. Default 10,000 (the broker's minimum is 6,000). */
  sessionTimeoutMs?: number;
  /** How long the group waits for members to rejoin in a rebalance, so the longest onRevoked may take (ms). Default 60,000. */
  rebalanceTimeoutMs?: number;
  /** Heartbeat interval (ms). Default min(3,000, session / 3). */
  heartbeatIntervalMs?: number;
  /** Bytes per fetch request (per broker). Default 4 MiB. */
  maxBytes?: number;
  /** Bytes per partition in a fetch. Default 1 MiB. */
  maxBytesPerPartition?: number;
  /** Longest a fetch waits for data (ms). Default 500. */
  maxWaitMs?: number;
  /** How long a fetch may take beyond maxWaitMs before its leader counts as unreachable (ms). Default 5,000. */
  fetchTimeoutMs?: number;
  /** Bytes a fetch waits for (up to maxWaitMs). Default 1. */
  minBytes?: number;
  /** Check each record batch's CRC-32C. Default true (as the Java consumer). */
  checkCrcs?: boolean;
  /** First and longest delay of the retry backoffs (ms). Defaults 100 and 5,000. */
  retryBackoffMs?: number;
  maxRetryBackoffMs?: number;
  /** How long `start()` waits for the first assignment (ms). Default 60,000. */
  startTimeoutMs?: number;
  /** This member got these partitions (awaited before any is fetched). */
  onAssigned?: (partitions: TopicPartitions[], memberId: string) => Promise<void> | void;
  /**
   * These partitions are about to be given up: a rebalance, a lost session (`lost`: someone else
   * may own them already, a commit will fail) or `stop()`. Awaited before the member rejoins or
   * leaves: flush and commit here.
   */
  onRevoked?: (partitions: TopicPartitions[], info: { lost: boolean }) => Promise<void> | void;
  /** Something failed; `retriable` errors are being retried, others stopped the consumer. */
  onError?: (error: KafkaClientError) => void;
}

const BATCH_CONSUMER_OPTIONS = {
  ...FETCH_OPTIONS,
  maxWaitMs: { ...DURATION_MS, default: 500 },
  startTimeoutMs: { ...DURATION_MS, default: 60_000 },
  groupId: { kind: 'string', required: true },
  fromBeginning: { kind: 'boolean', default: true },
  sessionTimeoutMs: { ...DURATION_MS, default: 10_000 },
  rebalanceTimeoutMs: { ...DURATION_MS, default: 60_000 },
  // No default: it follows the session (see the constructor).
  heartbeatIntervalMs: DURATION_MS,
  fetchTimeoutMs: { ...DURATION_MS, default: DEFAULT_FETCH_MARGIN_MS },
  minBytes: { ...SIZE_BYTES, default: 1 },
  onAssigned: { kind: 'given' },
  onRevoked: { kind: 'given' },
} as const satisfies OptionsSchema;

type BatchConsumerSettings = Resolved<BatchConsumerOptions, typeof BATCH_CONSUMER_OPTIONS>;

function settle(options: BatchConsumerOptions): BatchConsumerSettings {
  return readClientOptions('batch consumer', BATCH_CONSUMER_OPTIONS, options, [
    'eachBatch',
    'onAssigned',
    'onRevoked',
    'onError',
  ]);
}

export class BatchConsumer {
  /** Client, long-poll pool, leader source and fetcher (consumer/fetch-path.ts). */
  readonly #fetch: FetchPath;
  readonly #o: BatchConsumerSettings;
  readonly #joinPool: ConnectionPool;
  readonly #coordinatorPool: ConnectionPool;
  readonly #member: GroupMember;
  readonly #partitions = new AssignedPartitions();
  readonly #backoffMs: readonly [number, number];
  readonly #stats: Omit<BatchConsumerStats, 'state' | 'memberId' | 'generationId'> = {
    fetches: 0,
    fetchedBytes: 0,
    records: 0,
    batches: 0,
    rejoins: 0,
    fetchErrors: 0,
    handlerErrors: 0,
  };
  #state: ConsumerState = 'created';
  /** Bumped at each assignment: work of an older generation stops handing over. */
  #generation = 0;
  #rejoin: { lost: boolean } | undefined;
  #stopping = false;
  #running: Promise<void> | undefined;
  readonly #wakers = new Set<() => void>();
  #firstAssignment: { resolve: () => void; reject: (e: unknown) => void } | undefined;

  constructor(options: BatchConsumerOptions) {
    const o = settle(options);
    this.#o = o;
    const { clientId, requestTimeoutMs: requestTimeout, sessionTimeoutMs: session } = o;
    const rebalance = o.rebalanceTimeoutMs;
    this.#backoffMs = [o.retryBackoffMs, o.maxRetryBackoffMs];
    this.#fetch = openFetchPath({
      clientId,
      brokers: o.brokers,
      requestTimeoutMs: requestTimeout,
      maxWaitMs: o.maxWaitMs,
      fetchMarginMs: o.fetchTimeoutMs,
      minBytes: o.minBytes,
      maxBytes: o.maxBytes,
      maxBytesPerPartition: o.maxBytesPerPartition,
    });
    this.#joinPool = new ConnectionPool(clientId, {
      requestTimeout: requestTimeout + rebalance,
      connectTimeout: 5_000,
    });
    this.#coordinatorPool = new ConnectionPool(clientId, {
      requestTimeout: Math.max(2_000, Math.floor(session / 2)),
      connectTimeout: 5_000,
    });
    this.#member = new GroupMember({
      groupId: o.groupId,
      topics: o.topics,
      sessionTimeoutMs: session,
      rebalanceTimeoutMs: rebalance,
      // Derived from the session, so not a schema default: three beats per session, at most 3 s apart.
      heartbeatIntervalMs: o.heartbeatIntervalMs ?? Math.min(3_000, Math.floor(session / 3)),
      retryBackoffMs: this.#backoffMs,
      client: this.#fetch.client,
      joinPool: this.#joinPool,
      coordinatorPool: this.#coordinatorPool,
      bootstrap: o.brokers.map(brokerOf),
      onError: (error) => this.#report(error),
    });
  }

  get state(): ConsumerState {
    return this.#state;
  }

  get memberId(): string {
    return this.#member.memberId;
  }

  /** This member's partitions in the current generation. */
  assignment(): TopicPartitions[] {
    return this.#partitions.list();
  }

  get stats(): BatchConsumerStats {
    return {
      state: this.#state,
      memberId: this.#member.memberId,
      generationId: this.#member.generationId,
      ...this.#stats,
    };
  }

  /**
   * Joins the group and starts handing over batches; resolves once the first assignment is in
   * place (CONSUMER_FAILED if the group refuses the member, TIMEOUT after `startTimeoutMs`: the
   * consumer keeps trying until `stop()`).
   */
  async start(): Promise<void> {
    if (this.#state !== 'created')
      throw new KafkaClientError('CONFIG_INVALID', `start() called in state ${this.#state}`);
    this.#state = 'joining';
    await this.#checkApis();
    const assigned = new Promise<void>((resolve, reject) => {
      this.#firstAssignment = { resolve, reject };
    });
    this.#running = this.#run();
    const limit = this.#o.startTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new KafkaClientError('TIMEOUT', `group ${this.#o.groupId}: no assignment within ${limit} ms`, {
              retriable: true,
            }),
          ),
        limit,
      );
    });
    try {
      await Promise.race([assigned, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Pauses the given partitions, or the whole consumer without an argument (positions are kept). */
  pause(partitions?: readonly TopicPartitions[]): void {
    this.#partitions.pause(partitions);
  }

  /** Resumes the given partitions, or lifts the consumer-wide pause without an argument. */
  resume(partitions?: readonly TopicPartitions[]): void {
    this.#partitions.resume(partitions);
    this.#wake();
  }

  /** Commits the next offsets to read per partition. COMMIT_FAILED (retriable) when not a member now. */
  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    try {
      await this.#member.commit(offsets);
    } catch (error) {
      // The generation is over: rejoin (the records are read again from the last commit).
      if (brokerErrorCodes(error).some((c) => REJOIN_NEEDED.has(c))) this.#requestRejoin(false);
      throw error;
    }
  }

  /** Committed offset, high watermark and lag of every partition of the topics. */
  async lag(topics: readonly string[] = this.#o.topics): Promise<PartitionLag[]> {
    try {
      const metadata = await this.#fetch.client.metadata({ topics: [...topics] });
      const partitions = topics.map((topic) => ({
        topic,
        partitions: Array.from({ length: metadata.topics.get(topic)?.partitionsCount ?? 0 }, (_, i) => i),
      }));
      const flat = partitions.flatMap((t) =>
        t.partitions.map((partition) => ({ topic: t.topic, partition })),
      );
      const [highs, committed] = await Promise.all([
        listOffsets(this.#fetch.client, this.#fetch.metadata, flat, LATEST),
        this.#member.committed(partitions),
      ]);
      return flat.map(({ topic, partition }) => {
        const c = committed.get(`${topic}:${partition}`) ?? -1n;
        const base = c < 0n ? 0n : c;
        const highWatermark = highs.get(`${topic}:${partition}`) ?? 0n;
        return {
          topic,
          partition,
          committed: base,
          highWatermark,
          lag: highWatermark > base ? highWatermark - base : 0n,
        };
      });
    } catch (error) {
      throw new KafkaClientError('ADMIN_FAILED', `lag of ${topics.join(',')}: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
  }

  /**
   * Lets the current batch finish, calls onRevoked, leaves the group (its partitions move at once)
   * and closes. What was not committed is read again by the next owner.
   */
  async stop(): Promise<void> {
    if (this.#state === 'stopped') return;
    this.#stopping = true;
    this.#wake();
    // A JoinGroup waits at the coordinator for the other members (up to the rebalance timeout):
    // closing its pool ends the wait now, and a stopping member needs no answer.
    if (this.#state === 'joining') await this.#joinPool.close().catch(() => undefined);
    if (this.#state !== 'failed') this.#state = 'stopping';
    await this.#running;
    await this.#member.leave();
    await this.#closeConnections();
    this.#state = 'stopped';
  }

  /** The member's life: join, consume, give the partitions up; again until stopped. */
  async #run(): Promise<void> {
    let joins = 0;
    while (!this.#stopping) {
      this.#state = 'joining';
      let assignment: TopicPartitions[];
      try {
        assignment = (await this.#member.join(() => this.#stopping)).assignment;
      } catch (error) {
        if (this.#stopping) break;
        this.#fail(error);
        return;
      }
      if (joins++ > 0) this.#stats.rejoins += 1;
      this.#rejoin = undefined;
      this.#generation += 1;
      const generation = this.#generation;
      this.#partitions.assign(assignment);
      this.#member.startHeartbeats((lost) => this.#requestRejoin(lost));
      this.#state = 'assigned';
      await this.#callback('onAssigned', () => this.#o.onAssigned?.(assignment, this.#member.memberId));
      this.#firstAssignment?.resolve();
      this.#firstAssignment = undefined;
      this.#state = 'consuming';
      await this.#consume(generation);
      this.#state = this.#stopping ? 'stopping' : 'revoking';
      const lost = this.#lostMembership();
      // Heartbeats go on through onRevoked when stopping (a long flush must not cost the session).
      await this.#callback('onRevoked', () => this.#o.onRevoked?.(assignment, { lost }));
      await this.#member.stopHeartbeats();
      this.#partitions.clear();
    }
    this.#firstAssignment?.reject(
      new KafkaClientError('CLOSED', 'the consumer was stopped before its first assignment'),
    );
    this.#firstAssignment = undefined;
  }

  /** Fetch rounds for one generation, until a rebalance or stop. */
  async #consume(generation: number): Promise<void> {
    const backoff = new Backoff({ initialMs: this.#backoffMs[0], maxMs: this.#backoffMs[1], floor: 0.5 });
    let refresh = false;
    while (this.#current(generation)) {
      let trouble = false;
      if (this.#partitions.unresolved().length > 0) trouble = !(await this.#resolvePositions());
      const targets = trouble ? [] : this.#partitions.fetchable();
      if (!trouble && targets.length === 0) {
        await this.#idle(1_000);
        continue;
      }
      if (!trouble) {
        let round: FetchRound | undefined;
        try {
          round = await this.#fetch.fetcher.fetch(targets, refresh);
        } catch (error) {
          this.#fetchFailed(error);
        }
        refresh = !round || round.failures.length > 0 || round.leaderless.length > 0;
        trouble = refresh;
        if (round) {
          for (const failure of round.failures) this.#fetchFailed(failure);
          const outcome = await this.#handOver(round, generation);
          refresh ||= outcome.refresh;
          trouble ||= outcome.trouble;
        }
      }
      if (trouble && this.#current(generation)) await this.#idle(backoff.next());
      else backoff.reset();
    }
  }

  /** Decodes and hands over a round's partitions in turn; stops at a handler error or a rebalance. */
  async #handOver(round: FetchRound, generation: number): Promise<{ refresh: boolean; trouble: boolean }> {
    this.#stats.fetches += 1;
    this.#stats.fetchedBytes += round.bytes;
    let refresh = false;
    let trouble = false;
    for (const { target, answer } of round.answers) {
      if (!this.#current(generation)) break;
      const state = this.#partitions.get(target.topic, target.partition);
      // Moved (seeked, reset) or paused since the request went out: this answer is stale.
      if (
        !state ||
        state.position !== target.offset ||
        this.#partitions.isPaused(state.topic, state.partition)
      )
        continue;
      if (answer.errorCode !== BrokerError.NONE) {
        trouble = true;
        if (answer.errorCode === BrokerError.OFFSET_OUT_OF_RANGE) state.position = FROM_RESET_POLICY;
        else if (LEADER_MOVED.has(answer.errorCode)) refresh = true;
        else
          this.#fetchFailed(
            new KafkaClientError(
              'FETCH_FAILED',
              `${target.topic}:${target.partition}: broker error ${answer.errorCode}`,
              { retriable: true },
            ),
          );
        continue;
      }
      let batch: PartitionBatch;
      try {
        batch = readPartitionRecords(answer, target.offset, this.#o.checkCrcs);
      } catch (error) {
        this.#fetchFailed(error);
        trouble = true;
        continue;
      }
      if (batch.count > 0) {
        try {
          await this.#o.eachBatch(batch);
        } catch (error) {
          this.#stats.handlerErrors += 1;
          this.#report(
            new KafkaClientError(
              'HANDLER_FAILED',
              `eachBatch of ${batch.topic}:${batch.partition} failed: ${describe(error)}`,
              {
                retriable: true,
                cause: error,
              },
            ),
          );
          return { refresh, trouble: true };
        }
        this.#stats.batches += 1;
        this.#stats.records += batch.count;
      }
      const next = Number(batch.nextOffset);
      if (next > state.position) state.position = next;
    }
    return { refresh, trouble };
  }

  /** Positions of the partitions that have none yet: committed offsets, else the reset policy. False on failure. */
  async #resolvePositions(): Promise<boolean> {
    const pending = this.#partitions.unresolved();
    try {
      const fromCommitted = pending.filter((s) => s.position === FROM_COMMITTED);
      const committed =
        fromCommitted.length > 0
          ? await this.#member.committed(groupByTopic(fromCommitted))
          : new Map<string, bigint>();
      const needReset = pending.filter((s) => (committed.get(`${s.topic}:${s.partition}`) ?? -1n) < 0n);
      const reset = await listOffsets(
        this.#fetch.client,
        this.#fetch.metadata,
        needReset,
        this.#o.fromBeginning ? EARLIEST : LATEST,
      );
      for (const s of pending) {
        const at = committed.get(`${s.topic}:${s.partition}`) ?? -1n;
        s.position = Number(at >= 0n ? at : (reset.get(`${s.topic}:${s.partition}`) ?? 0n));
      }
      return true;
    } catch (error) {
      this.#fetchFailed(error);
      return false;
    }
  }

  async #checkApis(): Promise<void> {
    try {
      const apis = await this.#fetch.client.listApis();
      for (const [name, key, version] of [...GROUP_APIS, ['ListOffsets', 2, 9] as const]) {
        const api = apis.find((a) => a.apiKey === key);
        if (!api || version < api.minVersion || version > api.maxVersion) {
          throw new KafkaClientError('CONSUMER_FAILED', `the broker does not serve ${name} v${version}`);
        }
      }
      await this.#fetch.fetcher.version();
    } catch (error) {
      this.#state = 'failed';
      await this.#closeConnections();
      if (error instanceof KafkaClientError) throw error;
      throw new KafkaClientError('CONSUMER_FAILED', `api versions: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
  }

  async #closeConnections(): Promise<void> {
    await Promise.allSettled([
      this.#fetch.fetchPool.close(),
      this.#joinPool.close(),
      this.#coordinatorPool.close(),
      this.#fetch.client.close(),
      this.#fetch.metadata.close(),
    ]);
  }

  #current(generation: number): boolean {
    return generation === this.#generation && !this.#rejoin && !this.#stopping;
  }

  /** Whether the generation ended because the coordinator removed this member (set by heartbeats meanwhile). */
  #lostMembership(): boolean {
    return this.#rejoin?.lost ?? false;
  }

  #requestRejoin(lost: boolean): void {
    if (!this.#rejoin) this.#rejoin = { lost };
    else this.#rejoin.lost ||= lost;
    this.#wake();
  }

  async #callback(name: 'onAssigned' | 'onRevoked', call: () => Promise<void> | void): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.#report(
        new KafkaClientError('HANDLER_FAILED', `${name} failed: ${describe(error)}`, {
          retriable: true,
          cause: error,
        }),
      );
    }
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

  #fail(error: unknown): void {
    this.#state = 'failed';
    const failure =
      error instanceof KafkaClientError
        ? error
        : new KafkaClientError('CONSUMER_FAILED', `consumer failed: ${describe(error)}`, { cause: error });
    this.#report(failure);
    this.#firstAssignment?.reject(failure);
    this.#firstAssignment = undefined;
  }

  #report(error: KafkaClientError): void {
    if (this.#stopping && error.retriable) return;
    try {
      this.#o.onError?.(error);
    } catch {
      // The owner's error callback must not break the consumer's loop.
    }
  }

  /** Waits `ms`, or less if resume(), a rebalance or stop() wakes the loop. */
  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wakers = this.#wakers;
      const done = (): void => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}

function groupByTopic(states: ReadonlyArray<{ topic: string; partition: number }>): TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const s of states) byTopic.set(s.topic, [...(byTopic.get(s.topic) ?? []), s.partition]);
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}
