/** createHistoryLoader(options, deps), read once by the declarative reader: unknown keys refused with the allowed ones. */
import type { StoreLane } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';
import { createHistoryLoader, LoaderError } from '../src/index.js';

const broker = { baseUrl: 'http://127.0.0.1:1/', clientId: '1000000001' };
const universe = [{ securityId: 13, segment: 'IDX_I', instrument: 'INDEX' }];
// Checking reads no part of the lane; only its presence is checked.
const clickhouse = {} as StoreLane;

function refusal(options: object, deps: object = { clickhouse, accessToken: 't' }): string {
  try {
    createHistoryLoader(options as never, deps as never);
  } catch (error) {
    expect(error).toBeInstanceOf(LoaderError);
    expect((error as LoaderError).code).toBe('CONFIG_INVALID');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('createHistoryLoader(options, deps)', () => {
  it('refuses an unknown option, in the broker section too, with the allowed ones', () => {
    expect(refusal({ broker, universe, concurency: 4 })).toMatch(
      /^history loader options: unknown option "concurency" \(allowed: broker, universe, plan, concurrency,/,
    );
    expect(refusal({ broker: { ...broker, timeout: 5 }, universe })).toBe(
      'history loader options: unknown option "broker.timeout" (allowed: baseUrl, clientId, timeoutMs)',
    );
  });

  it('refuses an unknown dep with the allowed ones, and no store lane', () => {
    expect(refusal({ broker, universe }, { clickhouse, accessToken: 't', clock: Date.now })).toBe(
      'history loader deps: unknown option "clock" (allowed: clickhouse, accessToken, registry, rateLimiter, fetch, log, metrics, now, calendar, diskGuard)',
    );
    expect(refusal({ broker, universe }, {})).toContain('"clickhouse" is required');
    expect(refusal({ broker, universe }, { clickhouse })).toContain('"accessToken" is required');
  });

  it('names every bad value at once and fills in the defaults', () => {
    const message = refusal({ broker: { ...broker, baseUrl: 'ftp://x' }, universe, concurrency: 0 });
    expect(message).toContain('"broker.baseUrl" must be a http:// or https:// URL');
    expect(message).toContain('"concurrency" must be a number from 1 to 64');
    // The token is a dep now (a source the loader asks at each request), no longer in broker.
    expect(refusal({ broker: { ...broker, accessToken: 't' }, universe })).toContain(
      'unknown option "broker.accessToken"',
    );
    expect(refusal({ broker, universe }, { clickhouse, accessToken: '' })).toBe(
      'accessToken must be a token or a TokenSource',
    );
    const loader = createHistoryLoader({ broker, universe }, { clickhouse, accessToken: 't' });
    expect(loader.status().state).toBe('idle');
  });
});
