/**
 * The trading calendar of the segments the loader loads: which IST days each segment trades and
 * when its session closes. The service's interface reports no exchange holidays for these segments
 * (its market status is the global-stocks market's, today only), so holidays come from a file the
 * operator keeps; without one, the simulator's calendar: every weekday trades, weekends do not,
 * every segment closes at 15:30 IST (packages/broker-sim/src/history/calendar.ts).
 *
 * Holiday file (JSON), validated once with a message naming what is wrong:
 *   {
 *     "holidays": { "*": ["2026-01-26", ...], "MCX_COMM": ["2026-03-03"] },  // or an array for every segment
 *     "closes": { "MCX_COMM": "23:30" }                                     // IST HH:MM; default 15:30
 *   }
 */
import { readFileSync } from 'node:fs';
import { DAY_S, formatDate, istMidnight, parseDate, weekday } from './calendar.js';
import { configError } from './errors.js';
import { CHART_SEGMENTS } from './universe.js';

/** The NSE/BSE continuous session ends at 15:30 IST; so does every segment of the simulator. */
export const DEFAULT_CLOSE_S = 15 * 3600 + 30 * 60;
const ALL = '*';
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

export interface CalendarSpec {
  /** IST dates (YYYY-MM-DD) without a session, for every segment (`*`) or one. */
  holidays?: Readonly<Record<string, readonly string[]>> | readonly string[];
  /** Session close per segment, IST `HH:MM`. Default 15:30. */
  closes?: Readonly<Record<string, string>>;
}

export class TradingCalendar {
  readonly #holidays = new Map<string, Set<number>>();
  readonly #closes = new Map<string, number>();
  /** Where the calendar came from, for logs and the status. */
  readonly source: string;

  constructor(spec: CalendarSpec = {}, source = 'the simulator calendar (weekends only, close 15:30 IST)') {
    this.source = source;
    const holidays = Array.isArray(spec.holidays) ? { [ALL]: spec.holidays } : (spec.holidays ?? {});
    if (typeof holidays !== 'object' || holidays === null)
      throw configError('calendar: holidays must be an object or an array');
    for (const [segment, dates] of Object.entries(holidays)) {
      checkSegment(segment, 'holidays', true);
      if (!Array.isArray(dates))
        throw configError(`calendar: holidays.${segment} must be an array of YYYY-MM-DD`);
      const days = new Set<number>();
      for (const date of dates) {
        const day = typeof date === 'string' ? parseDate(date) : undefined;
        if (day === undefined)
          throw configError(`calendar: holidays.${segment}: "${String(date)}" is not a date YYYY-MM-DD`);
        days.add(day);
      }
      this.#holidays.set(segment, days);
    }
    for (const [segment, time] of Object.entries(spec.closes ?? {})) {
      checkSegment(segment, 'closes', false);
      const m = typeof time === 'string' ? TIME.exec(time) : null;
      if (m === null)
        throw configError(`calendar: closes.${segment} must be an IST time HH:MM, got "${String(time)}"`);
      this.#closes.set(segment, Number(m[1]) * 3600 + Number(m[2]) * 60);
    }
  }

  /** Whether `segment` has a session on IST day `day`. */
  isTradingDay(segment: string, day: number): boolean {
    const w = weekday(day);
    if (w === 0 || w === 6) return false;
    return !(this.#holidays.get(ALL)?.has(day) || this.#holidays.get(segment)?.has(day));
  }

  /** Epoch ms at which `segment`'s session of `day` closes (whether or not it trades that day). */
  closeAt(segment: string, day: number): number {
    return (istMidnight(day) + (this.#closes.get(segment) ?? DEFAULT_CLOSE_S)) * 1000;
  }

  /**
   * The last IST day of `segment` whose data is final at `nowMs`: today once its session has closed
   * (or when it has none today), else yesterday. A later day may still change.
   */
  settledDay(segment: string, nowMs: number): number {
    const today = Math.floor((nowMs / 1000 + 19_800) / DAY_S);
    const closed = !this.isTradingDay(segment, today) || nowMs >= this.closeAt(segment, today);
    return closed ? today : today - 1;
  }

  /** Holidays of a segment as dates, for the status and tests. */
  holidaysOf(segment: string): string[] {
    const days = new Set([...(this.#holidays.get(ALL) ?? []), ...(this.#holidays.get(segment) ?? [])]);
    return [...days].sort((a, b) => a - b).map(formatDate);
  }
}

function checkSegment(segment: string, where: string, allowAll: boolean): void {
  if (allowAll && segment === ALL) return;
  if (!(CHART_SEGMENTS as readonly string[]).includes(segment)) {
    throw configError(
      `calendar: ${where}.${segment} is not a segment (allowed: ${allowAll ? '*, ' : ''}${CHART_SEGMENTS.join(', ')})`,
    );
  }
}

/** The calendar of a holiday file (see the file comment). CONFIG_INVALID names the problem. */
export function readCalendarFile(path: string): TradingCalendar {
  let spec: unknown;
  try {
    spec = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw configError(`calendar: cannot read ${path}: ${(error as Error).message}`);
  }
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    throw configError(`calendar: ${path} must hold a JSON object { holidays, closes }`);
  for (const key of Object.keys(spec)) {
    if (key !== 'holidays' && key !== 'closes')
      throw configError(`calendar: unknown key "${key}" in ${path} (allowed: holidays, closes)`);
  }
  return new TradingCalendar(spec as CalendarSpec, path);
}
