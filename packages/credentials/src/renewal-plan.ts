/**
 * When to renew and when to warn. A renewal starts `renewAheadMs` before expiry, but never earlier
 * than three quarters into the token's life, so a short-lived token (the simulator's 120 s) is
 * still used for most of its life and a 24-hour one is renewed 30 minutes ahead by default.
 */
export interface TokenTimes {
  obtainedAt: number;
  expiresAt: number;
}

/** Node timers hold at most 2^31-1 ms (24.8 days); a later time is re-armed when reached. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function renewAt(t: TokenTimes, renewAheadMs: number): number {
  const life = Math.max(0, t.expiresAt - t.obtainedAt);
  return t.expiresAt - Math.min(renewAheadMs, life / 4);
}

/** After a failed renewal: again soon, but no faster than once a second nor slower than a minute. */
export function retryDelay(expiresAt: number, now: number): number {
  return Math.min(60_000, Math.max(1_000, (expiresAt - now) / 4));
}

/**
 * When the next warning about a token nothing renews is due: at `warnAheadMs` before expiry (at once
 * when that time has passed and none was given yet), then hourly, then at expiry; undefined once
 * expired. `lastWarnedAt` is undefined before the first warning.
 */
export function nextWarningAt(
  expiresAt: number,
  warnAheadMs: number,
  now: number,
  lastWarnedAt: number | undefined,
): number | undefined {
  if (now >= expiresAt) return undefined;
  const first = expiresAt - warnAheadMs;
  if (lastWarnedAt === undefined) return Math.max(first, now);
  return Math.min(Math.max(first, lastWarnedAt + 3_600_000), expiresAt);
}
