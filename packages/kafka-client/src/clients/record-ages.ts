/**
 * How long Kafka will still keep what a consumer has not read: the timestamp of the record at a
 * given offset (the group's committed offset: its oldest unread record) and each topic's
 * retention.ms. A consumer held back (the sink paused by its disk guard) uses them to say how long
 * it may stay behind before retention deletes records it never stored.
 *
 * One Fetch per leader for all the asked partitions, at their offsets, with the smallest
 * per-partition limit: a broker still returns the first record batch whole (it never splits one),
 * so an answer costs one batch per partition, and only the first record's timestamp is read.
 * retention.ms comes from DescribeConfigs (the topic's own value, else the broker's default).
 */
import type { OptionsSchema } from '@feedpipe/config';
import { Admin, ConfigResourceTypes, ConnectionPool } from '@platformatic/kafka';
import { MetadataSource } from '../cluster/metadata-source.js';
import { DEFAULT_FETCH_MARGIN_MS, Fetcher, type FetchTarget } from '../consumer/fetcher.js';
import { describe, KafkaClientError } from '../errors.js';
import { brokerOf, CONNECTION_OPTIONS, type ConnectionOptions, readClientOptions } from '../options.js';
import { BrokerError } from '../protocol/broker-errors.js';
import { readPartitionRecords } from '../protocol/record-batch-reader.js';

export interface RecordAgeTarget {
  topic: string;
  partition: number;
  /** The offset whose record's timestamp is wanted (e.g. the committed offset). */
  offset: bigint;
}

export type RecordAt =
  /** The record's timestamp (ms since the epoch). */
  | { kind: 'record'; timestamp: number }
  /** No record there yet (the offset is the high watermark): nothing waits. */
  | { kind: 'none' }
  /** The offset is below the log's start: records there were deleted before being read. */
  | { kind: 'deleted'; logStartOffset: bigint };

/** ListOffsets' timestamp for "the log start". */
const EARLIEST = -2n;
/** Partitions per Fetch: a response carries one whole first batch of each (up to ~1 MB apiece). */
const PARTITIONS_PER_FETCH = 8;

const RECORD_AGES_OPTIONS = {
  ...CONNECTION_OPTIONS,
  clientId: { kind: 'string', default: 'feedpipe-record-ages' },
} as const satisfies OptionsSchema;

export class RecordAges {
  readonly #admin: Admin;
  readonly #pool: ConnectionPool;
  readonly #metadata: MetadataSource;
  readonly #fetcher: Fetcher;

