/**
 * The receiver's write-ahead log, body guard and pipeline without Kafka or ClickHouse: records
 * survive a reopen, a torn tail is cut off, concurrent appends share a sync, limits answer
 * POSTBACK_BUSY, a vanished directory answers POSTBACK_WAL_FAILED, and the pipeline stores each
 * record once, dead-letters a poisoned one and goes on with the rest.
 */
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';
import { jsonDepth } from '../src/postbacks/body-guard.js';
import { toOrderEvent } from '../src/postbacks/order-event.js';
import {
  type DeadLetter,
  type EventSinks,
  OrderEventPipeline,
  type PreparedEvent,
} from '../src/postbacks/pipeline.js';
import { SeenKeys } from '../src/postbacks/seen-keys.js';
import { WriteAheadLog } from '../src/postbacks/wal.js';
import { decodeSegment, encodeRecord } from '../src/postbacks/wal-record.js';

const LIMITS = { maxEntries: 1_000, maxBytes: 1024 * 1024, segmentBytes: 64 * 1024, maxBodyBytes: 64 * 1024 };

const body = (orderId: string, status = 'TRANSIT', filledQty = 0) =>
  JSON.stringify({
    orderId,
    orderStatus: status,
    quantity: 10,
    filledQty,
    price: 100,
    updateTime: '2024-06-03 10:30:00',
  });

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('write-ahead log', () => {
  it('hands back every synced record after a reopen, in order, and cuts a torn tail off', async () => {
    const dir = tempDir('wal-reopen');
    const { wal, pending } = await WriteAheadLog.open({ dir, ...LIMITS });
    expect(pending).toEqual([]);
    // Concurrent appends: one write and one sync per round, not per record.
    const records = await Promise.all(
      Array.from({ length: 50 }, (_, i) => wal.append('postback', 1_717_390_800_000 + i, body(`W${i}`))),
    );
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const stats = wal.stats();
    expect(stats.appended).toBe(50);
    expect(stats.syncs).toBeLessThan(50);
    expect(stats.entries).toBe(50);
    await wal.close();

    // A crash in the middle of a write: half a record at the end of the segment.
    const [segment] = readdirSync(dir).filter((n) => n.endsWith('.log'));
    const half = encodeRecord(51, 1, 'postback', body('TORN')).subarray(0, 30);
    appendFileSync(join(dir, segment as string), half);

    const again = await WriteAheadLog.open({ dir, ...LIMITS });
    expect(again.pending.map((r) => JSON.parse(r.body).orderId)).toEqual(records.map((_, i) => `W${i}`));
    expect(again.pending[3]?.receivedAtMs).toBe(1_717_390_800_003);
    expect(again.wal.stats().tornTails).toBe(1);
    // New records go to a new segment with higher numbers, never after the torn bytes.
    const next = await again.wal.append('reconcile', 5, body('AFTER'));
    expect(next.seq).toBe(51);
    expect(readdirSync(dir).filter((n) => n.endsWith('.log'))).toHaveLength(2);
    await again.wal.close();
  });

  it('replays only what is not stored and deletes segments once everything in them is stored', async () => {
    const dir = tempDir('wal-stored');
    const small = { ...LIMITS, segmentBytes: 200 };
    const { wal } = await WriteAheadLog.open({ dir, ...small });
    const written = [];
    for (let i = 0; i < 6; i++) written.push(await wal.append('postback', i, body(`S${i}`)));
    expect(readdirSync(dir).filter((n) => n.endsWith('.log')).length).toBeGreaterThan(2);
    const first4 = written.slice(0, 4);
    wal.markStored(
      4,
      4,
      first4.reduce((n, r) => n + r.bytes, 0),
    );
    await wal.close();
    const { wal: reopened, pending } = await WriteAheadLog.open({ dir, ...small });
    expect(pending.map((r) => r.seq)).toEqual([5, 6]);
    expect(reopened.stats()).toMatchObject({ entries: 2, storedThrough: 4 });
    // Every segment left holds a record not yet stored.
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.log'))) {
      const seqs = decodeSegment(readFileSync(join(dir, name)), LIMITS.maxBodyBytes).records.map(
        (r) => r.seq,
      );
      expect(seqs.some((s) => s > 4)).toBe(true);
    }
    await reopened.close();
  });

  it('refuses with POSTBACK_BUSY past its limits and gives the room back once stored', async () => {
    const dir = tempDir('wal-full');
    const { wal } = await WriteAheadLog.open({ dir, ...LIMITS, maxEntries: 3 });
    const ok = await Promise.all([1, 2, 3].map((i) => wal.append('postback', i, body(`F${i}`))));
    await expect(wal.append('postback', 4, body('F4'))).rejects.toMatchObject({
      code: 'POSTBACK_BUSY',
      status: 503,
    });
    wal.markStored(
      3,
      3,
      ok.reduce((n, r) => n + r.bytes, 0),
    );
    await expect(wal.append('postback', 5, body('F5'))).resolves.toMatchObject({ seq: 4 });
    expect(wal.stats().full).toBe(1);
    await wal.close();
  });

  it('answers POSTBACK_WAL_FAILED when the disk refuses, and recovers when it is back', async () => {
    const dir = tempDir('wal-disk');
    // Every round starts a new segment, so every round creates a file in the directory.
    const { wal } = await WriteAheadLog.open({ dir, ...LIMITS, segmentBytes: 1 });
    await wal.append('postback', 1, body('D1'));
    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, 'not a directory');
    await expect(wal.append('postback', 2, body('D2'))).rejects.toMatchObject({
      code: 'POSTBACK_WAL_FAILED',
      status: 503,
    });
    expect(wal.stats()).toMatchObject({ failures: 1, entries: 1 });
    rmSync(dir, { force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    await expect(wal.append('postback', 3, body('D3'))).resolves.toMatchObject({ body: body('D3') });
    await wal.close();
  });
});

