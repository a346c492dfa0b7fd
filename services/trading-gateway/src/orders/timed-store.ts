/**
 * The store lane the order path uses, with each statement's time observed under a label of its
 * caller (`trading_gateway_order_store_seconds`). Under `npm start` every statement crosses to npm
 * start's process and waits on the pipeline's lane beside the sink's inserts, which is where an
 * order's time went on a loaded host; this says per kind of statement how much, so bench:flood can
 * print the breakdown instead of a guess.
 */

import type { Readable } from 'node:stream';
import type { LaneLimits, QueryParams, QuerySettings, StoreLane, StreamFormat } from '@feedpipe/store';
import type { Histogram } from 'prom-client';

/** What a statement on the order path is for: the label of its timing. */
export type OrderStatement =
  | 'audit_read'
  | 'audit_write'
  /** The audit journal's inserts behind the answers (audit-drain.ts): off the order's path. */
  | 'audit_drain'
  | 'instrument_read'
  | 'owner_read';

export type StoreTimings = Histogram<'statement'>;

export class TimedLane implements StoreLane {
  readonly #lane: StoreLane;
  readonly #timings: StoreTimings;
  readonly #read: OrderStatement;
  readonly #write: OrderStatement;

  /** `read` labels its SELECTs, `write` its inserts (the audit's rows). */
  constructor(
    lane: StoreLane,
    timings: StoreTimings,
    labels: { read: OrderStatement; write?: OrderStatement },
  ) {
    this.#lane = lane;
    this.#timings = timings;
    this.#read = labels.read;
    this.#write = labels.write ?? labels.read;
  }

  get name(): StoreLane['name'] {
    return this.#lane.name;
  }
  get streamsResults(): boolean {
    return this.#lane.streamsResults;
  }
  get turns(): Readonly<LaneLimits> | undefined {
    return this.#lane.turns;
  }
  get readonlyLevel(): 1 | 2 {
    return this.#lane.readonlyLevel;
  }

  rows<T>(sql: string, params?: QueryParams, settings?: QuerySettings): Promise<T[]> {
    return this.#timed(this.#read, () => this.#lane.rows<T>(sql, params, settings));
  }

  stream(
    sql: string,
    params: QueryParams,
    format: StreamFormat,
    settings?: QuerySettings,
  ): Promise<Readable> {
    return this.#timed(this.#read, () => this.#lane.stream(sql, params, format, settings));
  }

  command(sql: string, params?: QueryParams): Promise<void> {
    return this.#timed(this.#write, () => this.#lane.command(sql, params));
  }

  insertRows(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly unknown[])[],
  ): Promise<void> {
    return this.#timed(this.#write, () => this.#lane.insertRows(table, columns, rows));
  }

  insertCsv(table: string, columns: readonly string[], csv: Buffer): Promise<void> {
    return this.#timed(this.#write, () => this.#lane.insertCsv(table, columns, csv));
  }

  async #timed<R>(statement: OrderStatement, run: () => Promise<R>): Promise<R> {
    const end = this.#timings.startTimer({ statement });
    try {
      return await run();
    } finally {
      end();
    }
  }
}
