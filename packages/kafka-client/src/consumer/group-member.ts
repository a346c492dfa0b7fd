/**
 * Membership of a classic consumer group, driven by us over @platformatic/kafka's public wire APIs
 * (FindCoordinator v6, JoinGroup v9, SyncGroup v5, Heartbeat v4, LeaveGroup v5, OffsetCommit v9,
 * OffsetFetch v9) and its connections.
 *
 * Why not the library's Consumer: it rejoins by itself the moment a rebalance starts, so a member
 * cannot finish and commit what it holds first; and it fetches for itself. Here the owner decides
 * when to join: `join()` runs the JoinGroup/SyncGroup round (this member assigns when it is the
 * leader), heartbeats run on their own timer while the owner works, and a heartbeat that learns
 * the generation is over only reports it (`onRejoin`); the owner stops, flushes, commits (allowed
 * while the group prepares the rebalance) and calls `join()` again.
 *
 * JoinGroup waits at the coordinator until every member joined (up to the rebalance timeout), so
 * it goes over its own connection pool whose request timeout outlasts that wait; heartbeats and
 * commits use the client's pool and its ordinary timeout.
 */

import { Backoff, sleep } from '@feedpipe/retry';
import {
  type Base,
  type Broker,
  type Connection,
  type ConnectionPool,
  findCoordinatorV6,
  heartbeatV4,
  joinGroupV9,
  leaveGroupV5,
  offsetCommitV9,
  offsetFetchV9,
  syncGroupV5,
} from '@platformatic/kafka';
import { describe, KafkaClientError } from '../errors.js';
import {
  BrokerError,
  brokerErrorCodes,
  COORDINATOR_MOVED,
  JOIN_FATAL,
  REJOIN_NEEDED,
  responseOf,
} from '../protocol/broker-errors.js';
import {
  decodeAssignment,
  decodeSubscriptionData,
  encodeAssignment,
  encodeSubscription,
  type TopicPartitions,
} from './consumer-protocol.js';
import { ASSIGNOR_PROTOCOLS, assignRoundRobin } from './round-robin-assignor.js';

const GROUP_KEY_TYPE = 0;
const PROTOCOL_TYPE = 'consumer';

/** The wire API versions used here, checked against the broker's ApiVersions once. */
export const GROUP_APIS: ReadonlyArray<readonly [name: string, key: number, version: number]> = [
  ['FindCoordinator', 10, 6],
  ['JoinGroup', 11, 9],
  ['SyncGroup', 14, 5],
  ['Heartbeat', 12, 4],
  ['LeaveGroup', 13, 5],
  ['OffsetCommit', 8, 9],
  ['OffsetFetch', 9, 9],
];

export interface GroupMemberOptions {
  groupId: string;
  topics: readonly string[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  retryBackoffMs: readonly [number, number];
  /** Metadata (partition counts for the leader's assignment) and the pool for heartbeats and commits. */
  client: Base;
  /** The pool for JoinGroup and SyncGroup (request timeout above the rebalance timeout). */
  joinPool: ConnectionPool;
  /**
   * The pool for FindCoordinator, heartbeats, commits, offset fetches and LeaveGroup: a request
   * timeout well inside the session (half of it), so a hung coordinator is given up and found
   * again (it moves within seconds on a cluster) before the session runs out.
   */
  coordinatorPool: ConnectionPool;
  bootstrap: readonly Broker[];
  /** A transient failure worth telling (the member keeps trying). */
  onError: (error: KafkaClientError) => void;
  /** The group's own assignment rule; round robin (Java's `roundrobin`) when not given. */
  assignor?: GroupAssignor;
}

/** A member's subscription as the group leader's assignor sees it. */
export interface MemberMetadata {
  memberId: string;
  topics: readonly string[];
  userData: Buffer | undefined;
}

/**
 * An assignment rule of the group's own (every member must offer the same protocol name): the
 * user data each member sends with its JoinGroup, read fresh for every join, and the rule the
 * member that happens to lead the group applies to all of them.
 */
export interface GroupAssignor {
  readonly protocol: string;
  userData(): Buffer;
  assign(
    members: readonly MemberMetadata[],
    partitionCounts: ReadonlyMap<string, number>,
  ): Map<string, TopicPartitions[]>;
}

export interface JoinResult {
  memberId: string;
  generationId: number;
  leader: boolean;
  assignment: TopicPartitions[];
}

export class GroupMember {
  readonly #o: GroupMemberOptions;
  #memberId = '';
  #generationId = -1;
  #coordinator: Broker | undefined;
  /** Where the next FindCoordinator starts in the bootstrap list. */
  #findFrom = 0;
  #heartbeat: { timer: NodeJS.Timeout | undefined; running: Promise<void> | undefined } | undefined;
  #lastHeartbeatAt = 0;
  /** performance.now() when the last request the coordinator answered as a live member was sent. */
  #confirmedSentAt = Number.NEGATIVE_INFINITY;

