/**
 * The instrument list into market.instruments: download the published CSV, read it (malformed rows
 * counted and left out), compare it with the versions stored as current and write only what
 * changed, then merge the table so plain reads see one row per version. `start()` repeats it daily,
 * before the Indian pre-open (the service rebuilds its list every day).
 *
 *   idle --(due)--> loading --(stored | failed)--> idle (next day, or a retry soon) --(stop)--> stopped
 */

import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { REFERENCE_TABLES } from '@feedpipe/contracts';
import { retry, sleep } from '@feedpipe/retry';
import type { StoreLane } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { LoaderError } from '../errors.js';
import { type InstrumentMasterMetrics, instrumentMasterMetrics } from './instrument-metrics.js';
import type { InstrumentVersion } from './instrument-row.js';
import { versionChanges } from './instrument-versions.js';
import { parseMaster, type RejectedRow } from './parse-master.js';

const TABLE = REFERENCE_TABLES.instruments;
const IST_OFFSET_MS = 19_800_000;
const DAY_MS = 86_400_000;

export interface InstrumentMasterOptions {
  /** Address of the list (the detailed CSV: it names each derivative's underlying). Required. */
  url: string;
  /** Per download, reading the body included. Default 120,000 ms (the real list is tens of MB). */
  timeoutMs?: number;
  /** A larger download is refused (MASTER_UNAVAILABLE). Default 512 MiB. */
  maxBytes?: number;
  /** Download attempts per load for network errors and 5xx/429 answers. Default 3. */
  attempts?: number;
  /**
   * A list with fewer valid rows than this share of the stored current rows is taken for a
   * truncated download and refused (MASTER_INVALID) rather than closing the rest. Default 0.5.
   */
  minKeptShare?: number;
  /** Daily mode: minutes after IST midnight the load runs. Default 450 (07:30 IST, before pre-open). */
  dailyAtMinute?: number;
  /** Daily mode: after a failed load, try again this much later. Default 600,000 ms. */
  retryFailedMs?: number;
}

export interface InstrumentMasterDeps {
  store: StoreLane;
  registry: Registry;
  /** Wall clock, epoch ms. Default Date.now. */
  now?: () => number;
  log?: (event: string, fields: Record<string, unknown>) => void;
  fetch?: typeof fetch;
}

export interface InstrumentMasterResult {
  /** The list's IST day (`YYYY-MM-DD`): valid_from of what it started. */
  day: string;
  listed: number;
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  rejectedRows: number;
  /** The first rejections with their typed errors (INSTRUMENT_ROW_INVALID). */
  rejections: RejectedRow[];
}

/** Every option of the instrument master, with its range and default (InstrumentMasterOptions documents each). */
const INSTRUMENT_MASTER_OPTIONS = {
  url: { kind: 'url', protocols: ['http', 'https'], required: true },
  timeoutMs: { kind: 'number', min: 1_000, max: 3_600_000, default: 120_000 },
  maxBytes: { kind: 'number', min: 1_024, max: 4 * 1024 * 1024 * 1024, default: 512 * 1024 * 1024 },
  attempts: { kind: 'number', min: 1, max: 20, default: 3 },
  minKeptShare: { kind: 'number', min: 0, max: 1, default: 0.5 },
  dailyAtMinute: { kind: 'number', min: 0, max: 1_439, default: 450 },
  retryFailedMs: { kind: 'number', min: 1_000, max: DAY_MS, default: 600_000 },
} as const satisfies OptionsSchema;

/** `YYYY-MM-DD` of the IST day of an instant. */
export function istDate(epochMs: number): string {
  return new Date(epochMs + IST_OFFSET_MS).toISOString().slice(0, 10);
}

const CURRENT_SQL = `
SELECT exchange_segment AS exchangeSegment, security_id AS securityId, toString(valid_from) AS validFrom,
       exchange, instrument_type AS instrumentType, trading_symbol AS tradingSymbol,
       custom_symbol AS customSymbol, symbol_name AS symbolName, series, lot_size AS lotSize,
       tick_size AS tickSize, expiry_code AS expiryCode, toString(expiry_date) AS expiryDate,
       strike_price AS strikePrice, option_type AS optionType, expiry_flag AS expiryFlag,
       underlying_security_id AS underlyingSecurityId, underlying_symbol AS underlyingSymbol
FROM ${TABLE.name} FINAL WHERE valid_to IS NULL`;

