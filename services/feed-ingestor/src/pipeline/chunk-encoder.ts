/**
 * Turns one chunk of frames (a codec pack) into Kafka record batches, per topic kind and partition,
 * with no object per packet: the pack is decoded into a reused columnar batch and each row's JSON is
 * written straight into its partition's record batch (@feedpipe/kafka-client's RecordBatchBuilder),
 * with two headers: the row's source identity (`fp-src`) and the schema of the topic's records
 * (`fp-schema`, one value per topic kind, written once into the batch's header template).
 *
 * The layout depends on the topic's partition count, which the producer knows for sure only when it
 * sends; so a chunk is first counted (what the worker reports), then laid out per topic and
 * partition count (`recordSets`, memoised: ahead of the send for the count last seen, and again if
 * the producer finds another). Decoding twice costs little: the columnar decoder runs at tens of
 * millions of rows a second; writing the JSON and the record framing is what costs.
 *
 * Counting also notes the last trade of every instrument in the chunk (`traded`, for the repeat
 * guard and the stale watch of the main thread) and drops repeats: a trade row that is not newer
 * than the instrument's previous trade (earlier in the chunk, or in the `guard`: the last trade
 * produced of instruments whose resubscription snapshot is due, or, after a handover, the last one
 * the old leader produced), neither a higher cumulative volume nor a later trade time, was
 * produced already and is not produced again. A day's cumulative volume grows with every trade and
 * a new day's trades are later, so no genuine trade is ever taken for a repeat; "not newer" rather
 * than "equal" also drops the trades a handover's overlap delivered to both processes.
 *
 * Counting also reckons each produced trade's traded quantity from the connection's bases
 * (chunk-quantities.ts), written after receivedAt in its record; the bases the chunk moved are
 * reported, for the connection's next one.
 */
import {
  ColumnarBatch,
  type DecodeCounters,
  decodeFramesToColumns,
  MAX_ROW_JSON_BYTES,
  MsgCode,
  newDecodeCounters,
  newDecodePosition,
  RECORD_TYPE_BY_CODE,
  writeRowJson,
} from '@feedpipe/codec';
import {
  FEED_SCHEMA_IDS,
  type PerTopicKind,
  perTopicKind,
  SCHEMA_HEADER,
  SOURCE_BYTES,
  SOURCE_HEADER,
  TOPIC_KINDS,
  topicKindOf,
} from '@feedpipe/contracts';
import {
  type HeaderLayout,
  partitionOf,
  RecordBatchBuilder,
  type RecordValueWriter,
} from '@feedpipe/kafka-client';
import { BufferPool } from '@feedpipe/service-kit';
import { ChunkQuantities } from './chunk-quantities.js';

/** Rows decoded per pass; a larger pack is decoded in several passes. */
const BATCH_ROWS = 65_536;
/** Typical bytes of one record (framing, key, JSON and headers), to size record batches up front. */
const TYPICAL_RECORD_BYTES = 230;
/** Bound on the per-instrument caches, so a hostile stream of ids cannot grow them without limit. */
const MAX_CACHED_IDS = 1_000_000;

/** Topic kind (index into TOPIC_KINDS) per message code, from the one mapping in topics.ts. */
const KIND_BY_CODE = new Uint8Array(256).fill(TOPIC_KINDS.indexOf('status'));
for (const [code, type] of Object.entries(RECORD_TYPE_BY_CODE)) {
  KIND_BY_CODE[Number(code)] = TOPIC_KINDS.indexOf(topicKindOf(type));
}

const batch = new ColumnarBatch(BATCH_ROWS);

/** Record-batch buffers, reused by later chunks once their send has settled (`release`). */
const pool = new BufferPool(64, 64 * 1024 * 1024);

/**
 * The headers of each topic kind's records, in TOPIC_KINDS order: the source identity (given per
 * record) and the schema id (one value for the kind). One constant array per kind, so the batch
 * builder makes each header template once.
 */
const HEADERS_BY_KIND: readonly (readonly HeaderLayout[])[] = TOPIC_KINDS.map((kind) => [
  { name: SOURCE_HEADER, valueBytes: SOURCE_BYTES },
  { name: SCHEMA_HEADER, value: Buffer.from(FEED_SCHEMA_IDS[kind], 'utf8') },
]);

/** The record value of the current row: set the row, then hand this to RecordBatchBuilder.append. */
class RowValue implements RecordValueWriter {
  readonly maxBytes = MAX_ROW_JSON_BYTES;
  row = 0;
  receivedAt = 0;
  /** A trade row's quantity (NaN: unknown); other rows have none. */
  quantity = Number.NaN;
  writeValue(out: Uint8Array, at: number): number {
    return writeRowJson(batch, this.row, out, at, this.receivedAt, this.quantity);
  }
}
const rowValue = new RowValue();