  constructor(options: GroupMemberOptions) {
    this.#o = options;
  }

  get memberId(): string {
    return this.#memberId;
  }

  get generationId(): number {
    return this.#generationId;
  }

  /**
   * When (performance.now(), ms) the last SyncGroup or heartbeat that the coordinator accepted was
   * sent. The coordinator received it later, so its session for this member runs at least until
   * this moment plus the session timeout: a lease that ends before that is safe on this clock.
   */
  get confirmedSentAt(): number {
    return this.#confirmedSentAt;
  }

  /** When the last heartbeat was acknowledged (ms since the epoch; 0 before the first). */
  get lastHeartbeatAt(): number {
    return this.#lastHeartbeatAt;
  }

  /**
   * Joins (or rejoins) the group and returns this member's assignment. Retries transient failures
   * with backoff until it succeeds or `stopped()` says to give up (then CONSUMER_FAILED, retriable);
   * errors no retry can fix (a bad session timeout, authorisation) throw CONSUMER_FAILED at once.
   */
  async join(stopped: () => boolean): Promise<JoinResult> {
    const backoff = new Backoff({
      initialMs: this.#o.retryBackoffMs[0],
      maxMs: this.#o.retryBackoffMs[1],
      floor: 0.5,
    });
    this.#generationId = -1;
    let failures = 0;
    while (!stopped()) {
      try {
        return await this.#joinRound();
      } catch (error) {
        failures += 1;
        // A rebalance that began between our JoinGroup and SyncGroup, or a member id to drop:
        // join again at once, a few times (the coordinator paces a rebalance by itself).
        if (this.#classifyJoinFailure(error) === 'again' && failures < 5) continue;
        // A new group's coordinator is often not ready on the first tries: tell only of a streak.
        if (failures >= 3) {
          this.#o.onError(
            new KafkaClientError(
              'GROUP_FAILED',
              `group ${this.#o.groupId}: join failed: ${describe(error)}`,
              {
                retriable: true,
                cause: error,
              },
            ),
          );
        }
      }
      if (stopped()) break;
      await sleep(backoff.next());
    }
    throw new KafkaClientError('CONSUMER_FAILED', `group ${this.#o.groupId}: stopped while joining`, {
      retriable: true,
    });
  }

  /** One JoinGroup (twice for a new member, KIP-394) and SyncGroup; the leader assigns in between. */
  async #joinRound(): Promise<JoinResult> {
    const coordinator = await this.#coordinatorConnection(this.#o.joinPool);
    const { assignor } = this.#o;
    const subscription = encodeSubscription(this.#o.topics, assignor?.userData());
    const protocols = assignor ? [assignor.protocol] : ASSIGNOR_PROTOCOLS;
    const request = () =>
      joinGroupV9.api.async(
        coordinator,
        this.#o.groupId,
        this.#o.sessionTimeoutMs,
        this.#o.rebalanceTimeoutMs,
        this.#memberId,
        null,
        PROTOCOL_TYPE,
        protocols.map((name) => ({ name, metadata: subscription })),
        null,
      );
    let joined: joinGroupV9.JoinGroupResponse;
    try {
      joined = await request();
    } catch (error) {
      // A new member's first join is answered with its member id, to join with.
      const answer = responseOf<{ memberId?: string }>(error);
      if (!brokerErrorCodes(error).includes(BrokerError.MEMBER_ID_REQUIRED) || !answer?.memberId) throw error;
      this.#memberId = answer.memberId;
      joined = await request();
    }
    this.#memberId = joined.memberId;
    const leader = joined.leader === joined.memberId;
    const assignments = leader ? await this.#assign(joined.members) : [];
    const syncSentAt = performance.now();
    const synced = await syncGroupV5.api.async(
      coordinator,
      this.#o.groupId,
      joined.generationId,
      joined.memberId,
      null,
      PROTOCOL_TYPE,
      joined.protocolName,
      assignments,
    );
    this.#generationId = joined.generationId;
    this.#confirmedSentAt = syncSentAt;
    return {
      memberId: joined.memberId,
      generationId: joined.generationId,
      leader,
      assignment: decodeAssignment(synced.assignment),
    };
  }