function rowOf(v: InstrumentVersion, validTo: string | null, loadedAt: string): unknown[] {
  return [
    v.exchangeSegment,
    v.securityId,
    v.validFrom,
    validTo,
    v.exchange,
    v.instrumentType,
    v.tradingSymbol,
    v.customSymbol,
    v.symbolName,
    v.series,
    v.lotSize,
    v.tickSize,
    v.expiryCode,
    v.expiryDate,
    v.strikePrice,
    v.optionType,
    v.expiryFlag,
    v.underlyingSecurityId,
    v.underlyingSymbol,
    loadedAt,
  ];
}

/** Rows per insert: one block for any real list, bounded for a huge one. */
const INSERT_BLOCK = 100_000;

export class InstrumentMasterLoader {
  readonly #url: string;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #attempts: number;
  readonly #minKeptShare: number;
  readonly #dailyAtMinute: number;
  readonly #retryFailedMs: number;
  readonly #deps: InstrumentMasterDeps;
  readonly #metrics: InstrumentMasterMetrics;
  readonly #now: () => number;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #loading: Promise<InstrumentMasterResult> | undefined;

  constructor(options: InstrumentMasterOptions, deps: InstrumentMasterDeps) {
    const o = readOptions(INSTRUMENT_MASTER_OPTIONS, options, {
      where: 'instrument master options',
      fail: (message) => new LoaderError('CONFIG_INVALID', message),
    });
    this.#url = o.url;
    this.#timeoutMs = o.timeoutMs;
    this.#maxBytes = o.maxBytes;
    this.#attempts = o.attempts;
    this.#minKeptShare = o.minKeptShare;
    this.#dailyAtMinute = o.dailyAtMinute;
    this.#retryFailedMs = o.retryFailedMs;
    this.#deps = deps;
    this.#metrics = instrumentMasterMetrics(deps.registry);
    this.#now = deps.now ?? Date.now;
  }

