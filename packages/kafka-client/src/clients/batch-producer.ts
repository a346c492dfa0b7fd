/**
 * Idempotent producer of record batches laid out by the caller (RecordBatchBuilder), on
 * @platformatic/kafka: its Producer gets the producer id and epoch (InitProducerId) and the
 * metadata, its connection pool carries the requests, and our Produce request (produce-batches.ts)
 * carries the finished batches. The sequence numbers are ours, because the batches are.
 *
 * The rules (docs/architecture.md, "Exactly once into Kafka"):
 * - acks=all, idempotent, one send at a time per producer: a partition's sequence advances only
 *   when the broker acknowledged its batch, so a retry is always the same batch under the same
 *   producer id, epoch and sequence, and the broker drops the part it already appended.
 * - A set that failed stays the producer's unfinished set: sending another set before it is done
 *   is refused (SEND_PENDING), because a new batch under a sequence the broker may already hold
 *   would be taken for a duplicate and dropped, or refused as out of order.
 * - When the broker lost the producer's state (sequence errors, fenced epoch), only a new producer
 *   id goes on: `reset()` is the caller's decision, counted, and the one window for a copy.
 */

import type { OptionsSchema } from '@feedpipe/config';
import { Backoff, sleep } from '@feedpipe/retry';
import { ConnectionPool, Producer } from '@platformatic/kafka';
import { MetadataSource } from '../cluster/metadata-source.js';
import { describe, KafkaClientError } from '../errors.js';
import {
  brokerOf,
  CONNECTION_OPTIONS,
  type ConnectionOptions,
  DURATION_MS,
  readClientOptions,
} from '../options.js';
import {
  MAX_PRODUCE_VERSION,
  MIN_PRODUCE_VERSION,
  type PartitionAnswer,
  PRODUCE_API_KEY,
  produceBatchesApi,
  type TopicBatches,
} from '../protocol/produce-batches.js';
import type { PartitionSend, ProduceSet } from './produce-set.js';

export interface BatchProducerOptions extends ConnectionOptions {
  /** How long the broker may wait for the in-sync replicas (acks=all), in ms. Default 30,000. */
  ackTimeoutMs?: number;
  /** How long one `send` retries retriable failures before it gives up (DELIVERY_TIMEOUT), in ms. Default 60,000. */
  deliveryTimeoutMs?: number;
  /** First delay between attempts, in ms (doubling, jittered). Default 100. */
  retryBackoffMs?: number;
  /** Longest delay between attempts, in ms. Default 2,000. */
  maxRetryBackoffMs?: number;
  /** Let a produce create a missing topic (broker default settings). Default false. */
  autocreateTopics?: boolean;
}

const BATCH_PRODUCER_OPTIONS = {
  ...CONNECTION_OPTIONS,
  ackTimeoutMs: { ...DURATION_MS, default: 30_000 },
  deliveryTimeoutMs: { ...DURATION_MS, default: 60_000 },
  retryBackoffMs: { ...DURATION_MS, default: 100 },
  maxRetryBackoffMs: { ...DURATION_MS, default: 2_000 },
  autocreateTopics: { kind: 'boolean', default: false },
} as const satisfies OptionsSchema;
const ACKS_ALL = -1;

/** Broker error codes (Kafka protocol) the producer treats specially. */
const Codes = {
  NONE: 0,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  NETWORK_EXCEPTION: 13,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  KAFKA_STORAGE_ERROR: 56,
  UNKNOWN_PRODUCER_ID: 59,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  PRODUCER_FENCED: 90,
} as const;

/** Answers after which the same batch is sent again (after a metadata refresh for the leader ones). */
const RETRIABLE = new Set<number>([
  Codes.UNKNOWN_TOPIC_OR_PARTITION,
  Codes.LEADER_NOT_AVAILABLE,
  Codes.NOT_LEADER_OR_FOLLOWER,
  Codes.REQUEST_TIMED_OUT,
  Codes.NETWORK_EXCEPTION,
  Codes.NOT_ENOUGH_REPLICAS,
  Codes.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  Codes.KAFKA_STORAGE_ERROR,
  Codes.FENCED_LEADER_EPOCH,
  Codes.UNKNOWN_LEADER_EPOCH,
]);
/** Answers that mean the broker no longer knows this producer's sequences. */
const STATE_LOST = new Set<number>([
  Codes.OUT_OF_ORDER_SEQUENCE_NUMBER,
  Codes.UNKNOWN_PRODUCER_ID,
  Codes.INVALID_PRODUCER_EPOCH,
  Codes.PRODUCER_FENCED,
]);
const INT32_MAX = 0x7fffffff;