describe('body guard', () => {
  it('measures nesting on the text without recursion, ignoring brackets inside strings', () => {
    expect(jsonDepth('{"a":1}')).toBe(1);
    expect(jsonDepth('{"a":[{"b":"[[[{{{"}]}')).toBe(3);
    expect(jsonDepth('{"a":"\\"[[["}')).toBe(1);
    expect(jsonDepth(nested(10_000))).toBe(10_000);
    expect(jsonDepth(nested(10_000), 32)).toBe(33);
  });
});

/** Sinks in memory; `refuse` makes ClickHouse refuse any batch holding that order id. */
function memorySinks(options: { refuse?: string; storeDown?: () => boolean } = {}) {
  const rows = new Map<string, number>();
  const kafka: string[] = [];
  const dead: DeadLetter[] = [];
  const sinks: EventSinks = {
    prepare: (event, seq) => {
      const wire = JSON.stringify({ key: event.eventKey, seq, payload: event.payload });
      return { event, seq, wire, row: [event.eventKey] };
    },
    kafka: async (events) => {
      if (options.storeDown?.()) throw new Error('broker unreachable');
      kafka.push(...events.map((e) => e.event.orderId));
    },
    storedKeys: async (events) => {
      if (options.storeDown?.()) throw new Error('store unreachable');
      return new Set(events.map((e) => e.event.eventKey).filter((k) => rows.has(k)));
    },
    clickhouse: async (events: readonly PreparedEvent[]) => {
      if (options.storeDown?.()) throw new Error('store unreachable');
      if (events.some((e) => e.event.orderId === options.refuse)) throw new Error('Cannot parse input');
      for (const e of events) rows.set(e.event.eventKey, (rows.get(e.event.eventKey) ?? 0) + 1);
    },
    deadLetters: async (letters) => {
      dead.push(...letters);
    },
    probe: async () => !options.storeDown?.(),
    published: () => undefined,
  };
  return { sinks, rows, kafka, dead };
}

async function pipelineOn(dir: string, sinks: EventSinks, seen = new SeenKeys(1000)) {
  const { wal, pending } = await WriteAheadLog.open({ dir, ...LIMITS });
  const pipeline = new OrderEventPipeline(
    { batchSize: 8, flushIntervalMs: 1, retryMaxMs: 20 },
    seen,
    wal,
    sinks,
  );
  pipeline.restore(pending);
  return pipeline;
}

const accept = (p: OrderEventPipeline, text: string) =>
  p.accept(toOrderEvent(JSON.parse(text) as Record<string, unknown>, 'postback', Date.now()), text);

