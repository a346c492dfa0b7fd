/**
 * The group leader's assignor: every subscribed partition, in topic then partition order, to the
 * members in turn (sorted by member id), skipping members not subscribed to the topic. The same
 * rule as Java's `roundrobin` (the protocol name other Node clients' round-robin assigners offer
 * too), so a group may mix those members with ours while a service moves from one client to the
 * other.
 */
import type { TopicPartitions } from './consumer-protocol.js';

/** Protocol names offered in JoinGroup, preferred first. */
export const ASSIGNOR_PROTOCOLS = ['roundrobin', 'RoundRobinAssigner'] as const;

export interface MemberSubscription {
  memberId: string;
  topics: readonly string[];
}

/** Each member's partitions (every member gets an entry, possibly empty). */
export function assignRoundRobin(
  members: readonly MemberSubscription[],
  partitionCounts: ReadonlyMap<string, number>,
): Map<string, TopicPartitions[]> {
  const sorted = [...members].sort((a, b) =>
    a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0,
  );
  const out = new Map<string, Map<string, number[]>>(sorted.map((m) => [m.memberId, new Map()]));
  const subscribed = sorted.map((m) => new Set(m.topics));
  const topics = [...new Set(sorted.flatMap((m) => m.topics))].sort();
  let turn = 0;
  for (const topic of topics) {
    const count = partitionCounts.get(topic) ?? 0;
    for (let partition = 0; partition < count; partition++) {
      // Bounded: at most one lap of the members finds a subscriber (the topic came from one).
      for (let tries = 0; tries < sorted.length; tries++) {
        const index = turn % sorted.length;
        turn += 1;
        if (!subscribed[index]?.has(topic)) continue;
        const member = sorted[index] as MemberSubscription;
        const byTopic = out.get(member.memberId) as Map<string, number[]>;
        const list = byTopic.get(topic) ?? [];
        list.push(partition);
        byTopic.set(topic, list);
        break;
      }
    }
  }
  return new Map(
    [...out].map(([memberId, byTopic]) => [
      memberId,
      [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
    ]),
  );
}
