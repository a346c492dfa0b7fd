/**
 * Subscriptions while running, the parts without a feed or Kafka: the plan (universe plus the
 * route's overrides), the overrides file, the universe-file watch, the ops key, and the ops route
 * over HTTP on loopback (its answers to good, bad and unauthenticated requests).
 */

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { IngestorError } from '../src/index.js';
import { createIngestorMetrics } from '../src/ingestor-metrics.js';
import { OpsKey } from '../src/ops/ops-key.js';
import { type OpsRouteServer, startOpsRouteServer } from '../src/ops/ops-route-server.js';
import type { ChangeOutcome } from '../src/subscriptions/live-subscriptions.js';
import { OverridesFile, readOverrides } from '../src/subscriptions/overrides-file.js';
import { SubscriptionPlan } from '../src/subscriptions/subscription-plan.js';
import { UniverseWatch } from '../src/subscriptions/universe-watch.js';

describe('SubscriptionPlan', () => {
  it('keeps route changes as overrides of the universe and reports what changes in effect', () => {
    const plan = new SubscriptionPlan({ trade: ['1', '2', '3'], ohlc: [] });
    expect(plan.change('trade', ['4'], ['2'])).toEqual({ add: ['4'], remove: ['2'] });
    expect(plan.effective('trade').sort()).toEqual(['1', '3', '4']);
    expect(plan.overrides().trade).toEqual({ added: ['4'], removed: ['2'] });
    // Adding back what the universe holds only forgets the removal; nothing is added twice.
    expect(plan.change('trade', ['2', '4'], [])).toEqual({ add: ['2'], remove: [] });
    expect(plan.overrides().trade).toEqual({ added: ['4'], removed: [] });
    expect(plan.effective('ohlc')).toEqual([]);
  });

  it('takes a new universe as the latest word on the instruments it adds or drops', () => {
    const plan = new SubscriptionPlan(
      { trade: ['1', '2'], ohlc: [] },
      { trade: { added: ['9'], removed: ['2'] }, ohlc: { added: [], removed: [] } },
    );
    expect(plan.effective('trade').sort()).toEqual(['1', '9']);
    // The file now holds 2 (still: its removal through the route is kept), 9 (so no longer an
    // override of its own) and 5 (new), and no longer 1.
    const diff = plan.setUniverse('trade', ['2', '5', '9']);
    expect(diff.add.sort()).toEqual(['5']);
    expect(diff.remove).toEqual(['1']);
    expect(plan.overrides().trade).toEqual({ added: [], removed: ['2'] });
  });

  it('tries a change on a copy without touching the original', () => {
    const plan = new SubscriptionPlan({ trade: ['1'], ohlc: [] });
    const copy = plan.copy();
    copy.change('trade', ['7'], ['1']);
    expect(plan.effective('trade')).toEqual(['1']);
    expect(copy.effective('trade')).toEqual(['7']);
  });
});

describe('the overrides file', () => {
  it('round-trips the overrides and starts from the universe alone on a missing or unreadable file', async () => {
    const dir = tempDir('subs');
    const path = join(dir, 'subs.json');
    const said: string[] = [];
    expect(readOverrides(path, (m) => said.push(m)).trade).toEqual({ added: [], removed: [] });
    const overrides = { trade: { added: ['11'], removed: ['12'] }, ohlc: { added: ['13'], removed: [] } };
    await new OverridesFile(path, (m) => said.push(m)).save(overrides);
    expect(readOverrides(path, (m) => said.push(m))).toEqual(overrides);
    expect(said).toEqual([]);
    writeFileSync(path, '{"version":1,"trade":{"added":[1]}');
    expect(readOverrides(path, (m) => said.push(m)).trade.added).toEqual([]);
    expect(said).toEqual([`subscriptions file ${path} is unreadable; starting from the universe alone`]);
  });
});

