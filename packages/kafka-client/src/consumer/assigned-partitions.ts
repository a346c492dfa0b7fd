/**
 * The partitions this member holds in the current generation, each with its position (the next
 * offset to hand over), and which of them the owner paused.
 *
 * Pauses are the owner's and outlive a rebalance: a partition paused and then reassigned to this
 * member stays paused until `resume`. Positions do not: a new assignment starts from the group's
 * committed offsets.
 */
import type { TopicPartitions } from './consumer-protocol.js';
import type { FetchTarget } from './fetcher.js';

/** Start from the committed offset (or, without one, per the reset policy). */
export const FROM_COMMITTED = -1;
/** The position fell outside the log (OFFSET_OUT_OF_RANGE): start per the reset policy. */
export const FROM_RESET_POLICY = -2;

export interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** Next offset to hand over, or FROM_COMMITTED / FROM_RESET_POLICY while unknown. */
  position: number;
}

function keyOf(topic: string, partition: number): string {
  return `${topic}:${partition}`;
}

export class AssignedPartitions {
  readonly #states = new Map<string, PartitionState>();
  readonly #paused = new Set<string>();
  #allPaused = false;
  #round = 0;

  assign(assignment: readonly TopicPartitions[]): void {
    this.#states.clear();
    for (const { topic, partitions } of assignment) {
      for (const partition of partitions) {
        this.#states.set(keyOf(topic, partition), { topic, partition, position: FROM_COMMITTED });
      }
    }
  }

  /** Adds one partition (a group-less reader discovering it) unless it is held already. */
  add(topic: string, partition: number, position: number): void {
    const key = keyOf(topic, partition);
    if (!this.#states.has(key)) this.#states.set(key, { topic, partition, position });
  }

  clear(): void {
    this.#states.clear();
  }

  get size(): number {
    return this.#states.size;
  }

  get(topic: string, partition: number): PartitionState | undefined {
    return this.#states.get(keyOf(topic, partition));
  }

  /** The assignment, grouped by topic. */
  list(): TopicPartitions[] {
    const byTopic = new Map<string, number[]>();
    for (const s of this.#states.values()) {
      const list = byTopic.get(s.topic) ?? [];
      list.push(s.partition);
      byTopic.set(s.topic, list);
    }
    return [...byTopic].map(([topic, partitions]) => ({
      topic,
      partitions: partitions.sort((a, b) => a - b),
    }));
  }

  /** Partitions whose position is not known yet. */
  unresolved(): PartitionState[] {
    return [...this.#states.values()].filter((s) => s.position < 0);
  }

  /**
   * What to fetch now: every resolved, unpaused partition, starting one further along each round,
   * so a partition at the end of a full response is first in the next request (a broker fills the
   * response in request order; without rotation a busy first partition could starve the last).
   */
  fetchable(): FetchTarget[] {
    const out: FetchTarget[] = [];
    if (this.#allPaused) return out;
    for (const s of this.#states.values()) {
      if (s.position >= 0 && !this.#paused.has(keyOf(s.topic, s.partition))) {
        out.push({ topic: s.topic, partition: s.partition, offset: s.position });
      }
    }
    if (out.length > 1) {
      const shift = this.#round++ % out.length;
      return [...out.slice(shift), ...out.slice(0, shift)];
    }
    return out;
  }

  isPaused(topic: string, partition: number): boolean {
    return this.#allPaused || this.#paused.has(keyOf(topic, partition));
  }

  /** Pauses the given partitions, or the whole consumer without an argument. */
  pause(partitions?: readonly TopicPartitions[]): void {
    if (!partitions) {
      this.#allPaused = true;
      return;
    }
    for (const { topic, partitions: list } of partitions) {
      for (const p of list) this.#paused.add(keyOf(topic, p));
    }
  }

  /** Resumes the given partitions, or lifts the consumer-wide pause without an argument (partition pauses stay). */
  resume(partitions?: readonly TopicPartitions[]): void {
    if (!partitions) {
      this.#allPaused = false;
      return;
    }
    for (const { topic, partitions: list } of partitions) {
      for (const p of list) this.#paused.delete(keyOf(topic, p));
    }
  }
}
