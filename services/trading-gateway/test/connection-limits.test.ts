/**
 * Issue 37, items 2 and 3, on the gateway as it runs (with its postback receiver): a flood of random
 * keys makes no read of the key table (before: one lookup of market.gateway_api_keys per unseen key
 * id, on the internal lane the audit and postback inserts share), wrong secrets for a known key id
 * are throttled, a connection that sends nothing is closed and a body that trickles into /v1/orders
 * or the postback route is cut by the request deadline (before: open past 150 s). Short limits
 * through the `server` options; no Kafka broker is contacted.
 */

import { randomBytes } from 'node:crypto';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import {
  openRawConnection,
  type RawConnection,
  recordingReads,
  tempDir,
  trickleBody,
} from '@feedpipe/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTradingGateway, type TradingGateway } from '../src/index.js';
import { GATEWAY_KEYS_TABLE } from '../src/scopes.js';

const SECRET = 'connection-limits-postback-secret-0123';
/** Never contacted: the Kafka writer connects on its first send, which nothing here makes. */
const NO_KAFKA = ['127.0.0.1:9'];
const FLOOD = 300;

let store: Store;
let gateway: TradingGateway;
let port: number;
const keyReads: string[] = [];
const open: RawConnection[] = [];

beforeAll(async () => {
  const dir = tempDir('gateway-connection-limits');
  store = createStore({ dataDir: dir });
  await runMigrations(store.internal);
  gateway = await createTradingGateway(
    {
      port: 0,
      keyCacheMs: 60_000,
      server: {
        idleTimeoutMs: 500,
        headersTimeoutMs: 1_000,
        requestTimeoutMs: 1_500,
        checkIntervalMs: 100,
      },
      postbacks: { secret: SECRET, walDir: `${dir}/postback-wal` },
    },
    {
      store: recordingReads(store, (sql) => sql.includes(GATEWAY_KEYS_TABLE), keyReads),
      kafkaBrokers: NO_KAFKA,
    },
  );
  port = Number(new URL(await gateway.start()).port);
});

afterEach(() => {
  for (const c of open.splice(0)) c.socket.destroy();
});

afterAll(async () => {
  await gateway?.stop();
  await store?.close();
});

const randomKey = (): string =>
  `fpk_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;

describe('gateway keys', () => {
  it('a flood of random keys reads the key table no more than the table read itself', async () => {
    const trade = await gateway.keys.create('desk', ['trade']);
    const first = await gateway.app.inject({
      method: 'GET',
      url: '/v1/orders',
      headers: { 'x-api-key': trade.key },
    });
    expect(first.statusCode).not.toBe(401);
    // The spy sees the key table's reads (its load at start), so a zero below is not a blind spy.
    expect(keyReads.length).toBeGreaterThan(0);
    const before = keyReads.length;
    const statuses = new Set<number>();
    for (let i = 0; i < FLOOD; i += 1) {
      // From an address of its own: its refusals spend that address's failures, nobody else's.
      const r = await gateway.app.inject({
        method: 'GET',
        url: '/v1/orders',
        headers: { 'x-api-key': randomKey() },
        remoteAddress: '127.0.0.4',
      });
      statuses.add(r.statusCode);
    }
    expect([...statuses].every((s) => s === 401 || s === 429)).toBe(true);
    expect(keyReads.length - before).toBe(0);
  });

  it('wrong secrets for a known key id are throttled', async () => {
    const trade = await gateway.keys.create('victim', ['trade']);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const wrong = `${trade.key.slice(0, 21)}${randomBytes(32).toString('base64url')}`;
      const r = await gateway.app.inject({
        method: 'GET',
        url: '/v1/orders',
        headers: { 'x-api-key': wrong },
        remoteAddress: '127.0.0.3',
      });
      statuses.push(r.statusCode);
    }
    expect(statuses.slice(10)).toEqual(Array(20).fill(429));
  });
});

describe('gateway connections', () => {
  async function connection(): Promise<RawConnection> {
    const c = await openRawConnection(port);
    open.push(c);
    return c;
  }

  it('closes a connection that sends nothing', async () => {
    const idle = await connection();
    expect(await idle.closed()).toBe(true);
    expect(idle.received()).toBe('');
  });

  it('cuts a body that trickles into /v1/orders or the postback route (408)', async () => {
    const trade = await gateway.keys.create('slow-client', ['trade']);
    for (const [path, key] of [
      ['/v1/orders', `x-api-key: ${trade.key}\r\n`],
      [`/postbacks/orders/${SECRET}`, ''],
    ]) {
      const c = await connection();
      const sent = await trickleBody(
        c,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${key}Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n`,
        5_000,
        200,
      );
      expect(await c.closed()).toBe(true);
      expect(sent).toBeLessThan(5_000);
      expect(c.received()).toMatch(/^HTTP\/1\.1 408/);
    }
  });
});
