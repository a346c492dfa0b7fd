/**
 * One leader among processes, decided by Kafka: every process is a member of one consumer group
 * subscribed to a one-partition control topic, and the member the group assigns partition 0 leads.
 * Kafka's coordinator already decides membership (heartbeats, session expiry, rebalances), so no
 * protocol of our own has to be proven; this module adds the two rules Kafka's own assignors lack.
 *
 * - **Sticky.** A member that joins must not take leadership from a leader that is alive, or every
 *   standby restart would move the feed. Each member's JoinGroup carries whether it holds the
 *   partition now (and since which generation); the assignor (run by whichever member leads the
 *   group round) keeps partition 0 with its holder, and gives it to the longest-running member
 *   only when nobody holds it.
 * - **Fenced by a lease.** A leader that is frozen or cut off is removed by the coordinator once its
 *   session expires, and another member is assigned the partition. The old leader must have stopped
 *   by then, and it cannot be told. So it leads only while its lease runs: from the moment it *sent*
 *   the last heartbeat (or SyncGroup) the coordinator accepted, for the session timeout minus a
 *   margin. The coordinator received that request later, so it cannot expire the session before the
 *   lease ends. A process that wakes after a freeze finds its lease over before it does anything
 *   (callers ask `leading()` on their data path, not only on a timer, which a frozen process runs
 *   late).
 *
 * The rebalance timeout equals the session timeout: a member removed for not rejoining in time has
 * also outlived its lease.
 */
import type { OptionsSchema } from '@feedpipe/config';
import { Base, ConnectionPool } from '@platformatic/kafka';
import type { TopicPartitions } from '../consumer/consumer-protocol.js';
import { type GroupAssignor, GroupMember, type MemberMetadata } from '../consumer/group-member.js';
import { KafkaClientError } from '../errors.js';
import { brokerOf, CONNECTION_OPTIONS, DURATION_MS, type Resolved, readClientOptions } from '../options.js';
import { KafkaAdmin } from './kafka-admin.js';

export interface KafkaLeadershipOptions {
  brokers: readonly string[];
  clientId?: string;
  groupId: string;
  /** The control topic (created with one partition when missing). */
  topic: string;
  /** The coordinator's session; a dead leader is replaced after it. Default 3 000 ms. */
  sessionTimeoutMs?: number;
  /** Default a sixth of the session. */
  heartbeatIntervalMs?: number;
  /** How long before the coordinator may expire the session the lease ends. Default a sixth of the session. */
  marginMs?: number;
  /**
   * Leadership gained (true) or ended (false, with why). Ended is told before another member can be
   * assigned it, except to a process frozen past its lease, which is told when it wakes.
   */
  onChange: (leading: boolean, why: string) => void;
  onError?: (error: KafkaClientError) => void;
  /** A generation began with another member leading (this one stands by). */
  onStandby?: () => void;
  now?: () => number;
}

const LEADERSHIP_OPTIONS = {
  brokers: CONNECTION_OPTIONS.brokers,
  clientId: { kind: 'string', default: 'feedpipe-leadership' },
  groupId: { kind: 'string', required: true },
  topic: { kind: 'string', required: true },
  sessionTimeoutMs: { ...DURATION_MS, default: 3_000 },
  // No defaults: both follow the session (see the constructor).
  heartbeatIntervalMs: DURATION_MS,
  marginMs: { kind: 'integer', min: 0, max: DURATION_MS.max },
  onChange: { kind: 'given', required: true },
  onError: { kind: 'given' },
  onStandby: { kind: 'given' },
  now: { kind: 'given' },
} as const satisfies OptionsSchema;

export type LeadershipRole = 'joining' | 'leader' | 'standby' | 'stopped';

/** What a member tells the group's assignor about itself (JSON in the subscription's user data). */
interface Claim {
  /** Holds partition 0 now (with a running lease). */
  holding: boolean;
  /** Named the successor by the holder (it took the holder's work over in a planned handover). */
  designated: boolean;
  /** The generation in which it became the holder (a later holder is the current one). */
  since: number;
  /** When the member started: with nobody holding, the longest-running member leads. */
  startedAt: number;
}

const PROTOCOL = 'feedpipe-leader';

