/**
 * Polls full snapshot quotes (five depth levels) of a configured list of Indian instruments, in
 * requests of up to 1,000 instruments, round after round, as fast as the account's quote category
 * allows (1 request/s). The pacing is the client's rate limiter: pass the account's one limiter, so
 * the gateway's own quote calls and the poller share the same second (see docs/quotes.md). Each
 * answer is published on the quotes topic (keyed by security id) and stored in market.quotes, while
 * the next request is already on its way; at most `maxPendingWrites` answers wait for their writes,
 * beyond which polling waits (backpressure). A failed write is retried until it lands or the poller
 * stops, so nothing received is dropped while Kafka or ClickHouse is away.
 *
 *   idle --start--> polling --(maxRounds | maxSeconds | stop)--> draining writes --> stopped
 */

import {
  BrokerClient,
  type FullQuote,
  isBrokerApiError,
  type RateLimiter,
  type SnapshotRequest,
  type TokenSource,
} from '@feedpipe/broker-api';
import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import {
  DEFAULT_QUOTES_TOPIC,
  QUOTE_SCHEMA_ID,
  type QuoteRecord,
  REFERENCE_TABLES,
  SCHEMA_HEADER,
} from '@feedpipe/contracts';
import { Backoff, sleep } from '@feedpipe/retry';
import type { StoreLane } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { countingFetch } from '../counting-fetch.js';
import { LoaderError } from '../errors.js';
import type { BrokerOptions } from '../options.js';
import { quoteBatches } from './quote-instruments.js';
import { createQuotePollerMetrics, type QuotePollerMetrics } from './quote-metrics.js';
import { quoteRecord, quoteRow } from './quote-records.js';

/** What the poller publishes through: the kafka-client's JsonProducer fits. */
export interface QuotePublisher {
  send(
    topic: string,
    records: ReadonlyArray<{ key?: string; value: unknown; headers?: Record<string, string> }>,
  ): Promise<void>;
}

export interface QuotePollerOptions {
  instruments: SnapshotRequest;
  /** Default `feed.quotes`. */
  topic?: string;
  /** Answers waiting for their writes before polling waits. Default 4. */
  maxPendingWrites?: number;
  /** Stop after this many rounds over the list. Default: no bound. */
  maxRounds?: number;
  /** Stop starting requests after this many seconds. Default: no bound. */
  maxSeconds?: number;
}

export interface QuotePollerDeps {
  /** The client whose limiter paces the quote category: the account's shared one (quoteClient). */
  client: BrokerClient;
  /** Where quotes are published; without one they are only stored. */
  publisher?: QuotePublisher;
  /** Where quotes are stored; without one they are only published. */
  store?: StoreLane;
  registry: Registry;
  metrics?: QuotePollerMetrics;
  now?: () => number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** Every option of the poller, with its range and default (QuotePollerOptions documents each). */
const QUOTE_POLLER_OPTIONS = {
  instruments: { kind: 'given', required: true },
  topic: { kind: 'string', default: DEFAULT_QUOTES_TOPIC },
  maxPendingWrites: { kind: 'number', min: 1, max: Number.MAX_SAFE_INTEGER, default: 4 },
  maxRounds: { kind: 'number', min: 1, max: Number.POSITIVE_INFINITY, default: Number.POSITIVE_INFINITY },
  maxSeconds: { kind: 'number', min: 1, max: Number.POSITIVE_INFINITY, default: Number.POSITIVE_INFINITY },
} as const satisfies OptionsSchema;

const QUOTE_POLLER_DEPS = {
  client: { kind: 'given', required: true },
  registry: { kind: 'given', required: true },
  ...given('publisher', 'store', 'metrics', 'now', 'log'),
} as const satisfies OptionsSchema;

export interface QuotePollerStats {
  requests: number;
  throttled: number;
  failedRequests: number;
  quotes: number;
  rounds: number;
  pendingWrites: number;
}

/**
 * A client for the poller that counts every answer (the client retries a 429 by itself, so only
 * its fetch sees each throttled answer) and paces through `limiter`, the account's one limiter.
 * `broker` is the account's address (data); `accessToken` the token or the holder that renews it.
 */
export function quoteClient(
  broker: BrokerOptions,
  accessToken: string | TokenSource,
  limiter: RateLimiter,
  metrics: QuotePollerMetrics,
  onThrottled: () => void = () => undefined,
): BrokerClient {
  return new BrokerClient({
    baseUrl: broker.baseUrl,
    clientId: broker.clientId,
    accessToken,
    timeoutMs: broker.timeoutMs ?? 30_000,
    rateLimiter: limiter,
    fetch: countingFetch(
      (url, init) => fetch(url, init),
      (_endpoint, outcome) => {
        metrics.requests.inc({ outcome });
        if (outcome === 'throttled') onThrottled();
      },
    ),
  });
}

export class QuotePoller {
  readonly metrics: QuotePollerMetrics;
  readonly #batches: SnapshotRequest[];
  readonly #topic: string;
  readonly #maxPending: number;
  readonly #maxRounds: number;
  readonly #maxSeconds: number;
  readonly #deps: QuotePollerDeps;
  readonly #now: () => number;
  readonly #stop = new AbortController();
  readonly #pending = new Set<Promise<void>>();
  #run: Promise<QuotePollerStats> | undefined;
  readonly #stats: QuotePollerStats = {
    requests: 0,
    throttled: 0,
    failedRequests: 0,
    quotes: 0,
    rounds: 0,
    pendingWrites: 0,
  };

