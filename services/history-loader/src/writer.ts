/**
 * Batches rows into one insert per table per flush, and writes a unit's checkpoint only in the
 * flush that wrote its rows, after them: a crash between the two leaves the unit unrecorded, so
 * the next run loads it again and the ReplacingMergeTree keys fold the second copy away. Buffered
 * rows are bounded; `add` waits for a flush beyond the bound (backpressure on the fetchers).
 */

import { HISTORY_TABLES } from '@feedpipe/contracts';
import { retry } from '@feedpipe/retry';
import type { StoreLane } from '@feedpipe/store';
import { LOAD_UNITS_COLUMNS, LOAD_UNITS_TABLE } from './checkpoints.js';
import { LoaderError } from './errors.js';
import type { WriteGate } from './loader.js';
import type { LoaderMetrics } from './metrics.js';
import { TABLE_IDS, TABLES, type TableId } from './tables.js';

const LOADER_REQUESTS = HISTORY_TABLES.loaderRequests;

export interface WriterOptions {
  /** Flush when this many rows are buffered. */
  flushRows: number;
  /** Flush at least this often while anything is buffered. */
  flushIntervalMs: number;
  /** `add` waits while more rows than this are buffered. */
  maxBufferedRows: number;
}

const FLUSH_ATTEMPTS = 4;

export class BatchWriter {
  readonly #store: StoreLane;
  readonly #metrics: LoaderMetrics;
  readonly #options: WriterOptions;
  readonly #requestsSince: () => number;
  readonly #clientId: string;
  readonly #gate: WriteGate | undefined;
  readonly #signal: AbortSignal | undefined;
  #rows = new Map<TableId, unknown[][]>();
  #checkpoints: unknown[][] = [];
  #buffered = 0;
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failure: LoaderError | undefined;
  rowsWritten = 0;

  constructor(
    store: StoreLane,
    metrics: LoaderMetrics,
    options: WriterOptions,
    clientId: string,
    requestsSince: () => number,
    gate?: WriteGate,
    signal?: AbortSignal,
  ) {
    this.#gate = gate;
    this.#signal = signal;
    this.#store = store;
    this.#metrics = metrics;
    this.#options = options;
    this.#clientId = clientId;
    this.#requestsSince = requestsSince;
  }

  get failure(): LoaderError | undefined {
    return this.#failure;
  }

  start(): void {
    this.#timer ??= setInterval(() => {
      if (this.#buffered > 0 || this.#checkpoints.length > 0) void this.flush().catch(() => undefined);
    }, this.#options.flushIntervalMs);
  }

  /** Buffers a unit's rows (if any) and its checkpoint row. */
  async add(table: TableId | undefined, rows: readonly unknown[][], checkpoint: unknown[]): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (table !== undefined && rows.length > 0) {
      const list = this.#rows.get(table);
      if (list === undefined) this.#rows.set(table, [...rows]);
      else for (const r of rows) list.push(r);
      this.#buffered += rows.length;
    }
    this.#checkpoints.push(checkpoint);
    if (this.#buffered >= this.#options.flushRows) void this.flush().catch(() => undefined);
    // Bounded: each round waits for one flush, which empties the buffer or fails.
    for (let round = 0; round < 1000 && this.#buffered > this.#options.maxBufferedRows; round++) {
      await this.flush();
    }
  }

  /** Writes everything buffered so far; one flush at a time. */
  async flush(): Promise<void> {
    if (this.#failure) throw this.#failure;
    while (this.#flushing) await this.#flushing;
    if (this.#buffered === 0 && this.#checkpoints.length === 0) return;
    const rows = this.#rows;
    const checkpoints = this.#checkpoints;
    const requests = this.#requestsSince();
    this.#rows = new Map();
    this.#checkpoints = [];
    this.#buffered = 0;
    this.#flushing = this.#write(rows, checkpoints, requests).finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (!this.#failure) await this.flush();
  }

  async #write(rows: Map<TableId, unknown[][]>, checkpoints: unknown[][], requests: number): Promise<void> {
    // Held while the disk guard pauses writes; a stop (abort) lets the last flush try anyway: a
    // failed write is recorded as STORE_FAILED, and its units load again in the next run.
    while (this.#gate?.paused && !this.#signal?.aborted) await this.#gate.whenWritable(this.#signal);
    const started = performance.now();
    try {
      for (const id of TABLE_IDS) {
        const list = rows.get(id);
        if (list === undefined || list.length === 0) continue;
        await this.#retry(() => this.#store.insertRows(TABLES[id].name, TABLES[id].columns, list));
        this.rowsWritten += list.length;
        this.#metrics.rows.inc({ table: TABLES[id].name }, list.length);
      }
      if (requests > 0) {
        const row = [this.#clientId, Math.floor(Date.now() / 1000), requests];
        await this.#retry(() => this.#store.insertRows(LOADER_REQUESTS.name, LOADER_REQUESTS.columns, [row]));
      }
      if (checkpoints.length > 0) {
        await this.#retry(() => this.#store.insertRows(LOAD_UNITS_TABLE, LOAD_UNITS_COLUMNS, checkpoints));
      }
    } catch (error) {
      this.#failure = new LoaderError(
        'STORE_FAILED',
        `writing history rows failed: ${(error as Error).message}`,
        {
          cause: error,
          retryable: true,
        },
      );
      throw this.#failure;
    } finally {
      this.#metrics.flushSeconds.observe((performance.now() - started) / 1000);
    }
  }

  async #retry(write: () => Promise<void>): Promise<void> {
    await retry(write, { attempts: FLUSH_ATTEMPTS, initialMs: 250, factor: 4, maxMs: 4_000, floor: 0.5 });
  }
}