export interface SendResult {
  /** Attempts after the first (retries of the same batches). */
  retries: number;
  /** Base offset per `topic:partition` of the set. */
  offsets: Map<string, bigint>;
}

export interface BatchProducerStats {
  sends: number;
  retries: number;
  resets: number;
}

export class BatchProducer {
  readonly #client: Producer;
  /** Leaders for the produce requests: asked of the brokers in turn, a hung one last (metadata-source.ts). */
  readonly #metadata: MetadataSource;
  /**
   * The produce requests' own connections, with `requestTimeout` as their timeout. The library
   * client's pool times requests out after its fixed 30 s whatever the client's `timeout` says, and
   * a hung leader (its socket open, nothing answered) then held every send that long (the cluster
   * bench: a 20 s hang stalled the ingestor 20 s, though the leaderships had moved after 7).
   */
  readonly #producePool: ConnectionPool;
  readonly #ackTimeoutMs: number;
  readonly #deliveryTimeoutMs: number;
  readonly #backoffMs: [number, number];
  readonly #autocreate: boolean;
  /** Next sequence per `topic:partition` under the current producer id. */
  readonly #sequences = new Map<string, number>();
  #identity: { producerId: bigint; producerEpoch: number } | undefined;
  #version: number | undefined;
  #unfinished: ProduceSet | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly #stats: BatchProducerStats = { sends: 0, retries: 0, resets: 0 };

