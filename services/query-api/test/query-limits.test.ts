/**
 * Item 4 of issue 20 on the API side: health checks never wait on the store, a key's queries in
 * flight are capped, and results in flight stay within a memory budget. A "slow user query" here
 * is one that sleeps row by row for far longer than any test, marked with a token of its own: the
 * test sees it running in system.processes and ends it with KILL QUERY, so the query is provably
 * running for as long as a check needs, on any machine. (It once read url() from a loopback server
 * of the test; the engine's sandbox now refuses every URL.)
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ExclusiveLane } from '@feedpipe/store';
import { openRawConnection } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryRunner } from '../src/query/query-runner.js';
import { ResultBudget } from '../src/query/result-budget.js';
import { type Harness, startHarness } from './helpers.js';

interface Hold {
  /** The statement that runs until `release()`. */
  sql: string;
  /** Resolves when the statement is running in the engine. */
  arrived: Promise<void>;
  /** Ends the statement (it fails as cancelled). */
  release(): Promise<void>;
}

/** Ten thousand seconds of sleep unless killed; the lanes' own time limits bound it anyway. */
function engineHold(h: Harness): Hold {
  const marker = `hold-${randomUUID()}`;
  const mine = `position(query, '${marker}') > 0 AND query NOT LIKE '%system.processes%'`;
  let released = false;
  return {
    sql: `SELECT '${marker}' AS x, sleepEachRow(0.01) AS s FROM numbers(1000000) SETTINGS max_block_size = 1, function_sleep_max_microseconds_per_block = 0`,
    arrived: (async () => {
      for (let i = 0; i < 3_000 && !released; i++) {
        const [row] = await h.store.internal.rows<{ n: number }>(
          `SELECT count() AS n FROM system.processes WHERE ${mine}`,
        );
        if ((row?.n ?? 0) > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('the held statement never showed up in system.processes');
    })(),
    async release() {
      if (released) return;
      released = true;
      await h.store.internal.rows(`KILL QUERY WHERE ${mine} ASYNC`);
    },
  };
}

/** A user query that runs until `hold.release()`, then fails as cancelled. */
async function slowUserQuery(h: Harness, hold: Hold): Promise<string> {
  const stream = await h.store.user.stream(hold.sql, {}, 'TabSeparatedRaw');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

/** Bounded wait for a condition the test caused (no timing assumption: 30 s is a deadline only). */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('health checks and per-key limits with a slow query running', () => {
  let h: Harness;
  beforeAll(async () => {
    // A callers' lane of one session: one slow query holds it, so the next ones provably queue.
    h = await startHarness({ query: { maxConcurrentPerKey: 1 } }, {}, true, { userLane: { sessions: 1 } });
    await h.api.app.ready();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers /healthz and /readyz while a user query holds the store', async () => {
    const hold = engineHold(h);
    let slowDone = false;
    const slow = slowUserQuery(h, hold)
      .catch((error: unknown) => error)
      .finally(() => {
        slowDone = true;
      });
    try {
      await hold.arrived;
      const health = await h.api.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({ status: 'ok' });
      // Readiness comes from the background probe, which runs on the pipeline's lane.
      let ready = await h.api.app.inject({ method: 'GET', url: '/readyz' });
      for (let i = 0; i < 300 && ready.statusCode !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        ready = await h.api.app.inject({ method: 'GET', url: '/readyz' });
      }
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ready', store: { ok: true } });
      // The pipeline's own work is not held either: an insert and a read on its lane.
      await h.store.internal.command(
        'CREATE TABLE IF NOT EXISTS default.limits_probe (x UInt8) ENGINE = Memory',
      );
      await h.store.internal.insertRows('default.limits_probe', ['x'], [[1]]);
      // All of the above finished while the slow query was still running.
      expect(slowDone).toBe(false);
      expect(h.store.load().user.running).toBe(1);
    } finally {
      await hold.release();
      expect(String(await slow)).toMatch(/cancelled/i);
    }
  });

  it('refuses a key’s query beyond its limit in flight with 429 and Retry-After, not other keys', async () => {
    const hold = engineHold(h);
    // Settled at once: the release below fails it as cancelled while the test still runs.
    const slow = slowUserQuery(h, hold).catch((error: unknown) => error);
    try {
      await hold.arrived;
      // The key's first request waits for the store (the slow query holds the user lane).
      const first = h.api.app.inject({ method: 'GET', url: '/v1/status', headers: h.read });
      await until('the first request to queue for the store', () => h.store.load().user.queued >= 1);
      const second = await h.api.app.inject({ method: 'GET', url: '/v1/status', headers: h.read });
      expect(second.statusCode).toBe(429);
      expect(second.headers['retry-after']).toBe('1');
      expect(second.json().error).toMatchObject({ code: 'RATE_LIMITED' });
      expect(second.json().error.message).toMatch(/already has 1 queries in flight/);
      // Another key is not affected by this key's limit (it queues for the store like any query).
      const other = h.api.app.inject({ method: 'GET', url: '/v1/status', headers: h.both });
      void hold.release();
      expect((await first).statusCode).toBe(200);
      expect((await other).statusCode).toBe(200);
      // The slot came back with the response.
      expect((await h.api.app.inject({ method: 'GET', url: '/v1/status', headers: h.read })).statusCode).toBe(
        200,
      );
    } finally {
      await hold.release();
      await slow;
    }
  });
});

describe('per-key limits and bodies still arriving', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ query: { maxConcurrentPerKey: 1 } }, {}, false);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a request whose body is still arriving does not hold one of its key’s queries in flight', async () => {
    const port = Number(new URL(await h.api.start()).port);
    const headSeen = new Promise((resolve) => h.api.app.server.once('request', resolve));
    const slow = await openRawConnection(port);
    try {
      slow.socket.write(
        `POST /v1/sql HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${h.read['x-api-key']}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"sql":',
      );
      await headSeen;
      // The head went through the auth hook: past this point a slot taken at the head would be held.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const status = await h.api.app.inject({ method: 'GET', url: '/v1/status', headers: h.read });
      expect(status.statusCode).toBe(200);
    } finally {
      slow.socket.destroy();
    }
  });
});

describe('turns on the engine before result reservations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, {}, false, { userLane: { sessions: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reserves for a query only once it has its turn, so a waiting query holds no budget', async () => {
    const limits = h.store.user.turns;
    expect(limits?.sessions).toBe(1);
    const turns = new ExclusiveLane('test results', { sessions: 1, maxWaitMs: 60_000, maxQueued: 10 });
    const budget = new ResultBudget({
      totalBytes: 1_000_000,
      reserveBytes: 800_000,
      streamBytes: 1,
      waitMs: 60_000,
    });
    const runner = new QueryRunner(h.store.user, 30, { budget, turns });
    const hold = engineHold(h);
    try {
      const held = runner.stream({ sql: hold.sql, format: 'csv' }, 'caller').catch((error: unknown) => error);
      await hold.arrived;
      expect(turns.stats.running).toBe(1);
      expect(budget.usedBytes).toBe(800_000);
      // The second waits for the engine, not in the budget: it has reserved nothing yet.
      const next = runner.stream({ sql: 'SELECT 42 AS answer', format: 'csv' }, 'caller');
      await until('the second query to wait for a turn', () => turns.stats.queued === 1);
      expect(budget).toMatchObject({ usedBytes: 800_000, waiting: 0 });
      await hold.release();
      expect(await held).toMatchObject({ code: 'QUERY_FAILED' });
      const second = await next;
      // Each finished result holds its own size only, and the turn passed on to the second.
      expect(budget.usedBytes).toBeLessThan(1_000);
      expect(turns.stats).toMatchObject({ running: 0, queued: 0 });
      expect((await drainText(second)).trim()).toBe('"answer"\n42');
      await until(
        'every lease and turn to be given back',
        () => budget.usedBytes === 0 && turns.stats.running === 0,
      );
    } finally {
      await hold.release();
    }
  });

  it('answers a query refused a turn with 503 OVERLOADED, and reserves nothing for it', async () => {
    const turns = new ExclusiveLane('test results', { sessions: 1, maxWaitMs: 60_000, maxQueued: 0 });
    const budget = new ResultBudget({ totalBytes: 1_000_000, reserveBytes: 800_000, streamBytes: 1 });
    const runner = new QueryRunner(h.store.user, 30, { budget, turns });
    const hold = engineHold(h);
    try {
      const held = runner.stream({ sql: hold.sql, format: 'csv' }, 'caller').catch((error: unknown) => error);
      await hold.arrived;
      const refused = await runner
        .stream({ sql: 'SELECT 1 AS one', format: 'csv' }, 'caller')
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'OVERLOADED', status: 503 });
      expect(budget.usedBytes).toBe(800_000);
      await hold.release();
      await held;
      await until('the held lease to be given back', () => budget.usedBytes === 0);
    } finally {
      await hold.release();
    }
  });

  it('reads the turn limits of each lane from the embedded store’s port', async () => {
    const limits = h.store.user.turns;
    expect(limits).toMatchObject({ sessions: 1, maxQueued: 64, maxWaitMs: 30_000 });
    expect(h.store.internal.turns?.sessions).toBe(1);
  });
});

describe('result memory budget', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, {}, false);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** About `bytes` of CSV: rows of 100,000 bytes (repeat() is capped at 1,000,000 per value). */
  const query = (bytes: number) => ({
    sql: `SELECT repeat('x', 99999) AS s FROM numbers(${Math.ceil(bytes / 100_000)})`,
    format: 'csv' as const,
  });

  it('holds results until their responses close and refuses with 503 OVERLOADED beyond the budget', async () => {
    const budget = new ResultBudget({ totalBytes: 2_500_000, reserveBytes: 800_000, streamBytes: 1 });
    const runner = new QueryRunner(h.store.user, 30, { budget });
    // Two results of ~1 MB each are held (not yet read by their clients).
    const a = await runner.stream(query(900_000), 'caller');
    const b = await runner.stream(query(900_000), 'caller');
    expect(budget.usedBytes).toBeGreaterThan(1_800_000);
    // A third needs its reservation of 800 kB first: refused before it runs.
    const refused = await runner.stream(query(900_000), 'caller').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'OVERLOADED', status: 503, retryAfterSec: 2 });
    // Once one response is done, the next query fits again.
    await drain(a);
    await until('the lease of a read result to be given back', () => budget.usedBytes < 1_000_000);
    // A result bigger than what is left is refused too, although its reservation let it start.
    const big = await runner.stream(query(1_700_000), 'caller').catch((e: unknown) => e);
    expect(big).toMatchObject({ code: 'OVERLOADED', status: 503 });
    expect(budget.usedBytes).toBeLessThan(1_000_000);
    const c = await runner.stream(query(900_000), 'caller');
    await drain(b);
    await drain(c);
    await until('every lease to be given back', () => budget.usedBytes === 0);
  });

  it('lets a reservation wait for room when allowed, and refuses it once the wait is over', async () => {
    const budget = new ResultBudget({
      totalBytes: 2_500_000,
      reserveBytes: 800_000,
      streamBytes: 1,
      waitMs: 60_000,
    });
    const runner = new QueryRunner(h.store.user, 30, { budget });
    const a = await runner.stream(query(900_000), 'caller');
    const b = await runner.stream(query(900_000), 'caller');
    // The third cannot reserve now: it waits in line instead of being refused.
    let settled = false;
    const third = runner.stream(query(900_000), 'caller');
    void third.then(
      () => (settled = true),
      () => (settled = true),
    );
    await until('the third query to wait for room', () => budget.waiting === 1);
    expect(settled).toBe(false);
    // A result sent gives its bytes back, and the waiting query goes on and answers.
    await drain(a);
    const c = await third;
    expect(budget.waiting).toBe(0);
    await drain(c);

    // First fit: a large reservation that does not fit yet holds nobody behind it.
    const large = runner.stream({ ...query(100), settings: { max_result_bytes: 2_000_000 } }, 'caller');
    const largeOutcome = large.then(
      (stream) => stream,
      (error: unknown) => error,
    );
    await until('the large reservation to wait', () => budget.waiting === 1);
    const small = await runner.stream(query(100_000), 'caller');
    expect(budget.waiting).toBe(1);
    await drain(small);
    await drain(b);
    const largeStream = await largeOutcome;
    expect(budget.waiting).toBe(0);
    await drain(largeStream as Readable);

    // Bounded: with a short wait and nothing sent meanwhile, the wait ends in OVERLOADED.
    const held = await runner.stream(query(900_000), 'caller');
    const short = new ResultBudget({
      totalBytes: 1_000_000,
      reserveBytes: 800_000,
      streamBytes: 1,
      waitMs: 200,
    });
    const shortRunner = new QueryRunner(h.store.user, 30, { budget: short });
    const blocker = await shortRunner.stream(query(700_000), 'caller');
    const refused = await shortRunner.stream(query(700_000), 'caller').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'OVERLOADED', status: 503 });
    expect(short.waiting).toBe(0);
    await drain(blocker);
    await drain(held);
    await until('every lease to be given back', () => budget.usedBytes === 0 && short.usedBytes === 0);
  });

  it('answers OVERLOADED with 503 and Retry-After over HTTP', async () => {
    const api = h.api;
    // A cut response (a client that went away) gives its bytes back as well.
    const budget = new ResultBudget({ totalBytes: 2_000_000, reserveBytes: 1_500_000, streamBytes: 1 });
    const runner = new QueryRunner(h.store.user, 30, { budget });
    const held = await runner.stream(query(100), 'caller');
    expect(budget.usedBytes).toBeGreaterThan(0);
    held.destroy();
    await until('a destroyed result to give its lease back', () => budget.usedBytes === 0);
    // Over HTTP: the error handler turns OVERLOADED into 503 with Retry-After.
    api.app.get('/test-overloaded', { config: { scope: 'open' } }, async () => {
      await runner.stream(query(1_500_000), 'caller'); // held: never read
      return runner.stream(query(100), 'caller');
    });
    const r = await api.app.inject({ method: 'GET', url: '/test-overloaded' });
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.json().error.code).toBe('OVERLOADED');
  });
});

async function drainText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}

async function drain(stream: Readable): Promise<void> {
  for await (const _ of stream) {
    // read to the end
  }
}
