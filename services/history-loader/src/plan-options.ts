/**
 * What a run loads, validated once: unknown keys and bad values are refused by name. Every default
 * is written beside its field.
 */
import { parseDate } from './calendar.js';
import { configError } from './errors.js';

export type Interval = 1 | 5 | 15 | 30 | 60;
export const INTERVALS: readonly Interval[] = [1, 5, 15, 30, 60];
export type OptionSide = 'CALL' | 'PUT';

/** The service keeps intraday and expired-options history for 5 years; 1825 days stays inside it. */
export const MAX_HISTORY_DAYS = 1825;

export interface PlanOptions {
  /** Exclusive end (IST date) of every window. Default: tomorrow in IST, so today is included. */
  until?: string;
  daily?: {
    /** Default true. */
    enabled?: boolean;
    /** Start for instruments without an inceptionDate. Default '2000-01-01'. */
    from?: string;
    /** Days per call (one checkpointed unit). Default 1825. */
    windowDays?: number;
  };
  intraday?: {
    /** Default [5]. Candle intervals in minutes; [] loads no intraday candles. */
    intervals?: Interval[];
    /** Days back from `until`, at most 1825 (5 years). Default 90. */
    days?: number;
    /** Days per call, at most 90 (the service's limit). Default 90. */
    windowDays?: number;
  };
  optionChain?: {
    /** Default true (for universe rows with optionChain). */
    enabled?: boolean;
    /** Snapshot the nearest N expiries of each underlying. Default 1. */
    expiries?: number;
    /** 0: one snapshot per IST day. K >= 3: a snapshot every K seconds while the run lasts. Default 0. */
    everySeconds?: number;
    /** Periodic snapshots only during NSE hours (09:15-15:30 IST, weekdays). Default true. */
    marketHoursOnly?: boolean;
  };
  expiredOptions?: {
    /** Default true (for universe rows with expiredOptions). */
    enabled?: boolean;
    /** Strikes ATM-n..ATM+n, n at most 10. Default 10. */
    strikes?: number;
    /** Default ['CALL', 'PUT']. */
    sides?: OptionSide[];
    /** Minutes per bar. Default 1. */
    interval?: Interval;
    /** Days back from `until` (expired data covers finished days only), at most 1825. Default 90. */
    days?: number;
    /** Days per call, at most 45 (the service's limit). Default 45. */
    windowDays?: number;
    /** Index options: WEEK or MONTH (stock options are always MONTH). Default 'WEEK'. */
    expiryFlag?: 'WEEK' | 'MONTH';
    /** 1 near, 2 next, 3 far. Default 1. */
    expiryCode?: 1 | 2 | 3;
  };
}

export interface ResolvedPlan {
  until: string | undefined;
  daily: { enabled: boolean; from: string; windowDays: number };
  intraday: { intervals: Interval[]; days: number; windowDays: number };
  optionChain: { enabled: boolean; expiries: number; everySeconds: number; marketHoursOnly: boolean };
  expiredOptions: {
    enabled: boolean;
    strikes: number;
    sides: OptionSide[];
    interval: Interval;
    days: number;
    windowDays: number;
    expiryFlag: 'WEEK' | 'MONTH';
    expiryCode: 1 | 2 | 3;
  };
}

type Rec = Record<string, unknown>;

function section(value: unknown, name: string, keys: readonly string[]): Rec {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw configError(`${name} must be an object`);
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) throw configError(`unknown option ${name}.${key} (allowed: ${keys.join(', ')})`);
  }
  return value as Rec;
}

function int(r: Rec, key: string, where: string, dflt: number, min: number, max: number): number {
  const v = r[key];
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw configError(`${where}.${key} must be an integer from ${min} to ${max}`);
  }
  return v;
}

function bool(r: Rec, key: string, where: string, dflt: boolean): boolean {
  const v = r[key];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw configError(`${where}.${key} must be true or false`);
  return v;
}

