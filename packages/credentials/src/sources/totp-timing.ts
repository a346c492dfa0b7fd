/**
 * When to compute a TOTP code (RFC 6238: 30-second steps). A code is valid for the step it was made
 * in (the service also accepts an adjacent one); a code made in the last moments of a step can reach
 * the service after the step ended, and a code already used should not be sent twice (RFC 6238 5.2
 * lets a verifier refuse a replay). So: never in the last MIN_LEFT_MS of a step, never a step already
 * used; wait for the next step instead (at most one step, 30 s).
 */
export const TOTP_STEP_MS = 30_000;
export const MIN_LEFT_MS = 3_000;

export interface CodeTime {
  /** How long to wait before computing the code. */
  waitMs: number;
  /** The step whose code to send. */
  step: number;
}

/** `nowMs` already includes any configured skew; `lastStep` is the last step used (or -1). */
export function codeTime(nowMs: number, lastStep: number): CodeTime {
  const step = Math.floor(nowMs / TOTP_STEP_MS);
  const left = (step + 1) * TOTP_STEP_MS - nowMs;
  if (step > lastStep && left >= MIN_LEFT_MS) return { waitMs: 0, step };
  const next = Math.max(step, lastStep) + 1;
  // A little past the boundary, so the code's step has begun on a clock slightly behind too.
  return { waitMs: next * TOTP_STEP_MS - nowMs + 250, step: next };
}
