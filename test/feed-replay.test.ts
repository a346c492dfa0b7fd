/**
 * `feed-ingestor replay` from outside (issue #33 item 5), against the real broker, a real sink and
 * its embedded store:
 * - the command replays a capture into topics of its own at 10x: the recorded pace divided by
 *   ten, progress on stderr, the result on stdout, nothing in the live topics, nothing stored;
 * - it refuses the live topics unless --into-live is given;
 * - into the live topics twice, the sink stores every record once: the second replay's records
 *   carry the identities of the first, and the sink's marks drop them as copies;
 * - from the store, a range comes back as the records the ingestor produced from those rows;
 * - from a copy of a live ingestor's write-ahead log, into the live topics, nothing is stored twice
 *   even the first time: the segments keep the live run's source identities (the same segments
 *   replayed as a plain capture are stored again, which shows the check can fail).
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { CaptureWriter, encodeFrame, type FeedRecord, recordToJson } from '@feedpipe/codec';
import {
  FEED_TABLES,
  type FeedTopics,
  isSourceCopy,
  prefixedTopics,
  readSourceIdentity,
  SOURCE_HEADER,
  type SourceMark,
  TOPIC_KINDS,
} from '@feedpipe/contracts';
import { createFeedIngestor, type ReplayRunResult, runReplay } from '@feedpipe/feed-ingestor';
import { createSink, type Sink } from '@feedpipe/feed-sink';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newSourceCounts } from '../services/feed-ingestor/src/replay/replay-record.js';
import { storeGroups } from '../services/feed-ingestor/src/replay/replay-store-source.js';
import { inxIds, SIM_CLIENT } from '../services/feed-ingestor/test/fixtures/feed-fixtures.js';
import { type CommandRun, runNode } from './support/run-command.js';

const brokers = inject('kafkaBrokers');
const BIN = join(import.meta.dirname, '..', 'services', 'feed-ingestor', 'bin', 'feed-ingestor.mjs');

/** 21 frames a tenth of a second apart: 2 s recorded, 0.2 s at 10x. */
const FRAMES = 21;
const FRAME_GAP_MICROS = 100_000;
const SPAN_MICROS = (FRAMES - 1) * FRAME_GAP_MICROS;
/** An hour ago, on a whole second: inside every retention, outside any other test's data. */
const T0 = (Math.floor(Date.now() / 1000) - 3600) * 1_000_000;

function frameRecords(i: number): FeedRecord[] {
  const records: FeedRecord[] = [];
  if (i === 0) {
    records.push(
      { type: 'market_status', segment: 0, securityId: 0, marketType: [1, 0, 0], status: 2 },
      { type: 'prev_close', segment: 1, securityId: 9101, prevClose: 99.95 },
      { type: 'circuit_limit', segment: 1, securityId: 9101, upper: 109.9, lower: 89.9 },
    );
  }
  for (let id = 9101; id <= 9105; id++) {
    const ltt = Math.floor(T0 / 1_000_000) + i;
    records.push({
      type: 'trade',
      segment: 1,
      securityId: id,
      ltp: 100.05 + i / 20,
      volume: 100 + i,
      ltt,
      lut: ltt,
    });
  }
  records.push({
    type: 'ohlc',
    segment: 1,
    securityId: 9101,
    open: 100.05,
    close: 100.1 + i,
    high: 130.3,
    low: 99.7,
  });
  return records;
}

const TRADES = FRAMES * 5;
const ALL_RECORDS = FRAMES * 6 + 3;

let store: Store;
let sink: Sink;
let live: FeedTopics;
let capture: string;

beforeAll(async () => {
  capture = join(tempDir('feed-replay'), 'feed.cap');
  const writer = await CaptureWriter.open(capture);
  for (let i = 0; i < FRAMES; i++) writer.write(encodeFrame(frameRecords(i)), T0 + i * FRAME_GAP_MICROS);
  await writer.close();
  store = createStore({ dataDir: tempDir('feed-replay-store') });
  await runMigrations(store.internal);
  live = prefixedTopics(uniqueName('replay-live'));
  await KafkaAdmin.ensureTopicsOnce(brokers, Object.values(live), { partitions: 3 });
  sink = createSink(
    { brokers, groupId: uniqueName('replay-sink'), topics: live, maxBatchAgeMs: 100 },
    { store },
  );
  await sink.start();
});

afterAll(async () => {
  await sink?.stop();
  await store?.close();
});

