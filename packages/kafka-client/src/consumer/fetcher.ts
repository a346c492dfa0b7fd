/**
 * One fetch round: a Fetch request to each leader of the partitions to read, all in flight
 * together, over a connection pool of their own (a long poll must not hold up heartbeats or
 * commits queued behind it on the same connection: a broker answers one connection's requests in
 * order). Answers come back undecoded; the consumer decodes each partition as it hands it over.
 */
import type { Base, ConnectionPool } from '@platformatic/kafka';
import { describe, KafkaClientError } from '../errors.js';
import {
  FETCH_API_KEY,
  type FetchPartitionAnswer,
  type FetchTopicRequest,
  fetchRecordsApi,
  MAX_FETCH_VERSION,
  MIN_FETCH_VERSION,
} from '../protocol/fetch-records.js';
import { groupByLeader, type LeaderSource } from './leaders.js';

/**
 * How long a fetch may take beyond its long poll (maxWaitMs) before its leader counts as
 * unreachable. Short on purpose: a hung broker (a stop-the-world pause) keeps its sockets open and
 * answers nothing, and a round waits for every leader it asked; the request timeout (30 s) would
 * stall every partition that long (the bench's 20 s hang stalled the sink 20 s). A false alarm on a
 * loaded machine costs one reconnect and a retry of the same offsets, nothing else.
 */
export const DEFAULT_FETCH_MARGIN_MS = 5_000;

export interface FetchLimits {
  maxWaitMs: number;
  minBytes: number;
  /** Per request (so per broker). */
  maxBytes: number;
  maxBytesPerPartition: number;
}

export interface FetchTarget {
  topic: string;
  partition: number;
  /** The offset asked for. */
  offset: number;
}

export interface FetchRound {
  /** Each partition's answer with the target it answers, leader by leader. */
  answers: Array<{ target: FetchTarget; answer: FetchPartitionAnswer }>;
  /** Leaders whose request failed (their partitions are fetched again after a backoff). */
  failures: KafkaClientError[];
  /** Partitions with no known leader. */
  leaderless: FetchTarget[];
  bytes: number;
}

export class Fetcher {
  readonly #client: Base;
  readonly #pool: ConnectionPool;
  readonly #limits: FetchLimits;
  readonly #source: LeaderSource;
  #version: number | undefined;

  constructor(client: Base, pool: ConnectionPool, limits: FetchLimits, source: LeaderSource) {
    this.#client = client;
    this.#source = source;
    this.#pool = pool;
    this.#limits = limits;
  }

  /** The Fetch version to use: the newest both sides have, within 4-11 (asked once). */
  async version(): Promise<number> {
    if (this.#version !== undefined) return this.#version;
    const apis = await this.#client.listApis();
    const fetch = apis.find((a) => a.apiKey === FETCH_API_KEY);
    const version = Math.min(MAX_FETCH_VERSION, fetch?.maxVersion ?? -1);
    if (!fetch || version < MIN_FETCH_VERSION || version < fetch.minVersion) {
      throw new KafkaClientError(
        'CONSUMER_FAILED',
        `the broker serves no Fetch version in ${MIN_FETCH_VERSION}-${MAX_FETCH_VERSION}`,
      );
    }
    this.#version = version;
    return version;
  }

  async fetch(targets: readonly FetchTarget[], refreshMetadata: boolean): Promise<FetchRound> {
    const version = await this.version();
    const { groups, leaderless } = await groupByLeader(this.#source, targets, refreshMetadata);
    const round: FetchRound = { answers: [], failures: [], leaderless, bytes: 0 };
    const limits = this.#limits;
    const settled = await Promise.allSettled(
      groups.map(async ({ broker, items }) => {
        const byTopic = new Map<string, FetchTopicRequest>();
        const byKey = new Map<string, FetchTarget>();
        for (const target of items) {
          let topic = byTopic.get(target.topic);
          if (!topic) {
            topic = { topic: target.topic, partitions: [] };
            byTopic.set(target.topic, topic);
          }
          topic.partitions.push({
            partition: target.partition,
            offset: target.offset,
            maxBytes: limits.maxBytesPerPartition,
          });
          byKey.set(`${target.topic}:${target.partition}`, target);
        }
        const connection = await this.#pool.get(broker);
        const answer = await fetchRecordsApi(version).async(
          connection,
          limits.maxWaitMs,
          limits.minBytes,
          limits.maxBytes,
          [...byTopic.values()],
          version,
        );
        if (answer.errorCode !== 0) {
          throw new KafkaClientError(
            'FETCH_FAILED',
            `fetch from ${broker.host}:${broker.port}: error ${answer.errorCode}`,
            {
              retriable: true,
            },
          );
        }
        return { answer, byKey };
      }),
    );
    for (const [i, result] of settled.entries()) {
      if (result.status === 'rejected') {
        const broker = groups[i]?.broker;
        if (broker) this.#source.markFailed(broker);
        round.failures.push(
          result.reason instanceof KafkaClientError
            ? result.reason
            : new KafkaClientError(
                'FETCH_FAILED',
                `fetch from ${broker?.host}:${broker?.port}: ${describe(result.reason)}`,
                {
                  retriable: true,
                  cause: result.reason,
                },
              ),
        );
        continue;
      }
      const { answer, byKey } = result.value;
      round.bytes += answer.bytes;
      for (const p of answer.partitions) {
        const target = byKey.get(`${p.topic}:${p.partition}`);
        if (target) round.answers.push({ target, answer: p });
      }
    }
    return round;
  }
}