function claimOf(member: MemberMetadata): Claim {
  try {
    const value = JSON.parse(member.userData?.toString('utf8') ?? 'null') as Partial<Claim> | null;
    return {
      holding: value?.holding === true,
      designated: value?.designated === true,
      since: typeof value?.since === 'number' ? value.since : -1,
      startedAt: typeof value?.startedAt === 'number' ? value.startedAt : Number.POSITIVE_INFINITY,
    };
  } catch {
    return { holding: false, designated: false, since: -1, startedAt: Number.POSITIVE_INFINITY };
  }
}

/**
 * The member that leads next: the current holder, else a designated successor, else the
 * longest-running member (then by id).
 */
export function chooseLeader(members: readonly MemberMetadata[]): string | undefined {
  const ranked = members
    .map((member) => ({ id: member.memberId, claim: claimOf(member) }))
    .sort((a, b) => {
      if (a.claim.holding !== b.claim.holding) return a.claim.holding ? -1 : 1;
      if (a.claim.holding && a.claim.since !== b.claim.since) return b.claim.since - a.claim.since;
      if (a.claim.designated !== b.claim.designated) return a.claim.designated ? -1 : 1;
      if (a.claim.startedAt !== b.claim.startedAt) return a.claim.startedAt - b.claim.startedAt;
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    });
  return ranked[0]?.id;
}