describe('UniverseWatch', () => {
  it('applies an edited universe file, also one replaced by a rename, and keeps going after a bad one', () => {
    const dir = tempDir('subs');
    const path = join(dir, 'universe.json');
    writeFileSync(path, JSON.stringify([1, 2]));
    const applied: Array<[string, string[]]> = [];
    const said: string[] = [];
    const watch = new UniverseWatch({
      files: { trade: path },
      apply: (kind, ids) => applied.push([kind, ids]),
      log: (m) => said.push(m),
    });
    watch.check();
    expect(applied).toEqual([]);
    writeFileSync(path, JSON.stringify([1, 2, 3]));
    watch.check();
    expect(applied).toEqual([['trade', ['1', '2', '3']]]);
    writeFileSync(join(dir, 'next.json'), JSON.stringify([{ securityId: 4, exchangeSegment: 'INX_EQ' }]));
    renameSync(join(dir, 'next.json'), path);
    watch.check();
    expect(applied.at(-1)).toEqual(['trade', ['4']]);
    writeFileSync(path, '[1, "x"]');
    watch.check();
    expect(applied).toHaveLength(2);
    expect(said.at(-1)).toMatch(/not applied .*"x" is not a security id.*trade subscriptions unchanged/);
    writeFileSync(path, JSON.stringify([5]));
    watch.check();
    expect(applied.at(-1)).toEqual(['trade', ['5']]);
  });
});

describe('OpsKey', () => {
  const key = 'k'.repeat(32);
  it('admits the key in x-api-key or as a bearer token, and nothing else', () => {
    const ops = new OpsKey(key);
    expect(ops.admits({ 'x-api-key': key })).toBe(true);
    expect(ops.admits({ authorization: `Bearer ${key}` })).toBe(true);
    expect(ops.admits({ 'x-api-key': `${key}x` })).toBe(false);
    expect(ops.admits({ authorization: key })).toBe(false);
    expect(ops.admits({})).toBe(false);
  });

  it('refuses a short key at construction without echoing it', () => {
    expect(() => new OpsKey('short-secret')).toThrow(/at least 24 characters/);
    expect(() => new OpsKey('short-secret')).not.toThrow(/short-secret/);
  });
});