describe('pipeline', () => {
  it('dead-letters the one record ClickHouse keeps refusing and stores every other one once', async () => {
    const mem = memorySinks({ refuse: 'BAD' });
    const pipeline = await pipelineOn(tempDir('pipe-poison'), mem.sinks);
    const texts = [
      body('A1'),
      body('A2'),
      body('BAD'),
      ...Array.from({ length: 12 }, (_, i) => body(`N${i}`)),
    ];
    const results = await Promise.all(texts.map((t) => accept(pipeline, t)));
    expect(results.every((r) => r === 'accepted')).toBe(true);
    await pipeline.flush(60_000);
    expect(mem.dead.map((d) => [d.stage, JSON.parse(d.body).orderId])).toEqual([['store', 'BAD']]);
    expect(mem.dead[0]?.reason).toMatch(/Cannot parse input/);
    expect(mem.rows.size).toBe(texts.length - 1);
    expect([...mem.rows.values()].every((n) => n === 1)).toBe(true);
    expect(pipeline.stats()).toMatchObject({ deadLetters: 1, persisted: texts.length - 1, queued: 0 });
    expect(pipeline.stats().wal.entries).toBe(0);
    await pipeline.close();
  });

  it('keeps retrying while the store is down (nothing dead-lettered) and stores everything once it is back', async () => {
    let down = true;
    const mem = memorySinks({ storeDown: () => down });
    const pipeline = await pipelineOn(tempDir('pipe-down'), mem.sinks);
    const texts = Array.from({ length: 5 }, (_, i) => body(`O${i}`));
    for (const t of texts) expect(await accept(pipeline, t)).toBe('accepted');
    // Acknowledged while nothing downstream works: the records are in the log.
    expect(pipeline.stats().wal.entries).toBe(5);
    const failuresBefore = pipeline.stats().persistErrors;
    await expect(pipeline.flush(1_500)).rejects.toMatchObject({ code: 'POSTBACK_PERSIST_FAILED' });
    expect(pipeline.stats().persistErrors).toBeGreaterThan(failuresBefore);
    down = false;
    await pipeline.flush(60_000);
    expect(mem.dead).toEqual([]);
    expect(mem.rows.size).toBe(5);
    await pipeline.close();
  });

  it('after a restart, replays the log and adds no row the table already has', async () => {
    const dir = tempDir('pipe-replay');
    const mem = memorySinks();
    const first = await pipelineOn(dir, mem.sinks);
    for (let i = 0; i < 4; i++) await accept(first, body(`R${i}`));
    await first.flush();
    await first.close();
    expect(mem.rows.size).toBe(4);
    // A crash after the insert and before the checkpoint: the log still holds all four.
    rmSync(join(dir, 'checkpoint.json'), { force: true });
    const second = await pipelineOn(dir, mem.sinks);
    expect(second.stats().replayed).toBe(4);
    await second.flush();
    expect(second.stats()).toMatchObject({ alreadyStored: 4, persisted: 0 });
    expect([...mem.rows.values()]).toEqual([1, 1, 1, 1]);
    // The duplicate check knows them again: a resend is a duplicate, not a new record.
    expect(await accept(second, body('R2'))).toBe('duplicate');
    await second.close();
  });

  it('dead-letters a logged body that cannot be serialised (10,000 levels) and stores the next ones', async () => {
    const dir = tempDir('pipe-deep');
    // Written by a receiver without the depth limit (the version this replaces accepted it).
    const { wal } = await WriteAheadLog.open({ dir, ...LIMITS });
    const poisoned = JSON.stringify({ ...JSON.parse(body('DEEP')), extra: 0 }).replace(
      '0}',
      `${nested(10_000)}}`,
    );
    await wal.append('postback', 1, poisoned);
    for (let i = 0; i < 3; i++) await wal.append('postback', 2, body(`AFTER${i}`));
    await wal.close();
    const mem = memorySinks();
    const pipeline = await pipelineOn(dir, mem.sinks);
    await pipeline.flush(30_000);
    expect(mem.dead).toHaveLength(1);
    expect(mem.dead[0]).toMatchObject({ stage: 'serialize', body: poisoned });
    expect(mem.dead[0]?.reason).toMatch(/call stack/);
    expect(mem.kafka).toEqual(['AFTER0', 'AFTER1', 'AFTER2']);
    expect(mem.rows.size).toBe(3);
    await pipeline.close();
  });
});
