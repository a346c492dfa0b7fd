/**
 * The hot tier's life: create the window, load it from ClickHouse up to the sink's marks, tail the
 * trades topic from the next offsets, answer once caught up; move the window every minute.
 *
 *   idle -> loading -> catching-up -> ready
 *                \-> failed (the load or the feed's start failed: bars come from ClickHouse)
 *
 * A failure never fails the API: the tier steps aside (ready = false) and says why in the log.
 */
import { KafkaAdmin, type KafkaClientError } from '@feedpipe/kafka-client';
import type { StoreLane } from '@feedpipe/store';
import { HotTier, type HotTierOptions } from './hot-tier.js';
import type { HotTierMetrics } from './hot-tier-metrics.js';
import { TierFeed } from './tier-feed.js';
import { loadHotTier } from './tier-loader.js';

export type HotTierState = 'idle' | 'loading' | 'catching-up' | 'ready' | 'failed' | 'stopped';

/** How often the window's start is moved (it moves at UTC midnight; a minute late is harmless). */
const ADVANCE_MS = 60_000;

export interface HotTierServiceOptions extends HotTierOptions {
  brokers: readonly string[];
  topic: string;
  lane: StoreLane;
  metrics: HotTierMetrics;
  now: () => number;
  log: (level: 'info' | 'warn', message: string) => void;
}

export class HotTierService {
  readonly tier: HotTier;
  readonly #o: HotTierServiceOptions;
  #state: HotTierState = 'idle';
  #feed: TierFeed | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: HotTierServiceOptions) {
    this.#o = options;
    this.tier = new HotTier(options, options.now());
    options.metrics.watch(this.tier);
  }

  get state(): HotTierState {
    return this.#state;
  }

  /** Loads and starts the feed; resolves when the tail runs (readiness follows the catch-up). */
  async start(): Promise<void> {
    if (this.#state !== 'idle') return;
    this.#state = 'loading';
    const admin = new KafkaAdmin({ brokers: this.#o.brokers, clientId: 'query-api-hot-tier' });
    try {
      const clusterId = await admin.clusterId();
      const ends = await admin.topicOffsets(this.#o.topic);
      const loaded = await loadHotTier(this.#o.lane, this.tier, clusterId);
      if (this.#stopped()) return;
      if (this.tier.overLimit) throw new Error('the window outgrew maxBytes while loading');
      this.tier.trim();
      this.#o.log('info', `hot tier: ${loaded.trades} trades loaded from ClickHouse`);
      this.#state = 'catching-up';
      this.#feed = new TierFeed(this.tier, {
        brokers: this.#o.brokers,
        topic: this.#o.topic,
        marks: loaded.marks,
        catchUpTo: new Map(ends.map((e) => [e.partition, Number(e.high)])),
        onCaughtUp: () => {
          if (this.#state !== 'catching-up') return;
          this.#state = 'ready';
          this.tier.markReady();
          this.#o.log('info', 'hot tier: caught up with Kafka; recent bars come from memory');
        },
        onError: (error: KafkaClientError) => this.#o.log('warn', `hot tier feed: ${error.message}`),
        onRecords: (added, skipped) => {
          if (this.tier.overLimit && this.#state !== 'failed') this.#overLimit();
          if (added > 0) this.#o.metrics.feedRecords.inc({ result: 'added' }, added);
          if (skipped > 0) this.#o.metrics.feedRecords.inc({ result: 'skipped' }, skipped);
        },
      });
      await this.#feed.start();
      this.#timer = setInterval(() => this.tier.advance(this.#o.now()), ADVANCE_MS);
      this.#timer.unref();
    } catch (error) {
      this.#state = 'failed';
      this.tier.close();
      this.#o.log('warn', `hot tier: not started, bars come from ClickHouse: ${String(error)}`);
    } finally {
      await admin.close();
    }
  }

  /** The trades outgrew maxBytes: the tier has closed itself; its feed stops too. */
  #overLimit(): void {
    this.#state = 'failed';
    this.#o.log('warn', 'hot tier: its trades outgrew maxBytes; closed, bars come from ClickHouse');
    void this.#feed?.stop();
  }

  #stopped(): boolean {
    return this.#state === 'stopped';
  }

  async stop(): Promise<void> {
    this.#state = 'stopped';
    this.tier.close();
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.#feed?.stop();
  }
}