  /** After a failed join round: 'again' at once or after a 'backoff'; throws CONSUMER_FAILED when no retry can help. */
  #classifyJoinFailure(error: unknown): 'again' | 'backoff' {
    const codes = brokerErrorCodes(error);
    const fatal = codes.find((c) => JOIN_FATAL.has(c));
    if (fatal !== undefined) {
      throw new KafkaClientError(
        'CONSUMER_FAILED',
        `group ${this.#o.groupId}: join refused (broker error ${fatal}: ${describe(error)})`,
        { cause: error },
      );
    }
    if (codes.length === 0 || codes.some((c) => COORDINATOR_MOVED.has(c))) this.#coordinator = undefined;
    if (codes.includes(BrokerError.UNKNOWN_MEMBER_ID) || codes.includes(BrokerError.FENCED_INSTANCE_ID)) {
      this.#memberId = '';
      return 'again';
    }
    return codes.includes(BrokerError.REBALANCE_IN_PROGRESS) || codes.includes(BrokerError.ILLEGAL_GENERATION)
      ? 'again'
      : 'backoff';
  }

  /**
   * Heartbeats every interval until `stopHeartbeats()`. When the coordinator says this generation is
   * over, heartbeats stop and `onRejoin(lost)` is called once: `lost` when the member was removed
   * (its partitions may already be someone else's), else a rebalance is merely under way.
   */
  startHeartbeats(onRejoin: (lost: boolean) => void): void {
    if (this.#heartbeat) return;
    const state: { timer: NodeJS.Timeout | undefined; running: Promise<void> | undefined } = {
      timer: undefined,
      running: undefined,
    };
    this.#heartbeat = state;
    const tick = (): void => {
      state.running = this.#beat().then((verdict) => {
        state.running = undefined;
        if (this.#heartbeat !== state) return;
        if (verdict === 'ok' || verdict === 'retry') {
          state.timer = setTimeout(tick, this.#o.heartbeatIntervalMs);
          return;
        }
        this.#heartbeat = undefined;
        onRejoin(verdict === 'lost');
      });
    };
    state.timer = setTimeout(tick, this.#o.heartbeatIntervalMs);
  }

  async stopHeartbeats(): Promise<void> {
    const state = this.#heartbeat;
    this.#heartbeat = undefined;
    if (!state) return;
    clearTimeout(state.timer);
    await state.running;
  }

  /** Commits the next offsets to read, under this member's generation. Throws COMMIT_FAILED (retriable). */
  async commit(offsets: ReadonlyArray<{ topic: string; partition: number; offset: bigint }>): Promise<void> {
    if (this.#generationId < 0) {
      throw new KafkaClientError(
        'COMMIT_FAILED',
        `group ${this.#o.groupId}: not a member of a generation now`,
        {
          retriable: true,
        },
      );
    }
    const byTopic = new Map<string, offsetCommitV9.OffsetCommitRequestPartition[]>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({
        partitionIndex: o.partition,
        committedOffset: o.offset,
        committedLeaderEpoch: -1,
        committedMetadata: null,
      });
      byTopic.set(o.topic, list);
    }
    const topics = [...byTopic].map(([name, partitions]) => ({ name, partitions }));
    await this.#withCoordinator('commit', (c) =>
      offsetCommitV9.api.async(c, this.#o.groupId, this.#generationId, this.#memberId, null, topics),
    ).catch((error: unknown) => {
      throw new KafkaClientError(
        'COMMIT_FAILED',
        `group ${this.#o.groupId}: commit of ${offsets.length} partitions failed: ${describe(error)}`,
        { retriable: true, cause: error },
      );
    });
  }

  /** The group's committed offsets of `partitions` (-1 where it has none). */
  async committed(partitions: readonly TopicPartitions[]): Promise<Map<string, bigint>> {
    const answer = await this.#withCoordinator('offset fetch', (c) =>
      offsetFetchV9.api.async(
        c,
        [
          {
            groupId: this.#o.groupId,
            memberId: null,
            memberEpoch: -1,
            topics: partitions.map((p) => ({ name: p.topic, partitionIndexes: [...p.partitions] })),
          },
        ],
        false,
      ),
    );
    const out = new Map<string, bigint>();
    for (const group of answer.groups) {
      for (const topic of group.topics) {
        for (const p of topic.partitions) out.set(`${topic.name}:${p.partitionIndex}`, p.committedOffset);
      }
    }
    return out;
  }

  /** Leaves the group so its partitions move at once (not after the session timeout). Best effort, bounded. */
  async leave(): Promise<void> {
    await this.stopHeartbeats();
    if (this.#memberId === '') return;
    const memberId = this.#memberId;
    this.#memberId = '';
    this.#generationId = -1;
    try {
      const coordinator = await this.#coordinatorConnection(this.#o.coordinatorPool);
      await leaveGroupV5.api.async(coordinator, this.#o.groupId, [
        { memberId, groupInstanceId: null, reason: 'consumer stopped' },
      ]);
    } catch {
      // Not fatal: the coordinator removes the member when its session times out.
    }
  }

