/**
 * Where each partition's leader is, asked of the cluster's brokers in turn (Metadata v12 over
 * @platformatic/kafka's wire API), for the producer's and the consumers' per-leader requests.
 *
 * Why not the library client's `metadata()`: it asks the bootstrap brokers in their listed order
 * first, with the client's request timeout, on one shared connection. On a cluster, a hung broker
 * (a stop-the-world pause, SIGSTOP: its sockets accept and never answer) listed first then costs
 * every refresh that whole timeout, exactly when leaders are moving and the refresh matters; the
 * bench measured 20 s stalls of the whole pipeline for a 20 s hang. Here:
 * - each broker gets a short timeout of its own (`timeoutMs`, default 3 s), on a pool of its own;
 * - the broker that answered last is asked first; one that failed is "suspect" for 10 s and asked
 *   only after the others; a request to a broker that failed elsewhere (`markFailed`) counts too;
 * - an answer that carries partition errors (a leader being elected) is still an answer: those
 *   partitions come back with leader -1 and the caller retries them.
 * Bounded: every known broker is tried at most once per call; then ADMIN_FAILED (retriable).
 */
import { type Broker, ConnectionPool, metadataV12 } from '@platformatic/kafka';
import { describe, KafkaClientError } from '../errors.js';
import { responseOf } from '../protocol/broker-errors.js';

export interface PartitionView {
  /** Broker id of the leader; -1 while there is none. */
  leader: number;
}

export interface TopicView {
  partitionsCount: number;
  partitions: PartitionView[];
}

export interface ClusterView {
  brokers: ReadonlyMap<number, Broker>;
  topics: ReadonlyMap<string, TopicView>;
}

export interface MetadataSourceOptions {
  clientId: string;
  bootstrap: readonly Broker[];
  /** Per-broker timeout of one metadata request (ms). Default 3,000. */
  timeoutMs?: number;
  /** Whether asking for a missing topic creates it (broker defaults). Default false. */
  autocreateTopics?: boolean;
}

const SUSPECT_MS = 10_000;
const keyOf = (b: Broker) => `${b.host}:${b.port}`;

export class MetadataSource {
  readonly #pool: ConnectionPool;
  readonly #bootstrap: readonly Broker[];
  readonly #autocreate: boolean;
  readonly #brokers = new Map<number, Broker>();
  readonly #topics = new Map<string, TopicView>();
  readonly #suspectUntil = new Map<string, number>();
  #preferred: Broker | undefined;

  constructor(options: MetadataSourceOptions) {
    const timeout = options.timeoutMs ?? 3_000;
    this.#pool = new ConnectionPool(options.clientId, { requestTimeout: timeout, connectTimeout: timeout });
    this.#bootstrap = options.bootstrap;
    this.#autocreate = options.autocreateTopics ?? false;
  }

  /** Leaders of `topics`: from the last answer unless `refresh` or a topic is not known yet. */
  async leaders(topics: readonly string[], refresh: boolean): Promise<ClusterView> {
    if (refresh || topics.some((t) => !this.#topics.has(t))) await this.#ask(topics);
    return { brokers: this.#brokers, topics: this.#topics };
  }

  /** A request to `broker` failed: ask the others first for a while. */
  markFailed(broker: Broker): void {
    this.#suspectUntil.set(keyOf(broker), Date.now() + SUSPECT_MS);
    if (this.#preferred && keyOf(this.#preferred) === keyOf(broker)) this.#preferred = undefined;
  }

  async close(): Promise<void> {
    await this.#pool.close().catch(() => undefined);
  }

  /** Brokers to ask, best first: the last that answered, the others, then the suspects. */
  #candidates(): Broker[] {
    const seen = new Set<string>();
    const all: Broker[] = [];
    for (const b of [
      ...(this.#preferred ? [this.#preferred] : []),
      ...this.#brokers.values(),
      ...this.#bootstrap,
    ]) {
      if (seen.has(keyOf(b))) continue;
      seen.add(keyOf(b));
      all.push(b);
    }
    const now = Date.now();
    const suspect = (b: Broker) => (this.#suspectUntil.get(keyOf(b)) ?? 0) > now;
    return [...all.filter((b) => !suspect(b)), ...all.filter(suspect)];
  }

  async #ask(topics: readonly string[]): Promise<void> {
    let lastError: unknown;
    for (const broker of this.#candidates()) {
      let answer: metadataV12.MetadataResponse | undefined;
      try {
        const connection = await this.#pool.get(broker);
        answer = await metadataV12.api.async(
          connection,
          topics.map((name) => ({ name })),
          this.#autocreate,
          false,
        );
      } catch (error) {
        // Partition or topic errors still carry the cluster's answer; anything else: the next broker.
        answer = responseOf<metadataV12.MetadataResponse>(error);
        if (!answer?.brokers) {
          lastError = error;
          this.markFailed(broker);
          continue;
        }
      }
      this.#apply(answer);
      this.#preferred = broker;
      this.#suspectUntil.delete(keyOf(broker));
      return;
    }
    throw new KafkaClientError(
      'ADMIN_FAILED',
      `no broker answered for the metadata of ${topics.join(', ')}: ${describe(lastError)}`,
      { retriable: true, cause: lastError },
    );
  }

  #apply(answer: metadataV12.MetadataResponse): void {
    if (answer.brokers.length > 0) {
      this.#brokers.clear();
      for (const b of answer.brokers) this.#brokers.set(b.nodeId, { host: b.host, port: b.port });
    }
    for (const t of answer.topics) {
      if (!t.name) continue;
      const partitions: PartitionView[] = [];
      for (const p of t.partitions) {
        partitions[p.partitionIndex] = { leader: p.errorCode === 0 ? p.leaderId : -1 };
      }
      this.#topics.set(t.name, { partitionsCount: t.partitions.length, partitions });
    }
  }
}
