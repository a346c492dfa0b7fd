/**
 * A consumer-group member that hands records over in batches per topic-partition, with manual
 * commits, on @platformatic/kafka's Consumer and its messages stream.
 *
 * The library delivers one message at a time; this collects the messages of a burst (what arrived
 * before the event loop turned, or `maxBatchRecords`) per partition and calls `eachBatch` once per
 * partition, in offset order, with the stream paused while the handler runs (its backpressure:
 * nothing more is fetched until the handler returned). Offsets are committed only when the caller
 * says so (`commit`), so a record is read again after a crash unless the caller committed it.
 */
import { Consumer, type Message, type MessagesStream } from '@platformatic/kafka';
import { describe, KafkaClientError } from '../errors.js';
import { CONNECTION_KEYS, type ConnectionOptions, checkOptions } from '../options.js';

/** One consumed record: the library's message, seen through the fields this project reads. */
export interface ConsumedRecord {
  readonly offset: bigint;
  readonly key: Buffer | undefined;
  readonly value: Buffer | undefined;
  readonly timestamp: bigint;
  /** Header name and value pairs, in record order (names as bytes, as on the wire). */
  readonly headerEntries: ReadonlyArray<readonly [Buffer, Buffer]>;
}

export interface RecordBatch {
  readonly topic: string;
  readonly partition: number;
  /** In offset order; the last one's offset + 1 is what to commit once they are stored. */
  readonly records: readonly ConsumedRecord[];
}

/** The value of header `name` of `record` (the last one if repeated), or undefined. */
export function headerValue(record: ConsumedRecord, name: string): Buffer | undefined {
  const entries = record.headerEntries;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as readonly [Buffer, Buffer];
    if (entry[0].length === name.length && entry[0].toString('latin1') === name) return entry[1];
  }
  return undefined;
}

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

export interface BatchConsumerOptions extends ConnectionOptions {
  groupId: string;
  topics: readonly string[];
  /** Called once per partition batch; the stream is paused until it resolves. */
  eachBatch: (batch: RecordBatch) => Promise<void> | void;
  /** Where a partition without a committed offset starts. Default `earliest`. */
  fromBeginning?: boolean;
  /** Most records handed over in one batch. Default 20,000. */
  maxBatchRecords?: number;
  /** Session timeout (ms): how long a crashed member holds its partitions. Default 10,000. */
  sessionTimeoutMs?: number;
  /** Heartbeat interval (ms). Default min(3,000, session / 3). */
  heartbeatIntervalMs?: number;
  /** Bytes per fetch and per partition. Defaults 4 MiB and 1 MiB. */
  maxBytes?: number;
  maxBytesPerPartition?: number;
  /** Longest a fetch waits for data (ms). Default 500. */
  maxWaitMs?: number;
  /** The group is rebalancing: partitions may move (flush what you hold). */
  onRebalance?: () => void;
  /** This member joined the group with these partitions. */
  onAssigned?: (assignments: { topic: string; partitions: number[] }[], memberId: string) => void;
  /** The stream failed (the consumer is stopped; start a new one). */
  onError?: (error: KafkaClientError) => void;
}

const KNOWN = [
  ...CONNECTION_KEYS,
  'groupId',
  'topics',
  'eachBatch',
  'fromBeginning',
  'maxBatchRecords',
  'sessionTimeoutMs',
  'heartbeatIntervalMs',
  'maxBytes',
  'maxBytesPerPartition',
  'maxWaitMs',
  'onRebalance',
  'onAssigned',
  'onError',
];
const POSITIVE = [
  'requestTimeoutMs',
  'maxBatchRecords',
  'sessionTimeoutMs',
  'heartbeatIntervalMs',
  'maxBytes',
  'maxBytesPerPartition',
  'maxWaitMs',
];

export class BatchConsumer {
  readonly #options: BatchConsumerOptions;
  readonly #consumer: Consumer;
  readonly #maxBatch: number;
  #stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  /** Messages of the current burst, per `topic\0partition`, in arrival (offset) order. */
  #pending = new Map<string, Message[]>();
  #pendingCount = 0;
  #draining = false;
  #drainScheduled = false;
  #userPaused = false;
  #stopped = false;

