/**
 * The connection pool against the simulator's faults, without Kafka: refused upgrades within the
 * shared attempt budget, and 805 evictions that do not come back in lockstep.
 */

import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptBudget } from '../src/feed/attempt-budget.js';
import { ConnectionPool, type FeedConnectionTuning } from '../src/feed/connection-pool.js';
import { inxIds, SIM_CLIENT } from './fixtures/feed-fixtures.js';

let server: FeedServer | undefined;
let pool: ConnectionPool | undefined;

afterEach(async () => {
  pool?.stop();
  await server?.close().catch(() => undefined);
  pool = undefined;
  server = undefined;
});

interface Watch {
  frames: number;
  /** Epoch ms of every connection attempt (each enters 'connecting'). */
  attempts: number[];
  retries: Array<{ connection: number; delayMs: number; cause: string }>;
}

function startPool(
  feed: FeedServer,
  ids: string[],
  budget: AttemptBudget,
  connection: FeedConnectionTuning = {},
): { pool: ConnectionPool; watch: Watch } {
  const watch: Watch = { frames: 0, attempts: [], retries: [] };
  const p = new ConnectionPool({
    url: feed.url,
    credentials: SIM_CLIENT,
    connections: 5,
    attemptBudget: budget,
    connection,
    events: {
      onFrame: () => {
        watch.frames += 1;
      },
      onState: (_index, state) => {
        if (state === 'connecting') watch.attempts.push(Date.now());
      },
      onRetry: (index, delayMs, cause) => watch.retries.push({ connection: index, delayMs, cause }),
    },
  });
  p.subscribe('trade', ids);
  p.start();
  return { pool: p, watch };
}

/** The most attempts that fall within any `windowMs` span. */
function busiestWindow(times: number[], windowMs: number): number {
  let most = 0;
  for (const start of times)
    most = Math.max(most, times.filter((t) => t >= start && t < start + windowMs).length);
  return most;
}

describe('feed connections under refused upgrades', () => {
  it('recovers from a passing 503 with the attempts of all five connections under the IP-block threshold', async () => {
    const model = new MarketModel({ seed: 31, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    server.faults.refuseUpgrades(1_500, 'http-503');
    // The production budget (8 per 60 s) with a faster first delay; the draws are fixed so the
    // third probe comes after the refusals end: the test never waits out a whole window.
    const budget = new AttemptBudget({ initialBackoffMs: 300, random: () => 0.9 });
    const started = startPool(server, inxIds(model, 50), budget);
    pool = started.pool;
    const feed = server;
    await waitFor(
      () => started.pool.snapshot().every((c) => c.state === 'open') && feed.listConnections().length === 5,
      60_000,
      'all five connections open after the refusals',
    );
    await waitFor(() => started.watch.frames > 0, 30_000, 'market data');
    const refused = server.stats().upgrades.refusedByFault;
    expect(refused).toBeGreaterThanOrEqual(5);
    // The spec: more than 10 invalid attempts may block the address. Five connections together
    // stayed within the budget of 8.
    expect(refused).toBeLessThanOrEqual(8);
    expect(pool.fatal).toBeUndefined();
  });

  it('waits out a spent budget instead of giving up, never exceeding it in any window', async () => {
    const model = new MarketModel({ seed: 32, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    const refusalMs = 4_000;
    const refusalEnds = Date.now() + refusalMs;
    // EOF: no HTTP answer at all, the other failed-upgrade shape of the spec.
    server.faults.refuseUpgrades(refusalMs, 'eof');
    const windowMs = 2_000;
    const budget = new AttemptBudget({ maxAttempts: 3, windowMs, initialBackoffMs: 100 });
    const started = startPool(server, inxIds(model, 50), budget);
    pool = started.pool;
    const feed = server;
    await waitFor(
      () => started.pool.snapshot().every((c) => c.state === 'open') && feed.listConnections().length === 5,
      60_000,
      'all five connections open after the refusals',
    );
    expect(pool.fatal).toBeUndefined();
    const refused = started.watch.attempts.filter((t) => t < refusalEnds);
    expect(refused.length).toBeGreaterThan(3);
    expect(busiestWindow(refused, windowMs)).toBeLessThanOrEqual(3);
    expect(server.stats().upgrades.refusedByFault).toBe(refused.length);
    expect(started.watch.retries.some((r) => r.cause === 'budget')).toBe(true);
  });
});

describe('feed connections evicted with 805', () => {
  it('come back after the configured delay plus a different random share each, not all at once', async () => {
    const model = new MarketModel({ seed: 33, instruments: 300 });
    server = await startFeedServer({ model, port: 0 });
    let draw = 0;
    // A deterministic sequence of distinct draws in [0, 1).
    const random = () => (draw++ * 0.381_966) % 1;
    const started = startPool(server, inxIds(model, 50), new AttemptBudget(), {
      evictionBackoffMs: 300,
      evictionJitterMs: 1_000,
      random,
    });
    pool = started.pool;
    const feed = server;
    await waitFor(() => feed.listConnections().length === 5, 30_000, 'five connections');
    for (const c of feed.listConnections()) feed.faults.sendErrorAndClose(c.id, 805);
    await waitFor(
      () => started.watch.retries.filter((r) => r.cause === 'evicted').length === 5,
      10_000,
      'five eviction retries',
    );
    const delays = started.watch.retries.filter((r) => r.cause === 'evicted').map((r) => r.delayMs);
    expect(new Set(delays).size).toBe(5);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(300);
      expect(d).toBeLessThanOrEqual(1_300);
    }
    await waitFor(
      () => started.pool.snapshot().every((c) => c.state === 'open') && feed.listConnections().length === 5,
      30_000,
      'all five back',
    );
    expect(pool.fatal).toBeUndefined();
  });
});