function date(r: Rec, key: string, where: string): string | undefined {
  const v = r[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || parseDate(v) === undefined)
    throw configError(`${where}.${key} must be a date YYYY-MM-DD`);
  return v;
}

function interval(v: unknown, where: string): Interval {
  if (!INTERVALS.includes(v as Interval))
    throw configError(`${where} must be one of ${INTERVALS.join(', ')}`);
  return v as Interval;
}

export function resolvePlan(plan: PlanOptions = {}): ResolvedPlan {
  const top = section(plan, 'plan', ['until', 'daily', 'intraday', 'optionChain', 'expiredOptions']);
  const d = section(top.daily, 'plan.daily', ['enabled', 'from', 'windowDays']);
  const i = section(top.intraday, 'plan.intraday', ['intervals', 'days', 'windowDays']);
  const c = section(top.optionChain, 'plan.optionChain', [
    'enabled',
    'expiries',
    'everySeconds',
    'marketHoursOnly',
  ]);
  const e = section(top.expiredOptions, 'plan.expiredOptions', [
    'enabled',
    'strikes',
    'sides',
    'interval',
    'days',
    'windowDays',
    'expiryFlag',
    'expiryCode',
  ]);
  const intervals = i.intervals ?? [5];
  if (!Array.isArray(intervals)) throw configError('plan.intraday.intervals must be an array');
  const sides = e.sides ?? ['CALL', 'PUT'];
  if (!Array.isArray(sides) || sides.length === 0 || sides.some((s) => s !== 'CALL' && s !== 'PUT')) {
    throw configError('plan.expiredOptions.sides must list CALL and/or PUT');
  }
  const everySeconds = int(c, 'everySeconds', 'plan.optionChain', 0, 0, 86_400);
  if (everySeconds > 0 && everySeconds < 3) {
    // The service answers one identical option-chain request per 3 seconds.
    throw configError('plan.optionChain.everySeconds must be 0 or at least 3');
  }
  const expiryFlag = e.expiryFlag ?? 'WEEK';
  if (expiryFlag !== 'WEEK' && expiryFlag !== 'MONTH')
    throw configError('plan.expiredOptions.expiryFlag must be WEEK or MONTH');
  return {
    until: date(top, 'until', 'plan'),
    daily: {
      enabled: bool(d, 'enabled', 'plan.daily', true),
      from: date(d, 'from', 'plan.daily') ?? '2000-01-01',
      windowDays: int(d, 'windowDays', 'plan.daily', 1825, 1, 36_500),
    },
    intraday: {
      intervals: [...new Set(intervals.map((v, k) => interval(v, `plan.intraday.intervals[${k}]`)))],
      days: int(i, 'days', 'plan.intraday', 90, 1, MAX_HISTORY_DAYS),
      windowDays: int(i, 'windowDays', 'plan.intraday', 90, 1, 90),
    },
    optionChain: {
      enabled: bool(c, 'enabled', 'plan.optionChain', true),
      expiries: int(c, 'expiries', 'plan.optionChain', 1, 1, 20),
      everySeconds,
      marketHoursOnly: bool(c, 'marketHoursOnly', 'plan.optionChain', true),
    },
    expiredOptions: {
      enabled: bool(e, 'enabled', 'plan.expiredOptions', true),
      strikes: int(e, 'strikes', 'plan.expiredOptions', 10, 0, 10),
      sides: [...new Set(sides as OptionSide[])],
      interval: e.interval === undefined ? 1 : interval(e.interval, 'plan.expiredOptions.interval'),
      days: int(e, 'days', 'plan.expiredOptions', 90, 1, MAX_HISTORY_DAYS),
      windowDays: int(e, 'windowDays', 'plan.expiredOptions', 45, 1, 45),
      expiryFlag,
      expiryCode: int(e, 'expiryCode', 'plan.expiredOptions', 1, 1, 3) as 1 | 2 | 3,
    },
  };
}
