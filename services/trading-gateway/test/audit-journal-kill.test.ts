/**
 * The audit journal across SIGKILL: a whole gateway in a child process answers orders while its
 * store never stores an audit row (an insert that never answers), and is killed with the rows only
 * in its journal. The next process retries some of those orders (replayed from the journal: the
 * store still has none of their rows, and the service is not sent them again), places new ones,
 * and is killed right after its drain's insert of the recovered rows landed in the store but before
 * the store answered. A last process drains the journal: every audit row of the three processes is
 * in market.order_audit exactly once, and the service holds each order once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrokerClient } from '@feedpipe/broker-api';
import {
  createRestServer,
  MarketModel,
  type RestServer,
  ScriptedMarket,
  SIM_TEST_ACCOUNTS,
} from '@feedpipe/broker-sim';
import { tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeJournalLines } from '../src/orders/audit-journal-line.js';
import { startChild } from './child-process.js';
import { TCS, tcsOrder } from './sim-harness.js';

const CHILD = fileURLToPath(new URL('./fixtures/audit-journal-child.ts', import.meta.url));
const ACCOUNT = SIM_TEST_ACCOUNTS[0]!;
/** The simulator's clock: real time moved to a weekday 11:00 IST, so its exchange is open. */
const OFFSET_MS = Date.parse('2026-11-24T11:00:00+05:30') - Date.now();

let sim: RestServer;

beforeAll(async () => {
  const market = new ScriptedMarket(
    new MarketModel({ seed: 5, instruments: 20, now: () => Date.now() + OFFSET_MS }),
  );
  market.setLtp(TCS, 3500);
  sim = await createRestServer({ model: market, now: () => Date.now() + OFFSET_MS, rateLimits: false });
});
afterAll(async () => sim?.close());

interface Running {
  url: string;
  key: string;
  output: () => string;
  kill(): Promise<void>;
}

async function startGateway(
  mode: 'hang' | 'land' | 'drain',
  dirs: { dataDir: string; journalDir: string },
  key?: string,
): Promise<Running> {
  const { child, output } = startChild(CHILD, [
    JSON.stringify({
      mode,
      simUrl: sim.baseUrl,
      clientId: ACCOUNT.clientId,
      token: ACCOUNT.webToken,
      offsetMs: OFFSET_MS,
      securityId: TCS,
      key,
      ...dirs,
    }),
  ]);
  const exited = new Promise((r) => child.once('exit', r));
  await waitFor(
    () => output().includes('READY'),
    90_000,
    () => `the gateway child to start: ${output()}`,
  );
  const [, port, madeKey] = /READY (\d+) (\S+)/.exec(output()) ?? [];
  return {
    url: `http://127.0.0.1:${port}`,
    key: madeKey ?? '',
    output,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function place(
  g: Running,
  correlationId: string,
): Promise<{ status: number; replayed: boolean; orderId: string }> {
  const res = await fetch(`${g.url}/v1/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': g.key },
    body: JSON.stringify(tcsOrder({ orderType: 'LIMIT', quantity: 1, price: 3000, correlationId })),
  });
  const body = (await res.json()) as { orderId?: string };
  return {
    status: res.status,
    replayed: res.headers.get('x-idempotent-replay') === 'true',
    orderId: String(body.orderId ?? ''),
  };
}

function journaledRows(dir: string): number {
  return readdirSync(dir).reduce(
    (n, name) => n + decodeJournalLines(readFileSync(join(dir, name))).values.length,
    0,
  );
}

it('stores every audit row once after SIGKILLs with rows only in the journal, and places no order twice', async () => {
  const dirs = { dataDir: tempDir('journal-kill-chdb'), journalDir: tempDir('journal-kill-journal') };
  const run = uniqueName('jk');
  const cid = (i: number) => `${run}-${i}`;

  // 1: the store never stores an audit row; every order is answered from the journal.
  const first = await startGateway('hang', dirs);
  const placed = new Map<string, string>();
  for (let i = 0; i < 8; i++) {
    const r = await place(first, cid(i));
    expect(r).toMatchObject({ status: 200, replayed: false });
    placed.set(cid(i), r.orderId);
  }
  await first.kill();
  expect(journaledRows(dirs.journalDir)).toBe(16);

  // 2: retries of the killed process's orders are replays, from its journal; new orders go on. The
  // drain's insert of the recovered rows lands, and the process dies before the store answers.
  const second = await startGateway('land', dirs, first.key);
  for (let i = 0; i < 3; i++) {
    expect(await place(second, cid(i))).toEqual({ status: 200, replayed: true, orderId: placed.get(cid(i)) });
  }
  for (let i = 8; i < 12; i++) {
    const r = await place(second, cid(i));
    expect(r).toMatchObject({ status: 200, replayed: false });
    placed.set(cid(i), r.orderId);
  }
  await waitFor(() => second.output().includes('LANDED 16'), 30_000, 'the recovered rows to land');
  await second.kill();

  // 3: the last process drains what both left.
  const last = await startGateway('drain', dirs, first.key);
  await waitFor(
    () => last.output().includes('RESULT'),
    90_000,
    () => `the drain's result: ${last.output()}`,
  );
  const counts = JSON.parse(/RESULT (.*)/.exec(last.output())?.[1] ?? '{}') as Record<string, number>;
  const mine = Object.entries(counts).filter(([id]) => id.includes(`/${run}-`));
  // 12 placements (a request and an outcome row each) and 3 replays.
  expect(mine).toHaveLength(27);
  expect(mine.filter(([, n]) => n !== 1)).toEqual([]);
  expect(mine.filter(([id]) => id.endsWith('/replayed'))).toHaveLength(3);
  expect(readdirSync(dirs.journalDir)).toEqual([]);

  const book = await new BrokerClient({
    baseUrl: sim.baseUrl,
    clientId: ACCOUNT.clientId,
    accessToken: ACCOUNT.webToken!,
  }).orders.list();
  const ours = book.filter((o) => String(o.correlationId ?? '').startsWith(`${run}-`));
  expect(ours.map((o) => o.orderId).sort()).toEqual([...placed.values()].sort());
});
