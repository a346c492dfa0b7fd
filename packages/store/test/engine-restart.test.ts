/**
 * The embedded engine's process killed for real (SIGKILL, as the kernel's OOM killer would): the
 * store's requests in flight fail with STORE_ENGINE_LOST (retryable), the store starts the engine
 * again by itself, and what was stored before the kill is all there after it. The pipeline's process
 * itself lives on, which it could not when the engine ran inside it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type Store, StoreError } from '../src/index.js';

/** Pids of the engine processes (Node running engine-host.ts, not the unshare around it) on `dataDir`. */
function enginePids(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return (
          args[0] === process.execPath &&
          args.some((a) => a.endsWith('engine-host.ts')) &&
          args.includes(dataDir)
        );
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

describe('the embedded engine’s process killed', () => {
  const dataDir = tempDir('engine-restart');
  let store: Store;

  beforeAll(async () => {
    store = createStore({ dataDir });
    await store.internal.command('CREATE TABLE default.kept (n UInt32) ENGINE = MergeTree ORDER BY n');
    await store.internal.insertCsv('default.kept', ['n'], Buffer.from('1\n2\n3\n'));
  });
  afterAll(async () => {
    await store.close();
  });

  it('fails what was in flight as retryable, starts again by itself, and keeps what was stored', async () => {
    const [pid] = enginePids(dataDir);
    expect(pid).toBeDefined();
    // A statement in flight when the process dies.
    const inFlight = store.internal.rows('SELECT sleepEachRow(0.5), number FROM numbers(6)');
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(pid as number, 'SIGKILL');
    const failure = await inFlight.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).code).toBe('STORE_ENGINE_LOST');
    expect((failure as StoreError).retryable).toBe(true);
    // Retried as a caller would: answered once the store has started the engine again.
    let total: unknown;
    await waitFor(
      async () => {
        try {
          total = (
            await store.internal.rows<{ total: number }>('SELECT sum(n) AS total FROM default.kept')
          )[0]?.total;
          return true;
        } catch {
          return false;
        }
      },
      30_000,
      'an answer after the engine was started again',
    );
    expect(total).toBe(6);
    const restarted = enginePids(dataDir);
    expect(restarted).toHaveLength(1);
    expect(restarted[0]).not.toBe(pid);
  });
});
