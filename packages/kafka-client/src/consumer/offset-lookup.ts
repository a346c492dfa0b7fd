/**
 * A partition's earliest or latest offset, asked of its leader (ListOffsets v9 over the library's
 * API): where a member starts without a committed offset, where it goes after OFFSET_OUT_OF_RANGE,
 * and the high watermarks of `lag()`.
 */
import { type Base, listOffsetsV9 } from '@platformatic/kafka';
import { describe, KafkaClientError } from '../errors.js';
import { groupByLeader, type LeaderSource } from './leaders.js';

export const EARLIEST = -2n;
export const LATEST = -1n;
const READ_UNCOMMITTED = 0;

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** The offset at `timestamp` (EARLIEST or LATEST) of each partition, keyed `topic:partition`. */
export async function listOffsets(
  client: Base,
  source: LeaderSource,
  partitions: readonly TopicPartition[],
  timestamp: bigint,
): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (partitions.length === 0) return out;
  try {
    const { groups, leaderless } = await groupByLeader(source, partitions, true);
    if (leaderless.length > 0) {
      throw new KafkaClientError(
        'FETCH_FAILED',
        `no leader for ${leaderless.map((p) => `${p.topic}:${p.partition}`).join(', ')}`,
        { retriable: true },
      );
    }
    await Promise.all(
      groups.map(async ({ broker, items }) => {
        const byTopic = new Map<string, listOffsetsV9.ListOffsetsRequestPartition[]>();
        for (const { topic, partition } of items) {
          const list = byTopic.get(topic) ?? [];
          list.push({ partitionIndex: partition, currentLeaderEpoch: -1, timestamp });
          byTopic.set(topic, list);
        }
        const connection = await client.connections.get(broker);
        const answer = await listOffsetsV9.api.async(
          connection,
          -1,
          READ_UNCOMMITTED,
          [...byTopic].map(([name, list]) => ({ name, partitions: list })),
        );
        for (const topic of answer.topics) {
          for (const p of topic.partitions) out.set(`${topic.name}:${p.partitionIndex}`, p.offset);
        }
      }),
    );
  } catch (error) {
    if (error instanceof KafkaClientError) throw error;
    throw new KafkaClientError('FETCH_FAILED', `list offsets: ${describe(error)}`, {
      retriable: true,
      cause: error,
    });
  }
  return out;
}
