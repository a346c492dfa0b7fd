import { describe, expect, it } from 'vitest';
import { type HeldToken, jwtExpiry, ManualClock, parseIstTimestamp, TokenHolder } from '../src/index.js';

const HOUR = 3_600_000;

function jwt(expSeconds: number): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'HS256' })}.${part({ exp: expSeconds, sub: '1000000001' })}.sig`;
}

describe('token expiry parsing', () => {
  it('reads expiryTime as IST without zone', () => {
    expect(parseIstTimestamp('2024-10-18T10:30:00')).toBe(Date.UTC(2024, 9, 18, 5, 0, 0));
    expect(parseIstTimestamp('2024-10-18 10:30:00.250')).toBe(Date.UTC(2024, 9, 18, 5, 0, 0, 250));
    expect(parseIstTimestamp('soon')).toBeUndefined();
  });

  it('reads the exp claim of a JWT', () => {
    expect(jwtExpiry(jwt(1_700_000_000))).toBe(1_700_000_000_000);
    expect(jwtExpiry('opaque-token')).toBeUndefined();
  });
});

describe('TokenHolder', () => {
  it('assumes 24 hours for a token without an expiry and fails once it is over', async () => {
    const clock = new ManualClock(1_000_000);
    const holder = new TokenHolder({ accessToken: 'opaque', clock });
    expect(holder.expiresAt).toBe(1_000_000 + 24 * HOUR);
    await clock.advance(24 * HOUR - 1);
    await expect(holder.getToken()).resolves.toBe('opaque');
    await clock.advance(1);
    await expect(holder.getToken()).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });

  it('renews a renewable token ahead of expiry, once for concurrent callers', async () => {
    const clock = new ManualClock(0);
    const renewed: string[] = [];
    const holder = new TokenHolder({
      accessToken: 'web-1',
      expiresAt: 24 * HOUR,
      renewable: true,
      refreshAheadMs: HOUR,
      clock,
      renew: async (old): Promise<HeldToken> => {
        renewed.push(old);
        return { accessToken: 'web-2', expiresAt: clock.now() + 24 * HOUR };
      },
    });
    await clock.advance(23 * HOUR - 1);
    await expect(holder.getToken()).resolves.toBe('web-1');
    expect(renewed).toEqual([]);
    await clock.advance(1);
    const tokens = await Promise.all([holder.getToken(), holder.getToken(), holder.getToken()]);
    expect(tokens).toEqual(['web-2', 'web-2', 'web-2']);
    expect(renewed).toEqual(['web-1']);
    expect(holder.expiresAt).toBe(47 * HOUR);
  });

  it('keeps a still-valid token when renewal fails and tries again after a pause', async () => {
    const clock = new ManualClock(0);
    let attempts = 0;
    const holder = new TokenHolder({
      accessToken: 'web-1',
      expiresAt: 24 * HOUR,
      renewable: true,
      refreshAheadMs: HOUR,
      retryAfterFailureMs: 60_000,
      clock,
      renew: async () => {
        attempts++;
        throw new Error('service down');
      },
    });
    await clock.advance(23.5 * HOUR);
    await expect(holder.getToken()).resolves.toBe('web-1');
    await expect(holder.getToken()).resolves.toBe('web-1');
    expect(attempts).toBe(1);
    await clock.advance(60_000);
    await holder.getToken();
    expect(attempts).toBe(2);
  });

  it('does not renew a non-renewable token but regenerates it when told how', async () => {
    const clock = new ManualClock(0);
    const plain = new TokenHolder({ accessToken: jwt(24 * 3600), clock, refreshAheadMs: HOUR });
    expect(plain.expiresAt).toBe(24 * HOUR);
    await clock.advance(23.5 * HOUR);
    await expect(plain.getToken()).resolves.toBe(jwt(24 * 3600));

    let generated = 0;
    const totpBacked = new TokenHolder({
      accessToken: 'totp-1',
      expiresAt: 24 * HOUR,
      clock,
      refreshAheadMs: HOUR,
      regenerate: async () => {
        generated++;
        return { accessToken: `totp-${generated + 1}`, expiresAt: clock.now() + 24 * HOUR };
      },
    });
    await expect(totpBacked.getToken()).resolves.toBe('totp-2');
    expect(generated).toBe(1);
  });

  it('validates its options', () => {
    expect(() => new TokenHolder({ accessToken: '' })).toThrow(/accessToken/);
    expect(() => new TokenHolder({ accessToken: 't', renewable: true })).toThrow(/renew/);
    expect(() => new TokenHolder({ accessToken: 't', ttl: 5 } as never)).toThrow(
      'TokenHolder options: unknown option "ttl" (allowed: accessToken, expiresAt, renewable, renew, regenerate, clock, refreshAheadMs, retryAfterFailureMs)',
    );
  });
});

describe('TokenHolder.tokenRejected', () => {
  it('replaces a refused token once however many callers, and hands a newer token to late callers', async () => {
    let generated = 0;
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holder = new TokenHolder({
      accessToken: 'first',
      expiresAt: Date.now() + 3_600_000,
      regenerate: async () => {
        generated++;
        await gate;
        return { accessToken: `gen-${generated}`, expiresAt: Date.now() + 3_600_000 };
      },
    });
    const waiting = Array.from({ length: 5 }, () => holder.tokenRejected('first'));
    release?.();
    expect(await Promise.all(waiting)).toEqual(Array(5).fill('gen-1'));
    expect(generated).toBe(1);
    // A caller that still held 'first' gets the current token, no new renewal.
    expect(await holder.tokenRejected('first')).toBe('gen-1');
    expect(generated).toBe(1);
  });

  it('rejects with TOKEN_EXPIRED when there is no way to replace the token', async () => {
    const holder = new TokenHolder({ accessToken: 'only', expiresAt: Date.now() + 60_000 });
    await expect(holder.tokenRejected('only')).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });
});
