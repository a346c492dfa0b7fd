/**
 * Unit tier: a chunk of frames laid out as record batches, read back by @platformatic/kafka's own
 * batch decoder (not ours): every record in its topic kind and murmur2 partition, its JSON value,
 * the `fp-src` source identity of its packet and the `fp-schema` id of its topic kind, and the
 * batches' buffers reused after release.
 */
import { encodeFrame, FramePackBuilder, recordToJson } from '@feedpipe/codec';
import {
  FEED_SCHEMA_IDS,
  type FeedRecord,
  readSourceIdentity,
  SCHEMA_HEADER,
  SOURCE_BYTES,
  SOURCE_HEADER,
  TOPIC_KINDS,
  topicKindOf,
  writeSourceIdentity,
} from '@feedpipe/contracts';
import { partitionOf } from '@feedpipe/kafka-client';
import { Reader, readRecordsBatch } from '@platformatic/kafka';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkEncoder } from '../src/pipeline/chunk-encoder.js';

const SEGMENT = 14;

/** Frames of a few packets each, of every topic kind, over `instruments` security ids. */
function framesOf(instruments: number, frames: number): FeedRecord[][] {
  const out: FeedRecord[][] = [];
  for (let f = 0; f < frames; f++) {
    const securityId = 1000 + (f % instruments) * 7;
    const frame: FeedRecord[] = [
      {
        type: 'trade',
        segment: SEGMENT,
        securityId,
        ltp: 100 + f,
        volume: 10 * f,
        ltt: 1_700_000_000 + f,
        lut: 1_700_000_001 + f,
      },
      { type: 'ohlc', segment: SEGMENT, securityId, open: 1, close: 2, high: 3, low: 0.5 },
      { type: 'prev_close', segment: SEGMENT, securityId, prevClose: 99 },
    ];
    if (f % 5 === 0)
      frame.push({
        type: 'market_status',
        segment: SEGMENT,
        securityId: 0,
        marketType: [1, 2, 3],
        status: 5,
      });
    out.push(frame);
  }
  return out;
}

function packOf(frames: FeedRecord[][], receivedAt: number): Uint8Array {
  const pack = new FramePackBuilder(1024, 1 << 24);
  for (const frame of frames) expect(pack.append(encodeFrame(frame), receivedAt)).toBe(true);
  return pack.toBytes();
}

interface Decoded {
  partition: number;
  key: string;
  value: Record<string, unknown>;
  headers: Map<string, Buffer>;
}

/** The batches of one topic kind, decoded by the library's reader. */
function decode(encoder: ChunkEncoder, kind: number, partitions: number): Decoded[] {
  const out: Decoded[] = [];
  for (const [partition, builder] of encoder.recordSets(kind, partitions)) {
    const bytes = builder.encode({ producerId: 9n, producerEpoch: 1, baseSequence: 0 });
    const batch = readRecordsBatch(Reader.from(Buffer.from(bytes)));
    expect(batch.records).toHaveLength(builder.count);
    for (const r of batch.records) {
      const headers = new Map(r.headers.map(([k, v]) => [k?.toString() ?? '', v ?? Buffer.alloc(0)]));
      out.push({
        partition,
        key: r.key?.toString() ?? '',
        value: JSON.parse(r.value?.toString() ?? 'null') as Record<string, unknown>,
        headers,
      });
    }
  }
  return out;
}

describe('ChunkEncoder', () => {
  it('lays out every packet in its kind and partition with its JSON, source identity and schema id', () => {
    const frames = framesOf(40, 300);
    const receivedAt = 1_767_225_600_000_123;
    const encoder = new ChunkEncoder(packOf(frames, receivedAt), { run: 77, connection: 3, chunk: 12 });
    const { counters, rowsByKind } = encoder.count();
    const records = frames.flat();
    expect(counters.packets).toBe(records.length);
    const partitions = 6;
    const identities = new Set<string>();
    TOPIC_KINDS.forEach((kind, index) => {
      const expected = records.filter((r) => topicKindOf(r.type) === kind);
      expect(rowsByKind[index]).toBe(expected.length);
      const decoded = decode(encoder, index, partitions);
      expect(decoded).toHaveLength(expected.length);
      for (const r of decoded) {
        expect(r.headers.get(SCHEMA_HEADER)?.toString()).toBe(FEED_SCHEMA_IDS[kind]);
        const source = readSourceIdentity(r.headers.get(SOURCE_HEADER) ?? new Uint8Array(0));
        expect(source).toMatchObject({ run: 77, connection: 3, chunk: 12 });
        identities.add(JSON.stringify(source));
        expect(r.key).toBe(String(r.value.securityId));
        expect(r.partition).toBe(partitionOf(Buffer.from(r.key), partitions));
      }
      // The values are the codec's record JSON, in packet order within each partition. Without
      // bases, an instrument's first trade has its quantity unknown; each later one stepped 400
      // (40 instruments, volume 10 a frame).
      const seen = new Set<number>();
      const extraOf = (rec: FeedRecord): Record<string, number | null> => {
        if (rec.type !== 'trade') return { receivedAt };
        const quantity = seen.has(rec.securityId) ? 400 : null;
        seen.add(rec.securityId);
        return { receivedAt, quantity };
      };
      const withExtra = expected.map((rec) => [rec, extraOf(rec)] as const);
      const byPartition = (p: number) =>
        withExtra
          .filter(([rec]) => partitionOf(Buffer.from(String(rec.securityId)), partitions) === p)
          .map(([rec, extra]) => JSON.parse(recordToJson(rec, extra)) as unknown);
      for (let p = 0; p < partitions; p++)
        expect(decoded.filter((r) => r.partition === p).map((r) => r.value)).toEqual(byPartition(p));
    });
    // Rows are numbered over the whole chunk: no two records share a source identity.
    expect(identities.size).toBe(records.length);
  });

  it('lays out again for another partition count, and reuses released buffers', () => {
    const encoder = new ChunkEncoder(packOf(framesOf(10, 50), 1), { run: 1, connection: 0, chunk: 0 });
    const trades = TOPIC_KINDS.indexOf('trades');
    const onThree = encoder.recordSets(trades, 3);
    expect(encoder.recordSets(trades, 3)).toBe(onThree);
    const onFive = decode(encoder, trades, 5);
    expect(new Set(onFive.map((r) => r.partition)).size).toBeGreaterThan(3);
    const before = [...onThree.values()].map(
      (b) => b.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 0 }).buffer,
    );
    encoder.release();
    const again = new ChunkEncoder(packOf(framesOf(10, 50), 1), { run: 1, connection: 0, chunk: 1 });
    const after = [...again.recordSets(trades, 3).values()].map(
      (b) => b.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 0 }).buffer,
    );
    expect(after.some((b) => before.includes(b))).toBe(true);
    again.release();
  });
});