  constructor(options: QuotePollerOptions, deps: QuotePollerDeps) {
    const fail = (message: string) => new LoaderError('CONFIG_INVALID', message);
    const o = readOptions(QUOTE_POLLER_OPTIONS, options, { where: 'quote poller options', fail });
    readOptions(QUOTE_POLLER_DEPS, deps, { where: 'quote poller deps', fail });
    this.#batches = quoteBatches(options.instruments);
    this.#topic = o.topic;
    this.#maxPending = o.maxPendingWrites;
    this.#maxRounds = o.maxRounds;
    this.#maxSeconds = o.maxSeconds;
    if (!deps.publisher && !deps.store)
      throw new LoaderError('CONFIG_INVALID', 'the quote poller needs a publisher or a store');
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.metrics = deps.metrics ?? createQuotePollerMetrics(deps.registry);
  }

  /** Requests of one round over the list. */
  get requestsPerRound(): number {
    return this.#batches.length;
  }

  /** Polls until a bound or `stop()`; resolves once every received quote is written. */
  run(): Promise<QuotePollerStats> {
    this.#run ??= this.#poll();
    return this.#run;
  }

  async stop(): Promise<QuotePollerStats> {
    this.#stop.abort();
    return (await this.#run?.catch(() => undefined)) ?? this.stats();
  }

  /** Counts the client's throttled answers (quoteClient's onThrottled). */
  noteThrottled(): void {
    this.#stats.throttled += 1;
  }

  stats(): QuotePollerStats {
    return { ...this.#stats, pendingWrites: this.#pending.size };
  }

  async #poll(): Promise<QuotePollerStats> {
    const signal = this.#stop.signal;
    const deadline = this.#now() + this.#maxSeconds * 1000;
    const backoff = new Backoff({ initialMs: 1_000, factor: 2, maxMs: 30_000 });
    // The first request to the service opens the connection, so it reaches the service later after
    // its send than the ones after it, by more than the quote margin covers (bench:quotes saw its
    // one 429 there). A cheap read of the non-trading category opens it first.
    await this.#deps.client.funds.fundLimit(signal).catch(() => undefined);
    while (!signal.aborted && this.#stats.rounds < this.#maxRounds) {
      const roundStarted = this.#now();
      for (const batch of this.#batches) {
        if (signal.aborted || this.#now() >= deadline) break;
        let data: Awaited<ReturnType<BrokerClient['marketData']['quote']>>;
        try {
          this.#stats.requests += 1;
          data = await this.#deps.client.marketData.quote(batch, signal);
          backoff.reset();
        } catch (error) {
          if (signal.aborted) break;
          this.#stats.failedRequests += 1;
          this.#deps.log?.('quote_request_failed', {
            code: isBrokerApiError(error) ? error.code : 'UNKNOWN',
            message: (error as Error).message,
          });
          await sleep(backoff.next(), signal);
          continue;
        }
        const records = this.#records(data, this.#now());
        this.#stats.quotes += records.length;
        this.metrics.quotes.inc(records.length);
        await this.#hand(records);
      }
      if (this.#now() >= deadline) break;
      this.#stats.rounds += 1;
      this.metrics.roundSeconds.observe((this.#now() - roundStarted) / 1000);
    }
    // Draining: every received quote is written before the run ends (a stop ends the retries).
    await Promise.all([...this.#pending]);
    return this.stats();
  }

  #records(data: Partial<Record<string, Record<string, FullQuote>>>, polledAt: number): QuoteRecord[] {
    const records: QuoteRecord[] = [];
    for (const [segment, byId] of Object.entries(data)) {
      for (const [id, quote] of Object.entries(byId ?? {})) {
        records.push(quoteRecord(segment, Number(id), quote, polledAt));
      }
    }
    return records;
  }

  /** Starts the writes of one answer, waiting first while `maxPendingWrites` are unfinished. */
  async #hand(records: QuoteRecord[]): Promise<void> {
    while (this.#pending.size >= this.#maxPending) await Promise.race(this.#pending);
    const write = this.#write(records).finally(() => {
      this.#pending.delete(write);
      this.metrics.pendingWrites.set(this.#pending.size);
    });
    this.#pending.add(write);
    this.metrics.pendingWrites.set(this.#pending.size);
  }

  async #write(records: QuoteRecord[]): Promise<void> {
    const { publisher, store } = this.#deps;
    await Promise.all([
      publisher &&
        this.#persist('kafka', () =>
          publisher.send(
            this.#topic,
            records.map((r) => ({
              key: String(r.securityId),
              value: r,
              headers: { [SCHEMA_HEADER]: QUOTE_SCHEMA_ID },
            })),
          ),
        ),
      store &&
        this.#persist('clickhouse', () =>
          store.insertRows(
            REFERENCE_TABLES.quotes.name,
            REFERENCE_TABLES.quotes.columns,
            records.map(quoteRow),
          ),
        ),
    ]);
  }

  /** Tries a write until it lands; only a stop ends the retries (the batch is then reported lost). */
  async #persist(target: 'kafka' | 'clickhouse', write: () => Promise<void>): Promise<void> {
    const backoff = new Backoff({ initialMs: 250, factor: 2, maxMs: 10_000 });
    // Bounded by stop(): every failed attempt waits, and a stop ends the loop.
    for (;;) {
      try {
        await write();
        return;
      } catch (error) {
        this.metrics.writeFailures.inc({ target });
        this.#deps.log?.('quote_write_failed', { target, message: (error as Error).message });
        if (this.#stop.signal.aborted) return;
        await sleep(backoff.next(), this.#stop.signal);
        if (this.#stop.signal.aborted) return;
      }
    }
  }
}
