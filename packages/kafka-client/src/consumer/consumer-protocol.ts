/**
 * The "consumer" embedded protocol of a classic consumer group: what a member subscribes to (the
 * JoinGroup protocol metadata) and what the leader assigns it (the SyncGroup assignment). Version
 * 0 is written; any version is read, as later ones only append fields (owned partitions,
 * generation, rack) that a round-robin assignor does not use.
 *
 *   ConsumerProtocolSubscription => version:int16 [topics:string] user_data:bytes ...
 *   ConsumerProtocolAssignment   => version:int16 [assigned: topic:string [partitions:int32]] user_data:bytes ...
 */
import { Reader, Writer } from '@platformatic/kafka';

export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

/** `userData`: what the group's own assignor needs to know of the member (none for round robin). */
export function encodeSubscription(topics: readonly string[], userData?: Buffer): Buffer {
  const w = Writer.create().appendInt16(0).appendInt32(topics.length);
  for (const topic of topics) w.appendString(topic, false);
  if (!userData) return w.appendInt32(-1).buffer;
  return Buffer.concat([w.appendInt32(userData.length).buffer, userData]);
}

/** The topics of a member's subscription; empty for metadata that is not a consumer subscription. */
export function decodeSubscription(metadata: Buffer): string[] {
  return decodeSubscriptionData(metadata).topics;
}

/** The topics and the user data (undefined when absent) of a member's subscription. */
export function decodeSubscriptionData(metadata: Buffer): { topics: string[]; userData: Buffer | undefined } {
  if (metadata.length < 6) return { topics: [], userData: undefined };
  const r = Reader.from(metadata);
  r.readInt16();
  const topics: string[] = [];
  for (let n = r.readInt32(); n > 0; n--) topics.push(r.readString(false));
  if (r.remaining < 4) return { topics, userData: undefined };
  const length = r.readInt32();
  if (length < 0 || r.remaining < length) return { topics, userData: undefined };
  return { topics, userData: Buffer.from(metadata.subarray(r.position, r.position + length)) };
}

export function encodeAssignment(assigned: readonly TopicPartitions[]): Buffer {
  const w = Writer.create().appendInt16(0).appendInt32(assigned.length);
  for (const { topic, partitions } of assigned) {
    w.appendString(topic, false).appendInt32(partitions.length);
    for (const p of partitions) w.appendInt32(p);
  }
  return w.appendInt32(-1).buffer;
}

/** A member's assignment; empty when the leader assigned it nothing (an empty buffer). */
export function decodeAssignment(assignment: Buffer): TopicPartitions[] {
  if (assignment.length < 6) return [];
  const r = Reader.from(assignment);
  r.readInt16();
  const out: TopicPartitions[] = [];
  for (let t = r.readInt32(); t > 0; t--) {
    const topic = r.readString(false);
    const partitions: number[] = [];
    for (let p = r.readInt32(); p > 0; p--) partitions.push(r.readInt32());
    out.push({ topic, partitions });
  }
  return out;
}
