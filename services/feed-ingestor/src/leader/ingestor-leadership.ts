/**
 * Which of the ingestor processes of one client id holds the feed: Kafka's group membership
 * decides (@feedpipe/kafka-client KafkaLeadership: sticky, fenced by a lease), and this part wires
 * it to the ingestor.
 *
 * - The lease is copied into the `LeaseFence` every producing thread checks, so a process whose
 *   lease ran out (frozen, cut off from Kafka) sends nothing more, whichever thread wakes first.
 * - Gaining leadership starts the feed (`onLead`); losing it is final for this process
 *   (`onFenced`): the process stops reading and sending at once and exits, and its supervisor starts
 *   it again as a standby. A process that keeps running after losing the lease would have to prove
 *   that nothing it holds was produced meanwhile by the new leader; restarting proves it for free.
 * - The leader says it is alive on the control topic every second, so a standby that takes over
 *   dates the failover gap from the last moment the old leader was known to be alive.
 */
import { KafkaLeadership } from '@feedpipe/kafka-client';
import type { Overrides } from '../subscriptions/subscription-plan.js';
import { ControlChannel } from './control-channel.js';
import { ControlInbox } from './control-inbox.js';
import type { ControlMessage } from './control-messages.js';
import type { LeadershipMetrics } from './leadership-metrics.js';
import type { ResolvedLeadershipOptions } from './leadership-options.js';
import { LeaseFence } from './lease-fence.js';

export type IngestorRole = 'joining' | 'standby' | 'leader' | 'fenced' | 'stopped';

const ALIVE_EVERY_MS = 1_000;
/** The leader's overrides go out every this many alive messages (and on every change). */
const OVERRIDES_EVERY_TICKS = 10;
const FENCE_REFRESH_MS = 50;

export interface IngestorLeadershipDeps {
  brokers: string[];
  options: ResolvedLeadershipOptions;
  /** Leadership ended for this process (it must stop). Default: logged. */
  onFenced?: (why: string) => void;
  /** This process's run number (its records' source identity). */
  run: number;
  metrics: LeadershipMetrics;
  log: (message: string) => void;
  /** This process now leads: start the feed. */
  onLead: () => void;
}

export class IngestorLeadership {
  readonly fence = new LeaseFence();
  readonly options: ResolvedLeadershipOptions;
  readonly channel: ControlChannel;
  /** The control messages since this process started, for a handover's steps to wait on. */
  readonly inbox = new ControlInbox();
  readonly #d: IngestorLeadershipDeps;
  #listener: ((message: ControlMessage) => void) | undefined;
  #overridesListener: ((overrides: Overrides) => void) | undefined;
  #overridesSource: (() => Overrides) | undefined;
  readonly #kafka: KafkaLeadership;
  readonly #metrics: LeadershipMetrics;
  #role: IngestorRole = 'joining';
  #lastAliveAtMs: number | undefined;
  #fenceTimer: NodeJS.Timeout | undefined;
  #aliveTimer: NodeJS.Timeout | undefined;
  /** The group named another member leader while this one was a member. */
  #stoodBy = false;

