/**
 * When the scheduled loader runs: after each trading day's close of the segments it loads, plus a
 * delay (the service's end-of-day candles settle a few minutes after the close). On a day when only
 * some of them trade, the run waits for the last of those to close; a day when none trades has no
 * run. Pure functions of the calendar and a time, so weekends, holidays and closing times are
 * tested without a clock.
 */
import { istDayOf } from './calendar.js';
import { LoaderError } from './errors.js';
import type { TradingCalendar } from './trading-calendar.js';
import type { UniverseInstrument } from './universe.js';

/** Days searched for the next run: a calendar with a year of holidays in a row is a mistake. */
const HORIZON_DAYS = 400;

/** The segments a universe loads: each instrument's, and the F&O segment of its expired options. */
export function loadedSegments(universe: readonly UniverseInstrument[]): string[] {
  const out = new Set<string>();
  for (const inst of universe) {
    out.add(inst.segment);
    if (inst.expiredOptions) out.add(inst.fnoSegment);
  }
  return [...out].sort();
}

/** The run of IST day `day`: the last close among the segments trading that day, plus the delay; undefined when none trades. */
export function runOfDay(
  calendar: TradingCalendar,
  segments: readonly string[],
  day: number,
  delayMs: number,
): number | undefined {
  let last: number | undefined;
  for (const segment of segments) {
    if (!calendar.isTradingDay(segment, day)) continue;
    const close = calendar.closeAt(segment, day);
    if (last === undefined || close > last) last = close;
  }
  return last === undefined ? undefined : last + delayMs;
}

/** The first run strictly after `afterMs` (epoch ms). CONFIG_INVALID when no day within 400 trades. */
export function nextRunAt(
  calendar: TradingCalendar,
  segments: readonly string[],
  afterMs: number,
  delayMs: number,
): number {
  if (segments.length === 0)
    throw new LoaderError('CONFIG_INVALID', 'schedule: the universe loads no segment');
  // From the day before: a late close plus the delay can fall after midnight IST.
  const first = istDayOf(afterMs) - 1;
  for (let day = first; day <= first + HORIZON_DAYS; day++) {
    const at = runOfDay(calendar, segments, day, delayMs);
    if (at !== undefined && at > afterMs) return at;
  }
  throw new LoaderError(
    'CONFIG_INVALID',
    `schedule: no trading day of ${segments.join(', ')} within ${HORIZON_DAYS} days (${calendar.source})`,
  );
}
