/**
 * What a run loads, validated once: unknown keys and bad values are refused by name. Every default
 * is written beside its field.
 */
import { type OptionsSchema, readOptions, section } from '@feedpipe/config';
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

const DATE = { kind: 'pattern', pattern: /^\d{4}-\d{2}-\d{2}$/, allowed: 'a date YYYY-MM-DD' } as const;

/** Every key of a plan, with its range and default (PlanOptions documents each). */
const PLAN_OPTIONS = {
  until: DATE,
  daily: section({
    enabled: { kind: 'boolean', default: true },
    from: { ...DATE, default: '2000-01-01' },
    windowDays: { kind: 'integer', min: 1, max: 36_500, default: 1825 },
  }),
  intraday: section({
    intervals: { kind: 'list', values: INTERVALS, default: [5] },
    days: { kind: 'integer', min: 1, max: MAX_HISTORY_DAYS, default: 90 },
    windowDays: { kind: 'integer', min: 1, max: 90, default: 90 },
  }),
  optionChain: section({
    enabled: { kind: 'boolean', default: true },
    expiries: { kind: 'integer', min: 1, max: 20, default: 1 },
    everySeconds: { kind: 'integer', min: 0, max: 86_400, default: 0 },
    marketHoursOnly: { kind: 'boolean', default: true },
  }),
  expiredOptions: section({
    enabled: { kind: 'boolean', default: true },
    strikes: { kind: 'integer', min: 0, max: 10, default: 10 },
    sides: { kind: 'list', minLength: 1, values: ['CALL', 'PUT'], default: ['CALL', 'PUT'] },
    interval: { kind: 'enum', values: INTERVALS, default: 1 },
    days: { kind: 'integer', min: 1, max: MAX_HISTORY_DAYS, default: 90 },
    windowDays: { kind: 'integer', min: 1, max: 45, default: 45 },
    expiryFlag: { kind: 'enum', values: ['WEEK', 'MONTH'], default: 'WEEK' },
    expiryCode: { kind: 'enum', values: [1, 2, 3], default: 1 },
  }),
} as const satisfies OptionsSchema;

/** A date of the plan that is no day of the calendar (2026-02-30), by its name. */
function notADay(v: { until: string | undefined; daily: { from: string } }): string | undefined {
  if (v.until !== undefined && parseDate(v.until) === undefined) return 'plan.until';
  if (parseDate(v.daily.from) === undefined) return 'plan.daily.from';
  return undefined;
}

export function resolvePlan(plan: PlanOptions = {}): ResolvedPlan {
  const v = readOptions(PLAN_OPTIONS, plan, { where: 'plan', fail: configError });
  const wrong = notADay(v);
  if (wrong !== undefined) throw configError(`${wrong} must be a date YYYY-MM-DD`);
  const { everySeconds } = v.optionChain;
  if (everySeconds > 0 && everySeconds < 3) {
    // The service answers one identical option-chain request per 3 seconds.
    throw configError('plan.optionChain.everySeconds must be 0 or at least 3');
  }
  return {
    ...v,
    intraday: { ...v.intraday, intervals: [...new Set(v.intraday.intervals)] },
    expiredOptions: { ...v.expiredOptions, sides: [...new Set(v.expiredOptions.sides)] },
  };
}
