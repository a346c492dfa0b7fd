/**
 * Partitions grouped by their leader broker, from the cluster's metadata (MetadataSource): the unit
 * of every per-broker request the consumer sends (Fetch, ListOffsets).
 */
import type { Broker } from '@platformatic/kafka';
import type { ClusterView } from '../cluster/metadata-source.js';

export interface LeaderGroup<T> {
  broker: Broker;
  items: T[];
}

/** Where leaders are looked up (MetadataSource; a stub in unit tests). */
export interface LeaderSource {
  leaders(topics: readonly string[], refresh: boolean): Promise<ClusterView>;
  markFailed(broker: Broker): void;
}

/**
 * `items` grouped by the leader of their partition, in first-seen order; the items whose partition
 * has no leader (or an unknown topic) come back in `leaderless`.
 */
export async function groupByLeader<T extends { topic: string; partition: number }>(
  source: LeaderSource,
  items: readonly T[],
  refresh: boolean,
): Promise<{ groups: LeaderGroup<T>[]; leaderless: T[] }> {
  const topics = [...new Set(items.map((i) => i.topic))];
  const metadata = await source.leaders(topics, refresh);
  const groups = new Map<number, LeaderGroup<T>>();
  const leaderless: T[] = [];
  for (const item of items) {
    const leader = metadata.topics.get(item.topic)?.partitions[item.partition]?.leader ?? -1;
    const broker = leader >= 0 ? metadata.brokers.get(leader) : undefined;
    if (!broker) {
      leaderless.push(item);
      continue;
    }
    let group = groups.get(leader);
    if (!group) {
      group = { broker, items: [] };
      groups.set(leader, group);
    }
    group.items.push(item);
  }
  return { groups: [...groups.values()], leaderless };
}
