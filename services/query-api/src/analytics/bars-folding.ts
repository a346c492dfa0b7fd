/**
 * Bars requests answered together: requests that arrive while the engine is busy wait in a line,
 * and the next free turn answers all of them (up to a bound) with one statement (FOLDED_BARS_SQL).
 *
 * Why: on embedded chDB a bars statement costs 13-17 ms of CPU for a day or two of one
 * instrument, most of it the statement's own rather than the ticks', so one statement a request
 * held two cores at 80-140 uncached requests a second; folded, a request costs ~3-4 ms
 * (bench:api, services/query-api/README.md). Without load a request finds a free turn and goes
 * alone, as before. Each answer is the text ClickHouse writes for that request's rows (one line a
 * bar, written by the engine in the asked format); only the envelope is added here
 * (query/text-bodies.ts). Binary formats are not folded: their writers need a statement each.
 *
 * Isolation: a batch's rows carry the request's number, so an answer only ever holds rows the
 * statement produced for it; a failed statement fails every request of its batch, none of them
 * with another's partial rows.
 */

import type { QuerySettings } from '@feedpipe/store';
import { isQueryApiError } from '../errors.js';
import { FORMAT_SETTINGS, OUTPUT_FORMATS } from '../query/formats.js';
import { type QueryRunner, storeError } from '../query/query-runner.js';
import type { CachedResponse } from '../query/result-cache.js';
import { ROW_FORMATS, type RowTextFormat, textBody } from '../query/text-bodies.js';
import { ISO_TIME_SETTINGS } from '../query/time-columns.js';
import { BAR_RESULT_COLUMNS, FOLDED_BARS_SQL } from './bars-sql.js';

export interface BarsRequest {
  securityId: number;
  /** Bar length in seconds. */
  step: number;
  fromSec: number;
  toSec: number;
}

export interface BarsFolderOptions {
  /** Statements in flight at once (the engine's turns for callers). */
  maxInFlight: number;
  /**
   * Most bars (range / step, summed over the batch) one statement may be asked for: a batch is no
   * larger than the largest single answer allowed (config query.maxBars), so it fits the result
   * reservation one request has.
   */
  maxBars: number;
  /** Most requests in one statement. */
  maxRequests: number;
  /**
   * While another statement runs, how long a short line waits for more requests before it takes a
   * free turn anyway (a full batch goes at once; with nothing running a request never waits).
   */
  lingerMs: number;
  /** A line this long goes without lingering. */
  fullBatch: number;
  /** Settings of every folded statement (e.g. its threads). */
  statementSettings?: QuerySettings | undefined;
  /** Called with the number of requests each statement answers. */
  onBatch?: ((requests: number) => void) | undefined;
}

/** A statement's rows for one request: lines of the row format, in time order. */
interface Answer {
  rows: Buffer[];
  elapsedSec: number;
}

interface Waiting {
  request: BarsRequest;
  bars: number;
  /** performance.now() when it joined the line. */
  since: number;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/** Requests of one row format wait in one line: a statement writes its rows in one format. */
type RowFormat = (typeof ROW_FORMATS)[RowTextFormat];

export class BarsFolder {
  readonly #runner: QueryRunner;
  readonly #options: BarsFolderOptions;
  readonly #lines = new Map<RowFormat, Waiting[]>();
  #inFlight = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(runner: QueryRunner, options: BarsFolderOptions) {
    this.#runner = runner;
    this.#options = options;
  }

  /** The bars of `request` in `format`, answered alone or together with others waiting. */
  async answer(request: BarsRequest, format: RowTextFormat): Promise<CachedResponse> {
    const rowFormat = ROW_FORMATS[format];
    const bars = Math.ceil((request.toSec - request.fromSec) / request.step);
    const answer = await new Promise<Answer>((resolve, reject) => {
      const line = this.#lines.get(rowFormat) ?? [];
      this.#lines.set(rowFormat, line);
      line.push({ request, bars, since: performance.now(), resolve, reject });
      this.#pump();
    });
    return {
      body: textBody(format, BAR_RESULT_COLUMNS, answer.rows, answer.elapsedSec),
      contentType: OUTPUT_FORMATS[format].contentType,
    };
  }

