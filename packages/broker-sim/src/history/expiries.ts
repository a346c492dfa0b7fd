/**
 * Option expiries and strike grids. Index options expire weekly on Thursdays and monthly on the
 * last Thursday of the month; stock options only monthly. An expiry counts until 15:30 IST of its
 * day. (Holidays are not modelled, so expiries never move.)
 */
import { formatDay, isTradingDay, weekday } from './calendar.js';

/** Weekly expiries listed ahead; monthly expiries listed ahead. */
export const WEEKLY_AHEAD = 4;
export const MONTHLY_AHEAD = 3;
const THURSDAY = 4;

function nextThursdayAtOrAfter(day: number): number {
  return day + ((THURSDAY - weekday(day) + 7) % 7);
}

function lastThursdayOfMonthOf(day: number): number {
  const d = new Date(day * 86_400_000);
  const firstNext = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 86_400_000;
  const last = firstNext - 1;
  return last - ((weekday(last) - THURSDAY + 7) % 7);
}

/** Monthly expiries on or after `day`, nearest first. */
export function monthlyExpiries(day: number, count: number): number[] {
  const out: number[] = [];
  let probe = day;
  while (out.length < count) {
    const e = lastThursdayOfMonthOf(probe);
    if (e >= day && !out.includes(e)) out.push(e);
    probe = e + 7;
  }
  return out;
}

/** Weekly expiries on or after `day`, nearest first. */
export function weeklyExpiries(day: number, count: number): number[] {
  const out: number[] = [];
  for (let e = nextThursdayAtOrAfter(day); out.length < count; e += 7) out.push(e);
  return out;
}

/** The expiry list of an underlying as of `day` (the expiry day itself is listed until close). */
export function expiryList(day: number, index: boolean): number[] {
  const set = new Set(monthlyExpiries(day, MONTHLY_AHEAD));
  if (index) for (const e of weeklyExpiries(day, WEEKLY_AHEAD)) set.add(e);
  return [...set].filter(isTradingDay).sort((a, b) => a - b);
}

export const formatExpiry = formatDay;

/** A round strike step near 0.4% of the price (NIFTY 50, BANKNIFTY 100, a 2,500 stock 10). */
export function strikeStep(price: number): number {
  const target = price * 0.004;
  const steps = [1, 2.5, 5, 10, 20, 50, 100];
  let best = 1;
  for (const s of steps) if (s <= target) best = s;
  return best;
}
