/**
 * Indian market calendar arithmetic. All of it is in IST (UTC+05:30, no daylight saving), so a
 * "day" is an IST calendar day and a day number counts days since 1970-01-01 IST. Weekends are the
 * only holidays the simulator knows.
 */
export const IST_OFFSET_S = 5.5 * 3600;
export const DAY_S = 86_400;
/** NSE continuous session 09:15-15:30 IST: 375 one-minute bars. */
export const SESSION_OPEN_S = 9 * 3600 + 15 * 60;
export const SESSION_MINUTES = 375;

/** IST day number of an epoch-seconds instant. */
export function istDay(epochS: number): number {
  return Math.floor((epochS + IST_OFFSET_S) / DAY_S);
}

/** Epoch seconds of 00:00 IST of a day number. */
export function istMidnight(day: number): number {
  return day * DAY_S - IST_OFFSET_S;
}

/** Epoch seconds of 09:15 IST, the first minute bar of a day. */
export function sessionOpen(day: number): number {
  return istMidnight(day) + SESSION_OPEN_S;
}

/** 0 = Sunday .. 6 = Saturday (1970-01-01 was a Thursday). */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export function isTradingDay(day: number): boolean {
  const w = weekday(day);
  return w !== 0 && w !== 6;
}

/** The trading day at or before `day`. */
export function tradingDayAtOrBefore(day: number): number {
  let d = day;
  while (!isTradingDay(d)) d -= 1;
  return d;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Day number of a `YYYY-MM-DD` string, or undefined when it is not a real date. */
export function parseDay(text: string): number | undefined {
  const m = DATE_RE.exec(text);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const d = new Date(ms);
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() !== Number(m[2]) - 1) return undefined;
  return ms / 86_400_000;
}

/** Epoch seconds of `YYYY-MM-DD` (00:00 IST) or `YYYY-MM-DD HH:MM[:SS]` (IST); undefined if malformed. */
export function parseIstInstant(text: string): number | undefined {
  const day = parseDay(text);
  if (day !== undefined) return istMidnight(day);
  const m = DATETIME_RE.exec(text);
  if (!m) return undefined;
  const d = parseDay(`${m[1]}-${m[2]}-${m[3]}`);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = Number(m[6] ?? '0');
  if (d === undefined || h > 23 || mi > 59 || s > 59) return undefined;
  return istMidnight(d) + h * 3600 + mi * 60 + s;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  const d = new Date(day * 86_400_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** IST wall-clock parts of an epoch-ms instant. */
function istParts(epochMs: number): Date {
  return new Date(epochMs + IST_OFFSET_S * 1000);
}

/** `YYYY-MM-DD HH:MM:SS` in IST, the shape of order and trade times. */
export function formatIstDateTime(epochMs: number): string {
  const d = istParts(epochMs);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(
    d.getUTCMinutes(),
  )}:${pad(d.getUTCSeconds())}`;
}

/** `YYYY-MM-DDTHH:MM:SS` in IST without zone, the token grant's expiryTime shape. */
export function formatIstIso(epochMs: number): string {
  return formatIstDateTime(epochMs).replace(' ', 'T');
}

/** `DD/MM/YYYY HH:MM` in IST (profile tokenValidity). */
export function formatIstDmyHm(epochMs: number): string {
  const d = istParts(epochMs);
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(
    d.getUTCMinutes(),
  )}`;
}

/** `DD/MM/YYYY HH:MM:SS` in IST (quote last_trade_time). */
export function formatIstDmyHms(epochMs: number): string {
  const d = istParts(epochMs);
  return `${formatIstDmyHm(epochMs)}:${pad(d.getUTCSeconds())}`;
}
