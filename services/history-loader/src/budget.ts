/**
 * The day's Data API budget survives restarts: the writer records requests per flush in
 * market.loader_requests, and a new run starts its limiter's day window with what is left. The
 * spent count is an upper bound of what the service counted in the last 24 h (requests of a flush
 * that never landed are lost, so a crash can undercount by at most one flush interval).
 */
import { DEFAULT_LIMITS, RateLimiter } from '@feedpipe/broker-api';
import { HISTORY_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';

const DAY_MS = 86_400_000;

export interface SpentBudget {
  spent: number;
  /** Epoch ms of the oldest request counted, when any. */
  oldestAt: number | undefined;
}

export async function readSpentBudget(
  store: StoreLane,
  clientId: string,
  nowMs: number,
): Promise<SpentBudget> {
  const [row] = await store.rows<{ spent: number | string; oldest: number | string }>(
    `SELECT sum(requests) AS spent, toUInt32(min(at)) AS oldest FROM ${HISTORY_TABLES.loaderRequests.name}
     WHERE client_id = {clientId:String} AND at > toDateTime({since:UInt32})`,
    { clientId, since: Math.floor((nowMs - DAY_MS) / 1000) },
  );
  const spent = Number(row?.spent ?? 0);
  return { spent, oldestAt: spent > 0 ? Number(row?.oldest ?? 0) * 1000 : undefined };
}

/**
 * A limiter with the spec's data windows, the day window shrunk to what is left. Conservative: the
 * earlier requests are treated as if they all left the window at the same time, a day from now.
 */
export function limiterForBudget(left: number): RateLimiter {
  const data = DEFAULT_LIMITS.data.map((w) =>
    w.windowMs >= DAY_MS ? { windowMs: w.windowMs, max: Math.max(1, left) } : w,
  );
  return new RateLimiter({ limits: { data } });
}

export { DAY_MS };
