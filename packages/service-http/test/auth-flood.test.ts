/**
 * Issue 37, item 2: authentication that cannot reach the store. A flood of random keys costs no
 * store query (the key table is held whole and re-read in the background), an address that keeps
 * presenting refused keys is refused before any lookup, wrong secrets for a known key id get that id
 * throttled, and revocations still hold: at once through this store, within the refresh interval
 * from another one. The store is a counting fake of its port (fake-lane.ts); no ClickHouse.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AddressGate,
  ApiKeyStore,
  createAuthLimits,
  installAuth,
  installErrorHandler,
  readServiceConfig,
  resolveHttpServiceConfig,
} from '../src/index.js';
import { type CountingLane, countingLane } from './fake-lane.js';

const TABLE = 'market.api_keys';
/** A bound on every flood here: enough to show the shape, small enough to run in a moment. */
const FLOOD = 2_000;

const randomKey = (): string =>
  `fpk_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
/** The same key id with another (wrong) secret. */
const wrongSecretOf = (key: string): string => `${key.slice(0, 21)}${randomBytes(32).toString('base64url')}`;

interface Setup {
  app: FastifyInstance;
  keys: ApiKeyStore<'read' | 'admin'>;
  store: CountingLane;
  clock: { now: number };
}

const opened: Setup[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) {
    s.keys.close();
    await s.app.close();
  }
});

async function setup(config: object = {}, store: CountingLane = countingLane()): Promise<Setup> {
  const clock = { now: Date.parse('2026-01-05T09:00:00Z') };
  const now = () => clock.now;
  const resolved = resolveHttpServiceConfig(readServiceConfig({}, config, 'test'), 'test', 0);
  const keys = new ApiKeyStore<'read' | 'admin'>(store.lane, {
    table: TABLE,
    scopes: ['read', 'admin'],
    cacheMs: 60_000,
    now,
  });
  const app = Fastify();
  installErrorHandler(app);
  installAuth(app, keys, createAuthLimits(resolved, now), { defaultScope: 'read' });
  app.get('/data', async () => ({ ok: true }));
  const s = { app, keys, store, clock };
  opened.push(s);
  return s;
}

const get = (app: FastifyInstance, key: string, remoteAddress = '127.0.0.1') =>
  app.inject({ method: 'GET', url: '/data', headers: { 'x-api-key': key }, remoteAddress });

describe('a flood of unknown keys', () => {
  it('costs no store query: unknown ids are answered from the key table held in memory', async () => {
    // An address limit wide enough that every key of the flood reaches the key check.
    const s = await setup({
      addressLimit: { perSecond: 1_000_000, burst: 1_000_000, failureBurst: 1_000_000 },
    });
    const reader = await s.keys.create('notebook', ['read']);
    expect((await get(s.app, reader.key)).statusCode).toBe(200);
    const before = s.store.statements.length;
    const statuses = new Map<number, number>();
    for (let i = 0; i < FLOOD; i += 1) {
      const status = (await get(s.app, randomKey())).statusCode;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: FLOOD });
    expect(s.store.statements.slice(before)).toEqual([]);
    // One read of the table in all (the first check), as many as the background would make.
    expect(s.store.tableReads()).toBe(1);
    expect((await get(s.app, reader.key)).statusCode).toBe(200);
  });

  it('refuses an address that keeps presenting refused keys, before any lookup, with Retry-After', async () => {
    const s = await setup({ addressLimit: { failureBurst: 20, failuresPerSecond: 1 } });
    const reader = await s.keys.create('notebook', ['read']);
    const refused: number[] = [];
    for (let i = 0; i < 100; i += 1) refused.push((await get(s.app, randomKey(), '10.0.0.9')).statusCode);
    expect(refused.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(new Set(refused.slice(20))).toEqual(new Set([429]));
    const limited = await get(s.app, reader.key, '10.0.0.9');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address is not held by it; the flooding one gets in again once its failures refill.
    expect((await get(s.app, reader.key, '10.0.0.10')).statusCode).toBe(200);
    s.clock.now += 2_000;
    expect((await get(s.app, reader.key, '10.0.0.9')).statusCode).toBe(200);
  });

  it('keeps the address map bounded: a flood from many addresses shares one overflow entry', () => {
    const gate = new AddressGate({
      perSecond: 10,
      burst: 10,
      failuresPerSecond: 1,
      failureBurst: 5,
      maxAddresses: 1_000,
    });
    const decisions = new Set<boolean>();
    for (let i = 0; i < 20_000; i += 1) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      decisions.add(gate.admit(address).allowed);
      gate.failed(address);
    }
    expect(gate.size).toBeLessThanOrEqual(1_001);
    // The overflow entry ran out of failures: new addresses of the flood are refused together.
    expect(decisions).toEqual(new Set([true, false]));
  });

  it('while the store is unreachable: 503, and still no query per request', async () => {
    const store = countingLane();
    store.failing = true;
    const s = await setup({ addressLimit: { failureBurst: 1_000_000, burst: 1_000_000 } }, store);
    const answers = new Set<number>();
    for (let i = 0; i < 500; i += 1) answers.add((await get(s.app, randomKey())).statusCode);
    expect(answers).toEqual(new Set([503]));
    // One read, then refusals without a query until the retry interval has passed.
    expect(store.statements.length).toBe(1);
    store.failing = false;
    s.clock.now += 1_500;
    expect((await get(s.app, randomKey())).statusCode).toBe(401);
    expect(store.statements.length).toBe(2);
  });
});

describe('wrong secrets for a known key id', () => {
  it('throttle that id after 10 in a window: 429 with Retry-After, even for the right secret', async () => {
    const s = await setup({ addressLimit: { failureBurst: 1_000 } });
    const victim = await s.keys.create('desk', ['read']);
    const other = await s.keys.create('other', ['read']);
    const answers: number[] = [];
    for (let i = 0; i < 30; i += 1) answers.push((await get(s.app, wrongSecretOf(victim.key))).statusCode);
    expect(answers.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(new Set(answers.slice(10))).toEqual(new Set([429]));
    const blocked = await get(s.app, victim.key);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.message).toMatch(/wrong secrets/);
    expect(blocked.json().error.message).not.toContain(victim.key.slice(21));
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Other keys are not held by it; the id works again once the block is over.
    expect((await get(s.app, other.key)).statusCode).toBe(200);
    s.clock.now += 60_001;
    expect((await get(s.app, victim.key)).statusCode).toBe(200);
  });

  it("block that id for the guessing address only: the key's holder elsewhere keeps working", async () => {
    const s = await setup({ addressLimit: { failureBurst: 1_000 } });
    const victim = await s.keys.create('desk', ['read']);
    const guesser = '127.0.0.9';
    const answers: number[] = [];
    for (let i = 0; i < 20; i += 1)
      answers.push((await get(s.app, wrongSecretOf(victim.key), guesser)).statusCode);
    expect(answers.slice(10)).toEqual(Array(10).fill(429));
    // The guesser's address is refused even the right secret; the holder's address is not held.
    expect((await get(s.app, victim.key, guesser)).statusCode).toBe(429);
    expect((await get(s.app, victim.key, '127.0.0.1')).statusCode).toBe(200);
    // Guesses spread over addresses are still throttled at each one.
    for (const address of ['127.0.0.10', '127.0.0.11']) {
      const spread: number[] = [];
      for (let i = 0; i < 11; i += 1)
        spread.push((await get(s.app, wrongSecretOf(victim.key), address)).statusCode);
      expect(spread.at(-1)).toBe(429);
    }
    expect((await get(s.app, victim.key, '127.0.0.1')).statusCode).toBe(200);
  });
});

describe('revocation with the key table in memory', () => {
  it('through this store: refused at once', async () => {
    const s = await setup();
    const reader = await s.keys.create('notebook', ['read']);
    expect((await get(s.app, reader.key)).statusCode).toBe(200);
    expect(await s.keys.revoke(reader.keyId)).toBe(true);
    expect((await get(s.app, reader.key)).statusCode).toBe(401);
  });

  it('through another instance: refused once this one has re-read the table (within its refresh)', async () => {
    const store = countingLane();
    const s = await setup({}, store);
    const other = new ApiKeyStore<'read' | 'admin'>(store.lane, {
      table: TABLE,
      scopes: ['read', 'admin'],
      cacheMs: 0,
    });
    const reader = await other.create('notebook', ['read']);
    // Unknown here until the next read of the table: a stale table older than maxStaleMs is re-read.
    s.clock.now += 60_001;
    expect((await get(s.app, reader.key)).statusCode).toBe(200);
    await other.revoke(reader.keyId);
    expect((await get(s.app, reader.key)).statusCode).toBe(200);
    s.clock.now += 360_001;
    expect((await get(s.app, reader.key)).statusCode).toBe(401);
  });

  it("a real background refresh picks up another instance's revocation (bounded wait)", async () => {
    const store = countingLane();
    const keys = new ApiKeyStore<'read'>(store.lane, { table: TABLE, scopes: ['read'], cacheMs: 1_000 });
    const other = new ApiKeyStore<'read'>(store.lane, { table: TABLE, scopes: ['read'], cacheMs: 0 });
    try {
      const reader = await other.create('notebook', ['read']);
      expect(await keys.verify(reader.key)).toBeDefined();
      await other.revoke(reader.keyId);
      const deadline = Date.now() + 10_000;
      while ((await keys.verify(reader.key)) !== undefined && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await keys.verify(reader.key)).toBeUndefined();
    } finally {
      keys.close();
    }
  });
});