async function count(sql: string): Promise<number> {
  const [row] = await store.internal.rows<{ n: number | string }>(sql);
  return Number(row?.n);
}

async function liveRecordCount(): Promise<number> {
  const admin = new KafkaAdmin({ brokers, clientId: 'replay-test' });
  try {
    let n = 0;
    for (const kind of TOPIC_KINDS)
      for (const p of await admin.topicOffsets(live[kind])) n += Number(p.high - p.low);
    return n;
  } finally {
    await admin.close();
  }
}

function replayCli(args: string[]): Promise<CommandRun> {
  return runNode([BIN, 'replay', ...args], {
    KAFKA_BROKERS: brokers.join(','),
    TOPIC_TRADES: live.trades,
    TOPIC_OHLC: live.ohlc,
    TOPIC_REFERENCE: live.reference,
    TOPIC_STATUS: live.status,
  });
}

/**
 * A topic's values by key, as comparable text, read as any consumer of a replay topic may: a send
 * Kafka failed and the replay tried again can leave a record there twice under one identity
 * (ReplayRunResult.sendRetries), which the copy rule of the `fp-src` header drops, as the sink does.
 */
async function valuesOf(topic: string): Promise<string[]> {
  const marks = new Map<number, Map<number, SourceMark>>();
  const out: string[] = [];
  for (const r of await readTopic(brokers, topic)) {
    let partition = marks.get(r.partition);
    if (!partition) {
      partition = new Map();
      marks.set(r.partition, partition);
    }
    if (!isSourceCopy(partition, r.headers[SOURCE_HEADER])) out.push(`${r.key} ${JSON.stringify(r.value)}`);
  }
  return out.sort();
}

/** What the ingestor writes for the capture's records of one topic kind. */
function expectedValues(kind: 'trades' | 'ohlc'): string[] {
  const type = kind === 'trades' ? 'trade' : 'ohlc';
  const out: string[] = [];
  for (let i = 0; i < FRAMES; i++) {
    for (const record of frameRecords(i).filter((r) => r.type === type)) {
      const json = JSON.parse(recordToJson(record, { receivedAt: T0 + i * FRAME_GAP_MICROS })) as unknown;
      out.push(`${record.securityId} ${JSON.stringify(json)}`);
    }
  }
  return out.sort();
}

describe('feed-ingestor replay into a scratch topic', () => {
  it('replays at 10x into topics of its own: progress on stderr, nothing in the live topics, nothing stored', async () => {
    const prefix = `${uniqueName('scratch')}.`;
    const run = await replayCli([capture, '--speed', '10x', '--topic-prefix', prefix]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as ReplayRunResult;
    expect(result.topics.trades).toBe(`${prefix}${live.trades}`);
    expect(result.produced).toBe(ALL_RECORDS);
    expect(result.producedByKind).toEqual({ trades: TRADES, ohlc: FRAMES, reference: 2, status: 1 });
    // Paced: the recorded 2 s at 10x take at least 0.2 s (a lower bound only, never a speed goal).
    expect(result.seconds).toBeGreaterThanOrEqual((SPAN_MICROS / 1e6 / 10) * 0.9);
    expect(run.stderr).toMatch(
      new RegExp(`replay: ${ALL_RECORDS} records in [\\d.]+ s \\(\\d+/s\\), at \\S+Z \\(done\\)`),
    );
    expect(await valuesOf(result.topics.trades)).toEqual(expectedValues('trades'));
    expect(await valuesOf(result.topics.ohlc)).toEqual(expectedValues('ohlc'));
    const identities = (await readTopic(brokers, result.topics.trades)).map((r) =>
      readSourceIdentity(r.headers[SOURCE_HEADER] ?? Buffer.alloc(0)),
    );
    expect(identities.every((i) => i?.connection === 0xfffe)).toBe(true);
    expect(await liveRecordCount()).toBe(0);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`)).toBe(0);
  });

  it('sends what a capture cut off inside a record gave before it, then says where it ends', async () => {
    const cut = join(tempDir('feed-replay-cut'), 'cut.cap');
    const bytes = readFileSync(capture);
    writeFileSync(cut, bytes.subarray(0, bytes.byteLength - 5));
    const prefix = `${uniqueName('cut')}.`;
    await expect(
      runReplay({ source: { kind: 'capture', file: cut }, brokers, liveTopics: live, topicPrefix: prefix }),
    ).rejects.toMatchObject({ code: 'INVALID_CAPTURE', message: expect.stringContaining('truncated') });
    // Every frame but the cut last one is in Kafka: all the trades but its 5.
    const trades = await valuesOf(`${prefix}${live.trades}`);
    expect(trades).toHaveLength(TRADES - 5);
  });

  it('refuses the live topics unless --into-live is given', async () => {
    const run = await replayCli([capture, '--topic-prefix', '']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--into-live');
    expect(await liveRecordCount()).toBe(0);
    const both = await replayCli([capture, '--into-live', '--topic-prefix', 'x.']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('not both');
  });
});

describe('feed-ingestor replay into the live topics', () => {
  it('stores every record once when the same capture is replayed again: the sink takes the second for copies', async () => {
    const first = await runReplay({
      source: { kind: 'capture', file: capture },
      brokers,
      liveTopics: live,
      intoLive: true,
    });
    expect(first.produced).toBe(ALL_RECORDS);
    const ticks = () => count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`);
    await waitFor(async () => (await ticks()) === TRADES, 60_000, 'the first replay stored');
    const copiesBefore = sink.stats().copiesDropped;
    // Again, from the middle on (a resumed replay), then whole.
    const again = await runReplay({
      source: { kind: 'capture', file: capture },
      brokers,
      liveTopics: live,
      intoLive: true,
      range: { fromMicros: T0 + 10 * FRAME_GAP_MICROS, toMicros: undefined },
    });
    const whole = await runReplay({
      source: { kind: 'capture', file: capture },
      brokers,
      liveTopics: live,
      intoLive: true,
    });
    const repeated = again.produced + whole.produced;
    await waitFor(
      async () => sink.stats().copiesDropped - copiesBefore === repeated,
      60_000,
      'the repeated records dropped as copies',
    );
    expect(await ticks()).toBe(TRADES);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.ohlcUpdates.name}`)).toBe(FRAMES);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.referenceUpdates.name}`)).toBe(2);
    expect(await count(`SELECT count() AS n FROM ${FEED_TABLES.feedStatus.name}`)).toBe(1);
  });
});

