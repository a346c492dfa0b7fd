/**
 * Units of work: one unit is one request to the service and one checkpoint row. The static part
 * of a plan (candles, expired options, expiry lists) is known up front; option-chain units follow
 * from the expiry lists (see chainUnits).
 */
import { DAY_S, formatDate, gridWindows, istDayOf, istMidnight, parseDate } from './calendar.js';
import { MAX_HISTORY_DAYS, type OptionSide, type ResolvedPlan } from './plan-options.js';
import type { UniverseInstrument } from './universe.js';

export type UnitKind = 'daily' | 'intraday' | 'expiry_list' | 'option_chain' | 'expired_options';
export const UNIT_KINDS: readonly UnitKind[] = [
  'expiry_list',
  'option_chain',
  'daily',
  'intraday',
  'expired_options',
];

export interface ExpiredOptionsSpec {
  instrument: 'OPTIDX' | 'OPTSTK';
  expiryFlag: 'WEEK' | 'MONTH';
  expiryCode: 1 | 2 | 3;
  strike: string;
  offset: number;
  side: OptionSide;
}

export interface WorkUnit {
  kind: UnitKind;
  securityId: number;
  /** The checkpoint's segment: the instrument's, or the F&O segment for expired options. */
  segment: string;
  /** Minutes for intraday and expired options, else 0. */
  interval: number;
  /** '' for candles and expiry lists; the expiry for chains; the option series for expired options. */
  variant: string;
  /** Window [fromS, toS) in epoch seconds (IST midnights), or the snapshot slot. */
  fromS: number;
  toS: number;
  /** The window reaches into today: loaded as 'partial' and planned again by later runs. */
  partial: boolean;
  /** Attempts recorded by earlier runs (checkpoint 'retry' rows). */
  priorAttempts: number;
  instrument: UniverseInstrument;
  expired?: ExpiredOptionsSpec;
}

export interface SeriesIdentity {
  kind: string;
  securityId: number;
  segment: string;
  interval: number;
  variant: string;
}

export function seriesKey(u: SeriesIdentity): string {
  return `${u.kind}|${u.securityId}|${u.segment}|${u.interval}|${u.variant}`;
}

export function unitKey(u: SeriesIdentity & { fromS: number; toS: number }): string {
  return `${seriesKey(u)}|${u.fromS}|${u.toS}`;
}

export function fromDate(u: WorkUnit): string {
  return formatDate(Math.round((u.fromS + 19_800) / DAY_S));
}

export function toDate(u: WorkUnit): string {
  return formatDate(Math.round((u.toS + 19_800) / DAY_S));
}

/** The days a plan covers, as IST day numbers. */
export interface PlanClock {
  today: number;
  /** Exclusive end of every window. */
  until: number;
  /**
   * The last day of a segment whose data is final (a trading calendar's settled day): windows
   * reaching past it are loaded as `partial`. Unset: yesterday, for every segment (without a
   * calendar, today is never known to be over).
   */
  settled?: (segment: string) => number;
}

export function planClock(
  plan: ResolvedPlan,
  nowMs: number,
  settled?: (segment: string, nowMs: number) => number,
): PlanClock {
  const today = istDayOf(nowMs);
  const until = plan.until === undefined ? today + 1 : (parseDate(plan.until) as number);
  return settled === undefined ? { today, until } : { today, until, settled: (s) => settled(s, nowMs) };
}

/** Whether a window ending (exclusive) at day `to` reaches past what is final for `segment`. */
function isPartial(clock: PlanClock, segment: string, to: number): boolean {
  const settled = clock.settled?.(segment) ?? clock.today - 1;
  return to > settled + 1;
}

function unit(
  inst: UniverseInstrument,
  kind: UnitKind,
  from: number,
  to: number,
  clock: PlanClock,
  extra: Partial<WorkUnit> = {},
): WorkUnit {
  return {
    kind,
    securityId: inst.securityId,
    segment: inst.segment,
    interval: 0,
    variant: '',
    fromS: istMidnight(from),
    toS: istMidnight(to),
    partial: isPartial(clock, inst.segment, to),
    priorAttempts: 0,
    instrument: inst,
    ...extra,
  };
}