  constructor(options: BatchProducerOptions) {
    const o = readClientOptions('batch producer', BATCH_PRODUCER_OPTIONS, options);
    this.#ackTimeoutMs = o.ackTimeoutMs;
    this.#deliveryTimeoutMs = o.deliveryTimeoutMs;
    this.#backoffMs = [o.retryBackoffMs, o.maxRetryBackoffMs];
    this.#autocreate = o.autocreateTopics;
    this.#client = new Producer({
      clientId: o.clientId,
      bootstrapBrokers: [...o.brokers],
      idempotent: true,
      timeout: o.requestTimeoutMs,
      // Our own loop retries (with the same batch); the library's retries are for its metadata and InitProducerId.
      retries: 3,
      retryDelay: 250,
      autocreateTopics: this.#autocreate,
    });
    this.#producePool = new ConnectionPool(o.clientId, {
      requestTimeout: o.requestTimeoutMs,
      connectTimeout: 5_000,
    });
    this.#metadata = new MetadataSource({
      clientId: o.clientId,
      bootstrap: o.brokers.map(brokerOf),
      autocreateTopics: this.#autocreate,
    });
  }

  get stats(): Readonly<BatchProducerStats> {
    return this.#stats;
  }

  /** The current producer id, once the first send (or `connect`) got one. */
  get producerId(): bigint | undefined {
    return this.#identity?.producerId;
  }

  get producerEpoch(): number | undefined {
    return this.#identity?.producerEpoch;
  }

  /** Whether a set failed and has not been completed (only that set, or reset(), may follow). */
  get hasUnfinishedSend(): boolean {
    return this.#unfinished !== undefined;
  }

  /** Gets the producer id and the produce version now, rather than on the first send. */
  async connect(): Promise<void> {
    await this.#ensureIdentity();
    await this.#produceVersion();
  }

  /** The topic's partition count as the producer knows it (fetched if unknown), to lay out ahead of a send. */
  async partitionCount(topic: string, refresh = false): Promise<number> {
    const metadata = await this.#client
      .metadata({ topics: [topic], autocreateTopics: this.#autocreate, forceUpdate: refresh })
      .catch((error: unknown) => {
        throw new KafkaClientError('ADMIN_FAILED', `metadata of ${topic}: ${describe(error)}`, {
          retriable: true,
          cause: error,
        });
      });
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    if (count === 0)
      throw new KafkaClientError('TOPIC_NOT_READY', `topic ${topic} has no partitions yet`, {
        retriable: true,
      });
    return count;
  }

  /**
   * Sends `set` until the broker acknowledged every partition, retrying retriable failures with
   * the same batches for up to `deliveryTimeoutMs`. Sends are serialised: a call waits for the one
   * before it. Throws DELIVERY_TIMEOUT (retriable: call `send` with the same set again),
   * PRODUCER_STATE_LOST (call `reset()`, then the same set), PRODUCE_REJECTED or BATCH_INVALID.
   */
  send(set: ProduceSet): Promise<SendResult> {
    const turn = this.#queue.then(
      () => this.#sendNow(set),
      () => this.#sendNow(set),
    );
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Starts over under a new producer id (the broker lost this one's state, or the caller gave up on
   * it). Whatever part of the unfinished set the broker had appended is appended again when that
   * set is sent next: the one window for a copy, which records' source identity covers downstream.
   */
  reset(): Promise<void> {
    const turn = this.#queue.then(async () => {
      this.#identity = undefined;
      this.#sequences.clear();
      this.#unfinished?.unstamp();
      this.#stats.resets += 1;
      await this.#ensureIdentity();
    });
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    await this.#client.close(true).catch(() => undefined);
    await Promise.allSettled([this.#metadata.close(), this.#producePool.close()]);
  }

  async #sendNow(set: ProduceSet): Promise<SendResult> {
    if (this.#closed) throw new KafkaClientError('CLOSED', 'the batch producer is closed');
    if (this.#unfinished && this.#unfinished !== set) {
      throw new KafkaClientError(
        'SEND_PENDING',
        'an earlier send is not acknowledged yet: send that set again (or reset() first)',
        { retriable: false },
      );
    }
    this.#unfinished = set;
    this.#stats.sends += 1;
    const deadline = Date.now() + this.#deliveryTimeoutMs;
    const backoff = new Backoff({ initialMs: this.#backoffMs[0], maxMs: this.#backoffMs[1], floor: 0.5 });
    let retries = 0;
    let refresh = false;
    let lastError: unknown;
    for (;;) {
      try {
        const done = await this.#attempt(set, refresh);
        if (done) break;
        refresh = true;
      } catch (error) {
        if (error instanceof KafkaClientError && !error.retriable) throw error;
        if (error instanceof KafkaClientError && error.code === 'PRODUCER_STATE_LOST') throw error;
        lastError = error;
        refresh = true;
      }
      if (Date.now() >= deadline) {
        throw new KafkaClientError(
          'DELIVERY_TIMEOUT',
          `${set.unacknowledged().length} partition batches not acknowledged within ${this.#deliveryTimeoutMs} ms${lastError ? ` (${describe(lastError)})` : ''}`,
          { retriable: true, cause: lastError },
        );
      }
      retries += 1;
      this.#stats.retries += 1;
      await sleep(Math.min(backoff.next(), Math.max(0, deadline - Date.now())));
    }
    this.#unfinished = undefined;
    const offsets = new Map<string, bigint>();
    for (const p of set.partitions(() => 0)) offsets.set(`${p.topic}:${p.partition}`, p.baseOffset ?? -1n);
    return { retries, offsets };
  }

  /** One attempt at the unacknowledged partitions of `set`; true when none is left. */
  async #attempt(set: ProduceSet, refresh: boolean): Promise<boolean> {
    const identity = await this.#ensureIdentity();
    const version = await this.#produceVersion();
    const topics = set.topics.map((t) => t.topic);
    const metadata = await this.#metadata.leaders(topics, refresh);
    const partitions = set.partitions((topic) => {
      const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
      if (count === 0)
        throw new KafkaClientError('TOPIC_NOT_READY', `topic ${topic} has no partitions yet`, {
          retriable: true,
        });
      return count;
    });
    // Group the unacknowledged batches by leader, stamping the ones sent for the first time.
    const byLeader = new Map<number, PartitionSend[]>();
    for (const p of partitions) {
      if (p.baseOffset !== undefined) continue;
      const leader = metadata.topics.get(p.topic)?.partitions[p.partition]?.leader ?? -1;
      if (leader < 0)
        throw new KafkaClientError('TOPIC_NOT_READY', `${p.topic}:${p.partition} has no leader`, {
          retriable: true,
        });
      if (!p.stamp)
        p.stamp = { ...identity, baseSequence: this.#sequences.get(`${p.topic}:${p.partition}`) ?? 0 };
      let list = byLeader.get(leader);
      if (!list) {
        list = [];
        byLeader.set(leader, list);
      }
      list.push(p);
    }
    if (byLeader.size === 0) return true;
    const results = await Promise.allSettled(
      [...byLeader].map(async ([leader, sends]) => {
        const broker = metadata.brokers.get(leader);
        if (!broker)
          throw new KafkaClientError('TOPIC_NOT_READY', `leader ${leader} is not in the metadata`, {
            retriable: true,
          });
        let answers: PartitionAnswer[];
        try {
          const connection = await this.#producePool.get(broker);
          answers = await produceBatchesApi(version).async(
            connection,
            ACKS_ALL,
            this.#ackTimeoutMs,
            requestOf(sends),
          );
        } catch (error) {
          // Unreachable or hung: its leaderships are about to move; ask the others where to.
          this.#metadata.markFailed(broker);
          throw error;
        }
        return this.#settle(sends, answers);
      }),
    );
    let allDone = true;
    for (const r of results) {
      if (r.status === 'rejected') {
        const error = r.reason;
        if (error instanceof KafkaClientError && (!error.retriable || error.code === 'PRODUCER_STATE_LOST'))
          throw error;
        allDone = false;
      } else if (!r.value) allDone = false;
    }
    return allDone;
  }

  /** Applies one leader's answers; true when all its partitions are acknowledged. */
  #settle(sends: PartitionSend[], answers: PartitionAnswer[]): boolean {
    const byKey = new Map(answers.map((a) => [`${a.topic}:${a.partition}`, a]));
    let done = true;
    let lost: PartitionAnswer | undefined;
    let rejected: PartitionAnswer | undefined;
    for (const p of sends) {
      const key = `${p.topic}:${p.partition}`;
      const answer = byKey.get(key);
      const code = answer?.errorCode ?? Codes.REQUEST_TIMED_OUT;
      if (code === Codes.NONE || code === Codes.DUPLICATE_SEQUENCE_NUMBER) {
        // DUPLICATE_SEQUENCE_NUMBER: the broker already holds this exact batch: it is delivered.
        p.baseOffset = answer?.baseOffset ?? -1n;
        const next = (p.stamp?.baseSequence ?? 0) + p.batch.count;
        this.#sequences.set(key, next > INT32_MAX ? next - INT32_MAX - 1 : next);
      } else if (STATE_LOST.has(code)) {
        lost = answer;
        done = false;
      } else if (RETRIABLE.has(code)) {
        done = false;
      } else {
        rejected = answer;
        done = false;
      }
    }
    if (rejected) {
      throw new KafkaClientError(
        'PRODUCE_REJECTED',
        `${rejected.topic}:${rejected.partition} refused the batch (error ${rejected.errorCode}${rejected.errorMessage ? `: ${rejected.errorMessage}` : ''})`,
      );
    }
    if (lost) {
      throw new KafkaClientError(
        'PRODUCER_STATE_LOST',
        `${lost.topic}:${lost.partition} answered error ${lost.errorCode}: the broker no longer knows this producer's sequences; reset() to go on`,
        { retriable: true },
      );
    }
    return done;
  }

  async #ensureIdentity(): Promise<{ producerId: bigint; producerEpoch: number }> {
    if (this.#identity) return this.#identity;
    try {
      const info = await this.#client.initIdempotentProducer({});
      this.#identity = { producerId: info.producerId, producerEpoch: info.producerEpoch };
      this.#sequences.clear();
      return this.#identity;
    } catch (error) {
      throw new KafkaClientError('ADMIN_FAILED', `no producer id: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
  }

  async #produceVersion(): Promise<number> {
    if (this.#version !== undefined) return this.#version;
    const apis = await this.#client.listApis().catch((error: unknown) => {
      throw new KafkaClientError('ADMIN_FAILED', `api versions: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    });
    const produce = apis.find((a) => a.apiKey === PRODUCE_API_KEY);
    const version = Math.min(MAX_PRODUCE_VERSION, produce?.maxVersion ?? -1);
    if (!produce || version < MIN_PRODUCE_VERSION || version < produce.minVersion) {
      throw new KafkaClientError(
        'PRODUCE_REJECTED',
        `the broker supports no produce version in ${MIN_PRODUCE_VERSION}-${MAX_PRODUCE_VERSION}`,
      );
    }
    this.#version = version;
    return version;
  }
}

/** The request body of one leader's partitions: each batch stamped with its producer fields. */
function requestOf(sends: PartitionSend[]): TopicBatches[] {
  const byTopic = new Map<string, TopicBatches>();
  for (const p of sends) {
    let topic = byTopic.get(p.topic);
    if (!topic) {
      topic = { topic: p.topic, partitions: [] };
      byTopic.set(p.topic, topic);
    }
    const stamp = p.stamp;
    if (!stamp)
      throw new KafkaClientError('BATCH_INVALID', 'internal: a batch was sent without its producer fields');
    topic.partitions.push({ partition: p.partition, records: p.batch.encode(stamp) });
  }
  return [...byTopic.values()];
}