  /** Forgets the member id (after the coordinator removed it, a new one is needed). */
  resetMemberId(): void {
    this.#memberId = '';
    this.#generationId = -1;
  }

  /** One heartbeat: 'ok', 'retry' (coordinator unreachable or moved), 'rebalance' or 'lost'. */
  async #beat(): Promise<'ok' | 'retry' | 'rebalance' | 'lost'> {
    try {
      const coordinator = await this.#coordinatorConnection(this.#o.coordinatorPool);
      const sentAt = performance.now();
      await heartbeatV4.api.async(coordinator, this.#o.groupId, this.#generationId, this.#memberId, null);
      this.#lastHeartbeatAt = Date.now();
      this.#confirmedSentAt = sentAt;
      return 'ok';
    } catch (error) {
      const codes = brokerErrorCodes(error);
      if (codes.includes(BrokerError.REBALANCE_IN_PROGRESS)) return 'rebalance';
      if (codes.includes(BrokerError.UNKNOWN_MEMBER_ID) || codes.includes(BrokerError.FENCED_INSTANCE_ID)) {
        this.resetMemberId();
        return 'lost';
      }
      if (codes.some((c) => REJOIN_NEEDED.has(c))) return 'lost';
      this.#coordinator = undefined;
      this.#o.onError(
        new KafkaClientError(
          'GROUP_FAILED',
          `group ${this.#o.groupId}: heartbeat failed: ${describe(error)}`,
          {
            retriable: true,
            cause: error,
          },
        ),
      );
      return 'retry';
    }
  }

  /** Runs `request` on the coordinator, finding it again (up to 3 tries) when it moved. */
  async #withCoordinator<T>(what: string, request: (c: Connection) => Promise<T>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await request(await this.#coordinatorConnection(this.#o.coordinatorPool));
      } catch (error) {
        lastError = error;
        const codes = brokerErrorCodes(error);
        if (codes.length > 0 && !codes.some((c) => COORDINATOR_MOVED.has(c))) break;
        this.#coordinator = undefined;
        await sleep(this.#o.retryBackoffMs[0] * (attempt + 1));
      }
    }
    const codes = brokerErrorCodes(lastError);
    throw new KafkaClientError(
      'GROUP_FAILED',
      `group ${this.#o.groupId}: ${what} failed: ${describe(lastError)}`,
      {
        retriable: codes.length === 0 || codes.some((c) => COORDINATOR_MOVED.has(c) || REJOIN_NEEDED.has(c)),
        cause: lastError,
      },
    );
  }

  async #coordinatorConnection(pool: ConnectionPool): Promise<Connection> {
    this.#coordinator ??= await this.#findCoordinator();
    return pool.get(this.#coordinator);
  }

  /**
   * Asks the bootstrap brokers in turn, each within the coordinator pool's short timeout, starting
   * after the one asked last time it failed: a hung broker listed first must not answer for the
   * whole cluster. Bounded: each broker once.
   */
  async #findCoordinator(): Promise<Broker> {
    const brokers = this.#o.bootstrap;
    let lastError: unknown;
    for (let i = 0; i < brokers.length; i++) {
      const index = (this.#findFrom + i) % brokers.length;
      const broker = brokers[index] as Broker;
      try {
        const connection = await this.#o.coordinatorPool.get(broker);
        const answer = await findCoordinatorV6.api.async(connection, GROUP_KEY_TYPE, [this.#o.groupId]);
        const found = answer.coordinators[0];
        if (found && found.nodeId >= 0) {
          // Next time (the coordinator failed) start with the following broker.
          this.#findFrom = index + 1;
          return { host: found.host, port: found.port };
        }
        lastError = new KafkaClientError('GROUP_FAILED', `no coordinator for group ${this.#o.groupId}`);
      } catch (error) {
        lastError = error;
      }
    }
    this.#findFrom += 1;
    throw lastError;
  }

  /** The leader's SyncGroup assignments: by the group's assignor, else round robin. */
  async #assign(
    members: joinGroupV9.JoinGroupResponseMember[],
  ): Promise<syncGroupV5.SyncGroupRequestAssignment[]> {
    const subscriptions = members.map((m) => ({
      memberId: m.memberId,
      ...decodeSubscriptionData(m.metadata),
    }));
    const topics = [...new Set(subscriptions.flatMap((s) => s.topics))];
    const metadata = await this.#o.client.metadata({ topics, forceUpdate: true });
    const counts = new Map(topics.map((t) => [t, metadata.topics.get(t)?.partitionsCount ?? 0]));
    const assigned = this.#o.assignor
      ? this.#o.assignor.assign(subscriptions, counts)
      : assignRoundRobin(subscriptions, counts);
    return [...assigned].map(([memberId, partitions]) => ({
      memberId,
      assignment: encodeAssignment(partitions),
    }));
  }
}