describe('the ops route', () => {
  const key = 'route-test-key-0123456789abcdef';
  let server: OpsRouteServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A control that records the changes asked for and refuses what an ingestor would. */
  async function start(): Promise<{ url: string; asked: Array<[string, unknown]>; registry: Registry }> {
    const registry = new Registry();
    const asked: Array<[string, unknown]> = [];
    const control = {
      metrics: createIngestorMetrics(registry),
      subscriptions: () => ({
        held: { trade: 1, ohlc: 0 },
        capacity: 10,
        connections: [{ index: 0, trade: 1, ohlc: 0 }],
        overrides: { trade: { added: [], removed: [] }, ohlc: { added: [], removed: [] } },
      }),
      changeSubscriptions: (kind: 'trade' | 'ohlc', change: { add?: readonly string[] }): ChangeOutcome => {
        asked.push([kind, change]);
        if (change.add?.includes('0')) throw new IngestorError('INVALID_REQUEST', '"0" is not a security id');
        if ((change.add?.length ?? 0) > 10) throw new IngestorError('SUBSCRIPTION_LIMIT', 'no room');
        return { kind, added: [...(change.add ?? [])], removed: [], held: { trade: 2, ohlc: 0 } };
      },
    };
    server = await startOpsRouteServer({ ingestor: control, key, log: () => undefined });
    return { url: `${server.url}/v1/subscriptions`, asked, registry };
  }

  const post = (url: string, body: unknown, headers: Record<string, string> = { 'x-api-key': key }) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('adds instruments with the key and answers what changed; GET shows what is held', async () => {
    const { url, asked } = await start();
    const added = await post(url, { add: [1234, '5678'] });
    expect(added.status).toBe(200);
    expect(await added.json()).toEqual({
      kind: 'trade',
      added: ['1234', '5678'],
      removed: [],
      held: { trade: 2, ohlc: 0 },
    });
    expect(asked).toEqual([['trade', { add: ['1234', '5678'], remove: [] }]]);
    const held = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(held.status).toBe(200);
    expect(((await held.json()) as { capacity: number }).capacity).toBe(10);
  });

  it('answers 401 without the key (counted, nothing asked), 400 naming what is wrong, 409 at the limit', async () => {
    const { url, asked, registry } = await start();
    const cases: Array<[unknown, Record<string, string> | undefined, number, string, RegExp]> = [
      [{ add: [1] }, {}, 401, 'UNAUTHENTICATED', /ops key is required/],
      [{ add: [1] }, { 'x-api-key': 'wrong' }, 401, 'UNAUTHENTICATED', /ops key is required/],
      ['{not json', undefined, 400, 'BAD_REQUEST', /must be JSON/],
      [{ kind: 'quote', add: [1] }, undefined, 400, 'BAD_REQUEST', /kind must be trade or ohlc/],
      [{ add: 1 }, undefined, 400, 'BAD_REQUEST', /add must be an array/],
      [{ add: [true] }, undefined, 400, 'BAD_REQUEST', /add must hold security ids/],
      [{ add: [1], extra: 1 }, undefined, 400, 'BAD_REQUEST', /unknown field extra/],
      [{ add: [] }, undefined, 400, 'BAD_REQUEST', /at least one instrument/],
      [
        { add: Array.from({ length: 5_001 }, (_, i) => i + 1) },
        undefined,
        400,
        'BAD_REQUEST',
        /at most 5000/,
      ],
      [{ add: ['0'] }, undefined, 400, 'BAD_REQUEST', /is not a security id/],
      [{ add: Array.from({ length: 11 }, (_, i) => i + 1) }, undefined, 409, 'SUBSCRIPTION_LIMIT', /no room/],
    ];
    for (const [body, headers, status, code, message] of cases) {
      const answer = await post(url, body, headers);
      const json = (await answer.json()) as { error: { code: string; message: string } };
      expect([answer.status, json.error.code], JSON.stringify(body).slice(0, 60)).toEqual([status, code]);
      expect(json.error.message).toMatch(message);
      expect(json.error.message).not.toContain(key);
    }
    // Neither refusal of the key reached the ingestor; the two INVALID/LIMIT cases did.
    expect(asked).toHaveLength(2);
    const refused = await registry.getSingleMetric('ingestor_subscription_changes_refused_total')?.get();
    expect(refused?.values.find((v) => v.labels.reason === 'unauthenticated')?.value).toBe(2);
  });

  it('answers 405 with the methods allowed and 404 elsewhere', async () => {
    const { url } = await start();
    const put = await fetch(url, { method: 'PUT', headers: { 'x-api-key': key } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect((await fetch(url.replace('/v1/subscriptions', '/v1/other'))).status).toBe(404);
  });
});

describe('the ops key from a file', () => {
  it('is read from INGESTOR_OPS_KEY_FILE', async () => {
    const { loadIngestorEnv } = await import('../src/index.js');
    const dir = tempDir('subs');
    const keyFile = join(dir, 'ops-key');
    writeFileSync(keyFile, 'file-held-ops-key-0123456789\n');
    const config = loadIngestorEnv({
      SVC_FEED_URL: 'ws://127.0.0.1:7075/',
      SVC_CLIENT_ID: '1000000001',
      SVC_ACCESS_TOKEN: 'token',
      KAFKA_BROKERS: '127.0.0.1:9092',
      INGESTOR_OPS_KEY_FILE: keyFile,
      INGESTOR_STATE_FILE: join(dir, 'state.json'),
    });
    expect(config.opsKey).toBe('file-held-ops-key-0123456789');
    expect(config.subscriptionsFile).toBe(join(dir, 'state.json.universe-changes.json'));
    expect(readFileSync(keyFile, 'utf8')).toContain('file-held');
  });
});
