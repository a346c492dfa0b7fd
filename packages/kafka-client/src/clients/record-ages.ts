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
import { Admin, ConfigResourceTypes, ConnectionPool } from '@platformatic/kafka';
import { MetadataSource } from '../cluster/metadata-source.js';
import { DEFAULT_FETCH_MARGIN_MS, Fetcher, type FetchTarget } from '../consumer/fetcher.js';
import { describe, KafkaClientError } from '../errors.js';
import { brokerOf, CONNECTION_KEYS, type ConnectionOptions, checkOptions } from '../options.js';
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

export class RecordAges {
  readonly #admin: Admin;
  readonly #pool: ConnectionPool;
  readonly #metadata: MetadataSource;
  readonly #fetcher: Fetcher;

  constructor(options: ConnectionOptions) {
    checkOptions('record ages', options, CONNECTION_KEYS, ['requestTimeoutMs']);
    const clientId = options.clientId ?? 'feedpipe-record-ages';
    const timeout = options.requestTimeoutMs ?? 30_000;
    this.#admin = new Admin({
      clientId,
      bootstrapBrokers: [...options.brokers],
      timeout,
      retries: 1,
      retryDelay: 250,
    });
    this.#pool = new ConnectionPool(clientId, {
      requestTimeout: DEFAULT_FETCH_MARGIN_MS,
      connectTimeout: 5_000,
    });
    this.#metadata = new MetadataSource({ clientId, bootstrap: options.brokers.map(brokerOf) });
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

  /** What is at each target's offset, keyed `topic:partition`; partitions whose leader failed are left out. */
  async at(targets: readonly RecordAgeTarget[]): Promise<Map<string, RecordAt>> {
    const out = new Map<string, RecordAt>();
    if (targets.length === 0) return out;
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
    for (const { target, answer } of round.answers) {
      const key = `${target.topic}:${target.partition}`;
      if (answer.errorCode === BrokerError.OFFSET_OUT_OF_RANGE) {
        // Below the log start, records were deleted unread; above the high watermark, none exist yet.
        if (BigInt(target.offset) < answer.logStartOffset || answer.logStartOffset < 0n)
          out.set(key, { kind: 'deleted', logStartOffset: answer.logStartOffset });
        else out.set(key, { kind: 'none' });
        continue;
      }
      if (answer.errorCode !== BrokerError.NONE) continue;
      const batch = readPartitionRecords(answer, target.offset, false);
      out.set(key, batch.count > 0 ? { kind: 'record', timestamp: batch.timestamp(0) } : { kind: 'none' });
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#pool.close(), this.#metadata.close(), this.#admin.close()]);
  }
}
