/**
 * Keeps market.fills equal to the service's trade book, each fill once.
 *
 * Where fills come from: the trade book, never the postback body. A postback is the order record
 * (cumulative filled quantity and average price, no trade id), so a fill derived from two
 * postbacks would be a difference that a lost postback merges with the next one, and it could not
 * be matched to the trade book's record later. A postback that shows a fill therefore makes the
 * recorder read the day's book (Indian and US) shortly after, at most one read per `syncDelayMs`
 * however many postbacks arrive; the same read runs every `syncIntervalMs` and at start, and at
 * start the trade history of the days since the newest stored fill (at most `historyDays`) is read
 * as well, so fills of a day the gateway was down for are stored too.
 *
 * Exactly once: every read's fills are looked up by key before the insert and only the missing
 * ones are inserted, and reads run one at a time in this process. A process killed between its
 * read and its insert stored nothing; one killed after the insert finds the rows on its next read.
 * Two gateways over one store could both insert a fill; the table's ReplacingMergeTree collapses
 * that copy and every read uses FINAL.
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import type { StoreLane } from '@feedpipe/store';
import { TradingGatewayError } from '../errors.js';
import type { OrderEvent } from '../postbacks/order-event.js';
import type { FillMetrics } from './fill-metrics.js';
import { type FillRecord, type FillSource, fromTrade, fromUsTrades, istDate } from './fill-record.js';
import { insertFills, lastFillDate, storedFillKeys } from './fills-table.js';

export interface FillRecorderOptions {
  /** Wait after a postback's fill before reading the book (fills of one burst share a read). */
  readonly syncDelayMs: number;
  /** Period of the book read while nothing else triggers it; 0 = only at start and on postbacks. */
  readonly syncIntervalMs: number;
  /** Days of trade history read at start when the table has no fill of them. */
  readonly historyDays: number;
}

export interface FillSyncResult {
  /** Fills the reads returned. */
  read: number;
  /** Fills that were new and are now stored. */
  added: number;
}

/** Rows per insert: a day's book of a busy account stays one or a few inserts. */
const INSERT_CHUNK = 5_000;
const DAY_MS = 86_400_000;

export class FillRecorder {
  /** The run in progress; reads of the book never overlap (the exactly-once check relies on it). */
  #running: Promise<unknown> = Promise.resolve();
  #pending: ReturnType<typeof setTimeout> | undefined;
  #interval: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  lastError: string | undefined;

  constructor(
    private readonly store: StoreLane,
    private readonly broker: BrokerClient,
    private readonly options: FillRecorderOptions,
    private readonly metrics: FillMetrics,
    private readonly now: () => number = Date.now,
  ) {}

  /** Catches up (missed days, then today) in the background and starts the periodic read. */
  start(): Promise<void> {
    if (this.options.syncIntervalMs > 0) {
      this.#interval = setInterval(() => void this.#background('reconcile'), this.options.syncIntervalMs);
      this.#interval.unref?.();
    }
    return this.#serial(async () => {
      await this.#catchUp();
      await this.#syncToday('reconcile');
    }).catch((error: unknown) => this.#failed(error));
  }

  /** Told of stored order updates: one that shows a fill schedules a read of the book. */
  noteOrderEvents(events: readonly OrderEvent[]): void {
    if (this.#closed || this.#pending !== undefined) return;
    const filled = events.some((e) => (e.kind === 'order' || e.kind === 'us_order') && e.filledQty > 0);
    if (!filled) return;
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      void this.#background('postback');
    }, this.options.syncDelayMs);
    this.#pending.unref?.();
  }

  /** Reads the day's book now and stores what is missing (after any read in progress). */
  sync(source: FillSource = 'reconcile'): Promise<FillSyncResult> {
    return this.#serial(() => this.#syncToday(source));
  }

  /** Stops the timers and waits for a read in progress. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pending) clearTimeout(this.#pending);
    if (this.#interval) clearInterval(this.#interval);
    await this.#running.catch(() => undefined);
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#running.catch(() => undefined).then(run);
    this.#running = next;
    return next;
  }

  async #background(source: FillSource): Promise<void> {
    if (this.#closed) return;
    await this.sync(source).catch((error: unknown) => this.#failed(error));
  }

  #failed(error: unknown): void {
    this.lastError = error instanceof Error ? error.message : String(error);
    this.metrics.syncErrors.inc();
  }

  async #syncToday(source: FillSource): Promise<FillSyncResult> {
    const at = this.now();
    let trades: Awaited<ReturnType<BrokerClient['trades']['today']>>;
    let usTrades: Awaited<ReturnType<BrokerClient['globalStocks']['trades']>>;
    try {
      [trades, usTrades] = await Promise.all([this.broker.trades.today(), this.broker.globalStocks.trades()]);
    } catch (error) {
      throw new TradingGatewayError('UPSTREAM_UNAVAILABLE', `cannot read the trade book: ${message(error)}`, {
        cause: error,
        retryable: true,
      });
    }
    const fills = [...trades.flatMap((t) => fromTrade(t, at) ?? []), ...fromUsTrades(usTrades, at)];
    return { read: fills.length, added: await this.#keep(fills, source, at) };
  }

  /** Trade history from the newest stored fill's day (or `historyDays` ago) through yesterday. */
  async #catchUp(): Promise<void> {
    if (this.options.historyDays === 0) return;
    const at = this.now();
    const today = istDate(at);
    const earliest = istDate(at - this.options.historyDays * DAY_MS);
    const clientId = this.broker.clientId ?? '';
    const last = clientId === '' ? undefined : await lastFillDate(this.store, clientId);
    const from = last !== undefined && last > earliest ? last : earliest;
    const to = istDate(at - DAY_MS);
    if (from > to || from >= today) return;
    for await (const page of this.broker.trades.historyPages(from, to)) {
      await this.#keep(
        page.flatMap((t) => fromTrade(t, at) ?? []),
        'history',
        at,
      );
    }
  }

  async #keep(fills: readonly FillRecord[], source: FillSource, at: number): Promise<number> {
    const unique = [...new Map(fills.map((f) => [f.fillKey, f])).values()];
    let added = 0;
    for (let i = 0; i < unique.length; i += INSERT_CHUNK) {
      const chunk = unique.slice(i, i + INSERT_CHUNK);
      try {
        const stored = await storedFillKeys(this.store, chunk);
        const fresh = chunk.filter((f) => !stored.has(f.fillKey));
        if (fresh.length > 0) await insertFills(this.store, fresh, source, at);
        added += fresh.length;
      } catch (error) {
        throw new TradingGatewayError('STORE_UNAVAILABLE', `cannot store fills: ${message(error)}`, {
          cause: error,
          retryable: true,
        });
      }
    }
    if (added > 0) this.metrics.stored.inc({ source }, added);
    this.metrics.syncs.inc({ source });
    return added;
  }
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