  /** Starts statements while turns are free. */
  #pump(): void {
    while (this.#inFlight < this.#options.maxInFlight) {
      if (this.#inFlight > 0 && !this.#lingered()) return;
      const next = this.#takeBatch();
      if (next === undefined) return;
      this.#inFlight++;
      void this.#run(next.rowFormat, next.batch).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  /**
   * Whether a statement may start beside the ones running: a full batch is waiting, or the
   * oldest request has waited `lingerMs` (else a timer comes back then). Under load a turn freed while few
   * requests wait would otherwise run a statement for one or two, paying a statement's whole cost
   * for them while the others arriving just after wait behind it.
   */
  #lingered(): boolean {
    let oldest = Number.POSITIVE_INFINITY;
    for (const line of this.#lines.values()) {
      if (line.length >= this.#options.fullBatch) return true;
      if (line[0] !== undefined) oldest = Math.min(oldest, line[0].since);
    }
    if (oldest === Number.POSITIVE_INFINITY) return false;
    const waited = performance.now() - oldest;
    if (waited >= this.#options.lingerMs) return true;
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#pump();
      }, this.#options.lingerMs - waited);
    }
    return false;
  }

  /**
   * The next batch: the head of a line and the requests behind it that fit. Lines take turns
   * (the one served goes to the back of the map), so one format cannot starve the other.
   */
  #takeBatch(): { rowFormat: RowFormat; batch: Waiting[] } | undefined {
    for (const [rowFormat, line] of this.#lines) {
      const head = line.shift();
      if (head === undefined) continue;
      const batch = [head];
      let bars = head.bars;
      for (
        let next = line[0];
        next !== undefined && batch.length < this.#options.maxRequests;
        next = line[0]
      ) {
        if (bars + next.bars > this.#options.maxBars) break;
        bars += next.bars;
        batch.push(next);
        line.shift();
      }
      this.#lines.delete(rowFormat);
      this.#lines.set(rowFormat, line);
      return { rowFormat, batch };
    }
    return undefined;
  }

  async #run(rowFormat: RowFormat, batch: readonly Waiting[]): Promise<void> {
    this.#options.onBatch?.(batch.length);
    try {
      const started = performance.now();
      const body = await this.#runner.bufferAs({
        sql: FOLDED_BARS_SQL,
        params: {
          rowFormat,
          sids: batch.map((w) => w.request.securityId),
          steps: batch.map((w) => w.request.step),
          froms: batch.map((w) => w.request.fromSec),
          tos: batch.map((w) => w.request.toSec),
        },
        format: 'RowBinary',
        settings: { ...this.#options.statementSettings, ...FORMAT_SETTINGS, ...ISO_TIME_SETTINGS },
      });
      const elapsedSec = Math.round(performance.now() - started) / 1000;
      const rows = rowsByRequest(body, batch.length);
      batch.forEach((w, i) => {
        w.resolve({ rows: rows[i] as Buffer[], elapsedSec });
      });
    } catch (error) {
      // The runner's refusals are typed already; a result that cannot be split is the store's fault.
      const failure = isQueryApiError(error) ? error : storeError(error, 'internal');
      for (const w of batch) w.reject(failure);
    }
  }
}

/**
 * Splits the statement's RowBinary rows (r UInt32, line String) by request number (1-based), as
 * slices of `body` (no copy). Exported for its tests. Throws on a malformed body rather than hand
 * out a partial answer.
 */
export function rowsByRequest(body: Buffer, requests: number): Buffer[][] {
  const out: Buffer[][] = Array.from({ length: requests }, () => []);
  let at = 0;
  while (at < body.length) {
    if (at + 5 > body.length) throw new Error('folded bars: a row is cut short');
    const r = body.readUInt32LE(at);
    at += 4;
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = body[at++];
      if (byte === undefined || shift > 28) throw new Error('folded bars: a bad string length');
      length += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    if (r < 1 || r > requests || at + length > body.length) {
      throw new Error(`folded bars: row of request ${r} does not fit a batch of ${requests}`);
    }
    (out[r - 1] as Buffer[]).push(body.subarray(at, at + length));
    at += length;
  }
  return out;
}
