/**
 * The loader under a paused disk guard: no unit starts (no request is spent) and nothing is written
 * while it says paused; once it lets go, the run completes as usual.
 */

import { createStore, type Store } from '@feedpipe/store';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryLoader } from '../src/index.js';
import type { WriteGate } from '../src/loader.js';
import { TEST_UNIVERSE, testPlan } from './support/plan.js';
import { startTestSim, type TestSim } from './support/sim.js';

/** A gate the test opens; it counts who waited on it. */
class TestGate implements WriteGate {
  paused = true;
  waits = 0;
  readonly #waiters = new Set<() => void>();
  whenWritable(signal?: AbortSignal): Promise<void> {
    this.waits += 1;
    if (!this.paused || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiters.add(resolve);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  open(): void {
    this.paused = false;
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }
}

let sim: TestSim;
let store: Store;

beforeAll(async () => {
  sim = await startTestSim();
  store = createStore({ dataDir: tempDir('history-disk-guard') });
});

afterAll(async () => {
  await store?.close();
  await sim?.close();
});

describe('history loader and the disk guard', () => {
  it('starts no unit while paused, and completes the plan once the guard lets go', async () => {
    const gate = new TestGate();
    const loader = createHistoryLoader(
      {
        broker: sim.broker,
        universe: [...TEST_UNIVERSE],
        plan: testPlan(),
        retryBaseMs: 50,
        startupQuietMs: 0,
      },
      { clickhouse: store.internal, accessToken: sim.accessToken, diskGuard: gate },
    );
    const running = loader.run();
    await waitFor(
      () => loader.status().state === 'running' && gate.waits > 0,
      60_000,
      'a worker waiting on the guard',
    );
    expect(loader.status().requests).toBe(0);
    expect(loader.status().unitsFinished).toBe(0);
    gate.open();
    const result = await running;
    expect(result.state).toBe('done');
    expect(result.requests).toBeGreaterThan(0);
    expect(result.throttled).toBe(0);
  }, 120_000);
});
