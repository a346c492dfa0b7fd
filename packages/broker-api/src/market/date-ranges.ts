import { invalidArgument } from '../core/errors.js';

const DAY_MS = 86_400_000;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export interface DateRange {
  fromDate: string;
  toDate: string;
}

/**
 * Reads YYYY-MM-DD or YYYY-MM-DD HH:MM:SS as a wall-clock time. The service means exchange-local
 * (IST) dates; arithmetic on them as if they were UTC keeps day boundaries where they are.
 */
export function parseWallClock(text: string, name: string): { ms: number; hasTime: boolean } {
  const m = DATE_TIME.exec(text) ?? DATE_ONLY.exec(text);
  if (m === null) throw invalidArgument(`${name} must be YYYY-MM-DD or YYYY-MM-DD HH:MM:SS`);
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1) as [
    string,
    string,
    string,
    string?,
    string?,
    string?,
  ];
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(ms);
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1 || Number(h) > 23) {
    throw invalidArgument(`${name} is not a real date: ${text}`);
  }
  return { ms, hasTime: m.length > 4 && m[4] !== undefined };
}

export function formatWallClock(ms: number, withTime: boolean): string {
  const iso = new Date(ms).toISOString();
  return withTime ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso.slice(0, 10);
}

/**
 * Splits [fromDate, toDate) into consecutive ranges of at most `maxDays` days each, the longest
 * first: 2 years of intraday candles at 90 days per call become ceil(730 / 90) = 9 calls. Output
 * keeps the input's style (date only, or date and time).
 */
export function splitDateRange(fromDate: string, toDate: string, maxDays: number): DateRange[] {
  const from = parseWallClock(fromDate, 'fromDate');
  const to = parseWallClock(toDate, 'toDate');
  if (to.ms <= from.ms) throw invalidArgument('toDate must be after fromDate');
  const withTime = from.hasTime || to.hasTime;
  const step = maxDays * DAY_MS;
  const out: DateRange[] = [];
  // Bounded by the range itself: (to - from) / step + 1 iterations.
  for (let start = from.ms; start < to.ms; start += step) {
    const end = Math.min(start + step, to.ms);
    out.push({ fromDate: formatWallClock(start, withTime), toDate: formatWallClock(end, withTime) });
  }
  return out;
}

/** Today's date in India (UTC+5:30), where the service's dates live. */
export function istDate(nowMs: number): string {
  return new Date(nowMs + 5.5 * 3_600_000).toISOString().slice(0, 10);
}

/** The same calendar day `years` earlier (29 February falls back to 28). */
export function yearsBefore(date: string, years: number): string {
  const { ms } = parseWallClock(date, 'date');
  const d = new Date(ms);
  const target = new Date(Date.UTC(d.getUTCFullYear() - years, d.getUTCMonth(), d.getUTCDate()));
  if (target.getUTCMonth() !== d.getUTCMonth()) target.setUTCDate(0);
  return target.toISOString().slice(0, 10);
}
