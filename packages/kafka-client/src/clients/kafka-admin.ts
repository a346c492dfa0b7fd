/**
 * The admin operations the project needs, on @platformatic/kafka's Admin: topics that exist with
 * their leaders elected, a topic's offsets, the cluster id, a group's committed offsets.
 */

import type { OptionsSchema } from '@feedpipe/config';
import { Backoff, sleep } from '@feedpipe/retry';
import { Admin } from '@platformatic/kafka';
import { describe, KafkaClientError } from '../errors.js';
import { CONNECTION_OPTIONS, type ConnectionOptions, DURATION_MS, readClientOptions } from '../options.js';

export interface PartitionOffsets {
  partition: number;
  /** First offset still in the log. */
  low: bigint;
  /** Offset the next record will get (high watermark). */
  high: bigint;
}

/** Where a partition lives: its leader, its replicas and which of them are in sync (broker ids). */
export interface PartitionState {
  topic: string;
  partition: number;
  /** -1 while it has none. */
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
}

/** A broker the cluster's metadata lists (registered and not fenced). */
export interface BrokerInfo {
  id: number;
  host: string;
  port: number;
}

export interface EnsureTopicsOptions {
  /** Partitions of topics created here. Default: the broker's num.partitions. */
  partitions?: number;
  /** Replication factor of topics created here. Default: the broker's default. */
  replicas?: number;
  /** How long to wait for every partition to have a leader (ms). Default 30,000. */
  timeoutMs?: number;
}

const ADMIN_OPTIONS = {
  ...CONNECTION_OPTIONS,
  clientId: { kind: 'string', default: 'feedpipe-admin' },
} as const satisfies OptionsSchema;

/** A count the broker takes, or -1 for its own default. */
const BROKER_COUNT = { kind: 'integer', min: -1, max: 1_000_000, default: -1 } as const;

const ENSURE_TOPICS_OPTIONS = {
  partitions: BROKER_COUNT,
  replicas: BROKER_COUNT,
  timeoutMs: { ...DURATION_MS, default: 30_000 },
} as const satisfies OptionsSchema;

const LATEST = -1n;
const EARLIEST = -2n;

export class KafkaAdmin {
  readonly #admin: Admin;