  constructor(options: ConnectionOptions) {
    const { clientId, brokers, requestTimeoutMs } = readClientOptions(
      'record ages',
      RECORD_AGES_OPTIONS,
      options,
    );
    this.#admin = new Admin({
      clientId,
      bootstrapBrokers: [...brokers],
      timeout: requestTimeoutMs,
      retries: 1,
      retryDelay: 250,
    });
    this.#pool = new ConnectionPool(clientId, {
      requestTimeout: DEFAULT_FETCH_MARGIN_MS,
      connectTimeout: 5_000,
    });
    this.#metadata = new MetadataSource({ clientId, bootstrap: brokers.map(brokerOf) });
    // No long poll: an offset with no record answers at once (empty), and 1 byte per partition
    // means "the first batch only".
    this.#fetcher = new Fetcher(
      this.#admin,
      this.#pool,
      { maxWaitMs: 0, minBytes: 0, maxBytes: 16 * 1024 * 1024, maxBytesPerPartition: 1 },
      this.#metadata,
    );
  }

  /** retention.ms of each topic (-1: unlimited). ADMIN_FAILED (retriable) when the cluster does not answer. */
  async retentionMs(topics: readonly string[]): Promise<Map<string, number>> {
    try {
      const described = await this.#admin.describeConfigs({
        resources: topics.map((name) => ({
          resourceType: ConfigResourceTypes.TOPIC,
          resourceName: name,
          configurationKeys: ['retention.ms'],
        })),
      });
      const out = new Map<string, number>();
      for (const resource of described) {
        const value = resource.configs.find((c) => c.name === 'retention.ms')?.value;
        if (value !== null && value !== undefined) out.set(resource.resourceName, Number(value));
      }
      return out;
    } catch (error) {
      throw new KafkaClientError('ADMIN_FAILED', `retention.ms of ${topics.join(', ')}: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
  }

  /**
   * What is at each target's offset, keyed `topic:partition`. Partitions whose leader failed, or
   * that a full response had no room for, are left out (unknown until the next call). Asked
   * PARTITIONS_PER_FETCH at a time, so one response holds at most that many first batches.
   */
  async at(targets: readonly RecordAgeTarget[]): Promise<Map<string, RecordAt>> {
    const out = new Map<string, RecordAt>();
    for (let i = 0; i < targets.length; i += PARTITIONS_PER_FETCH) {
      await this.#fetchInto(targets.slice(i, i + PARTITIONS_PER_FETCH), out);
    }
    return out;
  }

  async #fetchInto(targets: readonly RecordAgeTarget[], out: Map<string, RecordAt>): Promise<void> {
    const fetchTargets: FetchTarget[] = targets.map((t) => ({
      topic: t.topic,
      partition: t.partition,
      offset: Number(t.offset),
    }));
    let round: Awaited<ReturnType<Fetcher['fetch']>>;
    try {
      round = await this.#fetcher.fetch(fetchTargets, true);
    } catch (error) {
      throw new KafkaClientError('FETCH_FAILED', `record ages: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
    const outOfRange: FetchTarget[] = [];
    for (const { target, answer } of round.answers) {
      const key = `${target.topic}:${target.partition}`;
      if (answer.errorCode === BrokerError.OFFSET_OUT_OF_RANGE) {
        outOfRange.push(target);
        continue;
      }
      if (answer.errorCode !== BrokerError.NONE) continue;
      const batch = readPartitionRecords(answer, target.offset, false);
      if (batch.count > 0) out.set(key, { kind: 'record', timestamp: batch.timestamp(0) });
      // Empty below the high watermark: the response was full before this partition (unknown).
      else if (BigInt(target.offset) >= answer.highWatermark) out.set(key, { kind: 'none' });
    }
    if (outOfRange.length > 0) await this.#outOfRange(outOfRange, out);
  }

  /**
   * An offset out of range is below the log start (records deleted unread) or beyond the end (none
   * yet); the error answer carries no offsets (-1), so the log start is asked for.
   */
  async #outOfRange(targets: readonly FetchTarget[], out: Map<string, RecordAt>): Promise<void> {
    const byTopic = new Map<string, FetchTarget[]>();
    for (const t of targets) byTopic.set(t.topic, [...(byTopic.get(t.topic) ?? []), t]);
    let listed: Awaited<ReturnType<Admin['listOffsets']>>;
    try {
      listed = await this.#admin.listOffsets({
        topics: [...byTopic].map(([name, list]) => ({
          name,
          partitions: list.map((t) => ({ partitionIndex: t.partition, timestamp: EARLIEST })),
        })),
      });
    } catch (error) {
      throw new KafkaClientError('ADMIN_FAILED', `record ages, log start: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
    const start = new Map<string, bigint>();
    for (const topic of listed)
      for (const p of topic.partitions) start.set(`${topic.name}:${p.partitionIndex}`, p.offset);
    for (const t of targets) {
      const key = `${t.topic}:${t.partition}`;
      const logStart = start.get(key);
      if (logStart === undefined) continue;
      out.set(
        key,
        BigInt(t.offset) < logStart ? { kind: 'deleted', logStartOffset: logStart } : { kind: 'none' },
      );
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#pool.close(), this.#metadata.close(), this.#admin.close()]);
  }
}
