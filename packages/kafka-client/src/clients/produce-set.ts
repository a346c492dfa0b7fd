/**
 * One send of BatchProducer: the record batches of some topics, laid out per partition for the
 * partition count the producer finds, and what of it the broker has acknowledged so far.
 *
 * The set keeps its layout and the sequence numbers it was given across attempts, so every retry
 * is the same batch with the same producer id, epoch and sequence, and the broker recognises the
 * part it already appended. Partition counts only grow, so a layout made for a smaller count stays
 * valid if the topic grows between attempts.
 */
import { KafkaClientError } from '../errors.js';
import type { EncodedBatch } from '../protocol/record-batch-builder.js';

export interface TopicRecords {
  topic: string;
  /**
   * Lays out the topic's records for `partitionCount` partitions: the batch of each partition that
   * gets records. Called once per set, when the producer knows the count (see BatchProducer.partitionCount
   * to lay out ahead of the send).
   */
  layout(partitionCount: number): ReadonlyMap<number, EncodedBatch>;
}

/** A partition's batch within a set, with the sequence it was sent under (if it was sent). */
export interface PartitionSend {
  readonly topic: string;
  readonly partition: number;
  readonly batch: EncodedBatch;
  /** Producer id, epoch and base sequence of the first attempt; kept for every retry. */
  stamp?: { producerId: bigint; producerEpoch: number; baseSequence: number };
  /** Set once the broker acknowledged the batch. */
  baseOffset?: bigint;
}

export class ProduceSet {
  readonly topics: readonly TopicRecords[];
  #partitions: PartitionSend[] | undefined;

  constructor(topics: readonly TopicRecords[]) {
    const names = new Set<string>();
    for (const { topic } of topics) {
      if (names.has(topic))
        throw new KafkaClientError('BATCH_INVALID', `topic "${topic}" appears twice in one send`);
      names.add(topic);
    }
    this.topics = topics;
  }

  /** Whether the layout was made (the set was attempted at least once). */
  get laidOut(): boolean {
    return this.#partitions !== undefined;
  }

  /** Records in the set (0 before layout). */
  get records(): number {
    return (this.#partitions ?? []).reduce((n, p) => n + p.batch.count, 0);
  }

  /** The partitions' batches, laid out once with the counts given the first time. */
  partitions(partitionCountOf: (topic: string) => number): readonly PartitionSend[] {
    if (this.#partitions) return this.#partitions;
    const out: PartitionSend[] = [];
    for (const { topic, layout } of this.topics) {
      const count = partitionCountOf(topic);
      for (const [partition, batch] of layout(count)) {
        if (!Number.isInteger(partition) || partition < 0 || partition >= count) {
          throw new KafkaClientError(
            'BATCH_INVALID',
            `${topic}: partition ${partition} outside 0..${count - 1}`,
          );
        }
        if (batch.count > 0) out.push({ topic, partition, batch });
      }
    }
    this.#partitions = out;
    return out;
  }

  /** Partitions not acknowledged yet. */
  unacknowledged(): PartitionSend[] {
    return (this.#partitions ?? []).filter((p) => p.baseOffset === undefined);
  }

  /** Forgets the stamps of unacknowledged partitions (after a producer reset: new id, new sequences). */
  unstamp(): void {
    for (const p of this.unacknowledged()) p.stamp = undefined;
  }
}