/** The `fp-src` header value of the current row (source-identity.ts): run, connection, chunk, row. */
const sourceBytes = new Uint8Array(SOURCE_BYTES);
const sourceView = new DataView(sourceBytes.buffer);

/** Where a chunk came from: the first three fields of every record's source identity. */
export interface ChunkSource {
  run: number;
  connection: number;
  chunk: number;
}

/** What a row needs of its instrument: the message key, and its partition for one partition count. */
interface InstrumentRouting {
  /** The security id as decimal text (0 for feed errors, which carry none). */
  readonly key: Buffer;
  partitionCount: number;
  partition: number;
}

/**
 * Java's default (murmur2) partitioner, so a record lands where any Java-compatible producer would
 * put it; its answer is remembered per instrument (one Map lookup a row), for the partition count
 * last asked about. Bounded so a hostile stream of ids cannot grow it.
 */
const routing = new Map<number, InstrumentRouting>();
function routingOf(securityId: number, partitionCount: number): InstrumentRouting {
  let route = routing.get(securityId);
  if (route === undefined) {
    if (routing.size >= MAX_CACHED_IDS) routing.clear();
    route = { key: Buffer.from(String(securityId)), partitionCount: 0, partition: 0 };
    routing.set(securityId, route);
  }
  if (route.partitionCount !== partitionCount) {
    route.partition = partitionOf(route.key, partitionCount);
    route.partitionCount = partitionCount;
  }
  return route;
}

const ERROR_CODE = MsgCode.Error;
function keyIdOf(row: number): number {
  return batch.codeAt(row) === ERROR_CODE ? 0 : batch.securityIdAt(row);
}

export interface ChunkCount {
  counters: DecodeCounters;
  /** Rows per topic kind, in TOPIC_KINDS order (repeats not included). */
  rowsByKind: PerTopicKind<number>;
  /** Trade rows dropped as repeats of the instrument's previous trade. */
  repeats: number;
  /** The last trade of each instrument in the chunk: [securityId, volume, ltt, receivedAtMicros]... */
  traded: Float64Array;
  /** The quantity bases the chunk started or moved (chunk-quantities.ts, BASE_STRIDE). */
  movedBases: Float64Array;
  /** Trades produced with their quantity unknown (null). */
  unknownQuantities: number;
}

/** Values per instrument in `guard`: security id, cumulative volume, last trade time. */
export const GUARD_STRIDE = 3;
/** Values per instrument in `traded`: security id, cumulative volume, last trade time, receive time. */
export const TRADED_STRIDE = 4;
const TRADE_CODE = MsgCode.Trade;

/** The guard as a map: security id -> [volume, ltt] of the instrument's previous trade. */
function guardMap(guard: Float64Array | undefined): Map<number, [number, number]> | undefined {
  if (guard === undefined || guard.length === 0) return undefined;
  const map = new Map<number, [number, number]>();
  for (let i = 0; i + GUARD_STRIDE <= guard.length; i += GUARD_STRIDE)
    map.set(guard[i] as number, [guard[i + 1] as number, guard[i + 2] as number]);
  return map;
}

export class ChunkEncoder {
  readonly #pack: Uint8Array;
  readonly #source: ChunkSource;
  readonly #layouts = new Map<string, Map<number, RecordBatchBuilder>>();
  readonly #guard: Map<number, [number, number]> | undefined;
  /** Chunk rows (numbered over every pass) dropped as repeats. */
  readonly #repeatRows = new Set<number>();
  readonly #quantities: ChunkQuantities;
  /** The quantity of each produced trade, by chunk row (NaN: unknown, or not a produced trade). */
  #quantityOfRow = new Float64Array(1024).fill(Number.NaN);
  #count: ChunkCount | undefined;

  /**
   * `bases`: the connection's quantity bases (chunk-quantities.ts); none where nothing is known
   * of its instruments' previous trades (a write-ahead log's replay).
   */
  constructor(pack: Uint8Array, source: ChunkSource, guard?: Float64Array, bases?: Float64Array) {
    this.#pack = pack;
    this.#source = source;
    this.#guard = guardMap(guard);
    this.#quantities = new ChunkQuantities(bases);
  }