  /** Downloads and stores today's list now; one load at a time (a second call joins the first). */
  load(): Promise<InstrumentMasterResult> {
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  /**
   * Daily mode: a load now (unless `loadNow` is false: the caller has just loaded), then one each day
   * at `dailyAtMinute` IST, until `stop()`.
   */
  start(options: { loadNow?: boolean } = {}): Promise<void> {
    this.#loop ??= this.#daily(options.loadNow ?? true);
    return this.#loop;
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop?.catch(() => undefined);
    await this.#loading?.catch(() => undefined);
  }

  /** Epoch ms of the next daily load after `now`. */
  nextLoadAt(now: number): number {
    const istMidnight = Math.floor((now + IST_OFFSET_MS) / DAY_MS) * DAY_MS - IST_OFFSET_MS;
    const today = istMidnight + this.#dailyAtMinute * 60_000;
    return today > now ? today : today + DAY_MS;
  }

  async #daily(loadNow: boolean): Promise<void> {
    let next = loadNow ? this.#now() : this.nextLoadAt(this.#now());
    // Bounded by stop(): each pass sleeps at most a minute at a time, then loads once when due.
    while (!this.#stop.signal.aborted) {
      if (this.#now() >= next) {
        try {
          await this.load();
          next = this.nextLoadAt(this.#now());
        } catch {
          next = Math.min(this.#now() + this.#retryFailedMs, this.nextLoadAt(this.#now()));
        }
      }
      while (!this.#stop.signal.aborted && this.#now() < next) {
        await sleep(Math.min(60_000, next - this.#now()), this.#stop.signal);
      }
    }
  }

  async #load(): Promise<InstrumentMasterResult> {
    const startedAt = this.#now();
    const day = istDate(startedAt);
    let outcome = 'ok';
    try {
      const text = await this.#download().catch((error: unknown) => {
        outcome = 'unavailable';
        throw error;
      });
      const parsed = (() => {
        try {
          return parseMaster(text);
        } catch (error) {
          outcome = 'invalid';
          throw error;
        }
      })();
      for (const [reason, n] of parsed.rejectedByReason) this.#metrics.rejected.inc({ reason }, n);
      const current = await this.#deps.store.rows<InstrumentVersion>(CURRENT_SQL);
      if (current.length > 0 && parsed.rows.length < current.length * this.#minKeptShare) {
        outcome = 'invalid';
        throw new LoaderError(
          'MASTER_INVALID',
          `the instrument list has ${parsed.rows.length} valid rows where ${current.length} are current: taken for a truncated download, nothing changed`,
        );
      }
      const changes = versionChanges(current, parsed.rows, day);
      await this.#write(changes.open, changes.close, day).catch((error: unknown) => {
        outcome = 'store_failed';
        throw new LoaderError(
          'STORE_FAILED',
          `writing market.instruments failed: ${(error as Error).message}`,
          {
            cause: error,
            retryable: true,
          },
        );
      });
      this.#metrics.rows.inc({ change: 'added' }, changes.added);
      this.#metrics.rows.inc({ change: 'changed' }, changes.changed);
      this.#metrics.rows.inc({ change: 'removed' }, changes.removed);
      this.#metrics.rows.inc({ change: 'unchanged' }, changes.unchanged);
      this.#metrics.lastSuccess.set(this.#now() / 1000);
      const rejectedRows = [...parsed.rejectedByReason.values()].reduce((a, b) => a + b, 0);
      const result: InstrumentMasterResult = {
        day,
        listed: parsed.rows.length,
        added: changes.added,
        changed: changes.changed,
        removed: changes.removed,
        unchanged: changes.unchanged,
        rejectedRows,
        rejections: parsed.rejected,
      };
      this.#deps.log?.('instrument_master', {
        ...result,
        rejections: parsed.rejected.slice(0, 10).map((r) => r.error.message),
      });
      return result;
    } catch (error) {
      this.#deps.log?.('instrument_master_failed', {
        code: error instanceof LoaderError ? error.code : 'UNKNOWN',
        message: (error as Error).message,
      });
      throw error;
    } finally {
      this.#metrics.loads.inc({ outcome });
    }
  }

  async #download(): Promise<string> {
    const fetchImpl = this.#deps.fetch ?? fetch;
    return retry(
      async () => {
        let response: Response;
        try {
          response = await fetchImpl(this.#url, { signal: AbortSignal.timeout(this.#timeoutMs) });
        } catch (error) {
          throw new LoaderError(
            'MASTER_UNAVAILABLE',
            `downloading the instrument list failed: ${(error as Error).message}`,
            {
              cause: error,
              retryable: true,
            },
          );
        }
        if (response.status !== 200) {
          await response.body?.cancel();
          throw new LoaderError(
            'MASTER_UNAVAILABLE',
            `the instrument list answered HTTP ${response.status}`,
            {
              retryable: response.status >= 500 || response.status === 429,
            },
          );
        }
        const declared = Number(response.headers.get('content-length') ?? 0);
        if (declared > this.#maxBytes) {
          await response.body?.cancel();
          throw new LoaderError(
            'MASTER_UNAVAILABLE',
            `the instrument list is larger than ${this.#maxBytes} bytes`,
          );
        }
        const bytes = Buffer.from(await response.arrayBuffer());
        if (bytes.length > this.#maxBytes)
          throw new LoaderError(
            'MASTER_UNAVAILABLE',
            `the instrument list is larger than ${this.#maxBytes} bytes`,
          );
        return bytes.toString('utf8');
      },
      {
        attempts: this.#attempts,
        initialMs: 1_000,
        factor: 4,
        maxMs: 30_000,
        signal: this.#stop.signal,
        retryable: (error) => error instanceof LoaderError && error.retryable,
      },
    );
  }

  async #write(
    open: readonly InstrumentVersion[],
    close: readonly InstrumentVersion[],
    day: string,
  ): Promise<void> {
    if (open.length === 0 && close.length === 0) return;
    // Closed versions and new ones in one timestamp: a closed row's loaded_at is newer than the
    // open version it replaces, which is what the ReplacingMergeTree keeps.
    const loadedAt = new Date(this.#now()).toISOString().replace('T', ' ').replace('Z', '');
    const rows = [...close.map((v) => rowOf(v, day, loadedAt)), ...open.map((v) => rowOf(v, null, loadedAt))];
    for (let i = 0; i < rows.length; i += INSERT_BLOCK) {
      const block = rows.slice(i, i + INSERT_BLOCK);
      await retry(() => this.#deps.store.insertRows(TABLE.name, TABLE.columns, block), {
        attempts: 4,
        initialMs: 250,
        factor: 4,
        maxMs: 4_000,
      });
    }
    try {
      await this.#deps.store.command(`OPTIMIZE TABLE ${TABLE.name} FINAL`);
    } catch (error) {
      // Reads with FINAL stay exact; the engine's own merges fold the versions later.
      this.#deps.log?.('instrument_master_merge_failed', { message: (error as Error).message });
    }
  }
}
