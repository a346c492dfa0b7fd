/**
 * Strict ISO 8601 dates and instants. `Date.parse` is no judge of either: it rolls an impossible
 * day over (2026-02-30 becomes 2026-03-02) and reads non-ISO text such as `2026-11-22 09:00` in the
 * server's local zone, so a typo would silently move a query window or an order's expiry. These
 * parsers accept one grammar and check every component against the calendar instead.
 */

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` with `Z` or `±HH:MM` (a zone is required). */
const ISO =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$/;
const DATE_ONLY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isRealDay(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** True for a `YYYY-MM-DD` that names a day of the calendar (2028-02-29 yes, 2026-02-30 no). */
export function isCalendarDate(text: string): boolean {
  if (!DATE_ONLY.test(text)) return false;
  return isRealDay(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)));
}

/**
 * Epoch milliseconds of a date (midnight UTC) or of an instant with its zone, or undefined when the
 * text is not that grammar or names a moment that does not exist (month 13, 2026-02-30, 24:00,
 * an offset of +25:00). Fractions finer than a millisecond are truncated.
 */
export function parseIsoInstant(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!isRealDay(year, month, day)) return undefined;
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMin = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z') {
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zh > 23 || zm > 59) return undefined;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0..99 to 1900..1999.
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, millis);
  return at.getTime() - offsetMin * 60_000;
}
