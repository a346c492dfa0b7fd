/**
 * Segments of the feed write-ahead log (a copy of INGESTOR_WAL_DIR, or what a stopped ingestor left)
 * as replay groups carrying the live run's own source identities. A capture file has lost who
 * produced its frames, so its replay gets identities of its own and a first replay into the live
 * topics stores the live data again; a segment's name and ledger still say which run, connection and
 * chunk each frame went out in (wal/segment-layout.ts), so here every record gets the identity the
 * live ingestor gave it: (run, connection, chunk sequence, row), the row numbered over the whole
 * chunk as pipeline/chunk-encoder.ts numbers it (every packet the decoder yields, "no data yet"
 * packets excepted, repeats included in the count). On the live topics the sink then takes each
 * replayed record for a copy of the one the ingestor sent, and stores nothing twice.
 *
 * Streams (one per run and connection) are merged by receive time, taking frames of a stream only
 * in their order, so on every partition a stream's (chunk, row) still grows, as the copy rule needs.
 * Frames outside the range are skipped without changing anyone's identity. Repeated trades are left
 * out as the live encoder leaves them out (replay-record.ts).
 */
import { CAPTURE_RECORD_HEADER_SIZE, decodeFrameToRecords, newDecodeCounters } from '@feedpipe/codec';
import type { SourceIdentity } from '@feedpipe/contracts';
import { readWalStreams, type WalChunk, type WalStream } from '../wal/wal-reader.js';
import { inRange, type ReplayRange } from './replay-range.js';
import { RepeatedTrades, type ReplayGroup, type ReplaySourceCounts } from './replay-record.js';

/** One logged frame and the chunk it went out in. */
interface WalFrame {
  receivedAtMicros: number;
  payload: Uint8Array;
  chunk: WalChunk;
}

/** The frames of a stream's chunks, in order (a chunk's pack is capture records back to back). */
function* framesOf(stream: WalStream): Generator<WalFrame> {
  for (const chunk of stream.chunks) {
    const pack = chunk.pack;
    const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
    for (let at = 0; at + CAPTURE_RECORD_HEADER_SIZE <= pack.byteLength; ) {
      const length = view.getUint32(at, true);
      // The u64 receive time from its two halves: exact below 2^53 µs.
      const micros = view.getUint32(at + 4, true) + view.getUint32(at + 8, true) * 4294967296;
      const start = at + CAPTURE_RECORD_HEADER_SIZE;
      yield { receivedAtMicros: micros, payload: pack.subarray(start, start + length), chunk };
      at = start + length;
    }
  }
}

/** The streams' frames merged by receive time, each stream's in its own order. */
function* mergedFrames(streams: readonly WalStream[]): Generator<WalFrame> {
  const cursors = streams.map((stream) => framesOf(stream));
  const heads = cursors.map((cursor) => cursor.next());
  // Bounded by the frames of the log: each round yields one and advances its stream.
  for (;;) {
    let next = -1;
    heads.forEach((head, i) => {
      if (head.done) return;
      const best = heads[next];
      if (
        next < 0 ||
        (best !== undefined && !best.done && head.value.receivedAtMicros < best.value.receivedAtMicros)
      )
        next = i;
    });
    const head = heads[next];
    if (head === undefined || head.done) return;
    yield head.value;
    heads[next] = (cursors[next] as Generator<WalFrame>).next();
  }
}

export async function* walGroups(
  dir: string,
  range: ReplayRange,
  counts: ReplaySourceCounts,
): AsyncGenerator<ReplayGroup> {
  const repeats = new RepeatedTrades();
  const decoded = newDecodeCounters();
  /** Per stream, its chunk at hand and the rows of that chunk before the frame at hand. */
  const place = new Map<string, { chunk: WalChunk; rows: number }>();
  for (const frame of mergedFrames(readWalStreams(dir))) {
    counts.read += 1;
    const malformedBefore = decoded.malformed + decoded.unknown;
    const records = decodeFrameToRecords(frame.payload, decoded);
    counts.malformed += decoded.malformed + decoded.unknown - malformedBefore;
    const { chunk } = frame;
    // A stream's frames come in its order, so a new chunk of the stream starts its rows at 0.
    const key = `${chunk.run}/${chunk.connection}`;
    const at = place.get(key);
    const firstRow = at?.chunk === chunk ? at.rows : 0;
    place.set(key, { chunk, rows: firstRow + records.length });
    if (!inRange(range, frame.receivedAtMicros)) {
      counts.outOfRange += 1;
      continue;
    }
    const group: ReplayGroup = { receivedAtMicros: frame.receivedAtMicros, records: [] };
    records.forEach((record, i) => {
      if (repeats.isRepeat(record)) {
        counts.repeats += 1;
        return;
      }
      const identity: SourceIdentity = {
        run: chunk.run,
        connection: chunk.connection,
        chunk: chunk.sequence,
        row: firstRow + i,
      };
      group.records.push({ record, identity });
    });
    if (group.records.length > 0) yield group;
  }
}