  constructor(options: ConnectionOptions) {
    const o = readClientOptions('admin', ADMIN_OPTIONS, options);
    this.#admin = new Admin({
      clientId: o.clientId,
      bootstrapBrokers: [...o.brokers],
      timeout: o.requestTimeoutMs,
      retries: 3,
      retryDelay: 250,
    });
  }

  /**
   * ensureTopics on an admin of its own, closed after: for a process that makes its topics once at
   * start and has no other use for an admin. Waits 60 s by default (a broker started beside the
   * process may still be electing leaders).
   */
  static async ensureTopicsOnce(
    brokers: readonly string[],
    topics: readonly string[],
    options: EnsureTopicsOptions = {},
  ): Promise<void> {
    const admin = new KafkaAdmin({ brokers, clientId: 'feedpipe-admin' });
    try {
      await admin.ensureTopics(topics, { timeoutMs: 60_000, ...options });
    } finally {
      await admin.close();
    }
  }

  /** The cluster id (what the sink stores beside each row). */
  async clusterId(): Promise<string> {
    const metadata = await this.#admin.metadata({ topics: [] }).catch((error: unknown) => {
      throw new KafkaClientError('ADMIN_FAILED', `cluster metadata: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    });
    return metadata.id;
  }

  /**
   * Creates the topics that do not exist yet and waits until every partition of each has a
   * leader. Bounded: TOPIC_NOT_READY after `timeoutMs`. A topic created meanwhile by someone else
   * is fine.
   */
  async ensureTopics(topics: readonly string[], options: EnsureTopicsOptions = {}): Promise<void> {
    const o = readClientOptions('ensureTopics', ENSURE_TOPICS_OPTIONS, options);
    const deadline = Date.now() + o.timeoutMs;
    const backoff = new Backoff({ initialMs: 100, maxMs: 1_000, floor: 0.5 });
    let lastError: unknown;
    for (;;) {
      try {
        const existing = new Set(await this.#admin.listTopics());
        const missing = topics.filter((t) => !existing.has(t));
        if (missing.length > 0) {
          await this.#admin
            .createTopics({
              topics: missing,
              partitions: o.partitions,
              replicas: o.replicas,
            })
            .catch((error: unknown) => {
              // Created by another client between the listing and our request: that is what we wanted.
              if (!String(describe(error)).includes('already exists')) throw error;
            });
        }
        if (await this.#leadersReady(topics)) return;
      } catch (error) {
        lastError = error;
      }
      if (Date.now() >= deadline) {
        throw new KafkaClientError(
          'TOPIC_NOT_READY',
          `topics ${topics.join(', ')} not ready${lastError ? `: ${describe(lastError)}` : ''}`,
          {
            retriable: true,
            cause: lastError,
          },
        );
      }
      await sleep(backoff.next());
    }
  }

  /** The brokers the cluster's metadata lists now (live ones: a fenced or stopped broker drops out). */
  async brokers(): Promise<BrokerInfo[]> {
    const metadata = await this.#admin.metadata({ topics: [], forceUpdate: true }).catch((error: unknown) => {
      throw new KafkaClientError('ADMIN_FAILED', `cluster metadata: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    });
    return [...metadata.brokers]
      .map(([id, b]) => ({ id, host: b.host, port: b.port }))
      .sort((a, b) => a.id - b.id);
  }

  /** Leader, replicas and in-sync replicas of every partition of `topics`, fresh from the cluster. */
  async partitionStates(topics: readonly string[]): Promise<PartitionState[]> {
    const metadata = await this.#admin
      .metadata({ topics: [...topics], forceUpdate: true })
      .catch((error: unknown) => {
        throw new KafkaClientError('ADMIN_FAILED', `metadata of ${topics.join(', ')}: ${describe(error)}`, {
          retriable: true,
          cause: error,
        });
      });
    const out: PartitionState[] = [];
    for (const topic of topics) {
      const partitions = metadata.topics.get(topic)?.partitions ?? [];
      for (const [partition, p] of partitions.entries()) {
        if (!p) continue;
        out.push({
          topic,
          partition,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          replicas: [...p.replicas],
          isr: [...p.isr],
        });
      }
    }
    return out;
  }

  /** Low and high offsets of every partition of `topic`. */
  async topicOffsets(topic: string): Promise<PartitionOffsets[]> {
    try {
      const metadata = await this.#admin.metadata({ topics: [topic], forceUpdate: true });
      const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
      const partitions = Array.from({ length: count }, (_, partitionIndex) => partitionIndex);
      const ask = (timestamp: bigint) =>
        this.#admin.listOffsets({
          topics: [
            { name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })) },
          ],
        });
      const [lows, highs] = await Promise.all([ask(EARLIEST), ask(LATEST)]);
      const lowOf = new Map((lows[0]?.partitions ?? []).map((p) => [p.partitionIndex, p.offset]));
      return (highs[0]?.partitions ?? [])
        .map((p) => ({ partition: p.partitionIndex, low: lowOf.get(p.partitionIndex) ?? 0n, high: p.offset }))
        .sort((a, b) => a.partition - b.partition);
    } catch (error) {
      throw new KafkaClientError('ADMIN_FAILED', `offsets of ${topic}: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
  }

  /** The group's committed offset per partition of `topic` (partitions without one are left out). */
  async committedOffsets(groupId: string, topic: string): Promise<Map<number, bigint>> {
    try {
      const groups = await this.#admin.listConsumerGroupOffsets({ groups: [groupId] });
      const out = new Map<number, bigint>();
      for (const t of groups[0]?.topics ?? []) {
        if (t.name !== topic) continue;
        for (const p of t.partitions)
          if (p.committedOffset >= 0n) out.set(p.partitionIndex, p.committedOffset);
      }
      return out;
    } catch (error) {
      throw new KafkaClientError('ADMIN_FAILED', `committed offsets of ${groupId}: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    }
  }

  async deleteTopics(topics: readonly string[]): Promise<void> {
    await this.#admin.deleteTopics({ topics: [...topics] }).catch((error: unknown) => {
      throw new KafkaClientError('ADMIN_FAILED', `delete ${topics.join(', ')}: ${describe(error)}`, {
        retriable: true,
        cause: error,
      });
    });
  }

  async close(): Promise<void> {
    await this.#admin.close().catch(() => undefined);
  }

  async #leadersReady(topics: readonly string[]): Promise<boolean> {
    const metadata = await this.#admin.metadata({ topics: [...topics], forceUpdate: true });
    return topics.every((topic) => {
      const t = metadata.topics.get(topic);
      return (
        t !== undefined &&
        t.partitionsCount > 0 &&
        t.partitions.every((p) => p !== undefined && p.leader >= 0)
      );
    });
  }
}
