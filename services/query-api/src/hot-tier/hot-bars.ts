/**
 * Which tier answers a bars request, and the answer in the asked format:
 * - the range lies in the window (and the tier holds the instrument): memory;
 * - it starts before the window and ends inside, and the window's start (a UTC midnight) is a bar
 *   boundary of the interval: ClickHouse (BARS_SQL's rows, in RowBinary) before the start, memory
 *   from it, joined (a bar never spans the edge, and the day of the edge starts a new lag, so the
 *   two sides are exactly the bars of the whole range);
 * - otherwise undefined: the caller asks ClickHouse as before.
 * Text formats are written here (bar-text.ts): from memory at a kept interval (1 s, 1 min) as the
 * kept bars' rows joined, else row by row; Arrow and Parquet by the engine from the bars as
 * parameters (bar-binary.ts), so every format is the bytes ClickHouse gives for the same rows.
 */
import { BARS_SQL } from '../analytics/bars-sql.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../query/formats.js';
import type { QueryRunner } from '../query/query-runner.js';
import type { CachedResponse } from '../query/result-cache.js';
import { isRowTextFormat, type RowTextFormat } from '../query/text-bodies.js';
import { BARS_FROM_COLUMNS_SQL, barColumnsParams, decodeBarsRowBinary } from './bar-binary.js';
import { type BarSet, concatBars } from './bar-set.js';
import { barsTextBody, rowsTextBody } from './bar-text.js';
import type { HotTier, KeptBarsRun } from './hot-tier.js';
import type { AnswerTier } from './hot-tier-metrics.js';

export interface BarsQuery {
  securityId: number;
  step: number;
  fromSec: number;
  toSec: number;
}

/** The tier that can answer `q`, or undefined for ClickHouse alone. */
export function tierFor(
  tier: HotTier | undefined,
  q: BarsQuery,
): Exclude<AnswerTier, 'clickhouse'> | undefined {
  if (tier === undefined || !tier.ready) return undefined;
  const edge = tier.windowStartSec;
  if (q.fromSec >= edge) return tier.covers(q.securityId, q.fromSec, q.toSec) ? 'memory' : undefined;
  if (q.toSec <= edge || edge % q.step !== 0) return undefined;
  return tier.covers(q.securityId, edge, q.toSec) ? 'stitched' : undefined;
}

/** The bars of `q` from `answer` ('memory' or 'stitched'), as a whole response in `format`. */
export async function hotBars(
  tier: HotTier,
  runner: QueryRunner,
  q: BarsQuery,
  answer: Exclude<AnswerTier, 'clickhouse'>,
  format: OutputFormat,
): Promise<CachedResponse> {
  const started = performance.now();
  if (answer === 'memory' && isRowTextFormat(format)) {
    const runs = tier.keptBars(q.securityId, q.step, q.fromSec, q.toSec);
    if (runs !== undefined) {
      const elapsedSec = Math.round(performance.now() - started) / 1000;
      return {
        body: keptRowsBody(runs, format, elapsedSec),
        contentType: OUTPUT_FORMATS[format].contentType,
      };
    }
  }
  let bars: BarSet;
  if (answer === 'memory') bars = tier.bars(q.securityId, q.step, q.fromSec, q.toSec);
  else {
    const edge = tier.windowStartSec;
    // Memory first: the edge cannot move between the two reads (no await before it).
    const recent = tier.bars(q.securityId, q.step, edge, q.toSec);
    const body = await runner.bufferAs({
      sql: BARS_SQL,
      params: { sid: q.securityId, step: q.step, fromSec: q.fromSec, toSec: edge },
      format: 'RowBinary',
    });
    bars = concatBars(decodeBarsRowBinary(body), recent);
  }
  if (isRowTextFormat(format)) {
    const elapsedSec = Math.round(performance.now() - started) / 1000;
    return { body: barsTextBody(bars, format, elapsedSec), contentType: OUTPUT_FORMATS[format].contentType };
  }
  return runner.buffer({ sql: BARS_FROM_COLUMNS_SQL, params: barColumnsParams(bars), format });
}

/** The answer joined from kept bars' rows (each written once, while its bar does not change). */
function keptRowsBody(runs: readonly KeptBarsRun[], format: RowTextFormat, elapsedSec: number): Buffer {
  let n = 0;
  for (const run of runs) n += run.end - run.start;
  let run = 0;
  let base = 0;
  return rowsTextBody(
    format,
    n,
    (i) => {
      // Rows are asked for in order: move to the next run when this one is used up.
      let current = runs[run] as KeptBarsRun;
      while (i - base >= current.end - current.start) {
        base += current.end - current.start;
        current = runs[++run] as KeptBarsRun;
      }
      return current.bars.rowText(current.start + i - base, format);
    },
    elapsedSec,
  );
}
