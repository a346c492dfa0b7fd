/**
 * The hot tier against the run's real Kafka broker and embedded ClickHouse: part of the trades
 * are stored as the sink stores them (each row with its cluster, partition and offset) before the
 * API starts, the rest only in Kafka. The tier loads ClickHouse up to the stored offsets and reads
 * Kafka from the next ones; trades produced after the start (one of them a copy by source
 * identity, which the sink would drop) arrive through the feed. Every bars answer from memory then
 * equals BARS_SQL over what ClickHouse finally holds: a trade missed or counted twice would change
 * a bar's trades and volume.
 */
import { FEED_TABLES, SOURCE_BYTES, SOURCE_HEADER } from '@feedpipe/contracts';
import { JsonProducer, KafkaAdmin, readTopic } from '@feedpipe/kafka-client';
import { fillTradeQuantities } from '@feedpipe/store';
import { uniqueName } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BARS_SQL } from '../src/analytics/bars-sql.js';
import { QueryRunner } from '../src/query/query-runner.js';
import { type Harness, startHarness } from './helpers.js';

const brokers = inject('kafkaBrokers');
const topics = {
  trades: uniqueName('ht_trades'),
  ohlc: uniqueName('ht_ohlc'),
  reference: uniqueName('ht_ref'),
  status: uniqueName('ht_status'),
};
const IDS = [910_001, 910_002, 910_003];
const DAY = 86_400;
/** Yesterday's UTC midnight: inside a 24-hour window whatever the time of day. */
const BASE = Math.floor(Date.now() / 1000 / DAY) * DAY - DAY;

let h: Harness;
let clusterId: string;
let producer: JsonProducer;
let row = 0;
const volumes = new Map<number, number>();

interface Sent {
  securityId: number;
  ltt: number;
  ltp: number;
  volume: number;
  receivedAt: number;
  header: Buffer;
}

function source(rowNumber: number): Buffer {
  const header = Buffer.alloc(SOURCE_BYTES);
  header.writeUInt32BE(7, 0);
  header.writeUInt16BE(1, 4);
  header.writeUInt32BE(1, 6);
  header.writeUInt32BE(rowNumber, 10);
  return header;
}

/** `count` trades, round robin over the instruments, receipt sometimes before trade-time order. */
function trades(count: number): Sent[] {
  const out: Sent[] = [];
  for (let i = 0; i < count; i++) {
    const securityId = IDS[i % IDS.length] as number;
    const n = row++;
    const volume = (volumes.get(securityId) ?? 0) + (n % 7) * 10;
    volumes.set(securityId, volume);
    const ltt = BASE + 3_600 + n * 13 - (n % 5 === 0 ? 90 : 0);
    out.push({
      securityId,
      ltt,
      ltp: Math.fround(100 + (n % 37) / 4),
      volume,
      receivedAt: (BASE + 3_600 + n * 13) * 1_000_000 + (n % 1_000),
      header: source(n),
    });
  }
  return out;
}

async function produce(list: readonly Sent[]): Promise<void> {
  await producer.send(
    topics.trades,
    list.map((t) => ({
      key: String(t.securityId),
      value: {
        type: 'trade',
        segment: 1,
        securityId: t.securityId,
        ltp: t.ltp,
        volume: t.volume,
        ltt: t.ltt,
        lut: t.ltt,
        receivedAt: t.receivedAt,
      },
      headers: { [SOURCE_HEADER]: t.header },
    })),
  );
}

/** What the sink does: each record of the topic (not yet stored, not a copy) as a row with its offset. */
async function sink(
  stored: Set<string>,
  keep: (partition: number, offset: number) => boolean,
): Promise<void> {
  const seen = new Set<string>();
  const values: string[] = [];
  for (const r of await readTopic({ brokers }, topics.trades)) {
    const id = `${r.partition}:${r.offset}`;
    const identity = (r.headers.get(SOURCE_HEADER) as Buffer).toString('hex');
    if (stored.has(id) || !keep(r.partition, r.offset)) {
      seen.add(identity);
      continue;
    }
    if (seen.has(identity)) continue;
    seen.add(identity);
    stored.add(id);
    const t = JSON.parse((r.value as Buffer).toString()) as Record<string, number>;
    values.push(
      `(${t.securityId}, 1, ${t.ltp}, ${t.volume}, ${t.ltt}, ${t.lut}, fromUnixTimestamp64Micro(${t.receivedAt}, 'UTC'), ${r.partition}, ${r.offset}, '${clusterId}')`,
    );
  }
  if (values.length === 0) return;
  const ticks = FEED_TABLES.ticks;
  const columns = ticks.columns.filter((c) => c !== 'quantity');
  await h.store.internal.command(
    `INSERT INTO ${ticks.name} (${columns.join(', ')}) VALUES ${values.join(',')}`,
  );
  // Each tick's quantity as the sink stores it.
  await fillTradeQuantities(h.store.internal);
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  const admin = new KafkaAdmin({ brokers });
  await admin.ensureTopics(Object.values(topics), { partitions: 2 });
  clusterId = await admin.clusterId();
  await admin.close();
  producer = new JsonProducer({ brokers });
  h = await startHarness({ topics, cache: { maxEntries: 0 } }, { kafkaBrokers: brokers }, false);
});

afterAll(async () => {
  await producer?.close();
  await h?.close();
});

describe('hot tier over Kafka', () => {
  it('loads up to the stored offsets, reads on from the next ones, and answers as ClickHouse does', async () => {
    const stored = new Set<string>();
    await produce(trades(300));
    // The sink is behind: the last records of each partition are in Kafka only.
    const ends = new Map<number, number>();
    for (const r of await readTopic({ brokers }, topics.trades))
      ends.set(r.partition, Math.max(ends.get(r.partition) ?? 0, r.offset));
    await sink(stored, (p, o) => o <= (ends.get(p) ?? 0) - 20);
    await h.api.start();
    const service = h.api.hotTier;
    expect(service).toBeDefined();
    await until('the tier is ready', () => service?.state === 'ready');
    const later = trades(200);
    // A copy of a record already sent (same source identity, a new offset): the sink drops it.
    await produce([...later, later[10] as Sent]);
    await sink(stored, () => true);
    await until('the tier holds every trade', () => service?.tier.stats().trades === 500);

    const runner = new QueryRunner(h.store.user, 30);
    const from = new Date(BASE * 1000).toISOString();
    const to = new Date((BASE + DAY) * 1000).toISOString();
    for (const id of IDS) {
      for (const interval of ['1m', '1s', '1h']) {
        const res = await h.api.app.inject({
          method: 'GET',
          url: `/v1/instruments/${id}/bars?from=${from}&to=${to}&interval=${interval}&format=csv`,
          headers: h.read,
        });
        expect(res.statusCode).toBe(200);
        const step = interval === '1m' ? 60 : interval === '1s' ? 1 : 3_600;
        const expected = await runner.buffer({
          sql: BARS_SQL,
          params: { sid: id, step, fromSec: BASE, toSec: BASE + DAY },
          format: 'csv',
        });
        expect(res.body).toBe(expected.body.toString());
      }
    }
    const metrics = await h.api.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/query_api_bars_answers_total\{tier="memory"\} 9/);
    expect(metrics.body).toMatch(/query_api_hot_tier_instruments 3/);
  });
});
