/**
 * IST calendar arithmetic for planning. The service's dates are Indian (UTC+05:30, no daylight
 * saving) calendar days, so a plan works in IST day numbers (days since 1970-01-01 IST) and turns
 * them into `YYYY-MM-DD` for requests and into epoch seconds of IST midnight for checkpoints.
 */
export const DAY_S = 86_400;
const IST_OFFSET_S = 19_800;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** IST day number of an epoch-ms instant. */
export function istDayOf(epochMs: number): number {
  return Math.floor((epochMs / 1000 + IST_OFFSET_S) / DAY_S);
}

/** Day number of a `YYYY-MM-DD` date, or undefined when it is not a real date. */
export function parseDate(text: string): number | undefined {
  const m = DATE.exec(text);
  if (m === null) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const d = new Date(ms);
  if (d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return undefined;
  return ms / 86_400_000;
}

export function formatDate(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/** Epoch seconds of 00:00 IST of a day number: how windows are stored in the checkpoints. */
export function istMidnight(day: number): number {
  return day * DAY_S - IST_OFFSET_S;
}

/** The day number whose IST midnight is `epochS` (inverse of istMidnight). */
export function dayOfMidnight(epochS: number): number {
  return Math.round((epochS + IST_OFFSET_S) / DAY_S);
}

/** 0 = Sunday .. 6 = Saturday (1970-01-01 was a Thursday). */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** NSE continuous session, 09:15 to 15:30 IST on weekdays (exchange holidays are not known here). */
export function inMarketHours(epochMs: number): boolean {
  const day = istDayOf(epochMs);
  const w = weekday(day);
  if (w === 0 || w === 6) return false;
  const secondOfDay = epochMs / 1000 - istMidnight(day);
  return secondOfDay >= 9 * 3600 + 15 * 60 && secondOfDay < 15 * 3600 + 30 * 60;
}

/**
 * Cuts [fromDay, toDay) into windows of `size` days aligned to a fixed grid (multiples of `size`
 * since day 0), clipped to the range. A fixed grid keeps a past window's bounds the same from run
 * to run as "today" moves, so the planner recognises it as loaded.
 */
export function gridWindows(fromDay: number, toDay: number, size: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (toDay <= fromDay) return out;
  // Bounded by the range: (toDay - fromDay) / size + 2 iterations.
  for (let start = Math.floor(fromDay / size) * size; start < toDay; start += size) {
    out.push([Math.max(start, fromDay), Math.min(start + size, toDay)]);
  }
  return out;
}
