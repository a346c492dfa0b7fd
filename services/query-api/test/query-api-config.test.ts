/** createQueryApi(config, deps), read once by the declarative reader before anything starts. */
import type { Store } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';
import { createQueryApi, resolveConfig } from '../src/index.js';

// Refused before the store is touched: only its presence is checked.
const store = {} as Store;

async function refusal(config: object, deps: object = { store }): Promise<string> {
  const error = await createQueryApi(config, deps as never).then(
    () => new Error('accepted'),
    (e: unknown) => e as Error & { code?: string },
  );
  expect((error as { code?: string }).code).toBe('CONFIG_INVALID');
  return error.message;
}

describe('createQueryApi(config, deps)', () => {
  it('refuses an unknown key of the config, in a section too, with the allowed ones', async () => {
    expect(await refusal({ prot: 8080 })).toMatch(
      /^query-api config: unknown option "prot" \(allowed: host, port, .*clickhousePort, reusePort, query, sql, cache, topics, stream, hotTier\)/,
    );
    expect(await refusal({ stream: { maxClient: 3 } })).toBe(
      'query-api config: unknown option "stream.maxClient" (allowed: maxClients, maxClientsPerKey, maxInstruments, maxQueuedEvents, heartbeatMs)',
    );
    expect(await refusal({ hotTier: { windowHours: -1 } })).toContain(
      '"hotTier.windowHours" must be an integer from 0 to 744',
    );
  });

  it('refuses an unknown dep with the allowed ones, and no store', async () => {
    expect(await refusal({}, { store, clock: Date.now })).toMatch(
      /^query-api deps: unknown option "clock" \(allowed: store, kafkaBrokers, instruments, now,/,
    );
    expect(await refusal({}, {})).toContain('"store" is required');
  });

  it('fills in the defaults and keeps the cross-key bounds', () => {
    const resolved = resolveConfig({ query: { maxTickPage: 500, resultMemoryBytes: 2_000_000 } });
    expect(resolved.port).toBe(8080);
    expect(resolved.clickhousePort).toBeUndefined();
    expect(resolved.query).toMatchObject({
      defaultTickPage: 500,
      maxTickPage: 500,
      resultReserveBytes: 2_000_000,
    });
    expect(resolved.topics).toEqual({
      trades: 'feed.trades',
      ohlc: 'feed.ohlc',
      reference: 'feed.reference',
      status: 'feed.status',
    });
    expect(resolved.hotTier.windowHours).toBe(24);
  });
});
