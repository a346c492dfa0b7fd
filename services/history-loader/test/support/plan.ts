/** A small universe and plan with every kind of unit, over finished days only (deterministic). */

import { formatDate, istDayOf } from '../../src/calendar.js';
import type { PlanOptions } from '../../src/plan-options.js';

export const TEST_UNIVERSE = [
  { securityId: 2885, segment: 'NSE_EQ', instrument: 'EQUITY' },
  { securityId: 11536, segment: 'NSE_EQ', instrument: 'EQUITY' },
  { securityId: 13, segment: 'IDX_I', instrument: 'INDEX', optionChain: true, expiredOptions: true },
  // Not in the simulator's universe: answered 813, recorded as failed and skipped later.
  { securityId: 99_999, segment: 'NSE_EQ', instrument: 'EQUITY' },
] as const;

export function testPlan(nowMs = Date.now()): PlanOptions {
  const today = istDayOf(nowMs);
  return {
    until: formatDate(today - 3),
    daily: { from: formatDate(today - 3 - 400), windowDays: 365 },
    intraday: { intervals: [15], days: 100, windowDays: 90 },
    optionChain: { expiries: 1 },
    expiredOptions: { strikes: 1, interval: 15, days: 50, windowDays: 45 },
  };
}