describe('feed-ingestor replay from the store', () => {
  it('reads a stored range back as the records the ingestor produced, into topics of its own', async () => {
    // The rows the previous test stored (the sink holds each once).
    await waitFor(
      async () => (await count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`)) === TRADES,
      60_000,
      'ticks stored',
    );
    const prefix = `${uniqueName('from-store')}.`;
    const range = { fromMicros: T0, toMicros: T0 + SPAN_MICROS + 1 };
    const result = await runReplay({
      source: { kind: 'store', store: store.internal },
      brokers,
      liveTopics: live,
      topicPrefix: prefix,
      range,
      speed: { factor: 10 },
    });
    expect(result.produced).toBe(ALL_RECORDS);
    expect(result.first).toBe(new Date(T0 / 1000).toISOString());
    expect(await valuesOf(result.topics.trades)).toEqual(expectedValues('trades'));
    expect(await valuesOf(result.topics.ohlc)).toEqual(expectedValues('ohlc'));
    const reference = await readTopic(brokers, result.topics.reference);
    expect(reference.map((r) => r.value.type).sort()).toEqual(['circuit_limit', 'prev_close']);
    // A second read of a part of the range gives those records the identities of the first.
    const identitiesOf = async (topic: string) =>
      new Map(
        (await readTopic(brokers, topic)).map((r) => [
          `${r.key} ${JSON.stringify(r.value)}`,
          r.headers[SOURCE_HEADER]?.toString('hex'),
        ]),
      );
    const part = await runReplay({
      source: { kind: 'store', store: store.internal },
      brokers,
      liveTopics: live,
      topicPrefix: `${uniqueName('from-store-part')}.`,
      range: { fromMicros: T0 + 5 * FRAME_GAP_MICROS, toMicros: T0 + 9 * FRAME_GAP_MICROS },
    });
    expect(part.producedByKind.trades).toBe(4 * 5);
    const whole = await identitiesOf(result.topics.trades);
    for (const [value, identity] of await identitiesOf(part.topics.trades))
      expect(identity).toBe(whole.get(value));
  });

  it('reads the same groups and identities whatever the page size (a microsecond split across pages)', async () => {
    const range = { fromMicros: T0, toMicros: T0 + SPAN_MICROS + 1 };
    const read = async (pageRows?: number) => {
      const out: string[] = [];
      const counts = newSourceCounts();
      for await (const group of storeGroups({ store: store.internal, range, pageRows }, counts))
        for (const { record, identity } of group.records)
          out.push(`${group.receivedAtMicros} ${JSON.stringify(identity)} ${JSON.stringify(record)}`);
      return out;
    };
    const whole = await read();
    expect(whole).toHaveLength(ALL_RECORDS);
    // Frame 0's 9 records share a microsecond: pages of 7 split it, and their places still count on.
    expect(await read(7)).toEqual(whole);
  });

  it('refuses to write stored rows into the live topics, and needs a range', async () => {
    const source = { kind: 'store', store: store.internal } as const;
    const range = { fromMicros: T0, toMicros: T0 + 1 };
    await expect(
      runReplay({ source, brokers, liveTopics: live, intoLive: true, range }),
    ).rejects.toMatchObject({
      code: 'REPLAY_LIVE_TOPICS',
    });
    await expect(runReplay({ source, brokers, liveTopics: live })).rejects.toMatchObject({
      code: 'REPLAY_INVALID',
    });
  });
});

describe('feed-ingestor replay from write-ahead log segments', () => {
  it('into the live topics stores nothing twice, even the first time: the segments keep the live identities', async () => {
    const model = new MarketModel({ seed: 33, instruments: 300 });
    const feed = await startFeedServer({
      model,
      port: 0,
      load: { packetsPerSecond: 2_000, tickIntervalMs: 5 },
    });
    // The live topics and their sink (one store per process: a second sink of the same tables would
    // mistake the other topics' offsets for its own); only this case's instruments are counted.
    const topics = live;
    const ids = inxIds(model, 100);
    const walDir = join(tempDir('feed-replay-wal'), 'wal');
    const archive = tempDir('feed-replay-wal-archive');
    const ingestor = createFeedIngestor(
      {
        feedUrl: feed.url,
        brokers,
        topics,
        partitions: 3,
        connections: 2,
        workers: 1,
        instruments: { trade: ids },
        wal: { dir: walDir },
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    const ticks = (): Promise<number> =>
      count(`SELECT count() AS n FROM ${FEED_TABLES.ticks.name} WHERE security_id IN (${ids.join(',')})`);
    try {
      await ingestor.start();
      await waitFor(() => ingestor.stats().producedTrades > 2_000, 60_000, 'live trades produced');
      // The log as it stands, copied aside as an operator archives it: a clean stop deletes it.
      for (const file of readdirSync(walDir)) copyFileSync(join(walDir, file), join(archive, file));
      await ingestor.stop();
      await feed.close();
      // The live trades topic also holds the capture cases' trades (instruments of their own).
      const inKafka = (await readTopic(brokers, topics.trades)).filter((r) =>
        ids.includes(String(r.key)),
      ).length;
      await waitFor(async () => (await ticks()) === inKafka, 60_000, 'the live trades stored');

      const copiesBefore = sink.stats().copiesDropped;
      const replay = await runReplay({
        source: { kind: 'wal', dir: archive },
        brokers,
        liveTopics: topics,
        intoLive: true,
      });
      expect(replay.producedByKind.trades).toBeGreaterThan(0);
      await waitFor(
        async () => sink.stats().copiesDropped - copiesBefore === replay.produced,
        60_000,
        'every replayed record dropped as a copy of the live one',
      );
      expect(await ticks()).toBe(inKafka);
      // The live run's identities: its own run and connections, not a replay's (0xfffe, 0xffff).
      const identities = (await readTopic(brokers, topics.trades))
        .filter((r) => ids.includes(String(r.key)))
        .map((r) => readSourceIdentity(r.headers[SOURCE_HEADER] ?? Buffer.alloc(0)));
      expect(identities.every((i) => i !== undefined && i.connection < 2)).toBe(true);

      // The same segments as plain captures lose those identities: stored a second time.
      const segment = readdirSync(archive).find((f) => f.endsWith('.cap')) ?? '';
      const asCapture = await runReplay({
        source: { kind: 'capture', file: join(archive, segment) },
        brokers,
        liveTopics: topics,
        intoLive: true,
      });
      expect(asCapture.producedByKind.trades).toBeGreaterThan(0);
      await waitFor(
        async () => (await ticks()) === inKafka + asCapture.producedByKind.trades,
        60_000,
        'a capture replay stored again',
      );
    } finally {
      await ingestor.stop().catch(() => undefined);
      await feed.close().catch(() => undefined);
    }
  }, 180_000);
});
