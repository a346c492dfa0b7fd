/**
 * Market sessions. The default is always OPEN, because the simulator is the upstream of `npm start`
 * and of benchmarks at any wall-clock hour. A cycle schedule (pre-open, open, closed, repeating)
 * exercises session changes; it is anchored at the Unix epoch so the session is a pure function of the
 * model clock and two runs with the same clock agree.
 */
import type { MarketSession } from './types.js';

export interface SessionCycle {
  preOpenMs: number;
  openMs: number;
  closedMs: number;
}

/** Market Status packet values the simulator uses (the spec does not show their meaning). */
export const MARKET_STATUS_CODE: Readonly<Record<MarketSession, number>> = {
  CLOSED: 0,
  PRE_OPEN: 1,
  OPEN: 2,
};
/** MarketType bytes of every Market Status packet: [1, 0, 0] = the regular market. */
export const MARKET_TYPE_REGULAR: readonly [number, number, number] = [1, 0, 0];

export function sessionAt(cycle: SessionCycle | undefined, nowMs: number): MarketSession {
  if (cycle === undefined) return 'OPEN';
  const period = cycle.preOpenMs + cycle.openMs + cycle.closedMs;
  const phase = ((nowMs % period) + period) % period;
  if (phase < cycle.preOpenMs) return 'PRE_OPEN';
  if (phase < cycle.preOpenMs + cycle.openMs) return 'OPEN';
  return 'CLOSED';
}