  constructor(deps: IngestorLeadershipDeps) {
    this.#d = deps;
    this.options = deps.options;
    this.channel = new ControlChannel({
      brokers: deps.brokers,
      topic: this.options.topic,
      log: deps.log,
      onMessage: (message, earlier) => {
        if (message.type === 'alive' && message.member !== this.memberId) this.#lastAliveAtMs = message.atMs;
        // The leader's latest overrides count even from before this process started.
        if (message.type === 'overrides' && message.member !== this.memberId && this.#role !== 'leader')
          this.#overridesListener?.(message.overrides);
        if (earlier) return;
        this.inbox.deliver(message);
        this.#listener?.(message);
      },
    });
    this.#kafka = new KafkaLeadership({
      brokers: deps.brokers,
      clientId: 'feedpipe-ingestor-leadership',
      groupId: this.options.groupId,
      topic: this.options.topic,
      sessionTimeoutMs: this.options.sessionTimeoutMs,
      onChange: (leading, why) => (leading ? this.#gain(why) : this.#lose(why)),
      onStandby: () => {
        this.#stoodBy = true;
        if (this.#role === 'joining') this.#role = 'standby';
      },
      onError: (error) => deps.log(`leadership: ${error.message}`),
    });
    this.#metrics = deps.metrics;
  }

  /** A stopping leader's handover ended: done, unclaimed (no standby) or aborted. */
  countHandover(outcome: 'done' | 'unclaimed' | 'aborted'): void {
    this.#metrics.handovers.inc({ outcome });
  }

  get role(): IngestorRole {
    return this.#role;
  }

  get memberId(): string {
    return this.#kafka.memberId;
  }

  /**
   * When the leader this process replaces was last known alive (epoch ms): its last `alive`
   * message (the channel reads back a few from before this process started), else, when the group
   * had named another leader meanwhile, the takeover minus the session (the latest its session can
   * have been renewed). Undefined when no other leader is known (the first start of a deployment).
   */
  predecessorLastAliveMs(): number | undefined {
    if (this.#lastAliveAtMs !== undefined) return this.#lastAliveAtMs;
    return this.#stoodBy ? Date.now() - this.options.sessionTimeoutMs : undefined;
  }

  /** Starts joining the group ('joining' until the group names this process leader or standby) and reads the control topic. */
  async start(): Promise<void> {
    await this.#kafka.start();
    await this.channel.start();
  }

  /** Every fresh control message from now on goes to `listener` too (the handover's successor). */
  listen(listener: (message: ControlMessage) => void): void {
    this.#listener = listener;
  }

  /**
   * The subscription overrides: `source` gives this process's when it leads (sent to the standbys on
   * each change, `announceOverrides`, and every OVERRIDES_EVERY_TICKS alive messages); `adopt` takes the leader's while
   * it stands by.
   */
  shareOverrides(source: () => Overrides, adopt: (overrides: Overrides) => void): void {
    this.#overridesSource = source;
    this.#overridesListener = adopt;
  }

  /** The leader's overrides changed: tell the standbys now. */
  announceOverrides(): void {
    const overrides = this.#overridesSource?.();
    if (!overrides || !this.#kafka.leading()) return;
    void this.channel.send({ type: 'overrides', member: this.memberId, overrides }).catch(() => undefined);
  }

  /** A successor that took the connections over is preferred when the group next assigns leadership. */
  designateSelf(): void {
    this.#kafka.designate();
  }

  /** Leaves the group (a standby leads at once) and stops reading the control topic. */
  async stop(): Promise<void> {
    if (this.#role !== 'fenced') this.#role = 'stopped';
    this.#stopTimers();
    this.fence.close();
    await this.#kafka.stop();
    await this.channel.close();
  }

  #gain(why: string): void {
    if (this.#role === 'fenced' || this.#role === 'stopped') return;
    this.#d.log(`leadership: this process leads now (${why})`);
    this.#role = 'leader';
    this.#metrics.leader.set(1);
    this.#metrics.changes.inc({ to: 'leader' });
    const refresh = () => this.fence.extend(this.#kafka.leaseRemainingMs());
    refresh();
    this.#fenceTimer = setInterval(refresh, FENCE_REFRESH_MS);
    const alive = () => {
      if (!this.#kafka.leading()) return;
      void this.channel
        .send({ type: 'alive', member: this.memberId, run: this.#d.run, atMs: Date.now() })
        .catch(() => undefined);
    };
    alive();
    this.announceOverrides();
    let ticks = 0;
    this.#aliveTimer = setInterval(() => {
      alive();
      // Within the control channel's look-back, so a standby that starts learns them at once.
      if (++ticks % OVERRIDES_EVERY_TICKS === 0) this.announceOverrides();
    }, ALIVE_EVERY_MS);
    this.#d.onLead();
  }

  #lose(why: string): void {
    this.fence.close();
    this.#stopTimers();
    this.#metrics.leader.set(0);
    if (this.#role !== 'leader') return;
    this.#role = 'fenced';
    this.#metrics.changes.inc({ to: 'fenced' });
    this.#d.log(`leadership: this process no longer leads (${why}); it stops reading and sending`);
    this.#d.onFenced?.(why);
  }

  #stopTimers(): void {
    clearInterval(this.#fenceTimer);
    clearInterval(this.#aliveTimer);
    this.#fenceTimer = undefined;
    this.#aliveTimer = undefined;
  }
}
