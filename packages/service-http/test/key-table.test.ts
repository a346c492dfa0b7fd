/**
 * The key table held in memory (auth/key-table.ts): a key created here works at once even when a
 * read of the table that started before it lands after it, and a table larger than its cap is
 * refused rather than cut. The store is the counting fake of fake-lane.ts.
 */
import type { StoreLane } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../src/index.js';
import { countingLane } from './fake-lane.js';

const TABLE = 'market.api_keys';

describe('the key table in memory', () => {
  it('keeps a key created while a read of the table was in flight', async () => {
    const store = countingLane();
    // Reads of the whole table wait until released, so one can start before a create and end after it.
    let release: (() => void) | undefined;
    const lane = new Proxy(store.lane, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as (...args: unknown[]) => Promise<unknown>;
        if (property !== 'rows') return value;
        return async (sql: string, ...rest: unknown[]) => {
          const rows = await value.call(target, sql, ...rest);
          if (sql.includes('LIMIT')) await new Promise<void>((resolve) => (release = resolve));
          return rows;
        };
      },
    }) as StoreLane;
    const clock = { now: 1_000_000 };
    const keys = new ApiKeyStore<'read'>(lane, {
      table: TABLE,
      scopes: ['read'],
      cacheMs: 5_000,
      now: () => clock.now,
    });
    try {
      const first = keys.verify('fpk_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      // The read has its rows (no key yet) and waits; a key is created meanwhile.
      while (release === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      clock.now += 1;
      const created = await keys.create('late', ['read']);
      release();
      expect(await first).toBeUndefined();
      expect(await keys.verify(created.key)).toMatchObject({ name: 'late' });
    } finally {
      keys.close();
    }
  });

  it('refuses a table above its cap (503), never a cut one', async () => {
    const store = countingLane();
    const writer = new ApiKeyStore<'read'>(store.lane, { table: TABLE, scopes: ['read'], cacheMs: 0 });
    const made = [];
    for (let i = 0; i < 3; i += 1) made.push(await writer.create(`k${i}`, ['read']));
    const keys = new ApiKeyStore<'read'>(store.lane, {
      table: TABLE,
      scopes: ['read'],
      cacheMs: 5_000,
      maxKeys: 2,
    });
    try {
      await expect(keys.verify(made[0]?.key ?? '')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    } finally {
      keys.close();
    }
  });
});
