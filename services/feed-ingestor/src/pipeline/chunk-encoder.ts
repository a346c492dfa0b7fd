/**
 * Turns one chunk of frames (a codec pack) into Kafka record batches, per topic kind and partition,
 * with no object per packet: the pack is decoded into a reused columnar batch and each row's JSON is
 * written straight into its partition's record set (RecordSetBuilder).
 *
 * The layout depends on the topic's partition count, which the Kafka client knows for sure only when
 * it sends; so a chunk is first counted (what the worker reports), then laid out per topic and
 * partition count (`recordSets`, memoised: ahead of the send for the count last seen, and again if
 * the client reports another). Decoding twice costs little: the columnar decoder runs at tens of
 * millions of rows a second; writing the JSON and the record framing is what costs.
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
import { SOURCE_BYTES, TOPIC_KINDS, topicKindOf } from '@feedpipe/contracts';
import { Partitioners } from 'kafkajs';
import { RecordSetBuilder, type RecordValueWriter } from '../kafka/record-set-builder.js';

/** Rows decoded per pass; a larger pack is decoded in several passes. */
const BATCH_ROWS = 65_536;
/** Typical bytes of one record (framing, key and JSON), to size record sets up front. */
const TYPICAL_RECORD_BYTES = 200;
/** Bound on the per-instrument caches, so a hostile stream of ids cannot grow them without limit. */
const MAX_CACHED_IDS = 1_000_000;

/** Topic kind (index into TOPIC_KINDS) per message code, from the one mapping in topics.ts. */
const KIND_BY_CODE = new Uint8Array(256).fill(TOPIC_KINDS.indexOf('status'));
for (const [code, type] of Object.entries(RECORD_TYPE_BY_CODE)) {
  KIND_BY_CODE[Number(code)] = TOPIC_KINDS.indexOf(topicKindOf(type));
}

const batch = new ColumnarBatch(BATCH_ROWS);

/** The record value of the current row: set the row, then hand this to RecordSetBuilder.append. */
class RowValue implements RecordValueWriter {
  readonly maxBytes = MAX_ROW_JSON_BYTES;
  row = 0;
  receivedAt = 0;
  writeValue(out: Uint8Array, at: number): number {
    return writeRowJson(batch, this.row, out, at, this.receivedAt);
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
 * kafkajs's default (Java-compatible murmur2) partitioner, so a record lands where any
 * Java-compatible producer would put it; its answer is remembered per instrument (one Map lookup a
 * row), for the partition count last asked about. Bounded so a hostile stream of ids cannot grow it.
 */
const murmur = Partitioners.DefaultPartitioner();
const routing = new Map<number, InstrumentRouting>();
function routingOf(securityId: number, partitionCount: number): InstrumentRouting {
  let route = routing.get(securityId);
  if (route === undefined) {
    if (routing.size >= MAX_CACHED_IDS) routing.clear();
    route = { key: Buffer.from(String(securityId)), partitionCount: 0, partition: 0 };
    routing.set(securityId, route);
  }
  if (route.partitionCount !== partitionCount) {
    const partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      replicas: [0],
      isr: [0],
      partitionErrorCode: 0,
    }));
    route.partition = murmur({ topic: '', partitionMetadata, message: { key: route.key, value: null } });
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
  /** Rows per topic kind, in TOPIC_KINDS order. */
  rowsByKind: [number, number, number, number];
}

export class ChunkEncoder {
  readonly #pack: Uint8Array;
  readonly #source: ChunkSource;
  readonly #layouts = new Map<string, Record<number, RecordSetBuilder>>();
  #count: ChunkCount | undefined;

  constructor(pack: Uint8Array, source: ChunkSource) {
    this.#pack = pack;
    this.#source = source;
  }

  /** Packets, malformed and unknown packets, and rows per topic kind. */
  count(): ChunkCount {
    if (this.#count) return this.#count;
    const counters = newDecodeCounters();
    const rowsByKind: [number, number, number, number] = [0, 0, 0, 0];
    const position = newDecodePosition();
    while (!position.done) {
      batch.clear();
      decodeFramesToColumns(this.#pack, batch, counters, position);
      for (let row = 0; row < batch.length; row++) rowsByKind[KIND_BY_CODE[batch.codeAt(row)] as 0] += 1;
    }
    this.#count = { counters, rowsByKind };
    return this.#count;
  }

  /** Returns every laid-out record set's buffer for reuse; call once the sends have settled. */
  release(): void {
    for (const sets of this.#layouts.values()) for (const set of Object.values(sets)) set.release();
    this.#layouts.clear();
  }

  /** The records of topic kind `kind` (index into TOPIC_KINDS) laid out per partition. */
  recordSets(kind: number, partitionCount: number): Record<number, RecordSetBuilder> {
    const memoKey = `${kind}/${partitionCount}`;
    const known = this.#layouts.get(memoKey);
    if (known) return known;
    const rows = this.count().rowsByKind[kind as 0];
    const expectedBytes = Math.ceil((rows * TYPICAL_RECORD_BYTES) / partitionCount);
    const sets: Record<number, RecordSetBuilder> = {};
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
        if (KIND_BY_CODE[batch.codeAt(row)] !== kind) continue;
        const route = routingOf(keyIdOf(row), partitionCount);
        let set = sets[route.partition];
        if (!set) {
          set = new RecordSetBuilder(expectedBytes);
          sets[route.partition] = set;
        }
        rowValue.row = row;
        rowValue.receivedAt = batch.receivedAtMicrosAt(row);
        sourceView.setUint32(10, chunkRow);
        set.append(route.key, rowValue, sourceBytes);
      }
    }
    this.#layouts.set(memoKey, sets);
    return sets;
  }
}