export class KafkaLeadership {
  readonly #o: Resolved<KafkaLeadershipOptions, typeof LEADERSHIP_OPTIONS> & {
    heartbeatIntervalMs: number;
    marginMs: number;
  };
  readonly #now: () => number;
  readonly #startedAt = Date.now();
  readonly #client: Base;
  readonly #joinPool: ConnectionPool;
  readonly #coordinatorPool: ConnectionPool;
  readonly #member: GroupMember;
  #role: LeadershipRole = 'joining';
  #holding = false;
  #since = -1;
  #stopped = false;
  #designated = false;
  #running: Promise<void> | undefined;
  #watch: NodeJS.Timeout | undefined;
  #wakeRound: (() => void) | undefined;

  constructor(options: KafkaLeadershipOptions) {
    const o = readClientOptions('leadership', LEADERSHIP_OPTIONS, options, [
      'onChange',
      'onError',
      'onStandby',
      'now',
    ]);
    const session = o.sessionTimeoutMs;
    // Derived from the session, so not schema defaults: a sixth each leaves the lease most of it.
    this.#o = {
      ...o,
      heartbeatIntervalMs: o.heartbeatIntervalMs ?? Math.floor(session / 6),
      marginMs: o.marginMs ?? Math.floor(session / 6),
    };
    if (this.#o.heartbeatIntervalMs + this.#o.marginMs >= session) {
      throw new KafkaClientError(
        'CONFIG_INVALID',
        `leadership: the heartbeat interval (${this.#o.heartbeatIntervalMs} ms) plus the margin (${this.#o.marginMs} ms) must be below the session (${session} ms)`,
      );
    }
    // A clock is a port, not data, so its default is here rather than in the schema.
    this.#now = o.now ?? (() => performance.now());
    const { clientId } = o;
    this.#client = new Base({
      clientId,
      bootstrapBrokers: [...o.brokers],
      timeout: 10_000,
      retries: 1,
    });
    this.#joinPool = new ConnectionPool(clientId, {
      requestTimeout: 10_000 + session,
      connectTimeout: 5_000,
    });
    // A heartbeat that hangs is given up well inside the lease, so the next one can still renew it.
    this.#coordinatorPool = new ConnectionPool(clientId, {
      requestTimeout: Math.max(500, Math.floor(session / 3)),
      connectTimeout: Math.max(500, Math.floor(session / 3)),
    });
    this.#member = new GroupMember({
      groupId: o.groupId,
      topics: [o.topic],
      sessionTimeoutMs: session,
      rebalanceTimeoutMs: session,
      heartbeatIntervalMs: this.#o.heartbeatIntervalMs,
      retryBackoffMs: [100, 1_000],
      client: this.#client,
      joinPool: this.#joinPool,
      coordinatorPool: this.#coordinatorPool,
      bootstrap: o.brokers.map(brokerOf),
      onError: (error) => this.#o.onError?.(error),
      assignor: this.#assignor(),
    });
  }

  get role(): LeadershipRole {
    return this.#role;
  }

  get memberId(): string {
    return this.#member.memberId;
  }

  /** Milliseconds of lease left (0 when not leading). */
  leaseRemainingMs(): number {
    if (!this.#holding) return 0;
    const end = this.#member.confirmedSentAt + this.#o.sessionTimeoutMs - this.#o.marginMs;
    return Math.max(0, end - this.#now());
  }

  /**
   * Whether this process leads now. Ask it before every act of a leader: a lease that ran out ends
   * leadership here and then (`onChange(false)`), even if the timer that watches it has not run.
   */
  leading(): boolean {
    if (this.#role !== 'leader') return false;
    if (this.leaseRemainingMs() > 0) return true;
    this.#lose('its lease ran out');
    return false;
  }

  /** Creates the control topic when missing and starts joining (in the background). */
  async start(): Promise<void> {
    const admin = new KafkaAdmin({ brokers: [...this.#o.brokers], clientId: 'feedpipe-leadership-admin' });
    try {
      await admin.ensureTopics([this.#o.topic], { partitions: 1 });
    } finally {
      await admin.close();
    }
    this.#running = this.#run();
  }

  /**
   * Asks to lead next: at the group's next assignment with no live holder, this member is preferred
   * over longer-running ones (a planned handover's successor).
   */
  designate(): void {
    this.#designated = true;
  }

  /** Leaves the group (a standby is assigned the partition at once, not after the session). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#role === 'leader') this.#lose('stopped');
    this.#role = 'stopped';
    this.#wakeRound?.();
    await this.#running;
    await this.#member.leave();
    await Promise.allSettled([this.#joinPool.close(), this.#coordinatorPool.close(), this.#client.close()]);
  }

  #assignor(): GroupAssignor {
    return {
      protocol: PROTOCOL,
      userData: () =>
        Buffer.from(
          JSON.stringify({
            holding: this.#holding && this.leaseRemainingMs() > 0,
            designated: this.#designated,
            since: this.#since,
            startedAt: this.#startedAt,
          } satisfies Claim),
        ),
      assign: (members) => {
        const leader = chooseLeader(members);
        const out = new Map<string, TopicPartitions[]>();
        for (const m of members)
          out.set(m.memberId, m.memberId === leader ? [{ topic: this.#o.topic, partitions: [0] }] : []);
        return out;
      },
    };
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let joined: Awaited<ReturnType<GroupMember['join']>>;
      try {
        joined = await this.#member.join(() => this.#stopped);
      } catch (error) {
        if (this.#stopped) return;
        this.#o.onError?.(error as KafkaClientError);
        // A refusal no retry inside join() fixes (authorisation, a bad session): try again slowly.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (this.#stopped) return;
      const holds = joined.assignment.some((a) => a.topic === this.#o.topic && a.partitions.includes(0));
      if (holds) this.#gain(joined.generationId);
      else if (this.#role === 'leader') this.#lose('the group gave the partition to another member');
      else this.#role = 'standby';
      if (!holds) this.#o.onStandby?.();
      // Until the generation ends (a member joined or left, or this one was removed).
      const lost = await new Promise<boolean>((resolve) => {
        this.#wakeRound = () => resolve(false);
        this.#member.startHeartbeats(resolve);
      });
      this.#wakeRound = undefined;
      await this.#member.stopHeartbeats();
      // Removed from the group: another member may be assigned the partition from now on.
      if (lost && this.#role === 'leader') this.#lose('the coordinator removed this member');
    }
  }

  #gain(generation: number): void {
    if (!this.#holding) this.#since = generation;
    this.#holding = true;
    if (this.#role === 'leader') return;
    this.#role = 'leader';
    this.#watch = setInterval(() => this.leading(), Math.max(20, Math.floor(this.#o.marginMs / 4)));
    this.#watch.unref();
    this.#o.onChange(true, `assigned the control partition in generation ${generation}`);
  }

  #lose(why: string): void {
    if (this.#role !== 'leader') return;
    this.#holding = false;
    this.#role = this.#stopped ? 'stopped' : 'standby';
    clearInterval(this.#watch);
    this.#watch = undefined;
    this.#o.onChange(false, why);
  }
}