function strikeText(offset: number): string {
  return offset === 0 ? 'ATM' : offset > 0 ? `ATM+${offset}` : `ATM${offset}`;
}

/** Candles, expired options and expiry lists of the plan, in the order they are worth loading. */
export function staticUnits(
  universe: readonly UniverseInstrument[],
  plan: ResolvedPlan,
  clock: PlanClock,
): WorkUnit[] {
  const { today } = clock;
  const end = Math.min(clock.until, today + 1);
  // Intraday and expired-options history reach back 5 years; one day of slack for the service's
  // own rounding of "5 years".
  const oldest = today - MAX_HISTORY_DAYS;
  const out: WorkUnit[] = [];
  if (plan.optionChain.enabled) {
    for (const inst of universe) {
      if (inst.optionChain) out.push(unit(inst, 'expiry_list', today, today + 1, clock, { partial: false }));
    }
  }
  if (plan.daily.enabled) {
    for (const inst of universe) {
      const from = parseDate(inst.inceptionDate ?? plan.daily.from) as number;
      for (const [a, b] of gridWindows(from, end, plan.daily.windowDays))
        out.push(unit(inst, 'daily', a, b, clock));
    }
  }
  for (const interval of plan.intraday.intervals) {
    const from = Math.max(end - plan.intraday.days, oldest);
    for (const inst of universe) {
      for (const [a, b] of gridWindows(from, end, plan.intraday.windowDays)) {
        out.push(unit(inst, 'intraday', a, b, clock, { interval }));
      }
    }
  }
  if (plan.expiredOptions.enabled) {
    const e = plan.expiredOptions;
    // Expired-options data covers finished days only.
    const eEnd = Math.min(clock.until, today);
    const from = Math.max(eEnd - e.days, oldest);
    for (const inst of universe) {
      if (!inst.expiredOptions) continue;
      const instrument = inst.segment === 'IDX_I' ? 'OPTIDX' : 'OPTSTK';
      // The service lists stock options with monthly expiries only.
      const expiryFlag = instrument === 'OPTSTK' ? 'MONTH' : e.expiryFlag;
      for (const side of e.sides) {
        for (let offset = -e.strikes; offset <= e.strikes; offset++) {
          const strike = strikeText(offset);
          const spec: ExpiredOptionsSpec = {
            instrument,
            expiryFlag,
            expiryCode: e.expiryCode,
            strike,
            offset,
            side,
          };
          const variant = `${instrument}|${expiryFlag}|${e.expiryCode}|${strike}|${side}`;
          for (const [a, b] of gridWindows(from, eEnd, e.windowDays)) {
            out.push(
              unit(inst, 'expired_options', a, b, clock, {
                segment: inst.fnoSegment,
                interval: e.interval,
                variant,
                expired: spec,
                partial: false,
              }),
            );
          }
        }
      }
    }
  }
  return out;
}

/**
 * The slot a snapshot belongs to: the IST day for once-a-day snapshots, else the K-second slot.
 * Slots make a snapshot unit's key stable, so a resumed run does not take the same one twice.
 */
export function snapshotSlot(plan: ResolvedPlan, nowMs: number): { fromS: number; toS: number } {
  const k = plan.optionChain.everySeconds;
  if (k === 0) {
    const day = istDayOf(nowMs);
    return { fromS: istMidnight(day), toS: istMidnight(day + 1) };
  }
  const fromS = Math.floor(nowMs / 1000 / k) * k;
  return { fromS, toS: fromS + k };
}

/** Option-chain units for the nearest expiries of one underlying in one slot. */
export function chainUnits(
  inst: UniverseInstrument,
  expiries: readonly string[],
  plan: ResolvedPlan,
  slot: { fromS: number; toS: number },
): WorkUnit[] {
  return [...expiries]
    .sort()
    .slice(0, plan.optionChain.expiries)
    .map((expiry) => ({
      kind: 'option_chain' as const,
      securityId: inst.securityId,
      segment: inst.segment,
      interval: 0,
      variant: expiry,
      fromS: slot.fromS,
      toS: slot.toS,
      partial: false,
      priorAttempts: 0,
      instrument: inst,
    }));
}
