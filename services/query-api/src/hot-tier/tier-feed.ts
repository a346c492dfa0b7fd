/**
 * Keeps the hot tier current from the trades topic: a group-less tail (each API instance holds its
 * own tier) that starts each partition at the offset after the sink's stored mark (tier-loader.ts),
 * so the trades ClickHouse gave and the trades Kafka gives meet without a gap or an overlap.
 * Records the sink would not store (other types, invalid values, copies by source identity) are
 * not added either. Backpressure is the tail's: the next fetch goes out once a batch is added.
 */
import { SOURCE_HEADER } from '@feedpipe/contracts';
import { type KafkaClientError, type PartitionBatch, TopicTail } from '@feedpipe/kafka-client';
import { CopyFilter } from './copy-filter.js';
import type { HotTier } from './hot-tier.js';
import { parseTradeValue } from './trade-value.js';

export interface TierFeedOptions {
  brokers: readonly string[];
  topic: string;
  /** Highest stored offset per partition (the load's marks): reading starts one after. */
  marks: ReadonlyMap<number, number>;
  /** Offsets to reach (the end of each partition when the load began) before the tier is ready. */
  catchUpTo: ReadonlyMap<number, number>;
  onCaughtUp: () => void;
  onError: (error: KafkaClientError) => void;
  /** Counts of what the feed handed over. */
  onRecords?: (added: number, skipped: number) => void;
}

export class TierFeed {
  readonly #tier: HotTier;
  readonly #options: TierFeedOptions;
  readonly #copies = new CopyFilter();
  readonly #behind: Map<number, number>;
  readonly #tail: TopicTail;

  constructor(tier: HotTier, options: TierFeedOptions) {
    this.#tier = tier;
    this.#options = options;
    this.#behind = new Map(
      [...options.catchUpTo].filter(([p, end]) => end > (options.marks.get(p) ?? -1) + 1),
    );
    this.#tail = new TopicTail({
      brokers: options.brokers,
      clientId: 'query-api-hot-tier',
      topics: [options.topic],
      from: 'earliest',
      startAt: (_topic, partition) => {
        const mark = options.marks.get(partition);
        return mark === undefined ? undefined : mark + 1;
      },
      eachBatch: (batch) => this.#add(batch),
      onError: options.onError,
    });
  }

  async start(): Promise<void> {
    await this.#tail.start();
    if (this.#behind.size === 0) this.#options.onCaughtUp();
  }

  async stop(): Promise<void> {
    await this.#tail.stop();
  }

  #add(batch: PartitionBatch): void {
    let added = 0;
    let skipped = 0;
    for (let i = 0; i < batch.count; i++) {
      const value = batch.value(i);
      const trade = value === undefined ? null : parseTradeValue(value);
      if (trade === null || this.#copies.isCopy(batch.partition, batch.header(i, SOURCE_HEADER))) {
        skipped++;
        continue;
      }
      this.#tier.add(trade.securityId, trade.ltt, trade.ltp, trade.volume, trade.receivedAt, batch.offset(i));
      added++;
    }
    this.#options.onRecords?.(added, skipped);
    const end = this.#behind.get(batch.partition);
    if (end !== undefined && Number(batch.nextOffset) >= end) {
      this.#behind.delete(batch.partition);
      if (this.#behind.size === 0) this.#options.onCaughtUp();
    }
  }
}