describe('repeat guard', () => {
  const trade = (securityId: number, volume: number, ltt: number): FeedRecord => ({
    type: 'trade',
    segment: SEGMENT,
    securityId,
    ltp: 50,
    volume,
    ltt,
    lut: ltt,
  });

  it("drops a trade equal to its instrument's previous one, keeps the rest, and reports the last trades", () => {
    const frames: FeedRecord[][] = [
      // Snapshots after a reconnect: 1 repeats its guarded trade, 2 traded since, 3 has no guard.
      [trade(1, 500, 1_700_000_010), trade(2, 700, 1_700_000_020), trade(3, 40, 1_700_000_030)],
      // Live trades, then 2's repeated again within the chunk (equal to its previous row).
      [trade(1, 501, 1_700_000_011), trade(2, 700, 1_700_000_020), trade(3, 41, 1_700_000_031)],
    ];
    const guard = Float64Array.from([1, 500, 1_700_000_010, 2, 650, 1_700_000_015]);
    const receivedAt = 1_767_225_600_000_000;
    const encoder = new ChunkEncoder(packOf(frames, receivedAt), { run: 5, connection: 1, chunk: 2 }, guard);
    const { rowsByKind, repeats, traded } = encoder.count();
    const trades = TOPIC_KINDS.indexOf('trades');
    expect(repeats).toBe(2);
    expect(rowsByKind[trades]).toBe(4);
    const kept = decode(encoder, trades, 1).map((r) => [r.value.securityId, r.value.volume]);
    expect(kept).toEqual([
      [2, 700],
      [3, 40],
      [1, 501],
      [3, 41],
    ]);
    // The last trade of each instrument, in order of first appearance, with its receive time.
    expect([...traded]).toEqual([
      2,
      700,
      1_700_000_020,
      receivedAt,
      3,
      41,
      1_700_000_031,
      receivedAt,
      1,
      501,
      1_700_000_011,
      receivedAt,
    ]);
  });

  it("drops every trade a handover's overlap delivered to both processes, and keeps a new day's first trades", () => {
    // The old leader produced 1's trades up to volume 530 and 2's up to 900 (yesterday's last).
    const guard = Float64Array.from([1, 530, 1_700_000_030, 2, 900, 1_700_000_090]);
    const frames = [
      // The successor's connection opened during the overlap: 1's snapshot and its trades 510-530,
      // already produced by the old leader, then 531 and 545, new.
      [trade(1, 520, 1_700_000_020), trade(1, 510, 1_700_000_010), trade(1, 530, 1_700_000_030)],
      [trade(1, 531, 1_700_000_031), trade(1, 545, 1_700_000_040)],
      // 2 trades on a new day: its cumulative volume started again, its trade time is later.
      [trade(2, 15, 1_700_086_400)],
    ];
    const encoder = new ChunkEncoder(packOf(frames, 1), { run: 6, connection: 0, chunk: 0 }, guard);
    expect(encoder.count().repeats).toBe(3);
    const kept = decode(encoder, TOPIC_KINDS.indexOf('trades'), 1).map((r) => [
      r.value.securityId,
      r.value.volume,
    ]);
    expect(kept).toEqual([
      [1, 531],
      [1, 545],
      [2, 15],
    ]);
  });

  it('without a guard drops only a repeat within the chunk: every distinct trade is produced', () => {
    const frames = [
      [trade(1, 500, 1_700_000_010), trade(2, 500, 1_700_000_010)],
      [trade(1, 500, 1_700_000_010), trade(1, 500, 1_700_000_011), trade(1, 501, 1_700_000_011)],
    ];
    const encoder = new ChunkEncoder(packOf(frames, 1), { run: 5, connection: 1, chunk: 3 });
    expect(encoder.count().repeats).toBe(1);
    const kept = decode(encoder, TOPIC_KINDS.indexOf('trades'), 1).map((r) => [
      r.value.securityId,
      r.value.volume,
      r.value.ltt,
    ]);
    expect(kept).toEqual([
      [1, 500, 1_700_000_010],
      [2, 500, 1_700_000_010],
      [1, 500, 1_700_000_011],
      [1, 501, 1_700_000_011],
    ]);
  });
});

describe('source identity', () => {
  it('reads back what was written, and refuses a value of another length', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 0, max: 65_535 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        (run, connection, chunk, row) => {
          const bytes = new Uint8Array(SOURCE_BYTES);
          writeSourceIdentity(new DataView(bytes.buffer), { run, connection, chunk, row });
          expect(readSourceIdentity(bytes)).toEqual({ run, connection, chunk, row });
        },
      ),
    );
    expect(readSourceIdentity(new Uint8Array(SOURCE_BYTES + 1))).toBeUndefined();
  });
});
