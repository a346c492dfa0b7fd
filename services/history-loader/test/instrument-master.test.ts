/**
 * The instrument list into market.instruments against the simulator's published list: every row
 * stored once, a second load of the same list writes nothing, a later day closes expired contracts
 * and starts new ones (valid_from / valid_to), a malformed list loads its good rows and counts the
 * rest, and a download that is not the list or looks truncated changes nothing.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createRestServer,
  INSTRUMENT_MASTER_PATHS,
  MarketModel,
  type RestServer,
} from '@feedpipe/broker-sim';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstrumentMasterLoader, LoaderError } from '../src/index.js';
import { parseMaster } from '../src/instruments/parse-master.js';

const DAY_MS = 86_400_000;
let now = Date.UTC(2024, 5, 5, 2, 0, 0); // Wednesday 2024-06-05 07:30 IST
const clock = () => now;
let sim: RestServer;
let store: Store;
/** What the fake list server answers next (a peer the spec allows: any bytes at the address). */
let fakeBody = '';
let fakeStatus = 200;
let fake: Server;
let fakeUrl = '';

beforeAll(async () => {
  sim = await createRestServer({
    model: new MarketModel({ seed: 5, instruments: 50, now: clock }),
    now: clock,
  });
  store = createStore({ dataDir: tempDir('instrument-master') });
  await runMigrations(store.internal);
  fake = createServer((_req, res) => {
    res.writeHead(fakeStatus, { 'content-type': 'text/csv' });
    res.end(fakeBody);
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/list.csv`;
});

afterAll(async () => {
  await new Promise((resolve) => fake?.close(resolve));
  await store?.close();
  await sim?.close();
});

function loader(url: string, registry = new Registry()) {
  return new InstrumentMasterLoader({ url, attempts: 1 }, { store: store.internal, registry, now: clock });
}

async function count(where: string): Promise<number> {
  const [row] = await store.internal.rows<{ n: string | number }>(
    `SELECT count() AS n FROM market.instruments WHERE ${where}`,
  );
  return Number(row?.n ?? 0);
}

async function simList(): Promise<string> {
  return (await fetch(`${sim.baseUrl}${INSTRUMENT_MASTER_PATHS.detailed}`)).text();
}

describe('instrument master load', () => {
  it('stores every row of the list once, and a second load of the same list writes nothing', async () => {
    const url = `${sim.baseUrl}${INSTRUMENT_MASTER_PATHS.detailed}`;
    const listed = (await simList()).trimEnd().split('\n').length - 1;
    const first = await loader(url).load();
    expect(first).toMatchObject({
      day: '2024-06-05',
      listed,
      added: listed,
      changed: 0,
      removed: 0,
      rejectedRows: 0,
    });
    expect(await count('1')).toBe(listed);
    expect(await count("valid_to IS NULL AND valid_from = '2024-06-05'")).toBe(listed);

    const again = await loader(url).load();
    expect(again).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: listed });
    expect(await count('1')).toBe(listed);

    const [reliance] = await store.internal.rows<Record<string, unknown>>(
      "SELECT exchange_segment, trading_symbol, lot_size, option_type, strike_price, expiry_date FROM market.instruments WHERE security_id = 2885 AND exchange_segment = 'NSE_EQ'",
    );
    expect(reliance).toEqual({
      exchange_segment: 'NSE_EQ',
      trading_symbol: 'RELIANCE',
      lot_size: 1,
      option_type: 'XX',
      strike_price: null,
      expiry_date: null,
    });
    const [option] = await store.internal.rows<Record<string, unknown>>(
      "SELECT exchange_segment, instrument_type, underlying_security_id, toString(expiry_date) AS expiry FROM market.instruments WHERE underlying_symbol = 'NIFTY' ORDER BY expiry_date LIMIT 1",
    );
    expect(option).toEqual({
      exchange_segment: 'NSE_FNO',
      instrument_type: 'OPTIDX',
      underlying_security_id: 13,
      expiry: '2024-06-06 15:30:00',
    });
  });

  it('closes what left the list and starts what joined it on a later day', async () => {
    const url = `${sim.baseUrl}${INSTRUMENT_MASTER_PATHS.detailed}`;
    const expiringBefore = await count("valid_to IS NULL AND toDate(expiry_date) = '2024-06-06'");
    expect(expiringBefore).toBeGreaterThan(0);
    now += 2 * DAY_MS; // Friday: the 6 June weeklies have expired
    const result = await loader(url).load();
    expect(result.day).toBe('2024-06-07');
    expect(result.removed).toBeGreaterThanOrEqual(expiringBefore);
    expect(result.added).toBeGreaterThan(0);
    // Plain reads (no FINAL) see one row per version: the loader merged the table.
    expect(await count("toDate(expiry_date) = '2024-06-06'")).toBe(expiringBefore);
    expect(await count("toDate(expiry_date) = '2024-06-06' AND valid_to = '2024-06-07'")).toBe(
      expiringBefore,
    );
    expect(await count("valid_to IS NULL AND valid_from = '2024-06-07'")).toBe(result.added);
    // Stocks did not change: still their first version, still current.
    expect(
      await count("exchange_segment = 'NSE_EQ' AND (valid_to IS NOT NULL OR valid_from != '2024-06-05')"),
    ).toBe(0);
  });

  it('keeps a changed row as two versions', async () => {
    const list = await simList();
    const renamed = list.replace(/^NSE,E,2885,EQUITY,0,RELIANCE,/m, 'NSE,E,2885,EQUITY,0,RELIANCEX,');
    expect(renamed).not.toBe(list);
    fakeBody = renamed;
    now += DAY_MS;
    const result = await loader(fakeUrl).load();
    expect(result.changed).toBe(1);
    const versions = await store.internal.rows<Record<string, unknown>>(
      "SELECT trading_symbol, toString(valid_from) AS f, toString(valid_to) AS t FROM market.instruments WHERE security_id = 2885 AND exchange_segment = 'NSE_EQ' ORDER BY valid_from",
    );
    expect(versions).toEqual([
      { trading_symbol: 'RELIANCE', f: '2024-06-05', t: '2024-06-08' },
      { trading_symbol: 'RELIANCEX', f: '2024-06-08', t: null },
    ]);
  });

  it('loads the good rows of a malformed list and counts the rest', async () => {
    const registry = new Registry();
    const lines = (await simList()).trimEnd().split('\n');
    const header = lines[0] ?? '';
    const good = lines.slice(1);
    const bad = [
      'NSE,E,abc,EQUITY,0,BADID,1.0,BADID,,,XX,0.0500,,EQ,BADID,,,',
      'NSE,Z,77,EQUITY,0,BADSEG,1.0,BADSEG,,,XX,0.0500,,EQ,BADSEG,,,',
      'NSE,E,78,EQUITY,0,SHORT',
      'NSE,D,79,OPTIDX,0,X,75.0,X,31-12-2024,100,CE,0.0500,W,,X,,13,NIFTY',
      'NSE,D,80,OPTIDX,0,Y,75.0,Y,2024-12-31 15:30:00,100,CX,0.0500,W,,Y,,13,NIFTY',
      'NSE,E,81,EQUITY,0,"OPEN QUOTE,1.0,Q,,,XX,0.0500,,EQ,Q,,,',
    ];
    // A CRLF file with a quoted symbol holding a comma: a valid row, not a malformed one.
    const quoted = 'NSE,E,82,EQUITY,0,"A,B",1.0,"A ""B""",,,XX,0.0500,,EQ,AB,,,';
    fakeBody = [header, ...good, quoted, ...bad].join('\r\n');
    now += DAY_MS;
    const result = await loader(fakeUrl, registry).load();
    expect(result.rejectedRows).toBe(bad.length);
    expect(result.rejections.map((r) => r.reason)).toEqual([
      'security_id',
      'segment',
      'columns',
      'expiry_date',
      'option_type',
      'malformed_csv',
    ]);
    for (const r of result.rejections) {
      expect(r.error).toBeInstanceOf(LoaderError);
      expect(r.error.code).toBe('INSTRUMENT_ROW_INVALID');
    }
    const [stored] = await store.internal.rows<Record<string, unknown>>(
      'SELECT trading_symbol, custom_symbol FROM market.instruments WHERE security_id = 82 AND valid_to IS NULL',
    );
    expect(stored).toEqual({ trading_symbol: 'A,B', custom_symbol: 'A "B"' });
    expect(await count('security_id IN (77, 78, 79, 80, 81)')).toBe(0);
    const metric = await registry.getSingleMetric('history_loader_instrument_rows_rejected_total')?.get();
    const byReason = Object.fromEntries((metric?.values ?? []).map((v) => [v.labels.reason, v.value]));
    expect(byReason).toMatchObject({
      security_id: 1,
      segment: 1,
      columns: 1,
      expiry_date: 1,
      option_type: 1,
    });
  });

  it('refuses a download that is not the list, an error answer and a truncated list, changing nothing', async () => {
    const before = await count('1');
    fakeBody = '<html><body>Service unavailable</body></html>';
    await expect(loader(fakeUrl).load()).rejects.toMatchObject({ code: 'MASTER_INVALID' });
    fakeStatus = 503;
    await expect(loader(fakeUrl).load()).rejects.toMatchObject({
      code: 'MASTER_UNAVAILABLE',
      retryable: true,
    });
    fakeStatus = 200;
    const lines = (await simList()).trimEnd().split('\n');
    fakeBody = lines.slice(0, 20).join('\n');
    await expect(loader(fakeUrl).load()).rejects.toMatchObject({ code: 'MASTER_INVALID' });
    expect(await count('1')).toBe(before);
  });

  it('reads the compact list too (no underlying columns)', () => {
    const parsed = parseMaster(
      'SEM_SMST_SECURITY_ID,SEM_EXM_EXCH_ID,SEM_SEGMENT,SEM_TRADING_SYMBOL,SEM_INSTRUMENT_NAME\n11536,NSE,E,TCS,EQUITY\n',
    );
    expect(parsed.rows).toHaveLength(1);
    expect(parsed.rows[0]).toMatchObject({
      exchangeSegment: 'NSE_EQ',
      securityId: 11536,
      underlyingSecurityId: null,
    });
  });
});
