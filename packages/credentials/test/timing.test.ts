/** When codes are made and tokens renewed: pure functions, checked at their boundaries. */
import { describe, expect, it } from 'vitest';
import { codeTime, MIN_LEFT_MS, nextWarningAt, renewAt, retryDelay, TOTP_STEP_MS } from '../src/index.js';

describe('codeTime (RFC 6238 steps)', () => {
  const stepStart = 1_700_000_010_000 - (1_700_000_010_000 % TOTP_STEP_MS);

  it('uses the current step when enough of it is left and it was not used', () => {
    expect(codeTime(stepStart + 1_000, -1)).toEqual({ waitMs: 0, step: stepStart / TOTP_STEP_MS });
  });

  it('waits for the next step near the end of one, so the code does not expire in flight', () => {
    const now = stepStart + TOTP_STEP_MS - MIN_LEFT_MS + 1;
    const t = codeTime(now, -1);
    expect(t.step).toBe(stepStart / TOTP_STEP_MS + 1);
    expect(now + t.waitMs).toBeGreaterThanOrEqual(stepStart + TOTP_STEP_MS);
    expect(t.waitMs).toBeLessThan(MIN_LEFT_MS + 1_000);
  });

  it('never sends the code of a step already used', () => {
    const step = stepStart / TOTP_STEP_MS;
    const t = codeTime(stepStart + 1_000, step);
    expect(t.step).toBe(step + 1);
    expect(stepStart + 1_000 + t.waitMs).toBeGreaterThanOrEqual((step + 1) * TOTP_STEP_MS);
  });
});

describe('renewal plan', () => {
  it('renews 30 minutes ahead of a 24 h token, and a quarter ahead of a short one', () => {
    const day = { obtainedAt: 0, expiresAt: 86_400_000 };
    expect(renewAt(day, 1_800_000)).toBe(86_400_000 - 1_800_000);
    const short = { obtainedAt: 0, expiresAt: 120_000 };
    expect(renewAt(short, 1_800_000)).toBe(90_000);
  });

  it('retries a failed renewal within 1..60 s', () => {
    expect(retryDelay(10_000_000, 0)).toBe(60_000);
    expect(retryDelay(2_000, 0)).toBe(1_000);
    expect(retryDelay(20_000, 0)).toBe(5_000);
  });

  it('warns at the warning horizon (at once if past it), then hourly, then at expiry, then no more', () => {
    const exp = 10 * 3_600_000;
    const ahead = 6 * 3_600_000;
    expect(nextWarningAt(exp, ahead, 0, undefined)).toBe(exp - ahead);
    expect(nextWarningAt(exp, ahead, exp - 60_000, undefined)).toBe(exp - 60_000);
    expect(nextWarningAt(exp, ahead, exp - ahead, exp - ahead)).toBe(exp - ahead + 3_600_000);
    expect(nextWarningAt(exp, ahead, exp - 60_000, exp - 120_000)).toBe(exp);
    expect(nextWarningAt(exp, ahead, exp, exp - 1)).toBeUndefined();
  });
});