  /** Packets, malformed and unknown packets, rows per topic kind, repeats and the last trades. */
  count(): ChunkCount {
    if (this.#count) return this.#count;
    const counters = newDecodeCounters();
    const rowsByKind = perTopicKind(0);
    const last = new Map<number, number>();
    const lastTrades: number[] = [];
    const position = newDecodePosition();
    let chunkRow = 0;
    while (!position.done) {
      batch.clear();
      decodeFramesToColumns(this.#pack, batch, counters, position);
      for (let row = 0; row < batch.length; row++, chunkRow++) {
        const code = batch.codeAt(row);
        if (code === TRADE_CODE && this.#tradeRow(row, chunkRow, last, lastTrades)) continue;
        rowsByKind[KIND_BY_CODE[code] as 0] += 1;
      }
    }
    this.#count = {
      counters,
      rowsByKind,
      repeats: this.#repeatRows.size,
      traded: Float64Array.from(lastTrades),
      movedBases: this.#quantities.moved(),
      unknownQuantities: this.#quantities.unknown,
    };
    return this.#count;
  }

  /** Notes a trade row as its instrument's last; true when it is not newer than the previous one (dropped). */
  #tradeRow(row: number, chunkRow: number, last: Map<number, number>, lastTrades: number[]): boolean {
    const id = batch.securityIdAt(row);
    const volume = batch.intAt(row, 1);
    const ltt = batch.intAt(row, 2);
    let at = last.get(id);
    // The instrument's previous trade: earlier in this chunk, else the guard's (an earlier chunk).
    const previous = at !== undefined ? undefined : this.#guard?.get(id);
    const repeat =
      at !== undefined
        ? volume <= (lastTrades[at + 1] as number) && ltt <= (lastTrades[at + 2] as number)
        : previous !== undefined && volume <= previous[0] && ltt <= previous[1];
    if (repeat) {
      this.#repeatRows.add(chunkRow);
      return true;
    }
    if (at === undefined) {
      at = lastTrades.length;
      last.set(id, at);
      lastTrades.push(id, 0, 0, 0);
    }
    lastTrades[at + 1] = volume;
    lastTrades[at + 2] = ltt;
    const receivedAt = batch.receivedAtMicrosAt(row);
    lastTrades[at + 3] = receivedAt;
    this.#noteQuantity(chunkRow, this.#quantities.next(id, ltt, volume, receivedAt));
    return false;
  }

  #noteQuantity(chunkRow: number, quantity: number): void {
    if (chunkRow >= this.#quantityOfRow.length) {
      const grown = new Float64Array(Math.max(chunkRow + 1, this.#quantityOfRow.length * 2)).fill(Number.NaN);
      grown.set(this.#quantityOfRow);
      this.#quantityOfRow = grown;
    }
    this.#quantityOfRow[chunkRow] = quantity;
  }

  /** Returns every laid-out batch's buffer for reuse; call once the sends have settled. */
  release(): void {
    for (const sets of this.#layouts.values()) for (const set of sets.values()) set.release();
    this.#layouts.clear();
  }

  /** The records of topic kind `kind` (index into TOPIC_KINDS) laid out per partition. */
  recordSets(kind: number, partitionCount: number): ReadonlyMap<number, RecordBatchBuilder> {
    const memoKey = `${kind}/${partitionCount}`;
    const known = this.#layouts.get(memoKey);
    if (known) return known;
    // The repeats are known once counted.
    const rows = this.count().rowsByKind[kind as 0];
    const expectedBytes = Math.ceil((rows * TYPICAL_RECORD_BYTES) / partitionCount);
    const headers = HEADERS_BY_KIND[kind] as readonly HeaderLayout[];
    const sets = new Map<number, RecordBatchBuilder>();
    const position = newDecodePosition();
    sourceView.setUint32(0, this.#source.run);
    sourceView.setUint16(4, this.#source.connection);
    sourceView.setUint32(6, this.#source.chunk);
    // Rows are numbered over the whole chunk (every kind, every decoding pass), so each row of the
    // chunk has its own identity whichever topic it goes to.
    let chunkRow = 0;
    while (!position.done) {
      batch.clear();
      decodeFramesToColumns(this.#pack, batch, undefined, position);
      for (let row = 0; row < batch.length; row++, chunkRow++) {
        if (KIND_BY_CODE[batch.codeAt(row)] !== kind || this.#repeatRows.has(chunkRow)) continue;
        const route = routingOf(keyIdOf(row), partitionCount);
        let set = sets.get(route.partition);
        if (!set) {
          set = new RecordBatchBuilder({ headers, expectedBytes, buffers: pool });
          sets.set(route.partition, set);
        }
        rowValue.row = row;
        rowValue.receivedAt = batch.receivedAtMicrosAt(row);
        rowValue.quantity = this.#quantityOfRow[chunkRow] ?? Number.NaN;
        sourceView.setUint32(10, chunkRow);
        set.append(route.key, rowValue, sourceBytes);
      }
    }
    this.#layouts.set(memoKey, sets);
    return sets;
  }
}
