/**
 * Fills the hot tier from ClickHouse up to the sink's stored offsets, so the feed can go on from
 * exactly the next offset of each partition: no trade missed, none counted twice.
 *
 * Where the sink keeps its offsets: every market.ticks row carries its Kafka cluster, partition and
 * offset, and the sink's exactly-once mark of a partition is the highest stored offset of this
 * cluster (services/feed-sink/src/stored-offsets.ts). The sink inserts each partition's records
 * in offset order, so every trade at or below the mark is stored. The marks are read first; the
 * trades are then read bounded by them, so rows the sink inserts meanwhile are left to the feed.
 * Rows of other clusters (a recreated Kafka) are in ClickHouse and in BARS_SQL's answers, so they
 * are loaded whole.
 *
 * Instruments are read a chunk at a time (ids in order, the cap applied in that order), so the
 * engine's result (held whole on embedded chDB) stays a few MB.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import { HotTierError } from './errors.js';
import type { HotTier } from './hot-tier.js';

/** Instruments per load statement: ~2 days x 2,000 trades x 36 bytes each, ~30 MB at most. */
const INSTRUMENTS_PER_CHUNK = 200;
/** RowBinary bytes of one loaded trade: sid u32, ltt u32, ltp f32, volume i32, µs i64, offset u64. */
const ROW_BYTES = 32;

const MARKS_SQL = `SELECT kafka_partition AS p, toString(max(kafka_offset)) AS o FROM ${FEED_TABLES.ticks.name}
WHERE kafka_cluster = {cluster:String} GROUP BY kafka_partition ORDER BY kafka_partition`;

const IDS_SQL = `SELECT security_id AS id FROM ${FEED_TABLES.ticks.name}
WHERE ltt >= toDateTime({start:UInt32}, 'UTC') GROUP BY security_id ORDER BY security_id`;

const TRADES_SQL = `SELECT security_id, toUInt32(ltt), ltp, volume, toUnixTimestamp64Micro(received_at), kafka_offset
FROM ${FEED_TABLES.ticks.name}
WHERE security_id IN {ids:Array(UInt32)} AND ltt >= toDateTime({start:UInt32}, 'UTC')
  AND (kafka_cluster != {cluster:String}
       OR (indexOf({parts:Array(UInt16)}, kafka_partition) > 0
           AND kafka_offset <= arrayElement({marks:Array(UInt64)}, indexOf({parts:Array(UInt16)}, kafka_partition))))
ORDER BY security_id, received_at, kafka_offset`;

export interface LoadResult {
  /** Highest stored offset per partition of the trades topic (this cluster). */
  marks: Map<number, number>;
  trades: number;
}

export async function loadHotTier(lane: StoreLane, tier: HotTier, clusterId: string): Promise<LoadResult> {
  try {
    const markRows = await lane.rows<{ p: number; o: string }>(MARKS_SQL, { cluster: clusterId });
    const marks = new Map(markRows.map((r) => [Number(r.p), Number(r.o)]));
    const idRows = await lane.rows<{ id: number }>(IDS_SQL, { start: tier.windowStartSec });
    const ids = idRows.map((r) => Number(r.id)).filter((id) => tier.admit(id));
    const parts = [...marks.keys()];
    const offsets = parts.map((p) => marks.get(p) as number);
    let trades = 0;
    for (let i = 0; i < ids.length; i += INSTRUMENTS_PER_CHUNK) {
      const body = await whole(
        await lane.stream(
          TRADES_SQL,
          {
            ids: ids.slice(i, i + INSTRUMENTS_PER_CHUNK),
            start: tier.windowStartSec,
            cluster: clusterId,
            parts,
            marks: offsets,
          },
          'RowBinary',
        ),
      );
      trades += addRows(tier, body);
    }
    return { marks, trades };
  } catch (error) {
    if (error instanceof HotTierError) throw error;
    throw new HotTierError(
      'LOAD_FAILED',
      `hot tier: loading the window from ClickHouse failed: ${String(error)}`,
      {
        cause: error,
        retryable: true,
      },
    );
  }
}

function addRows(tier: HotTier, body: Buffer): number {
  if (body.length % ROW_BYTES !== 0)
    throw new HotTierError('LOAD_FAILED', 'hot tier: a loaded row is cut short');
  for (let at = 0; at < body.length; at += ROW_BYTES) {
    tier.add(
      body.readUInt32LE(at),
      body.readUInt32LE(at + 4),
      body.readFloatLE(at + 8),
      body.readInt32LE(at + 12),
      Number(body.readBigInt64LE(at + 16)),
      Number(body.readBigUInt64LE(at + 24)),
    );
  }
  return body.length / ROW_BYTES;
}

async function whole(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