  constructor(options: BatchConsumerOptions) {
    checkOptions('batch consumer', options, KNOWN, POSITIVE);
    if (typeof options.groupId !== 'string' || options.groupId === '') {
      throw new KafkaClientError(
        'CONFIG_INVALID',
        'batch consumer option "groupId" must be a non-empty string',
      );
    }
    if (!Array.isArray(options.topics) || options.topics.length === 0) {
      throw new KafkaClientError(
        'CONFIG_INVALID',
        'batch consumer option "topics" must list at least one topic',
      );
    }
    if (typeof options.eachBatch !== 'function') {
      throw new KafkaClientError('CONFIG_INVALID', 'batch consumer option "eachBatch" must be a function');
    }
    this.#options = options;
    this.#maxBatch = options.maxBatchRecords ?? 20_000;
    const session = options.sessionTimeoutMs ?? 10_000;
    this.#consumer = new Consumer({
      clientId: options.clientId ?? 'feedpipe',
      bootstrapBrokers: [...options.brokers],
      groupId: options.groupId,
      timeout: options.requestTimeoutMs ?? 30_000,
      sessionTimeout: session,
      heartbeatInterval: options.heartbeatIntervalMs ?? Math.min(3_000, Math.floor(session / 3)),
      rebalanceTimeout: Math.max(session, 30_000),
      autocommit: false,
      maxBytes: options.maxBytes ?? 4 * 1024 * 1024,
      maxBytesPerPartition: options.maxBytesPerPartition ?? 1024 * 1024,
      maxWaitTime: options.maxWaitMs ?? 500,
      retries: 10,
      retryDelay: 300,
    });
    this.#consumer.on('consumer:group:rebalance', () => options.onRebalance?.());
    this.#consumer.on('consumer:group:join', (payload) => {
      const assignments = (payload.assignments ?? []).map((a) => ({
        topic: a.topic,
        partitions: [...a.partitions],
      }));
      options.onAssigned?.(assignments, payload.memberId);
    });
  }

  get memberId(): string | null {
    return this.#consumer.memberId;
  }

  /** Joins the group and starts fetching from the committed offsets (or the start/end of the topic). */
  async start(): Promise<void> {
    if (this.#stream) return;
    try {
      this.#stream = await this.#consumer.consume({
        topics: [...this.#options.topics],
        mode: 'committed',
        fallbackMode: this.#options.fromBeginning === false ? 'latest' : 'earliest',
        autocommit: false,
        // Messages the stream may hold before it stops fetching: one batch's worth, so a fetch's
        // records are handed over in one burst instead of the library's small default window.
        highWaterMark: this.#maxBatch,
      });
    } catch (error) {
      throw new KafkaClientError(
        'CONSUMER_FAILED',
        `could not join group ${this.#options.groupId}: ${describe(error)}`,
        {
          retriable: true,
          cause: error,
        },
      );
    }
    const stream = this.#stream;
    stream.on('data', (message: Message) => this.#onMessage(message));
    stream.on('error', (error: Error) => {
      if (this.#stopped) return;
      this.#options.onError?.(
        new KafkaClientError('CONSUMER_FAILED', `consumer stream failed: ${describe(error)}`, {
          retriable: true,
          cause: error,
        }),
      );
    });
  }

  /** Stops taking new batches (fetching stops once the current ones are handed over). */
  pause(): void {
    this.#userPaused = true;
    this.#stream?.pause();
  }

  resume(): void {
    this.#userPaused = false;
    if (!this.#draining) this.#stream?.resume();
  }

  /** Commits the next offsets to read per partition (after the records before them were stored). */
  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return;
    try {
      await this.#consumer.commit({
        offsets: offsets.map((o) => ({
          topic: o.topic,
          partition: o.partition,
          offset: o.offset,
          leaderEpoch: -1,
        })),
      });
    } catch (error) {
      throw new KafkaClientError(
        'COMMIT_FAILED',
        `commit of ${offsets.length} partitions failed: ${describe(error)}`,
        {
          retriable: true,
          cause: error,
        },
      );
    }
  }

  /** Committed offset, high watermark and lag of every partition of the topics. */
  async lag(topics: readonly string[] = this.#options.topics): Promise<PartitionLag[]> {
    try {
      const [highs, committed] = await Promise.all([
        this.#consumer.listOffsets({ topics: [...topics] }),
        this.#consumer.listCommittedOffsets({
          topics: await Promise.all(
            topics.map(async (topic) => {
              const meta = await this.#consumer.metadata({ topics: [topic] });
              const count = meta.topics.get(topic)?.partitionsCount ?? 0;
              return { topic, partitions: Array.from({ length: count }, (_, i) => i) };
            }),
          ),
        }),
      ]);
      const out: PartitionLag[] = [];
      for (const topic of topics) {
        const high = highs.get(topic) ?? [];
        const done = committed.get(topic) ?? [];
        high.forEach((highWatermark, partition) => {
          const c = done[partition] ?? -1n;
          const base = c < 0n ? 0n : c;
          out.push({
            topic,
            partition,
            committed: base,
            highWatermark,
            lag: highWatermark > base ? highWatermark - base : 0n,
          });
        });
      }
      return out;
    } catch (error) {
      throw new KafkaClientError('ADMIN_FAILED', `lag of ${topics.join(',')}: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
  }

  /** Hands over what is collected, leaves the group and closes. Uncommitted records are read again by the next member. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stream?.pause();
    while (this.#draining) await new Promise((r) => setTimeout(r, 5));
    this.#pending.clear();
    this.#pendingCount = 0;
    await this.#stream?.close().catch(() => undefined);
    await this.#consumer.close(true).catch(() => undefined);
  }

  #onMessage(message: Message): void {
    if (this.#stopped) return;
    const key = `${message.topic}\0${message.partition}`;
    let list = this.#pending.get(key);
    if (!list) {
      list = [];
      this.#pending.set(key, list);
    }
    list.push(message);
    this.#pendingCount += 1;
    // Bounded: at a full batch nothing more is taken until the handler had it.
    if (this.#pendingCount >= this.#maxBatch) this.#stream?.pause();
    if (!this.#drainScheduled) {
      this.#drainScheduled = true;
      setImmediate(() => void this.#drain());
    }
  }

  async #drain(): Promise<void> {
    this.#drainScheduled = false;
    if (this.#draining || this.#pendingCount === 0) return;
    this.#draining = true;
    this.#stream?.pause();
    try {
      while (this.#pendingCount > 0 && !this.#stopped) {
        const batches = this.#pending;
        this.#pending = new Map();
        this.#pendingCount = 0;
        for (const records of batches.values()) {
          const first = records[0] as Message;
          for (let at = 0; at < records.length; at += this.#maxBatch) {
            const slice =
              at === 0 && records.length <= this.#maxBatch ? records : records.slice(at, at + this.#maxBatch);
            await this.#options.eachBatch({ topic: first.topic, partition: first.partition, records: slice });
          }
        }
      }
    } catch (error) {
      this.#options.onError?.(
        new KafkaClientError('CONSUMER_FAILED', `eachBatch failed: ${describe(error)}`, {
          retriable: false,
          cause: error,
        }),
      );
      this.#stopped = true;
    } finally {
      this.#draining = false;
      if (!this.#userPaused && !this.#stopped) this.#stream?.resume();
    }
  }
}
